// Compilation: runs the compiler's pieces over a finalized graph.
//
// The forward steps in execution order (lower.cpp), then the backward
// steps in the reverse order (backward.cpp), each a oneDNN primitive or
// an rndnn dropout created once; then the arena, one allocation that holds
// every internal tensor, mask, gradient and scratch buffer, placed by
// lifetime (arena.hpp).
#include <vector>

#include <omp.h>

#include "graph/arena.hpp"
#include "graph/graph_impl.hpp"
#include "src/onednn.hpp"
#include "src/enums.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {
namespace impl {

void compiler_t::run() {
    analyze();
    for (const auto &e : g_.tensors)
        if (e.second.role == role_t::input)
            value_[e.first] = caller_ref(where_t::caller, e.first);
    for (int i : g_.order) {
        cur_ = &g_.nodes[i];
        forward(i);
    }
    c_.n_forward = static_cast<int>(c_.steps.size());
    backward_ = true;
    for (auto it = g_.order.rbegin(); it != g_.order.rend(); ++it) {
        cur_ = &g_.nodes[*it];
        backward(*it);
    }
    plan_arena();
}

// Which tensors need gradients, which forward values backward reads,
// which dropout outputs backward recomputes, and the reservations.
void compiler_t::analyze() {
    for (const auto &e : g_.tensors)
        if (e.second.role == role_t::input && e.second.requires_grad
                && c_.options.training)
            grad_.insert(e.first);
    for (int i : g_.order) {
        const graph_node_t &n = g_.nodes[i];
        bool any = false;
        for (tensor_id s : n.src)
            any = any || needs_grad(s);
        if (any) grad_.insert(n.dst);
    }
    find_fusions();
    for (int i : g_.order) {
        const graph_node_t &n = g_.nodes[i];
        if (!has_backward(n)) continue;
        switch (n.kind) {
            case node_kind_t::binary:
                if (n.binary == binary_alg::add) break;
                // Mul's gradients read the other operand, as matmul's.
                [[fallthrough]];
            case node_kind_t::matmul:
                if (needs_grad(n.src[0])) kept_.insert(n.src[1]);
                if (needs_grad(n.src[1])) kept_.insert(n.src[0]);
                break;
            case node_kind_t::softmax:
                // Fused, backward rebuilds the probabilities from the
                // scores.
                kept_.insert(fused_.count(i) ? n.src[0] : n.dst);
                break;
            case node_kind_t::eltwise:
                if (n.eltwise != eltwise_alg::linear)
                    kept_.insert(n.src[0]);
                break;
            case node_kind_t::dropout:
            case node_kind_t::reorder: break;
        }
    }
    for (int i : g_.order) {
        const graph_node_t &n = g_.nodes[i];
        if (n.kind != node_kind_t::dropout) continue;
        reservation_[i] = static_cast<int>(c_.reservations.size());
        // The global mask's elements (the block's without a window).
        const dims &global = n.dropout.global_dims.empty()
                ? g_.tensor(n.dst).md.get_dims()
                : n.dropout.global_dims;
        dim_t count = c_.options.training ? 1 : 0;
        for (dim_t d : n.dropout.noise_shape.empty() ? global
                                                    : n.dropout.noise_shape)
            count *= d;
        c_.reservations.push_back(count);
        const auto f = fusing_.find(i);
        const tensor_id x = f == fusing_.end() ? n.src[0]
                                               : g_.nodes[f->second].src[0];
        const tensor_id y = n.dst;
        if (c_.options.recompute_dropout_output && kept_.count(y)
                && !g_.is_caller(y) && (kept_.count(x) || g_.is_caller(x)))
            remat_.insert(y);
    }
}

// A softmax along the last dim whose output only a dropout reads, in a
// training plan, when the options allow; not when the noise shape
// broadcasts (the kernel draws a row's mask as one range).
void compiler_t::find_fusions() {
    if (!c_.options.training || !c_.options.fuse_softmax_dropout) return;
    for (int i : g_.order) {
        const graph_node_t &n = g_.nodes[i];
        if (n.kind != node_kind_t::softmax) continue;
        const graph_tensor_t &p = g_.tensor(n.dst);
        if (n.axis != g_.tensor(n.src[0]).md.get_ndims() - 1
                || p.role != role_t::internal || p.readers.size() != 1)
            continue;
        const int j = p.readers[0];
        const graph_node_t &d = g_.nodes[j];
        if (d.kind != node_kind_t::dropout) continue;
        const dims &global = d.dropout.global_dims.empty()
                ? p.md.get_dims()
                : d.dropout.global_dims;
        if (!d.dropout.noise_shape.empty() && d.dropout.noise_shape != global)
            continue;
        fused_[i] = j;
        fusing_[j] = i;
    }
}

bool compiler_t::stores_mask(int i) const {
    const graph_node_t &n = g_.nodes[i];
    return c_.options.masks != mask_mode::recompute
            && (has_backward(n) || remat_.count(n.dst));
}

dims compiler_t::noise_dims(const graph_node_t &n) const {
    // The block's mask: the data's dims, 1 where the noise shape has 1.
    dims d = g_.tensor(n.dst).md.get_dims();
    for (size_t j = 0; j < d.size() && j < n.dropout.noise_shape.size(); ++j)
        if (n.dropout.noise_shape[j] == 1) d[j] = 1;
    return d;
}

// Places the buffers in one arena by their lifetimes, the steps that
// use them (graph/arena.hpp).
void compiler_t::plan_arena() {
    for (int i = 0; i < static_cast<int>(c_.steps.size()); ++i)
        for (const auto &a : c_.steps[i].args) {
            if (a.ref.where != where_t::arena) continue;
            cimpl_t::buffer_t &b = c_.buffers[a.ref.buffer];
            if (b.first < 0) b.first = i;
            b.last = i;
        }
    std::vector<arena_buffer_t> lifetimes;
    for (const cimpl_t::buffer_t &b : c_.buffers)
        lifetimes.push_back({b.size, b.first, b.last});
    const arena_plan_t plan = impl::plan_arena(lifetimes);
    for (size_t i = 0; i < c_.buffers.size(); ++i)
        c_.buffers[i].offset = plan.offsets[i];
    c_.arena_size = plan.size;
    if (c_.arena_size > 0)
        c_.arena = memory(memory::desc(
                {static_cast<dim_t>(c_.arena_size)}, data_type::u8));
}

} // namespace impl

using impl::cat;
using impl::fail;

compiled_graph graph::compile(const compile_options &options) const {
    return impl::verbose_errors("graph::compile", [&] {
        if (!impl_->finalized)
            fail(status::invalid_arguments,
                    "the graph is not finalized: call finalize() before "
                    "compile()");
        if (options.threads < 0)
            fail(status::invalid_arguments,
                    cat("threads=", options.threads, " is negative"));
        impl::check_enum(options.masks, "mask mode", "mask_mode");
        const double t0 = impl::now_ms();
        auto c = std::make_shared<compiled_graph::impl_t>();
        c->g = *impl_;
        c->options = options;
        c->nthr = options.threads > 0 ? options.threads : omp_get_max_threads();
        {
            impl::omp_threads_guard_t guard(c->nthr);
            impl::compiler_t(*c).run();
        }
        c->offsets.assign(c->reservations.size(), 0);
        for (const compiled_graph::impl_t::step_t &s : c->steps)
            c->times.push_back({s.node, s.what, s.backward, s.impl, 0.0});
        impl::verbose_print(impl::verbose_t::dispatch, "create",
                cat("graph,compiled,steps=", c->steps.size(), ",masks=",
                        mask_mode2str(options.masks), ",arena=", c->arena_size,
                        "B,", impl::now_ms() - t0, "ms"));
        return compiled_graph(c);
    });
}

} // namespace rndnn
