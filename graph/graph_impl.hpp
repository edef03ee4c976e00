// The graph's internals: what its checks, compiler and execution share.
//
// graph.cpp declares and checks the graph; compile.cpp runs the compiler,
// whose pieces are lower.cpp (the steps and each node's forward),
// backward.cpp (each node's gradient) and arena.hpp (the memory plan);
// exec.cpp runs the compiled steps.
#ifndef RNDNN_GRAPH_GRAPH_IMPL_HPP
#define RNDNN_GRAPH_GRAPH_IMPL_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "pipeline/softmax_dropout.hpp"
#include "rndnn/dropout.hpp"
#include "rndnn/graph.hpp"

namespace rndnn {
namespace impl {

enum class node_kind_t { matmul, softmax, dropout, eltwise, binary, reorder };
const char *node_kind2str(node_kind_t kind);

enum class role_t { input, internal, output };

struct graph_node_t {
    node_kind_t kind = node_kind_t::matmul;
    std::string name;
    std::vector<tensor_id> src;
    tensor_id dst = 0;
    matmul_params matmul;
    int axis = 0; // softmax; in [0, ndims) once finalized
    softmax_params softmax;
    dropout_params dropout;
    eltwise_alg eltwise = eltwise_alg::relu;
    float alpha = 0.f, beta = 0.f;
    binary_alg binary = binary_alg::add;
};

struct graph_tensor_t {
    memory::desc md;
    role_t role = role_t::internal;
    bool requires_grad = false; // inputs only
    int producer = -1; // node index
    std::vector<int> readers; // node indices, one per read
};

// "node 'scores' (matmul)"
std::string node_str(const graph_node_t &n);
// "tensor 3 (f32:2x3)"
std::string tensor_str(tensor_id id, const memory::desc &md);

// The rndnn dropout of a dropout node, with the node's range of the
// generator's stream as its offset (an empty mask: none).
dropout::desc dropout_desc(const dropout_params &params, prop_kind prop,
        const memory::desc &src, const memory::desc &dst,
        const memory::desc &mask);

// The view of md with its last two dims (and their strides) swapped.
memory::desc transposed(const memory::desc &md);

} // namespace impl

struct graph::impl_t {
    std::map<tensor_id, impl::graph_tensor_t> tensors;
    std::vector<impl::graph_node_t> nodes;
    std::vector<int> order; // node indices, once finalized
    bool finalized = false;

    const impl::graph_tensor_t &tensor(tensor_id id) const {
        return tensors.at(id);
    }
    bool is_caller(tensor_id id) const {
        return tensor(id).role != impl::role_t::internal;
    }
};

struct compiled_graph::impl_t {
    // Where a step's operand lives.
    enum class where_t {
        arena, // a buffer of the graph's own memory
        caller, // an input or output of the last forward
        diff_dst, // a gradient of an output, given to backward
        diff_src, // a gradient of an input, written by backward
    };
    struct ref_t {
        where_t where = where_t::arena;
        tensor_id id = 0; // all but arena
        int buffer = -1; // arena
        // The view: dims, strides and offset0 from the buffer's start.
        memory::desc md;
    };
    // A buffer of the arena; [first, last] are the steps that use it.
    struct buffer_t {
        memory::desc md;
        std::size_t size = 0, offset = 0;
        int first = -1, last = -1;
        std::string node, what; // for the memory report
        bool mask = false;
    };
    struct arg_t {
        int id; // DNNL_ARG_* for oneDNN steps, RNDNN_ARG_* for dropout
        ref_t ref;
    };
    // The softmax steps' operands beside RNDNN_ARG_SRC, _DST and _MASK.
    static constexpr int arg_probs = 1001; // backward's scores or probs
    static constexpr int arg_stats = 1002;
    struct step_t {
        std::string node, what, impl;
        bool backward = false;
        dnnl::primitive prim; // a oneDNN step, or
        dropout drop; // an rndnn dropout step, or
        // an rndnn softmax step (with a dropout or not)
        std::shared_ptr<impl::softmax_dropout_t> softmax;
        // Its generator range (dropout steps, fused softmax ones).
        int reservation = -1;
        std::vector<arg_t> args;
    };

    graph::impl_t g;
    compile_options options;
    int nthr = 1;
    std::vector<step_t> steps; // forward, then backward
    int n_forward = 0;
    std::vector<buffer_t> buffers;
    std::size_t arena_size = 0;
    memory arena;
    std::vector<dim_t> reservations; // mask elements of each dropout node

    // The state from forward to backward.
    std::unordered_map<tensor_id, memory> caller;
    bool forward_done = false;
    std::int64_t seed = 0;
    std::vector<std::int64_t> offsets; // one per reservation
    std::vector<step_time> times;
};

namespace impl {

// The compiler: lowering, gradients and the arena plan.

using ref_t = compiled_graph::impl_t::ref_t;

// One operand of a oneDNN step.
struct operand_t {
    int arg; // DNNL_ARG_*
    const char *name;
    ref_t ref;
    bool out;
};

// Creates a primitive descriptor for the operands' oneDNN descs, in the
// order of the operands; throws dnnl::error if oneDNN has none.
using make_pd_t = std::function<dnnl::primitive_desc_base(
        const std::vector<dnnl::memory::desc> &)>;

// Whether oneDNN's primitive is its reference implementation.
bool is_ref_impl(const dnnl::primitive_desc_base &pd);

// The oneDNN descriptors of forward steps, which backward steps share
// (lower.cpp).
make_pd_t matmul_pd(float scale);
make_pd_t binary_pd(dnnl::algorithm alg);
dnnl::eltwise_forward::primitive_desc eltwise_fwd_pd(dnnl::algorithm alg,
        float alpha, float beta, const dnnl::memory::desc &md);
make_pd_t eltwise_fwd(dnnl::algorithm alg, float alpha, float beta);
dnnl::softmax_forward::primitive_desc softmax_fwd_pd(
        int axis, const dnnl::memory::desc &md);
// Operands dst, diff_dst, diff_src.
make_pd_t softmax_bwd_pd(int axis);
dnnl::algorithm onednn_eltwise(eltwise_alg alg);

// The view of r with its last two dims swapped.
ref_t transposed(ref_t r);

// Turns a graph into steps and buffers: the forward steps in execution
// order, then the backward steps in the reverse order, then the arena.
class compiler_t {
public:
    explicit compiler_t(compiled_graph::impl_t &c) : c_(c), g_(c.g) {}

    void run();

private:
    using cimpl_t = compiled_graph::impl_t;
    using where_t = cimpl_t::where_t;
    using step_t = cimpl_t::step_t;

    // Analysis (compile.cpp): which tensors need gradients, which forward
    // values backward reads, which dropout outputs backward recomputes,
    // and the reservations.
    void analyze();
    bool needs_grad(tensor_id t) const { return grad_.count(t) != 0; }
    bool has_backward(const graph_node_t &n) const {
        return needs_grad(n.dst);
    }
    bool stores_mask(int i) const;
    // Softmax nodes fused with the dropout that reads them (fused_), and
    // the reverse map (fusing_).
    void find_fusions();
    dims noise_dims(const graph_node_t &n) const;

    // Buffers, references and steps; each node's forward (lower.cpp).
    ref_t buffer(const memory::desc &md, const std::string &what,
            bool mask = false);
    ref_t caller_ref(where_t where, tensor_id id) const;
    ref_t value(tensor_id t);
    void push(step_t s);
    [[noreturn]] void unimplemented(const std::string &what,
            const std::vector<operand_t> &ops, const std::string &why) const;
    void emit_reorder(
            const std::string &what, const ref_t &from, const ref_t &to);
    // oneDNN's primitive descriptor for the operands: over their layouts,
    // or dense ones where oneDNN does better with them; empty, with why
    // set, if oneDNN has none.
    dnnl::primitive_desc_base pick_pd(const std::vector<operand_t> &ops,
            const make_pd_t &make, std::string &why) const;
    void emit(const std::string &what, const std::vector<operand_t> &ops,
            const make_pd_t &make);
    void emit_dropout(int node, const std::string &what, prop_kind prop,
            const ref_t &src, const ref_t &dst, const ref_t *mask);
    // An rndnn softmax step of softmax node sm, with dropout node drop's
    // dropout (-1: none); p (backward's scores or probabilities), stats
    // and mask may be null.
    void emit_softmax(int sm, int drop, const std::string &what,
            bool backward, const ref_t &src, const ref_t &dst, const ref_t *p,
            const ref_t *stats, const ref_t *mask);
    bool in_place(const graph_node_t &n, tensor_id src, tensor_id dst) const;
    // Where a node writes its output: the caller's tensor, src's buffer
    // (in place) or a new buffer.
    ref_t output_of(const graph_node_t &n, tensor_id src);
    void forward(int i);
    void forward_fused(int sm, int drop);

    // Gradients; each node's backward (backward.cpp).
    struct grad_t {
        ref_t acc;
        bool has_acc = false, started = false;
    };
    ref_t acc(tensor_id t);
    ref_t grad_target(tensor_id t, const dims &full);
    void contribute(tensor_id t, ref_t r);
    ref_t diff(tensor_id t);
    dims batch_of(tensor_id t, const dims &full) const;
    void backward(int i);
    void backward_fused(int sm, int drop);

    // The arena (compile.cpp, with arena.hpp's planner).
    void plan_arena();

    cimpl_t &c_;
    const graph::impl_t &g_;
    const graph_node_t *cur_ = nullptr;
    bool backward_ = false;
    std::set<tensor_id> grad_, kept_, remat_;
    std::map<int, int> reservation_; // dropout node -> reservation
    std::map<tensor_id, ref_t> value_, recomputed_;
    std::map<int, ref_t> masks_; // dropout node -> its mask
    std::map<int, int> fused_, fusing_; // softmax <-> dropout node
    std::map<int, ref_t> stats_; // fused dropout node -> softmax stats
    std::map<tensor_id, grad_t> grads_;
};

} // namespace impl

} // namespace rndnn

#endif
