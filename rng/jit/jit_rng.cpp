// The JIT RNG implementation: generates one kernel per primitive from an
// engine emitter and a distribution emitter, and drives it: threads, whole
// units straight into dense dst, partial units and other layouts through a
// scratch buffer and the layout's stores.
#include <algorithm>
#include <cstring>

#include "rng/jit/jit_rng_generator.hpp"

namespace rndnn {
namespace impl {

// --- the generator ----------------------------------------------------------

jit_rng_generator_t::jit_rng_generator_t(cpu_isa isa, const rng_conf_t &conf)
    : jit_generator_t(isa), conf_(conf) {
    frame_.args = abi_param1;
    frame_.consts = r15;
    frame_.dst = r14;
    frame_.units = r13;
    frame_.state = r12;
    frame_.batch_cnt = rbx;
    // init_jit_rng() accepted the problem, so both emitters exist; if one
    // does not, say which and why rather than crash at generate().
    std::string why;
    if (const jit_engine_factory_t make = jit_engine_factory(conf_.alg))
        engine_ = make(conf_, *this, frame_);
    if (!engine_)
        fail(status::runtime_error,
                cat(jit_impl_name(isa), ": no engine emitter for alg=",
                        alg2str(conf_.alg)));
    dist_ = make_jit_dist(*this, frame_, conf_, *engine_, why);
    if (!dist_)
        fail(status::runtime_error,
                cat(jit_impl_name(isa), ": no distribution emitter for ",
                        rng_info(conf_), ": ", why));
}

void jit_rng_generator_t::create(bool nt) {
    const auto *regular = getCurr();
    generate();
    const Xbyak::uint8 *streaming = nullptr;
    if (nt) {
        align(64);
        streaming = getCurr();
        set_nt_stores(true);
        generate();
        set_nt_stores(false);
    }
    emit_consumer_data();
    finalize<kernel_fn_t>();
    fn_ = reinterpret_cast<kernel_fn_t>(const_cast<Xbyak::uint8 *>(regular));
    if (streaming)
        fn_nt_ = reinterpret_cast<kernel_fn_t>(
                const_cast<Xbyak::uint8 *>(streaming));
}

void jit_rng_generator_t::generate() {
    const jit_rng_frame_t &f = frame_;
    preamble(jit_rng_frame_t::size);
    mov(f.consts, ptr[f.args + offsetof(jit_rng_call_t, consts)]);
    mov(f.dst, ptr[f.args + offsetof(jit_rng_call_t, dst)]);
    mov(f.units, ptr[f.args + offsetof(jit_rng_call_t, units)]);
    engine_->emit_init();
    dist_->emit_init();
    emit_consumer_init();
    dist_->set_step([this](int groups) { emit_consume_step(groups); });
    Xbyak::Label unit;
    L(unit);
    if (dist_->draws_words() || dist_->drives_engine()) {
        dist_->emit_unit();
    } else if (dist_->words_are_output()) {
        emit_words(f.dst, dist_->unit_words());
    } else {
        lea(rax, ptr[rsp + f.words_off]);
        emit_words(rax, dist_->unit_words());
        dist_->emit_unit();
    }
    emit_consume_unit();
    dec(f.units);
    jnz(unit, T_NEAR);
    emit_consumer_fini();
    postamble();
}

void jit_rng_generator_t::emit_words(const Xbyak::Reg64 &out, int n) {
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

// --- the driver -------------------------------------------------------------

jit_rng_driver_t::jit_rng_driver_t(const jit_rng_generator_t &gen)
    : gen_(gen)
    , conf_(gen.conf())
    , layout_(conf_.dst)
    , dst_bits_(static_cast<int>(dt_bits(conf_.dst.get_data_type())))
    , unit_elems_(gen.dist().unit_elems())
    , unit_words_(gen.dist().unit_words())
    , unit_bytes_(gen.dist().unit_bytes()) {}

void jit_rng_driver_t::fill_consts(
        const rng_run_t &run, jit_rng_consts_t &c) const {
    gen_.engine().fill_consts(run.seed, run.stream, c);
    gen_.dist().fill_consts(run.p, c);
}

void jit_rng_driver_t::begin_range(const rng_run_t &run, uint64_t u0,
        void *state, jit_rng_call_t &call) const {
    gen_.engine().init_state(run.seed, u0 * unit_words_, state);
    call.state = state;
}

bool jit_rng_driver_t::direct_ok(const rng_run_t &run) const {
    const memory::desc &md = conf_.dst;
    if (!md.is_dense()) return false;
    if (dst_bits_ != 1) return true;
    return (md.get_offset0() - run.offset) % 8 == 0;
}

void *jit_rng_driver_t::dst_at(const rng_run_t &run, uint64_t g) const {
    const dim_t pos
            = conf_.dst.get_offset0() + static_cast<dim_t>(g - run.offset);
    return static_cast<unsigned char *>(run.dst) + pos * dst_bits_ / 8;
}

void jit_rng_driver_t::store(const rng_run_t &run, uint64_t gs, uint64_t ge,
        const unsigned char *scratch, uint64_t scratch_g,
        uint8_t *flags) const {
    const auto i0 = static_cast<dim_t>(gs - run.offset);
    const auto cnt = static_cast<dim_t>(ge - gs);
    const auto skip = static_cast<dim_t>(gs - scratch_g);
    if (dst_bits_ != 1) {
        layout_.store(run.dst, i0, cnt, scratch + skip * dst_bits_ / 8);
        return;
    }
    for (dim_t k = 0; k < cnt; ++k) {
        const dim_t b = skip + k;
        flags[k] = (scratch[b / 8] >> (b % 8)) & 1u;
    }
    layout_.store_bits(run.dst, i0, cnt, flags);
}

// --- the RNG primitive's kernel ---------------------------------------------

namespace {

class jit_rng_t : public rng_kernel_t {
public:
    jit_rng_t(cpu_isa isa, const rng_conf_t &conf)
        : gen_(isa, conf), drv_(gen_) {
        gen_.create(streams_output(conf));
    }

    void execute(const rng_run_t &run) const override {
        jit_rng_consts_t consts {};
        drv_.fill_consts(run, consts);
        drv_.parallel_units(run, [&](uint64_t u0, uint64_t u1) {
            run_range(run, consts, u0, u1);
        });
    }

private:
    // Units [u0, u1) of the global index space, clipped to the tensor.
    void run_range(const rng_run_t &run, const jit_rng_consts_t &consts,
            uint64_t u0, uint64_t u1) const {
        const uint64_t ue = static_cast<uint64_t>(drv_.unit_elems());
        const uint64_t g0 = run.offset, g1 = g0 + gen_.conf().nelems;
        alignas(64) uint64_t state[jit_max_state_bytes / 8];
        alignas(64) unsigned char scratch[jit_rng_scratch_elems * 4];
        alignas(64) uint8_t flags[jit_rng_scratch_elems];

        jit_rng_call_t call;
        call.consts = &consts;
        drv_.begin_range(run, u0, state, call);
        const bool direct = drv_.direct_ok(run);
        for (uint64_t u = u0; u < u1;) {
            const uint64_t gs = std::max(g0, u * ue);
            drv_.at_unit(u, call);
            if (direct && gs == u * ue && std::min(g1, u1 * ue) - gs >= ue) {
                // Whole units straight into dst.
                const uint64_t k = (std::min(g1, u1 * ue) - gs) / ue;
                call.dst = drv_.dst_at(run, gs);
                call.units = k;
                gen_(call, drv_.nt_ok(call.dst));
                u += k;
                continue;
            }
            const uint64_t k = std::min<uint64_t>(drv_.scratch_units(), u1 - u);
            const uint64_t ge = std::min(g1, (u + k) * ue);
            call.dst = scratch;
            call.units = k;
            gen_(call);
            drv_.store(run, gs, ge, scratch, u * ue, flags);
            u += k;
        }
    }

    // Large outputs of the distributions that store through
    // uni_store_out (uniform and normal f32 values, Bernoulli to u8, s32
    // and f32) get a non-temporal function.
    static bool streams_output(const rng_conf_t &conf) {
        const data_type t = conf.dst.get_data_type();
        const bool streamed = conf.dist == dist_t::bernoulli
                ? t != data_type::bit
                : conf.dist != dist_t::bits && t == data_type::f32;
        return streamed && conf.dst.is_dense()
                && static_cast<double>(conf.nelems)
                        * static_cast<double>(dt_bits(t)) / 8
                >= nt_min_bytes;
    }

    jit_rng_generator_t gen_;
    jit_rng_driver_t drv_;
};

// The words of an engine from tier isa's JIT kernel of raw words (a
// bits problem of jit_rng_scratch_elems u32s): a word source for the
// reference kernel, bit for bit the scalar words.
class jit_word_source_t : public word_source_t {
public:
    jit_word_source_t(std::shared_ptr<const rng_kernel_t> bits, uint64_t seed,
            uint64_t stream)
        : bits_(std::move(bits)), seed_(seed), stream_(stream) {}

    void fill(uint64_t first, size_t n, uint32_t *out) override {
        constexpr size_t chunk = jit_rng_scratch_elems;
        rng_run_t run;
        run.seed = seed_;
        run.stream = stream_;
        for (size_t k = 0; k < n; k += chunk) {
            const size_t m = std::min(chunk, n - k);
            run.offset = static_cast<dim_t>(first + k);
            run.dst = m == chunk ? out + k : buf_;
            bits_->execute(run);
            if (m < chunk) std::memcpy(out + k, buf_, m * 4);
        }
    }

private:
    std::shared_ptr<const rng_kernel_t> bits_;
    uint64_t seed_, stream_;
    alignas(64) uint32_t buf_[jit_rng_scratch_elems];
};

// Bernoulli with a p tensor at tier isa: the reference kernel (its p
// gather and exact compare) on the words of the tier's bits kernel.
std::unique_ptr<rng_kernel_t> create_jit_p_tensor(
        cpu_isa isa, const rng_conf_t &conf) {
    rng_conf_t bits;
    bits.alg = conf.alg;
    bits.dist = dist_t::bits;
    bits.name = conf.name;
    bits.max_isa = conf.max_isa;
    bits.dst = memory::desc({jit_rng_scratch_elems}, data_type::u32);
    bits.nelems = jit_rng_scratch_elems;
    std::shared_ptr<const rng_kernel_t> kernel
            = make_jit_kernel<rng_kernel_t, jit_rng_t>(isa, bits);
    return create_ref_rng_with_words(conf,
            [kernel](uint64_t seed, uint64_t stream) {
                return std::make_unique<jit_word_source_t>(
                        kernel, seed, stream);
            });
}

} // namespace

bool init_jit_rng(cpu_isa isa, const rng_conf_t &conf, std::string &why) {
    if (!tier_usable(isa, conf.max_isa, why)) return false;
    if (!jit_engine_factory(conf.alg)) {
        why = cat("alg=", alg2str(conf.alg), " has no JIT kernel");
        return false;
    }
    return jit_dist_supported(conf, isa, why);
}

std::unique_ptr<rng_kernel_t> create_jit_rng(
        cpu_isa isa, const rng_conf_t &conf) {
    if (conf.p_tensor) return create_jit_p_tensor(isa, conf);
    return make_jit_kernel<rng_kernel_t, jit_rng_t>(isa, conf);
}

} // namespace impl
} // namespace rndnn
