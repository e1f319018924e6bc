/*
 * bench_machine.h - what a benchmark ran on: the CPU, its threads and memory,
 * and how this convoy was built, so that printed figures carry their context.
 */
#ifndef CONVOY_BENCH_MACHINE_H
#define CONVOY_BENCH_MACHINE_H

#include <stdint.h>

typedef struct bench_machine {
  char cpu_model[256];  /* "model name" of /proc/cpuinfo, or "unknown" */
  int cpu_threads;      /* convoy_cpu_threads() */
  int64_t memory_bytes; /* MemTotal of /proc/meminfo; 0 if unknown */
  char convoy_version[32];
  char fftw_version[128]; /* fftwf_version */
  char compiler[128];
  int optimised;      /* built with optimisation (__OPTIMIZE__) */
  int sanitised;      /* built with AddressSanitizer */
  char simd[64];      /* vector extensions the CPU reports, e.g. "avx avx2 fma" */
  int cuda_built;     /* convoy_built_with_cuda() */
  int gpu_count;      /* convoy_gpu_count() */
  char gpu_name[256]; /* device 0, "" when none */
} bench_machine;

/* Fills *m; never fails (unknown fields are left "unknown" or 0). */
void bench_machine_probe(bench_machine *m);

#endif /* CONVOY_BENCH_MACHINE_H */
