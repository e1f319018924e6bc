/*
 * bench_gpu_bus.h - the transfer limits a GPU filter is measured against:
 * pinned host<->device bandwidth (each way alone, and both ways at once on
 * two streams) and the device-to-device copy rate. Only in CUDA builds
 * (CONVOY_HAVE_CUDA); every function uses the calling thread's current
 * device and is not thread-safe with other CUDA work on it.
 */
#ifndef CONVOY_BENCH_GPU_BUS_H
#define CONVOY_BENCH_GPU_BUS_H

#include <stddef.h>

typedef struct bench_gpu_bus {
  double h2d, d2h;       /* GB/s (1e9 bytes), one direction alone */
  double bi_h2d, bi_d2h; /* GB/s of each direction while both run at once */
} bench_gpu_bus;

/* Copies `bytes` from pinned h_src to the device and from the device to
 * pinned h_dst, alone and then both at once, runs + 1 times (the first
 * warms up); the medians go into *bus. Allocates two device buffers of
 * `bytes` for the time of the call. 0 on success; otherwise -1 and one line
 * in err. */
int bench_gpu_measure_bus(const void *h_src, void *h_dst, size_t bytes, int runs,
                          bench_gpu_bus *bus, char *err, size_t err_size);

/* Median seconds of runs device-to-device copies of `bytes` from d_src to
 * d_dst (CUDA events, after one warm-up); negative on a CUDA error, with one
 * line in err. */
double bench_gpu_copy_seconds(const void *d_src, void *d_dst, size_t bytes, int runs, char *err,
                              size_t err_size);

#endif /* CONVOY_BENCH_GPU_BUS_H */
