// Checks the pipeline's primitives share: types, broadcasts, tensor args.
#include "pipeline/pipeline_utils.hpp"

#include "src/args.hpp"

namespace rndnn {
namespace impl {

void check_data_type(const char *what, data_type dt) {
    if (dt != data_type::f32 && dt != data_type::bf16 && dt != data_type::f16)
        fail(status::invalid_arguments,
                cat(what, " type ", dt2str(dt),
                        " is not supported (expected f32, bf16 or f16)"));
}

bool broadcasts_to(const dims &shape, const dims &data) {
    if (shape.size() != data.size()) return false;
    for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] != data[d] && shape[d] != 1) return false;
    return true;
}

void check_broadcast(const char *what, const dims &shape, const dims &data) {
    if (!broadcasts_to(shape, data))
        fail(status::invalid_arguments,
                cat(what, " shape ", dims2str(shape),
                        " does not broadcast to the data shape ",
                        dims2str(data),
                        " (each dim must equal the data's or be 1)"));
}

} // namespace impl
} // namespace rndnn
