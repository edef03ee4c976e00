/// @file
/// The whole public API of rndnn.
#ifndef RNDNN_RNDNN_HPP
#define RNDNN_RNDNN_HPP

#include "rndnn/attr.hpp"
#include "rndnn/binary.hpp"
#include "rndnn/categorical.hpp"
#include "rndnn/common.hpp"
#include "rndnn/dropout.hpp"
#include "rndnn/enums.hpp"
#include "rndnn/generator.hpp"
#include "rndnn/graph.hpp"
#include "rndnn/memory.hpp"
#include "rndnn/npy.hpp"
#include "rndnn/rng.hpp"
#include "rndnn/softmax_dropout.hpp"
#include "rndnn/verify.hpp"
#include "rndnn/version.hpp"

#endif
