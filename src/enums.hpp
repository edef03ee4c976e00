// Range checks of the public enums: a value cast from an integer that is no
// enumerator is refused at the API boundary, by number and type.
#ifndef RNDNN_SRC_ENUMS_HPP
#define RNDNN_SRC_ENUMS_HPP

#include "rndnn/attr.hpp"
#include "rndnn/binary.hpp"
#include "rndnn/dropout.hpp"
#include "rndnn/graph.hpp"
#include "rndnn/rng.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

// @returns true if @p v is one of its type's enumerators. Each is a switch
// without a default, so that a new enumerator that is not listed is a
// compiler warning (an error in this build).
bool is_enumerator(data_type v);
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
