// Files read and written by the ranks of a job (sharded_file.hpp).
#include "sharded_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include <sys/stat.h>

#include "common/cli_common.hpp"

namespace rndnn_cli {

sharded_input::sharded_input(const std::string &flag, const std::string &path)
    : flag_(flag), path_(path) {
    job_t &job = job_t::get();
    job.agree([&] {
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw io_error("cannot read " + flag + " '" + path
                    + "': it is a directory");
        is_ = std::make_unique<std::ifstream>(path, std::ios::binary);
        if (!*is_)
            throw io_error("cannot open " + flag + " '" + path
                    + "': " + std::strerror(errno));
        try {
            header_ = rndnn::npy::read_header(*is_);
        } catch (const rndnn::error &e) {
            throw rndnn::error(
                    e.status(), flag + " '" + path + "': " + e.what());
        }
        data_start_ = static_cast<std::int64_t>(is_->tellg());
    });
    if (job.distributed()) {
        // Ranks that read different files (a relative path in different
        // working directories) would cut different tensors: they agree on
        // what the file holds before any reads its data.
        struct stat st;
        const std::int64_t file_bytes = ::stat(path.c_str(), &st) == 0
                ? static_cast<std::int64_t>(st.st_size)
                : -1;
        std::string shape;
        for (const rndnn::dim_t d : header_.shape)
            shape += (shape.empty() ? "" : "x") + std::to_string(d);
        const std::string mine = std::string(rndnn::dt2str(header_.dt))
                + " of shape [" + shape + "] in " + std::to_string(file_bytes)
                + " bytes";
        job.check_same(mine, [&](const std::string &first) {
            return flag + " '" + path + "' holds " + mine + " on rank "
                    + std::to_string(job.rank()) + ", " + first
                    + " on rank 0: every rank must read the same file";
        });
        is_.reset();
        mpi_ = std::make_unique<mpi_file_t>(flag, path, false);
    }
}

sharded_input::~sharded_input() = default;

void sharded_input::read(const std::vector<byte_range_t> &ranges, void *buf,
        overlap_t overlap) {
    if (mpi_) {
        std::vector<byte_range_t> in_file = ranges;
        for (byte_range_t &r : in_file)
            r.offset += data_start_;
        return mpi_->transfer(in_file, buf, overlap);
    }
    char *p = static_cast<char *>(buf);
    for (const byte_range_t &r : ranges) {
        // Ranges that follow each other need no seek: a pipe works too.
        if (r.offset != next_
                && !is_->seekg(static_cast<std::streamoff>(
                        data_start_ + r.offset)))
            throw io_error("cannot read " + flag_ + " '" + path_
                    + "': it cannot seek to byte "
                    + std::to_string(data_start_ + r.offset));
        if (!is_->read(p, static_cast<std::streamsize>(r.bytes)))
            throw io_error("cannot read " + flag_ + " '" + path_ + "': "
                    + (is_->eof() ? std::string("the file ends before its data")
                                  : std::strerror(errno)));
        p += r.bytes;
        next_ = r.offset + r.bytes;
    }
}

std::unique_ptr<std::uint8_t, void (*)(void *)> aligned_buffer(
        std::int64_t bytes) {
    const auto n = static_cast<size_t>(
            (std::max<std::int64_t>(bytes, 1) + 63) / 64 * 64);
    auto *p = static_cast<std::uint8_t *>(std::aligned_alloc(64, n));
    if (!p) throw std::bad_alloc();
    return {p, &std::free};
}

void append_box_ranges(const rndnn::dims &global, const box_t &box,
        std::int64_t esize, std::vector<byte_range_t> &ranges) {
    piece_iterator runs(global, box, std::numeric_limits<std::int64_t>::max());
    piece_t r;
    while (runs.next(r))
        ranges.push_back({r.first * esize, r.count * esize});
}

sharded_output::sharded_output(const std::string &flag,
        const std::string &path, const std::string &header,
        std::int64_t data_bytes)
    : flag_(flag)
    , header_bytes_(static_cast<std::int64_t>(header.size()))
    , file_bytes_(header_bytes_ + data_bytes) {
    job_t &job = job_t::get();
    if (!job.distributed()) {
        file_.emplace(path);
        file_->write(header.data(), header.size());
        return;
    }
    // The ranks agree on the file before one is created (a relative path
    // in different working directories names different files), and refuse
    // a special file before anything opens it (opening a FIFO waits for
    // its reader).
    std::string resolved;
    job.agree([&] {
        resolved = resolved_path(path);
        if (!replaces(resolved))
            throw io_error("cannot write " + flag + " '" + path
                    + "' under mpirun: the ranks write a regular file (a new "
                      "one or one they replace), not stdout, a directory or a "
                      "device");
    });
    job.check_same(resolved, [&](const std::string &first) {
        return flag + " '" + path + "' is '" + resolved + "' on rank "
                + std::to_string(job.rank()) + ", '" + first
                + "' on rank 0: every rank must name the same file";
    });
    // Rank 0 creates it whole: MPI-IO may not report a write that the
    // disk had no room for, and allocated bytes cannot run out.
    job.agree([&] {
        if (job.rank() != 0) return;
        file_.emplace(path);
        file_->write(header.data(), header.size());
        file_->reserve(file_bytes_);
        file_->finish();
    });
    const std::string tmp = job.broadcast(file_ ? file_->temp_path() : "");
    mpi_ = std::make_unique<mpi_file_t>(flag, tmp, true);
}

void sharded_output::write(const std::vector<byte_range_t> &ranges,
        void *buf) {
    if (mpi_) {
        std::vector<byte_range_t> in_file = ranges;
        for (byte_range_t &r : in_file)
            r.offset += header_bytes_;
        mpi_->transfer(in_file, buf);
        return;
    }
    const char *p = static_cast<const char *>(buf);
    for (const byte_range_t &r : ranges) {
        if (r.offset != end_)
            throw std::logic_error("sharded_output: a plain run writes "
                                   "its ranges in order");
        file_->write(p, static_cast<std::size_t>(r.bytes));
        p += r.bytes;
        end_ += r.bytes;
    }
}

void sharded_output::finish() {
    if (mpi_) {
        mpi_->close();
        mpi_.reset();
    } else if (!job_t::get().distributed()) {
        file_->finish();
    }
}

void sharded_output::commit() { commit_all({this}); }

void commit_all(const std::vector<sharded_output *> &files) {
    for (sharded_output *f : files)
        f->finish();
    job_t &job = job_t::get();
    // Under mpirun every write was checked on its rank; the size of the
    // whole file is checked before any replaces its name.
    if (job.distributed())
        job.agree([&] {
            for (sharded_output *f : files)
                if (f->file_) f->file_->check_size(f->file_bytes_);
        });
    job.agree([&] {
        std::vector<output_file *> mine;
        for (sharded_output *f : files)
            if (f->file_) mine.push_back(&*f->file_);
        commit_all(mine);
    });
}

std::int64_t share_bytes(
        const rndnn::dims &global, rndnn::data_type dt, split_t split) {
    const job_t &job = job_t::get();
    const std::int64_t n = rank_box(global, split, job.rank(), job.size()).nelems();
    return dt == rndnn::data_type::bit
            ? (n + 7) / 8
            : n * static_cast<std::int64_t>(rndnn::memory::desc({1}, dt).get_size());
}

void write_share(sharded_output &out, const rndnn::dims &global,
        rndnn::data_type dt, split_t split, std::int64_t chunk_bytes,
        progress_t &progress,
        const std::function<void(std::int64_t, std::int64_t, void *)> &fill) {
    job_t &job = job_t::get();
    const bool bit = dt == rndnn::data_type::bit;
    const auto esize = static_cast<std::int64_t>(
            bit ? 1 : rndnn::memory::desc({1}, dt).get_size());
    std::int64_t n = 1;
    for (const rndnn::dim_t d : global)
        n *= d;
    const std::int64_t chunk_elems
            = bit ? chunk_bytes * 8 : std::max<std::int64_t>(1, chunk_bytes / esize);
    piece_iterator pieces(
            global, rank_box(global, split, job.rank(), job.size()), chunk_elems);
    // A piece takes at most chunk_bytes, one more where byte_align() moves
    // its end past a byte of its own.
    const std::int64_t cap = chunk_bytes + 1;
    const auto buf = aligned_buffer(cap);

    std::optional<piece_t> pending;
    constexpr size_t max_ranges = 65536;
    while (true) {
        std::vector<byte_range_t> ranges;
        const bool more = job.agree_any([&] {
            std::int64_t used = 0;
            piece_t p;
            // At most max_ranges pieces a round: the ranges of a block of
            // short rows take bounded memory too.
            while (ranges.size() < max_ranges && (pending || pieces.next(p))) {
                if (pending) p = *std::exchange(pending, std::nullopt);
                std::int64_t count = p.count;
                const std::int64_t first
                        = bit ? byte_align(p.first, count, n) : p.first;
                if (count == 0) continue;
                const std::int64_t bytes = bit ? (count + 7) / 8 : count * esize;
                if (used + bytes > cap) {
                    pending = p;
                    break;
                }
                std::uint8_t *dst = buf.get() + used;
                fill(first, count, dst);
                // The unused high bits of the tensor's last byte are 0.
                if (bit && first + count == n && n % 8)
                    dst[bytes - 1] &= static_cast<std::uint8_t>(
                            (1u << (n % 8)) - 1);
                ranges.push_back({bit ? first / 8 : first * esize, bytes});
                used += bytes;
            }
            return !ranges.empty();
        });
        if (!more) break;
        out.write(ranges, buf.get());
        for (const byte_range_t &r : ranges)
            progress.add(r.bytes);
    }
}

} // namespace rndnn_cli
