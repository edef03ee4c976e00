// Every known answer of tests/data/known-answers.md, tests/data/multfly.md
// (the Multfly answers of docs/multfly.md), tests/data/bytewise.md (the
// bytewise Bernoulli method's, from scripts/bytewise_known_answers.py),
// tests/data/integers.md (from scripts/integers_known_answers.py),
// tests/data/permutation.md (from scripts/permutation_known_answers.py),
// tests/data/bernoulli_p.md (from scripts/bernoulli_p_known_answers.py) and
// tests/data/f64.md (from scripts/f64_known_answers.py),
// parsed from the text itself, plus the library's built-in `verify` checks.
// The distribution values of known-answers.md are also computed here from
// docs/semantics.md's formulas, written out again apart from the library.
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "rng/distributions.hpp"
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

// The values of the post-ops @p po (integers, permutation) into d's dst under ISA cap
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

// The run arguments a known-answer line gives as decimal text: its seed
// (an s64's bits as u64), stream and offset.
static test::run_args_t line_args(const std::string &seed,
        const std::string &stream, const std::string &offset) {
    test::run_args_t r;
    r.seed = static_cast<int64_t>(std::stoull(seed));
    r.stream = static_cast<int64_t>(std::stoull(stream));
    r.offset = static_cast<int64_t>(std::stoull(offset));
    return r;
}

// Expects @p d with @p po to write @p want (each element's bits as a T)
// at every tier this process may use, on 2 threads; @p what names the line.
template <typename T>
static void expect_bits_at_every_tier(const rng::desc &d, const post_ops &po,
        test::run_args_t r, const std::vector<T> &want,
        const std::string &what) {
    r.nthr = 2;
    for (cpu_isa cap : test::test_tiers()) {
        primitive_attr attr;
        attr.set_post_ops(po);
        attr.set_max_cpu_isa(cap);
        std::vector<T> got(want.size());
        test::generate(d, attr, got.data(), r);
        EXPECT_EQ(got, want) << what << " cap " << isa2str(cap);
    }
}

// Checks the integer values @p text (space-separated) of a known-answer
// line @p what: d's dst of @p count elements under post-ops @p po, at every
// tier this process may use and in the reference, on 1 and 3 threads.
static void expect_integer_answers(const rng::desc &d, const post_ops &po,
        test::run_args_t r, dim_t count, const std::string &text,
        const std::string &what) {
    std::vector<int64_t> want;
    std::istringstream is(text);
    for (int64_t v; is >> v;)
        want.push_back(v);
    ASSERT_EQ(static_cast<dim_t>(want.size()), count) << what;
    for (cpu_isa cap : test::test_tiers())
        for (int nthr : {1, 3}) {
            r.nthr = nthr;
            EXPECT_EQ(integers_values(d, po, cap, r), want)
                    << what << " cap " << isa2str(cap) << " nthr " << nthr;
        }
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
        const test::run_args_t r = line_args(m[2], m[3], m[4]);
        const int64_t low = std::stoll(m[5].str()),
                      high = std::stoll(m[6].str());
        const auto n = static_cast<dim_t>(std::stoll(m[8]));
        const rng::desc d(str2alg(m[1]), memory::desc({n}, str2dt(m[7])));
        post_ops po;
        po.append_integers(low, high);
        expect_integer_answers(d, po, r, n, m[9].str(), m[0].str());
        ++checked;
    }
    EXPECT_EQ(checked, 10);
}

// tests/data/permutation.md, from scripts/permutation_known_answers.py (the
// definition over a Philox and exact integers of its own): the values of
// each line at every tier this process may use (the JIT tiers decline, the
// reference serves) on 1 and 3 threads.
TEST(KnownAnswers, PermutationFromTheSpec) {
    const std::string text = read_text("permutation.md");
    const std::regex line(R"(permutation seed (\d+) stream (\d+) n (\d+) )"
                          R"(offset (\d+) (\w+) count (\d+)\s*->\s*([0-9 ]+))");
    int checked = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        const test::run_args_t r = line_args(m[1], m[2], m[4]);
        const int64_t n = std::stoll(m[3]);
        const auto count = static_cast<dim_t>(std::stoll(m[6]));
        const rng::desc d(rng_alg::philox4x32_10,
                memory::desc({count}, str2dt(m[5])));
        post_ops po;
        po.append_permutation(n);
        expect_integer_answers(d, po, r, count, m[7].str(), m[0].str());
        ++checked;
    }
    EXPECT_EQ(checked, 10);
}

// tests/data/bernoulli_p.md, from scripts/bernoulli_p_known_answers.py
// (the definition over a Philox and exact comparisons of its own): each
// line's 0/1 values from its p tensor, at every tier this process may use
// and in the reference, on 1 and 3 threads.
TEST(KnownAnswers, BernoulliPFromTheSpec) {
    const std::string text = read_text("bernoulli_p.md");
    const std::regex line(R"(bernoulli_p (\w+) seed (\d+) stream (\d+) )"
                          R"(offset (\d+) (\w+) dims ([0-9x]+) p ([0-9x]+)\s*)"
                          R"(p -> ([0-9a-f ]+?)\s*-> ([01 ]+))");
    const auto to_dims = [](const std::string &t) {
        dims d;
        std::istringstream is(t);
        for (std::string tok; std::getline(is, tok, 'x');)
            d.push_back(std::stoll(tok));
        return d;
    };
    int checked = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        test::run_args_t r = line_args(m[2], m[3], m[4]);
        const data_type pdt = str2dt(m[5]);
        rng::desc d(str2alg(m[1]), memory::desc(to_dims(m[6]), data_type::u8));
        d.p_tensor = memory::desc(to_dims(m[7]), pdt);
        d.with_offset = true;
        const auto pw = hex_words(m[8]);
        std::vector<float> p32;
        std::vector<uint16_t> p16;
        for (uint32_t w : pw) {
            p16.push_back(static_cast<uint16_t>(w));
            float f;
            std::memcpy(&f, &w, 4);
            p32.push_back(f);
        }
        ASSERT_EQ(static_cast<dim_t>(pw.size()), d.p_tensor.nelems());
        void *pdata = pdt == data_type::bf16 ? static_cast<void *>(p16.data())
                                             : static_cast<void *>(p32.data());
        std::vector<uint8_t> want;
        std::istringstream is(m[9].str());
        for (int v; is >> v;)
            want.push_back(static_cast<uint8_t>(v));
        ASSERT_EQ(static_cast<dim_t>(want.size()), d.dst.nelems());
        post_ops po;
        po.append_bernoulli(0.5);
        for (cpu_isa cap : test::test_tiers())
            for (int nthr : {1, 3}) {
                primitive_attr attr;
                attr.set_post_ops(po);
                attr.set_max_cpu_isa(cap);
                std::vector<uint8_t> got(want.size());
                rng(rng::primitive_desc(d, attr))
                        .execute(stream(nthr),
                                {{RNDNN_ARG_DST, memory(d.dst, got.data())},
                                        {RNDNN_ARG_SRC,
                                                memory(d.p_tensor, pdata)},
                                        {RNDNN_ARG_SEED,
                                                memory::scalar(r.seed)},
                                        {RNDNN_ARG_OFFSET,
                                                memory::scalar(r.offset)},
                                        {RNDNN_ARG_STREAM,
                                                memory::scalar(r.stream)}});
                EXPECT_EQ(got, want) << m[0].str() << " cap "
                                     << isa2str(cap) << " nthr " << nthr;
            }
        ++checked;
    }
    EXPECT_EQ(checked, 5);
}

namespace {

// docs/semantics.md's formulas, step by step (f32, no contraction), on
// Philox4x32-10 words: W(g) = word g % 4 of Philox4x32-10 at counter
// {lo32(g / 4), hi32(g / 4), lo32(stream), hi32(stream)}, key {lo32(seed),
// hi32(seed)}.
uint32_t ka_word(uint64_t seed, uint64_t strm, uint64_t g) {
    const uint32_t ctr[4] = {static_cast<uint32_t>(g / 4),
            static_cast<uint32_t>(g / 4 >> 32), static_cast<uint32_t>(strm),
            static_cast<uint32_t>(strm >> 32)};
    const uint32_t key[2]
            = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    uint32_t out[4];
    impl::philox4x32_10(ctr, key, out);
    return out[g % 4];
}

uint32_t ka_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float ka_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

float ka_ln(float x) {
    int32_t e = static_cast<int32_t>(ka_bits(x) >> 23) - 126;
    uint32_t mb = (ka_bits(x) & 0x007FFFFFu) | 0x3F000000u;
    if (mb < 0x3F3504F3u) {
        mb += 0x00800000u;
        e -= 1;
    }
    const float m = ka_float(mb);
    const float s = (m - 1) / (m + 1), s2 = s * s;
    float q = 1.f / 11;
    for (float c : {1.f / 9, 1.f / 7, 1.f / 5, 1.f / 3})
        q = q * s2 + c;
    q = q * s2;
    const float ln_m = (s + s * q) * 2;
    const auto fe = static_cast<float>(e);
    return (fe * -2.12194440e-4f + ln_m) + fe * 0.693359375f;
}

float ka_normal(uint32_t w0, uint32_t w1, bool odd, float mean, float sd) {
    const float u1 = static_cast<float>((w0 >> 8) + 1) * 0x1p-24f;
    const float r = std::sqrt(ka_ln(u1) * -2);
    const uint32_t j = (w1 >> 8) + (1u << 21), quad = (j >> 22) & 3;
    const float t = static_cast<float>(static_cast<int32_t>(j & ((1u << 22) - 1))
                            - (1 << 21))
            * 0x1p-22f;
    const float t2 = t * t;
    float sp = -3.59884323521e-6f, c = -2.52020423731e-5f;
    for (float k : {0.000160441184758f, -0.00468175413532f,
                 0.0796926262462f, -0.645964097506f, 1.57079632679f})
        sp = sp * t2 + k;
    for (float k : {0.000919260274839f, -0.0208634807634f, 0.253669507901f,
                 -1.23370055014f, 1.f})
        c = c * t2 + k;
    const float sn0 = sp * t;
    float sn = quad & 1 ? c : sn0, cs = quad & 1 ? sn0 : c;
    if (quad == 2 || quad == 3) sn = -sn;
    if (quad == 1 || quad == 2) cs = -cs;
    return mean + sd * (r * (odd ? sn : cs));
}

float ka_exp(float t) {
    t = std::min(std::max(t, -104.f), 89.f);
    const float y = t * 1.44269504089f + 12582912.f;
    const float nf = y - 12582912.f;
    const auto n = static_cast<int32_t>(ka_bits(y) - 0x4B400000u);
    const float r = (t - nf * 0.693359375f) - nf * -2.12194440e-4f;
    float p = 1.f / 40320;
    for (float k : {1.f / 5040, 1.f / 720, 1.f / 120, 1.f / 24, 1.f / 6, 0.5f,
                 1.f, 1.f})
        p = p * r + k;
    const int32_t n1 = n >> 1, n2 = n - n1;
    return p * ka_float(static_cast<uint32_t>(n1 + 127) << 23)
            * ka_float(static_cast<uint32_t>(n2 + 127) << 23);
}

// The f32 bits the library writes for those values, under ISA cap @p cap.
std::vector<uint32_t> library_values(const std::string &dist, float p0,
        float p1, uint64_t seed, uint64_t strm, uint64_t off, size_t n,
        cpu_isa cap) {
    rng::desc d(rng_alg::philox4x32_10,
            memory::desc({static_cast<dim_t>(n)}, data_type::f32));
    primitive_attr attr;
    attr.set_post_ops([&] {
        post_ops po;
        po.append_distribution(dist,
                find_distribution(dist).params.size() == 1
                        ? std::vector<double> {p0}
                        : std::vector<double> {p0, p1});
        return po;
    }());
    attr.set_max_cpu_isa(cap);
    std::vector<uint32_t> got(n);
    test::run_args_t r;
    r.seed = static_cast<int64_t>(seed);
    r.offset = static_cast<int64_t>(off);
    r.stream = static_cast<int64_t>(strm);
    r.nthr = 2;
    test::generate(d, attr, got.data(), r);
    return got;
}

} // namespace

// The distribution values of known-answers.md (f32 bits): from the
// formulas above, and from the library at every tier.
TEST(KnownAnswers, DistributionValuesFromTheSpec) {
    const std::string text = read_text("known-answers.md");
    const std::regex line(
            R"((exponential|gumbel|lognormal|laplace|rayleigh)\(([-0-9.e]+))"
            R"((?:, ([-0-9.e]+))?\) seed (\d+) stream (\d+) )"
            R"(offset (\d+)\s*->((?:\s+[0-9a-f]{8})+))");
    int checked = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        const std::string dist = m[1];
        const float p0 = std::stof(m[2]);
        const float p1 = m[3].matched ? std::stof(m[3]) : 0.f;
        const uint64_t seed = std::stoull(m[4]), strm = std::stoull(m[5]),
                       off = std::stoull(m[6]);
        const auto want = hex_words(m[7]);
        std::vector<uint32_t> mine;
        for (uint64_t g = off; g < off + want.size(); ++g) {
            const uint32_t w = ka_word(seed, strm, g);
            float x;
            if (dist == "exponential") {
                x = (0 - ka_ln(static_cast<float>((w >> 8) + 1) * 0x1p-24f)) * p0;
            } else if (dist == "gumbel") {
                const float u = static_cast<float>((w >> 8) + 1) * 0x1p-24f;
                x = p0 - p1 * ka_ln(std::max(0 - ka_ln(u), 0x1p-25f));
            } else if (dist == "laplace") { // the sign from bit 0
                const float u = static_cast<float>((w >> 8) + 1) * 0x1p-24f;
                const float t = (0 - ka_ln(u)) * p1;
                x = p0 + ((w & 1) ? -t : t);
            } else if (dist == "rayleigh") { // sqrt(2 exponential(1)) p0
                const float u = static_cast<float>((w >> 8) + 1) * 0x1p-24f;
                x = std::sqrt((0 - ka_ln(u)) * 2.f) * p0;
            } else {
                x = ka_exp(ka_normal(ka_word(seed, strm, g & ~1ull),
                        ka_word(seed, strm, g | 1), g & 1, p0, p1));
            }
            mine.push_back(ka_bits(x));
        }
        EXPECT_EQ(mine, want) << m[0];
        for (cpu_isa cap : test::test_tiers())
            EXPECT_EQ(library_values(dist, p0, p1, seed, strm, off,
                              want.size(), cap),
                    want)
                    << m[0] << " cap " << isa2str(cap);
        ++checked;
    }
    EXPECT_EQ(checked, 10);
}

// tests/data/truncated-normal.md, from scripts/truncnorm_reference.py
// (NumPy's f32 steps, mpmath's constants, its own Philox): the library's
// f32 bits at every tier on 2 threads.
TEST(KnownAnswers, TruncatedNormalFromTheSpec) {
    const std::string text = read_text("truncated-normal.md");
    const std::regex line(R"(truncated_normal\(([-0-9.e]+), ([-0-9.e]+), )"
                          R"(([-0-9.e]+), ([-0-9.e]+)\) seed (\d+) stream )"
                          R"((\d+) offset (\d+)\s*->((?:\s+[0-9a-f]{8})+))");
    int checked = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        const auto want = hex_words(m[8]);
        const auto n = static_cast<dim_t>(want.size());
        rng::desc d(rng_alg::philox4x32_10, memory::desc({n}, data_type::f32));
        post_ops po;
        po.append_truncated_normal(std::stof(m[1]), std::stof(m[2]),
                std::stof(m[3]), std::stof(m[4]));
        expect_bits_at_every_tier(d, po, line_args(m[5], m[6], m[7]), want,
                m[0].str());
        ++checked;
    }
    EXPECT_EQ(checked, 6);
}

// tests/data/f64.md, from scripts/f64_known_answers.py (Python's f64
// operations and its own Philox): the library's f64 bits at every tier on
// 2 threads.
TEST(KnownAnswers, F64FromTheSpec) {
    const std::string text = read_text("f64.md");
    const std::regex line(R"((\w+)\(([-+0-9.e, ]+)\) (\w+) seed (\d+) )"
                          R"(stream (\d+) offset (\d+)\s*->((?:\s+[0-9a-f]{16})+))");
    int checked = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        std::vector<uint64_t> want;
        std::istringstream hexes(m[7].str());
        for (std::string tok; hexes >> tok;)
            want.push_back(std::stoull(tok, nullptr, 16));
        std::vector<double> params;
        std::istringstream ps(m[2].str());
        for (std::string tok; std::getline(ps, tok, ',');)
            params.push_back(std::stod(tok));
        const auto n = static_cast<dim_t>(want.size());
        rng::desc d(str2alg(m[3]), memory::desc({n}, data_type::f64));
        post_ops po;
        po.append_distribution(m[1], params);
        expect_bits_at_every_tier(d, po, line_args(m[4], m[5], m[6]), want,
                m[0].str());
        ++checked;
    }
    EXPECT_EQ(checked, 21);
}

// tests/data/truncated-normal-f64.md, from scripts/truncnorm_reference.py
// known64 (Python's f64 steps, mpmath's correctly rounded constants, its
// own Philox): the library's creation-time constants bit for bit, and its
// f64 bits at every tier on 2 threads.
TEST(KnownAnswers, TruncatedNormalF64FromTheSpec) {
    const std::string text = read_text("truncated-normal-f64.md");
    const std::regex line(R"(truncated_normal\(([-0-9.e]+), ([-0-9.e]+), )"
                          R"(([-0-9.e]+), ([-0-9.e]+)\) (\w+) seed (\d+) )"
                          R"(stream (\d+) offset (\d+)\s*constants )"
                          R"(([0-9a-f]{16}) ([0-9a-f]{16}) ([0-9a-f]{16}))"
                          R"(\s*->((?:\s+[0-9a-f]{16})+))");
    const auto hex64 = [](const std::string &s) {
        return std::stoull(s, nullptr, 16);
    };
    int checked = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end;
            it != end; ++it) {
        const auto &m = *it;
        const float mean = std::stof(m[1]), sd = std::stof(m[2]),
                    a = std::stof(m[3]), b = std::stof(m[4]);
        const impl::truncnorm_f64_t c
                = impl::truncnorm_params_f64(mean, sd, a, b);
        EXPECT_EQ(impl::double_bits(c.phi_a), hex64(m[9])) << m[0];
        EXPECT_EQ(impl::double_bits(c.q_b), hex64(m[10])) << m[0];
        EXPECT_EQ(impl::double_bits(c.mass), hex64(m[11])) << m[0];
        std::vector<uint64_t> want;
        std::istringstream hexes(m[12].str());
        for (std::string tok; hexes >> tok;)
            want.push_back(hex64(tok));
        const auto n = static_cast<dim_t>(want.size());
        rng::desc d(str2alg(m[5]), memory::desc({n}, data_type::f64));
        post_ops po;
        po.append_truncated_normal(mean, sd, a, b);
        expect_bits_at_every_tier(d, po, line_args(m[6], m[7], m[8]), want,
                m[0].str());
        ++checked;
    }
    EXPECT_EQ(checked, 6);
}

TEST(KnownAnswers, BuiltInVerifyPasses) {
    const auto results = run_known_answers();
    EXPECT_GE(results.size(), 14u);
    for (const auto &r : results)
        EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}
