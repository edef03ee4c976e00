// How `rndnn bench` times a problem (cli_bench_measure.hpp): the runs, their
// medians and the memcpy baseline.
#include "cli_bench_measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "rndnn/rndnn.hpp"

namespace rndnn_cli {

namespace {

double seconds(const std::function<void()> &f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Copies @p n bytes on up to @p nthr threads, each a contiguous slice of
// at least 64 KiB (so a small copy is not all fork and join): the way a
// problem on that many threads writes its output.
void copy_bytes(void *dst, const void *src, size_t n, int nthr) {
    if (n == 0) return; // an empty tensor's buffers may be null
    constexpr size_t min_slice = size_t(64) << 10;
    const size_t most = std::max(n / min_slice, size_t(1));
    nthr = static_cast<int>(std::min(size_t(std::max(nthr, 1)), most));
    if (nthr == 1) {
        std::memcpy(dst, src, n);
        return;
    }
    const size_t slice = (n / size_t(nthr) + 63) / 64 * 64;
#pragma omp parallel for num_threads(nthr) schedule(static, 1)
    for (int t = 0; t < nthr; ++t) {
        const size_t begin = std::min(n, size_t(t) * slice);
        const size_t end = std::min(n, begin + slice);
        std::memcpy(static_cast<char *>(dst) + begin,
                static_cast<const char *>(src) + begin, end - begin);
    }
}

} // namespace

medians_t measure(const prepared_t &t, int nthr, int runs) {
    // Two buffers allocated and touched here: the copy measures bandwidth,
    // not page faults. The destination escapes into memory objects that
    // outlive the timing, so the compiler cannot drop the copies.
    const rndnn::memory::desc md(
            {static_cast<rndnn::dim_t>(t.bytes)}, rndnn::data_type::u8);
    rndnn::memory src(md), dst(md);
    if (t.bytes) {
        std::memset(src.get_data_handle(), 1, t.bytes);
        std::memset(dst.get_data_handle(), 0, t.bytes);
    }
    const std::function<void()> copy = [&] {
        copy_bytes(dst.get_data_handle(), src.get_data_handle(), t.bytes,
                nthr);
    };

    t.run_impl();
    copy();
    if (t.run_ref) t.run_ref();
    std::vector<double> ti, tm, tr;
    for (int r = 0; r < runs; ++r) {
        ti.push_back(seconds(t.run_impl));
        tm.push_back(seconds(copy));
        if (t.run_ref) tr.push_back(seconds(t.run_ref));
    }
    const double impl = median(ti);
    return {impl, median(tm), t.run_ref ? median(tr) : impl};
}

} // namespace rndnn_cli
