// Error checks for the example programs. Examples are apps: on a failed call
// they print where it happened and exit (library code never does this).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "tilesort/status.hpp"

#define CHECK_CUDA(call)                                                                            \
  do {                                                                                              \
    const cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

#define CHECK_TILESORT(call)                                                 \
  do {                                                                       \
    const tilesort::Status st_ = (call);                                     \
    if (!st_.ok()) {                                                         \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, st_.what()); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)
