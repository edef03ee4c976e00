// The public enums' tables: each value's name, its parse, and the range
// check that refuses, at the API boundary, an integer cast to an enum that
// is no enumerator (by number and type). One table per enum
// (src/enums.cpp); core: it depends on no primitive.
#ifndef RNDNN_SRC_ENUMS_HPP
#define RNDNN_SRC_ENUMS_HPP

#include "rndnn/common.hpp"
#include "rndnn/enums.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

// @returns true if @p v is one of its type's enumerators: a row of its
// table. An enumerator added to a public enum without a row is refused
// everywhere, so its first test says so.
bool is_enumerator(data_type v);
bool is_enumerator(status v);
bool is_enumerator(cpu_isa v);
bool is_enumerator(rng_alg v);
bool is_enumerator(bernoulli_method v);
bool is_enumerator(scalar_kind v);
bool is_enumerator(binary_alg v);
bool is_enumerator(prop_kind v);
bool is_enumerator(dropout_plan v);
bool is_enumerator(eltwise_alg v);
bool is_enumerator(mask_mode v);

// @throws error (invalid_arguments) "<what> value N is not a <type>" if
//     @p v is no enumerator; @p type is the enum's name.
template <typename E>
void check_enum(E v, const char *what, const char *type) {
    if (!is_enumerator(v))
        fail(status::invalid_arguments,
                cat(what, " value ", static_cast<long long>(v), " is not a ",
                        type));
}

} // namespace impl
} // namespace rndnn

#endif
