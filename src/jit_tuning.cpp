// The JIT kernels' tuning values per CPU, and the choice of this CPU's.
#include "src/jit_tuning.hpp"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>

#if RNDNN_ENABLE_JIT
#include <xbyak/xbyak_util.h>
#endif

#include "src/utils.hpp"

namespace rndnn {
namespace impl {

const cpu_id_t &cpu_id() {
    static const cpu_id_t id = [] {
        cpu_id_t c;
#if RNDNN_ENABLE_JIT
        using cpu_t = Xbyak::util::Cpu;
        const cpu_t cpu;
        c.vendor = cpu.has(cpu_t::tINTEL) ? cpu_id_t::intel
                : cpu.has(cpu_t::tAMD)    ? cpu_id_t::amd
                                          : cpu_id_t::other;
        c.family = cpu.displayFamily;
        c.model = cpu.displayModel;
        c.avx512f = cpu.has(cpu_t::tAVX512F);
#endif
        return c;
    }();
    return id;
}

namespace {

constexpr double mib16 = 16.0 * 1024 * 1024;

// Issue 30's choices, each timed on Zen 5 (family 26, model 2) alone.
constexpr jit_tuning_t zen5_values {"zen5", /*step_prefetch_units=*/1,
        /*unit_prefetch_bytes=*/0, /*step_loop=*/true,
        /*scaled_select=*/true, /*lazy_row_steps=*/4,
        /*lazy_unit_groups=*/128, /*lazy_min_bits=*/8,
        /*nt_min_bytes=*/mib16, /*stream_in_place=*/false};

// The values from before issue 30 (aee9367), which every other CPU keeps
// until it is measured: Zen 4 measured them better than Zen 5's (issue
// 44), Zen 3 and most Intel CPUs were not measured with both.
constexpr jit_tuning_t earlier_values {"default", /*step_prefetch_units=*/0,
        /*unit_prefetch_bytes=*/0, /*step_loop=*/false,
        /*scaled_select=*/false, /*lazy_row_steps=*/2,
        /*lazy_unit_groups=*/64, /*lazy_min_bits=*/8,
        /*nt_min_bytes=*/mib16, /*stream_in_place=*/true};

jit_tuning_t named(jit_tuning_t v, const char *name) {
    v.name = name;
    return v;
}

// Intel family 6, model 167: Zen 5's values but lazy units of 64 groups
// (the fused rows 2-3% faster), and threshold32's units prefetched 2 KiB
// ahead (2^25 f32 threshold32 dropout 30.6 -> 23.0 ms); issue 44.
jit_tuning_t intel_6_167_values() {
    jit_tuning_t v = named(zen5_values, "intel-6-167");
    v.unit_prefetch_bytes = 2048;
    v.lazy_unit_groups = 64;
    return v;
}

std::mutex override_mutex;
std::atomic<bool> overridden {false};
std::atomic<uint64_t> epoch {0};
jit_tuning_t override_values = earlier_values;

bool matches(const jit_tuning_entry_t &e, const cpu_id_t &c) {
    return (e.vendor == cpu_id_t::other || e.vendor == c.vendor)
            && (e.family < 0 || e.family == c.family)
            && (e.model_lo < 0
                    || (c.model >= e.model_lo && c.model <= e.model_hi))
            && (e.avx512f < 0 || e.avx512f == (c.avx512f ? 1 : 0));
}

} // namespace

const std::vector<jit_tuning_entry_t> &jit_tunings() {
    static const std::vector<jit_tuning_entry_t> entries = {
            // AMD Zen 5 (family 26, 1Ah): issue 30's values.
            {zen5_values, cpu_id_t::amd, 26, -1, -1, -1},
            // AMD Zen 4 (family 25 with AVX-512; EPYC 9004 is model 17).
            {named(earlier_values, "zen4"), cpu_id_t::amd, 25, -1, -1, 1},
            // AMD Zen 3 (family 25 without AVX-512; EPYC 7003 is model 1).
            {named(earlier_values, "zen3"), cpu_id_t::amd, 25, -1, -1, 0},
            // Intel family 6, model 167 (AVX-512 at full width): measured
            // for issue 44, faster with Zen 5's values and unit prefetches
            // (docs/jit.md).
            {intel_6_167_values(), cpu_id_t::intel, 6, 167, 167, -1},
            // Any other Intel CPU: not measured with both.
            {named(earlier_values, "intel"), cpu_id_t::intel, -1, -1, -1, -1},
            // Any other CPU.
            {earlier_values, cpu_id_t::other, -1, -1, -1, -1},
    };
    return entries;
}

const jit_tuning_t *find_jit_tuning(const std::string &name) {
    for (const jit_tuning_entry_t &e : jit_tunings())
        if (name == e.values.name) return &e.values;
    return nullptr;
}

const jit_tuning_t &jit_tuning_for(const cpu_id_t &c) {
    for (const jit_tuning_entry_t &e : jit_tunings())
        if (matches(e, c)) return e.values;
    return jit_tunings().back().values;
}

const jit_tuning_t &detected_jit_tuning() {
    static const jit_tuning_t &chosen = jit_tuning_for(cpu_id());
    return chosen;
}

bool parse_jit_tuning(
        const std::string &text, jit_tuning_t &t, std::string &why) {
    size_t at = text.find(',');
    const std::string name = text.substr(0, at);
    if (name.empty()) {
        t = detected_jit_tuning();
    } else if (const jit_tuning_t *found = find_jit_tuning(name)) {
        t = *found;
    } else {
        std::string names;
        for (const jit_tuning_entry_t &e : jit_tunings())
            names += cat(names.empty() ? "" : ", ", e.values.name);
        why = cat("'", name, "' names no tuning (expected ", names, ")");
        return false;
    }
    while (at != std::string::npos) {
        const size_t next = text.find(',', at + 1);
        const std::string item = text.substr(at + 1, next - at - 1);
        at = next;
        const size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        char *end = nullptr;
        const std::string value
                = eq == std::string::npos ? "" : item.substr(eq + 1);
        const double v = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0') {
            why = cat("'", item, "' is not FIELD=NUMBER");
            return false;
        }
        const int i = static_cast<int>(v);
        if (key == "step_prefetch_units" && i >= 0 && i <= 8 && i == v)
            t.step_prefetch_units = i;
        else if (key == "unit_prefetch_bytes" && i >= 0 && i <= (1 << 20)
                && i == v)
            t.unit_prefetch_bytes = i;
        else if (key == "step_loop" && (v == 0 || v == 1))
            t.step_loop = v != 0;
        else if (key == "scaled_select" && (v == 0 || v == 1))
            t.scaled_select = v != 0;
        else if (key == "lazy_row_steps" && (v == 2 || v == 4))
            t.lazy_row_steps = i;
        else if (key == "lazy_unit_groups" && (v == 64 || v == 128))
            t.lazy_unit_groups = i;
        else if (key == "lazy_min_bits" && i >= 1 && i <= 33 && i == v)
            t.lazy_min_bits = i;
        else if (key == "nt_min_bytes" && v >= 0)
            t.nt_min_bytes = v;
        else if (key == "stream_in_place" && (v == 0 || v == 1))
            t.stream_in_place = v != 0;
        else {
            why = cat("'", item, "' sets no field to a value it may take");
            return false;
        }
    }
    return true;
}

const jit_tuning_t &jit_tuning() {
    if (overridden.load()) {
        std::lock_guard<std::mutex> lock(override_mutex);
        return override_values;
    }
    static const char *env = std::getenv("RNDNN_JIT_TUNING");
    static const std::string text = env ? env : "";
    static std::string why;
    static const std::unique_ptr<jit_tuning_t> from_env = [] {
        if (text.empty()) return std::unique_ptr<jit_tuning_t>();
        auto t = std::make_unique<jit_tuning_t>(detected_jit_tuning());
        if (!parse_jit_tuning(text, *t, why)) t.reset();
        return t;
    }();
    if (text.empty()) return detected_jit_tuning();
    if (!from_env)
        fail(status::invalid_arguments,
                cat("RNDNN_JIT_TUNING='", escape(text), "': ", why));
    return *from_env;
}

void set_jit_tuning(const jit_tuning_t &t) {
    std::lock_guard<std::mutex> lock(override_mutex);
    override_values = t;
    overridden.store(true);
    epoch.fetch_add(1);
}

void clear_jit_tuning() {
    overridden.store(false);
    epoch.fetch_add(1);
}

uint64_t jit_tuning_epoch() { return epoch.load(); }

} // namespace impl
} // namespace rndnn
