// The graph's internals, shared by its construction and checks
// (graph.cpp), its compilation (compile.cpp) and its execution (exec.cpp).
#ifndef RNDNN_GRAPH_GRAPH_IMPL_HPP
#define RNDNN_GRAPH_GRAPH_IMPL_HPP

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

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
    struct step_t {
        std::string node, what, impl;
        bool backward = false;
        dnnl::primitive prim; // a oneDNN step, or
        dropout drop; // an rndnn dropout step
        int reservation = -1; // its generator range (dropout steps)
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

} // namespace rndnn

#endif
