// Runtime-argument readers shared by the primitives (rng, binary, dropout):
// find_arg, tensor_arg, read_scalar and read_probability. The RNG's own
// arguments (seed, offset, stream, p, next_offset) are read by
// rng/rng_args.hpp with them.
#ifndef RNDNN_SRC_ARGS_HPP
#define RNDNN_SRC_ARGS_HPP

#include <cstdint>
#include <unordered_map>

#include "rndnn/attr.hpp"
#include "rndnn/common.hpp"
#include "rndnn/memory.hpp"

namespace rndnn {
namespace impl {

// Reads the scalar argument @p m (id @p id, named in errors) of type
// @p want passed as @p kind: integers (s32 sign-extended, s64) come back
// in @p i, f32 in @p f.
// @throws error (invalid_arguments) naming the argument if it is passed
//     otherwise, has another type, or has no data.
void read_scalar(const memory &m, int id, scalar_kind kind, data_type want,
        int64_t &i, double &f);
// The name of argument @p id in messages ("seed", "offset", ...).
const char *arg2str(int id);
// Reads the f32 argument `id`, checked to lie in [0, 1].
double read_probability(const std::unordered_map<int, memory> &args, int id,
        scalar_kind kind);
// The argument `id`, or nullptr if absent or empty.
const memory *find_arg(const std::unordered_map<int, memory> &args, int id);
// The tensor argument `id` (named `what` in errors), checked against desc:
// every primitive's execute() reads its tensors through it.
// @throws error (invalid_arguments) if it is missing, has another
//     descriptor, or has no data where desc has bytes.
const memory &tensor_arg(const std::unordered_map<int, memory> &args, int id,
        const char *what, const memory::desc &desc);

} // namespace impl
} // namespace rndnn

#endif
