// Memory descriptors, padded layouts, memory objects, bf16/f16 rounding and
// the .npy format.
#include <cmath>
#include <cstdint>
#include <sstream>
#include <utility>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "src/layout.hpp"
#include "src/utils.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;

using test::error_of;

TEST(MemoryDesc, DenseRowMajor) {
    memory::desc md({2, 3, 4}, dt::f32);
    EXPECT_EQ(md.get_strides(), (dims {12, 4, 1}));
    EXPECT_EQ(md.nelems(), 24);
    EXPECT_EQ(md.get_size(), 96u);
    EXPECT_TRUE(md.is_dense());
    EXPECT_EQ(md.str(), "f32:2x3x4");
}

TEST(MemoryDesc, BitSizesArePacked) {
    EXPECT_EQ(memory::desc({13}, dt::bit).get_size(), 2u);
    EXPECT_EQ(memory::desc({3, 5}, dt::bit).get_size(), 2u); // across rows
    EXPECT_EQ(memory::desc({16}, dt::bit).get_size(), 2u);
    // Strides and offset in bits: last element at 3 + 2 * 10 = 23.
    EXPECT_EQ(memory::desc({3}, dt::bit, {10}, 3).get_size(), 3u);
}

TEST(MemoryDesc, MinimalSizeForStrides) {
    // Rows of 5 in a pitch of 8, starting at element 2.
    memory::desc md({4, 5}, dt::s32, {8, 1}, 2);
    EXPECT_EQ(md.get_size(), (2 + 3 * 8 + 4 + 1) * 4u);
    EXPECT_FALSE(md.is_dense());
    // Transposed layout (column-major) is fine.
    EXPECT_EQ(memory::desc({4, 5}, dt::u8, {1, 4}).get_size(), 20u);
}

TEST(MemoryDesc, ZeroElements) {
    memory::desc md({4, 0, 3}, dt::f32);
    EXPECT_EQ(md.nelems(), 0);
    EXPECT_EQ(md.get_size(), 0u);
}

TEST(MemoryDesc, ScalarHasOneElement) {
    memory::desc md(dims {}, dt::s64);
    EXPECT_EQ(md.nelems(), 1);
    EXPECT_EQ(md.get_size(), 8u);
}

TEST(MemoryDesc, Comparable) {
    EXPECT_EQ(memory::desc({2, 3}, dt::f32), memory::desc({2, 3}, dt::f32));
    EXPECT_NE(memory::desc({2, 3}, dt::f32), memory::desc({3, 2}, dt::f32));
    EXPECT_NE(memory::desc({2, 3}, dt::f32),
            memory::desc({2, 3}, dt::f32, {3, 1}, 1));
}

TEST(MemoryDesc, RejectsBadShapes) {
    EXPECT_NE(error_of([] { memory::desc({2, -3}, dt::f32); }).find("2x-3"),
            std::string::npos);
    EXPECT_NE(error_of([] { memory::desc({1, 1, 1, 1, 1, 1, 1, 1, 1}, dt::u8); })
                      .find("at most 8"),
            std::string::npos);
    EXPECT_NE(error_of([] {
        memory::desc({int64_t(1) << 32, int64_t(1) << 32}, dt::u8);
    }).find("overflows"),
            std::string::npos);
    // Element count fits, byte size does not.
    EXPECT_NE(error_of([] {
        memory::desc({int64_t(1) << 61}, dt::f32);
    }).find("overflows"),
            std::string::npos);
    error_of([] { memory::desc({2}, dt::undef); });
}

// A 0 dim makes the element count 0, but the dense strides are products of
// the other dims: each partial product is checked.
TEST(MemoryDesc, StridesOfShapesWithAZeroDimCannotOverflow) {
    const int64_t big = int64_t(1) << 32;
    EXPECT_ERROR_NAMES(memory::desc({0, big, big}, dt::f32), "0x4294967296x4294967296");
    EXPECT_ERROR_NAMES(memory::desc({big, big, 0}, dt::u8), "overflows");
    EXPECT_ERROR_NAMES(memory::pad({0, big, big}, dt::f32, {0, 0, 0}, {0, 0, 0}),
            "overflows");
    const memory::desc ok({0, int64_t(1) << 31, int64_t(1) << 31}, dt::u8);
    EXPECT_EQ(ok.get_strides(), (dims {int64_t(1) << 62, int64_t(1) << 31, 1}));
    EXPECT_EQ(ok.get_size(), 0u);
}

// Every enum that crosses the API is one of its enumerators.
TEST(MemoryDesc, RejectsDataTypesOutsideTheEnum) {
    EXPECT_ERROR_NAMES(memory::desc({4}, static_cast<data_type>(77)),
            "data type value 77 is not a data_type");
    EXPECT_ERROR_NAMES(memory::desc({4}, static_cast<data_type>(-1), {1}),
            "value -1");
    EXPECT_ERROR_NAMES(memory::desc::host_scalar(static_cast<data_type>(77)), "77");
}

TEST(Messages, EscapeKeepsTextAndUtf8AndEscapesTheRest) {
    EXPECT_EQ(escape("plain: 'x' [1, 2]\\n"), "plain: 'x' [1, 2]\\n");
    EXPECT_EQ(escape(std::string("a\x1b[31mb\0c\x7f\n", 11)),
            "a\\x1b[31mb\\x00c\\x7f\\x0a");
    EXPECT_EQ(escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82"); // é € 🙂
    // C1 controls, overlong forms, surrogates, stray and cut bytes.
    EXPECT_EQ(escape("\xc2\x9b\xc0\x80\xed\xa0\x80\xff\xe2\x82"),
            "\\xc2\\x9b\\xc0\\x80\\xed\\xa0\\x80\\xff\\xe2\\x82");
    const std::string once = escape("\x1b\xff\xc3\xa9");
    EXPECT_EQ(escape(once), once);
}

TEST(Messages, ValuesAreShownAsGivenAndEmptyShapesAsParentheses) {
    EXPECT_EQ(impl::cat(1.0000000000000002, " ", 0.1f, " ", 1e-300, " ", 2.0),
            "1.0000000000000002 0.1 1e-300 2");
    EXPECT_EQ(impl::dims2str({}), "()");
    EXPECT_EQ(impl::dims2str({2, 3}), "2x3");
}

TEST(MemoryDesc, RejectsBadStrides) {
    const std::string overlap = error_of(
            [] { memory::desc({4, 5}, dt::f32, {4, 1}); });
    EXPECT_NE(overlap.find("overlap"), std::string::npos) << overlap;
    // Interleaved dims that collide: 2 + 10 == 12.
    error_of([] { memory::desc({3, 2, 2}, dt::f32, {1, 10, 12}); });
    EXPECT_NE(error_of([] { memory::desc({4}, dt::f32, {-1}); })
                      .find("negative"),
            std::string::npos);
    EXPECT_NE(error_of([] { memory::desc({4}, dt::f32, {1, 1}); })
                      .find("do not match"),
            std::string::npos);
    EXPECT_NE(error_of([] { memory::desc({4}, dt::f32, {1}, -2); }).find("-2"),
            std::string::npos);
    // A zero stride is fine on a dim of size 1 only.
    EXPECT_NO_THROW(memory::desc({1, 4}, dt::f32, {0, 1}));
    error_of([] { memory::desc({2, 4}, dt::f32, {0, 1}); });
    // Extent overflow.
    error_of([] {
        memory::desc({2, 2}, dt::f32, {int64_t(1) << 62, 1});
    });
}

TEST(MemoryDesc, Padded) {
    const auto l = memory::pad({3, 5}, dt::f32, {1, 2}, {2, 3});
    EXPECT_EQ(l.host_dims, (dims {6, 10}));
    EXPECT_EQ(l.host_size, 6 * 10 * 4u);
    EXPECT_EQ(l.md.get_dims(), (dims {3, 5}));
    EXPECT_EQ(l.md.get_strides(), (dims {10, 1}));
    EXPECT_EQ(l.md.get_offset0(), 1 * 10 + 2);
    EXPECT_LE(l.md.get_size(), l.host_size);
    const std::string msg = error_of(
            [] { memory::pad({3, 5}, dt::f32, {0, -1}, {0, 0}); });
    EXPECT_NE(msg.find("-1"), std::string::npos) << msg;
    error_of([] { memory::pad({3, 5}, dt::f32, {0}, {0, 0}); });
}

TEST(MemoryDesc, LayoutPositions) {
    const auto l = memory::pad({2, 3}, dt::u8, {1, 1}, {0, 1});
    impl::layout_t layout(l.md);
    // Host rows of 5, logical starts at (1, 1).
    EXPECT_EQ(layout.position(0), 6);
    EXPECT_EQ(layout.position(2), 8);
    EXPECT_EQ(layout.position(3), 11);
    std::vector<dim_t> seen;
    layout.for_range(1, 4, [&](dim_t, dim_t pos) { seen.push_back(pos); });
    EXPECT_EQ(seen, (std::vector<dim_t> {7, 8, 11, 12}));
}

TEST(Memory, OwnsAlignedOrWraps) {
    memory m(memory::desc({100}, dt::f32));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.get_data_handle()) % 64, 0u);
    memory copy = m; // a handle: shares the data
    EXPECT_EQ(copy.get_data_handle(), m.get_data_handle());
    float buf[4];
    memory w(memory::desc({4}, dt::f32), buf);
    EXPECT_EQ(w.get_data_handle(), buf);
}

TEST(Memory, SetDataHandleRepointsAWrapperAndItsCopies) {
    float a[4], b[4];
    memory w(memory::desc({4}, dt::f32), a);
    memory copy = w;
    w.set_data_handle(b);
    EXPECT_EQ(w.get_data_handle(), b);
    EXPECT_EQ(copy.get_data_handle(), b);
    memory none(memory::desc({4}, dt::f32), nullptr);
    none.set_data_handle(a);
    EXPECT_EQ(none.get_data_handle(), a);
    // An owned allocation, a host scalar and an empty memory refuse,
    // naming why; the memory keeps its data.
    memory owned(memory::desc({4}, dt::f32));
    void *before = owned.get_data_handle();
    EXPECT_ERROR_NAMES(owned.set_data_handle(a), "owns its allocation");
    EXPECT_EQ(owned.get_data_handle(), before);
    memory s = memory::scalar(int64_t(5));
    EXPECT_ERROR_NAMES(s.set_data_handle(a), "holds its value");
    *s.data<int64_t>() = 9; // a scalar's value is written in place
    EXPECT_EQ(*s.data<int64_t>(), 9);
    EXPECT_ERROR_NAMES(memory().set_data_handle(a), "empty memory");
}

TEST(Memory, HostScalars) {
    memory s = memory::scalar(int64_t(-7));
    EXPECT_TRUE(s.get_desc().is_host_scalar());
    EXPECT_EQ(s.get_desc().get_data_type(), dt::s64);
    EXPECT_EQ(*s.data<int64_t>(), -7);
    EXPECT_EQ(*memory::scalar(0.25f).data<float>(), 0.25f);
    EXPECT_EQ(*memory::scalar(int32_t(3)).data<int32_t>(), 3);
    error_of([] { memory::desc::host_scalar(dt::u8); });
}

TEST(DataTypes, Names) {
    for (dt t : {dt::f32, dt::bf16, dt::f16, dt::s8, dt::u8, dt::s32, dt::u32,
                 dt::s64, dt::bit, dt::f64})
        EXPECT_EQ(str2dt(dt2str(t)), t);
    EXPECT_STREQ(dt2str(dt::f64), "f64");
    // f64 came last: the values before it stay what they were.
    EXPECT_EQ(static_cast<int>(dt::bit), 9);
    EXPECT_EQ(static_cast<int>(dt::f64), 10);
    EXPECT_NE(error_of([] { str2dt("f128"); }).find("f128"), std::string::npos);
    EXPECT_EQ(dt_bits(dt::f64), 64u);
    EXPECT_EQ(dt_bits(dt::bit), 1u);
    EXPECT_EQ(dt_bits(dt::bf16), 16u);
}

TEST(Conversions, F16RoundTripsEveryValue) {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const auto v = static_cast<uint16_t>(h);
        if ((v & 0x7c00) == 0x7c00 && (v & 0x3ff)) continue; // NaN payloads
        ASSERT_EQ(impl::f32_to_f16(impl::f16_to_f32(v)), v) << h;
    }
}

TEST(Conversions, F16RoundsToNearestEven) {
    // Halfway between 1 and 1 + 2^-10 goes to 1 (even); above it up.
    EXPECT_EQ(impl::f32_to_f16(1.f + 0x1p-11f), 0x3c00);
    EXPECT_EQ(impl::f32_to_f16(1.f + 0x1p-11f + 0x1p-20f), 0x3c01);
    EXPECT_EQ(impl::f32_to_f16(1.f + 3 * 0x1p-11f), 0x3c02);
    EXPECT_EQ(impl::f32_to_f16(65520.f), 0x7c00); // rounds to infinity
    EXPECT_EQ(impl::f32_to_f16(65519.f), 0x7bff);
    EXPECT_EQ(impl::f32_to_f16(0x1p-25f), 0x0000); // tie to even zero
    EXPECT_EQ(impl::f32_to_f16(0x1.8p-25f), 0x0001);
    EXPECT_EQ(impl::f32_to_f16(-0x1p-24f), 0x8001);
}

TEST(Conversions, Bf16RoundsToNearestEven) {
    EXPECT_EQ(impl::f32_to_bf16(1.f), 0x3f80);
    EXPECT_EQ(impl::f32_to_bf16(impl::bits_float(0x3f808000)), 0x3f80);
    EXPECT_EQ(impl::f32_to_bf16(impl::bits_float(0x3f818000)), 0x3f82);
    EXPECT_EQ(impl::f32_to_bf16(impl::bits_float(0x3f808001)), 0x3f81);
    EXPECT_TRUE(std::isnan(impl::bf16_to_f32(impl::f32_to_bf16(NAN))));
}

TEST(Npy, HeaderIsAligned) {
    const std::string h = npy::header(memory::desc({2, 3}, dt::f32));
    EXPECT_EQ(h.size() % 64, 0u);
    EXPECT_NE(h.find("'descr': '<f4'"), std::string::npos);
    EXPECT_NE(h.find("'shape': (2,3)"), std::string::npos);
    EXPECT_EQ(h.back(), '\n');
    // A bit tensor is its packed bytes.
    EXPECT_NE(npy::header(memory::desc({3, 5}, dt::bit)).find("(2,)"),
            std::string::npos);
}

TEST(Npy, RoundTrip) {
    memory m(memory::desc({3, 4}, dt::s32));
    for (int i = 0; i < 12; ++i)
        m.data<int32_t>()[i] = i * i - 5;
    std::stringstream ss;
    npy::save(ss, m);
    const npy::array a = npy::load(ss);
    EXPECT_EQ(a.dt, dt::s32);
    EXPECT_EQ(a.shape, (dims {3, 4}));
    ASSERT_EQ(a.data.size(), 48u);
    EXPECT_EQ(std::memcmp(a.data.data(), m.get_data_handle(), 48), 0);
    memory d(memory::desc({2}, dt::f64)); // <f8
    d.data<double>()[0] = 0.1;
    d.data<double>()[1] = -1e300;
    std::stringstream sd;
    npy::save(sd, d);
    EXPECT_NE(sd.str().find("'<f8'"), std::string::npos);
    const npy::array b = npy::load(sd);
    EXPECT_EQ(b.dt, dt::f64);
    EXPECT_EQ(std::memcmp(b.data.data(), d.get_data_handle(), 16), 0);
}

TEST(Npy, RejectsBadFiles) {
    std::stringstream junk("hello world, not numpy");
    error_of([&] { npy::load(junk); });
    std::stringstream truncated(
            npy::header(memory::desc({100}, dt::f32)) + "abcd");
    EXPECT_NE(error_of([&] { npy::load(truncated); }).find("truncated"),
            std::string::npos);
    std::string h = npy::header(memory::desc({2}, dt::f32));
    h.replace(h.find("<f4"), 3, "<c8");
    std::stringstream c8(h + std::string(16, '\0'));
    EXPECT_NE(error_of([&] { npy::load(c8); }).find("<c8"), std::string::npos);
    // Strided memories are not written.
    memory strided(memory::desc({2}, dt::f32, {2}));
    std::stringstream out;
    error_of([&] { npy::save(out, strided); });
    error_of([] { npy::load_file("/nonexistent/x.npy"); },
            status::runtime_error);
}

// A header that claims more than the file holds is refused before its
// claim is allocated (a seekable stream tells what is left); a stream that
// cannot seek is read in chunks, so it costs what it delivers.
TEST(Npy, LyingHeadersAreRefusedBeforeTheyAreBelieved) {
    const std::string h = npy::header(memory::desc({int64_t(1) << 40}, dt::f32));
    std::stringstream file(h + "abcd");
    EXPECT_ERROR_NAMES(npy::load(file),
            "truncated .npy data: expected 4398046511104 bytes, the file holds 4");
    std::stringstream header_only(h);
    EXPECT_ERROR_NAMES(npy::read_header(header_only), "holds 0");
    // A shape whose element count is 0 but whose strides overflow.
    std::string zero = npy::header(memory::desc({0, 7, 7}, dt::f32));
    zero.replace(zero.find("(0,7,7)"), 7, "(0,4294967296,4294967296)");
    std::stringstream zs(zero);
    EXPECT_ERROR_NAMES(npy::load(zs), "overflows");

    // A pipe: no seeking.
    struct pipe_buf : std::stringbuf {
        using std::stringbuf::stringbuf;
        pos_type seekoff(off_type, std::ios_base::seekdir,
                std::ios_base::openmode) override {
            return pos_type(off_type(-1));
        }
    };
    pipe_buf buf(npy::header(memory::desc({int64_t(1) << 30}, dt::f32))
            + std::string(10, 'x'));
    std::istream pipe(&buf);
    EXPECT_ERROR_NAMES(npy::load(pipe),
            "truncated .npy data: expected 4294967296 bytes, got 10");
}

TEST(Npy, HeaderThenDataAndEscapedHeaders) {
    memory m(memory::desc({3, 5}, dt::s32));
    for (int i = 0; i < 15; ++i)
        m.data<int32_t>()[i] = i * i;
    std::stringstream ss;
    npy::save(ss, m);
    const npy::header_t h = npy::read_header(ss);
    EXPECT_EQ(h.dt, dt::s32);
    EXPECT_EQ(h.shape, (dims {3, 5}));
    std::vector<int32_t> got(15);
    npy::read_data(ss, h, got.data());
    EXPECT_EQ(std::memcmp(got.data(), m.get_data_handle(), 60), 0);
    EXPECT_ERROR_NAMES(npy::read_data(ss, h, got.data()), "got 0");

    std::string evil = npy::header(memory::desc({2}, dt::f32));
    evil.replace(evil.find("<f4"), 3, "\x1b[2J\x7f");
    std::stringstream es(evil + std::string(8, '\0'));
    const std::string msg = error_of([&] { npy::load(es); });
    EXPECT_NE(msg.find("'\\x1b[2J\\x7f'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\x1b'), std::string::npos);
    EXPECT_EQ(msg.find('\x7f'), std::string::npos);
}

namespace {

// A .npy file of version 1.0 whose header's dict is @p dict, padded with
// spaces and a '\n' as NumPy pads it, then 64 zero bytes of data. The dict
// starts at byte 10 of the file.
std::string npy_with(const std::string &dict) {
    std::string h = dict;
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    h += '\n';
    std::string f("\x93NUMPY\x01\x00", 8);
    f += static_cast<char>(h.size() & 0xff);
    f += static_cast<char>(h.size() >> 8);
    return f + h + std::string(64, '\0');
}

npy::header_t header_of(const std::string &dict) {
    std::stringstream ss(npy_with(dict));
    return npy::read_header(ss);
}

std::string header_error(const std::string &dict) {
    return error_of([&] { header_of(dict); });
}

const std::string rest = "'fortran_order': False, 'shape': (2,)";

} // namespace

// NumPy reads a duplicated key as its last value (ast.literal_eval);
// substring search read the first, so a file that NumPy loads as f16 was
// computed on as f32. Both are refused, naming the key and where it is.
TEST(NpyHeader, DuplicateKeysAreRefused) {
    EXPECT_EQ(header_error("{'descr': '<f4', 'descr': '<f2', " + rest + "}"),
            ".npy header: key 'descr' appears twice (NumPy would take the "
            "last value; rndnn refuses) at byte 27");
    EXPECT_NE(header_error("{'descr': '<f4', " + rest + ", 'shape': (4,)}")
                      .find("key 'shape' appears twice"),
            std::string::npos);
    EXPECT_NE(header_error("{'descr': '<f4', " + rest + ", \"descr\": '<f4'}")
                      .find("key 'descr' appears twice"),
            std::string::npos);
}

// Text that looks like a key inside a string value is a string.
TEST(NpyHeader, KeysInsideStringValuesAreNotBelieved) {
    EXPECT_EQ(header_error("{'fortran_order': False, 'shape': (2,), "
                           "\"descr\": \"'descr': '<f2'\"}"),
            ".npy dtype ''descr': '<f2'' is not supported");
    EXPECT_NE(header_error("{'x': \"'descr': '<f2'\", 'descr': '<f4', " + rest
                      + "}")
                      .find("unexpected key 'x'"),
            std::string::npos);
}

// Only spaces, tabs and line breaks may follow the dict.
TEST(NpyHeader, TrailingGarbageIsRefused) {
    const std::string dict = "{'descr': '<f4', " + rest + "}";
    EXPECT_EQ(header_error(dict + " x"),
            ".npy header: expected only spaces or a newline after the "
            "dict's '}', found 'x' at byte 66");
    EXPECT_NE(header_error(dict + ",").find("found ','"), std::string::npos);
    EXPECT_NE(header_error(dict + "}").find("found '}'"), std::string::npos);
    EXPECT_NE(header_error(dict + "\n\x1b").find("found '\\x1b'"),
            std::string::npos);
    EXPECT_EQ(header_of(dict + " \t\r\n\n ").dt, dt::f32);
}

TEST(NpyHeader, ExtraKeysAreRefused) {
    EXPECT_EQ(header_error("{'descr': '<f4', " + rest + ", 'x': 1}"),
            ".npy header: unexpected key 'x' (the keys are 'descr', "
            "'fortran_order' and 'shape') at byte 66");
    EXPECT_NE(header_error("{'descr': '<f4', '\x1b': 1, " + rest + "}")
                      .find("unexpected key '\\x1b'"),
            std::string::npos);
}

TEST(NpyHeader, NulBytesAreRefused) {
    const std::string dict = "{'descr': '<f4', " + rest + "}";
    EXPECT_EQ(header_error(dict + std::string(1, '\0')),
            ".npy header: a NUL byte (NumPy refuses them) at byte 65");
    EXPECT_NE(header_error(std::string("{'descr': '<f4") + '\0' + "', " + rest + "}")
                      .find("a NUL byte (NumPy refuses them) at byte 24"),
            std::string::npos);
}

TEST(NpyHeader, DoubleQuotesAreRead) {
    const npy::header_t h = header_of(
            "{\"descr\": \"<f2\", \"fortran_order\": False, \"shape\": (3, 2)}");
    EXPECT_EQ(h.dt, dt::f16);
    EXPECT_EQ(h.shape, (dims {3, 2}));
    EXPECT_EQ(header_of("{'shape': (4,), \"descr\": '|u1', 'fortran_order': "
                        "False}")
                      .dt,
            dt::u8);
    // A string ends at its own quote only.
    EXPECT_EQ(header_error("{'descr': \"<f4', " + rest + "}"),
            ".npy header: a string with no closing quote on its line at "
            "byte 20");
}

// What NumPy writes and what it reads: keys in any order, spaces, tabs and
// line breaks between tokens, a trailing comma in the dict and the shape.
TEST(NpyHeader, Grammar) {
    struct {
        std::string dict;
        data_type dt;
        dims shape;
    } ok[] = {
            {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
                    dt::f32, {}},
            {"{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
                    dt::s64, {3}},
            {"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                    dt::f64, {3}},
            {"{'descr':'<u4','fortran_order':False,'shape':(2,3)}", dt::u32,
                    {2, 3}},
            {"  {'shape': ( 2 , 3 , ) ,'fortran_order' : False, "
             "'descr': '<u2' , }",
                    dt::bf16, {2, 3}},
            {"\n{\n\t'descr': '|i1',\r\n\t'fortran_order': False,\n\t"
             "'shape': (0, 7)\n}",
                    dt::s8, {0, 7}},
            {"{'descr': '<i4', 'fortran_order': False, 'shape': (0, 1,)}",
                    dt::s32, {0, 1}},
    };
    for (const auto &c : ok) {
        const npy::header_t h = header_of(c.dict);
        EXPECT_EQ(h.dt, c.dt) << c.dict;
        EXPECT_EQ(h.shape, c.shape) << c.dict;
    }

    const std::string d = "{'descr': '<f4', 'fortran_order': False, ";
    const std::pair<std::string, std::string> bad[] = {
            {"{'descr': '<f4', 'fortran_order': False}",
                    ".npy header has no 'shape' key"},
            {"{}", ".npy header has no 'descr' key"},
            {"'descr': '<f4'", "expected '{', found \"'\" at byte 10"},
            {"{'descr' '<f4', " + rest + "}",
                    "expected ':' after 'descr', found \"'\" at byte 19"},
            {"{'descr': '<f4' " + rest + "}",
                    "expected ',' or '}' after a value, found \"'\" at "
                    "byte 26"},
            {"{descr: '<f4', " + rest + "}",
                    "expected a key (a quoted string), found 'd' at byte 11"},
            {"{'descr': '<f4', " + rest + ",,}",
                    "expected a key (a quoted string), found ','"},
            {"{'descr': '<f4', " + rest,
                    "expected ',' or '}' after a value, found the end of the "
                    "header at byte 128"},
            {d + "'shape': (2)}", "'shape' (2) is not a tuple (a shape of "
                                  "one dim is written (2,)) at byte 60"},
            {d + "'shape': [2]}",
                    "expected a tuple such as (2, 3) for 'shape', found '['"},
            {d + "'shape': (1,,2)}",
                    "expected a dim (a non-negative integer), found ',' at "
                    "byte 63"},
            {d + "'shape': (,)}", "expected a dim (a non-negative integer)"},
            {d + "'shape': (2 3)}", "expected ',' or ')' after a dim, found "
                                    "'3'"},
            {d + "'shape': (2L,)}", "found 'L'"},
            {d + "'shape': (-1,)}", "a negative dim in 'shape' at byte 61"},
            {d + "'shape': (02,)}", "a dim with a leading zero"},
            {d + "'shape': (True,)}", "expected a dim (a non-negative "
                                      "integer), found 'T'"},
            {d + "'shape': (9223372036854775808,)}",
                    "a dim in 'shape' passes 2^63 - 1 at byte 61"},
            {d + "'shape': (4294967296, 4294967296)}",
                    "overflows a 64-bit element count"},
            {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
                    "expected True or False for 'fortran_order', found '0'"},
            {"{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}",
                    "Fortran order"},
            {"{'descr': 4, " + rest + "}",
                    "expected a quoted string for 'descr', found '4'"},
            {"{'descr': u'<f4', " + rest + "}",
                    "expected a quoted string for 'descr', found 'u'"},
            {"{'descr': '<f\\x34', " + rest + "}",
                    "a backslash in a string (escapes are not supported) at "
                    "byte 23"},
            {"{'descr': '<c8', " + rest + "}",
                    ".npy dtype '<c8' is not supported"},
    };
    for (const auto &c : bad)
        EXPECT_NE(header_error(c.first).find(c.second), std::string::npos)
                << c.first << " gives '" << header_error(c.first)
                << "', not '" << c.second << "'";
}

// NumPy reads versions 1.0, 2.0 (a 4-byte header length) and 3.0 (the
// same, UTF-8 text) and refuses every other, whatever the minor number.
TEST(NpyHeader, Versions) {
    const std::string v1 = npy::header(memory::desc({2}, dt::f32));
    std::string v2 = v1.substr(0, 10) + std::string("\0\0", 2) + v1.substr(10);
    for (const char major : {'\x02', '\x03'}) {
        v2[6] = major;
        std::stringstream ss(v2 + std::string(8, '\0'));
        EXPECT_EQ(npy::read_header(ss).shape, (dims {2}));
    }
    v2[6] = '\x03';
    v2.replace(v2.find("'<f4', "), 7, "'\xc3\xa9',  "); // UTF-8 in a string
    std::stringstream utf8(v2);
    EXPECT_ERROR_NAMES(npy::read_header(utf8), ".npy dtype '\xc3\xa9'");
    for (const auto &mm : {std::make_pair('\x01', '\x01'),
                 std::make_pair('\x04', '\x00'),
                 std::make_pair('\x00', '\x00')}) {
        std::string f = v1;
        f[6] = mm.first;
        f[7] = mm.second;
        std::stringstream ss(f + std::string(8, '\0'));
        EXPECT_ERROR_NAMES(npy::read_header(ss),
                impl::cat(".npy version ", int(mm.first), ".", int(mm.second),
                        " is not supported (1.0, 2.0 and 3.0 are)"));
    }
}

// NumPy refuses a header longer than 10000 bytes unless told to trust the
// file (np.load's allow_pickle); it never writes one.
TEST(NpyHeader, HeadersPastNumPysLengthLimitAreRefused) {
    for (const size_t len : {size_t(10000), size_t(10001)}) {
        std::string dict = "{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2,)}";
        dict.append(len - 1 - dict.size(), ' ');
        std::string f("\x93NUMPY\x01\x00", 8);
        f += static_cast<char>(len & 0xff);
        f += static_cast<char>(len >> 8);
        std::stringstream ss(f + dict + '\n' + std::string(8, '\0'));
        if (len == 10000)
            EXPECT_EQ(npy::read_header(ss).shape, (dims {2}));
        else
            EXPECT_ERROR_NAMES(npy::read_header(ss),
                    ".npy header length 10001 passes NumPy's limit of 10000 "
                    "bytes");
    }
}

// NumPy refuses an array whose item size times the product of its nonzero
// dims passes 2^63 - 1, even one of no elements: neither header() nor
// read_header() lets one through.
TEST(NpyHeader, ShapesNumPyCannotHoldAreRefused) {
    const dim_t max = INT64_MAX;
    EXPECT_ERROR_NAMES(npy::header(memory::desc({0, max}, dt::u32)),
            ".npy shape (0,9223372036854775807) of <u4 is too big for NumPy: "
            "4 bytes times the product of its nonzero dims passes 2^63 - 1");
    EXPECT_ERROR_NAMES(npy::header(memory::desc({max / 8 + 1, 0}, dt::s64)),
            "too big for NumPy");
    EXPECT_NE(npy::header(memory::desc({max / 8, 0}, dt::s64)).find(
                      "(1152921504606846975,0)"),
            std::string::npos);
    EXPECT_NE(npy::header(memory::desc({0, max}, dt::u8)).find(
                      "(0,9223372036854775807)"),
            std::string::npos);
    const std::string d = "{'descr': '<f4', 'fortran_order': False, ";
    EXPECT_EQ(header_of(d + "'shape': (0, 2305843009213693951)}").shape,
            (dims {0, max / 4}));
    EXPECT_NE(header_error(d + "'shape': (0, 2305843009213693952)}")
                      .find("too big for NumPy"),
            std::string::npos);
}

TEST(Npy, UnusedMaskBitsAreWrittenAsZero) {
    memory m(memory::desc({11}, dt::bit));
    m.data<uint8_t>()[0] = 0x5a;
    m.data<uint8_t>()[1] = 0xff; // bits 8..10 belong to the tensor
    std::stringstream raw;
    npy::save_raw(raw, m);
    EXPECT_EQ(raw.str(), std::string("\x5a\x07", 2));
    std::stringstream ss;
    npy::save(ss, m);
    const npy::array a = npy::load(ss);
    EXPECT_EQ(a.dt, dt::u8);
    EXPECT_EQ(a.shape, (dims {2}));
    EXPECT_EQ(a.data[1], 0x07);
}
