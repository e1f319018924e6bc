/*
 * bench_cuda_check.h - CK(call): a benchmark's check of a CUDA runtime call,
 * which prints the call, file, line and CUDA's message and exits 1 on
 * failure. For benchmark programs only; the library returns status codes.
 */
#ifndef CONVOY_BENCH_CUDA_CHECK_H
#define CONVOY_BENCH_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));       \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

#endif /* CONVOY_BENCH_CUDA_CHECK_H */
