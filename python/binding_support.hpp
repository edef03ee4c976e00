// What the Python package's two native libraries share: the pybind11
// module rndnn._rndnn (module.cpp) and the torch operators
// (torch_ops.cpp, built where torch's headers are). Each includes this
// header; its state (the primitive caches, the fork flags) is each
// library's own (hidden visibility: one copy a library).
#ifndef RNDNN_PYTHON_BINDING_SUPPORT_HPP
#define RNDNN_PYTHON_BINDING_SUPPORT_HPP

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include <dirent.h>
#include <pthread.h>
#include <sys/mman.h>

#include "rndnn/rndnn.hpp"

namespace rndnn_python {

// The primitives made last, most recent first, looked up by what they were
// made from: making one (its JIT code) costs about 40 us, as much as
// running dropout on 10^5 elements. Thread-safe (a mutex: the module calls
// it with the GIL held, the torch operators without it).
template <typename key_t, typename primitive_t>
class recent_primitives_t {
public:
    template <typename make_t>
    std::shared_ptr<const primitive_t> get(const key_t &key, make_t make) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = list_.begin(); it != list_.end(); ++it)
            if (it->first == key) {
                list_.splice(list_.begin(), list_, it);
                return it->second;
            }
        list_.emplace_front(key, std::make_shared<const primitive_t>(make()));
        if (list_.size() > capacity) list_.pop_back();
        return list_.front().second;
    }

private:
    static constexpr std::size_t capacity = 32;
    std::mutex mutex_;
    std::list<std::pair<key_t, std::shared_ptr<const primitive_t>>> list_;
};

// A bit tensor's last byte: kernels never write its unused high bits,
// which are 0 here as in rndnn gen's files (docs/cli.md).
inline void clear_unused_bits(
        std::uint8_t *data, const rndnn::memory::desc &md) {
    const rndnn::dim_t n = md.nelems();
    if (md.get_data_type() == rndnn::data_type::bit && n % 8)
        data[n / 8] &= static_cast<std::uint8_t>((1u << (n % 8)) - 1);
}

// New outputs (rndnn/_arrays.py's _new, and the torch operators', before
// anything writes them): the 2 MiB-aligned interior of @p nbytes at @p
// address is advised for transparent huge pages (MADV_HUGEPAGE: THP's
// `madvise` mode, Debian's default, backs only advised memory), so that a
// fresh mapping faults 2 MiB at a time when the kernel first writes it, 512
// times fewer faults than 4 KiB pages: at 2^24 f32 out of place, the faults
// cost more than dropout itself (docs/python.md). Only blocks of 32 MiB or
// more, which glibc's malloc always maps afresh and unmaps at free, and
// only where the interior's first page is not yet in memory: smaller
// blocks come from malloc's heap, where the advice outlives the block, and
// the heap's memory trimmed and given again then faulted through the
// kernel's compaction (THP defrag `madvise`): 2^22 f32 on 2 threads took
// 15 ms instead of 1.4. Returns the bytes advised: 0 for a smaller block,
// memory in use, or where the kernel refuses (no THP); advice only, never
// an error.
inline std::size_t advise_huge_pages(
        std::uintptr_t address, std::size_t nbytes) {
    constexpr std::uintptr_t huge = std::uintptr_t(1) << 21;
    constexpr std::size_t threshold = std::size_t(32) << 20;
    if (nbytes < threshold || address + nbytes < address) return 0;
    const std::uintptr_t begin = (address + huge - 1) & ~(huge - 1);
    const std::uintptr_t end = (address + nbytes) & ~(huge - 1);
    if (end <= begin) return 0;
    unsigned char resident = 0;
    if (mincore(reinterpret_cast<void *>(begin), 1, &resident) != 0
            || (resident & 1) != 0)
        return 0;
    const std::size_t length = end - begin;
    return madvise(reinterpret_cast<void *>(begin), length, MADV_HUGEPAGE) == 0
            ? length
            : 0;
}

// fork() after threads (docs/python.md): GNU OpenMP's threads do not
// survive fork(), and a child forked after a parallel region ran in the
// parent (rndnn's, or another library's, torch's among them: they share
// libgomp) hangs at its first parallel region. So a child forked from a
// process that had threads other than the forking one runs the kernels of
// this library on one thread, which opens no parallel region; so do its
// own children, which inherit its OpenMP. The threads are counted in the
// parent just before the fork (pthread_atfork, registered by
// watch_forks() when the library loads; where /proc cannot tell, it
// counts as threaded).
inline bool threaded_at_fork = false;
inline bool forked_after_threads = false;

inline bool has_other_threads() {
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return true;
    int n = 0;
    while (const dirent *e = readdir(tasks))
        n += e->d_name[0] != '.';
    closedir(tasks);
    return n != 1;
}

// Registers the fork handlers (once per library).
inline void watch_forks() {
    if (pthread_atfork([] { threaded_at_fork = has_other_threads(); },
                nullptr, [] { forked_after_threads |= threaded_at_fork; })
            != 0)
        throw std::runtime_error("pthread_atfork failed");
}

// The stream of every kernel: OpenMP's thread count (which torch's
// set_num_threads sets too), or one thread after a fork after threads.
inline rndnn::stream kernel_stream() {
    return rndnn::stream(forked_after_threads ? 1 : 0);
}

} // namespace rndnn_python

#endif
