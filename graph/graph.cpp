// Declarations and checks: the graph's add_* calls and finalize().
//
// finalize() checks everything that relates tensors and nodes and fixes
// the execution order.
#include <algorithm>
#include <cmath>
#include <set>

#include "graph/graph_impl.hpp"
#include "pipeline/pipeline_utils.hpp"
#include "src/enums.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;
using impl::graph_node_t;
using impl::graph_tensor_t;
using impl::node_kind_t;
using impl::role_t;

namespace impl {

const char *node_kind2str(node_kind_t kind) {
    switch (kind) {
        case node_kind_t::matmul: return "matmul";
        case node_kind_t::softmax: return "softmax";
        case node_kind_t::dropout: return "dropout";
        case node_kind_t::eltwise: return "eltwise";
        case node_kind_t::binary: return "binary";
        case node_kind_t::reorder: return "reorder";
    }
    return "unknown";
}

std::string node_str(const graph_node_t &n) {
    return cat("node '", escape(n.name), "' (", node_kind2str(n.kind), ")");
}

std::string tensor_str(tensor_id id, const memory::desc &md) {
    return cat("tensor ", id, " (", md.str(), ")");
}

dropout::desc dropout_desc(const dropout_params &params, prop_kind prop,
        const memory::desc &src, const memory::desc &dst,
        const memory::desc &mask) {
    dropout::desc d;
    d.prop = prop;
    d.src = src;
    d.dst = dst;
    d.mask = mask;
    d.noise_shape = params.noise_shape;
    d.rate = params.rate;
    d.alg = params.alg;
    d.method = params.method;
    d.bits = params.bits;
    d.global_dims = params.global_dims;
    d.origin = params.origin;
    d.with_offset = true;
    return d;
}

memory::desc transposed(const memory::desc &md) {
    dims d = md.get_dims(), s = md.get_strides();
    const size_t n = d.size();
    std::swap(d[n - 1], d[n - 2]);
    std::swap(s[n - 1], s[n - 2]);
    return memory::desc(d, md.get_data_type(), s, md.get_offset0());
}

} // namespace impl

namespace {

void check_open(const graph::impl_t &g) {
    if (g.finalized)
        fail(status::invalid_arguments,
                "the graph is finalized: nothing can be added");
}

// What each node reads, named as its errors name them.
std::vector<const char *> src_names(node_kind_t kind) {
    switch (kind) {
        case node_kind_t::matmul: return {"a", "b"};
        case node_kind_t::binary: return {"src0", "src1"};
        default: return {"src"};
    }
}

// The checks of one node's dims, types and attributes; every message
// starts with the node.
class node_checker_t {
public:
    node_checker_t(const graph::impl_t &g, graph_node_t &n) : g_(g), n_(n) {}

    void check() {
        for (size_t i = 0; i < n_.src.size(); ++i)
            if (n_.kind != node_kind_t::reorder
                    && md(i).get_data_type() != dst().get_data_type())
                bad(cat(name(i), " ", md(i).str(), " and dst ", dst().str(),
                        " differ in type (a node's tensors share one type; "
                        "convert with a reorder node)"));
        switch (n_.kind) {
            case node_kind_t::matmul: matmul(); break;
            case node_kind_t::softmax: softmax(); break;
            case node_kind_t::dropout: dropout(); break;
            case node_kind_t::eltwise: eltwise(); break;
            case node_kind_t::binary: binary(); break;
            case node_kind_t::reorder: same_dims(0); break;
        }
    }

private:
    const memory::desc &md(size_t i) const {
        return g_.tensor(n_.src[i]).md;
    }
    const memory::desc &dst() const { return g_.tensor(n_.dst).md; }
    std::string name(size_t i) const { return src_names(n_.kind)[i]; }
    [[noreturn]] void bad(const std::string &what) const {
        fail(status::invalid_arguments, cat(impl::node_str(n_), ": ", what));
    }

    void same_dims(size_t i) const {
        if (md(i).get_dims() != dst().get_dims())
            bad(cat(name(i), " ", md(i).str(), " and dst ", dst().str(),
                    " differ in dims"));
    }

    void matmul() const {
        const matmul_params &a = n_.matmul;
        const int nd = dst().get_ndims();
        if (nd < 2 || md(0).get_ndims() != nd || md(1).get_ndims() != nd)
            bad(cat("a ", md(0).str(), ", b ", md(1).str(), " and dst ",
                    dst().str(), " must have one number of dims, >= 2"));
        const dims sa = (a.transpose_a ? impl::transposed(md(0)) : md(0))
                                .get_dims();
        const dims sb = (a.transpose_b ? impl::transposed(md(1)) : md(1))
                                .get_dims();
        const dims &sd = dst().get_dims();
        const std::string ops = cat("a ", md(0).str(),
                a.transpose_a ? " (transposed)" : "", " x b ", md(1).str(),
                a.transpose_b ? " (transposed)" : "");
        if (sa[nd - 1] != sb[nd - 2])
            bad(cat(ops, ": a has K=", sa[nd - 1], " but b has K=",
                    sb[nd - 2]));
        if (sd[nd - 2] != sa[nd - 2] || sd[nd - 1] != sb[nd - 1])
            bad(cat(ops, " is ", sa[nd - 2], "x", sb[nd - 1],
                    " per batch, not dst ", dst().str()));
        for (int d = 0; d < nd - 2; ++d)
            if ((sa[d] != sd[d] && sa[d] != 1)
                    || (sb[d] != sd[d] && sb[d] != 1))
                bad(cat(ops, ": batch dim ", d, " of a (", sa[d], ") and b (",
                        sb[d], ") must each equal dst's (", sd[d],
                        ") or be 1"));
        if (!std::isfinite(a.scale))
            bad(cat("scale ", a.scale, " is not finite"));
    }

    void softmax() {
        same_dims(0);
        const int nd = dst().get_ndims();
        if (n_.axis < -nd || n_.axis >= nd)
            bad(cat("axis ", n_.axis, " is outside [", -nd, ", ", nd, ")"));
        if (n_.axis < 0) n_.axis += nd;
        if (n_.softmax.causal && (nd < 2 || n_.axis != nd - 1))
            bad(cat("causal needs the last of 2 dims or more as the axis, "
                    "got axis ",
                    n_.axis, " of ", dst().str()));
    }

    void dropout() const {
        same_dims(0);
        // rndnn::dropout checks the rest and names the value.
        try {
            rndnn::dropout::primitive_desc pd(impl::dropout_desc(n_.dropout,
                    prop_kind::forward_training, md(0), dst(),
                    memory::desc()));
        } catch (const error &e) {
            if (e.status() != status::invalid_arguments) throw;
            bad(e.what());
        }
    }

    void eltwise() const {
        same_dims(0);
        if (!impl::is_enumerator(n_.eltwise))
            bad(cat("eltwise algorithm value ", static_cast<int>(n_.eltwise),
                    " is not an eltwise_alg"));
        if (!std::isfinite(n_.alpha) || !std::isfinite(n_.beta))
            bad(cat("alpha=", n_.alpha, " beta=", n_.beta, " is not finite"));
    }

    void binary() const {
        same_dims(0);
        if (!impl::is_enumerator(n_.binary))
            bad(cat("binary algorithm value ", static_cast<int>(n_.binary),
                    " is not a binary_alg"));
        try {
            impl::check_broadcast("src1", md(1).get_dims(), md(0).get_dims());
        } catch (const error &e) {
            bad(e.what());
        }
    }

    const graph::impl_t &g_;
    graph_node_t &n_;
};

// Reads and writes of declared tensors: every tensor used, written once,
// read only where something writes it.
void link(graph::impl_t &g) {
    for (auto &t : g.tensors) {
        t.second.producer = -1;
        t.second.readers.clear();
    }
    for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
        const graph_node_t &n = g.nodes[i];
        const auto names = src_names(n.kind);
        for (size_t s = 0; s < n.src.size(); ++s) {
            auto it = g.tensors.find(n.src[s]);
            if (it == g.tensors.end())
                fail(status::invalid_arguments,
                        cat(impl::node_str(n), " reads ", names[s],
                                " from tensor ", n.src[s],
                                ", which is not declared"));
            it->second.readers.push_back(i);
        }
        auto it = g.tensors.find(n.dst);
        if (it == g.tensors.end())
            fail(status::invalid_arguments,
                    cat(impl::node_str(n), " writes dst to tensor ", n.dst,
                            ", which is not declared"));
        graph_tensor_t &t = it->second;
        if (t.role == role_t::input)
            fail(status::invalid_arguments,
                    cat(impl::node_str(n), " writes input ",
                            impl::tensor_str(n.dst, t.md),
                            "; only the caller writes inputs"));
        if (t.producer >= 0)
            fail(status::invalid_arguments,
                    cat(impl::tensor_str(n.dst, t.md), " is written by ",
                            impl::node_str(g.nodes[t.producer]), " and by ",
                            impl::node_str(n)));
        t.producer = i;
    }
    for (const auto &e : g.tensors) {
        const graph_tensor_t &t = e.second;
        const std::string ts = impl::tensor_str(e.first, t.md);
        if (t.role != role_t::input && t.producer < 0) {
            if (!t.readers.empty())
                fail(status::invalid_arguments,
                        cat(impl::node_str(g.nodes[t.readers[0]]), " reads ",
                                ts,
                                ", which no node writes and which is not an "
                                "input (missing input)"));
            fail(status::invalid_arguments,
                    cat(t.role == role_t::output ? "output " : "", ts,
                            " is written by no node"));
        }
        if (t.role != role_t::output && t.readers.empty())
            fail(status::invalid_arguments,
                    cat(t.role == role_t::input ? "input " : "", ts,
                            " is read by no node",
                            t.role == role_t::internal
                                    ? " and is not an output"
                                    : ""));
    }
}

// Kahn's algorithm, the lowest node index first among the ready ones.
void sort_nodes(graph::impl_t &g) {
    const int n = static_cast<int>(g.nodes.size());
    std::vector<int> pending(n, 0);
    for (int i = 0; i < n; ++i)
        for (tensor_id s : g.nodes[i].src)
            if (g.tensor(s).producer >= 0) ++pending[i];
    std::set<int> ready;
    for (int i = 0; i < n; ++i)
        if (pending[i] == 0) ready.insert(i);
    g.order.clear();
    while (!ready.empty()) {
        const int i = *ready.begin();
        ready.erase(ready.begin());
        g.order.push_back(i);
        for (int r : g.tensor(g.nodes[i].dst).readers)
            if (--pending[r] == 0) ready.insert(r);
    }
    if (static_cast<int>(g.order.size()) == n) return;
    std::string names;
    for (int i = 0; i < n; ++i)
        if (pending[i] > 0)
            names += cat(names.empty() ? "" : ", ", "'", g.nodes[i].name, "'");
    fail(status::invalid_arguments,
            cat("the graph has a cycle through nodes ", names));
}

} // namespace

graph::graph() : impl_(std::make_shared<impl_t>()) {}

namespace {

void declare(graph::impl_t &g, tensor_id id, const memory::desc &md,
        role_t role, bool requires_grad) {
    check_open(g);
    const std::string what = cat("tensor ", id);
    if (g.tensors.count(id))
        fail(status::invalid_arguments,
                cat(impl::tensor_str(id, g.tensor(id).md),
                        " is already declared"));
    if (md.is_zero())
        fail(status::invalid_arguments,
                cat(what, ": the memory descriptor is empty"));
    if (md.is_host_scalar())
        fail(status::invalid_arguments,
                cat(what, " cannot be a host scalar"));
    if (md.get_data_type() != data_type::f32
            && md.get_data_type() != data_type::bf16)
        fail(status::invalid_arguments,
                cat(what, " has type ", dt2str(md.get_data_type()),
                        " (expected f32 or bf16)"));
    graph_tensor_t t;
    t.md = md;
    t.role = role;
    t.requires_grad = requires_grad;
    g.tensors.emplace(id, t);
}

void add_node(graph::impl_t &g, graph_node_t n) {
    check_open(g);
    if (n.name.empty())
        fail(status::invalid_arguments,
                cat("a ", impl::node_kind2str(n.kind),
                        " node needs a name"));
    for (const auto &o : g.nodes)
        if (o.name == n.name)
            fail(status::invalid_arguments,
                    cat("node name '", n.name, "' is taken by ",
                            impl::node_str(o)));
    g.nodes.push_back(std::move(n));
}

graph_node_t node(node_kind_t kind, const std::string &name,
        std::vector<tensor_id> src, tensor_id dst) {
    graph_node_t n;
    n.kind = kind;
    n.name = name;
    n.src = std::move(src);
    n.dst = dst;
    return n;
}

} // namespace

void graph::add_input(
        tensor_id id, const memory::desc &md, bool requires_grad) {
    declare(*impl_, id, md, role_t::input, requires_grad);
}

void graph::add_tensor(tensor_id id, const memory::desc &md) {
    declare(*impl_, id, md, role_t::internal, false);
}

void graph::add_output(tensor_id id, const memory::desc &md) {
    declare(*impl_, id, md, role_t::output, false);
}

void graph::add_matmul(const std::string &name, tensor_id a, tensor_id b,
        tensor_id dst, const matmul_params &params) {
    graph_node_t n = node(node_kind_t::matmul, name, {a, b}, dst);
    n.matmul = params;
    add_node(*impl_, n);
}

void graph::add_softmax(const std::string &name, tensor_id src, tensor_id dst,
        int axis, const softmax_params &params) {
    graph_node_t n = node(node_kind_t::softmax, name, {src}, dst);
    n.axis = axis;
    n.softmax = params;
    add_node(*impl_, n);
}

void graph::add_dropout(const std::string &name, tensor_id src, tensor_id dst,
        const dropout_params &params) {
    graph_node_t n = node(node_kind_t::dropout, name, {src}, dst);
    n.dropout = params;
    add_node(*impl_, n);
}

void graph::add_eltwise(const std::string &name, eltwise_alg alg,
        tensor_id src, tensor_id dst, float alpha, float beta) {
    graph_node_t n = node(node_kind_t::eltwise, name, {src}, dst);
    n.eltwise = alg;
    n.alpha = alpha;
    n.beta = beta;
    add_node(*impl_, n);
}

void graph::add_binary(const std::string &name, binary_alg alg,
        tensor_id src0, tensor_id src1, tensor_id dst) {
    graph_node_t n = node(node_kind_t::binary, name, {src0, src1}, dst);
    n.binary = alg;
    add_node(*impl_, n);
}

void graph::add_reorder(const std::string &name, tensor_id src, tensor_id dst) {
    add_node(*impl_, node(node_kind_t::reorder, name, {src}, dst));
}

void graph::finalize() {
    impl::verbose_errors("graph::finalize", [&] {
        check_open(*impl_);
        link(*impl_);
        for (graph_node_t &n : impl_->nodes)
            node_checker_t(*impl_, n).check();
        sort_nodes(*impl_);
        impl_->finalized = true;
    });
}

bool graph::is_finalized() const { return impl_->finalized; }

} // namespace rndnn
