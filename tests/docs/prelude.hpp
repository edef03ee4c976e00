// What the C++ fragments of the docs assume (tests/docs/doc_blocks.py): headers, and per markdown file the objects they use.
//
// doc_blocks.py compiles each markdown file's fragments as function bodies
// in one translation unit, after that file's declarations blocks and this
// header, with RNDNN_DOC_<FILE>_MD defined (README.md: RNDNN_DOC_README_MD,
// docs/api.md: RNDNN_DOC_API_MD). The objects below are placeholders with
// the types the prose gives them: the fragments are compiled and linked,
// never run. A fragment that needs a name not declared here or in the
// fragment itself fails to compile: declare it here, or better, in the
// fragment, where readers see it.
#ifndef RNDNN_TESTS_DOCS_PRELUDE_HPP
#define RNDNN_TESTS_DOCS_PRELUDE_HPP

#include <cstdint>
#include <iostream>
#include <vector>

#include "rndnn/rndnn.hpp"

#if defined(RNDNN_DOC_API_MD)
rndnn::memory::desc md; // the "Memory" section's f32 64x1024
void *user_pointer = nullptr;
rndnn::memory dst, next_offset_memory, mx, mz, dx, dz;
std::int64_t step = 0, n = 0, layer_id = 0, seed = 0;
enum : rndnn::tensor_id { x, y, z };
rndnn::compile_options options;
#endif

#if defined(RNDNN_DOC_ATTENTION_MD)
// The example program's helper: a tensor of normal values from rndnn's RNG
// (tools/programs/attention_example.cpp has the real one).
rndnn::memory normal(const rndnn::memory::desc &md, std::int64_t, std::int64_t) {
    return rndnn::memory(md);
}
std::int64_t seed = 42;
int steps = 5;
#endif

#if defined(RNDNN_DOC_GRAPH_MD)
enum : rndnn::tensor_id { q, k, v, scores, out };
rndnn::memory::desc qkv_md, scores_md;
rndnn::memory mq, mk, mv, mo, dout, dq, dk;
std::int64_t seed = 0;
int steps = 1;
#endif

#endif
