// The job of a command: one process or the ranks of mpirun (job.hpp).
#include "job.hpp"

#include <climits>
#include <cstdlib>
#include <exception>
#include <vector>

#include "rndnn/rndnn.hpp"

#include "common/cli_common.hpp"

#if RNDNN_WITH_MPI
#include <mpi.h>
#endif

namespace rndnn_cli {

namespace {

job_t the_job;

// The process count that a launcher announces in the environment: Open
// MPI's mpirun, MPICH's Hydra, or a PMIx launcher (srun --mpi=pmix, which
// names no count: 0). -1 where no launcher started this process.
int launched_size() {
    for (const char *var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
        if (const char *v = std::getenv(var)) return std::atoi(v);
    return std::getenv("PMIX_RANK") ? 0 : -1;
}

} // namespace

job_t &job_t::get() { return the_job; }

#if RNDNN_WITH_MPI

namespace {

std::string mpi_error(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    return std::string(text, static_cast<size_t>(len));
}

} // namespace

job_scope::job_scope(int &argc, char **&argv) {
    if (launched_size() < 0) return;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &the_job.rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &the_job.size_);
    the_job.distributed_ = true;
    set_message_prefix("rndnn: rank " + std::to_string(the_job.rank_) + " of "
            + std::to_string(the_job.size_) + ": ");
}

job_scope::~job_scope() {
    if (the_job.distributed_) MPI_Finalize();
}

bool job_t::agree_any(const std::function<bool()> &local) {
    std::exception_ptr error;
    bool mine = false;
    try {
        mine = local();
    } catch (...) { error = std::current_exception(); }
    if (!distributed_) {
        if (error) std::rethrow_exception(error);
        return mine;
    }
    // One reduction: the lowest failed rank (as INT_MAX - rank, so that
    // MAX finds it) and whether any rank said yes.
    int v[2] = {error ? INT_MAX - rank_ : -1, mine ? 1 : 0};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (error) std::rethrow_exception(error);
    if (v[0] >= 0)
        throw peer_failed("stopped: rank " + std::to_string(INT_MAX - v[0])
                + " of " + std::to_string(size_) + " failed");
    return v[1] != 0;
}

std::string job_t::broadcast(const std::string &text) {
    if (!distributed_) return text;
    long long n = static_cast<long long>(text.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    std::string s = rank_ == 0 ? text : std::string(static_cast<size_t>(n), '\0');
    MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
    return s;
}

struct mpi_file_t::impl_t {
    MPI_File fh = MPI_FILE_NULL;
};

mpi_file_t::mpi_file_t(
        const std::string &flag, const std::string &path, bool write)
    : flag_(flag), path_(path), write_(write), impl_(new impl_t) {
    const int rc = MPI_File_open(MPI_COMM_WORLD, path.c_str(),
            write ? MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL,
            &impl_->fh);
    job_t::get().agree([&] {
        if (rc != MPI_SUCCESS)
            throw io_error("cannot open " + flag + " '" + path
                    + "' with MPI-IO: " + mpi_error(rc));
    });
}

mpi_file_t::~mpi_file_t() {
    if (impl_->fh != MPI_FILE_NULL) MPI_File_close(&impl_->fh);
}

void mpi_file_t::transfer(const std::vector<byte_range_t> &ranges,
        void *buf, overlap_t overlap) {
    // The ranges as the file view of this call: one hindexed type of
    // bytes, adjacent ranges merged.
    std::vector<int> lens;
    std::vector<MPI_Aint> displs;
    long long total = 0;
    for (const byte_range_t &r : ranges) {
        if (r.bytes == 0) continue;
        if (!displs.empty() && displs.back() + lens.back() == r.offset) {
            lens.back() += static_cast<int>(r.bytes);
        } else {
            displs.push_back(static_cast<MPI_Aint>(r.offset));
            lens.push_back(static_cast<int>(r.bytes));
        }
        total += r.bytes;
    }
    MPI_Datatype view = MPI_BYTE;
    if (!lens.empty()) {
        MPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(),
                displs.data(), MPI_BYTE, &view);
        MPI_Type_commit(&view);
    }
    int rc = MPI_File_set_view(impl_->fh, 0, MPI_BYTE, view,
            const_cast<char *>("native"), MPI_INFO_NULL);
    MPI_Status st;
    const int count = static_cast<int>(total);
    // Ranges that other ranks may read too are read by this rank alone,
    // through the view: Open MPI 4.1's OMPIO gathers a collective read's
    // ranges at an aggregator, whose data sieving reads from the first
    // range to the end of the last in offset order, so that the bytes of
    // a range reaching past the last one's end came back unread
    // (docs/distributed.md, "MPI-IO").
    if (rc == MPI_SUCCESS) {
        if (write_)
            rc = MPI_File_write_all(impl_->fh, buf, count, MPI_BYTE, &st);
        else if (overlap == overlap_t::none)
            rc = MPI_File_read_all(impl_->fh, buf, count, MPI_BYTE, &st);
        else
            rc = MPI_File_read(impl_->fh, buf, count, MPI_BYTE, &st);
    }
    if (view != MPI_BYTE) MPI_Type_free(&view);
    // A transfer of no bytes has nothing to count: ROMIO leaves its status
    // unset ("126 of 0 bytes transferred").
    int done = 0;
    if (rc == MPI_SUCCESS && count > 0) MPI_Get_count(&st, MPI_BYTE, &done);
    job_t::get().agree([&] {
        const std::string what = (write_ ? "cannot write " : "cannot read ")
                + flag_ + " '" + path_ + "'";
        if (rc != MPI_SUCCESS) throw io_error(what + ": " + mpi_error(rc));
        if (done != count)
            throw io_error(what + ": " + std::to_string(done) + " of "
                    + std::to_string(count) + " bytes transferred"
                    + (write_ ? "" : " (the file is shorter than its header says)"));
    });
}

void mpi_file_t::close() {
    int rc = write_ ? MPI_File_sync(impl_->fh) : MPI_SUCCESS;
    const int rc_close = MPI_File_close(&impl_->fh);
    if (rc == MPI_SUCCESS) rc = rc_close;
    job_t::get().agree([&] {
        if (rc != MPI_SUCCESS)
            throw io_error("cannot write " + flag_ + " '" + path_
                    + "': " + mpi_error(rc));
    });
}

#else // !RNDNN_WITH_MPI

job_scope::job_scope(int &, char **&) {
    if (launched_size() == 1 || launched_size() < 0) return;
    throw std::runtime_error(
            "mpirun started several processes, but this rndnn was built "
            "without MPI (RNDNN_ENABLE_MPI; scripts/install-deps.sh installs "
            "Open MPI): each would write the whole tensor");
}

job_scope::~job_scope() = default;

bool job_t::agree_any(const std::function<bool()> &local) { return local(); }

std::string job_t::broadcast(const std::string &text) { return text; }

struct mpi_file_t::impl_t {};

mpi_file_t::mpi_file_t(
        const std::string &flag, const std::string &path, bool write)
    : flag_(flag), path_(path), write_(write) {
    throw std::logic_error("MPI-IO on " + flag_ + " '" + path_ + "' ("
            + (write_ ? "write" : "read") + ") in a build without MPI");
}
mpi_file_t::~mpi_file_t() = default;
void mpi_file_t::transfer(
        const std::vector<byte_range_t> &, void *, overlap_t) {}
void mpi_file_t::close() {}

#endif

void job_t::agree(const std::function<void()> &local) {
    agree_any([&] {
        local();
        return false;
    });
}

void job_t::check_same(const std::string &mine,
        const std::function<std::string(const std::string &first)> &differs) {
    const std::string first = broadcast(mine);
    agree([&] {
        if (mine != first) throw usage_error(differs(first));
    });
}

void job_t::check_same_command(int argc, char **argv) {
    std::string mine;
    for (int i = 0; i < argc; ++i)
        mine += std::string(argv[i]) + '\0';
    check_same(mine, [&](const std::string &first) {
        // The first argument that differs, or the one that only one has.
        std::vector<std::string> theirs;
        for (size_t at = 0; at < first.size();) {
            const size_t end = first.find('\0', at);
            theirs.push_back(first.substr(at, end - at));
            at = end + 1;
        }
        int i = 0;
        while (i < argc && static_cast<size_t>(i) < theirs.size()
                && theirs[static_cast<size_t>(i)] == argv[i])
            ++i;
        const auto arg = [](const std::string &a) {
            return "'" + rndnn::escape(a) + "'";
        };
        const std::string what = i < argc
                ? arg(argv[i])
                        + (static_cast<size_t>(i) < theirs.size()
                                        ? ", not " + arg(theirs[static_cast<size_t>(i)])
                                        : std::string(", which rank 0 has not"))
                : "nothing, not " + arg(theirs[static_cast<size_t>(i)]);
        return "rank " + std::to_string(rank_)
                + "'s command line differs from rank 0's at argument "
                + std::to_string(i) + ": " + what
                + ": every rank must run the same command";
    });
}

} // namespace rndnn_cli
