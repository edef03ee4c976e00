// .npy files (rndnn/npy.hpp): headers, save, load.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>

#include "rndnn/npy.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace npy {

using impl::cat;
using impl::fail;
using impl::no_foreign_errors;

namespace {

const char magic[] = "\x93NUMPY";
constexpr size_t magic_len = 6;

const struct {
    data_type dt;
    const char *descr;
} descr_table[] = {{data_type::f32, "<f4"}, {data_type::f16, "<f2"},
        {data_type::bf16, "<u2"}, {data_type::s8, "|i1"},
        {data_type::u8, "|u1"}, {data_type::s32, "<i4"},
        {data_type::u32, "<u4"}, {data_type::s64, "<i8"},
        {data_type::f64, "<f8"}};

const char *descr_of(data_type t) {
    if (t == data_type::bit) return "|u1";
    for (const auto &e : descr_table)
        if (e.dt == t) return e.descr;
    fail(status::invalid_arguments,
            cat("data type ", dt2str(t), " has no .npy equivalent"));
}

std::string shape_str(const dims &shape) {
    std::string s = "(";
    for (dim_t d : shape)
        s += cat(d, ",");
    if (shape.size() > 1) s.pop_back(); // (n,) keeps its comma
    return s + ")";
}

// NumPy refuses an array whose item size times the product of its nonzero
// dims passes 2^63 - 1 ("array is too big"), even one of no elements: a
// shape that rndnn's element count (a 0 counted as 1) allows, such as
// (0, 2^63 - 1) of <u4, is refused here on both sides of the file.
void check_numpy_size(const dims &shape, const char *descr, dim_t itemsize) {
    dim_t bytes = itemsize;
    for (dim_t d : shape)
        if (d != 0 && !impl::mul_ok(bytes, d, bytes))
            fail(status::invalid_arguments,
                    cat(".npy shape ", shape_str(shape), " of ", descr,
                            " is too big for NumPy: ", itemsize,
                            " bytes times the product of its nonzero dims"
                            " passes 2^63 - 1"));
}

// The header's dict: the Python literal NumPy writes, "{'descr': '<f4',
// 'fortran_order': False, 'shape': (2, 3), }" padded with spaces and a
// '\n', which NumPy reads back with ast.literal_eval. rndnn reads it with a
// small grammar that accepts a subset of what NumPy accepts, never more
// (docs/cli.md, ".npy headers"):
//
//   header := ws '{' ws [entry (ws ',' ws entry)* [ws ',']] ws '}' ws
//   entry  := key ws ':' ws value
//   key    := 'descr' | 'fortran_order' | 'shape', each once, any order
//   value  := string (descr) | True | False (fortran_order) | tuple (shape)
//   tuple  := '(' ws ')' | '(' ws int ws ',' ws ')'
//           | '(' ws int (ws ',' ws int)+ [ws ','] ws ')'
//   int    := '0' | [1-9][0-9]*, at most 2^63 - 1
//   string := "'" char* "'" | '"' char* '"', char: a byte other than the
//             quote, '\\', '\n' or '\r'
//   ws     := (' ' | '\t' | '\n' | '\r')*
//
// NUL bytes are refused anywhere. Where NumPy takes the last of duplicated
// keys, rndnn refuses them. Every error names what was expected, what was
// found (escaped) and its byte offset in the file.
class dict_parser {
public:
    // @p text is the header's text, which starts at byte @p base of the file.
    dict_parser(const std::string &text, size_t base)
        : s_(text), base_(base) {}

    header_t parse() {
        const size_t nul = s_.find('\0');
        if (nul != std::string::npos)
            fail_at(nul, "a NUL byte (NumPy refuses them)");
        skip_ws();
        if (peek() != '{') expected("'{'");
        ++i_;
        for (;;) {
            skip_ws();
            if (peek() == '}') break;
            entry();
            skip_ws();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            if (peek() != '}') expected("',' or '}' after a value");
        }
        ++i_;
        skip_ws();
        if (i_ != s_.size())
            expected("only spaces or a newline after the dict's '}'");

        for (const char *k : keys)
            if (!seen_[key_index(k)])
                fail(status::invalid_arguments,
                        cat(".npy header has no '", k, "' key"));
        header_t a;
        for (const auto &e : descr_table)
            if (descr_ == e.descr) a.dt = e.dt;
        if (a.dt == data_type::undef)
            fail(status::invalid_arguments,
                    cat(".npy dtype '", escape(descr_), "' is not supported"));
        if (fortran_order_)
            fail(status::invalid_arguments,
                    ".npy file is in Fortran order; only C order is "
                    "supported");
        a.shape = shape_;
        return a;
    }

private:
    static constexpr const char *keys[] = {"descr", "fortran_order", "shape"};

    const std::string &s_;
    const size_t base_;
    size_t i_ = 0;
    bool seen_[3] = {};
    std::string descr_;
    bool fortran_order_ = false;
    dims shape_;

    static int key_index(const std::string &k) {
        for (int i = 0; i < 3; ++i)
            if (k == keys[i]) return i;
        return -1;
    }

    // The byte at i_, '\0' at the end (a NUL byte is refused up front).
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    static bool is_digit(char c) { return c >= '0' && c <= '9'; }
    void skip_ws() {
        while (i_ < s_.size()
                && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n'
                        || s_[i_] == '\r'))
            ++i_;
    }

    [[noreturn]] void fail_at(size_t at, const std::string &what) const {
        fail(status::invalid_arguments,
                cat(".npy header: ", what, " at byte ", base_ + at));
    }
    // "expected X, found 'c'" at i_.
    [[noreturn]] void expected(const std::string &what) const {
        std::string found = "the end of the header";
        if (i_ < s_.size())
            found = s_[i_] == '\'' ? "\"'\""
                                   : cat("'", escape(s_.substr(i_, 1)), "'");
        fail_at(i_, cat("expected ", what, ", found ", found));
    }

    void entry() {
        const size_t at = i_;
        const std::string key = quoted("a key (a quoted string)");
        const int k = key_index(key);
        if (k < 0)
            fail_at(at,
                    cat("unexpected key '", escape(key),
                            "' (the keys are 'descr', 'fortran_order' and "
                            "'shape')"));
        if (seen_[k])
            fail_at(at,
                    cat("key '", key, "' appears twice (NumPy would take "
                                      "the last value; rndnn refuses)"));
        seen_[k] = true;
        skip_ws();
        if (peek() != ':') expected(cat("':' after '", key, "'"));
        ++i_;
        skip_ws();
        if (k == 0) {
            descr_ = quoted("a quoted string for 'descr'");
        } else if (k == 1) {
            fortran_order_ = boolean();
        } else {
            shape_ = tuple();
        }
    }

    std::string quoted(const char *what) {
        const char q = peek();
        if (q != '\'' && q != '"') expected(what);
        const size_t start = ++i_;
        for (; i_ < s_.size() && s_[i_] != q; ++i_) {
            if (s_[i_] == '\\')
                fail_at(i_, "a backslash in a string (escapes are not "
                            "supported)");
            if (s_[i_] == '\n' || s_[i_] == '\r') break;
        }
        if (i_ == s_.size() || s_[i_] != q)
            fail_at(start - 1, "a string with no closing quote on its line");
        return s_.substr(start, i_++ - start);
    }

    bool boolean() {
        for (const bool b : {true, false}) {
            const char *word = b ? "True" : "False";
            const size_t n = std::strlen(word);
            if (s_.compare(i_, n, word) == 0) {
                i_ += n;
                return b;
            }
        }
        expected("True or False for 'fortran_order'");
    }

    dims tuple() {
        if (peek() != '(') expected("a tuple such as (2, 3) for 'shape'");
        const size_t at = i_++;
        dims d;
        bool comma = false;
        for (;;) {
            skip_ws();
            if (peek() == ')') break;
            d.push_back(dim());
            skip_ws();
            if (peek() == ',') {
                ++i_;
                comma = true;
                continue;
            }
            if (peek() != ')') expected("',' or ')' after a dim");
        }
        ++i_;
        if (d.size() == 1 && !comma)
            fail_at(at,
                    cat("'shape' (", d[0], ") is not a tuple (a shape of "
                                           "one dim is written (",
                            d[0], ",))"));
        return d;
    }

    dim_t dim() {
        const size_t at = i_;
        if (peek() == '-') fail_at(at, "a negative dim in 'shape'");
        if (!is_digit(peek())) expected("a dim (a non-negative integer)");
        dim_t d = 0;
        for (; is_digit(peek()); ++i_)
            if (!impl::mul_ok(d, 10, d) || !impl::add_ok(d, peek() - '0', d))
                fail_at(at, "a dim in 'shape' passes 2^63 - 1");
        if (s_[at] == '0' && i_ - at > 1)
            fail_at(at, "a dim with a leading zero");
        return d;
    }
};

} // namespace

// The calls, as they are; the public ones (below) let no foreign exception
// out (a .npy's data that memory cannot hold: std::bad_alloc; a stream
// that throws).
namespace unchecked {

std::string header(const memory::desc &md) {
    dims shape = md.get_dims();
    dim_t itemsize = static_cast<dim_t>(dt_bits(md.get_data_type()) / 8);
    if (md.get_data_type() == data_type::bit) {
        shape = {(md.nelems() + 7) / 8};
        itemsize = 1;
    }
    check_numpy_size(shape, descr_of(md.get_data_type()), itemsize);
    std::string dict = cat("{'descr': '", descr_of(md.get_data_type()),
            "', 'fortran_order': False, 'shape': ", shape_str(shape), ", }");
    // magic, version 1.0, u16 header length, dict, spaces, '\n': a multiple
    // of 64 bytes in total.
    const size_t unpadded = magic_len + 2 + 2 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    const size_t len = dict.size();
    std::string h(magic, magic_len);
    h += '\x01';
    h += '\x00';
    h += static_cast<char>(len & 0xff);
    h += static_cast<char>(len >> 8);
    return h + dict;
}

void save(std::ostream &os, const memory &mem) {
    const std::string h = header(mem.get_desc());
    os.write(h.data(), static_cast<std::streamsize>(h.size()));
    save_raw(os, mem);
}

void save_raw(std::ostream &os, const memory &mem) {
    const memory::desc &md = mem.get_desc();
    if (!md.is_dense() || md.get_offset0() != 0 || md.is_host_scalar())
        fail(status::invalid_arguments,
                cat("file output needs a dense memory without offset, got ",
                        md.str()));
    const auto *data = static_cast<const char *>(mem.get_data_handle());
    auto size = static_cast<std::streamsize>(md.get_size());
    const dim_t tail_bits = md.nelems() % 8;
    const bool partial_byte = md.get_data_type() == data_type::bit && tail_bits;
    if (partial_byte) --size;
    os.write(data, size);
    if (partial_byte) {
        const char last = static_cast<char>(
                data[size] & ((1 << tail_bits) - 1)); // keep the tensor's bits
        os.write(&last, 1);
    }
    if (!os) fail(status::runtime_error, "could not write the data");
}

header_t read_header(std::istream &is) {
    char pre[magic_len + 4];
    if (!is.read(pre, sizeof(pre)) || std::memcmp(pre, magic, magic_len) != 0)
        fail(status::invalid_arguments, "not a .npy file (bad magic)");
    const int major = static_cast<unsigned char>(pre[6]);
    const int minor = static_cast<unsigned char>(pre[7]);
    if (major < 1 || major > 3 || minor != 0)
        fail(status::invalid_arguments,
                cat(".npy version ", major, ".", minor,
                        " is not supported (1.0, 2.0 and 3.0 are)"));
    size_t hlen = static_cast<unsigned char>(pre[8])
            | size_t(static_cast<unsigned char>(pre[9])) << 8;
    if (major >= 2) { // a 4-byte header length
        char more[2];
        if (!is.read(more, 2))
            fail(status::invalid_arguments, "truncated .npy header");
        hlen |= size_t(static_cast<unsigned char>(more[0])) << 16
                | size_t(static_cast<unsigned char>(more[1])) << 24;
    }
    // NumPy's own limit (np.load without allow_pickle): it writes no
    // longer header, and reads none.
    if (hlen > 10000)
        fail(status::invalid_arguments,
                cat(".npy header length ", hlen,
                        " passes NumPy's limit of 10000 bytes"));
    std::string h(hlen, '\0');
    if (!is.read(&h[0], static_cast<std::streamsize>(hlen)))
        fail(status::invalid_arguments, "truncated .npy header");

    const header_t a
            = dict_parser(h, sizeof(pre) + (major >= 2 ? 2 : 0)).parse();
    const size_t bytes = a.md().get_size(); // checks the shape
    check_numpy_size(
            a.shape, descr_of(a.dt), static_cast<dim_t>(dt_bits(a.dt) / 8));

    // A file can tell how much data follows: a header that claims more is
    // refused before anyone allocates its claim.
    const std::streampos here = is.tellg();
    if (here != std::streampos(-1) && is.seekg(0, std::ios::end)) {
        const std::streampos end = is.tellg();
        is.seekg(here);
        const auto left = static_cast<unsigned long long>(end - here);
        if (!is || left < bytes)
            fail(status::invalid_arguments,
                    cat("truncated .npy data: expected ", bytes,
                            " bytes, the file holds ", left));
    }
    is.clear();
    return a;
}

void read_data(std::istream &is, const header_t &h, void *dst) {
    const size_t bytes = h.md().get_size();
    if (bytes && !is.read(static_cast<char *>(dst),
                         static_cast<std::streamsize>(bytes)))
        fail(status::invalid_arguments,
                cat("truncated .npy data: expected ", bytes, " bytes, got ",
                        is.gcount()));
}

array load(std::istream &is) {
    array a;
    static_cast<header_t &>(a) = read_header(is);
    // In chunks, so that a stream that cannot tell its length (a pipe)
    // still costs only what it delivers.
    const size_t bytes = a.md().get_size();
    constexpr size_t chunk = size_t(1) << 24;
    while (a.data.size() < bytes) {
        const size_t done = a.data.size();
        const size_t n = std::min(chunk, bytes - done);
        a.data.resize(done + n);
        if (!is.read(reinterpret_cast<char *>(a.data.data() + done),
                    static_cast<std::streamsize>(n)))
            fail(status::invalid_arguments,
                    cat("truncated .npy data: expected ", bytes,
                            " bytes, got ", done + size_t(is.gcount())));
    }
    return a;
}

array load_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    if (!f)
        fail(status::runtime_error,
                cat("cannot open '", path, "': ", std::strerror(errno)));
    return load(f);
}

} // namespace unchecked

std::string header(const memory::desc &md) {
    return no_foreign_errors(
            "npy::header", [&] { return unchecked::header(md); });
}

void save(std::ostream &os, const memory &mem) {
    no_foreign_errors("npy::save", [&] { unchecked::save(os, mem); });
}

void save_raw(std::ostream &os, const memory &mem) {
    no_foreign_errors("npy::save_raw", [&] { unchecked::save_raw(os, mem); });
}

header_t read_header(std::istream &is) {
    return no_foreign_errors(
            "npy::read_header", [&] { return unchecked::read_header(is); });
}

void read_data(std::istream &is, const header_t &h, void *dst) {
    no_foreign_errors(
            "npy::read_data", [&] { unchecked::read_data(is, h, dst); });
}

array load(std::istream &is) {
    return no_foreign_errors("npy::load", [&] { return unchecked::load(is); });
}

array load_file(const std::string &path) {
    return no_foreign_errors(
            "npy::load_file", [&] { return unchecked::load_file(path); });
}

} // namespace npy
} // namespace rndnn
