// The processes that run one command together: this process alone, or the
// K ranks that mpirun started (docs/distributed.md). The only place of the
// tools that sees MPI.
//
// Failure is collective: every step that may fail on one rank runs inside
// agree() (or is a collective call that agrees by itself), so that all
// ranks learn of a failure at the same point, throw together and exit
// non-zero; no rank is left waiting in a collective call that a failed
// rank never makes.
#ifndef RNDNN_TOOLS_JOB_HPP
#define RNDNN_TOOLS_JOB_HPP

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rndnn_cli {

// Another rank failed (it prints its own message): exit status 1.
class peer_failed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class job_t {
public:
    // The job of this process: what main()'s job_scope started, or this
    // process alone.
    static job_t &get();

    int rank() const { return rank_; }
    int size() const { return size_; }
    // Whether MPI runs this job (mpirun started the process), even with
    // one rank: files are then written with MPI-IO.
    bool distributed() const { return distributed_; }

    // Runs @p local on this rank, then agrees with the others.
    // @returns whether @p local returned true on any rank.
    // @throws on every rank if @p local threw on any: its own exception
    //     where it threw, peer_failed naming the lowest such rank elsewhere.
    bool agree_any(const std::function<bool()> &local);
    void agree(const std::function<void()> &local);

    // Checks that every rank has rank 0's @p mine: a file's resolved
    // path, what an input's header says. @p differs makes the message of
    // a rank whose value differs from rank 0's (its argument).
    // @throws usage_error on the ranks that differ, peer_failed elsewhere.
    void check_same(const std::string &mine,
            const std::function<std::string(const std::string &first)>
                    &differs);

    // Checks that every rank runs the same command line: mpirun can start
    // different ones (MPMD), which would cut different tensors or wait in
    // different collective calls. main() calls it first.
    // @throws as check_same().
    void check_same_command(int argc, char **argv);

    // @returns @p text as rank 0 has it, on every rank.
    std::string broadcast(const std::string &text);

private:
    friend class job_scope;
    int rank_ = 0, size_ = 1;
    bool distributed_ = false;
};

// main()'s guard: starts MPI (MPI_Init) where mpirun started this process,
// and finalizes it at the end.
class job_scope {
public:
    // @throws std::runtime_error where mpirun started more than one
    //     process but this build has no MPI (RNDNN_ENABLE_MPI off).
    job_scope(int &argc, char **&argv);
    ~job_scope();
    job_scope(const job_scope &) = delete;
    job_scope &operator=(const job_scope &) = delete;
};

// A byte range of a file.
struct byte_range_t {
    std::int64_t offset, bytes;
};

// Whether two ranks may read one byte of a file in the same call.
enum class overlap_t {
    none, // no byte is read by two ranks
    possible, // the ranks' ranges may overlap: the bytes of a bit mask
              // that hold bits of several ranks' blocks, a mask that a
              // noise shape broadcasts over several ranks' blocks
};

// One file that every rank of a distributed job opens, then reads or
// writes its own byte ranges of with collective MPI-IO calls.
class mpi_file_t {
public:
    // Opens @p path on every rank (collective); @p flag names it in
    // messages ("--out").
    // @throws as job_t::agree(), io_error naming the path and MPI's reason.
    mpi_file_t(const std::string &flag, const std::string &path, bool write);
    // Closes (collective) if close() was not called.
    ~mpi_file_t();
    mpi_file_t(const mpi_file_t &) = delete;
    mpi_file_t &operator=(const mpi_file_t &) = delete;

    // Moves @p ranges (ascending, disjoint; may be none) between the file
    // and @p buf, where they lie one after another: a collective call
    // that every rank makes, each with its own ranges. A read whose ranges
    // may overlap another rank's (@p overlap, never for a write) sets the
    // view collectively but reads independently: Open MPI 4.1's collective
    // read returns wrong bytes for overlapping ranges (docs/distributed.md,
    // "MPI-IO").
    // @throws as job_t::agree(), io_error if a read ends before the file
    //     has the bytes or a write fails.
    void transfer(const std::vector<byte_range_t> &ranges, void *buf,
            overlap_t overlap = overlap_t::none);
    // Flushes (writes) and closes: collective. @throws as transfer().
    void close();

private:
    struct impl_t;
    std::string flag_, path_;
    bool write_;
    std::unique_ptr<impl_t> impl_;
};

} // namespace rndnn_cli

#endif
