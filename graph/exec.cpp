// Execution of a compiled graph, and the plan's reports.
//
// Argument checks, the generator's reservations, the steps; the memory
// report, the step times and the step list.
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>

#include "graph/graph_impl.hpp"
#include "src/onednn.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;
using impl::role_t;

namespace {

using cimpl_t = compiled_graph::impl_t;
using where_t = cimpl_t::where_t;

// Checks a map of the caller's memories: the ids @p takes accepts, all of
// them present, each with its tensor's desc.
void check_map(const graph::impl_t &g,
        const std::unordered_map<tensor_id, memory> &m, const char *map,
        const std::function<bool(const impl::graph_tensor_t &)> &takes,
        const char *kind) {
    for (const auto &e : m) {
        auto it = g.tensors.find(e.first);
        if (it == g.tensors.end() || !takes(it->second))
            fail(status::invalid_arguments,
                    cat(map, ": tensor ", e.first, " is not ", kind));
        if (e.second.get_desc() != it->second.md)
            fail(status::invalid_arguments,
                    cat(map, ": memory ", e.second.get_desc().str(),
                            " does not match ",
                            impl::tensor_str(e.first, it->second.md)));
        if (!e.second.get_data_handle() && it->second.md.get_size() > 0)
            fail(status::invalid_arguments,
                    cat(map, ": tensor ", e.first, " memory has no data"));
    }
    for (const auto &e : g.tensors)
        if (takes(e.second) && !m.count(e.first))
            fail(status::invalid_arguments,
                    cat(map, ": ", impl::tensor_str(e.first, e.second.md),
                            " is missing"));
}

// The maps one run of steps reads.
struct run_ctx_t {
    cimpl_t &c;
    const std::unordered_map<tensor_id, memory> *diff_dst = nullptr;
    const std::unordered_map<tensor_id, memory> *diff_src = nullptr;

    void *base(const cimpl_t::ref_t &r) const {
        switch (r.where) {
            case where_t::arena:
                return static_cast<unsigned char *>(c.arena.get_data_handle())
                        + c.buffers[r.buffer].offset;
            case where_t::caller: return c.caller.at(r.id).get_data_handle();
            case where_t::diff_dst:
                return diff_dst->at(r.id).get_data_handle();
            case where_t::diff_src:
                return diff_src->at(r.id).get_data_handle();
        }
        return nullptr;
    }

    void run(int first, int last) const {
        const dnnl::engine &eng = impl::onednn_engine();
        dnnl::stream strm(eng);
        impl::omp_threads_guard_t guard(c.nthr);
        for (int i = first; i < last; ++i) {
            const cimpl_t::step_t &s = c.steps[i];
            const double t0 = impl::now_ms();
            if (s.softmax) {
                impl::softmax_dropout_args_t a;
                for (const auto &arg : s.args) {
                    void *b = base(arg.ref);
                    switch (arg.id) {
                        case RNDNN_ARG_SRC: a.src = b; break;
                        case RNDNN_ARG_DST: a.dst = b; break;
                        case cimpl_t::arg_probs: a.p = b; break;
                        case cimpl_t::arg_stats:
                            a.stats = static_cast<float *>(b);
                            break;
                        case RNDNN_ARG_MASK: a.mask = b; break;
                    }
                }
                if (s.reservation >= 0) {
                    a.seed = static_cast<uint64_t>(c.seed);
                    a.offset = c.offsets[s.reservation];
                }
                a.nthr = c.nthr;
                s.softmax->execute(a);
            } else if (s.reservation >= 0) {
                std::unordered_map<int, memory> args;
                for (const auto &a : s.args)
                    args[a.id] = memory(a.ref.md, base(a.ref));
                args[RNDNN_ARG_SEED] = memory::scalar(c.seed);
                args[RNDNN_ARG_OFFSET]
                        = memory::scalar(c.offsets[s.reservation]);
                s.drop.execute(stream(c.nthr), args);
            } else {
                std::unordered_map<int, dnnl::memory> args;
                for (const auto &a : s.args) {
                    const memory::desc &md = a.ref.md;
                    args[a.id] = dnnl::memory(impl::to_onednn(md), eng,
                            static_cast<unsigned char *>(base(a.ref))
                                    + md.get_offset0()
                                            * static_cast<dim_t>(dt_bits(
                                                      md.get_data_type())
                                                    / 8));
                }
                try {
                    s.prim.execute(strm, args);
                    strm.wait();
                } catch (const dnnl::error &e) {
                    fail(status::runtime_error,
                            cat("node '", s.node, "' ", s.what,
                                    ": oneDNN failed: ", e.what()));
                }
            }
            c.times[i].ms = impl::now_ms() - t0;
            if (impl::verbose_on(impl::verbose_t::profile))
                impl::verbose_print(impl::verbose_t::profile, "exec",
                        cat("graph,", s.node, ",", s.what, ",", s.impl, ",",
                                c.times[i].ms, "ms"));
        }
    }
};

} // namespace

compiled_graph::compiled_graph(std::shared_ptr<impl_t> impl)
    : impl_(std::move(impl)) {}

void compiled_graph::execute_forward(
        const std::unordered_map<tensor_id, memory> &tensors, generator &gen) {
    impl::verbose_errors("compiled_graph::execute_forward", [&] {
        impl_t &c = impl::checked(impl_, "empty compiled graph");
        check_map(c.g, tensors, "forward",
                [](const impl::graph_tensor_t &t) {
                    return t.role != role_t::internal;
                },
                "an input or output of the graph");
        generator g = gen;
        std::vector<std::int64_t> offsets;
        for (dim_t n : c.reservations)
            offsets.push_back(g.reserve(n));
        gen = g;
        c.offsets = offsets;
        c.seed = gen.get_seed();
        c.caller = tensors;
        c.forward_done = false;
        run_ctx_t {c}.run(0, c.n_forward);
        c.forward_done = true;
    });
}

void compiled_graph::execute_backward(
        const std::unordered_map<tensor_id, memory> &diff_dst,
        const std::unordered_map<tensor_id, memory> &diff_src) {
    impl::verbose_errors("compiled_graph::execute_backward", [&] {
        impl_t &c = impl::checked(impl_, "empty compiled graph");
        if (!c.options.training)
            fail(status::invalid_arguments,
                    "the plan is for inference: it has no backward");
        if (!c.forward_done)
            fail(status::invalid_arguments,
                    "backward needs a forward first (each backward consumes the "
                    "state of one forward)");
        check_map(c.g, diff_dst, "diff_dst",
                [](const impl::graph_tensor_t &t) {
                    return t.role == role_t::output;
                },
                "an output of the graph");
        check_map(c.g, diff_src, "diff_src",
                [](const impl::graph_tensor_t &t) {
                    return t.role == role_t::input && t.requires_grad;
                },
                "an input of the graph that requires a gradient");
        c.forward_done = false;
        run_ctx_t ctx {c, &diff_dst, &diff_src};
        ctx.run(c.n_forward, static_cast<int>(c.steps.size()));
    });
}

memory_report compiled_graph::get_memory_report() const {
    const impl_t &c = impl::checked(impl_, "empty compiled graph");
    memory_report r;
    for (const impl_t::buffer_t &b : c.buffers) {
        if (!(b.first < c.n_forward && b.last >= c.n_forward)) continue;
        r.held.push_back({b.node, b.what, b.md, b.size, false});
        (b.mask ? r.mask_bytes : r.activation_bytes) += b.size;
    }
    std::set<tensor_id> seen;
    for (int i = c.n_forward; i < static_cast<int>(c.steps.size()); ++i)
        for (const auto &a : c.steps[i].args) {
            if (a.ref.where != where_t::caller || !seen.insert(a.ref.id).second)
                continue;
            const impl::graph_tensor_t &t = c.g.tensor(a.ref.id);
            r.held.push_back({c.steps[i].node,
                    cat(t.role == role_t::input ? "input " : "output ",
                            a.ref.id),
                    t.md, t.md.get_size(), true});
            r.caller_bytes += t.md.get_size();
        }
    r.workspace_bytes = c.arena_size;
    return r;
}

std::string memory_report::str() const {
    std::ostringstream os;
    os << std::left << std::setw(16) << "node" << std::setw(22) << "held"
       << std::setw(28) << "tensor" << std::right << std::setw(12) << "bytes"
       << "\n";
    for (const entry &e : held)
        os << std::left << std::setw(16) << e.node << std::setw(22)
           << (e.caller ? e.what + " (caller)" : e.what) << std::setw(28)
           << e.md.str() << std::right << std::setw(12) << e.bytes << "\n";
    os << "masks " << mask_bytes << " B, activations " << activation_bytes
       << " B (graph's), caller's tensors " << caller_bytes
       << " B, graph memory " << workspace_bytes << " B\n";
    return os.str();
}

const std::vector<step_time> &compiled_graph::get_step_times() const {
    return impl::checked(impl_, "empty compiled graph").times;
}

std::string compiled_graph::str() const {
    const impl_t &c = impl::checked(impl_, "empty compiled graph");
    std::ostringstream os;
    for (size_t i = 0; i < c.steps.size(); ++i) {
        const impl_t::step_t &s = c.steps[i];
        os << (s.backward ? "bwd " : "fwd ") << std::left << std::setw(16)
           << s.node << std::setw(32) << s.what << s.impl << "\n";
    }
    return os.str();
}

} // namespace rndnn
