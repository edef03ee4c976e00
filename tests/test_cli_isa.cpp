// CLI tests of the ISA tiers: RNDNN_MAX_CPU_ISA, RNDNN_HIDE_CPU_ISA,
// RNDNN_JIT_FAIL and RNDNN_VERBOSE=check|dispatch through `rndnn gen` (and
// `rndnn dropout`) state which implementation serves a problem (its
// verbose lines, on stderr), that every tier writes the reference's file,
// and that a bad cap, hidden tier or failed tier fails naming its value.
// The library's side of the same
// (the attribute's cap, the implementation list) is test_rng_jit.cpp's.
// In a build without JIT (get_max_cpu_isa() == none) the tests that need a
// tier skip.
#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "src/cpu_isa.hpp"
#include "tests/cli_fixture.hpp"
#include "tests/test_utils.hpp"

namespace {

using namespace rndnn;
using namespace rndnn::test;

std::string jit_name(cpu_isa isa) { return impl::jit_impl_name(isa); }

std::vector<std::string> lines_starting(
        const std::string &text, const std::string &prefix) {
    std::vector<std::string> v;
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);)
        if (line.rfind(prefix, 0) == 0) v.push_back(line);
    return v;
}

// The implementations named by the creation lines of `out`, each once: gen
// creates one primitive to check the whole problem, then one per size of
// its pieces.
std::vector<std::string> created(const std::string &out) {
    std::vector<std::string> v;
    for (const std::string &line :
            lines_starting(out, "rndnn_verbose,create,")) {
        const size_t s = std::strlen("rndnn_verbose,create,");
        const std::string name = line.substr(s, line.find(',', s) - s);
        if (std::find(v.begin(), v.end(), name) == v.end()) v.push_back(name);
    }
    return v;
}

// Cli's fixture; each script sets the environment of its `"$RNDNN" ...`.
class CliIsa : public Cli {
protected:
    // Runs the command line `cmd` with RNDNN_VERBOSE=dispatch and
    // RNDNN_MAX_CPU_ISA=`isa`.
    result_t dispatch(const std::string &isa, const std::string &cmd) {
        return sh("RNDNN_VERBOSE=dispatch RNDNN_MAX_CPU_ISA=" + isa + " " + cmd);
    }

    // Runs `gen`, which writes `file`, with RNDNN_MAX_CPU_ISA=none, then
    // with each cap of `caps` through dispatch(): each run must succeed
    // and write the same file of `size` bytes; check(cap, result) checks
    // the rest of each capped run.
    template <typename F>
    void each_cap_writes_the_reference(const std::string &gen,
            const std::string &file, size_t size,
            const std::vector<cpu_isa> &caps, const F &check) {
        ASSERT_EQ(sh("RNDNN_MAX_CPU_ISA=none " + gen).status, 0);
        const bytes_t ref = read_file(dir_ / file);
        ASSERT_EQ(ref.size(), size);
        for (cpu_isa cap : caps) {
            SCOPED_TRACE(isa2str(cap));
            fs::remove(dir_ / file);
            const result_t r = dispatch(isa2str(cap), gen);
            ASSERT_EQ(r.status, 0) << r.err;
            check(cap, r);
            EXPECT_TRUE(read_file(dir_ / file) == ref) << "output differs";
        }
    }
};

const std::string gen_bernoulli
        = "\"$RNDNN\" gen --dist bernoulli --p 0.3 --shape 3x1000 --seed -3 "
          "--offset 5 --stream 7 --threads 2 --out m.bin";
const char *const bernoulli_problem
        = "alg=philox4x32_10,dist=bernoulli:p=0.3:bitsliced:32,dst=bit:3x1000,";

TEST_F(CliIsa, MaxCpuIsaNoneSelectsReference) {
    const result_t r = dispatch("none", gen_bernoulli);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find(std::string("rndnn_verbose,create,ref:any,")
                      + bernoulli_problem),
            std::string::npos)
            << r.err;
    EXPECT_EQ(created(r.err), std::vector<std::string> {"ref:any"}) << r.err;
    EXPECT_EQ(read_file(dir_ / "m.bin").size(), 375u);
}

TEST_F(CliIsa, MaxCpuIsaSelectsTheTier) {
    SKIP_WITHOUT_JIT();
    each_cap_writes_the_reference(gen_bernoulli, "m.bin", 375,
            available_tiers(), [](cpu_isa tier, const result_t &r) {
                EXPECT_NE(r.err.find("rndnn_verbose,create," + jit_name(tier)
                                  + "," + bernoulli_problem),
                        std::string::npos)
                        << r.err;
                EXPECT_EQ(created(r.err),
                        std::vector<std::string> {jit_name(tier)})
                        << r.err;
            });
}

// RNDNN_MAX_CPU_ISA caps mt19937's vector words as it caps the JIT
// kernels, and the verbose line names the code that runs; the words are
// the same at every tier.
TEST_F(CliIsa, MaxCpuIsaCapsMt19937) {
    const std::string gen_mt = "\"$RNDNN\" gen --alg mt19937 --shape 3x1000 "
                               "--seed 5489 --offset 600 --threads 2 "
                               "--out w.bin";
    each_cap_writes_the_reference(gen_mt, "w.bin", 12000, test_tiers(),
            [](cpu_isa tier, const result_t &r) {
                EXPECT_EQ(created(r.err),
                        std::vector<std::string> {mt19937_impl_name(tier)})
                        << r.err;
            });
}

TEST_F(CliIsa, BadMaxCpuIsaFailsNamingTheValue) {
    const result_t r = sh("RNDNN_MAX_CPU_ISA=bogus " + gen_bernoulli);
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("bogus"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("RNDNN_MAX_CPU_ISA"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "m.bin"));
    // Also with the reference kernel asked for by --dist bits.
    const result_t b = sh("RNDNN_MAX_CPU_ISA=AVX9 \"$RNDNN\" gen --shape 8 "
                          "--out w.bin");
    EXPECT_NE(b.status, 0);
    EXPECT_NE(b.err.find("AVX9"), std::string::npos) << b.err;
    EXPECT_FALSE(fs::exists(dir_ / "w.bin"));
}

// RNDNN_HIDE_CPU_ISA makes detection report a CPU without the named tier
// and those above it: their entries decline saying that the CPU lacks them
// (and that they are hidden, where the CPU has them), the best tier below
// serves (the reference below sse41), and the file is the reference's.
TEST_F(CliIsa, HideCpuIsaActsAsALesserCpu) {
    SKIP_WITHOUT_JIT();
    ASSERT_EQ(sh("RNDNN_MAX_CPU_ISA=none " + gen_bernoulli).status, 0);
    const bytes_t ref = read_file(dir_ / "m.bin");
    for (cpu_isa hidden : impl::jit_tiers()) {
        SCOPED_TRACE(isa2str(hidden));
        fs::remove(dir_ / "m.bin");
        const std::string var
                = std::string("RNDNN_HIDE_CPU_ISA=") + isa2str(hidden);
        const result_t r = sh("RNDNN_VERBOSE=dispatch " + var + " "
                + gen_bernoulli);
        ASSERT_EQ(r.status, 0) << r.err;
        for (cpu_isa tier : impl::jit_tiers()) {
            if (tier < hidden) continue;
            const auto lines = lines_starting(r.err,
                    "rndnn_verbose,check," + jit_name(tier) + ","
                            + bernoulli_problem + "declined: the CPU lacks "
                            + isa2str(tier));
            EXPECT_FALSE(lines.empty()) << r.err;
            const bool present = impl::cpu_isa_present() >= tier;
            for (const std::string &line : lines)
                EXPECT_EQ(line.find("(hidden: " + var + ")")
                                != std::string::npos,
                        present)
                        << line;
        }
        std::string want = "ref:any";
        for (cpu_isa tier : available_tiers())
            if (tier < hidden) {
                want = jit_name(tier);
                break; // best first
            }
        EXPECT_EQ(created(r.err), std::vector<std::string> {want}) << r.err;
        EXPECT_TRUE(read_file(dir_ / "m.bin") == ref) << "output differs";
    }
}

TEST_F(CliIsa, BadHideCpuIsaFailsNamingTheValue) {
    for (const char *bad : {"avx9", "none", "all", "AVX512"}) {
        const result_t r = sh(std::string("RNDNN_HIDE_CPU_ISA=") + bad + " "
                + gen_bernoulli);
        EXPECT_NE(r.status, 0) << bad;
        EXPECT_NE(r.err.find(std::string("'") + bad + "'"), std::string::npos)
                << r.err;
        EXPECT_NE(r.err.find("RNDNN_HIDE_CPU_ISA"), std::string::npos)
                << r.err;
        EXPECT_FALSE(fs::exists(dir_ / "m.bin"));
    }
}

// RNDNN_JIT_FAIL=1 makes the generation of every JIT kernel fail (as a
// W^X policy that refuses executable memory would): `rndnn gen` and
// `rndnn dropout` still exit 0 and write the same bytes, each JIT entry
// that served without it declines saying why, and none of rndnn's JIT
// kernels serves (oneDNN's own, e.g. the chain's eltwise, are not rndnn's
// to fail). Where no JIT kernel served, nothing changes. Verbose lines are
// looked for on stdout and stderr.
TEST_F(CliIsa, JitFailDeclinesToTheNextImplementation) {
    ASSERT_EQ(sh("\"$RNDNN\" gen --dist uniform --a -2 --b 2 --shape 8x1001 "
                 "--seed 3 --out x.npy")
                      .status,
            0);
    const std::string reason = "declined: code generation failed: can't "
                               "protect (RNDNN_JIT_FAIL is set)";
    // The names of rndnn's JIT tiers in created lines ("fused:jit:avx2",
    // "chain:jit:avx2+jit:avx2+onednn:jit:avx512_core": not oneDNN's).
    const auto rndnn_jit = [](const std::vector<std::string> &names) {
        std::vector<std::string> v;
        for (const std::string &name : names) {
            std::istringstream is(name);
            for (std::string part; std::getline(is, part, '+');)
                if (part.rfind("onednn:", 0) != 0
                        && part.find("jit:") != std::string::npos)
                    v.push_back(part);
        }
        return v;
    };
    const std::vector<std::pair<std::string, std::string>> runs = {
            {"gen --dist uniform --shape 3x1000 --seed 5 --out u.npy",
                    "u.npy"},
            {"gen --dist normal --dtype bf16 --shape 3x1000 --out n.npy",
                    "n.npy"},
            {"gen --dist bernoulli --p 0.3 --shape 3x1000 --alg "
             "threefry4x32_20 --out m.bin",
                    "m.bin"},
            {"dropout --in x.npy --out y.npy --rate 0.3 --seed 4 "
             "--mask-out mask.npy",
                    "y.npy"},
            {"dropout --in x.npy --out y.npy --rate 0.3 --seed 4 "
             "--mask-out mask.npy",
                    "mask.npy"},
            {"dropout --backward --in x.npy --out g.npy --rate 0.3 "
             "--mask-in mask.npy",
                    "g.npy"},
            {"dropout --backward --in x.npy --out h.npy --rate 0.3 --seed 4",
                    "h.npy"},
            {"dropout --in x.npy --out z.npy --rate 0.3 --plan chain "
             "--threads 2",
                    "z.npy"},
    };
    for (const auto &run : runs) {
        SCOPED_TRACE(run.first);
        const std::string cmd
                = "RNDNN_VERBOSE=dispatch \"$RNDNN\" " + run.first;
        const result_t plain = sh(cmd);
        ASSERT_EQ(plain.status, 0) << plain.err;
        const bytes_t want = read_file(dir_ / run.second);
        fs::remove(dir_ / run.second);
        const result_t r = sh("RNDNN_JIT_FAIL=1 " + cmd);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err.find("rndnn: "), std::string::npos) << r.err;
        EXPECT_TRUE(read_file(dir_ / run.second) == want) << "output differs";
        const std::string lines = r.out + r.err;
        const std::vector<std::string> before = created(plain.out + plain.err);
        ASSERT_FALSE(created(lines).empty()) << lines;
        EXPECT_TRUE(rndnn_jit(created(lines)).empty()) << lines;
        if (rndnn_jit(before).empty()) {
            EXPECT_EQ(created(lines), before) << lines;
            EXPECT_EQ(lines.find(reason), std::string::npos) << lines;
        } else {
            EXPECT_NE(lines.find(reason), std::string::npos) << lines;
        }
    }
}

// A value that names no tier fails the creation of a JIT kernel, naming
// it (where no JIT kernel is created, it goes unread).
TEST_F(CliIsa, BadJitFailFailsNamingTheValue) {
    SKIP_WITHOUT_JIT();
    for (const char *bad : {"yes", "none", "AVX2"}) {
        const result_t r = sh(
                std::string("RNDNN_JIT_FAIL=") + bad + " " + gen_bernoulli);
        EXPECT_EQ(r.status, 2) << bad;
        EXPECT_NE(r.err.find(std::string("RNDNN_JIT_FAIL='") + bad + "'"),
                std::string::npos)
                << r.err;
        EXPECT_FALSE(fs::exists(dir_ / "m.bin"));
    }
}

// The sse41 kernel must say why it declines uniform.
TEST_F(CliIsa, CheckLevelReportsTheDecliningKernel) {
    if (get_max_cpu_isa() < cpu_isa::sse41)
        GTEST_SKIP() << "sse41 not available: get_max_cpu_isa() = "
                     << isa2str(get_max_cpu_isa());
    const result_t r = dispatch(
            "sse41", "\"$RNDNN\" gen --dist uniform --shape 64 --out u.bin");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string prefix = "rndnn_verbose,check,jit:sse41,"
                               "alg=philox4x32_10,dist=uniform:0:1,"
                               "dst=f32:64,declined: ";
    const auto declined = lines_starting(r.err, prefix);
    ASSERT_FALSE(declined.empty()) << r.err;
    for (const std::string &line : declined)
        EXPECT_GT(line.size(), prefix.size()) << "no reason given: " << line;
    EXPECT_EQ(created(r.err), std::vector<std::string> {"ref:any"}) << r.err;
    // At level check, the creation line is not printed.
    const result_t c = sh("RNDNN_VERBOSE=check RNDNN_MAX_CPU_ISA=sse41 "
                          "\"$RNDNN\" gen --dist uniform --shape 64 "
                          "--out v.bin");
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_FALSE(lines_starting(c.err, prefix).empty()) << c.err;
    EXPECT_TRUE(created(c.err).empty()) << c.err;
}

} // namespace
