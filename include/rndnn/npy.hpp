/// @file
/// NumPy .npy files: little-endian, C order; written as format 1.0, read
/// as 1.0, 2.0 or 3.0.
///
/// Type mapping: f32 <f4, f16 <f2, bf16 <u2 (the raw bf16 bits; NumPy has no
/// bf16), s8 |i1, u8 |u1, s32 <i4, u32 <u4, s64 <i8, f64 <f8. A bit tensor of n
/// elements is written as its packed bytes: |u1 of shape [ceil(n/8)], LSB
/// first, so np.unpackbits(a, bitorder='little')[:n] recovers it.
#ifndef RNDNN_NPY_HPP
#define RNDNN_NPY_HPP

#include <iosfwd>
#include <string>
#include <vector>

#include "rndnn/memory.hpp"

namespace rndnn {
namespace npy {

/// @returns the complete .npy header (magic to newline, padded to 64
///     bytes) for a dense tensor of @p md's shape and type.
/// @throws error (invalid_arguments) if the type has no .npy equivalent,
///     or if NumPy could not hold the shape: its item size (bytes) times
///     the product of its nonzero dims passes 2^63 - 1, which a shape with
///     a 0 dim can do.
RNDNN_API std::string header(const memory::desc &md);

/// Writes @p mem as a .npy file: header(), then save_raw()'s bytes.
/// @throws as save_raw().
RNDNN_API void save(std::ostream &os, const memory &mem);

/// Writes the data of @p mem with no header: little-endian, packed. The
/// unused high bits of a bit tensor's last byte are written as 0, whatever
/// the buffer holds there (kernels never write them).
/// @throws error (invalid_arguments) if @p mem is not dense with a zero
///     first-element offset; (runtime_error) if the stream fails.
RNDNN_API void save_raw(std::ostream &os, const memory &mem);

/// The header of a .npy file: the type and shape of its array.
struct header_t {
    data_type dt = data_type::undef;
    dims shape;
    /// @returns the dense descriptor of the array.
    memory::desc md() const { return memory::desc(shape, dt); }
};

/// A loaded array: its type, shape and little-endian C-order data.
struct array : header_t {
    std::vector<unsigned char> data;
};

/// Reads the header of a .npy file of one of the types above and leaves
/// @p is at the first byte of the data, so that the caller can check the
/// type and shape before anything is allocated. Where @p is can seek (a
/// file), the data is also checked to be all there.
/// The header's dict is read with a grammar that takes what NumPy writes
/// and a subset of what NumPy reads (docs/cli.md, ".npy headers"): both
/// quote styles, the three keys once each, in any order.
/// @throws error (invalid_arguments) naming the problem: not a .npy
///     file, an unsupported dtype or version, Fortran order, a malformed
///     header (what was expected, what was found and its byte offset from
///     the magic: a duplicated, missing or unknown key, bytes after the
///     dict, a NUL byte, a negative dim), a shape whose size overflows or
///     that NumPy could not hold (as header()), truncated data. Header
///     bytes quoted in a message are escaped (escape()).
RNDNN_API header_t read_header(std::istream &is);
/// Reads the data that follows @p h: h.md().get_size() bytes into @p dst.
/// @throws error (invalid_arguments) if the stream ends first.
RNDNN_API void read_data(std::istream &is, const header_t &h, void *dst);

/// Reads a .npy file: read_header(), then its data. Memory grows with the
/// bytes actually read, never ahead of them: a header that claims more
/// data than follows costs no more than the file's size.
/// @throws as read_header() and read_data().
RNDNN_API array load(std::istream &is);
/// Reads the .npy file at @p path.
/// @throws error (runtime_error) if the file cannot be opened, and as
///     load().
RNDNN_API array load_file(const std::string &path);

} // namespace npy
} // namespace rndnn

#endif
