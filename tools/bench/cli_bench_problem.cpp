// The problems of `rndnn bench` (cli_bench_problem.hpp): each kind's parser
// and preparation (--prim rng, --prim dropout), the problem options and
// parse_problem.
#include "cli_bench_problem.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace rndnn_cli {

namespace {

using std::string;
using words_t = std::vector<string>;

// --- --prim rng ------------------------------------------------------------

void parse_rng(const po::variables_map &vm, problem_t &p) {
    p.rng = parse_rng_problem(vm);
    // bernoulli's p tensor, of dst's dims, its values made by prepare_rng.
    if (vm.count("p-tensor") && given(vm, "p"))
        throw usage_error("--p and --p-tensor exclude each other: the tensor "
                          "gives each element's p");
    if (vm.count("p-tensor"))
        p.rng.desc.p_tensor = rndnn::memory::desc(p.rng.desc.dst.get_dims(),
                rndnn::str2dt(vm["p-tensor"].as<string>()));
    p.strm = rndnn::stream(p.rng.so.threads);
    p.rng_pds = pds_t<rndnn::rng>(
            p.rng.desc, p.rng.desc, p.rng.attr, p.max_isa);
    p.impl = p.rng_pds.impl.impl_name();
}

prepared_t prepare_rng(const problem_t &p) {
    const rndnn::memory::desc &md = p.rng_pds.impl.dst_desc();
    const stream_options_t &so = p.rng.so;
    args_t args = {{RNDNN_ARG_DST, rndnn::memory(md)},
            {RNDNN_ARG_SEED, rndnn::memory::scalar(so.seed)},
            {RNDNN_ARG_OFFSET, rndnn::memory::scalar(so.offset)},
            {RNDNN_ARG_STREAM, rndnn::memory::scalar(so.stream_id)}};
    const rndnn::memory::desc &pd = p.rng.desc.p_tensor;
    if (!pd.is_zero()) {
        // p in [0, 1): element i's is a hash of i's top 24 bits over 2^24
        // (bf16: those of f32's top half), exact in both types.
        rndnn::memory pm(pd);
        const bool bf16 = pd.get_data_type() == rndnn::data_type::bf16;
        for (rndnn::dim_t i = 0; i < pd.nelems(); ++i) {
            const float v = static_cast<float>(
                    (static_cast<uint32_t>(i) * 2654435761u) >> 8)
                    * 0x1p-24f;
            uint32_t u;
            std::memcpy(&u, &v, 4);
            if (bf16)
                pm.data<uint16_t>()[i] = static_cast<uint16_t>(u >> 16);
            else
                pm.data<float>()[i] = v;
        }
        args.emplace(RNDNN_ARG_SRC, pm);
    }
    prepared_t t;
    t.elements = md.nelems();
    t.bytes = md.get_size();
    p.rng_pds.prepare(t, p.strm, args);
    return t;
}

// --- --prim dropout --------------------------------------------------------

// The problem of `rndnn dropout` (problem_dropout.hpp), its data of
// --shape and --dtype (f32 by default), a mask stored where --mask-dtype
// says (none by default), --rate 0.5 by default.
void parse_dropout(const po::variables_map &vm, problem_t &p) {
    using rndnn::prop_kind;
    if (!vm.count("shape")) throw usage_error("--shape is required");
    dropout_problem_t &dp = p.dropout;
    dp = parse_dropout_problem(vm, string("0.5"));
    const rndnn::dims shape = parse_shape("--shape", vm["shape"].as<string>());
    const rndnn::memory::desc data(shape,
            rndnn::str2dt(vm.count("dtype") ? vm["dtype"].as<string>()
                                            : string("f32")));
    dp.desc = dp.desc_for(data, dp.mask_dt);
    rndnn::dropout::desc &d = dp.desc;
    dp.inplace = vm.count("inplace") > 0;
    // Backward with a stored mask runs no RNG.
    if (!d.with_offset)
        for (const char *f : {"seed", "offset", "stream", "name"})
            if (given(vm, f))
                throw usage_error(string("--") + f
                        + " is not used by --backward with a stored mask"
                          " (--mask-dtype "
                        + rndnn::dt2str(dp.mask_dt) + ")");
    p.strm = rndnn::stream(dp.so.threads);

    // The reference plans freely: a fused plan needs a JIT kernel.
    rndnn::dropout::desc ref = d;
    ref.plan = rndnn::dropout_plan::any;
    p.dropout_pds = pds_t<rndnn::dropout>(d, ref, {}, p.max_isa);
    p.impl = p.dropout_pds.impl.impl_name();
    dp.check_offset(d);
}

// memset of a tensor's buffer, which is null when the tensor is empty.
void fill(const rndnn::memory &m, int byte) {
    const std::size_t size = m.get_desc().get_size();
    if (size) std::memset(m.get_data_handle(), byte, size);
}

prepared_t prepare_dropout(const problem_t &p) {
    const dropout_problem_t &dp = p.dropout;
    const rndnn::dropout::desc &d = dp.desc;
    const bool fwd = d.prop == rndnn::prop_kind::forward_training;
    // Data that never turns denormal: 0x3f bytes are 0.747 in f32, 0.746
    // in bf16 and 1.81 in f16, and in place a scale >= 1 only makes kept
    // values larger.
    const rndnn::memory src(d.src);
    fill(src, 0x3f);
    const rndnn::memory dst = dp.inplace ? src : rndnn::memory(d.dst);
    if (!dp.inplace) fill(dst, 0);
    args_t args = {{fwd ? RNDNN_ARG_SRC : RNDNN_ARG_DIFF_DST, src},
            {fwd ? RNDNN_ARG_DST : RNDNN_ARG_DIFF_SRC, dst}};
    const args_t rng_args
            = {{RNDNN_ARG_SEED, rndnn::memory::scalar(dp.so.seed)},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(dp.so.offset)},
                    {RNDNN_ARG_STREAM,
                            rndnn::memory::scalar(dp.so.stream_id)}};
    if (d.with_offset) args.insert(rng_args.begin(), rng_args.end());
    if (!d.mask.is_zero()) {
        const rndnn::memory mask(d.mask);
        fill(mask, 0);
        args.emplace(RNDNN_ARG_MASK, mask);
        if (!fwd) {
            // The stored mask backward reads: forward's, from the same
            // stream.
            rndnn::dropout::desc fd = d;
            fd.prop = rndnn::prop_kind::forward_training;
            fd.with_offset = true;
            args_t fwd_args = rng_args;
            fwd_args.emplace(RNDNN_ARG_SRC, src);
            fwd_args.emplace(RNDNN_ARG_DST, dst);
            fwd_args.emplace(RNDNN_ARG_MASK, mask);
            rndnn::dropout(rndnn::dropout::primitive_desc(fd))
                    .execute(p.strm, fwd_args);
        }
    }
    prepared_t t;
    t.elements = d.src.nelems();
    t.bytes = d.src.get_size();
    p.dropout_pds.prepare(t, p.strm, args);
    return t;
}

// --- --prim softmax_dropout --------------------------------------------------

enum : rndnn::tensor_id { sd_scores, sd_probs, sd_dropped };

// The graph softmax -> dropout of problem p over scores of desc md.
rndnn::compiled_graph compile_softmax_dropout(const problem_t &p,
        const rndnn::memory::desc &md, bool fuse) {
    const rndnn::dropout::desc &d = p.dropout.desc;
    rndnn::graph g;
    g.add_input(sd_scores, md);
    g.add_tensor(sd_probs, md);
    g.add_output(sd_dropped, md);
    rndnn::softmax_params sp;
    sp.causal = p.causal;
    g.add_softmax("softmax", sd_scores, sd_probs, -1, sp);
    rndnn::dropout_params dp;
    dp.rate = d.rate;
    dp.alg = d.alg;
    dp.method = d.method;
    dp.bits = d.bits;
    g.add_dropout("dropout", sd_probs, sd_dropped, dp);
    g.finalize();
    rndnn::compile_options o;
    o.threads = p.strm.get_nthreads();
    o.fuse_softmax_dropout = fuse;
    o.masks = p.dropout.mask_dt == rndnn::data_type::bit
            ? rndnn::mask_mode::bit
            : p.dropout.mask_dt == rndnn::data_type::u8
            ? rndnn::mask_mode::u8
            : rndnn::mask_mode::recompute;
    return g.compile(o);
}

// The graph softmax -> dropout over --shape (f32 by default), masks
// stored as --mask-dtype says (bit, u8; none: drawn again in backward).
// The implementation is the plan that fuses them; the baseline timed as the
// reference is the unfused pair (oneDNN's softmax, rndnn's dropout).
void parse_softmax_dropout(const po::variables_map &vm, problem_t &p) {
    if (!vm.count("shape")) throw usage_error("--shape is required");
    // The graph takes its cap from RNDNN_MAX_CPU_ISA alone.
    if (vm.count("isa"))
        throw usage_error("--isa is not used by --prim softmax_dropout: cap "
                          "both plans with RNDNN_MAX_CPU_ISA and "
                          "ONEDNN_MAX_CPU_ISA");
    dropout_problem_t &dp = p.dropout;
    dp = parse_dropout_problem(vm, string("0.1"));
    p.scores = rndnn::memory::desc(
            parse_shape("--shape", vm["shape"].as<string>()),
            rndnn::str2dt(vm.count("dtype") ? vm["dtype"].as<string>()
                                            : string("f32")));
    p.causal = vm.count("causal") > 0;
    p.strm = rndnn::stream(dp.so.threads);
    // The fused step's implementation, "softmax_dropout:jit:avx2+jit:avx2"
    // (past "rndnn:"), from a stand-in of dims at most 2: the same checks
    // and kernels, and nothing allocated for the problem's size.
    rndnn::dims small = p.scores.get_dims();
    for (rndnn::dim_t &x : small)
        x = std::min<rndnn::dim_t>(x, 2);
    const std::string impl = compile_softmax_dropout(p,
            rndnn::memory::desc(small, p.scores.get_data_type()), true)
                                     .get_step_times()
                                     .front()
                                     .impl;
    p.impl = impl.substr(impl.find(':') + 1);
}

prepared_t prepare_softmax_dropout(const problem_t &p) {
    const bool bwd = p.dropout.desc.prop == rndnn::prop_kind::backward;
    // Scores of 0x3f bytes would be one value: draw normal ones.
    const rndnn::memory scores(p.scores), dropped(p.scores),
            diff(p.scores), dscores(p.scores);
    rndnn::post_ops po;
    po.append_normal(0.f, 4.f);
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    const rndnn::rng normal(rndnn::rng::primitive_desc(
            rndnn::rng::desc(rndnn::rng_alg::philox4x32_10, p.scores), attr));
    std::int64_t seed = 0;
    for (const rndnn::memory *m : {&scores, &diff})
        normal.execute(p.strm,
                {{RNDNN_ARG_DST, *m},
                        {RNDNN_ARG_SEED, rndnn::memory::scalar(seed++)}});
    const auto plan = [&](bool fuse) -> std::function<void()> {
        auto c = std::make_shared<rndnn::compiled_graph>(
                compile_softmax_dropout(p, p.scores, fuse));
        auto gen = std::make_shared<rndnn::generator>(
                p.dropout.so.seed, p.dropout.so.offset);
        return [=] {
            c->execute_forward(
                    {{sd_scores, scores}, {sd_dropped, dropped}}, *gen);
            if (bwd)
                c->execute_backward({{sd_dropped, diff}},
                        {{sd_scores, dscores}});
        };
    };
    prepared_t t;
    t.elements = p.scores.nelems();
    t.bytes = p.scores.get_size();
    t.run_impl = plan(true);
    t.run_ref = plan(false);
    return t;
}

// --- problems --------------------------------------------------------------

// Adding a kind: a row here, its options in problem_options(), and a part
// of problem_t. Options shared by kinds: --shape, --dtype, --method and the
// stream options (--alg, --seed, --offset, --stream, --name, --threads).
// rng's: --dist and every distribution's parameters (the library's
// table), so that a new distribution's options need no row here.
std::vector<const char *> rng_bench_flags() {
    std::vector<const char *> own = {"dist", "p-tensor"};
    for (const rndnn::distribution_info &d : rndnn::distributions())
        for (const auto &param : d.params)
            if (std::none_of(own.begin(), own.end(), [&](const char *o) {
                    return std::strcmp(o, param.name) == 0;
                }))
                own.push_back(param.name);
    return own;
}

std::vector<const char *> dropout_bench_flags() {
    std::vector<const char *> own = dropout_own_flags();
    own.push_back("inplace");
    return own;
}

const prim_kind_t prim_kinds[] = {
        {"rng", parse_rng, prepare_rng, rng_bench_flags()},
        {"dropout", parse_dropout, prepare_dropout, dropout_bench_flags()},
        {"softmax_dropout", parse_softmax_dropout, prepare_softmax_dropout,
                {"backward", "rate", "mask-dtype", "causal"}},
};

const prim_kind_t &find_kind(const string &name) {
    string names;
    for (const prim_kind_t &k : prim_kinds) {
        if (name == k.name) return k;
        names += string(names.empty() ? "" : ", ") + k.name;
    }
    throw usage_error("unknown --prim '" + name + "' (expected " + names + ")");
}

} // namespace

po::options_description problem_options() {
    po::options_description desc(
            "Problem options (on the command line or in a --batch file)");
    auto opt = desc.add_options();
    opt("prim", text("rng"),
            "primitive: rng; dropout, which takes the dropout options below"
            " (those of rndnn dropout, with --shape and --dtype (f32, the"
            " default, bf16, f16) for --in, --mask-dtype for --mask-out and"
            " --mask-in) and --method and the stream options; or"
            " softmax_dropout: a graph's softmax along the last dim of"
            " --shape (--dtype f32 or bf16) and the dropout after it (--rate,"
            " default 0.1, --method, --alg, --mask-dtype, default none: drawn"
            " again in backward), fused, timed against the same two nodes"
            " unfused as the reference; --backward times forward and"
            " backward, --causal masks future positions");
    opt("isa", text(),
            "cap on the ISA of the implementation: none (the reference "
            "kernel), sse41, avx2, avx512, all; default: all (no cap)");
    add_rng_problem_options(desc);
    opt("p-tensor", text(),
            "bernoulli: each element's p from a tensor of this type (f32 or "
            "bf16) of --shape's dims, made for the bench (values in [0, 1) "
            "from a hash of the index; `rndnn gen --p-file` reads one)");
    add_dropout_problem_options(desc, dropout_cli_t::bench);
    desc.add_options()("inplace",
            "dropout: dst (diff_src) is the memory of src (diff_dst)")(
            "causal", "softmax_dropout: mask future positions");
    return desc;
}

problem_t parse_problem(const words_t &words, const string &text,
        const po::options_description &desc) {
    po::variables_map vm;
    parse_options(words, desc, "", vm); // desc has no --help
    problem_t p;
    p.text = text;
    p.kind = &find_kind(vm["prim"].as<string>());
    if (vm.count("isa")) p.max_isa = rndnn::str2isa(vm["isa"].as<string>());
    const auto owns = [](const prim_kind_t &k, const char *f) {
        for (const char *o : k.own)
            if (std::strcmp(o, f) == 0) return true;
        return false;
    };
    for (const prim_kind_t &k : prim_kinds)
        if (&k != p.kind)
            for (const char *f : k.own)
                if (given(vm, f) && !owns(*p.kind, f))
                    throw usage_error(string("--") + f
                            + " is only used with --prim " + k.name);
    p.kind->parse(vm, p);
    return p;
}

} // namespace rndnn_cli
