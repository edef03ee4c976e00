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

namespace {

const char magic[] = "\x93NUMPY";
constexpr size_t magic_len = 6;

const struct {
    data_type dt;
    const char *descr;
} descr_table[] = {{data_type::f32, "<f4"}, {data_type::f16, "<f2"},
        {data_type::bf16, "<u2"}, {data_type::s8, "|i1"},
        {data_type::u8, "|u1"}, {data_type::s32, "<i4"},
        {data_type::u32, "<u4"}, {data_type::s64, "<i8"}};

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

// Finds `'key': ` in the header dict and returns what follows.
std::string value_after(const std::string &h, const std::string &key) {
    const std::string k = cat("'", key, "':");
    const size_t at = h.find(k);
    if (at == std::string::npos)
        fail(status::invalid_arguments,
                cat(".npy header has no '", key, "' entry: ", escape(h)));
    size_t i = at + k.size();
    while (i < h.size() && h[i] == ' ')
        ++i;
    return h.substr(i);
}

} // namespace

std::string header(const memory::desc &md) {
    dims shape = md.get_dims();
    if (md.get_data_type() == data_type::bit)
        shape = {(md.nelems() + 7) / 8};
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
    size_t hlen = static_cast<unsigned char>(pre[8])
            | size_t(static_cast<unsigned char>(pre[9])) << 8;
    if (major == 2 || major == 3) { // a 4-byte header length
        char more[2];
        if (!is.read(more, 2))
            fail(status::invalid_arguments, "truncated .npy header");
        hlen |= size_t(static_cast<unsigned char>(more[0])) << 16
                | size_t(static_cast<unsigned char>(more[1])) << 24;
    } else if (major != 1) {
        fail(status::invalid_arguments,
                cat(".npy version ", major, " is not supported"));
    }
    if (hlen > (1u << 20))
        fail(status::invalid_arguments,
                cat(".npy header length ", hlen, " is implausible"));
    std::string h(hlen, '\0');
    if (!is.read(&h[0], static_cast<std::streamsize>(hlen)))
        fail(status::invalid_arguments, "truncated .npy header");

    header_t a;
    const std::string descr = value_after(h, "descr");
    for (const auto &e : descr_table)
        if (descr.compare(0, std::strlen(e.descr) + 2,
                    cat("'", e.descr, "'"))
                == 0)
            a.dt = e.dt;
    if (a.dt == data_type::undef)
        fail(status::invalid_arguments,
                cat(".npy dtype ", escape(descr.substr(0, descr.find(','))),
                        " is not supported"));
    if (value_after(h, "fortran_order").compare(0, 5, "False") != 0)
        fail(status::invalid_arguments,
                ".npy file is in Fortran order; only C order is supported");
    const std::string shape = value_after(h, "shape");
    if (shape.empty() || shape[0] != '(')
        fail(status::invalid_arguments,
                cat(".npy shape is malformed: ", escape(h)));
    size_t i = 1;
    while (i < shape.size() && shape[i] != ')') {
        if (shape[i] == ' ' || shape[i] == ',') {
            ++i;
            continue;
        }
        // Digits only, parsed without a locale or exceptions.
        dim_t d = 0;
        const auto r = std::from_chars(
                shape.data() + i, shape.data() + shape.size(), d);
        if (r.ec != std::errc() || d < 0)
            fail(status::invalid_arguments,
                    cat(".npy shape is malformed: ", escape(h)));
        a.shape.push_back(d);
        i = static_cast<size_t>(r.ptr - shape.data());
    }
    if (i >= shape.size())
        fail(status::invalid_arguments,
                cat(".npy shape is malformed: ", escape(h)));
    const size_t bytes = a.md().get_size(); // checks the shape

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

} // namespace npy
} // namespace rndnn
