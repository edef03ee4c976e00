// Pieces shared by the Google Benchmark programs (bench_common.hpp).
#include "bench_common.hpp"

#include <cstring>
#include <string>
#include <unordered_map>

#include "common/cli_common.hpp"

namespace rndnn_bench {

void bm_memcpy(benchmark::State &state) {
    const auto bytes = static_cast<size_t>(state.range(0));
    std::vector<char> src(bytes, 1), dst(bytes);
    for (auto _ : state) {
        std::memcpy(dst.data(), src.data(), bytes);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

rndnn::dropout::desc dropout_fwd_desc(std::int64_t n, double rate,
        rndnn::bernoulli_method method, int bits, rndnn::data_type mask_dt) {
    rndnn::dropout::desc d;
    d.prop = rndnn::prop_kind::forward_training;
    d.src = d.dst = rndnn::memory::desc({n}, rndnn::data_type::f32);
    if (mask_dt != rndnn::data_type::undef)
        d.mask = rndnn::memory::desc({n}, mask_dt);
    d.rate = rate;
    d.method = method;
    d.bits = bits;
    return d;
}

void fill_dropout_src(void *src, std::size_t bytes) {
    std::memset(src, 0x3f, bytes);
}

namespace {

// One dropout problem at the best ISA; the argument is the thread count.
void bm_dropout(benchmark::State &state, const rndnn::dropout::desc &desc,
        bool inplace) {
    const rndnn::dropout::primitive_desc pd(desc);
    const rndnn::dropout prim(pd);
    const std::size_t bytes = desc.src.get_size();
    rndnn::memory src(desc.src);
    fill_dropout_src(src.get_data_handle(), bytes);
    rndnn::memory dst = inplace ? src : rndnn::memory(desc.dst);
    if (!inplace) std::memset(dst.get_data_handle(), 0, bytes);
    std::unordered_map<int, rndnn::memory> args = {{RNDNN_ARG_SRC, src},
            {RNDNN_ARG_DST, dst},
            {RNDNN_ARG_SEED, rndnn::memory::scalar(int64_t(42))}};
    if (!desc.mask.is_zero()) {
        rndnn::memory mask(desc.mask);
        std::memset(mask.get_data_handle(), 0, desc.mask.get_size());
        args.emplace(RNDNN_ARG_MASK, mask);
    }
    const rndnn::stream strm(static_cast<int>(state.range(0)));
    for (auto _ : state)
        prim.execute(strm, args);
    state.SetItemsProcessed(int64_t(state.iterations()) * desc.src.nelems());
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
    state.SetLabel(pd.impl_name());
}

} // namespace

void register_dropout(
        std::int64_t n, const std::vector<std::int64_t> &threads) {
    using rndnn::data_type;
    const struct {
        const char *name;
        rndnn::bernoulli_method method;
    } methods[] = {{"threshold32", rndnn::bernoulli_method::threshold32},
            {"bitsliced1", rndnn::bernoulli_method::bitsliced}};
    const struct {
        const char *name;
        data_type dt;
        bool inplace;
    } masks[] = {{"mask:none", data_type::undef, false},
            {"mask:bit", data_type::bit, false},
            {"mask:u8", data_type::u8, false},
            {"mask:none/inplace", data_type::undef, true}};
    for (const auto &m : methods)
        for (const auto &k : masks) {
            const std::string name = std::string("dropout_fwd/") + m.name
                    + "/" + k.name + "/isa:best";
            auto *b = benchmark::RegisterBenchmark(name.c_str(), bm_dropout,
                    dropout_fwd_desc(n, 0.5, m.method, 1, k.dt), k.inplace);
            b->ArgName("threads")->UseRealTime();
            for (const std::int64_t t : threads)
                b->Arg(t);
        }
}

int benchmark_main(const char *program, int argc, char **argv,
        std::int64_t &n, void (*register_all)()) {
    const int rc = rndnn_cli::run_guarded(program, [&] {
        const std::string flag = "--elements=";
        int kept = 1;
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg.compare(0, flag.size(), flag) != 0) {
                argv[kept++] = argv[i];
                continue;
            }
            n = rndnn_cli::parse_s64("--elements", arg.substr(flag.size()));
            if (n < 1)
                throw rndnn_cli::usage_error("--elements "
                        + arg.substr(flag.size()) + " must be at least 1");
        }
        argc = kept;
        register_all();
        return rndnn_cli::exit_ok;
    });
    if (rc != rndnn_cli::exit_ok) return rc;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return rndnn_cli::exit_usage;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return rndnn_cli::exit_ok;
}

} // namespace rndnn_bench
