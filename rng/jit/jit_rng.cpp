// The JIT RNG implementation: generates one kernel per primitive from an
// engine emitter and a distribution emitter, and drives it: threads, whole
// units straight into dense dst, partial units and other layouts through a
// scratch buffer and the layout's stores.
#include <algorithm>

#include "rng/jit/jit_rng_dist.hpp"
#include "rng/jit/jit_rng_engine.hpp"
#include "rng/rng_impl.hpp"
#include "src/cpu_isa.hpp"
#include "src/layout.hpp"
#include "src/parallel.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

namespace {

bool jit_alg_supported(rng_alg alg) {
    return alg == rng_alg::philox4x32_10
            || alg == rng_alg::philox4x32_10_onednn
            || alg == rng_alg::threefry4x32_20 || alg == rng_alg::mcg31m1;
}

class jit_rng_generator_t : public jit_generator_t {
public:
    using kernel_fn_t = void (*)(const jit_rng_call_t *);

    jit_rng_generator_t(cpu_isa isa, const rng_conf_t &conf)
        : jit_generator_t(isa) {
        frame_.args = abi_param1;
        frame_.consts = r15;
        frame_.dst = r14;
        frame_.units = r13;
        frame_.state = r12;
        frame_.batch_cnt = rbx;
        std::string why;
        engine_ = make_jit_engine(conf.alg, *this, frame_);
        dist_ = make_jit_dist(*this, frame_, conf, why);
        generate();
        fn_ = finalize<kernel_fn_t>();
    }

    const jit_engine_t &engine() const { return *engine_; }
    const jit_dist_t &dist() const { return *dist_; }
    void operator()(const jit_rng_call_t &call) const { fn_(&call); }

private:
    void generate() {
        const jit_rng_frame_t &f = frame_;
        preamble(jit_rng_frame_t::size);
        mov(f.consts, ptr[f.args + offsetof(jit_rng_call_t, consts)]);
        mov(f.dst, ptr[f.args + offsetof(jit_rng_call_t, dst)]);
        mov(f.units, ptr[f.args + offsetof(jit_rng_call_t, units)]);
        engine_->emit_init();
        Xbyak::Label unit;
        L(unit);
        if (dist_->words_are_output()) {
            emit_words(f.dst, dist_->unit_words());
        } else {
            lea(rax, ptr[rsp + f.words_off]);
            emit_words(rax, dist_->unit_words());
            dist_->emit_unit();
        }
        dec(f.units);
        jnz(unit, T_NEAR);
        postamble();
    }

    // n words from the engine to [out], advancing out.
    void emit_words(const Xbyak::Reg64 &out, int n) {
        const int batches = n / engine_->batch_words();
        const int bytes = engine_->batch_words() * 4;
        if (batches <= max_inline_batches) {
            // Straight-line code lets the core overlap batches.
            for (int b = 0; b < batches; ++b) {
                engine_->emit_batch(out);
                add(out, bytes);
            }
            return;
        }
        mov(frame_.batch_cnt, batches);
        Xbyak::Label batch;
        L(batch);
        engine_->emit_batch(out);
        add(out, bytes);
        dec(frame_.batch_cnt);
        jnz(batch, T_NEAR);
    }

    static constexpr int max_inline_batches = 4;
    jit_rng_frame_t frame_;
    std::unique_ptr<jit_engine_t> engine_;
    std::unique_ptr<jit_dist_t> dist_;
    kernel_fn_t fn_ = nullptr;
};

// Elements per scratch pass: partial units and non-dense layouts.
constexpr int scratch_elems = 4096;
// Fewer elements than this per thread are not worth a thread.
constexpr dim_t min_elems_per_thread = 16384;

class jit_rng_t : public rng_kernel_t {
public:
    jit_rng_t(cpu_isa isa, const rng_conf_t &conf)
        : conf_(conf)
        , layout_(conf.dst)
        , gen_(isa, conf)
        , dst_bits_(static_cast<int>(dt_bits(conf.dst.get_data_type())))
        , unit_elems_(gen_.dist().unit_elems())
        , unit_words_(gen_.dist().unit_words()) {}

    void execute(const rng_run_t &run) const override {
        const dim_t n = conf_.nelems;
        if (n == 0) return;
        // Fields a kernel does not read stay zero.
        jit_rng_consts_t consts {};
        gen_.engine().fill_consts(run.seed, run.stream, consts);
        gen_.dist().fill_consts(run.p, consts);

        const uint64_t ue = static_cast<uint64_t>(unit_elems_);
        const uint64_t g0 = run.offset, g1 = g0 + n; // <= 2^63 - 1
        const uint64_t unit0 = g0 / ue;
        const auto units = static_cast<dim_t>((g1 - 1) / ue + 1 - unit0);
        const int nthr = static_cast<int>(std::min<dim_t>({run.nthr, units,
                (n + min_elems_per_thread - 1) / min_elems_per_thread}));
        parallel(std::max(nthr, 1), [&](int ithr, int nthr_) {
            dim_t us, ue_;
            balance211(units, nthr_, ithr, us, ue_);
            if (us == ue_) return;
            run_range(run, consts, unit0 + us, unit0 + ue_);
        });
    }

private:
    // Units [u0, u1) of the global index space, clipped to the tensor.
    void run_range(const rng_run_t &run, const jit_rng_consts_t &consts,
            uint64_t u0, uint64_t u1) const {
        const uint64_t ue = static_cast<uint64_t>(unit_elems_);
        const uint64_t g0 = run.offset, g1 = g0 + conf_.nelems;
        alignas(64) uint64_t state[jit_max_state_bytes / 8];
        alignas(64) unsigned char scratch[scratch_elems * 4];
        alignas(64) uint8_t flags[scratch_elems];
        const int scratch_units = std::max(1, scratch_elems / unit_elems_);

        jit_rng_call_t call;
        call.consts = &consts;
        call.state = state;
        gen_.engine().init_state(run.seed, u0 * unit_words_, state);
        const bool direct = direct_ok(run);
        for (uint64_t u = u0; u < u1;) {
            const uint64_t gs = std::max(g0, u * ue);
            call.first = gen_.engine().first_of(u * unit_words_);
            if (direct && gs == u * ue && std::min(g1, u1 * ue) - gs >= ue) {
                // Whole units straight into dst.
                const uint64_t k = (std::min(g1, u1 * ue) - gs) / ue;
                call.dst = dst_at(run, gs);
                call.units = k;
                gen_(call);
                u += k;
                continue;
            }
            const uint64_t k = std::min<uint64_t>(scratch_units, u1 - u);
            const uint64_t ge = std::min(g1, (u + k) * ue);
            call.dst = scratch;
            call.units = k;
            gen_(call);
            store(run, gs, ge, scratch + (gs - u * ue) * dst_bits_ / 8,
                    static_cast<int>((gs - u * ue) % 8), flags);
            u += k;
        }
    }

    // Whether whole units can be written in place: dense dst, and for bit
    // dst, units starting on byte boundaries.
    bool direct_ok(const rng_run_t &run) const {
        const memory::desc &md = conf_.dst;
        if (!md.is_dense()) return false;
        if (dst_bits_ != 1) return true;
        return (md.get_offset0() - run.offset) % 8 == 0;
    }

    void *dst_at(const rng_run_t &run, uint64_t g) const {
        const dim_t pos = conf_.dst.get_offset0()
                + static_cast<dim_t>(g - run.offset);
        return static_cast<unsigned char *>(run.dst) + pos * dst_bits_ / 8;
    }

    // Stores elements [gs, ge) from src (bit dst: starting at bit `bit0`).
    void store(const rng_run_t &run, uint64_t gs, uint64_t ge,
            const unsigned char *src, int bit0, uint8_t *flags) const {
        const auto i0 = static_cast<dim_t>(gs - run.offset);
        const auto cnt = static_cast<dim_t>(ge - gs);
        if (dst_bits_ != 1) {
            layout_.store(run.dst, i0, cnt, src);
            return;
        }
        for (dim_t k = 0; k < cnt; ++k) {
            const dim_t b = bit0 + k;
            flags[k] = (src[b / 8] >> (b % 8)) & 1u;
        }
        layout_.store_bits(run.dst, i0, cnt, flags);
    }

    rng_conf_t conf_;
    layout_t layout_;
    jit_rng_generator_t gen_;
    int dst_bits_;
    int unit_elems_, unit_words_;
};

} // namespace

bool init_jit_rng(cpu_isa isa, const rng_conf_t &conf, std::string &why) {
    if (cpu_isa_detected() < isa) {
        why = cat("the CPU lacks ", isa2str(isa));
        return false;
    }
    if (!isa_allowed(isa, conf.max_isa)) {
        why = cat("ISA capped at ",
                isa2str(std::min(conf.max_isa, get_max_cpu_isa())));
        return false;
    }
    if (!jit_alg_supported(conf.alg)) {
        why = cat("alg=", alg2str(conf.alg), " has no JIT kernel");
        return false;
    }
    return jit_dist_supported(conf, isa, why);
}

std::unique_ptr<rng_kernel_t> create_jit_rng(
        cpu_isa isa, const rng_conf_t &conf) {
    return std::make_unique<jit_rng_t>(isa, conf);
}

} // namespace impl
} // namespace rndnn
