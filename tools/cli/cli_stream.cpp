// `rndnn stream`: raw u32 words on stdout, for statistical test suites
// (PractRand, TestU01, dieharder) that read an endless byte stream.
#include <algorithm>
#include <limits>
#include <optional>

#include "common/cli_common.hpp"
#include "common/cli_output.hpp"

namespace rndnn_cli {

int stream_main(int argc, char **argv) {
    using std::string;
    po::options_description desc = options_with_help();
    auto opt = desc.add_options();
    opt("count", text(), "words to write; default: without end");
    add_stream_options(desc, "word");
    po::variables_map vm;
    if (!parse_options(argc, argv, desc, "rndnn stream [options]", vm))
        return exit_ok;

    const stream_options_t so = parse_stream_options(vm);
    std::int64_t offset = so.offset;
    constexpr std::int64_t last = std::numeric_limits<std::int64_t>::max();
    std::optional<std::uint64_t> count;
    if (vm.count("count")) {
        count = parse_u64("--count", vm["count"].as<string>());
        // A negative offset is the library's to report, below.
        if (offset >= 0 && *count > static_cast<std::uint64_t>(last - offset))
            throw usage_error("--count " + vm["count"].as<string>()
                    + " from --offset " + std::to_string(offset)
                    + " passes the last stream index 2^63 - 1");
    }

    // One primitive for whole chunks, a second one for the last, shorter
    // chunk: a primitive's shape is fixed at creation.
    constexpr std::int64_t chunk = std::int64_t(1) << 20;
    rndnn::rng::desc rd(so.alg,
            rndnn::memory::desc({chunk}, rndnn::data_type::u32));
    rd.with_offset = true;
    rd.name = so.name;
    const rndnn::rng full(rndnn::rng::primitive_desc {rd});
    const rndnn::stream strm(so.threads);
    rndnn::memory buf(rd.dst);

    // A closed pipe (`rndnn stream | head -c 100`) is how a reader says it
    // has enough: output_file throws closed_pipe, which ends the command
    // quietly.
    output_file out("-");
    std::uint64_t left = count.value_or(0);
    while (!count || left > 0) {
        // Without --count the stream ends at the last index, 2^63 - 2.
        std::int64_t n = count ? static_cast<std::int64_t>(std::min<
                                         std::uint64_t>(left, chunk))
                               : chunk;
        if (offset >= 0) n = std::min(n, last - offset);
        if (n == 0) break;
        const rndnn::memory::desc md({n}, rndnn::data_type::u32);
        rndnn::memory dst = n == chunk
                ? buf
                : rndnn::memory(md, buf.get_data_handle());
        rndnn::rng tail;
        if (n != chunk) {
            rd.dst = md;
            tail = rndnn::rng(rndnn::rng::primitive_desc {rd});
        }
        const rndnn::rng &prim = n == chunk ? full : tail;
        prim.execute(strm,
                {{RNDNN_ARG_DST, dst},
                        {RNDNN_ARG_SEED, rndnn::memory::scalar(so.seed)},
                        {RNDNN_ARG_OFFSET, rndnn::memory::scalar(offset)},
                        {RNDNN_ARG_STREAM,
                                rndnn::memory::scalar(so.stream_id)}});
        out.write(buf.get_data_handle(),
                static_cast<size_t>(n) * sizeof(std::uint32_t));
        offset += n;
        left -= count ? static_cast<std::uint64_t>(n) : 0;
    }
    out.commit();
    return exit_ok;
}

} // namespace rndnn_cli
