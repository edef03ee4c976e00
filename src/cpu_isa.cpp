// CPU detection, the JIT tier list and the tier cap.
#include "src/cpu_isa.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#if RNDNN_ENABLE_JIT
#include <xbyak/xbyak_util.h>
#endif

#include "src/enums.hpp"
#include "src/utils.hpp"

namespace rndnn {

namespace impl {

const std::vector<cpu_isa> &jit_tiers() {
#if RNDNN_ENABLE_JIT
    static const std::vector<cpu_isa> tiers
            = {cpu_isa::avx512, cpu_isa::avx2, cpu_isa::sse41};
#else
    static const std::vector<cpu_isa> tiers;
#endif
    return tiers;
}

const char *jit_impl_name(cpu_isa isa) {
    switch (isa) {
        case cpu_isa::sse41: return "jit:sse41";
        case cpu_isa::avx2: return "jit:avx2";
        case cpu_isa::avx512: return "jit:avx512";
        case cpu_isa::none:
        case cpu_isa::all: break;
    }
    return "jit:unknown";
}

const char *simd_impl_name(cpu_isa isa) {
    switch (isa) {
        case cpu_isa::sse41: return "simd:sse41";
        case cpu_isa::avx2: return "simd:avx2";
        case cpu_isa::avx512: return "simd:avx512";
        case cpu_isa::none:
        case cpu_isa::all: break;
    }
    return "simd:unknown";
}

bool tier_usable(cpu_isa isa, cpu_isa cap, std::string &why) {
    if (cpu_isa_detected() < isa) {
        why = cat("the CPU lacks ", isa2str(isa));
        if (cpu_isa_present() >= isa)
            why += cat(" (hidden: RNDNN_HIDE_CPU_ISA=",
                    isa2str(hidden_cpu_isa()), ")");
        return false;
    }
    if (!isa_allowed(isa, cap)) {
        why = cat("ISA capped at ", isa2str(std::min(cap, get_max_cpu_isa())));
        return false;
    }
    return true;
}

cpu_isa cpu_isa_present() {
#if RNDNN_ENABLE_JIT
    static const cpu_isa present = [] {
        using cpu_t = Xbyak::util::Cpu;
        const cpu_t cpu;
        if (cpu.has(cpu_t::tAVX512F) && cpu.has(cpu_t::tAVX512BW)
                && cpu.has(cpu_t::tAVX512VL) && cpu.has(cpu_t::tAVX512DQ))
            return cpu_isa::avx512;
        if (cpu.has(cpu_t::tAVX2) && cpu.has(cpu_t::tFMA)
                && cpu.has(cpu_t::tF16C))
            return cpu_isa::avx2;
        if (cpu.has(cpu_t::tSSE41)) return cpu_isa::sse41;
        return cpu_isa::none;
    }();
    return present;
#else
    return cpu_isa::none;
#endif
}

namespace {

// The environment variable @p var ("" when unset); callers read it once.
std::string env_text(const char *var) {
    const char *v = std::getenv(var);
    return std::string(v ? v : "");
}

// The tier (sse41, avx2 or avx512) that @p value of @p var names.
// @throws error (invalid_arguments) "VAR='value' names no <what> (expected
//     <others>sse41, avx2 or avx512)".
cpu_isa env_tier(const char *var, const std::string &value, const char *what,
        const char *others) {
    for (const cpu_isa isa : {cpu_isa::sse41, cpu_isa::avx2, cpu_isa::avx512})
        if (value == isa2str(isa)) return isa;
    fail(status::invalid_arguments,
            cat(var, "='", escape(value), "' names no ", what, " (expected ",
                    others, "sse41, avx2 or avx512)"));
}

} // namespace

cpu_isa hidden_cpu_isa() {
    static const std::string env = env_text("RNDNN_HIDE_CPU_ISA");
    if (env.empty()) return cpu_isa::all;
    return env_tier("RNDNN_HIDE_CPU_ISA", env, "ISA to hide", "");
}

cpu_isa cpu_isa_detected() {
    static const cpu_isa detected = [] {
        cpu_isa hidden = cpu_isa::all;
        try {
            hidden = hidden_cpu_isa();
        } catch (const error &) {
            // A bad value hides nothing; get_max_cpu_isa() names it at
            // every primitive creation.
        }
        // The best tier the CPU has, below the hidden one.
        cpu_isa isa = cpu_isa_present();
        while (isa >= hidden)
            isa = static_cast<cpu_isa>(static_cast<int>(isa) - 1);
        return isa;
    }();
    return detected;
}

void check_isa_cap(cpu_isa cap) {
    check_enum(cap, "ISA cap", "cpu_isa");
    get_max_cpu_isa(); // throws naming a bad RNDNN_MAX_CPU_ISA
}

namespace {

// The hook's tier as set_jit_fail_isa() left it; undef: RNDNN_JIT_FAIL's.
std::atomic<cpu_isa> jit_fail_override {cpu_isa::none};
std::atomic<bool> jit_fail_overridden {false};

} // namespace

cpu_isa jit_fail_isa() {
    if (jit_fail_overridden.load()) return jit_fail_override.load();
    static const std::string env = env_text("RNDNN_JIT_FAIL");
    if (env.empty() || env == "0") return cpu_isa::all;
    if (env == "1") return cpu_isa::sse41;
    return env_tier("RNDNN_JIT_FAIL", env, "tier to fail", "0, 1, ");
}

void set_jit_fail_isa(cpu_isa isa) {
    jit_fail_override.store(isa);
    jit_fail_overridden.store(true);
}

} // namespace impl

cpu_isa get_max_cpu_isa() {
    // The variable is read once; a bad value is reported at every call, so
    // every primitive creation names it.
    static const std::string env = impl::env_text("RNDNN_MAX_CPU_ISA");
    impl::hidden_cpu_isa(); // throws naming a bad RNDNN_HIDE_CPU_ISA
    const cpu_isa detected = impl::cpu_isa_detected();
    if (env.empty()) return detected;
    cpu_isa cap;
    try {
        cap = str2isa(env);
    } catch (const error &) {
        impl::fail(status::invalid_arguments,
                impl::cat("RNDNN_MAX_CPU_ISA='", escape(env),
                        "' names no ISA (expected none, sse41, avx2, "
                        "avx512 or all)"));
    }
    return cap < detected ? cap : detected;
}

} // namespace rndnn
