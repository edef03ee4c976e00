// Every known answer of tests/data/known-answers.md, tests/data/multfly.md
// (the Multfly answers of docs/multfly.md), tests/data/bytewise.md (the
// bytewise Bernoulli method's, from scripts/bytewise_known_answers.py) and
// tests/data/integers.md (from scripts/integers_known_answers.py),
// parsed from the text itself, plus the library's built-in `verify` checks.
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "rng/engines/multfly.hpp"
#include "rng/engines/philox.hpp"
#include "rng/engines/threefry.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;

namespace {

std::string read_text(const std::string &name) {
    std::ifstream f(std::string(RNDNN_TEST_DATA_DIR) + "/" + name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<uint32_t> hex_words(const std::string &s) {
    std::vector<uint32_t> w;
    std::istringstream is(s);
    std::string tok;
    while (is >> tok)
        w.push_back(static_cast<uint32_t>(std::stoul(tok, nullptr, 16)));
    return w;
}

} // namespace

TEST(KnownAnswers, CounterBasedEnginesFromTheSpec) {
    const std::string text = read_text("known-answers.md");
    const std::regex line(R"((philox4x32|threefry4x32) (\d+) ctr ([0-9a-f ]+?) )"
                          R"(key ([0-9a-f ]+?)\s*->\s*([0-9a-f ]+))");
    int checked = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        const auto ctr = hex_words(m[3]), key = hex_words(m[4]);
        const auto expect = hex_words(m[5].str().substr(0, 35));
        ASSERT_EQ(ctr.size(), 4u);
        ASSERT_EQ(expect.size(), 4u);
        uint32_t out[4];
        if (m[1] == "philox4x32") {
            ASSERT_EQ(m[2], "10");
            impl::philox4x32_10(ctr.data(), key.data(), out);
        } else {
            ASSERT_EQ(m[2], "20");
            impl::threefry4x32_20(ctr.data(), key.data(), out);
        }
        EXPECT_EQ(std::vector<uint32_t>(out, out + 4), expect) << m[0];
        ++checked;
    }
    EXPECT_EQ(checked, 6);
}

TEST(KnownAnswers, Mt19937FromTheSpec) {
    const std::string text = read_text("known-answers.md");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m,
            std::regex(R"(seeded with (\d+): output number (\d+) .*is (\d+))")));
    const int64_t seed = std::stoll(m[1]), g = std::stoll(m[2]);
    const auto w = test::engine_words(rng_alg::mt19937, seed, 0, g, 1);
    EXPECT_EQ(w[0], std::stoul(m[3]));
    std::mt19937 ref(static_cast<uint32_t>(seed));
    ref.discard(g);
    EXPECT_EQ(w[0], ref());
}

TEST(KnownAnswers, MultflyFromTheSpec) {
    const std::string text = read_text("multfly.md");
    auto words_after = [&](const std::string &label, size_t count) {
        const size_t at = text.find(label);
        EXPECT_NE(at, std::string::npos) << label;
        const size_t eq = text.find('=', at + label.size() - 1);
        std::istringstream is(text.substr(eq + 1));
        std::vector<uint32_t> w;
        std::string tok;
        while (w.size() < count && is >> tok)
            w.push_back(static_cast<uint32_t>(std::stoul(tok, nullptr, 16)));
        return w;
    };
    const auto key0 = words_after("initkey(no name, seed 0, ctr 0)", 8);
    const auto gen0 = words_after("gen32(that key, idx 0, ctr 0)", 4);
    const auto gen100 = words_after("gen32(that key, idx 100, ctr 0)", 4);
    const auto named = words_after(
            "initkey(\"abcdefghijklmnopqrstuvwxyz123456\", seed 78, ctr 90)", 8);
    uint32_t key[8], out[4];
    impl::multfly_initkey(nullptr, 0, 0, 0, key);
    EXPECT_EQ(std::vector<uint32_t>(key, key + 8), key0);
    impl::multfly_gen32(key, 0, 0, out);
    EXPECT_EQ(std::vector<uint32_t>(out, out + 4), gen0);
    impl::multfly_gen32(key, 100, 0, out);
    EXPECT_EQ(std::vector<uint32_t>(out, out + 4), gen100);
    const std::string name = "abcdefghijklmnopqrstuvwxyz123456";
    impl::multfly_initkey(reinterpret_cast<const uint8_t *>(name.data()),
            name.size(), 78, 90, key);
    EXPECT_EQ(std::vector<uint32_t>(key, key + 8), named);
    // Through the stream layout: W(g) = word g % 4 of gen32(idx = g / 4).
    EXPECT_EQ(test::engine_words(rng_alg::multfly, 0, 0, 400, 4), gen100);
}

// tests/data/bytewise.md, from scripts/bytewise_known_answers.py (the
// method's definition over a Philox of its own): the mask of each line at
// every tier this process may use and in the reference.
TEST(KnownAnswers, BytewiseFromTheSpec) {
    const std::string text = read_text("bytewise.md");
    const std::regex line(R"(bytewise (\w+) seed (\d+) stream (\d+) )"
                          R"(offset (\d+) p (\S+) n (\d+) ties (\d+)\s*)"
                          R"(->\s*([0-9a-f]+))");
    int checked = 0, ties = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        const rng_alg alg = str2alg(m[1]);
        const auto seed = static_cast<int64_t>(std::stoull(m[2]));
        const auto strm = static_cast<int64_t>(std::stoull(m[3]));
        const auto offset = static_cast<int64_t>(std::stoull(m[4]));
        const double p = std::strtod(m[5].str().c_str(), nullptr);
        const auto n = static_cast<dim_t>(std::stoll(m[6]));
        ties += std::stoi(m[7]);
        const std::string want = m[8];
        rng::desc d(alg, memory::desc({n}, data_type::bit));
        post_ops po;
        po.append_bernoulli(p, bernoulli_method::bytewise);
        std::vector<cpu_isa> caps = test::available_tiers();
        caps.push_back(cpu_isa::none);
        for (cpu_isa cap : caps) {
            primitive_attr attr;
            attr.set_post_ops(po);
            attr.set_max_cpu_isa(cap);
            std::vector<uint8_t> mask(d.dst.get_size());
            test::run_args_t r;
            r.seed = seed;
            r.offset = offset;
            r.stream = strm;
            r.nthr = 2;
            test::generate(d, attr, mask.data(), r);
            std::string got;
            char hex[3];
            for (uint8_t b : mask) {
                std::snprintf(hex, sizeof(hex), "%02x", b);
                got += hex;
            }
            EXPECT_EQ(got, want) << m[0] << " cap " << isa2str(cap);
        }
        ++checked;
    }
    EXPECT_EQ(checked, 5);
    EXPECT_GT(ties, 20); // the tie words are reached
}

// The values of the post-ops @p po (integers) into d's dst under ISA cap
// @p cap, as s64.
static std::vector<int64_t> integers_values(const rng::desc &d,
        const post_ops &po, cpu_isa cap, const test::run_args_t &r) {
    primitive_attr attr;
    attr.set_post_ops(po);
    attr.set_max_cpu_isa(cap);
    std::vector<unsigned char> buf(d.dst.get_size());
    test::generate(d, attr, buf.data(), r);
    const data_type dt = d.dst.get_data_type();
    const dim_t n = d.dst.nelems();
    std::vector<int64_t> got(n);
    for (dim_t i = 0; i < n; ++i) {
        const unsigned char *at = buf.data() + i * dt_bits(dt) / 8;
        int32_t v32 = 0;
        float f = 0;
        switch (dt) {
            case data_type::s64: std::memcpy(&got[i], at, 8); break;
            case data_type::s32:
                std::memcpy(&v32, at, 4);
                got[i] = v32;
                break;
            case data_type::u8: got[i] = *at; break;
            default:
                std::memcpy(&f, at, 4);
                got[i] = static_cast<int64_t>(f);
        }
    }
    return got;
}

// tests/data/integers.md, from scripts/integers_known_answers.py (the
// definition over a Philox and exact integers of its own): the values of
// each line at every tier this process may use and in the reference, on 1
// and 3 threads.
TEST(KnownAnswers, IntegersFromTheSpec) {
    const std::string text = read_text("integers.md");
    const std::regex line(R"(integers (\w+) seed (\d+) stream (\d+) )"
                          R"(offset (\d+) low (-?\d+) high (-?\d+) (\w+) )"
                          R"(n (\d+)\s*->\s*([-0-9 ]+))");
    int checked = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        test::run_args_t r;
        r.seed = static_cast<int64_t>(std::stoull(m[2]));
        r.stream = static_cast<int64_t>(std::stoull(m[3]));
        r.offset = static_cast<int64_t>(std::stoll(m[4]));
        const int64_t low = std::stoll(m[5].str()),
                      high = std::stoll(m[6].str());
        const auto n = static_cast<dim_t>(std::stoll(m[8]));
        const rng::desc d(str2alg(m[1]), memory::desc({n}, str2dt(m[7])));
        std::vector<int64_t> want;
        std::istringstream is(m[9].str());
        for (int64_t v; is >> v;)
            want.push_back(v);
        ASSERT_EQ(static_cast<dim_t>(want.size()), n) << m[0];
        post_ops po;
        po.append_integers(low, high);
        for (cpu_isa cap : test::test_tiers())
            for (int nthr : {1, 3}) {
                r.nthr = nthr;
                EXPECT_EQ(integers_values(d, po, cap, r), want)
                        << m[0] << " cap " << isa2str(cap) << " nthr "
                        << nthr;
            }
        ++checked;
    }
    EXPECT_EQ(checked, 10);
}

TEST(KnownAnswers, BuiltInVerifyPasses) {
    const auto results = run_known_answers();
    EXPECT_GE(results.size(), 14u);
    for (const auto &r : results)
        EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}
