// rndnn's torch operators (docs/python.md, "rndnn.torch in C++"): the
// dropout and softmax-dropout of rndnn.torch's modules and functions as C++
// torch operators with their autograd in C++, so that a training forward
// of rndnn.torch.Dropout costs a thin Python check and one operator call.
// Built into rndnn/_torch_ops.so where CMake finds torch's package
// (python/CMakeLists.txt); rndnn.torch loads it with
// torch.ops.load_library, and keeps its Python path where it is absent.
//
// The namespace rndnn (torch.ops.rndnn) is defined here whole, the
// operators that rndnn.torch implements in Python included (their
// kernels are registered from Python, torch.library's "IMPL"):
// - dropout(input, p, train, inplace, kind, keep_mask, generator,
//   global_shape=[], origin=[]): the modules' forward under torch.jit
//   (its schema is the one scripted modules were saved with), generator a
//   key of rndnn.torch's registry (0: torch's default generator). Shards
//   and rndnn.Generators go to dropout_python, rndnn.torch's Python path.
// - dropout_eager(input, p, inplace, kind, keep_mask, generator): the
//   same training forward with a torch.Generator (or None), its arguments
//   checked by rndnn.torch beforehand (it neither checks nor warns).
// - register_generator(key, generator): the registry (keys of
//   torch.Generators; None for rndnn.Generators, whose draws are Python's).
// - unknown_generator(key): the error of a key that names no generator.
// - softmax_dropout(scores, p, keep_mask, generator): MultiheadAttention's
//   dropout of the attention probabilities (eager, scripted, traced), a
//   key as dropout's; rndnn.Generators, scalar and empty scores go to
//   softmax_dropout_python. softmax_dropout_eager(scores, p, causal,
//   keep_mask, generator): rndnn.torch.softmax_dropout's, checked before.
// - shard_error(shape, global_shape, origin): Python's only.
//
// Each operator is one CompositeImplicitAutograd kernel: it checks (for
// TorchScript), draws the seed, and applies its autograd itself (a
// torch::autograd::Function, or a plain node for the out-of-place
// dropout), so a call is one dispatch; forward and backward are not
// operators of their own.
//
// The draws and bits are those of rndnn.torch's Python path: one seed
// per training forward, random64() % 2^63 of the CPU generator under its
// mutex (torch.empty((), dtype=torch.int64).random_(generator)), offset 0,
// the mask rndnn::dropout's (philox4x32_10, method auto, stream 0) over
// the noise shape of Dropout, Dropout1d, 2d or 3d.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Optional.h>
#include <torch/autograd.h>
#include <torch/csrc/autograd/functions/basic_ops.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/library.h>

#include "binding_support.hpp"
#include "rndnn/rndnn.hpp"

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// --- the generators --------------------------------------------------------

// rndnn.torch's generator keys (rndnn/torch/__init__.py, _key): 0 is
// torch's default generator; the others are registered at their first use
// with their torch.Generator, or none for an rndnn.Generator (whose draws
// only Python makes). Keys live as long as the process, as Python's.
struct registry_t {
    std::mutex mutex;
    std::unordered_map<std::int64_t, c10::optional<at::Generator>> keys;
};

registry_t &registry() {
    static registry_t r;
    return r;
}

void register_generator(
        std::int64_t key, const c10::optional<at::Generator> &generator) {
    TORCH_CHECK(key != 0, "rndnn: generator key 0 is torch's default "
                          "generator's");
    auto &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.keys[key] = generator;
}

// Whether @p key names a generator of this process; @p generator: its
// torch.Generator (none for key 0, torch's default, and for an
// rndnn.Generator's key).
bool find_generator(std::int64_t key, c10::optional<at::Generator> &generator,
        bool &in_python) {
    generator.reset();
    in_python = false;
    if (key == 0) return true;
    auto &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.keys.find(key);
    if (it == r.keys.end()) return false;
    generator = it->second;
    in_python = !it->second.has_value();
    return true;
}

std::string unknown_generator_message(std::int64_t key) {
    return "rndnn.dropout: no generator has key " + std::to_string(key)
            + " in this process (a scripted module saved with its own "
              "generator= and loaded in another process: script it there, "
              "or use torch's default generator)";
}

// The error of a key that names no generator, or "" (rndnn.torch's
// _unknown_key).
std::string unknown_generator(std::int64_t key) {
    c10::optional<at::Generator> g;
    bool in_python = false;
    return find_generator(key, g, in_python) ? std::string()
                                             : unknown_generator_message(key);
}

// One training forward's seed: torch.empty((), dtype=torch.int64)
// .random_(generator) of ATen, random64() % 2^63 of the CPU generator
// under its mutex (torch's default one without @p generator).
std::int64_t draw_seed(const c10::optional<at::Generator> &generator) {
    auto *g = at::get_generator_or_default<at::CPUGeneratorImpl>(
            generator, at::detail::getDefaultCPUGenerator());
    std::lock_guard<std::mutex> lock(g->mutex_);
    const std::uint64_t r = g->random64();
    return static_cast<std::int64_t>(r % (std::uint64_t(1) << 63));
}

// --- the kernels -----------------------------------------------------------

rndnn::data_type to_rndnn(at::ScalarType t) {
    switch (t) {
        case at::kFloat: return rndnn::data_type::f32;
        case at::kBFloat16: return rndnn::data_type::bf16;
        case at::kHalf: return rndnn::data_type::f16;
        default: return rndnn::data_type::undef;
    }
}

// torch's name of @p t, as Python prints a dtype ("torch.float64").
std::string torch_name(at::ScalarType t) {
    switch (t) {
        case at::kFloat: return "torch.float32";
        case at::kDouble: return "torch.float64";
        case at::kHalf: return "torch.float16";
        case at::kBFloat16: return "torch.bfloat16";
        case at::kByte: return "torch.uint8";
        case at::kChar: return "torch.int8";
        case at::kShort: return "torch.int16";
        case at::kInt: return "torch.int32";
        case at::kLong: return "torch.int64";
        case at::kBool: return "torch.bool";
        case at::kComplexHalf: return "torch.complex32";
        case at::kComplexFloat: return "torch.complex64";
        case at::kComplexDouble: return "torch.complex128";
        default: return std::string("torch.") + c10::toString(t);
    }
}

// The mask's dims of dropout @p kind (0: elementwise, else dropout@kind d
// of channels) of data of @p shape (checked): rndnn.torch's _noise_shape.
// Empty for the data's own.
rndnn::dims noise_dims(at::IntArrayRef shape, std::int64_t kind) {
    if (kind == 0) return {};
    const std::size_t d = shape.size();
    const bool batched = kind == 1 ? d == 3 : kind == 2 ? true : d == 5;
    rndnn::dims full;
    if (!batched) full.push_back(1);
    full.insert(full.end(), shape.begin(), shape.end());
    rndnn::dims noise(full.size(), 1);
    noise[0] = full[0];
    noise[1] = full[1];
    if (!batched) noise.erase(noise.begin());
    return noise;
}

rndnn::dim_t elements(const rndnn::dims &d) {
    rndnn::dim_t n = 1;
    for (const rndnn::dim_t k : d)
        n *= k;
    return n;
}

// A new tensor as rndnn/_arrays.py's _new makes one (its huge pages
// advised), its version moved on once, as _check_written moves out='s.
at::Tensor new_output(at::IntArrayRef shape, at::ScalarType type) {
    at::Tensor t = at::empty(shape, at::TensorOptions().dtype(type));
    rndnn_python::advise_huge_pages(
            reinterpret_cast<std::uintptr_t>(t.data_ptr()), t.nbytes());
    if (!t.is_inference()) t.unsafeGetTensorImpl()->bump_version();
    return t;
}

// What a primitive is made from here: the data's dims and type, p, the
// kind (its noise shape), whether a mask is written or read, and the
// direction; compared in a few instructions, where rndnn::dropout::desc's
// construction and comparison cost more than the kernel at 256 elements.
struct problem_t {
    std::vector<std::int64_t> shape;
    at::ScalarType type;
    double p;
    std::int64_t kind;
    bool mask;
    bool backward;

    bool operator==(const problem_t &o) const {
        return shape == o.shape && type == o.type && p == o.p
                && kind == o.kind && mask == o.mask && backward == o.backward;
    }
};

// A primitive with the memory descriptors of its data and mask.
struct plan_t {
    rndnn::dropout primitive;
    rndnn::memory::desc data, mask;
};

plan_t make_plan(const problem_t &k) {
    rndnn::dropout::desc d;
    d.prop = k.backward ? rndnn::prop_kind::backward
                        : rndnn::prop_kind::forward_training;
    const rndnn::dims shape(k.shape.begin(), k.shape.end());
    d.src = d.dst = rndnn::memory::desc(shape, to_rndnn(k.type));
    d.noise_shape = noise_dims(k.shape, k.kind);
    if (k.mask)
        d.mask = rndnn::memory::desc(
                d.noise_shape.empty() ? shape : d.noise_shape,
                rndnn::data_type::bit);
    d.rate = k.p;
    d.alg = rndnn::rng_alg::philox4x32_10;
    d.method = rndnn::bernoulli_method::automatic;
    d.bits = 1;
    d.with_offset = true;
    return {rndnn::dropout(rndnn::dropout::primitive_desc(d)), d.src, d.mask};
}

// Runs @p plan's primitive on src and dst (diff_dst and diff_src in
// backward) of its data desc, the mask where defined, at (seed, offset 0,
// stream 0), with the @p extra arguments; a forward's mask gets its unused
// bits cleared.
template <typename plan_ptr_t>
void execute_plan(const plan_ptr_t &plan, const at::Tensor &src,
        const at::Tensor &dst, const at::Tensor &mask, std::int64_t seed,
        bool backward, std::unordered_map<int, rndnn::memory> extra) {
    // Offset and stream, always 0.
    static const rndnn::memory zero
            = rndnn::memory::scalar(static_cast<std::int64_t>(0));
    std::unordered_map<int, rndnn::memory> args = std::move(extra);
    args.emplace(backward ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC,
            rndnn::memory(plan->data, src.data_ptr()));
    args.emplace(backward ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST,
            rndnn::memory(plan->data, dst.data_ptr()));
    args.emplace(RNDNN_ARG_SEED, rndnn::memory::scalar(seed));
    args.emplace(RNDNN_ARG_OFFSET, zero);
    args.emplace(RNDNN_ARG_STREAM, zero);
    if (mask.defined())
        args.emplace(
                RNDNN_ARG_MASK, rndnn::memory(plan->mask, mask.data_ptr()));
    plan->primitive.execute(rndnn_python::kernel_stream(), args);
    if (mask.defined() && !backward)
        rndnn_python::clear_unused_bits(
                static_cast<std::uint8_t *>(mask.data_ptr()), plan->mask);
}

// Runs @p body, a library error in it raised as torch's ValueError with
// the library's message (rndnn.Error is a ValueError; rndnn.torch raises
// it as rndnn.Error, as the Python path does).
template <typename body_t>
void raising_value_errors(body_t body) {
    try {
        body();
    } catch (const rndnn::error &e) {
        TORCH_CHECK_VALUE(false, e.what());
    }
}

// The rndnn::dropout of dense @p src into @p dst (forward: the mask written
// into @p mask where defined; backward: the mask read from it, or
// recomputed), at (seed, offset 0, stream 0). Primitives are cached.
void run_dropout(const at::Tensor &src, const at::Tensor &dst,
        const at::Tensor &mask, double p, std::int64_t seed,
        std::int64_t kind, bool backward) {
    static rndnn_python::recent_primitives_t<problem_t, plan_t> recent;
    const problem_t key {src.sizes().vec(), src.scalar_type(), p, kind,
            mask.defined(), backward};
    raising_value_errors([&] {
        const auto plan = recent.get(key, [&] { return make_plan(key); });
        execute_plan(plan, src, dst, mask, seed, backward, {});
    });
}

// Forward: (y, the packed mask or undefined); y is @p x itself in place
// (x contiguous then), else new.
std::pair<at::Tensor, at::Tensor> forward_kernel(const at::Tensor &x, double p,
        std::int64_t seed, std::int64_t kind, bool keep_mask, bool inplace) {
    const at::Tensor src = inplace ? x : x.contiguous();
    at::Tensor y;
    if (inplace) {
        y = x;
        if (!x.is_inference()) x.unsafeGetTensorImpl()->bump_version();
    } else {
        y = new_output(src.sizes(), src.scalar_type());
    }
    at::Tensor mask;
    if (keep_mask) {
        const rndnn::dims noise = noise_dims(src.sizes(), kind);
        const rndnn::dim_t n = noise.empty() ? src.numel() : elements(noise);
        mask = new_output({(n + 7) / 8}, at::kByte);
    }
    run_dropout(src, y, mask, p, seed, kind, false);
    return {y, mask};
}

// Whether @p t holds one value for all its elements (every stride 0,
// as an expanded scalar), and at least one element.
bool is_broadcast_scalar(const at::Tensor &t) {
    if (t.numel() == 0) return false;
    for (const std::int64_t s : t.strides())
        if (s != 0) return false;
    return true;
}

// Fills dense @p dst with the one value of @p src (is_broadcast_scalar),
// bit for bit (2- or 4-byte elements).
void fill_with(const at::Tensor &dst, const at::Tensor &src) {
    const auto n = static_cast<std::size_t>(dst.numel());
    if (dst.element_size() == 4) {
        std::uint32_t v;
        std::memcpy(&v, src.data_ptr(), sizeof v);
        std::fill_n(static_cast<std::uint32_t *>(dst.data_ptr()), n, v);
    } else {
        std::uint16_t v;
        std::memcpy(&v, src.data_ptr(), sizeof v);
        std::fill_n(static_cast<std::uint16_t *>(dst.data_ptr()), n, v);
    }
}

at::Tensor backward_kernel(const at::Tensor &dy, double p, std::int64_t seed,
        std::int64_t kind, const at::Tensor &mask) {
    at::Tensor dx;
    if (dy.is_contiguous()) {
        dx = new_output(dy.sizes(), dy.scalar_type());
        if (dy.numel() != 0) run_dropout(dy, dx, mask, p, seed, kind, true);
    } else if (is_broadcast_scalar(dy)) {
        // y.sum().backward()'s dy, one value expanded: dx filled with it
        // (without a copy's TensorIterator) and written in place.
        dx = new_output(dy.sizes(), dy.scalar_type());
        fill_with(dx, dy);
        run_dropout(dx, dx, mask, p, seed, kind, true);
    } else {
        // A dense copy of dy, written in place: one new tensor, not two
        // (the same bits: the kernel reads each element before it writes
        // it).
        dx = dy.contiguous();
        if (!dx.is_inference()) dx.unsafeGetTensorImpl()->bump_version();
        if (dx.numel() != 0) run_dropout(dx, dx, mask, p, seed, kind, true);
    }
    return dx;
}

// dx = keep ? dy / (1 - p) : 0, the mask given or recomputed: linear in
// dy, so its own backward is itself (higher derivatives work), as
// rndnn.torch's _Backward.
struct backward_function : torch::autograd::Function<backward_function> {
    // @mask: none where recomputed (an optional, which autograd takes
    // for no input then).
    static at::Tensor forward(AutogradContext *ctx, const at::Tensor &dy,
            double p, std::int64_t seed, std::int64_t kind,
            const c10::optional<at::Tensor> &mask) {
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        ctx->saved_data["kind"] = kind;
        ctx->saved_data["mask"] = mask;
        return backward_kernel(dy, p, seed, kind, mask.value_or(at::Tensor()));
    }

    static variable_list backward(AutogradContext *ctx, variable_list ddx) {
        return {backward_function::apply(ddx[0], ctx->saved_data["p"].toDouble(),
                        ctx->saved_data["seed"].toInt(),
                        ctx->saved_data["kind"].toInt(),
                        ctx->saved_data["mask"].toOptional<at::Tensor>()),
                at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    }
};

// y = keep ? x / (1 - p) : 0 (rndnn.torch's DropoutFunction): the packed
// mask kept for the backward pass, or nothing (recomputed from the seed);
// in place, x itself, marked dirty.
struct dropout_function : torch::autograd::Function<dropout_function> {
    static at::Tensor forward(AutogradContext *ctx, const at::Tensor &x,
            double p, std::int64_t seed, std::int64_t kind, bool keep_mask,
            bool inplace) {
        auto [y, mask] = forward_kernel(x, p, seed, kind, keep_mask, inplace);
        if (inplace) ctx->mark_dirty({x});
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        ctx->saved_data["kind"] = kind;
        ctx->saved_data["mask"] = mask.defined()
                ? c10::optional<at::Tensor>(mask)
                : c10::nullopt;
        return y;
    }

    static variable_list backward(AutogradContext *ctx, variable_list dy) {
        const double p = ctx->saved_data["p"].toDouble();
        const std::int64_t seed = ctx->saved_data["seed"].toInt();
        const std::int64_t kind = ctx->saved_data["kind"].toInt();
        const auto mask = ctx->saved_data["mask"].toOptional<at::Tensor>();
        // Recorded (backward_function: double backward) only where the
        // engine records (create_graph); else the kernel alone.
        at::Tensor dx = at::GradMode::is_enabled()
                ? backward_function::apply(dy[0], p, seed, kind, mask)
                : backward_kernel(dy[0], p, seed, kind,
                        mask.value_or(at::Tensor()));
        return {dx, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(),
                at::Tensor()};
    }
};

// The backward of an out-of-place dropout_function, as a plain node (as
// torch's generated ones are): the same backward, without the custom
// Function's context and checks, which cost more than the kernel at 256
// elements.
struct dropout_backward_node : torch::autograd::Node {
    double p = 0;
    std::int64_t seed = 0, kind = 0;
    c10::optional<at::Tensor> mask;

    std::string name() const override { return "DropoutBackward"; }

    variable_list apply(variable_list &&grads) override {
        const at::Tensor &dy = grads[0];
        if (!dy.defined()) return {at::Tensor()};
        return {at::GradMode::is_enabled()
                        ? backward_function::apply(dy, p, seed, kind, mask)
                        : backward_kernel(dy, p, seed, kind,
                                mask.value_or(at::Tensor()))};
    }
};

// The training forward of checked arguments at p > 0: rndnn.torch's
// _forward once its checks passed. The seed is drawn first (an empty
// tensor moves the generator on too, and is returned itself).
at::Tensor train_forward(const at::Tensor &x, double p, bool inplace,
        std::int64_t kind, bool keep_mask,
        const c10::optional<at::Generator> &generator) {
    const std::int64_t seed = draw_seed(generator);
    if (x.numel() == 0) return x;
    if (x.requires_grad() && at::GradMode::is_enabled()) {
        if (inplace)
            return dropout_function::apply(x, p, seed, kind, keep_mask, true);
        at::Tensor y, mask;
        {
            at::NoGradGuard no_grad;
            std::tie(y, mask) = forward_kernel(x, p, seed, kind, keep_mask,
                    false);
        }
        const std::shared_ptr<dropout_backward_node> node(
                new dropout_backward_node(), torch::autograd::deleteNode);
        node->p = p;
        node->seed = seed;
        node->kind = kind;
        if (mask.defined()) node->mask = mask;
        node->set_next_edges(torch::autograd::collect_next_edges(x));
        torch::autograd::set_history(y, node);
        return y;
    }
    // No backward: no mask kept (the same output: both plans give the
    // same bits).
    return forward_kernel(x, p, seed, kind, false, inplace).first;
}

at::Tensor dropout_eager(const at::Tensor &x, double p, bool inplace,
        std::int64_t kind, bool keep_mask,
        const c10::optional<at::Generator> &generator) {
    return train_forward(x, p, inplace, kind, keep_mask, generator);
}

// Python's repr of a float: the shortest digits that read back, with ".0"
// where they have no point.
std::string float_repr(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    if (s == "inf" || s == "-inf" || s == "nan" || s == "-nan") return s;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

// --- softmax-dropout (MultiheadAttention's) ----------------------------------

// What a softmax-dropout primitive is made from here (as problem_t).
struct sd_problem_t {
    std::vector<std::int64_t> shape;
    at::ScalarType type;
    double p;
    bool causal;
    bool mask;
    bool backward;

    bool operator==(const sd_problem_t &o) const {
        return shape == o.shape && type == o.type && p == o.p
                && causal == o.causal && mask == o.mask
                && backward == o.backward;
    }
};

struct sd_plan_t {
    rndnn::softmax_dropout primitive;
    rndnn::memory::desc data, stats, mask;
};

sd_plan_t make_sd_plan(const sd_problem_t &k) {
    rndnn::softmax_dropout::desc d;
    d.prop = k.backward ? rndnn::prop_kind::backward
                        : rndnn::prop_kind::forward_training;
    const rndnn::dims shape(k.shape.begin(), k.shape.end());
    d.src = d.dst = rndnn::memory::desc(shape, to_rndnn(k.type));
    d.stats = true;
    d.causal = k.causal;
    if (k.mask) d.mask = rndnn::memory::desc(shape, rndnn::data_type::bit);
    d.rate = k.p;
    d.alg = rndnn::rng_alg::philox4x32_10;
    d.method = rndnn::bernoulli_method::automatic;
    d.bits = 1;
    d.with_offset = true;
    return {rndnn::softmax_dropout(rndnn::softmax_dropout::primitive_desc(d)),
            d.src, rndnn::softmax_dropout::stats_desc(shape), d.mask};
}

// rndnn::softmax_dropout along the last dim at (seed, offset 0, stream
// 0): forward src (the scores) -> dst, the stats and the mask written;
// backward dy (src) -> dx (dst), reading the scores @p x, the stats and
// the mask (or drawing it again). Primitives are cached.
void run_softmax_dropout(const at::Tensor &src, const at::Tensor &dst,
        const at::Tensor &x, const at::Tensor &stats, const at::Tensor &mask,
        double p, std::int64_t seed, bool causal, bool backward) {
    static rndnn_python::recent_primitives_t<sd_problem_t, sd_plan_t> recent;
    const sd_problem_t key {src.sizes().vec(), src.scalar_type(), p, causal,
            mask.defined(), backward};
    raising_value_errors([&] {
        const auto plan = recent.get(key, [&] { return make_sd_plan(key); });
        std::unordered_map<int, rndnn::memory> extra {{RNDNN_ARG_STATS,
                rndnn::memory(plan->stats, stats.data_ptr())}};
        if (backward)
            extra.emplace(
                    RNDNN_ARG_SRC, rndnn::memory(plan->data, x.data_ptr()));
        execute_plan(plan, src, dst, mask, seed, backward, std::move(extra));
    });
}

// Forward of dense scores: (y, stats, the packed mask or undefined).
std::tuple<at::Tensor, at::Tensor, at::Tensor> sd_forward_kernel(
        const at::Tensor &x, double p, std::int64_t seed, bool causal,
        bool keep_mask) {
    at::Tensor y = new_output(x.sizes(), x.scalar_type());
    std::vector<std::int64_t> rows(x.sizes().begin(), x.sizes().end() - 1);
    rows.push_back(2);
    at::Tensor stats = new_output(rows, at::kFloat);
    at::Tensor mask;
    if (keep_mask) mask = new_output({(x.numel() + 7) / 8}, at::kByte);
    run_softmax_dropout(x, y, at::Tensor(), stats, mask, p, seed, causal,
            false);
    return {y, stats, mask};
}

// rndnn.torch's SoftmaxDropoutFunction: saves the scores and the row
// stats, and the mask as bits (or nothing: drawn again); its backward is
// once differentiable, as the Python one's.
struct softmax_dropout_function
    : torch::autograd::Function<softmax_dropout_function> {
    static at::Tensor forward(AutogradContext *ctx, const at::Tensor &scores,
            double p, std::int64_t seed, bool causal, bool keep_mask) {
        const at::Tensor x = scores.contiguous();
        auto [y, stats, mask] = sd_forward_kernel(x, p, seed, causal,
                keep_mask);
        ctx->save_for_backward({x, stats});
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        ctx->saved_data["causal"] = causal;
        ctx->saved_data["mask"] = mask.defined()
                ? c10::optional<at::Tensor>(mask)
                : c10::nullopt;
        return y;
    }

    static variable_list backward(AutogradContext *ctx, variable_list dys) {
        const auto saved = ctx->get_saved_variables();
        const at::Tensor &x = saved[0], &stats = saved[1];
        const at::Tensor &dy_in = dys[0];
        at::Tensor dx;
        {
            at::NoGradGuard no_grad;
            const at::Tensor dy = dy_in.contiguous();
            dx = new_output(dy.sizes(), dy.scalar_type());
            const auto mask = ctx->saved_data["mask"].toOptional<at::Tensor>();
            run_softmax_dropout(dy, dx, x, stats, mask.value_or(at::Tensor()),
                    ctx->saved_data["p"].toDouble(),
                    ctx->saved_data["seed"].toInt(),
                    ctx->saved_data["causal"].toBool(), true);
        }
        if (at::GradMode::is_enabled() && dy_in.requires_grad()) {
            // torch.autograd.function.once_differentiable's error node.
            auto error = std::make_shared<torch::autograd::DelayedError>(
                    "trying to differentiate twice a function that was "
                    "marked with @once_differentiable",
                    1);
            at::Tensor alias = dx.detach();
            alias.set_requires_grad(true);
            dx = (*error)({alias})[0];
        }
        return {dx, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    }
};

// The training forward of checked arguments at p > 0 (rndnn.torch's
// softmax_dropout once its checks passed): the seed drawn first.
at::Tensor softmax_dropout_eager(const at::Tensor &scores, double p,
        bool causal, bool keep_mask,
        const c10::optional<at::Generator> &generator) {
    const std::int64_t seed = draw_seed(generator);
    if (scores.requires_grad() && at::GradMode::is_enabled())
        return softmax_dropout_function::apply(scores, p, seed, causal,
                keep_mask);
    return std::get<0>(sd_forward_kernel(scores.contiguous(), p, seed, causal,
            false));
}

at::Tensor softmax_dropout_python(const at::Tensor &scores, double p,
        bool keep_mask, std::int64_t key) {
    static const auto op
            = c10::Dispatcher::singleton()
                      .findSchemaOrThrow("rndnn::softmax_dropout_python", "")
                      .typed<at::Tensor(const at::Tensor &, double, bool,
                              std::int64_t)>();
    return op.call(scores, p, keep_mask, key);
}

// torch.ops.rndnn.softmax_dropout: MultiheadAttention's dropout of the
// attention probabilities in training (eager, scripted and traced), the
// generator a key; rndnn.Generators and what is rare (scalars, empty
// scores) go to rndnn.torch's Python path.
at::Tensor softmax_dropout(const at::Tensor &scores, double p, bool keep_mask,
        std::int64_t key) {
    c10::optional<at::Generator> generator;
    bool in_python = false;
    const bool known = find_generator(key, generator, in_python);
    if (in_python || scores.dim() == 0 || scores.numel() == 0)
        return softmax_dropout_python(scores, p, keep_mask, key);
    TORCH_CHECK(known, unknown_generator_message(key));
    TORCH_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be "
            "between 0 and 1, but got ", float_repr(p));
    if (p == 0) return at::softmax(scores, -1);
    TORCH_CHECK_VALUE(scores.scalar_type() == at::kFloat
                    || scores.scalar_type() == at::kBFloat16,
            "softmax_dropout takes f32 or bf16 scores, not ",
            torch_name(scores.scalar_type()));
    TORCH_CHECK_VALUE(scores.device().is_cpu(), "scores is on ",
            scores.device().str(), ", rndnn runs on the CPU");
    return softmax_dropout_eager(scores, p, false, keep_mask, generator);
}

// --- the checks of rndnn.torch's _forward, for TorchScript -------------------


// _noise_shape's errors and warnings on the number of dims.
void check_dims(std::size_t d, std::int64_t kind) {
    bool batched = true;
    if (kind == 0) return;
    if (kind == 1) {
        TORCH_CHECK(d == 2 || d == 3, "dropout1d: Expected 2D or 3D input, "
                "but received a ", d, "D input. Note that dropout1d exists "
                "to provide channel-wise dropout on inputs with 1 spatial "
                "dimension, a channel dimension, and an optional batch "
                "dimension (i.e. 2D or 3D inputs).");
        batched = d == 3;
    } else if (kind == 2) {
        if (d != 3 && d != 4)
            TORCH_WARN("dropout2d: Received a ", d, "-D input to dropout2d, "
                    "which is deprecated and will result in an error in a "
                    "future release. To retain the behavior and silence "
                    "this warning, please use dropout instead. Note that "
                    "dropout2d exists to provide channel-wise dropout on "
                    "inputs with 2 spatial dimensions, a channel dimension, "
                    "and an optional batch dimension (i.e. 3D or 4D "
                    "inputs).");
        if (d == 3)
            TORCH_WARN("dropout2d: Received a 3D input to dropout2d and "
                    "assuming that channel-wise 1D dropout behavior is "
                    "desired - input is interpreted as shape (N, C, L), "
                    "where C is the channel dim. This behavior will change "
                    "in a future release to interpret the input as one "
                    "without a batch dimension, i.e. shape (C, H, W). To "
                    "maintain the 1D channel-wise dropout behavior, please "
                    "switch to using dropout1d instead.");
    } else {
        if (d != 4 && d != 5)
            TORCH_WARN("dropout3d: Received a ", d, "-D input to dropout3d, "
                    "which is deprecated and will result in an error in a "
                    "future release. To retain the behavior and silence "
                    "this warning, please use dropout instead. Note that "
                    "dropout3d exists to provide channel-wise dropout on "
                    "inputs with 3 spatial dimensions, a channel dimension, "
                    "and an optional batch dimension (i.e. 4D or 5D "
                    "inputs).");
        batched = d == 5;
    }
    TORCH_CHECK((batched ? d : d + 1) >= 2,
            "Feature dropout requires at least 2 dimensions in the input");
}

// rndnn.torch's _check_inplace.
void check_inplace(const at::Tensor &x) {
    if (x.requires_grad() && at::GradMode::is_enabled()) {
        TORCH_CHECK(!x.is_leaf(), "a leaf Variable that requires grad is "
                                  "being used in an in-place operation.");
        TORCH_CHECK(!(x.is_view() && x._base().is_leaf()),
                "a view of a leaf Variable that requires grad is being used "
                "in an in-place operation.");
    }
}

at::Tensor dropout_python(const at::Tensor &input, double p, bool train,
        bool inplace, std::int64_t kind, bool keep_mask, std::int64_t key,
        at::IntArrayRef global_shape, at::IntArrayRef origin) {
    static const auto op
            = c10::Dispatcher::singleton()
                      .findSchemaOrThrow("rndnn::dropout_python", "")
                      .typed<at::Tensor(const at::Tensor &, double, bool,
                              bool, std::int64_t, bool, std::int64_t,
                              at::IntArrayRef, at::IntArrayRef)>();
    return op.call(input, p, train, inplace, kind, keep_mask, key,
            global_shape, origin);
}

// torch.ops.rndnn.dropout: rndnn.torch's _forward of a module's arguments
// (the generator a key), its checks and messages; shards and
// rndnn.Generators go to rndnn.torch's Python path (dropout_python).
at::Tensor dropout(const at::Tensor &input, double p, bool train,
        bool inplace, std::int64_t kind, bool keep_mask, std::int64_t key,
        at::IntArrayRef global_shape, at::IntArrayRef origin) {
    c10::optional<at::Generator> generator;
    bool in_python = false;
    const bool known = find_generator(key, generator, in_python);
    if (!global_shape.empty() || in_python)
        return dropout_python(input, p, train, inplace, kind, keep_mask, key,
                global_shape, origin);
    // The key is looked up only to draw: in eval mode, a key unknown here
    // (a module saved elsewhere) is no error.
    TORCH_CHECK(known || !train || p == 0, unknown_generator_message(key));
    TORCH_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be "
            "between 0 and 1, but got ", float_repr(p));
    TORCH_CHECK(kind >= 0 && kind <= 3, "rndnn.dropout: unknown kind ", kind);
    check_dims(static_cast<std::size_t>(input.dim()), kind);
    if (!train || p == 0) return input;
    TORCH_CHECK_VALUE(to_rndnn(input.scalar_type()) != rndnn::data_type::undef,
            "dropout takes f32, bf16 or f16 data, not ",
            torch_name(input.scalar_type()));
    TORCH_CHECK_VALUE(input.device().is_cpu(), "x is on ",
            input.device().str(), ", rndnn runs on the CPU");
    if (inplace) {
        TORCH_CHECK_VALUE(input.is_contiguous(),
                "x must be contiguous to be written in place");
        check_inplace(input);
    }
    return train_forward(input, p, inplace, kind, keep_mask, generator);
}

} // namespace

TORCH_LIBRARY(rndnn, m) {
    rndnn_python::watch_forks();
    const auto conservative = c10::AliasAnalysisKind::CONSERVATIVE;
    // CONSERVATIVE: each may write its input (inplace) and draws from a
    // generator, so the JIT neither merges two calls nor moves one.
    m.def(torch::schema("dropout(Tensor input, float p, bool train, "
                        "bool inplace, int kind, bool keep_mask, "
                        "int generator, int[] global_shape=[], "
                        "int[] origin=[]) -> Tensor",
            conservative));
    m.def(torch::schema("dropout_eager(Tensor input, float p, bool inplace, "
                        "int kind, bool keep_mask, Generator? generator) "
                        "-> Tensor",
            conservative));
    m.def(torch::schema("dropout_python(Tensor input, float p, bool train, "
                        "bool inplace, int kind, bool keep_mask, "
                        "int generator, int[] global_shape=[], "
                        "int[] origin=[]) -> Tensor",
            conservative));
    m.def(torch::schema("register_generator(int key, Generator? generator) "
                        "-> ()",
            conservative));
    m.def("unknown_generator(int key) -> str");
    // Implemented in Python by rndnn.torch (torch.library "IMPL").
    m.def("shard_error(int[] shape, int[] global_shape, int[] origin) "
          "-> str");
    m.def(torch::schema("softmax_dropout(Tensor scores, float p, "
                        "bool keep_mask, int generator) -> Tensor",
            conservative));
    m.def(torch::schema("softmax_dropout_eager(Tensor scores, float p, "
                        "bool causal, bool keep_mask, Generator? generator) "
                        "-> Tensor",
            conservative));
    m.def(torch::schema("softmax_dropout_python(Tensor scores, float p, "
                        "bool keep_mask, int generator) -> Tensor",
            conservative));

    // Above autograd: the C++ autograd functions are applied here.
    m.impl("dropout", c10::DispatchKey::CompositeImplicitAutograd, &dropout);
    m.impl("dropout_eager", c10::DispatchKey::CompositeImplicitAutograd,
            &dropout_eager);
    m.impl("register_generator", c10::DispatchKey::CompositeImplicitAutograd,
            &register_generator);
    m.impl("unknown_generator", c10::DispatchKey::CompositeImplicitAutograd,
            &unknown_generator);
    m.impl("softmax_dropout", c10::DispatchKey::CompositeImplicitAutograd,
            &softmax_dropout);
    m.impl("softmax_dropout_eager",
            c10::DispatchKey::CompositeImplicitAutograd,
            &softmax_dropout_eager);
}
