// Helpers of the fuzz targets: a line's words, a stream that drops what
// is written, buffers with guard bytes, and the abort that reports a
// finding.
#ifndef RNDNN_FUZZ_FUZZ_UTIL_HPP
#define RNDNN_FUZZ_FUZZ_UTIL_HPP

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <streambuf>
#include <string>
#include <vector>

namespace rndnn_fuzz {

// Stops the run as a finding: libFuzzer reports the abort with the stack
// and saves the input.
[[noreturn]] inline void finding(const std::string &what) {
    std::fprintf(stderr, "rndnn fuzz finding: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

// A stream buffer that drops everything (the tools' --help goes to
// std::cout; libFuzzer's own output goes to stderr).
class null_buf : public std::streambuf {
protected:
    int overflow(int c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char *, std::streamsize n) override {
        return n;
    }
};

// @p bytes of memory between two guards of pattern bytes, 64-byte aligned
// as rndnn::memory's own: a kernel that writes outside (JIT code is not
// instrumented by ASan) changes a guard.
class guarded_buf {
public:
    static constexpr std::size_t guard = 256;
    static constexpr unsigned char pattern = 0xa5;

    explicit guarded_buf(std::size_t bytes)
        : bytes_(bytes), raw_(bytes + 2 * guard + 64, pattern) {
        const auto base = reinterpret_cast<std::uintptr_t>(raw_.data());
        const std::size_t pad = (64 - (base + guard) % 64) % 64;
        data_ = raw_.data() + pad + guard;
        lo_ = pad;
    }
    guarded_buf(const guarded_buf &) = delete;
    guarded_buf &operator=(const guarded_buf &) = delete;

    unsigned char *data() { return data_; }
    const unsigned char *data() const { return data_; }
    std::size_t size() const { return bytes_; }

    // Aborts naming @p what if a byte outside the buffer changed.
    void check_guards(const std::string &what) const {
        for (std::size_t i = 0; i < raw_.size(); ++i) {
            const bool inside = i >= lo_ + guard && i < lo_ + guard + bytes_;
            if (!inside && raw_[i] != pattern)
                finding(what + ": a byte outside the buffer changed (at "
                        + std::to_string(static_cast<long long>(i)
                                - static_cast<long long>(lo_ + guard))
                        + " of " + std::to_string(bytes_) + " bytes)");
        }
    }

private:
    std::size_t bytes_;
    std::vector<unsigned char> raw_;
    unsigned char *data_;
    std::size_t lo_;
};

// Aborts naming @p what and the first differing byte unless @p a and @p b
// hold the same bytes.
inline void expect_same_bytes(const guarded_buf &a, const guarded_buf &b,
        const std::string &what) {
    if (a.size() != b.size())
        finding(what + ": sizes differ");
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a.data()[i] != b.data()[i]) {
            char msg[128];
            std::snprintf(msg, sizeof msg,
                    ": byte %zu of %zu differs (0x%02x vs 0x%02x)", i,
                    a.size(), a.data()[i], b.data()[i]);
            finding(what + msg);
        }
}

} // namespace rndnn_fuzz

#endif
