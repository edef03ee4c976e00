// Files that every rank of the job reads or writes its share of, piece by
// piece: plain file I/O alone in a plain run, MPI-IO under mpirun
// (docs/distributed.md).
#ifndef RNDNN_TOOLS_SHARDED_FILE_HPP
#define RNDNN_TOOLS_SHARDED_FILE_HPP

#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/cli_output.hpp"
#include "job.hpp"
#include "progress.hpp"
#include "common/shard.hpp"

namespace rndnn_cli {

// A .npy input: every rank reads the header, then its own byte ranges.
class sharded_input {
public:
    // Opens @p path (@p flag names it, "--in") and reads its header. Under
    // mpirun the ranks then agree on the type, the shape and the file's
    // size.
    // @throws io_error if it cannot be opened or is a directory;
    //     rndnn::error (invalid_arguments) with the flag and path prefixed
    //     if it is no valid .npy file; usage_error where ranks read
    //     different files; as job_t::agree().
    sharded_input(const std::string &flag, const std::string &path);
    ~sharded_input();
    const rndnn::npy::header_t &header() const { return header_; }

    // Reads this rank's @p ranges (offsets from the start of the data,
    // ascending, disjoint) into @p buf, one after another. Under mpirun a
    // collective call that every rank makes, with ranges or none; @p
    // overlap says whether other ranks may read some of the same bytes
    // (mpi_file_t::transfer()).
    // @throws io_error naming the path, as job_t::agree().
    void read(const std::vector<byte_range_t> &ranges, void *buf,
            overlap_t overlap);

private:
    std::string flag_, path_;
    rndnn::npy::header_t header_;
    std::int64_t data_start_ = 0; // -1 in a pipe, where nothing seeks
    std::int64_t next_ = 0; // a plain run: the next byte read, from the data
    std::unique_ptr<std::ifstream> is_; // a plain run's
    std::unique_ptr<mpi_file_t> mpi_;
};

// An output file that every rank writes its share of.
class sharded_output {
public:
    // Opens @p path (@p flag names it in messages, "--out") as output_file
    // does, and writes @p header (the .npy header, or nothing); @p
    // data_bytes will follow it. Under mpirun the ranks first agree that
    // @p path names one file (resolved_path), then rank 0 creates the
    // temporary file, writes the header and allocates the data's bytes,
    // and every rank opens it: the path must be a regular file or a new
    // one.
    // @throws as output_file and job_t::agree(); usage_error where the
    //     ranks' paths name different files.
    sharded_output(const std::string &flag, const std::string &path,
            const std::string &header, std::int64_t data_bytes);

    // Writes this rank's @p ranges (offsets from the end of the header,
    // ascending) from @p buf, where they lie one after another. Under
    // mpirun a collective call: every rank makes it, with ranges or none.
    // In a plain run the ranges continue the file where it stands.
    // @throws io_error naming the path, as job_t::agree().
    void write(const std::vector<byte_range_t> &ranges, void *buf);

    // Writes out and closes; the output stays temporary. @throws as write().
    void finish();
    // finish()es, then renames the file into place (rank 0).
    void commit();

private:
    friend void commit_all(const std::vector<sharded_output *> &files);
    std::string flag_;
    std::int64_t header_bytes_ = 0;
    std::int64_t file_bytes_ = 0; // the header and the data
    std::int64_t end_ = 0; // a plain run: where the next range must start
    std::optional<output_file> file_; // rank 0's, or a plain run's
    std::unique_ptr<mpi_file_t> mpi_; // under mpirun, until finish()
};

// A buffer of @p bytes (at least 1), 64-byte aligned, uninitialized.
// @throws std::bad_alloc.
std::unique_ptr<std::uint8_t, void (*)(void *)> aligned_buffer(
        std::int64_t bytes);

// The byte ranges of the maximal contiguous runs of @p box, a block of a
// dense tensor of dims @p global whose elements take @p esize bytes, in
// order, appended to @p ranges.
void append_box_ranges(const rndnn::dims &global, const box_t &box,
        std::int64_t esize, std::vector<byte_range_t> &ranges);

// Commits several outputs: every one is finished (under mpirun: and its
// size checked) before the first is renamed, so a failed write leaves
// none of them.
void commit_all(const std::vector<sharded_output *> &files);

// Writes this rank's share of a dense tensor of dims @p global and type
// @p dt to @p out: its block under @p split (rank_box), in pieces of at
// most @p chunk_bytes bytes (>= 8), each filled by @p fill(first, count,
// dst) with the elements [first, first + count) of the global tensor in
// row-major order. A bit tensor's shares are byte-aligned (byte_align), so
// first is a multiple of 8 there. Every rank calls it (collective). Each
// piece written is added to @p progress.
// @throws as fill, sharded_output::write() and job_t::agree().
void write_share(sharded_output &out, const rndnn::dims &global,
        rndnn::data_type dt, split_t split, std::int64_t chunk_bytes,
        progress_t &progress,
        const std::function<void(std::int64_t first, std::int64_t count,
                void *dst)> &fill);

// The bytes of this rank's share of a dense tensor of dims @p global and
// type @p dt under @p split (a bit tensor's: its bits / 8, rounded up).
std::int64_t share_bytes(
        const rndnn::dims &global, rndnn::data_type dt, split_t split);

} // namespace rndnn_cli

#endif
