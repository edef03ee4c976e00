/// @file
/// Graphs that train: matmul, softmax, dropout, eltwise, binary and reorder
/// nodes over logical tensors, compiled once into oneDNN primitives and
/// rndnn dropout primitives, then run forward and backward many times,
/// each dropout node drawing its own range of a generator's stream
/// (rndnn/generator.hpp). Semantics and the attention example: docs/graph.md.
#ifndef RNDNN_GRAPH_HPP
#define RNDNN_GRAPH_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rndnn/attr.hpp"
#include "rndnn/binary.hpp"
#include "rndnn/common.hpp"
#include "rndnn/enums.hpp"
#include "rndnn/generator.hpp"
#include "rndnn/memory.hpp"
#include "rndnn/rng.hpp"

namespace rndnn {

/// Identifies a tensor of a graph; the caller picks the values.
using tensor_id = std::size_t;

/// A matmul node: dst = scale * op(a) x op(b), op transposing the last two
/// dims when asked. a is [batch..., M, K] after op, b [batch..., K, N], dst
/// [batch..., M, N]; a and b have dst's number of dims (>= 2), and each
/// batch dim of a and b equals dst's or is 1 (broadcast).
struct matmul_params {
    bool transpose_a = false;
    bool transpose_b = false;
    float scale = 1.f; ///< finite
};
/// A dropout node: as rndnn::dropout (docs/dropout.md) with the node's
/// range of the generator's stream as its offset.
struct dropout_params {
    double rate = 0.5; ///< in [0, 1]
    /// Each dim equals the data's or is 1; empty: the data's dims.
    dims noise_shape;
    rng_alg alg = rng_alg::philox4x32_10;
    bernoulli_method method = bernoulli_method::automatic;
    int bits = 1; ///< bitsliced: in [1, 32]
    /// A window (docs/distributed.md), as rndnn::dropout's: the node's data
    /// is the block at `origin` of a tensor of dims `global_dims`, its mask
    /// the matching block of the global mask, and noise_shape is the global
    /// tensor's. The node reserves the global mask's element count, so that
    /// ranks that each run one block draw from generators that stay equal.
    /// Empty (the default): the data is the whole tensor.
    dims global_dims, origin;
};

/// A softmax node's options.
struct softmax_params {
    /// Masks future positions: along the last dim (the softmax's axis must
    /// be it), row i of each matrix (i: the index along the dim before the
    /// last) gives probability 0 to columns j > i, as torch's
    /// scaled_dot_product_attention(is_causal=True). Needs 2 dims or more.
    bool causal = false;
};

class compiled_graph;

/// How compile() builds a graph's plan.
struct compile_options {
    /// false: an inference plan. Dropout is the identity, nothing is kept
    /// for backward, forward reserves nothing from the generator, and
    /// execute_backward() is an error.
    bool training = true;
    mask_mode masks = mask_mode::bit;
    /// OpenMP threads of every primitive, >= 1; 0: OpenMP's default
    /// (omp_get_max_threads()). oneDNN sizes its work split when it creates
    /// a primitive, so the count is fixed here rather than per execution.
    /// Results never depend on it for dropout; oneDNN's may differ in the
    /// last bits between thread counts.
    int threads = 0;
    /// Backward recomputes a dropout node's output from its input instead
    /// of keeping it, where the input is kept anyway (attention: the
    /// softmax output) or is the caller's: one activation less held between
    /// forward and backward, for one more pass over it in backward.
    bool recompute_dropout_output = false;
    /// A softmax along the last dim whose only reader is a dropout (the
    /// attention probabilities) runs with it as one rndnn kernel, forward
    /// and backward (docs/attention.md): forward writes only the dropped
    /// probabilities and 8 bytes a row, backward rebuilds the
    /// probabilities from the scores, which it keeps instead. The masks are
    /// the two nodes' bit for bit. false: two nodes, oneDNN's softmax and
    /// rndnn's dropout (to compare).
    bool fuse_softmax_dropout = true;
};

/// A graph of operations over logical tensors.
///
/// Declare tensors (inputs, internal tensors, outputs) and nodes in any
/// order, then finalize() checks the whole graph and compile() builds a
/// plan that runs it forward and backward.
///
/// Tensors: a memory::desc gives the dims, the type (f32 or bf16) and the
/// layout (any strides and offset0). Every node but reorder reads and
/// writes one data type; reorder converts types and layouts.
class RNDNN_API graph {
public:
    graph();

    /// Declares an input: the caller's memory, passed to each forward.
    /// @param requires_grad backward writes its gradient (else it is not
    ///     computed).
    /// @throws error (invalid_arguments) naming the tensor if @p id is
    ///     already declared, @p md is empty or a host scalar, its type is
    ///     not f32 or bf16, or the graph is finalized.
    void add_input(tensor_id id, const memory::desc &md,
            bool requires_grad = true);
    /// Declares an internal tensor: a node writes it into the graph's own
    /// memory. Same errors as add_input().
    void add_tensor(tensor_id id, const memory::desc &md);
    /// Declares an output: a node writes it into the caller's memory, and
    /// backward takes its gradient. Other nodes may read it too. Same
    /// errors as add_input().
    void add_output(tensor_id id, const memory::desc &md);

    /// Adds nodes. @p name identifies the node in errors and reports.
    /// @throws error (invalid_arguments) if @p name is empty or taken, or
    ///     the graph is finalized. Everything else is checked by finalize().
    void add_matmul(const std::string &name, tensor_id a, tensor_id b,
            tensor_id dst, const matmul_params &params = matmul_params());
    /// softmax along @p axis, in [-ndims, ndims) (negative from the end).
    /// Its backward is oneDNN's, or rndnn's where oneDNN has only its
    /// reference (softmax backward below AVX-512) or the softmax is causal.
    void add_softmax(const std::string &name, tensor_id src, tensor_id dst,
            int axis, const softmax_params &params = softmax_params());
    void add_dropout(const std::string &name, tensor_id src, tensor_id dst,
            const dropout_params &params);
    /// @p alpha and @p beta as eltwise_alg describes (finite).
    void add_eltwise(const std::string &name, eltwise_alg alg, tensor_id src,
            tensor_id dst, float alpha = 0.f, float beta = 0.f);
    /// dst = src0 op src1; src1 broadcasts to src0's dims (each dim equal or
    /// 1); dst has src0's dims.
    void add_binary(const std::string &name, binary_alg alg, tensor_id src0,
            tensor_id src1, tensor_id dst);
    /// Copies src into dst's type and layout (same dims).
    void add_reorder(const std::string &name, tensor_id src, tensor_id dst);

    /// Checks the graph and fixes its execution order (a topological order
    /// that keeps the order of addition where it may).
    /// @throws error (invalid_arguments) naming the node and the tensor: a
    ///     tensor a node reads or writes that is not declared, a tensor read
    ///     that no node writes and that is not an input, a tensor written by
    ///     two nodes or that is an input, an output no node writes, a tensor
    ///     declared but never used, dims or types that do not fit the node,
    ///     a bad attribute (axis, rate, noise shape, scale), or a cycle
    ///     (naming its nodes).
    void finalize();
    bool is_finalized() const;

    /// Creates every primitive of forward and backward, the reorders where
    /// a tensor's layout is not the one a primitive takes, and the graph's
    /// memory. The graph may be compiled several times (one plan each).
    /// @throws error (invalid_arguments) if the graph is not finalized or
    ///     options.threads is negative.
    /// @throws error (unimplemented) naming the node if oneDNN has no
    ///     implementation (bf16 on a CPU without AVX-512, for one).
    compiled_graph compile(const compile_options &options = {}) const;

    /// The graph's state: opaque, defined in the library.
    struct RNDNN_INTERNAL impl_t;

private:
    std::shared_ptr<impl_t> impl_;
};

/// Time of one step of the last execution.
struct step_time {
    /// the node the step belongs to; "softmax+dropout" (the two nodes'
    /// names): a softmax and its dropout fused (compile_options)
    std::string node;
    /// "forward", "backward", "backward a", "recompute output",
    /// "reorder src", "add gradient of t3"...
    std::string step;
    bool backward = false;
    std::string impl; ///< "onednn:brg:avx512_core", "rndnn:fused:jit:avx2"
    double ms = 0; ///< wall time, milliseconds
};

/// Memory a plan holds between forward and backward.
struct RNDNN_API memory_report {
    struct entry {
        std::string node; ///< the node whose output or mask it is
        /// "mask", "dst", "dst (in place)", "input 2", "output 5"
        std::string what;
        memory::desc md;
        std::size_t bytes = 0;
        /// The caller's memory (an input or output that backward reads),
        /// not the graph's.
        bool caller = false;
    };
    std::vector<entry> held;
    std::size_t mask_bytes = 0; ///< dropout masks the graph holds
    std::size_t activation_bytes = 0; ///< saved activations the graph holds
    std::size_t caller_bytes = 0; ///< the caller's tensors backward reads
    /// All of the graph's own memory: held tensors and the scratch of
    /// forward and backward, which share one buffer.
    std::size_t workspace_bytes = 0;
    /// @returns a table, one line per entry, then the totals.
    std::string str() const;
};

/// A compiled plan: primitives, reorders and memory created once.
///
/// Not safe to execute from two threads at once: it holds the state from
/// forward to backward.
class RNDNN_API compiled_graph {
public:
    compiled_graph() = default;

    /// Runs forward. Each dropout node, in execution order, reserves its
    /// mask element count from @p gen.
    /// @param tensors the memory of every input and output, by id; each
    ///     desc must equal the declared one. The graph keeps these handles
    ///     for backward: inputs and outputs that backward reads must stay
    ///     unchanged until then.
    /// @throws error (invalid_arguments) naming the tensor if one is
    ///     missing, does not match, or is not an input or output; nothing
    ///     runs and @p gen is unchanged then.
    /// @throws error (runtime_error) naming the node if oneDNN fails.
    /// @throws error (out_of_memory) if a kernel's scratch cannot be
    ///     allocated (as every public call turns std::bad_alloc; common.hpp).
    void execute_forward(const std::unordered_map<tensor_id, memory> &tensors,
            generator &gen);

    /// Runs backward for the last forward, with the same masks.
    /// @param diff_dst the gradient of every output, by id (the output's
    ///     desc).
    /// @param diff_src where to write the gradient of every input that
    ///     requires it, by id (the input's desc); gradients of an input read
    ///     by several nodes are summed.
    /// @throws error (invalid_arguments) naming the tensor if one is
    ///     missing, does not match, or is not one that the map takes; or if
    ///     no forward ran since the last backward (a backward consumes the
    ///     forward's state), or the plan is for inference.
    void execute_backward(const std::unordered_map<tensor_id, memory> &diff_dst,
            const std::unordered_map<tensor_id, memory> &diff_src);

    /// @returns the memory this plan holds between forward and backward.
    memory_report get_memory_report() const;
    /// @returns the steps of the last forward and backward, in order, with
    ///     their times (0 before the first execution).
    const std::vector<step_time> &get_step_times() const;
    /// @returns the plan, one step a line: node, step, implementation.
    std::string str() const;

    /// The plan's state: opaque, defined in the library.
    struct RNDNN_INTERNAL impl_t;

private:
    /// Only graph::compile() makes a plan from its state.
    friend class graph;
    explicit compiled_graph(std::shared_ptr<impl_t> impl);
    std::shared_ptr<impl_t> impl_;
};

} // namespace rndnn

#endif
