/*
 * rt_schedule.h - the partition schedule of the CPU real-time convolver and
 * its cost model (internal).
 *
 * An impulse response of up to max_ir taps is cut into a head of n_head
 * partitions of the block size B, computed by the process() thread every
 * block, and levels: level j covers taps [offset[j], offset[j] + count[j] *
 * size[j]) in partitions of size[j] = B * 2^k frames. A level's job for input
 * chunk c (frames [c*P, (c+1)*P)) produces output frames [c*P + offset,
 * c*P + offset + P); with offset >= 2P - B it can start one full period P
 * before its first output block is due, so a worker thread computes it.
 * Functions depend only on their arguments and are thread-safe.
 */
#ifndef CONVOY_RT_SCHEDULE_H
#define CONVOY_RT_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

/* Most levels of one schedule (each may have its own worker thread). */
#define RT_MAX_LEVELS 16
/* Largest partition the cost model picks on its own, in frames. */
#define RT_AUTO_PARTITION_CAP 32768
/* Largest partition accepted at all (FFT of twice this size). */
#define RT_PARTITION_LIMIT (1 << 20)

typedef struct rt_schedule {
  int32_t block;                 /* B, frames */
  int32_t n_head;                /* head partitions of B frames, >= 1 */
  int32_t n_levels;              /* 0 .. RT_MAX_LEVELS */
  int32_t size[RT_MAX_LEVELS];   /* partition size P: B times a power of two */
  int32_t count[RT_MAX_LEVELS];  /* partitions in the level, >= 1 */
  int64_t offset[RT_MAX_LEVELS]; /* first tap, a multiple of B, >= 2P - B */
} rt_schedule;

/* Chooses the schedule for taps up to max_ir >= 1 at block B. max_partition
 * 0 lets the cost model choose the largest partition; otherwise partitions
 * are at most max_partition frames (== block: uniform, head only). n_in,
 * n_out and n_routes (>= 1) weigh transforms against multiply-adds. */
void rt_schedule_choose(rt_schedule *s, int32_t block, int64_t max_ir, int32_t max_partition,
                        int32_t n_in, int32_t n_out, int32_t n_routes);

/* Estimated single-core nanoseconds per block of the whole schedule (head
 * and all levels, levels averaged over their period). */
double rt_schedule_cost_ns(const rt_schedule *s, int32_t n_in, int32_t n_out, int32_t n_routes);

/* Partitions of a level (or of the head, level -1) that an impulse response
 * of n_taps taps actually uses: 0 .. count. */
int32_t rt_schedule_used(const rt_schedule *s, int level, int64_t n_taps);

/* "3x128 + 2x256 + 6x512" into buf (always NUL-terminated). */
void rt_schedule_format(const rt_schedule *s, char *buf, size_t buf_size);

#endif /* CONVOY_RT_SCHEDULE_H */
