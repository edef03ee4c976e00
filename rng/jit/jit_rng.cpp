// The JIT RNG implementation: generates one kernel per primitive from an
// engine emitter and a distribution emitter, and drives it: threads, whole
// units straight into dense dst, partial units and other layouts through a
// scratch buffer and the layout's stores.
#include <algorithm>
#include <cstring>

#include "rng/jit/jit_rng_generator.hpp"
#include "src/jit_tuning.hpp"

namespace rndnn {
namespace impl {

// --- the generator ----------------------------------------------------------

jit_rng_generator_t::jit_rng_generator_t(cpu_isa isa, const rng_conf_t &conf)
    : jit_generator_t(isa), conf_(conf) {
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
    , unit_bytes_(gen.dist().unit_bytes())
    , work_(rng_work(conf_))
    , dst_dense_(conf_.dst.is_dense()) {}

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
    if (!dst_dense_) return false;
    if (dst_bits_ != 1) return true;
    return (conf_.dst.get_offset0() - run.offset) % 8 == 0;
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
        if (gen_.conf().nelems == 0) return;
        const auto e = consts_.get(run.seed, run.stream, run.p, 0.f,
                [&](jit_rng_consts_t &c) { drv_.fill_consts(run, c); });
        drv_.parallel_units(run, [&](uint64_t u0, uint64_t u1) {
            run_range(run, e->c, u0, u1);
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
                >= jit_tuning().nt_min_bytes;
    }

    jit_rng_generator_t gen_;
    jit_rng_driver_t drv_;
    jit_consts_cache_t<jit_rng_consts_t> consts_;
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

// A p tensor's decisions at avx2 and avx512 (p_decider_t): 16 elements an
// iteration, W < p * 2^32 compared exactly in double (W and p * 2^32 are
// exact doubles; p is never NaN). avx512 converts W with vcvtudq2pd and
// moves a zero-masked 1 per set bit of the two compares; avx2 makes W
// 2^52 + W (its bits 0x43300000'00000000 | W) less 2^52 and spreads the
// compares' sign bits (vmovmskpd) over 16 bytes as jit_mask_expand_t does.
class jit_p_decide_t : public jit_generator_t {
public:
    static constexpr dim_t block = 16;

    explicit jit_p_decide_t(cpu_isa isa) : jit_generator_t(isa) {
        generate();
        fn_ = finalize<fn_t>();
    }

    dim_t operator()(const uint32_t *words, const float *p, dim_t n,
            uint8_t *flags) const {
        const dim_t blocks = n / block;
        if (blocks > 0) fn_(words, p, blocks, flags);
        return blocks * block;
    }

private:
    using fn_t = void (*)(const uint32_t *words, const float *p, dim_t blocks,
            uint8_t *flags);

    // Vector constants from rax: a qword broadcast to vlen() bytes.
    void broadcast_q(const Xmm &v, uint64_t q) {
        mov(rax, q);
        vmovq(Xmm(v.getIdx()), rax);
        if (v.isYMM() || v.isZMM()) vpbroadcastq(v, Xmm(v.getIdx()));
    }

    void generate() {
        using Xbyak::Label;
        using Xbyak::Reg64;
        using Xbyak::Ymm;
        using Xbyak::Zmm;
        constexpr uint8_t lt = 1; // vcmppd's LT_OS (p is never NaN)
        const Reg64 words = rdi, p = rsi, blocks = rdx, flags = rcx;
        constexpr uint64_t two32 = 0x41f0000000000000ull; // 2^32
        constexpr uint64_t two52 = 0x4330000000000000ull; // 2^52
        Label iter;
        if (is_avx512()) {
            const Zmm scale(15);
            broadcast_q(scale, two32);
            mov(eax, 0x01010101u);
            vpbroadcastd(Xmm(14), eax);
            L(iter);
            for (int h = 0; h < 2; ++h) {
                vcvtudq2pd(Zmm(h), yword[words + 32 * h]);
                vcvtps2pd(Zmm(2 + h), yword[p + 32 * h]);
                vmulpd(Zmm(2 + h), Zmm(2 + h), scale);
            }
            vcmppd(k1, Zmm(0), Zmm(2), lt);
            vcmppd(k2, Zmm(1), Zmm(3), lt);
            kunpckbw(k1, k2, k1);
            vmovdqu8(Xmm(4) | k1 | T_z, Xmm(14));
            vmovdqu(xword[flags], Xmm(4));
        } else {
            const Ymm bias(15), scale(14);
            const Xmm shuf(13), bits(12);
            broadcast_q(bias, two52);
            broadcast_q(scale, two32);
            // Byte i of 16 takes byte i / 8 of the 16 bits and tests its
            // bit i % 8.
            mov(rax, 0x0101010101010101ull);
            vmovq(shuf, rax);
            vpslldq(shuf, shuf, 8);
            mov(rax, 0x8040201008040201ull);
            vmovq(bits, rax);
            vpunpcklqdq(bits, bits, bits);
            L(iter);
            xor_(r8d, r8d);
            for (int q = 0; q < 4; ++q) {
                vpmovzxdq(Ymm(q), xword[words + 16 * q]);
                vpor(Ymm(q), Ymm(q), bias);
                vsubpd(Ymm(q), Ymm(q), bias);
                vcvtps2pd(Ymm(4 + q), xword[p + 16 * q]);
                vmulpd(Ymm(4 + q), Ymm(4 + q), scale);
                vcmppd(Ymm(q), Ymm(q), Ymm(4 + q), lt);
                vmovmskpd(eax, Ymm(q));
                if (q > 0) shl(eax, 4 * q);
                or_(r8d, eax);
            }
            vmovd(Xmm(0), r8d);
            vpshufb(Xmm(0), Xmm(0), shuf);
            vpand(Xmm(0), Xmm(0), bits);
            vpcmpeqb(Xmm(0), Xmm(0), bits);
            vpabsb(Xmm(0), Xmm(0));
            vmovdqu(xword[flags], Xmm(0));
        }
        add(words, 4 * block);
        add(p, 4 * block);
        add(flags, block);
        dec(blocks);
        jnz(iter, T_NEAR);
        vzeroupper();
        ret();
    }

    fn_t fn_ = nullptr;
};

// Bernoulli with a p tensor at tier isa: the reference kernel (its p
// gather and stores) on the words of the tier's bits kernel, its decisions
// from jit_p_decide_t at avx2 and avx512 (sse41: the reference's).
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
    p_decider_t decide;
    if (isa != cpu_isa::sse41) {
        std::shared_ptr<const jit_p_decide_t> d
                = make_jit_kernel<jit_p_decide_t, jit_p_decide_t>(isa);
        decide = [d](const uint32_t *words, const float *p, dim_t n,
                         uint8_t *flags) { return (*d)(words, p, n, flags); };
    }
    return create_ref_rng_with_words(conf,
            [kernel](uint64_t seed, uint64_t stream) {
                return std::make_unique<jit_word_source_t>(
                        kernel, seed, stream);
            },
            std::move(decide));
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
