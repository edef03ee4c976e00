/// @file
/// The whole public API of rndnn.
#ifndef RNDNN_RNDNN_HPP
#define RNDNN_RNDNN_HPP

#include "rndnn/common.hpp"
#include "rndnn/graph.hpp"
#include "rndnn/memory.hpp"
#include "rndnn/npy.hpp"
#include "rndnn/pipeline.hpp"
#include "rndnn/rng.hpp"
#include "rndnn/verify.hpp"

#endif
