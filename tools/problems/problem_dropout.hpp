// The dropout problem of the CLI: its options and parser, shared by `rndnn dropout` and `rndnn bench --prim dropout`.
//
// One problem line works in both: `rndnn dropout` takes the data from --in
// (and the stored mask's file from --mask-out or --mask-in), `rndnn bench`
// from --shape and --dtype (and --mask-dtype alone says that a mask is
// stored); every other flag is the same option with the same meaning
// (docs/cli.md).
#ifndef RNDNN_TOOLS_PROBLEM_DROPOUT_HPP
#define RNDNN_TOOLS_PROBLEM_DROPOUT_HPP

#include <optional>
#include <string>
#include <vector>

#include "common/cli_common.hpp"

namespace rndnn_cli {

// Which command the options are for: their help and defaults differ.
enum class dropout_cli_t {
    subcommand, // `rndnn dropout`: --rate required, --mask-dtype a file format
    bench, // `rndnn bench`: --rate 0.5, --mask-dtype the stored mask or none
};

// Adds the dropout problem's options: --backward, --rate, --noise-shape,
// --axes, --mask-dtype, --onednn-compat, --plan; for the subcommand also
// --method and the stream options (bench has those from the rng problem,
// add_rng_problem_options, with the same names and meaning).
void add_dropout_problem_options(po::options_description &desc,
        dropout_cli_t cli);

// The dropout options of add_dropout_problem_options() but --method and
// the stream options (shared with the rng problem): what is dropout's own.
const std::vector<const char *> &dropout_own_flags();

// A dropout problem parsed strictly, before anything is known of the data.
struct dropout_problem_t {
    // prop, rate, method, bits, alg, name, onednn_compat, plan; the data,
    // noise shape, mask and with_offset are filled by desc_for().
    rndnn::dropout::desc desc;
    stream_options_t so;
    std::optional<rndnn::dims> noise_shape; // --noise-shape
    std::optional<std::vector<int>> axes; // --axes
    // --mask-dtype: bit or u8, undef for none (or not written).
    rndnn::data_type mask_dt = rndnn::data_type::undef;
    bool mask_dtype_given = false;
    bool inplace = false; // bench's --inplace: dst is src's memory

    // The complete descriptor for data @p data (src and dst) and a stored
    // mask of type @p mask_dt (undef: no mask): the noise shape from
    // --noise-shape or --axes (checked against the data by the library),
    // with_offset unless backward reads a stored mask.
    // @throws rndnn::error naming a bad --axes.
    rndnn::dropout::desc desc_for(const rndnn::memory::desc &data,
            rndnn::data_type mask_dt) const;
    // Where @p d (from desc_for()) runs the RNG, checks the offset range of
    // its mask elements (check_offset_range).
    // @throws usage_error naming --offset.
    void check_offset(const rndnn::dropout::desc &d) const;
};

// Parses the options of add_dropout_problem_options(). @p default_rate is
// used where --rate is not given; without one (`rndnn dropout`, where
// --rate is required) the caller has checked that --rate is given.
// @throws usage_error or rndnn::error naming the bad value (--noise-shape
//     with --axes, an unknown --mask-dtype, --method or --plan, ...).
dropout_problem_t parse_dropout_problem(const po::variables_map &vm,
        const std::optional<std::string> &default_rate);

} // namespace rndnn_cli

#endif
