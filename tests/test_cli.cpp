// CLI tests: `rndnn gen|stream|verify` run as a child process in a fresh
// directory. What the CLI writes must equal what the public API produces
// for the same problem, bit for bit; every bad input must give exit status
// 2, a message naming the bad value, and no file at all.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "tests/cli_fixture.hpp"

namespace {

using namespace rndnn::test;

// One generation problem, run through the public API.
struct problem_t {
    rndnn::rng_alg alg = rndnn::rng_alg::philox4x32_10;
    rndnn::post_ops ops;
    rndnn::dims shape;
    rndnn::data_type dt = rndnn::data_type::u32;
    std::int64_t seed = 0, offset = 0, stream = 0;
    std::string name;
};

// The dense bytes the API writes, with the unused bits of a bit tensor's
// last byte zero (as the CLI defines them).
bytes_t api_bytes(const problem_t &p) {
    const rndnn::memory::desc md(p.shape, p.dt);
    rndnn::rng::desc d(p.alg, md);
    d.with_offset = true;
    d.name = p.name;
    rndnn::primitive_attr attr;
    attr.set_post_ops(p.ops);
    const rndnn::rng prim(rndnn::rng::primitive_desc(d, attr));
    bytes_t buf(md.get_size(), '\0');
    rndnn::memory dst(md, buf.data());
    prim.execute(rndnn::stream(2),
            {{RNDNN_ARG_DST, dst},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(p.seed)},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(p.offset)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(p.stream)}});
    return buf;
}


// --- gen: the CLI equals the API -------------------------------------------

struct gen_case_t {
    const char *what;
    args_t args; // after `gen`, without --out
    problem_t problem;
    rndnn::dims npy_shape; // the shape in the .npy header
};

std::vector<gen_case_t> gen_cases() {
    using rndnn::data_type;
    std::vector<gen_case_t> cases;
    auto add = [&](const char *what, args_t args, problem_t p,
                       rndnn::dims npy_shape = {}) {
        if (npy_shape.empty()) npy_shape = p.shape;
        cases.push_back({what, std::move(args), std::move(p), npy_shape});
    };
    problem_t p;

    // Every seed, offset and stream bit reaches the library; stream
    // 2^64 - 1 arrives as the s64 -1.
    p = {};
    p.shape = {3, 5, 7};
    p.seed = -7;
    p.offset = 13;
    p.stream = -1;
    add("bits u32",
            {"--shape", "3x5x7", "--seed", "-7", "--offset", "13", "--stream",
                    "18446744073709551615"},
            p);

    // The default method (auto) against the library's default, named and
    // not: bitsliced:32 for philox4x32_10, threshold32 for mt19937.
    const struct {
        const char *alg, *default_name, *auto_name;
    } defaults[] = {{"philox4x32_10", "bernoulli default philox4x32_10",
                            "bernoulli auto philox4x32_10"},
            {"mt19937", "bernoulli default mt19937", "bernoulli auto mt19937"}};
    for (const auto &c : defaults) {
        p = {};
        p.alg = rndnn::str2alg(c.alg);
        p.shape = {4099};
        p.dt = data_type::bit;
        p.seed = 5;
        p.ops.append_bernoulli(0.7);
        add(c.default_name,
                {"--dist", "bernoulli", "--p", "0.7", "--shape", "4099",
                        "--seed", "5", "--alg", c.alg},
                p, {513});
        add(c.auto_name,
                {"--dist", "bernoulli", "--p", "0.7", "--method", "auto",
                        "--shape", "4099", "--seed", "5", "--alg", c.alg},
                p, {513});
    }

    // 1001 elements: the last byte of the mask has 7 unused bits, zero.
    const struct {
        const char *method, *bit_name, *u8_name;
    } methods[] = {{"threshold32", "bernoulli bit threshold32",
                           "bernoulli u8 threshold32"},
            {"bitsliced:4", "bernoulli bit bitsliced:4",
                    "bernoulli u8 bitsliced:4"},
            {"bytewise", "bernoulli bit bytewise", "bernoulli u8 bytewise"}};
    for (const auto &mc : methods) {
        const char *method = mc.method;
        const bool sliced = std::strcmp(method, "bitsliced:4") == 0;
        const auto m = sliced ? rndnn::bernoulli_method::bitsliced
                              : rndnn::str2bernoulli_method(method);
        p = {};
        p.shape = {7, 143};
        p.dt = data_type::bit;
        p.seed = 42;
        p.ops.append_bernoulli(0.3, m, sliced ? 4 : 1);
        add(mc.bit_name,
                {"--dist", "bernoulli", "--p", "0.3", "--method", method,
                        "--shape", "7x143", "--seed", "42"},
                p, {126});
        p.dt = data_type::u8;
        add(mc.u8_name,
                {"--dist", "bernoulli", "--p", "0.3", "--method", method,
                        "--shape", "7x143", "--seed", "42", "--dtype", "u8"},
                p);
    }

    for (const char *dt : {"f32", "bf16", "f16"}) {
        p = {};
        p.shape = {4, 257};
        p.dt = rndnn::str2dt(dt);
        p.seed = 5;
        p.offset = 3;
        p.ops.append_uniform(-2.f, 3.f);
        add("uniform",
                {"--dist", "uniform", "--a", "-2", "--b", "3", "--shape",
                        "4x257", "--dtype", dt, "--seed", "5", "--offset",
                        "3"},
                p);
    }

    p = {};
    p.shape = {1000};
    p.dt = data_type::f32;
    p.offset = 1; // an odd offset splits Box-Muller pairs
    p.ops.append_normal(1.f, 2.f);
    add("normal f32",
            {"--dist", "normal", "--mean", "1", "--stddev", "2", "--shape",
                    "1000", "--offset", "1"},
            p);

    // integers: exact s64 bounds (never through a double), 2 and 4 words
    // an element, every dst type.
    p = {};
    p.shape = {3, 101};
    p.dt = data_type::s64;
    p.offset = 1;
    p.ops.append_integers(INT64_MIN + 1, INT64_MAX);
    add("integers s64",
            {"--dist", "integers", "--low", "-9223372036854775807", "--high",
                    "9223372036854775807", "--shape", "3x101", "--offset",
                    "1"},
            p);
    for (const char *dt : {"s32", "u8", "f32"}) {
        p = {};
        p.shape = {257};
        p.dt = rndnn::str2dt(dt);
        p.seed = 8;
        p.ops.append_integers(3, 250);
        add("integers", {"--dist", "integers", "--low", "3", "--high", "250",
                                "--shape", "257", "--dtype", dt, "--seed",
                                "8"},
                p);
    }

    // permutation: n an exact s64, s64 and s32.
    p = {};
    p.shape = {3, 101};
    p.dt = data_type::s64;
    p.offset = 9223372036854775000;
    p.ops.append_permutation(INT64_MAX);
    add("permutation s64",
            {"--dist", "permutation", "--n", "9223372036854775807", "--shape",
                    "3x101", "--offset", "9223372036854775000"},
            p);
    p = {};
    p.shape = {257};
    p.dt = data_type::s32;
    p.seed = 8;
    p.ops.append_permutation(257);
    add("permutation s32", {"--dist", "permutation", "--n", "257", "--shape",
                                   "257", "--dtype", "s32", "--seed", "8"},
            p);

    p = {};
    p.shape = {3, 100};
    p.dt = data_type::bf16;
    p.seed = 4;
    p.ops.append_exponential(2.5f);
    add("exponential bf16",
            {"--dist", "exponential", "--scale", "2.5", "--dtype", "bf16",
                    "--shape", "3x100", "--seed", "4"},
            p);

    p = {};
    p.shape = {333};
    p.dt = data_type::f32; // the default
    p.offset = 7;
    p.ops.append_gumbel(-1.f, 0.5f);
    add("gumbel",
            {"--dist", "gumbel", "--loc", "-1", "--scale", "0.5", "--shape",
                    "333", "--offset", "7"},
            p);

    p = {};
    p.shape = {2, 129};
    p.dt = data_type::f64;
    p.offset = 3;
    p.ops.append_laplace(0.5f, 2.f);
    add("laplace f64",
            {"--dist", "laplace", "--loc", "0.5", "--scale", "2", "--dtype",
                    "f64", "--shape", "2x129", "--offset", "3"},
            p);

    p = {};
    p.shape = {77};
    p.dt = data_type::f16;
    p.offset = 5;
    p.ops.append_rayleigh(0.25);
    add("rayleigh f16",
            {"--dist", "rayleigh", "--scale", "0.25", "--dtype", "f16",
                    "--shape", "77", "--offset", "5"},
            p);

    p = {};
    p.shape = {1001};
    p.dt = data_type::f16;
    p.offset = 1; // lognormal takes normal's pairs
    p.ops.append_lognormal(0.5f, 1.5f);
    add("lognormal f16",
            {"--dist", "lognormal", "--mean", "0.5", "--sigma", "1.5",
                    "--dtype", "f16", "--shape", "1001", "--offset", "1"},
            p);

    p = {};
    p.shape = {257};
    p.dt = data_type::bf16;
    p.offset = 3;
    p.ops.append_truncated_normal(0.5f, 2.f, -1.f, 7.f);
    add("truncated_normal bf16",
            {"--dist", "truncated_normal", "--mean", "0.5", "--stddev", "2",
                    "--a", "-1", "--b", "7", "--dtype", "bf16", "--shape",
                    "257", "--offset", "3"},
            p);

    // f64: 2 words an element (4 a normal pair), from an odd offset.
    p = {};
    p.shape = {3, 101};
    p.dt = data_type::f64;
    p.offset = 5;
    p.ops.append_uniform(0.f, 1.f);
    add("uniform f64",
            {"--dist", "uniform", "--dtype", "f64", "--shape", "3x101",
                    "--offset", "5"},
            p);
    p.ops = {};
    p.ops.append_normal(1.5f, 2.f);
    add("normal f64",
            {"--dist", "normal", "--mean", "1.5", "--stddev", "2", "--dtype",
                    "f64", "--shape", "3x101", "--offset", "5"},
            p);
    // Parameters read as doubles: f64 takes 0.1 and 1e39 as given.
    p.ops = {};
    p.ops.append_uniform(0.1, 0.3);
    add("uniform f64 of doubles",
            {"--dist", "uniform", "--a", "0.1", "--b", "0.3", "--dtype",
                    "f64", "--shape", "3x101", "--offset", "5"},
            p);
    p.ops = {};
    p.ops.append_gumbel(0.1, 1e39);
    add("gumbel f64 past f32",
            {"--dist", "gumbel", "--loc", "0.1", "--scale", "1e39",
                    "--dtype", "f64", "--shape", "3x101", "--offset", "5"},
            p);

    p = {};
    p.shape = {100};
    p.dt = data_type::f32; // the default
    p.ops.append_truncated_normal(0.f, 1.f, -2.f, 2.f); // the defaults
    add("truncated_normal defaults",
            {"--dist", "truncated_normal", "--shape", "100"}, p);

    p = {};
    p.alg = rndnn::rng_alg::multfly;
    p.name = "encoder.layer3.dropout";
    p.shape = {100};
    p.seed = 9;
    add("multfly with a name",
            {"--alg", "multfly", "--name", "encoder.layer3.dropout",
                    "--shape", "100", "--seed", "9"},
            p);

    p = {};
    p.alg = rndnn::rng_alg::mcg31m1;
    p.shape = {2, 50};
    p.dt = data_type::s32;
    p.ops.append_bernoulli(0.75);
    add("mcg31m1 bernoulli s32",
            {"--alg", "mcg31m1", "--dist", "bernoulli", "--p", "0.75",
                    "--dtype", "s32", "--shape", "2x50"},
            p);

    p = {};
    p.shape = {0, 5};
    add("empty", {"--shape", "0x5"}, p);
    return cases;
}

TEST_F(Cli, GenEqualsApi) {
    for (const gen_case_t &c : gen_cases()) {
        SCOPED_TRACE(c.what);
        args_t args = {"gen", "--out", "t.npy"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        ASSERT_EQ(run(args).status, 0);
        const rndnn::npy::array a
                = rndnn::npy::load_file((dir_ / "t.npy").string());
        EXPECT_EQ(a.dt,
                c.problem.dt == rndnn::data_type::bit ? rndnn::data_type::u8
                                                      : c.problem.dt);
        EXPECT_EQ(a.shape, c.npy_shape);
        const bytes_t want = api_bytes(c.problem);
        EXPECT_TRUE(bytes_t(a.data.begin(), a.data.end()) == want);
        EXPECT_EQ(files(), std::vector<std::string> {"t.npy"});
    }
}

// --p-file gives bernoulli each element's p: the API's values with that p
// tensor, whole or in small pieces, broadcast, f32 or bf16, in a window.
TEST_F(Cli, GenPFileEqualsApi) {
    using rndnn::data_type;
    const rndnn::dims shape = {5, 300}, prow = {1, 300};
    std::vector<float> p(300);
    for (size_t i = 0; i < p.size(); ++i)
        p[i] = static_cast<float>(i) / 299.f;
    std::vector<uint16_t> p16(300);
    for (size_t i = 0; i < p.size(); ++i) { // bf16: the top half of f32
        uint32_t u;
        std::memcpy(&u, &p[i], 4);
        p16[i] = static_cast<uint16_t>(u >> 16);
    }
    // The API's bytes of block @p dims at @p origin of @p global (empty:
    // no window) with the p tensor @p pd over @p data.
    auto api = [&](const rndnn::dims &dims, const rndnn::dims &global,
                       const rndnn::dims &origin, const rndnn::memory::desc &pd,
                       void *data) {
        rndnn::rng::desc d(rndnn::rng_alg::philox4x32_10,
                rndnn::memory::desc(dims, data_type::u8));
        d.p_tensor = pd;
        d.global_dims = global;
        d.origin = origin;
        rndnn::post_ops po;
        po.append_bernoulli(0.5);
        rndnn::primitive_attr attr;
        attr.set_post_ops(po);
        bytes_t out(d.dst.get_size(), '\0');
        rndnn::rng(rndnn::rng::primitive_desc(d, attr))
                .execute(rndnn::stream(1),
                        {{RNDNN_ARG_DST, rndnn::memory(d.dst, &out[0])},
                                {RNDNN_ARG_SRC, rndnn::memory(pd, data)},
                                {RNDNN_ARG_SEED,
                                        rndnn::memory::scalar(int64_t(3))}});
        return out;
    };
    {
        std::ofstream os(dir_ / "p.npy", std::ios::binary);
        rndnn::npy::save(os, rndnn::memory(
                rndnn::memory::desc({300}, data_type::f32), p.data()));
        std::ofstream os16(dir_ / "p16.npy", std::ios::binary);
        rndnn::npy::save(os16, rndnn::memory(
                rndnn::memory::desc(prow, data_type::bf16), p16.data()));
    }
    const bytes_t want = api(shape, {}, {},
            rndnn::memory::desc(prow, data_type::f32), p.data());
    const args_t base = {"gen", "--dist", "bernoulli", "--dtype", "u8",
            "--shape", "5x300", "--seed", "3", "--format", "raw", "--out",
            "t.u8", "--p-file"};
    args_t a = base;
    a.push_back("p.npy");
    EXPECT_TRUE(gen_file(a, "t.u8") == want);
    a.insert(a.end(), {"--chunk-bytes", "77"});
    EXPECT_TRUE(gen_file(a, "t.u8") == want);
    a = base;
    a.push_back("p16.npy");
    EXPECT_TRUE(gen_file(a, "t.u8")
            == api(shape, {}, {}, rndnn::memory::desc(prow, data_type::bf16),
                    p16.data()));
    // A window: the block's p is the file's.
    a = base;
    a.push_back("p.npy");
    a[6] = "2x300";
    a.insert(a.end(), {"--global-shape", "9x300", "--origin", "4x0"});
    EXPECT_TRUE(gen_file(a, "t.u8")
            == api({2, 300}, {9, 300}, {4, 0},
                    rndnn::memory::desc(prow, data_type::f32), p.data()));
    a = base;
    a.push_back("p.npy");
    a[2] = "uniform";
    a.erase(a.begin() + 3, a.begin() + 5);
    expect_failure(run(a), 2, "--p-file is only used with --dist bernoulli");
    a = base;
    a.insert(a.end(), {"p.npy", "--p", "0.3"});
    expect_failure(run(a), 2, "--p and --p-file exclude each other");
    a = base;
    a.push_back("p.npy");
    a[6] = "5x299";
    expect_failure(run(a), 2, "do not broadcast to dst dims 5x299");
    p[7] = 2.f;
    {
        std::ofstream os(dir_ / "p.npy", std::ios::binary);
        rndnn::npy::save(os, rndnn::memory(
                rndnn::memory::desc({300}, data_type::f32), p.data()));
    }
    a = base;
    a.push_back("p.npy");
    expect_failure(run(a), 2, "p tensor element 7 is 2");
    // rndnn bench makes its own p tensor (--p-tensor TYPE).
    const result_t b = run({"bench", "--dist", "bernoulli", "--p-tensor",
            "bf16", "--dtype", "bit", "--shape", "3x1000", "--runs", "1"});
    EXPECT_EQ(b.status, 0) << b.err;
    EXPECT_NE(b.out.find("--p-tensor bf16"), std::string::npos) << b.out;
    expect_failure(run({"bench", "--dist", "bernoulli", "--p", "0.3",
                           "--p-tensor", "f32", "--shape", "8"}),
            2, "--p and --p-tensor exclude each other");
}

// The Bernoulli method onednn is oneDNN's dropout rule: with the keep
// probability of rate 0.1 (t / 2^32, t = 2^32 - 1 - floor((2^32 - 1) *
// 0.1f) = 3865470560) it writes the mask that oneDNN 3.14 wrote.
TEST_F(Cli, GenOnednnMethodWritesOnednnsMask) {
    const bytes_t want = read_file(RNDNN_TEST_DATA_DIR "/onednn-dropout-mask.u8");
    ASSERT_EQ(want.size(), 4099u);
    const args_t args = {"gen", "--alg", "philox4x32_10_onednn", "--dist",
            "bernoulli", "--method", "onednn", "--p", "0.8999999985098839",
            "--dtype", "u8", "--shape", "4099", "--seed", "7", "--stream",
            "99", "--out", "-"};
    const result_t r = run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out == want);
    args_t mcg = args;
    mcg[2] = "mcg31m1";
    expect_failure(run(mcg), 2, "onednn bernoulli needs 32-bit words");
}

// --low and --high are read as exact s64s and checked, naming the value.
TEST_F(Cli, GenIntegersBoundsAreCheckedIntegers) {
    const args_t base = {"gen", "--dist", "integers", "--shape", "8",
            "--out", "-"};
    const auto with = [&](std::initializer_list<const char *> more) {
        args_t a = base;
        a.insert(a.end(), more.begin(), more.end());
        return run(a);
    };
    expect_failure(with({"--low", "1.5"}), 2, "--low '1.5' is not an integer");
    expect_failure(with({"--high", "9223372036854775808"}), 2,
            "--high '9223372036854775808' is out of range");
    expect_failure(with({"--low", "7", "--high", "7"}), 2, "[7, 7) is empty");
    expect_failure(with({"--high", "300", "--dtype", "u8"}), 2,
            "up to 299, outside u8");
    expect_failure(with({"--dtype", "f16"}), 2, "cannot write dst type f16");
    expect_failure(with({"--alg", "mcg31m1"}), 2,
            "integers needs 32-bit words; mcg31m1 has 31");
    expect_failure(run({"gen", "--dist", "uniform", "--low", "1", "--shape",
                           "8", "--out", "-"}),
            2, "--low is only used with --dist integers");
}

// --n is read as an exact s64 and checked, naming the value; elements past
// n are refused.
TEST_F(Cli, GenPermutationNIsACheckedInteger) {
    const args_t base = {"gen", "--dist", "permutation", "--shape", "8",
            "--out", "-"};
    const auto with = [&](std::initializer_list<const char *> more) {
        args_t a = base;
        a.insert(a.end(), more.begin(), more.end());
        return run(a);
    };
    expect_failure(with({"--n", "1.5"}), 2, "--n '1.5' is not an integer");
    expect_failure(with({"--n", "9223372036854775808"}), 2,
            "--n '9223372036854775808' is out of range");
    expect_failure(with({"--n", "0"}), 2, "permutation n=0 is not >= 1");
    expect_failure(with({"--n", "7"}), 2, "passes n=7");
    expect_failure(with({"--n", "10", "--offset", "3"}), 2,
            "offset=3 plus 8 elements passes n=10");
    expect_failure(with({"--n", "4294967296", "--dtype", "s32"}), 2,
            "outside s32");
    expect_failure(with({"--n", "8", "--dtype", "f32"}), 2,
            "cannot write dst type f32");
    const result_t ok = with({"--n", "8"});
    ASSERT_EQ(ok.status, 0) << ok.err;
    ASSERT_EQ(ok.out.size(), 64u);
    std::vector<int64_t> v(8);
    std::memcpy(v.data(), ok.out.data(), 64);
    std::sort(v.begin(), v.end());
    for (int64_t i = 0; i < 8; ++i)
        EXPECT_EQ(v[i], i);
    expect_failure(run({"gen", "--dist", "uniform", "--n", "1", "--shape",
                           "8", "--out", "-"}),
            2, "--n is only used with --dist permutation");
}

// gen writes in pieces of --chunk-bytes: any size gives the one-shot bytes
// (pieces that cut normal pairs, bitsliced words and mask bytes), to a
// file or to stdout, and so does a window (whose pieces are boxes of the
// block at bit phases).
TEST_F(Cli, GenInPiecesEqualsOneShot) {
    for (const gen_case_t &c : gen_cases()) {
        SCOPED_TRACE(c.what);
        const bytes_t want = api_bytes(c.problem);
        for (const char *chunk : {"8", "24", "1000"}) {
            SCOPED_TRACE(chunk);
            args_t args = {"gen", "--out", "-", "--chunk-bytes", chunk};
            args.insert(args.end(), c.args.begin(), c.args.end());
            const result_t r = run(args);
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_TRUE(r.out == want);
        }
    }
    for (const char *dist :
            {"--dist=normal", "--dist=bernoulli", "--dist=integers"}) {
        SCOPED_TRACE(dist);
        const args_t block = {"gen", dist, "--shape", "3x5x7",
                "--global-shape", "9x6x20", "--origin", "2x1x5", "--out", "-"};
        const result_t whole = run(block);
        ASSERT_EQ(whole.status, 0) << whole.err;
        args_t pieces = block;
        pieces.insert(pieces.end(), {"--chunk-bytes", "8"});
        const result_t r = run(pieces);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(r.out == whole.out);
    }
    for (const char *bad : {"7", "1073741825", "1k"}) {
        const result_t r = run({"gen", "--shape", "8", "--out", "g.bin",
                "--chunk-bytes", bad});
        expect_failure(r, 2, bad);
    }
}

// --version: the running library's version and commit, which are the
// headers' (a program built and run with one library).
TEST_F(Cli, VersionIsTheLibrarys) {
    const rndnn::version_t &v = rndnn::version();
    EXPECT_EQ(v.major, RNDNN_VERSION_MAJOR);
    EXPECT_EQ(v.minor, RNDNN_VERSION_MINOR);
    EXPECT_EQ(v.patch, RNDNN_VERSION_PATCH);
    EXPECT_EQ(std::to_string(v.major) + "." + std::to_string(v.minor) + "."
                    + std::to_string(v.patch),
            RNDNN_VERSION_STRING);
    EXPECT_STREQ(v.str, RNDNN_VERSION_STRING);
    EXPECT_GT(std::strlen(v.hash), 0u);
    const result_t r = run({"--version"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string("rndnn ") + v.str + " (" + v.hash + ")\n");
}

// Memory does not grow with the output: a 4 GiB tensor takes at most
// 64 MiB of resident memory (the process's peak, as wait4() reports it).
// Sanitizers add their own shadow memory: not measured there.
TEST_F(Cli, GenMemoryStaysBoundedForA4GiBOutput) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "sanitizers' shadow memory";
#endif
    EXPECT_LE(max_rss_kib({"gen", "--dist", "bits", "--shape", "1073741824",
                      "--out", "/dev/null"},
                      0),
            64 * 1024);
}

// On a terminal, gen and dropout draw a progress line on stderr (size
// done, rate, time left) for outputs of 4 MiB or more; --quiet draws none,
// nor do smaller outputs, and in pipes and files (every other test) stderr
// stays empty.
TEST_F(Cli, ProgressLineOnlyOnATerminal) {
    const auto on_tty = [&](const std::string &cmd) {
        // script(1) runs the command on a pseudo-terminal and copies what
        // it wrote there.
        const result_t r = sh("script -qec "
                + quote(quote(RNDNN_CLI_PATH) + " " + cmd) + " /dev/null");
        EXPECT_EQ(r.status, 0) << r.err;
        return r.out;
    };
    const std::string g = on_tty("gen --dist normal --shape 4000000 "
                                 "--chunk-bytes 65536 "
                                 "--out g.npy");
    EXPECT_NE(g.find("rndnn gen: 15.3 MiB of 15.3 MiB (100%), "),
            std::string::npos)
            << g;
    EXPECT_NE(g.find("/s, 0 s left"), std::string::npos) << g;
    const std::string d = on_tty("dropout --in g.npy --out y.npy --rate 0.5 "
                                 "--mask-out m.npy --chunk-bytes 65536");
    EXPECT_NE(d.find("rndnn dropout: 15.7 MiB of 15.7 MiB (100%)"),
            std::string::npos)
            << d;
    EXPECT_EQ(on_tty("gen --shape 4000000 --out g.npy --quiet"), "");
    // 4 MiB draws the line, a byte less none, even in chunks small enough
    // to redraw it many times; nor does dropout of 4 MB and its 125 kB
    // mask.
    EXPECT_NE(on_tty("gen --dist normal --shape 1048576 --chunk-bytes 4096 "
                     "--out s.bin")
                      .find("rndnn gen: 4.0 MiB of 4.0 MiB (100%)"),
            std::string::npos);
    EXPECT_EQ(on_tty("gen --dist bernoulli --dtype u8 --shape 4194303 "
                     "--chunk-bytes 4096 --out s.bin"),
            "");
    EXPECT_EQ(on_tty("gen --dist normal --shape 1000000 --out s.npy"), "");
    EXPECT_EQ(on_tty("dropout --in s.npy --out y.npy --rate 0.5 "
                     "--mask-out m.npy --chunk-bytes 4096"),
            "");
    const result_t piped = run({"gen", "--shape", "4000000", "--out", "g.npy"});
    EXPECT_EQ(piped.err, "");
}

#if !RNDNN_WITH_MPI
// Without MPI, several ranks would each write the whole tensor: refused.
TEST_F(Cli, MpirunWithoutMpiIsRefused) {
    const result_t r = sh("OMPI_COMM_WORLD_SIZE=2 \"$RNDNN\" gen --shape 8 "
                          "--out g.npy");
    expect_failure(r, 1, "built without MPI");
    EXPECT_TRUE(files().empty());
    // One rank is just this process.
    EXPECT_EQ(sh("OMPI_COMM_WORLD_SIZE=1 \"$RNDNN\" gen --shape 8 --out g.npy")
                      .status,
            0);
}
#endif

// raw is the npy data without its header, whatever the name or the flag.
TEST_F(Cli, RawAndNpyFormats) {
    const args_t base = {"gen", "--dist", "normal", "--shape", "3x333"};
    auto with = [&](args_t more) {
        args_t a = base;
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };
    const bytes_t raw = gen_file(with({"--out", "x.bin"}), "x.bin");
    const bytes_t npy = gen_file(with({"--out", "x.npy"}), "x.npy");
    const rndnn::memory::desc md({3, 333}, rndnn::data_type::f32);
    ASSERT_EQ(raw.size(), md.get_size());
    EXPECT_EQ(npy, rndnn::npy::header(md) + raw);
    EXPECT_EQ(gen_file(with({"--out", "y.npy", "--format", "raw"}), "y.npy"),
            raw);
    EXPECT_EQ(gen_file(with({"--out", "y.bin", "--format", "npy"}), "y.bin"),
            npy);

    // stdout: raw unless --format npy says otherwise.
    result_t r = run(with({"--out", "-"}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out == raw);
    r = run(with({"--out", "-", "--format", "npy"}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out == npy);
}

TEST_F(Cli, ThreadCountDoesNotChangeOutput) {
    for (const char *dist : {"bernoulli", "normal"}) {
        SCOPED_TRACE(dist);
        const args_t a = {"gen", "--dist", dist, "--shape", "3x100003",
                "--offset", "5", "--out", "-"};
        args_t a1 = a, a3 = a;
        a1.insert(a1.end(), {"--threads", "1"});
        a3.insert(a3.end(), {"--threads", "3"});
        const result_t r1 = run(a1), r3 = run(a3);
        ASSERT_EQ(r1.status, 0) << r1.err;
        ASSERT_EQ(r3.status, 0) << r3.err;
        EXPECT_TRUE(r1.out == r3.out);
    }
}

// --global-shape/--origin: a block of the global tensor gets its values
// (raw u32 words and normal f32 values, rows 2..4 of 7x5, and the
// columns 1..3); a window that does not fit is a usage error naming it.
TEST_F(Cli, WindowsHoldTheGlobalTensorsValues) {
    for (const char *dist : {"bits", "normal"}) {
        SCOPED_TRACE(dist);
        const args_t whole_a = {"gen", "--dist", dist, "--shape", "7x5",
                "--offset", "3", "--out", "-"};
        const result_t whole = run(whole_a);
        ASSERT_EQ(whole.status, 0) << whole.err;
        const result_t rows = run({"gen", "--dist", dist, "--shape", "3x5",
                "--global-shape", "7x5", "--origin", "2x0", "--offset", "3",
                "--out", "-"});
        ASSERT_EQ(rows.status, 0) << rows.err;
        EXPECT_TRUE(rows.out == whole.out.substr(2 * 5 * 4, 3 * 5 * 4));
        const result_t cols = run({"gen", "--dist", dist, "--shape", "7x3",
                "--global-shape", "7x5", "--origin", "0x1", "--offset", "3",
                "--out", "-"});
        ASSERT_EQ(cols.status, 0) << cols.err;
        for (int r = 0; r < 7; ++r)
            EXPECT_TRUE(cols.out.substr(r * 12, 12)
                    == whole.out.substr((r * 5 + 1) * 4, 12))
                    << "row " << r;
    }
    const result_t bad = run({"gen", "--shape", "3x5", "--global-shape",
            "7x5", "--origin", "5x0", "--out", "-"});
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("do not fit the global dims 7x5"), std::string::npos)
            << bad.err;
    const result_t lone = run({"gen", "--shape", "3", "--origin", "1",
            "--out", "-"});
    EXPECT_EQ(lone.status, 2);
    EXPECT_NE(lone.err.find("--origin needs --global-shape"), std::string::npos)
            << lone.err;
}

TEST_F(Cli, ExistingFileIsReplaced) {
    std::ofstream(dir_ / "t.bin") << "old contents";
    const bytes_t raw = gen_file({"gen", "--shape", "10", "--out", "t.bin"},
            "t.bin");
    EXPECT_EQ(raw.size(), 40u);
    EXPECT_EQ(files(), std::vector<std::string> {"t.bin"});
}

TEST_F(Cli, VerboseLinesForCreationAndExecution) {
    // The reference kernel, whatever the CPU: RNDNN_MAX_CPU_ISA=none.
    const result_t r = sh("RNDNN_VERBOSE=profile RNDNN_MAX_CPU_ISA=none "
                          "\"$RNDNN\" gen --dist bernoulli --shape 64 "
                          "--out m.bin");
    ASSERT_EQ(r.status, 0) << r.err;
    // On stderr: stdout may carry data.
    EXPECT_EQ(r.out, "");
    const std::string &err = r.err;
    const std::string problem
            = "alg=philox4x32_10,dist=bernoulli:p=0.5:bitsliced:32,dst=bit:64";
    EXPECT_NE(err.find("rndnn_verbose,create,ref:any," + problem + ","),
            std::string::npos)
            << err;
    EXPECT_NE(err.find("rndnn_verbose,exec,ref:any," + problem + ",nthr="),
            std::string::npos)
            << err;
    // The default level prints nothing for a successful run.
    const result_t quiet = run({"gen", "--shape", "4", "--out", "w.bin"});
    EXPECT_EQ(quiet.out, "");
    EXPECT_EQ(quiet.err, "");
    // An unknown level warns on stderr and falls back to the default.
    const result_t bad = sh("RNDNN_VERBOSE=loud \"$RNDNN\" gen --shape 4 "
                            "--out v.bin");
    EXPECT_EQ(bad.status, 0);
    EXPECT_NE(bad.err.find("RNDNN_VERBOSE=loud"), std::string::npos);
}

// Verbose lines never mix into data on stdout: `gen --out -` and `stream`
// write their bytes alone, the same as without RNDNN_VERBOSE, and the
// lines go to stderr.
TEST_F(Cli, VerboseLinesStayOutOfStdoutData) {
    const args_t gen = {"gen", "--shape", "8", "--out", "-"};
    const args_t stream = {"stream", "--count", "8"};
    for (const args_t &args : {gen, stream}) {
        SCOPED_TRACE(joined(args));
        const result_t plain = run(args);
        ASSERT_EQ(plain.status, 0) << plain.err;
        ASSERT_EQ(plain.out.size(), 32u);
        std::string line = "RNDNN_VERBOSE=profile \"$RNDNN\"";
        for (const std::string &a : args)
            line += " " + quote(a);
        const result_t r = sh(line);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out.size(), 32u);
        EXPECT_TRUE(r.out == plain.out) << "the data differs";
        EXPECT_NE(r.err.find("rndnn_verbose,create,"), std::string::npos)
                << r.err;
        EXPECT_NE(r.err.find("rndnn_verbose,exec,"), std::string::npos)
                << r.err;
    }
}

// --- stream ----------------------------------------------------------------

TEST_F(Cli, StreamEqualsGenBits) {
    const result_t s = run({"stream", "--count", "1000"});
    ASSERT_EQ(s.status, 0) << s.err;
    const result_t g = run({"gen", "--dist", "bits", "--shape", "1000",
            "--out", "-"});
    ASSERT_EQ(g.status, 0) << g.err;
    EXPECT_EQ(s.out.size(), 4000u);
    EXPECT_TRUE(s.out == g.out);
}

// More than one 1 Mi-word chunk, with every parameter: the chunks must
// join seamlessly and the tail chunk must continue the stream.
TEST_F(Cli, StreamAcrossChunksEqualsApi) {
    const std::int64_t n = (std::int64_t(1) << 20) + 3;
    const result_t s = run({"stream", "--count", std::to_string(n), "--alg",
            "threefry4x32_20", "--seed", "-3", "--offset", "11", "--stream",
            "4"});
    ASSERT_EQ(s.status, 0) << s.err;
    problem_t p;
    p.alg = rndnn::rng_alg::threefry4x32_20;
    p.shape = {n};
    p.seed = -3;
    p.offset = 11;
    p.stream = 4;
    EXPECT_TRUE(s.out == api_bytes(p));
}

TEST_F(Cli, StreamStopsQuietlyOnClosedPipe) {
    const result_t r = sh("\"$RNDNN\" stream | head -c 4000");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    ASSERT_EQ(r.out.size(), 4000u);
    const result_t g = run({"gen", "--shape", "1000", "--out", "-"});
    EXPECT_TRUE(r.out == g.out);
}

// --- verify, help, usage ---------------------------------------------------

TEST_F(Cli, VerifyPasses) {
    const result_t r = run({"verify"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    std::istringstream is(r.out);
    std::vector<std::string> lines;
    for (std::string line; std::getline(is, line);)
        lines.push_back(line);
    ASSERT_GE(lines.size(), 2u);
    for (size_t i = 0; i + 1 < lines.size(); ++i)
        EXPECT_EQ(lines[i].rfind("PASS ", 0), 0u) << lines[i];
    EXPECT_EQ(lines.back(),
            std::to_string(lines.size() - 1) + " passed, 0 failed");
}

TEST_F(Cli, HelpExitsZero) {
    for (const char *cmd : {"gen", "stream", "verify", "bench"}) {
        SCOPED_TRACE(cmd);
        const result_t r = run({cmd, "--help"});
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.out.find(std::string("Usage: rndnn ") + cmd),
                std::string::npos)
                << r.out;
        EXPECT_NE(r.out.find("--help"), std::string::npos);
    }
    const result_t r = run({"--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("gen"), std::string::npos);
}

// --help and --version fail as every command's output does when stdout
// cannot be written (closed here): exit status 1, the cause on stderr.
TEST_F(Cli, HelpAndVersionFailWhereStdoutCannotBeWritten) {
    for (const char *flag : {"--help", "--version"}) {
        SCOPED_TRACE(flag);
        const result_t r = sh(std::string("\"$RNDNN\" ") + flag + " >&-");
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_NE(r.err.find("rndnn: cannot write to stdout"),
                std::string::npos)
                << r.err;
    }
}

TEST_F(Cli, NoOrUnknownCommandIsUsageError) {
    result_t r = run({});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("Usage: rndnn"), std::string::npos);
    r = run({"generate"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("rndnn: unknown command 'generate'"),
            std::string::npos)
            << r.err;
    // A control character in the name is escaped, as in every message.
    r = run({"gen\x1b[2J"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("unknown command 'gen" + rndnn::escape("\x1b")),
            std::string::npos)
            << r.err;
}

// --- bad input: exit 2, the value named, no file ---------------------------


TEST_F(Cli, BadInputIsUsageErrorAndLeavesNoFile) {
    const std::string long_name(33, 'n');
    const std::vector<bad_case_t> cases = {
            {{"--dist", "bernoulli", "--p", "1.5"}, "--p '1.5' is outside [0, 1]"},
            {{"--dist", "bernoulli", "--p", "-0.1"}, "--p '-0.1'"},
            {{"--dist", "bernoulli", "--p", "0.5x"}, "0.5x"},
            {{"--offset", "-5"}, "-5"},
            {{"--shape", "12x"}, "12x"},
            {{"--shape", "x3"}, "x3"},
            {{"--shape", "0x-3"}, "-3"},
            {{"--shape", "1.5"}, "1.5"},
            {{"--shape", "1x1x1x1x1x1x1x1x1"}, "1x1x1x1x1x1x1x1x1"},
            {{"--shape", "4294967296x4294967296"}, "4294967296x4294967296"},
            {{"--shape", "99999999999999999999"}, "99999999999999999999"},
            // 4 bytes times 2^63 - 1: more than NumPy can hold, elements or not.
            {{"--shape", "0x9223372036854775807"}, "too big for NumPy"},
            {{"--dist", "uniform", "--dtype", "u8"}, "u8"},
            {{"--dtype", "f64"}, "f64"},
            {{"--dtype", "f128"}, "f128"},
            {{"--dist", "integers", "--dtype", "f64"}, "f64"},
            {{"--dist", "uniform", "--a", "1e39", "--b", "2e39"},
                    "uniform a=1e+39 is not a finite f32"},
            {{"--dist", "normal", "--stddev", "0.7x"},
                    "--stddev '0.7x' is not a number"},
            {{"--dist", "exponential", "--scale", "1e999", "--dtype", "f64"},
                    "--scale '1e999' is out of range of double"},
            {{"--dist", "gaussian"}, "gaussian"},
            {{"--alg", "nope"}, "nope"},
            {{"--dist", "bernoulli", "--method", "bitsliced:0"}, "b=0"},
            {{"--dist", "bernoulli", "--method", "bitsliced:33"}, "b=33"},
            {{"--dist", "bernoulli", "--method", "bitsliced:x"},
                    "bitsliced:x"},
            {{"--dist", "bernoulli", "--method", "fast"}, "fast"},
            {{"--dist", "bernoulli", "--method", "fast"}, "auto, threshold32"},
            {{"--dist", "bernoulli", "--method", "fast"}, "onednn or bytewise"},
            {{"--dist", "bernoulli", "--method", "bytewise:8"},
                    "only bitsliced takes :B"},
            {{"--dist", "bernoulli", "--method", "bitsliced"},
                    "bitsliced needs :B"},
            {{"--dist", "bernoulli", "--method", "bytewise", "--alg",
                     "mcg31m1"},
                    "mcg31m1"},
            {{"--dist", "bernoulli", "--method", "bytewise", "--alg",
                     "mt19937"},
                    "mt19937"},
            {{"--dist", "bernoulli", "--method", "bitsliced:4", "--alg",
                     "mcg31m1"},
                    "mcg31m1"},
            {{"--alg", "multfly", "--name", long_name}, long_name},
            {{"--name", "layer1"}, "layer1"},
            {{"--dist", "uniform", "--a", "2", "--b", "1"}, "[2, 1)"},
            {{"--dist", "normal", "--stddev", "-1"}, "stddev=-1"},
            {{"--p", "0.3"}, "--p"},
            {{"--bogus"}, "--bogus"},
            {{"--threads", "-1"}, "-1"},
            {{"--seed", "99999999999999999999"}, "99999999999999999999"},
            {{"--seed", "1.5"}, "1.5"},
            {{"--stream", "-1"}, "-1"},
            {{"--format", "csv"}, "csv"},
            {{"stray"}, "stray"},
            {{"--offset", "9223372036854775800"}, "9223372036854775800"},
    };
    // An existing file must survive a failed run untouched.
    std::ofstream(dir_ / "keep.npy") << "old";
    for (const bad_case_t &c : cases) {
        args_t args = {"gen", "--out", "t.npy"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        if (std::find(args.begin(), args.end(), "--shape") == args.end())
            args.insert(args.end(), {"--shape", "64"});
        SCOPED_TRACE(joined(c.args));
        result_t r = run(args);
        expect_failure(r, 2, c.named);
        EXPECT_EQ(files(), std::vector<std::string> {"keep.npy"});

        // The same failure must not touch an existing output file.
        args[2] = "keep.npy";
        r = run(args);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(read_file(dir_ / "keep.npy"), "old");
    }
}

TEST_F(Cli, MissingRequiredFlagsAreUsageErrors) {
    const std::vector<bad_case_t> cases = {
            {{"gen", "--shape", "8"}, "--out"},
            {{"gen", "--out", "t.npy"}, "--shape"},
            {{"gen", "--shape", "8", "--out"}, "--out"},
            {{"stream", "--count", "1.5"}, "1.5"},
            {{"stream", "--count", "-1"}, "-1"},
            {{"stream", "--offset", "-5", "--count", "4"}, "-5"},
            {{"stream", "--name", "x"}, "'x'"},
            {{"stream", "--offset", "9223372036854775800", "--count", "8"},
                    "--count 8"},
            {{"verify", "--bogus"}, "--bogus"},
    };
    for (const bad_case_t &c : cases) {
        SCOPED_TRACE(c.args[0] + " " + c.args[1]);
        const result_t r = run(c.args);
        expect_failure(r, 2, c.named);
        EXPECT_TRUE(files().empty());
    }
}

// --- bench -----------------------------------------------------------------

std::vector<std::string> lines_of(const std::string &text) {
    std::istringstream is(text);
    std::vector<std::string> lines;
    for (std::string line; std::getline(is, line);)
        lines.push_back(line);
    return lines;
}

// Writes @p problems, a line each, to the batch file @p dir / @p file and
// @returns the arguments of `rndnn bench` that time them: --runs 2 --csv.
args_t bench_batch(const fs::path &dir, const std::string &file,
        const std::vector<std::string> &problems) {
    std::ofstream batch(dir / file);
    for (const std::string &p : problems)
        batch << p << "\n";
    return {"bench", "--batch", file, "--runs", "2", "--csv"};
}

// Splits one RFC 4180 record: fields separated by commas, a quoted field
// with its embedded quotes doubled.
std::vector<std::string> csv_fields(const std::string &line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
            fields.back() += '"', ++i;
        else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            fields.emplace_back();
        else
            fields.back() += c;
    }
    return fields;
}

const char *const bench_header = "problem,impl,threads,elements,median_s,"
                                 "gelem_per_s,gb_per_s,ratio_to_memcpy,"
                                 "ratio_to_reference";

// Checks one csv row of `rndnn bench`: its problem column, 9 fields, and
// numbers that parse and are positive.
void expect_bench_row(const std::string &row, const std::string &problem,
        std::int64_t elements) {
    SCOPED_TRACE(row);
    const std::vector<std::string> f = csv_fields(row);
    ASSERT_EQ(f.size(), 9u);
    EXPECT_EQ(row.rfind("\"", 0), 0u); // the problem is quoted
    EXPECT_EQ(f[0], problem);
    // rng's implementations, dropout's plan and kernels, or the fused
    // softmax-dropout's.
    bool known = false;
    for (const char *prefix :
            {"ref:", "jit:", "fused:", "chain:", "softmax_dropout:"})
        known = known || f[1].rfind(prefix, 0) == 0;
    EXPECT_TRUE(known) << f[1];
    EXPECT_GE(std::stoi(f[2]), 1); // threads
    EXPECT_EQ(std::stoll(f[3]), elements);
    for (size_t i = 4; i < f.size(); ++i) {
        size_t used = 0;
        const double v = std::stod(f[i], &used);
        EXPECT_EQ(used, f[i].size()) << f[i];
        EXPECT_GT(v, 0) << f[i];
    }
}

TEST_F(Cli, BenchCsvRowPerProblem) {
    const result_t r = run({"bench", "--dist", "bernoulli", "--p", "0.5",
            "--shape", "4x1024", "--threads", "1", "--runs", "3", "--csv"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(lines[0], bench_header);
    // The problem column holds the problem options, not --runs or --csv.
    expect_bench_row(lines[1],
            "--dist bernoulli --p 0.5 --shape 4x1024 --threads 1", 4096);
    EXPECT_EQ(csv_fields(lines[1])[2], "1");
}

TEST_F(Cli, BenchBatchFile) {
    // Comments, blank lines, surrounding spaces; a quote in the problem is
    // doubled in the csv.
    std::ofstream(dir_ / "b.batch")
            << "# rng problems\n"
               "\n"
               "--dist uniform --dtype bf16 --shape 4096 --isa none\n"
               "   # indented comment\n"
               "  --alg multfly --name a\"b --shape 64x64  \n";
    const result_t r = run({"bench", "--batch", "b.batch", "--runs", "3",
            "--csv"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 3u) << r.out;
    EXPECT_EQ(lines[0], bench_header);
    expect_bench_row(
            lines[1], "--dist uniform --dtype bf16 --shape 4096 --isa none",
            4096);
    expect_bench_row(lines[2], "--alg multfly --name a\"b --shape 64x64", 4096);
    EXPECT_EQ(lines[2].rfind("\"--alg multfly --name a\"\"b --shape 64x64\",",
                      0),
            0u);
    // --isa none runs the reference, which is then its own reference.
    EXPECT_EQ(csv_fields(lines[1])[1], "ref:any");
    EXPECT_EQ(csv_fields(lines[1])[8], "1");
}

TEST_F(Cli, BenchAlignedOutput) {
    const result_t r = run({"bench", "--shape", "4096", "--isa", "none",
            "--runs", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(lines[0].rfind("impl ", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1].rfind("ref:any ", 0), 0u) << lines[1];
    const std::string problem = "  --shape 4096 --isa none";
    ASSERT_GE(lines[1].size(), problem.size());
    EXPECT_EQ(lines[1].substr(lines[1].size() - problem.size()), problem);
    // The problem column starts where its header does.
    EXPECT_EQ(lines[0].find("problem"), lines[1].size() - problem.size() + 2);
}

TEST_F(Cli, BenchDropoutRows) {
    // Every kind of dropout row, and an rng row in the same batch.
    const std::vector<std::string> problems = {
            "--prim dropout --rate 0.5 --method bitsliced:1 "
            "--dt f32 --shape 4x1024 --mask-dtype bit --threads 1",
            "--prim dropout --shape 4x1024 --mask-dtype u8 --dtype bf16",
            "--prim dropout --shape 4x1024 --dtype f16 --inplace --plan chain",
            "--prim dropout --shape 4x1024 --noise-shape 4x1 --mask-dtype bit",
            "--prim dropout --backward --shape 4x1024 --mask-dtype bit",
            "--prim dropout --backward --shape 4x1024 --mask-dtype none "
            "--rate 0.1 "
            "--method bitsliced:8 --seed 5 --offset 7 --stream 3",
            "--prim dropout --shape 4x1024 --isa none",
            "--prim rng --dist bernoulli --dtype bit --shape 4x1024"};
    const result_t r = run(bench_batch(dir_, "d.batch", problems));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), problems.size() + 1) << r.out;
    EXPECT_EQ(lines[0], bench_header);
    for (size_t i = 0; i < problems.size(); ++i)
        expect_bench_row(lines[i + 1], problems[i], 4096);
    EXPECT_EQ(csv_fields(lines[3])[1].rfind("chain:", 0), 0u) << lines[3];
    // --isa none: the reference plan is its own reference.
    EXPECT_EQ(csv_fields(lines[7])[8], "1");
}

TEST_F(Cli, BenchSoftmaxDropoutRows) {
    // The fused plan, timed against the unfused pair as the reference.
    const std::vector<std::string> problems = {
            "--prim softmax_dropout --shape 8x512 --threads 1",
            "--prim softmax_dropout --shape 8x512 --backward --causal "
            "--rate 0.2",
            "--prim softmax_dropout --shape 2x4x512 --dtype f32 --backward "
            "--mask-dtype bit --method threshold32 --seed 3 --offset 5"};
    const result_t r = run(bench_batch(dir_, "s.batch", problems));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), problems.size() + 1) << r.out;
    for (size_t i = 0; i < problems.size(); ++i) {
        expect_bench_row(lines[i + 1], problems[i], 4096);
        EXPECT_EQ(csv_fields(lines[i + 1])[1].rfind("softmax_dropout:", 0), 0u)
                << lines[i + 1];
    }
}

TEST_F(Cli, BenchDropoutWithoutElements) {
    // Empty tensors have null buffers, which bench must not memset (found
    // by fuzz_problem; UBSan's nonnull-attribute in the sanitize build).
    std::ofstream(dir_ / "e.batch")
            << "--prim dropout --shape 0x4096 --mask-dtype bit\n"
               "--prim dropout --backward --shape 4x0 --mask-dtype u8\n"
               "--prim dropout --shape 0 --inplace\n";
    const result_t r = run({"bench", "--batch", "e.batch", "--runs", "1",
            "--csv"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 4u) << r.out;
    for (size_t i = 1; i < lines.size(); ++i)
        EXPECT_EQ(csv_fields(lines[i])[3], "0") << lines[i];
}

TEST_F(Cli, BenchBadInputIsUsageError) {
    std::ofstream(dir_ / "bad.batch") << "--shape 4096\n"
                                         "# fine so far\n"
                                         "--shape 4096 --dist gaussian\n";
    std::ofstream(dir_ / "badp.batch") << "--shape 64\n"
                                          "--dist bernoulli --p 1.5 "
                                          "--shape 64\n";
    std::ofstream(dir_ / "runs.batch") << "--shape 64 --runs 3\n";
    std::ofstream(dir_ / "empty.batch") << "# nothing\n\n";
    const args_t d = {"--prim", "dropout", "--shape", "4x8"};
    const auto dropout = [&](const args_t &more) {
        args_t a = d;
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };
    const std::vector<bad_case_t> cases = {
            {dropout({"--rate", "1.5"}), "--rate '1.5'"},
            {dropout({"--mask-dtype", "f32"}), "--mask-dtype 'f32'"},
            {dropout({"--plan", "fastest"}), "--plan 'fastest'"},
            {dropout({"--dtype", "u8"}), "u8"},
            {dropout({"--noise-shape", "3x1"}), "3x1"},
            {dropout({"--method", "bitsliced:0"}), "b=0"},
            {dropout({"--offset", "-1"}), "--offset -1"},
            {dropout({"--dist", "bits"}),
                    "--dist is only used with --prim rng"},
            {dropout({"--backward", "--mask-dtype", "bit", "--seed", "3"}),
                    "--seed"},
            {{"--shape", "8", "--rate", "0.3"},
                    "--rate is only used with --prim dropout"},
            {{"--prim", "rng", "--shape", "8", "--inplace"},
                    "--inplace is only used with --prim dropout"},
            {{"--prim", "rng", "--shape", "8", "--causal"},
                    "--causal is only used with --prim softmax_dropout"},
            {{"--prim", "softmax_dropout", "--shape", "4x8", "--inplace"},
                    "--inplace is only used with --prim dropout"},
            {{"--prim", "softmax_dropout", "--shape", "4x8", "--noise-shape",
                     "4x1"},
                    "--noise-shape is only used with --prim dropout"},
            {{"--prim", "softmax_dropout", "--shape", "4x8", "--isa",
                     "avx2"},
                    "--isa is not used by --prim softmax_dropout"},
            {{"--prim", "softmax_dropout", "--shape", "4x8", "--dtype",
                     "f16"},
                    "f16"},
            {{"--prim", "softmax_dropout", "--rate", "2"}, "--shape"},
            {{"--shape", "64", "--runs", "0"}, "--runs 0"},
            {{"--shape", "64", "--runs", "-2"}, "--runs -2"},
            {{"--shape", "64", "--runs", "x"}, "'x'"},
            {{"--shape", "64", "--isa", "avx1024"}, "avx1024"},
            {{"--shape", "64", "--prim", "conv"}, "conv"},
            {{"--shape", "64", "--dist", "bernoulli", "--p", "2"}, "--p '2'"},
            {{"--shape", "64", "--offset", "-1"}, "-1"},
            {{"--batch", "bad.batch"}, "bad.batch:3: unknown --dist 'gaussian'"},
            {{"--batch", "badp.batch"}, "badp.batch:2: --p '1.5' is outside"},
            {{"--batch", "runs.batch"}, "runs.batch:1:"},
            {{"--batch", "empty.batch"}, "empty.batch"},
            {{"--batch", "bad.batch", "--shape", "64"}, "--shape"},
            {{"--dist", "normal", "--batch", "bad.batch"}, "--dist"},
            {{"--runs", "3"}, "--batch"},
    };
    for (const bad_case_t &c : cases) {
        args_t args = {"bench"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        SCOPED_TRACE(joined(c.args));
        // Every problem is checked before any runs: nothing is printed.
        const result_t r = run(args);
        expect_failure(r, 2, c.named);
    }
}

TEST_F(Cli, BenchMissingBatchFileIsFailure) {
    const result_t r = run({"bench", "--batch", "missing.batch"});
    expect_failure(r, 1, "'missing.batch'");
    EXPECT_NE(r.err.find("No such file"), std::string::npos) << r.err;
}

// --- I/O failures: exit 1, a message, nothing created ----------------------

TEST_F(Cli, UnwritableOutputIsFailure) {
    fs::create_directory(dir_ / "sub");
    for (const char *out : {"missing/t.npy", "sub", "sub/"}) {
        SCOPED_TRACE(out);
        const result_t r = run({"gen", "--shape", "8", "--out", out});
        expect_failure(r, 1, out);
        EXPECT_EQ(files(), std::vector<std::string> {"sub"});
        EXPECT_TRUE(fs::is_empty(dir_ / "sub"));
    }
}

} // namespace
