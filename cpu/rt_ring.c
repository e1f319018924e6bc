/* rt_ring.c - the input history of the CPU real-time convolver: one ring of
 * ring_len frames per input (a power of two), written by the process()
 * thread each block and read by it (the head) and by the workers (the
 * levels). Samples are relaxed atomics: a worker far behind in REALTIME mode
 * may read frames while they are overwritten, a defined race whose result it
 * then discards, not undefined behaviour. Relaxed float loads and stores
 * are plain moves. */
#include "rt_cpu.h"

void rt_ring_write(rt_cpu *rt, int32_t in, int64_t first, int64_t n, const float *src) {
  _Atomic float *ring = rt->ring + (int64_t)in * rt->ring_len;
  const int64_t mask = rt->ring_len - 1;
  for (int64_t t = 0; t < n; t++)
    atomic_store_explicit(&ring[(first + t) & mask], src[t], memory_order_relaxed);
}

void rt_ring_read(const rt_cpu *rt, int32_t in, int64_t first, int64_t n, float *dst) {
  _Atomic float *ring = rt->ring + (int64_t)in * rt->ring_len;
  const int64_t mask = rt->ring_len - 1;
  for (int64_t t = 0; t < n; t++)
    dst[t] = atomic_load_explicit(&ring[(first + t) & mask], memory_order_relaxed);
}
