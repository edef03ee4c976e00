// The JIT apply kernels: generated code for whole groups of 32 elements
// (one mask word each, jit_apply_emitter.hpp). The last n % 32 elements
// are a masked group at avx512; below it the reference kernel does them,
// which gives the same bits.
#include "pipeline/apply.hpp"
#include "pipeline/jit/jit_apply_emitter.hpp"
#include "src/jit_tuning.hpp"

namespace rndnn {
namespace impl {

namespace {

// The generated function's arguments.
struct jit_apply_call_t {
    const void *src;
    const uint8_t *mask;
    void *dst;
    uint64_t groups; // whole groups; >= 1 below avx512
    const float *linear;
    // avx512: the last partial group's mask bits and its valid elements
    // (bits 0 to n % 32 - 1; 0: no partial group).
    uint32_t tail_word, tail_valid;
};

jit_apply_ops_t ops_of(const apply_conf_t &conf) {
    jit_apply_ops_t ops;
    ops.alg = conf.alg;
    ops.dt = conf.dt;
    ops.n_linear = conf.n_linear;
    return ops;
}

class jit_apply_generator_t : public jit_generator_t {
public:
    using kernel_fn_t = void (*)(const jit_apply_call_t *);

    jit_apply_generator_t(cpu_isa isa, const apply_conf_t &conf)
        : jit_generator_t(isa)
        , apply_(*this, ops_of(conf))
        , stream_in_place_(jit_tuning().stream_in_place) {
        const auto *regular = getCurr();
        generate();
        const Xbyak::uint8 *streaming = nullptr;
        if (conf.stream_out && conf.dt == data_type::f32) {
            align(64);
            streaming = getCurr();
            set_nt_stores(true);
            generate();
            set_nt_stores(false);
        }
        apply_.emit_table();
        finalize<kernel_fn_t>();
        fn_ = reinterpret_cast<kernel_fn_t>(
                const_cast<Xbyak::uint8 *>(regular));
        if (streaming)
            fn_nt_ = reinterpret_cast<kernel_fn_t>(
                    const_cast<Xbyak::uint8 *>(streaming));
    }

    // The non-temporal function where it exists and dst is aligned; in
    // place, where the loads of src already brought dst's lines in, where
    // the tuning's stream_in_place says so.
    void operator()(const jit_apply_call_t &call, bool stream) const {
        const bool nt = stream && fn_nt_
                && (stream_in_place_ || call.dst != call.src)
                && reinterpret_cast<uintptr_t>(call.dst) % vlen() == 0;
        (nt ? fn_nt_ : fn_)(&call);
    }

private:
    void generate() {
        const Xbyak::Reg64 src = r8, mask = r9, dst = r10, groups = r11,
                           linear = rax;
        preamble(0);
        mov(src, ptr[abi_param1 + offsetof(jit_apply_call_t, src)]);
        mov(mask, ptr[abi_param1 + offsetof(jit_apply_call_t, mask)]);
        mov(dst, ptr[abi_param1 + offsetof(jit_apply_call_t, dst)]);
        mov(groups, ptr[abi_param1 + offsetof(jit_apply_call_t, groups)]);
        mov(linear, ptr[abi_param1 + offsetof(jit_apply_call_t, linear)]);
        apply_.emit_load_consts(linear);
        Xbyak::Label group, tail, done;
        if (is_avx512()) {
            test(groups, groups);
            jz(tail, T_NEAR);
        }
        L(group);
        apply_.emit_group(mask, src, dst, linear);
        add(src, apply_.group_bytes());
        add(dst, apply_.group_bytes());
        add(mask, 4);
        dec(groups);
        jnz(group, T_NEAR);
        if (is_avx512()) {
            L(tail);
            const Xbyak::Address valid
                    = dword[abi_param1 + offsetof(jit_apply_call_t, tail_valid)];
            cmp(valid, 0);
            je(done, T_NEAR);
            apply_.emit_tail_group(
                    abi_param1 + offsetof(jit_apply_call_t, tail_word),
                    valid, src, dst, linear);
            L(done);
        }
        postamble();
    }

    jit_apply_emitter_t apply_;
    bool stream_in_place_; // the tuning's, as generated
    kernel_fn_t fn_ = nullptr, fn_nt_ = nullptr;
};

class jit_apply_t : public apply_kernel_t {
public:
    jit_apply_t(cpu_isa isa, const apply_conf_t &conf)
        : gen_(isa, conf)
        , tail_(isa == cpu_isa::avx512 ? nullptr : create_ref_apply(conf))
        , esize_(static_cast<int64_t>(dt_bits(conf.dt) / 8))
        , masked_tail_(isa == cpu_isa::avx512) {}

    void operator()(const apply_call_t &c) const override {
        constexpr int ge = jit_apply_emitter_t::group_elems;
        const int64_t groups = c.n / ge;
        const int rem = static_cast<int>(c.n % ge);
        if (masked_tail_) {
            if (c.n == 0) return;
            // The tail's mask bits, read without reading past them.
            uint32_t word = 0;
            for (int b = 0; b < (rem + 7) / 8; ++b)
                word |= uint32_t(c.mask[groups * 4 + b]) << (8 * b);
            gen_({c.src, c.mask, c.dst, static_cast<uint64_t>(groups),
                         c.linear, word, rem ? (1u << rem) - 1u : 0u},
                    c.stream);
            return;
        }
        if (groups > 0)
            gen_({c.src, c.mask, c.dst, static_cast<uint64_t>(groups),
                         c.linear, 0, 0},
                    c.stream);
        const int64_t done = groups * ge;
        if (done == c.n) return;
        const int64_t skip = done * esize_;
        (*tail_)({static_cast<const unsigned char *>(c.src) + skip,
                c.mask + done / 8, static_cast<unsigned char *>(c.dst) + skip,
                c.n - done, c.linear});
    }

private:
    jit_apply_generator_t gen_;
    std::unique_ptr<apply_kernel_t> tail_; // below avx512
    int64_t esize_;
    bool masked_tail_;
};

} // namespace

bool init_jit_apply(cpu_isa isa, const apply_conf_t &conf, std::string &why) {
    return tier_usable(isa, conf.max_isa, why)
            && jit_apply_emitter_t::supported(isa, ops_of(conf), why);
}

std::unique_ptr<apply_kernel_t> create_jit_apply(
        cpu_isa isa, const apply_conf_t &conf) {
    return make_jit_kernel<apply_kernel_t, jit_apply_t>(isa, conf);
}

} // namespace impl
} // namespace rndnn
