// `rndnn dropout`: dropout forward (training) or backward on .npy files,
// with the keep mask written, read back, or recomputed from the RNG; in
// bounded pieces, and under mpirun each rank its share of the files
// (docs/distributed.md).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include "common/cli_common.hpp"
#include "problems/problem_dropout.hpp"
#include "job/rng_pieces.hpp"
#include "job/sharded_file.hpp"

namespace rndnn_cli {

namespace {

using rndnn::data_type;

// "2x1x8", as --shape is written; "()" for a 0-d array.
std::string shape_str(const rndnn::dims &shape) {
    if (shape.empty()) return "()";
    std::string s;
    for (const rndnn::dim_t d : shape)
        s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

// Copies @p n bits from bit @p from of @p src to bit @p to of @p dst
// (LSB first), leaving dst's other bits alone.
void copy_bits(const uint8_t *src, std::int64_t from, uint8_t *dst,
        std::int64_t to, std::int64_t n) {
    if (from % 8 == 0 && to % 8 == 0) {
        std::memcpy(dst + to / 8, src + from / 8, static_cast<size_t>(n / 8));
        from += n / 8 * 8;
        to += n / 8 * 8;
        n %= 8;
    }
    for (std::int64_t i = 0; i < n; ++i, ++from, ++to) {
        const auto bit = static_cast<uint8_t>(1u << (to % 8));
        if (src[from / 8] >> (from % 8) & 1) dst[to / 8] |= bit;
        else dst[to / 8] = static_cast<uint8_t>(dst[to / 8] & ~bit);
    }
}

// The dims of a box of the block's mask: the data box's, 1 where the
// noise shape broadcasts; its origin 0 there.
box_t mask_box(const box_t &data, const rndnn::dims &block_mask) {
    box_t m = data;
    for (size_t j = 0; j < m.dims.size(); ++j)
        if (block_mask[j] == 1) {
            m.origin[j] = 0;
            m.dims[j] = 1;
        }
    return m;
}

// One run of `rndnn dropout`: the whole problem, checked, and how the
// block of --in is cut into pieces that run as windows of the global
// tensor (docs/distributed.md).
struct dropout_run_t {
    rndnn::dropout::desc whole; // the block of --in as the user gave it
    rndnn::dims block, global, origin; // the block at origin of global
    rndnn::dims block_mask; // the block's mask dims (whole.mask's)
    rndnn::data_type mask_dt = rndnn::data_type::undef; // the file's
    stream_options_t so;

    // The problem of the data box @p b of the block: a window of the
    // global tensor; with a mask of type @p mdt (undef: none).
    rndnn::dropout::desc piece(const box_t &b, rndnn::data_type mdt) const {
        rndnn::dropout::desc d = whole;
        d.src = d.dst = rndnn::memory::desc(b.dims, whole.src.get_data_type());
        d.global_dims = global;
        d.origin = origin;
        for (size_t j = 0; j < b.origin.size(); ++j)
            d.origin[j] += b.origin[j];
        d.mask = mdt == rndnn::data_type::undef
                ? rndnn::memory::desc()
                : rndnn::memory::desc(mask_box(b, block_mask).dims, mdt);
        return d;
    }

    void execute(const rndnn::dropout::desc &d, void *data, void *mask,
            const rndnn::stream &strm) const {
        const bool bwd = d.prop == rndnn::prop_kind::backward;
        rndnn::memory mem(d.src, data);
        std::unordered_map<int, rndnn::memory> args
                = {{bwd ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC, mem},
                        {bwd ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST, mem}};
        if (!d.mask.is_zero()) args[RNDNN_ARG_MASK] = rndnn::memory(d.mask, mask);
        if (d.with_offset) {
            args[RNDNN_ARG_SEED] = rndnn::memory::scalar(so.seed);
            args[RNDNN_ARG_OFFSET] = rndnn::memory::scalar(so.offset);
            args[RNDNN_ARG_STREAM] = rndnn::memory::scalar(so.stream_id);
        }
        rndnn::dropout(rndnn::dropout::primitive_desc(d)).execute(strm, args);
    }
};

// The data pass: every rank reads its block of --in piece by piece, runs
// dropout on the piece as a window of the global tensor (with its part of
// --mask-in where given) and writes it to --out.
void run_data(const dropout_run_t &r, sharded_input &in, sharded_input *mask_in,
        sharded_output &out, split_t split, std::int64_t chunk_bytes,
        progress_t &progress) {
    job_t &job = job_t::get();
    const rndnn::stream strm(r.so.threads);
    const auto esize = static_cast<std::int64_t>(
            rndnn::memory::desc({1}, r.whole.src.get_data_type()).get_size());
    const box_t share = rank_box(r.block, split, job.rank(), job.size());
    // Pieces of many rows, but at most 65536 rows: bounded ranges.
    std::int64_t row = 1;
    {
        piece_iterator runs(r.block, share, std::numeric_limits<std::int64_t>::max());
        piece_t first;
        if (runs.next(first)) row = first.count;
    }
    const std::int64_t max_elems = std::max<std::int64_t>(1,
            std::min(chunk_bytes / esize, row * 65536));
    piece_iterator pieces(r.block, share, max_elems, false);
    const auto buf = aligned_buffer(max_elems * esize);
    const bool bit_mask = r.mask_dt == rndnn::data_type::bit;
    // Ranks read one byte of --mask-in where it holds bits of several
    // ranks' blocks, and one element where the noise shape broadcasts it
    // over several ranks' blocks.
    const overlap_t mask_overlap = bit_mask || r.block_mask != r.block
            ? overlap_t::possible
            : overlap_t::none;
    std::vector<uint8_t> mask_file, mask; // the piece's span and its own

    while (true) {
        piece_t p;
        bool have = false;
        std::vector<byte_range_t> data_ranges, mask_ranges;
        std::vector<byte_range_t> bits; // a bit mask's runs, in bits
        std::int64_t span_first = 0; // a bit mask's first byte read
        const bool any = job.agree_any([&] {
            have = pieces.next(p);
            if (!have) return false;
            append_box_ranges(r.block, p.box, esize, data_ranges);
            if (!mask_in) return true;
            const box_t mb = mask_box(p.box, r.block_mask);
            if (bit_mask) {
                // The bytes that hold the box's bits, gaps included (other
                // ranks' bits): bit masks are small.
                append_box_ranges(r.block_mask, mb, 1, bits);
                span_first = bits.front().offset / 8;
                const std::int64_t end
                        = (bits.back().offset + bits.back().bytes + 7) / 8;
                mask_ranges.push_back({span_first, end - span_first});
            } else {
                append_box_ranges(r.block_mask, mb, 1, mask_ranges);
            }
            std::int64_t bytes = 0;
            for (const byte_range_t &m : mask_ranges)
                bytes += m.bytes;
            mask_file.resize(static_cast<size_t>(bytes));
            return true;
        });
        if (!any) break;
        in.read(data_ranges, buf.get(), overlap_t::none);
        if (mask_in) mask_in->read(mask_ranges, mask_file.data(), mask_overlap);
        job.agree([&] {
            if (!have) return;
            const rndnn::dropout::desc d
                    = r.piece(p.box, mask_in ? r.mask_dt : rndnn::data_type::undef);
            if (mask_in && bit_mask) {
                // The box's bits, packed from bit 0.
                mask.assign(d.mask.get_size(), 0);
                std::int64_t at = 0;
                for (const byte_range_t &b : bits) {
                    copy_bits(mask_file.data(), b.offset - span_first * 8,
                            mask.data(), at, b.bytes);
                    at += b.bytes;
                }
            }
            r.execute(d, buf.get(),
                    bit_mask ? static_cast<void *>(mask.data()) : mask_file.data(),
                    strm);
        });
        out.write(data_ranges, buf.get());
        for (const byte_range_t &b : data_ranges)
            progress.add(b.bytes);
    }
}

// The mask pass (forward with --mask-out): the block's mask, written as
// `rndnn gen` writes a tensor: the RNG problem of dropout's keep mask
// (dropout::keep_post_ops) over the block's window of the global mask.
void run_mask(const dropout_run_t &r, sharded_output &out, split_t split,
        std::int64_t chunk_bytes, progress_t &progress) {
    rng_problem_t mask;
    static_cast<rndnn::draw_desc &>(mask.desc) = r.whole;
    mask.desc.dst = rndnn::memory::desc(r.block_mask, r.mask_dt);
    mask.desc.with_offset = true;
    // The global mask: the noise shape (the global data's without one),
    // and the block's origin in it (0 where the noise broadcasts).
    mask.desc.global_dims
            = r.whole.noise_shape.empty() ? r.global : r.whole.noise_shape;
    mask.desc.origin = r.origin;
    for (size_t j = 0; j < r.origin.size(); ++j)
        if (mask.desc.global_dims[j] == 1) mask.desc.origin[j] = 0;
    mask.attr.set_post_ops(rndnn::dropout::keep_post_ops(r.whole));
    mask.so = r.so;
    rng_pieces pieces(mask);
    write_share(out, r.block_mask, r.mask_dt, split, chunk_bytes, progress,
            std::ref(pieces));
}

// Everything `rndnn dropout` was asked, checked.
struct dropout_args_t {
    dropout_problem_t problem;
    bool backward = false;
    std::string in, out, mask_in, mask_out; // empty: not given
    piece_options_t pieces;
};

// Checks the header of --mask-in against the mask descriptor @p md (the
// noise shape, bit or u8): a bit mask is stored as its packed bytes (u8 of
// shape ceil(n/8)), a u8 mask as bytes of the noise shape (the library
// keeps an element where the byte is not 0).
// @throws usage_error naming both shapes.
void check_mask_header(const sharded_input &in, const std::string &path,
        const rndnn::memory::desc &md) {
    const rndnn::npy::header_t &a = in.header();
    const bool packed = md.get_data_type() == data_type::bit;
    const rndnn::dims want = packed
            ? rndnn::dims {static_cast<rndnn::dim_t>(md.get_size())}
            : md.get_dims();
    if (a.dt != data_type::u8 || a.shape != want)
        throw usage_error("--mask-in '" + path + "' holds "
                + rndnn::dt2str(a.dt) + " of shape " + shape_str(a.shape)
                + ", but a " + (packed ? "bit" : "u8") + " mask of noise shape "
                + shape_str(md.get_dims()) + " is u8 of shape "
                + shape_str(want)
                + (packed ? " (8 elements a byte; --mask-dtype u8 reads a byte "
                            "an element)"
                          : " (--mask-dtype bit reads packed bits)"));
}

const char *const usage
        = "rndnn dropout --in X.npy --out Y.npy --rate R [options]\n"
          "       rndnn dropout --backward --in DY.npy --out DX.npy --rate R"
          " [--mask-in M.npy | RNG options]\n"
          "       mpirun -np K rndnn dropout ... [--split rows|cols|blocks]";

// The options that only pick the random stream: not used with --mask-in.
const char *const rng_flags[]
        = {"alg", "method", "seed", "offset", "stream", "name"};

po::options_description dropout_options() {
    po::options_description desc = options_with_help();
    auto opt = desc.add_options();
    opt("in", text(),
            "input .npy: f32 (<f4), f16 (<f2) or bf16 (<u2, raw bits); src, "
            "or diff_dst with --backward (required)");
    opt("out", text(),
            "output .npy of the type and shape of --in: dst, or diff_src "
            "with --backward (required)");
    opt("mask-out", text(), "forward: also write the keep mask to this .npy");
    opt("mask-in", text(),
            "backward: read the keep mask from this .npy instead of "
            "recomputing it");
    // The problem: the same options as `rndnn bench --prim dropout`.
    add_dropout_problem_options(desc, dropout_cli_t::subcommand);
    add_piece_options(desc);
    return desc;
}

// Parses the command line into @p a and checks every flag as far as it
// can be without the data, before a file is read; a rank's part of the
// first agreement of dropout_main().
// @returns false where --help printed the help.
// @throws usage_error, po::error or rndnn::error naming the bad value.
bool parse_dropout_args(int argc, char **argv,
        const po::options_description &desc, dropout_args_t &a) {
    using std::string;
    po::variables_map vm;
    if (!parse_options(argc, argv, desc, usage, vm)) return false;
    const bool backward = vm.count("backward") > 0;
    // The one check of a missing --rate: parse_dropout_problem() gets no
    // default for it.
    for (const char *f : {"in", "out", "rate"})
        if (!vm.count(f)) throw usage_error(string("--") + f + " is required");
    const string in = vm["in"].as<string>();
    const string out = vm["out"].as<string>();
    for (const char *f : {"in", "out", "mask-in", "mask-out"})
        if (vm.count(f) && vm[f].as<string>().empty())
            throw usage_error(string("--") + f + " '' names no file");
    const bool mask_in = vm.count("mask-in") > 0;
    const bool mask_out = vm.count("mask-out") > 0;
    if (mask_in && !backward)
        throw usage_error("--mask-in is only used with --backward");
    if (mask_out && backward)
        throw usage_error("--mask-out is only used without --backward");
    if (given(vm, "mask-dtype") && !mask_in && !mask_out)
        throw usage_error(
                "--mask-dtype is only used with --mask-out or --mask-in");
    if (mask_in)
        for (const char *f : rng_flags)
            if (given(vm, f))
                throw usage_error(string("--") + f
                        + " is not used with --mask-in: the mask is read, "
                          "not recomputed");
    // --out may name --in (the output replaces it once written whole); no
    // other two files may be one.
    if (mask_out) {
        const string m = vm["mask-out"].as<string>();
        check_distinct({{"--out", out}, {"--mask-out", m}});
        check_distinct({{"--in", in}, {"--mask-out", m}});
    }
    if (mask_in) check_distinct({{"--mask-in", vm["mask-in"].as<string>()},
            {"--out", out}});

    const dropout_problem_t problem = parse_dropout_problem(vm, {});
    if (problem.mask_dtype_given && problem.mask_dt == data_type::undef)
        throw usage_error(string("--mask-dtype none stores no mask, but ")
                + (mask_in ? "--mask-in" : "--mask-out") + " names one");
    a.pieces = parse_piece_options(vm);
    if (job_t::get().distributed() && !problem.desc.global_dims.empty())
        throw usage_error("--global-shape is not used under mpirun: --split "
                          "cuts the tensor into the ranks' blocks");
    a.problem = problem;
    a.backward = backward;
    a.mask_in = mask_in ? vm["mask-in"].as<string>() : "";
    a.mask_out = mask_out ? vm["mask-out"].as<string>() : "";
    a.in = in;
    a.out = out;
    return true;
}

// The whole problem of @p a on the data of --in, whose header is @p in,
// and where given the mask file @p mask_in: the library checks the rate,
// the noise shape against the data and the RNG, and the mask file's shape
// is checked; a rank's part of the second agreement of dropout_main().
// @throws usage_error or rndnn::error naming the bad value.
dropout_run_t make_run(const dropout_args_t &a, const rndnn::npy::header_t &in,
        const sharded_input *mask_in) {
    dropout_run_t r;
    r.so = a.problem.so;
    const data_type dt = in.dt;
    if (dt != data_type::f32 && dt != data_type::f16 && dt != data_type::bf16)
        throw usage_error("--in '" + a.in + "' holds " + rndnn::dt2str(dt)
                + " data; dropout takes f32 (<f4), f16 (<f2) or bf16 "
                  "(<u2)");
    const bool with_mask = mask_in || !a.mask_out.empty();
    r.mask_dt = !with_mask ? data_type::undef
            : a.problem.mask_dtype_given ? a.problem.mask_dt
                                         : data_type::bit;
    r.whole = a.problem.desc_for(in.md(), r.mask_dt);
    rndnn::dropout::primitive_desc check(r.whole);
    a.problem.check_offset(r.whole);
    if (mask_in) check_mask_header(*mask_in, a.mask_in, r.whole.mask);
    // A 0-d tensor is cut as one element.
    r.block = r.whole.src.get_dims();
    if (r.block.empty()) {
        r.block = {1};
        r.whole.src = r.whole.dst = rndnn::memory::desc(r.block, dt);
        if (with_mask) r.whole.mask = rndnn::memory::desc(r.block, r.mask_dt);
    }
    r.global = r.whole.global_dims.empty() ? r.block : r.whole.global_dims;
    r.origin = r.whole.origin.empty() ? rndnn::dims(r.block.size(), 0)
                                      : r.whole.origin;
    r.block_mask = r.block;
    for (size_t j = 0; j < r.block.size() && j < r.whole.noise_shape.size(); ++j)
        if (r.whole.noise_shape[j] == 1) r.block_mask[j] = 1;
    return r;
}

// The files a run writes: --out, and --mask-out where given, opened in that
// order (collective calls); both are complete before either replaces its
// name (commit()).
struct dropout_outputs_t {
    sharded_output data;
    std::optional<sharded_output> mask;

    // --out of the type and shape of --in (header @p in); --mask-out of
    // the run's mask, @p r.whole.mask: a bit mask's file is its packed
    // bytes (u8 of shape ceil(n/8)), a u8 mask's the noise shape (0-d where
    // --in is).
    dropout_outputs_t(const dropout_args_t &a, const rndnn::npy::header_t &in,
            const dropout_run_t &r)
        : data("--out", a.out, rndnn::npy::header(in.md()),
                static_cast<std::int64_t>(in.md().get_size())) {
        if (a.mask_out.empty()) return;
        const rndnn::memory::desc &md = r.whole.mask;
        mask.emplace("--mask-out", a.mask_out,
                rndnn::npy::header(md.get_data_type() == data_type::bit
                                ? rndnn::memory::desc(
                                        {static_cast<rndnn::dim_t>(md.get_size())},
                                        data_type::u8)
                                : rndnn::memory::desc(
                                        in.shape.empty() ? rndnn::dims {}
                                                         : md.get_dims(),
                                        data_type::u8)),
                static_cast<std::int64_t>(md.get_size()));
    }

    void commit() {
        std::vector<sharded_output *> files = {&data};
        if (mask) files.push_back(&*mask);
        commit_all(files);
    }
};

} // namespace

int dropout_main(int argc, char **argv) {
    const po::options_description desc = dropout_options();
    // Every rank parses every flag and checks it as far as it can be
    // without the data, before a file is read: a bad value on one rank
    // stops them all.
    job_t &job = job_t::get();
    bool help = false;
    dropout_args_t a;
    job.agree([&] { help = !parse_dropout_args(argc, argv, desc, a); });
    if (help) return exit_ok;

    // The inputs' headers, then the whole problem, before any data is read
    // or file created.
    sharded_input x("--in", a.in);
    std::optional<sharded_input> m;
    if (!a.mask_in.empty()) m.emplace("--mask-in", a.mask_in);
    dropout_run_t r;
    job.agree([&] { r = make_run(a, x.header(), m ? &*m : nullptr); });

    dropout_outputs_t out(a, x.header(), r);
    // The progress of both passes: the bytes of --out, then of --mask-out.
    const piece_options_t &o = a.pieces;
    progress_t progress("rndnn dropout",
            share_bytes(r.block, r.whole.src.get_data_type(), o.split)
                    + (out.mask ? share_bytes(r.block_mask, r.mask_dt, o.split)
                                : 0),
            o.quiet);
    run_data(r, x, m ? &*m : nullptr, out.data, o.split, o.chunk_bytes,
            progress);
    if (out.mask) run_mask(r, *out.mask, o.split, o.chunk_bytes, progress);
    out.commit();
    return exit_ok;
}

} // namespace rndnn_cli
