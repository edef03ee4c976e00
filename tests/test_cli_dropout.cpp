// CLI tests of `rndnn dropout`: what it writes must equal the public
// API's dropout for the same problem, bit for bit; a mask written forward
// and read backward must give what recomputing it gives; every bad input
// must give exit status 2 (1 for I/O), a message naming the bad value, and
// no output file.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "tests/cli_fixture.hpp"

namespace {

using namespace rndnn::test;
using rndnn::data_type;

// One dropout problem, as the API takes it.
struct problem_t {
    rndnn::prop_kind prop = rndnn::prop_kind::forward_training;
    double rate = 0.5;
    rndnn::dims noise_shape;
    data_type mask_dt = data_type::undef; // undef: no mask
    rndnn::rng_alg alg = rndnn::rng_alg::philox4x32_10;
    rndnn::bernoulli_method method = rndnn::bernoulli_method::automatic;
    int bits = 1;
    bool onednn_compat = false;
    std::string name;
    std::int64_t seed = 0, offset = 0, stream = 0;
};

// A tensor of values in [-2, 2), from the RNG.
rndnn::memory make_data(const rndnn::dims &shape, data_type dt) {
    rndnn::rng::desc d(rndnn::rng_alg::philox4x32_10,
            rndnn::memory::desc(shape, dt));
    rndnn::post_ops po;
    po.append_uniform(-2.f, 2.f);
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    rndnn::memory mem(d.dst);
    rndnn::rng(rndnn::rng::primitive_desc(d, attr))
            .execute(rndnn::stream(1),
                    {{RNDNN_ARG_DST, mem},
                            {RNDNN_ARG_SEED,
                                    rndnn::memory::scalar(std::int64_t(77))}});
    return mem;
}

// The output of the API, out of place: dst and the mask, each as the
// bytes of its .npy file (the unused bits of a bit mask zero).
struct api_result_t {
    bytes_t dst, mask;
};

api_result_t api_dropout(const rndnn::memory &src, const problem_t &p) {
    rndnn::dropout::desc d;
    d.prop = p.prop;
    d.src = d.dst = src.get_desc();
    d.noise_shape = p.noise_shape;
    if (p.mask_dt != data_type::undef)
        d.mask = rndnn::memory::desc(
                p.noise_shape.empty() ? src.get_desc().get_dims()
                                      : p.noise_shape,
                p.mask_dt);
    d.rate = p.rate;
    d.alg = p.alg;
    d.method = p.method;
    d.bits = p.bits;
    d.onednn_compat = p.onednn_compat;
    d.name = p.name;
    d.with_offset = true;
    const rndnn::dropout prim {rndnn::dropout::primitive_desc(d)};
    rndnn::memory dst(d.dst);
    bytes_t mask_buf(d.mask.get_size(), '\0');
    const bool fwd = p.prop != rndnn::prop_kind::backward;
    std::unordered_map<int, rndnn::memory> args
            = {{fwd ? RNDNN_ARG_SRC : RNDNN_ARG_DIFF_DST, src},
                    {fwd ? RNDNN_ARG_DST : RNDNN_ARG_DIFF_SRC, dst},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(p.seed)},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(p.offset)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(p.stream)}};
    rndnn::memory mask;
    if (!d.mask.is_zero()) {
        mask = rndnn::memory(d.mask, mask_buf.data());
        args[RNDNN_ARG_MASK] = mask;
    }
    prim.execute(rndnn::stream(2), args);
    std::ostringstream dst_npy, mask_npy;
    rndnn::npy::save(dst_npy, dst);
    if (mask) rndnn::npy::save(mask_npy, mask);
    return {dst_npy.str(), mask_npy.str()};
}

class CliDropout : public Cli {
protected:
    void save(const std::string &name, const rndnn::memory &mem) {
        std::ofstream os(dir_ / name, std::ios::binary);
        rndnn::npy::save(os, mem);
    }
    rndnn::npy::array load(const std::string &name) {
        return rndnn::npy::load_file((dir_ / name).string());
    }
    // Runs `rndnn dropout args...`; expects success and no message.
    void ok(const args_t &args) {
        args_t a = {"dropout"};
        a.insert(a.end(), args.begin(), args.end());
        const result_t r = run(a);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(r.out, "");
    }
    bytes_t file(const std::string &name) { return read_file(dir_ / name); }
};

// --- forward: the CLI equals the API ---------------------------------------

struct fwd_case_t {
    const char *what;
    args_t args; // after `dropout --in x.npy --out y.npy`
    problem_t problem;
};

std::vector<fwd_case_t> fwd_cases() {
    std::vector<fwd_case_t> cases;
    problem_t p;
    // Every seed, offset and stream bit reaches the library.
    p.rate = 0.3;
    p.seed = -7;
    p.offset = 13;
    p.stream = -1;
    cases.push_back({"rate 0.3, seed, offset, stream",
            {"--rate", "0.3", "--seed", "-7", "--offset", "13", "--stream",
                    "18446744073709551615", "--threads", "3"},
            p});
    p = {};
    p.rate = 0.75;
    p.method = rndnn::bernoulli_method::bitsliced;
    p.bits = 2;
    p.alg = rndnn::rng_alg::threefry4x32_20;
    cases.push_back({"bitsliced:2, threefry",
            {"--rate", "0.75", "--method", "bitsliced:2", "--alg",
                    "threefry4x32_20"},
            p});
    p = {};
    p.rate = 0.4;
    p.noise_shape = {3, 1, 37};
    p.seed = 5;
    cases.push_back({"noise shape",
            {"--rate", "0.4", "--noise-shape", "3x1x37", "--seed", "5"}, p});
    cases.push_back({"axes", {"--rate", "0.4", "--axes", "-2", "--seed", "5"},
            p});
    cases.push_back({"chain plan",
            {"--rate", "0.4", "--axes", "1", "--seed", "5", "--plan",
                    "chain"},
            p});
    p = {};
    p.rate = 0.5;
    p.alg = rndnn::rng_alg::multfly;
    p.name = "encoder.layer3.dropout";
    cases.push_back({"multfly with a name",
            {"--rate", "0.5", "--alg", "multfly", "--name",
                    "encoder.layer3.dropout"},
            p});
    p = {};
    p.rate = 0.2;
    p.alg = rndnn::rng_alg::philox4x32_10_onednn;
    p.onednn_compat = true;
    p.stream = 9;
    cases.push_back({"oneDNN compatible",
            {"--rate", "0.2", "--onednn-compat", "--stream", "9"}, p});
    return cases;
}

TEST_F(CliDropout, ForwardEqualsApi) {
    for (const char *dt : {"f32", "f16", "bf16"}) {
        const rndnn::memory x = make_data({3, 5, 37}, rndnn::str2dt(dt));
        save("x.npy", x);
        for (const fwd_case_t &c : fwd_cases()) {
            SCOPED_TRACE(std::string(dt) + ": " + c.what);
            args_t args = {"--in", "x.npy", "--out", "y.npy"};
            args.insert(args.end(), c.args.begin(), c.args.end());
            ok(args);
            EXPECT_TRUE(file("y.npy") == api_dropout(x, c.problem).dst);
        }
    }
}

// The mask written equals the API's, bit or u8; the data is the same.
TEST_F(CliDropout, MaskOutEqualsApi) {
    const rndnn::memory x = make_data({4, 3, 25}, data_type::f32);
    save("x.npy", x);
    problem_t p;
    p.rate = 0.35;
    p.seed = 11;
    const std::vector<std::pair<const char *, rndnn::dims>> noises
            = {{"4x3x25", {4, 3, 25}}, {"4x1x25", {4, 1, 25}},
                    {"1x3x1", {1, 3, 1}}};
    for (const auto &noise_case : noises) {
        const char *noise = noise_case.first;
        const rndnn::dims &shape = noise_case.second;
        p.noise_shape = shape;
        for (const data_type mdt : {data_type::bit, data_type::u8}) {
            SCOPED_TRACE(std::string(noise) + " " + rndnn::dt2str(mdt));
            p.mask_dt = mdt;
            ok({"--in", "x.npy", "--out", "y.npy", "--rate", "0.35",
                    "--seed", "11", "--noise-shape", noise, "--mask-out",
                    "m.npy", "--mask-dtype", rndnn::dt2str(mdt)});
            const api_result_t want = api_dropout(x, p);
            EXPECT_TRUE(file("y.npy") == want.dst);
            EXPECT_TRUE(file("m.npy") == want.mask);
            const rndnn::npy::array m = load("m.npy");
            EXPECT_EQ(m.dt, data_type::u8);
            const rndnn::memory::desc md(shape, mdt);
            EXPECT_EQ(m.shape,
                    mdt == data_type::bit
                            ? rndnn::dims {static_cast<rndnn::dim_t>(
                                    md.get_size())}
                            : shape);
        }
    }
}

// --- round trips: forward, backward with the mask, backward recomputed ----

// Element i of the bit mask file's bytes.
bool bit_at(const std::vector<unsigned char> &bytes, std::int64_t i) {
    return (bytes[static_cast<size_t>(i / 8)] >> (i % 8)) & 1;
}

TEST_F(CliDropout, BackwardWithMaskEqualsRecomputedAndFormula) {
    const rndnn::dims shape = {6, 2, 33};
    const rndnn::dims noise = {6, 1, 33};
    save("dy.npy", make_data(shape, data_type::f32));
    const args_t rng = {"--rate", "0.3", "--seed", "42", "--offset", "1000",
            "--stream", "3", "--noise-shape", "6x1x33"};
    auto with = [&](args_t a) {
        a.insert(a.end(), rng.begin(), rng.end());
        return a;
    };
    // Forward writes the masks; its data output is not used here.
    ok(with({"--in", "dy.npy", "--out", "y.npy", "--mask-out", "mb.npy"}));
    ok(with({"--in", "dy.npy", "--out", "y.npy", "--mask-out", "mu.npy",
            "--mask-dtype", "u8"}));
    ok(with({"--backward", "--in", "dy.npy", "--out", "dx_re.npy"}));
    ok({"--backward", "--in", "dy.npy", "--out", "dx_b.npy", "--rate", "0.3",
            "--noise-shape", "6x1x33", "--mask-in", "mb.npy"});
    ok({"--backward", "--in", "dy.npy", "--out", "dx_u.npy", "--rate", "0.3",
            "--axes", "1", "--mask-in", "mu.npy", "--mask-dtype", "u8"});
    const bytes_t dx = file("dx_re.npy");
    EXPECT_TRUE(file("dx_b.npy") == dx);
    EXPECT_TRUE(file("dx_u.npy") == dx);

    // u8 and bit masks agree; some elements are kept, some dropped.
    const rndnn::npy::array mb = load("mb.npy"), mu = load("mu.npy");
    ASSERT_EQ(mu.shape, noise);
    std::int64_t kept = 0;
    for (std::int64_t i = 0; i < 6 * 33; ++i) {
        EXPECT_EQ(bit_at(mb.data, i), mu.data[static_cast<size_t>(i)] == 1)
                << i;
        kept += mu.data[static_cast<size_t>(i)];
    }
    EXPECT_GT(kept, 0);
    EXPECT_LT(kept, 6 * 33);

    // diff_src = mask ? diff_dst * scale : +0, the mask broadcast along
    // dim 1, in f32.
    const rndnn::npy::array dy = load("dy.npy"), got = load("dx_re.npy");
    ASSERT_EQ(got.shape, shape);
    ASSERT_EQ(got.dt, data_type::f32);
    const float scale = static_cast<float>(1.0 / (1.0 - 0.3));
    const auto *in = reinterpret_cast<const float *>(dy.data.data());
    const auto *out = reinterpret_cast<const float *>(got.data.data());
    for (std::int64_t i = 0; i < 6 * 2 * 33; ++i) {
        const std::int64_t m = (i / 66) * 33 + i % 33;
        const float want = mu.data[static_cast<size_t>(m)] ? in[i] * scale
                                                           : 0.f;
        std::uint32_t a, b;
        std::memcpy(&a, &out[i], 4);
        std::memcpy(&b, &want, 4);
        EXPECT_EQ(a, b) << "element " << i;
    }

    // The forward output is the same formula: forward and backward agree.
    EXPECT_TRUE(file("y.npy") == dx);
}

TEST_F(CliDropout, RateZeroIsIdentityRateOneIsZeros) {
    const rndnn::memory x = make_data({2, 100}, data_type::bf16);
    save("x.npy", x);
    ok({"--in", "x.npy", "--out", "y.npy", "--rate", "0"});
    EXPECT_TRUE(file("y.npy") == file("x.npy"));
    ok({"--in", "x.npy", "--out", "y.npy", "--rate", "1", "--mask-out",
            "m.npy"});
    const rndnn::npy::array y = load("y.npy"), m = load("m.npy");
    EXPECT_EQ(y.dt, data_type::bf16);
    EXPECT_EQ(y.shape, (rndnn::dims {2, 100}));
    EXPECT_EQ(y.data, std::vector<unsigned char>(400, 0));
    EXPECT_EQ(m.data, std::vector<unsigned char>(25, 0));
    ok({"--backward", "--in", "x.npy", "--out", "dx.npy", "--rate", "1"});
    EXPECT_TRUE(file("dx.npy") == file("y.npy"));
}

// --out may name --in: the input is read whole, then replaced.
TEST_F(CliDropout, OutputMayReplaceInput) {
    const rndnn::memory x = make_data({50}, data_type::f16);
    save("x.npy", x);
    ok({"--in", "x.npy", "--out", "y.npy", "--rate", "0.5"});
    ok({"--in", "x.npy", "--out", "x.npy", "--rate", "0.5"});
    EXPECT_TRUE(file("x.npy") == file("y.npy"));
    EXPECT_EQ(files(), (std::vector<std::string> {"x.npy", "y.npy"}));
}

TEST_F(CliDropout, HelpListsEveryFlag) {
    const result_t r = run({"dropout", "--help"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Usage: rndnn dropout"), std::string::npos);
    for (const char *flag : {"--in", "--out", "--rate", "--backward",
                 "--noise-shape", "--axes", "--mask-out", "--mask-in",
                 "--mask-dtype", "--method", "--onednn-compat", "--plan",
                 "--alg", "--seed", "--offset", "--stream", "--name",
                 "--threads"})
        EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
    const result_t list = run({"--help"});
    EXPECT_NE(list.out.find("dropout"), std::string::npos);
}

// --- bad input: exit 2, the value named, no output file --------------------

TEST_F(CliDropout, BadInputIsUsageErrorAndLeavesNoFile) {
    save("x.npy", make_data({4, 6, 8}, data_type::f32));
    rndnn::memory u(rndnn::memory::desc({4, 6, 8}, data_type::u8));
    std::memset(u.get_data_handle(), 1, 192);
    save("u.npy", u); // not f32, f16 or bf16
    ok({"--in", "x.npy", "--out", "keep.npy", "--rate", "0.5", "--axes",
            "1", "--mask-out", "m.npy"});
    std::ofstream(dir_ / "text.npy") << "not numpy";
    const bytes_t keep = file("keep.npy");
    const std::vector<std::string> before = files();

    const std::vector<bad_case_t> cases = {
            {{"--rate", "-0.1"}, "--rate '-0.1'"},
            {{"--rate", "1.5"}, "--rate '1.5'"},
            {{"--rate", "nan"}, "--rate 'nan'"},
            {{"--rate", "0.5x"}, "0.5x"},
            {{"--noise-shape", "4x6"}, "4x6x8"},
            {{"--noise-shape", "4x3x8"}, "4x3x8"},
            {{"--noise-shape", "4x3x8"}, "4x6x8"},
            {{"--noise-shape", "4x1x"}, "4x1x"},
            {{"--noise-shape", "4x1x8", "--axes", "1"}, "--axes"},
            {{"--axes", "3"}, "axis 3"},
            {{"--axes", "1,-2"}, "axis -2"},
            {{"--axes", "1,"}, "1,"},
            {{"--mask-in", "m.npy"}, "--mask-in"},
            {{"--mask-dtype", "u8"}, "--mask-dtype"},
            {{"--mask-out", "n.npy", "--mask-dtype", "f32"}, "f32"},
            {{"--plan", "fast"}, "fast"},
            {{"--method", "bitsliced:0"}, "b=0"},
            {{"--method", "bitsliced:1", "--rate", "0.77"},
                    "rate=0.77 with method bitsliced:1 keeps no element"},
            {{"--method", "bitsliced:2", "--alg", "mcg31m1"}, "mcg31m1"},
            {{"--name", "layer1"}, "layer1"},
            {{"--method", "fast"}, "fast"},
            {{"--offset", "-1"}, "-1"},
            {{"--offset", "9223372036854775800"}, "9223372036854775800"},
            {{"--seed", "1.5"}, "1.5"},
            {{"--alg", "nope"}, "nope"},
            {{"--onednn-compat", "--alg", "philox4x32_10"}, "onednn_compat"},
            {{"--threads", "-1"}, "-1"},
            {{"stray"}, "stray"},
            {{"--in", "u.npy"}, "u8"},
            {{"--in", "text.npy"}, "text.npy"},
            // Backward: the mask file must fit the noise shape.
            {{"--backward", "--mask-in", "m.npy"}, "4x6x8"},
            {{"--backward", "--mask-in", "m.npy", "--axes", "1",
                     "--mask-dtype", "u8"},
                    "4x1x8"},
            {{"--backward", "--mask-in", "m.npy", "--axes", "2"}, "4x6x1"},
            {{"--backward", "--mask-in", "m.npy", "--seed", "3"}, "--seed"},
            {{"--backward", "--mask-out", "n.npy"}, "--mask-out"},
    };
    for (const bad_case_t &c : cases) {
        args_t args = {"dropout", "--out", "y.npy"};
        // The case's --in replaces the default one.
        if (std::find(c.args.begin(), c.args.end(), "--in") == c.args.end())
            args.insert(args.end(), {"--in", "x.npy"});
        if (std::find(c.args.begin(), c.args.end(), "--rate") == c.args.end())
            args.insert(args.end(), {"--rate", "0.5"});
        args.insert(args.end(), c.args.begin(), c.args.end());
        SCOPED_TRACE(joined(c.args));
        result_t r = run(args);
        expect_failure(r, 2, c.named);
        EXPECT_EQ(files(), before);
        // An existing output file survives untouched.
        args[2] = "keep.npy";
        r = run(args);
        EXPECT_EQ(r.status, 2);
        EXPECT_TRUE(file("keep.npy") == keep);
    }
}

// Dropout's --method is never onednn: oneDNN's rule is --onednn-compat.
// The refusal names the CLI's flags and values (not the C++ API's
// onednn_compat and automatic), and the list of methods that an unknown
// name gets leaves onednn out, where gen's, which takes it, keeps it.
TEST_F(CliDropout, MethodMessagesNameTheCommandsOwnSpelling) {
    save("x.npy", make_data({8}, data_type::f32));
    const std::string refused = "--method 'onednn' is not a dropout method: "
                                "oneDNN's dropout is --onednn-compat, with "
                                "--method threshold32 or auto";
    const std::string listed = "unknown --method 'automatic' (expected auto, "
                               "threshold32, bitsliced or bytewise)";
    const args_t dropout = {"dropout", "--in", "x.npy", "--out", "y.npy",
            "--rate", "0.5", "--method"};
    const args_t bench = {"bench", "--prim", "dropout", "--shape", "8",
            "--method"};
    for (const args_t &head : {dropout, bench}) {
        for (const args_t &tail : {args_t {"onednn"},
                     args_t {"onednn", "--onednn-compat"}}) {
            args_t args = head;
            args.insert(args.end(), tail.begin(), tail.end());
            SCOPED_TRACE(joined(args));
            const result_t r = run(args);
            expect_failure(r, 2, refused);
            EXPECT_EQ(r.err.find("onednn_compat"), std::string::npos);
            EXPECT_EQ(r.err.find("automatic"), std::string::npos);
        }
        args_t args = head;
        args.push_back("automatic");
        SCOPED_TRACE(joined(args));
        expect_failure(run(args), 2, listed);
    }
    EXPECT_EQ(files(), std::vector<std::string> {"x.npy"});
    expect_failure(run({"gen", "--dist", "bernoulli", "--shape", "8",
                           "--out", "m.bin", "--method", "automatic"}),
            2,
            "unknown --method 'automatic' (expected auto, threshold32, "
            "bitsliced, onednn or bytewise)");
}

TEST_F(CliDropout, MissingFlagsAndOneFileTwiceAreUsageErrors) {
    save("x.npy", make_data({8}, data_type::f32));
    const std::vector<bad_case_t> cases = {
            {{"--out", "y.npy", "--rate", "0.5"}, "--in"},
            {{"--in", "x.npy", "--rate", "0.5"}, "--out"},
            {{"--in", "x.npy", "--out", "y.npy"}, "--rate"},
            {{"--in", "", "--out", "y.npy", "--rate", "0.5"}, "--in"},
            {{"--in", "x.npy", "--out", "y.npy", "--rate", "0.5",
                     "--mask-out", "./y.npy"},
                    "same file './y.npy'"},
    };
    for (const bad_case_t &c : cases) {
        args_t args = {"dropout"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        const result_t r = run(args);
        EXPECT_EQ(r.status, 2) << c.named;
        EXPECT_NE(r.err.find(c.named), std::string::npos) << r.err;
        EXPECT_EQ(files(), std::vector<std::string> {"x.npy"});
    }
}

// --- failures other than usage: exit 1, nothing written ------------------

// The fused plan takes only bit masks: a u8 mask is a valid problem that it
// does not implement.
TEST_F(CliDropout, FusedPlanThatDoesNotApplyIsFailure) {
    save("x.npy", make_data({8, 8}, data_type::f32));
    const result_t r = run({"dropout", "--in", "x.npy", "--out", "y.npy",
            "--rate", "0.5", "--plan", "fused", "--alg", "mt19937",
            "--mask-out", "m.npy"});
    expect_failure(r, 1, "fused");
    EXPECT_EQ(files(), std::vector<std::string> {"x.npy"});
}

// RNDNN_VERBOSE=error prints the error of each failed public call once
// (here dropout::primitive_desc's), and the default prints nothing.
TEST_F(CliDropout, VerboseErrorLevelPrintsEachFailedCallOnce) {
    save("x.npy", make_data({8, 8}, data_type::f32));
    const std::string args = " dropout --in x.npy --out y.npy --rate 0.5 "
                             "--plan fused --alg mt19937";
    const result_t r = sh("RNDNN_VERBOSE=error \"$RNDNN\"" + args);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.out, "");
    // On stderr, before the command's own message.
    const std::string prefix = "rndnn_verbose,error,dropout::primitive_desc,"
                               "unimplemented,the fused plan does not apply";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
    std::size_t lines = 0;
    for (std::size_t at = 0;
            (at = r.err.find("rndnn_verbose,", at)) != std::string::npos; ++at)
        ++lines;
    EXPECT_EQ(lines, 1u) << r.err;
    const result_t quiet = sh("\"$RNDNN\"" + args);
    EXPECT_EQ(quiet.status, 1);
    EXPECT_EQ(quiet.out, "");
    EXPECT_EQ(quiet.err.find("rndnn_verbose"), std::string::npos) << quiet.err;
}

// A plan creates only its own kernels: the fused JIT plan walks no inner
// list (the RNG's, the apply kernels'), so under a cap of sse41, where the
// avx2 entries of those lists would decline, no `check` line names one;
// the chain plan walks them.
TEST_F(CliDropout, PlansWalkOnlyTheirOwnKernelLists) {
    if (rndnn::get_max_cpu_isa() < rndnn::cpu_isa::avx2)
        GTEST_SKIP() << "needs avx2 to decline";
    save("x.npy", make_data({8, 64}, data_type::f32));
    const auto check_lines = [&](const std::string &plan) {
        const result_t r = sh("RNDNN_VERBOSE=check RNDNN_MAX_CPU_ISA=sse41 "
                              "\"$RNDNN\" dropout --in x.npy --out y.npy "
                              "--rate 0.5 --plan " + plan);
        EXPECT_EQ(r.status, 0) << r.err;
        return r.err;
    };
    const std::string fused = check_lines("fused");
    EXPECT_NE(fused.find("rndnn_verbose,check,fused:jit:avx2,"),
            std::string::npos)
            << fused;
    EXPECT_EQ(fused.find("rndnn_verbose,check,jit:"), std::string::npos)
            << fused;
    const std::string chain = check_lines("chain");
    EXPECT_NE(chain.find("rndnn_verbose,check,jit:avx2,"), std::string::npos)
            << chain;
}

// --global-shape/--origin: dropout of a block of rows of a 7x5 tensor
// (with the mask shared along dim 1) is that block of the whole tensor's
// dropout, data and mask.
TEST_F(CliDropout, WindowsGiveTheWholeTensorsDropout) {
    const rndnn::memory x = make_data({7, 5}, data_type::f32);
    save("x.npy", x);
    const rndnn::memory::desc bmd({3, 5}, data_type::f32);
    rndnn::memory xb(bmd);
    std::memcpy(xb.get_data_handle(),
            static_cast<const float *>(x.get_data_handle()) + 2 * 5, 3 * 5 * 4);
    save("xb.npy", xb);
    ok({"--in", "x.npy", "--out", "y.npy", "--rate", "0.4", "--noise-shape",
            "7x1", "--mask-out", "m.npy", "--mask-dtype", "u8", "--seed", "5"});
    ok({"--in", "xb.npy", "--out", "yb.npy", "--rate", "0.4",
            "--noise-shape", "7x1", "--mask-out", "mb.npy", "--mask-dtype",
            "u8", "--seed", "5", "--global-shape", "7x5", "--origin", "2x0"});
    const rndnn::npy::array y = load("y.npy"), yb = load("yb.npy");
    const rndnn::npy::array m = load("m.npy"), mb = load("mb.npy");
    ASSERT_EQ(yb.data.size(), 3u * 5 * 4);
    EXPECT_TRUE(std::equal(yb.data.begin(), yb.data.end(),
            y.data.begin() + 2 * 5 * 4));
    ASSERT_EQ(mb.data.size(), 3u);
    EXPECT_TRUE(std::equal(mb.data.begin(), mb.data.end(), m.data.begin() + 2));
}

// dropout runs in pieces of --chunk-bytes, windows of the whole tensor:
// any size gives the one-shot files, forward (bit and u8 masks, noise
// shapes, a window) and backward (reading the mask or recomputing it).
TEST_F(CliDropout, PiecesEqualOneShot) {
    save("x.npy", make_data({5, 6, 9}, data_type::f32));
    save("h.npy", make_data({5, 6, 9}, data_type::f16));
    save("xb.npy", make_data({2, 6, 4}, data_type::bf16));
    const std::vector<args_t> lines = {
            {"--in", "x.npy", "--mask-out", "m.npy"},
            {"--in", "h.npy", "--mask-out", "m.npy", "--mask-dtype", "u8",
                    "--axes", "1"},
            {"--in", "x.npy", "--mask-out", "m.npy", "--noise-shape", "5x1x9",
                    "--method", "bitsliced:5"},
            {"--in", "xb.npy", "--mask-out", "m.npy", "--global-shape",
                    "7x6x11", "--origin", "3x0x2", "--noise-shape", "7x1x11"},
            {"--backward", "--in", "x.npy", "--mask-in", "mx.npy"},
            {"--backward", "--in", "h.npy", "--mask-in", "mh.npy",
                    "--mask-dtype", "u8", "--noise-shape", "5x6x1"},
            {"--backward", "--in", "x.npy", "--seed", "4", "--axes", "0,2"},
    };
    ok({"--in", "x.npy", "--out", "y.npy", "--rate", "0.3", "--mask-out",
            "mx.npy"});
    ok({"--in", "h.npy", "--out", "y.npy", "--rate", "0.3", "--mask-out",
            "mh.npy", "--mask-dtype", "u8", "--noise-shape", "5x6x1"});
    for (const args_t &line : lines) {
        SCOPED_TRACE(joined(line));
        args_t args = {"--out", "y.npy", "--rate", "0.3"};
        args.insert(args.end(), line.begin(), line.end());
        ok(args);
        const bytes_t y = file("y.npy");
        const bool mask = args.end()
                != std::find(args.begin(), args.end(), "--mask-out");
        const bytes_t m = mask ? file("m.npy") : bytes_t();
        for (const char *chunk : {"8", "40", "300"}) {
            SCOPED_TRACE(chunk);
            args_t more = args;
            more.insert(more.end(), {"--chunk-bytes", chunk});
            ok(more);
            EXPECT_TRUE(file("y.npy") == y);
            if (mask) {
                EXPECT_TRUE(file("m.npy") == m);
            }
        }
    }
}

TEST_F(CliDropout, IoFailureLeavesNoFile) {
    save("x.npy", make_data({8, 8}, data_type::f32));
    fs::create_directory(dir_ / "sub");
    const std::vector<bad_case_t> cases = {
            {{"--in", "missing.npy", "--out", "y.npy"}, "missing.npy"},
            {{"--in", "sub", "--out", "y.npy"}, "sub"},
            {{"--in", "x.npy", "--out", "nodir/y.npy"}, "nodir/y.npy"},
            {{"--in", "x.npy", "--out", "sub"}, "sub"},
            // --out could be written, --mask-out not: neither appears.
            {{"--in", "x.npy", "--out", "y.npy", "--mask-out",
                     "nodir/m.npy"},
                    "nodir/m.npy"},
            {{"--in", "x.npy", "--out", "y.npy", "--mask-out", "sub"},
                    "sub"},
            {{"--backward", "--in", "x.npy", "--out", "y.npy", "--mask-in",
                     "missing.npy"},
                    "missing.npy"},
    };
    for (const bad_case_t &c : cases) {
        args_t args = {"dropout", "--rate", "0.5"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        SCOPED_TRACE(c.named);
        const result_t r = run(args);
        expect_failure(r, 1, c.named);
        EXPECT_EQ(files(), (std::vector<std::string> {"sub", "x.npy"}));
        EXPECT_TRUE(fs::is_empty(dir_ / "sub"));
    }
}

// --- one problem, two commands: `rndnn dropout` and `rndnn bench` --------

// The dropout problem's options, the same in both (tools/problems/problem_dropout.hpp).
const char *const problem_flags[] = {"--backward", "--rate", "--noise-shape",
        "--axes", "--mask-dtype", "--method", "--onednn-compat", "--plan",
        "--alg", "--seed", "--offset", "--stream", "--name", "--threads"};

TEST_F(CliDropout, BenchHelpListsEveryProblemFlag) {
    const result_t d = run({"dropout", "--help"});
    const result_t b = run({"bench", "--help"});
    ASSERT_EQ(d.status, 0) << d.err;
    ASSERT_EQ(b.status, 0) << b.err;
    for (const char *flag : problem_flags) {
        // As an option of the help's list: "  --flag ".
        const std::string listed = std::string("  ") + flag + " ";
        EXPECT_NE(d.out.find(listed), std::string::npos) << flag;
        EXPECT_NE(b.out.find(listed), std::string::npos) << flag;
    }
    // bench's old spelling is gone.
    EXPECT_EQ(b.out.find("  --dir "), std::string::npos);
}

// The "create" lines of RNDNN_VERBOSE=dispatch (stderr), without their
// times: the implementation and the problem of each primitive descriptor
// created.
std::vector<std::string> created(const std::string &out) {
    std::vector<std::string> v;
    std::istringstream is(out);
    const std::string prefix = "rndnn_verbose,create,";
    for (std::string line; std::getline(is, line);)
        if (line.rfind(prefix, 0) == 0)
            v.push_back(line.substr(0, line.rfind(',')));
    return v;
}

TEST_F(CliDropout, BenchTakesTheSameProblemLine) {
    save("x.npy", make_data({4, 6, 8}, data_type::f32));
    save("h.npy", make_data({4, 6, 8}, data_type::bf16));
    // `rndnn dropout` lines, in order (the backward ones read the masks
    // that the forward ones wrote).
    const std::vector<args_t> lines = {
            {"--in", "x.npy", "--out", "y.npy", "--rate", "0.1", "--axes",
                    "1", "--seed", "42", "--mask-out", "mu.npy",
                    "--mask-dtype", "u8"},
            {"--in", "x.npy", "--out", "y.npy", "--rate", "0.3",
                    "--noise-shape", "4x1x8", "--method", "bitsliced:4",
                    "--plan", "chain", "--offset", "5", "--stream", "7"},
            {"--in", "h.npy", "--out", "y.npy", "--rate", "0.5",
                    "--onednn-compat", "--mask-out", "mb.npy"},
            {"--in", "x.npy", "--out", "y.npy", "--rate", "0.2", "--alg",
                    "threefry4x32_20", "--threads", "2", "--plan", "any"},
            {"--backward", "--in", "x.npy", "--out", "y.npy", "--rate",
                    "0.1", "--axes", "1", "--mask-in", "mu.npy",
                    "--mask-dtype", "u8"},
            {"--backward", "--in", "h.npy", "--out", "y.npy", "--rate",
                    "0.5", "--onednn-compat", "--mask-in", "mb.npy"},
            {"--backward", "--in", "x.npy", "--out", "y.npy", "--rate",
                    "0.25", "--alg", "multfly", "--name", "layer1",
                    "--seed", "-3"},
    };
    for (const args_t &line : lines) {
        SCOPED_TRACE(joined(line));
        // The bench problem: the line without its files, the data's shape
        // and type instead of --in, --mask-dtype for a mask file.
        args_t bench = {"bench", "--prim", "dropout", "--runs", "1"};
        bool mask_file = false, mask_dtype = false;
        for (size_t i = 0; i < line.size(); ++i) {
            const std::string &a = line[i];
            if (a == "--in") {
                bench.insert(bench.end(),
                        {"--shape", "4x6x8", "--dtype",
                                line[i + 1] == "h.npy" ? "bf16" : "f32"});
                ++i;
            } else if (a == "--out" || a == "--mask-out" || a == "--mask-in") {
                mask_file = mask_file || a != "--out";
                ++i;
            } else {
                mask_dtype = mask_dtype || a == "--mask-dtype";
                bench.push_back(a);
            }
        }
        if (mask_file && !mask_dtype)
            bench.insert(bench.end(), {"--mask-dtype", "bit"});
        args_t dropout = {"dropout"};
        dropout.insert(dropout.end(), line.begin(), line.end());

        std::string d_cmd = "RNDNN_VERBOSE=dispatch \"$RNDNN\"";
        for (const std::string &a : dropout)
            d_cmd += " " + quote(a);
        std::string b_cmd = "RNDNN_VERBOSE=dispatch \"$RNDNN\"";
        for (const std::string &a : bench)
            b_cmd += " " + quote(a);
        const result_t d = sh(d_cmd);
        const result_t b = sh(b_cmd);
        ASSERT_EQ(d.status, 0) << d.err;
        ASSERT_EQ(b.status, 0) << b.err;
        const std::vector<std::string> d_created = created(d.err);
        const std::vector<std::string> b_created = created(b.err);
        ASSERT_FALSE(d_created.empty()) << d.err;
        // `rndnn dropout` first creates the whole problem's primitive
        // descriptor (its checks), then runs it in pieces, windows of the
        // whole (and writes a mask file in a pass of its own): the whole
        // problem is one that bench created too (bench also creates the
        // reference and, for a backward reading a stored mask, the forward
        // that writes it).
        const std::string &impl = d_created.front();
        EXPECT_NE(std::find(b_created.begin(), b_created.end(), impl),
                b_created.end())
                << impl << "\nbench:\n" << b.err;
        // The implementation that bench times is the dropout's.
        const std::string name = impl.substr(
                std::strlen("rndnn_verbose,create,"),
                impl.find(',', std::strlen("rndnn_verbose,create,"))
                        - std::strlen("rndnn_verbose,create,"));
        EXPECT_NE(b.out.find("\n" + name + " "), std::string::npos)
                << name << "\n" << b.out;
    }
}

TEST_F(CliDropout, BenchRefusesWhatDropoutRefuses) {
    // The same parser gives the same messages (exit 2) for the same bad
    // values.
    save("x.npy", make_data({4, 6, 8}, data_type::f32));
    const std::vector<bad_case_t> cases = {
            {{"--rate", "1.5"}, "--rate '1.5'"},
            {{"--axes", "1,"}, "1,"},
            {{"--noise-shape", "4x1x8", "--axes", "1"}, "--axes"},
            {{"--method", "fast"}, "fast"},
            {{"--method", "onednn"}, "--onednn-compat, with --method "
                                     "threshold32 or auto"},
            {{"--plan", "fast"}, "fast"},
            {{"--onednn-compat", "--alg", "philox4x32_10"}, "onednn_compat"},
            {{"--mask-dtype", "f32"}, "--mask-dtype 'f32'"},
            {{"--seed", "1.5"}, "1.5"},
    };
    for (const bad_case_t &c : cases) {
        SCOPED_TRACE(joined(c.args));
        args_t b = {"bench", "--prim", "dropout", "--shape", "4x6x8"};
        b.insert(b.end(), c.args.begin(), c.args.end());
        expect_failure(run(b), 2, c.named);
        args_t d = {"dropout", "--in", "x.npy", "--out", "y.npy",
                "--mask-out", "m.npy"};
        if (c.args[0] != "--rate") d.insert(d.end(), {"--rate", "0.5"});
        d.insert(d.end(), c.args.begin(), c.args.end());
        expect_failure(run(d), 2, c.named);
    }
    // --mask-dtype none names no mask: with a mask file, a usage error.
    expect_failure(run({"dropout", "--in", "x.npy", "--out", "y.npy",
                           "--rate", "0.5", "--mask-out", "m.npy",
                           "--mask-dtype", "none"}),
            2, "--mask-dtype none");
}

} // namespace
