/*
 * convoy_rt.h - real-time partitioned convolution with a fixed block size.
 *
 * A convoy_rt convolves n_inputs planar input channels into n_outputs planar
 * output channels through a routing matrix: each route (input i, output o,
 * impulse response h, gain g) adds g * (x_i * h) to output o. Pairs with no
 * route cost nothing. It is the engine behind `convoy live`, and is usable
 * (and tested) without audio hardware.
 *
 * Timing: the caller hands whole blocks of block_frames frames. Output block
 * k holds frames [k*B, (k+1)*B) of the full convolution of all input up to
 * and including block k: no latency beyond the block itself.
 *
 * Engines
 *   CPU  non-uniformly partitioned overlap-save on FFTW: the head of every
 *        impulse response in partitions of the block size (computed in the
 *        calling thread), later partitions growing (each size computed by a
 *        worker thread within its own period, handed over without locks).
 *   GPU  partitioned overlap-save with frequency-domain delay lines on the
 *        device, all routes in one launch sequence per block, captured as
 *        CUDA graphs, through pinned mapped staging. Partitions are uniform
 *        (the block size), or, for long responses on many channels, a head
 *        of the block size for the first 2Q taps and a tail of partitions of
 *        Q = R blocks for the rest, whose sums are spread evenly over the R
 *        blocks each tail partition has until it is heard; the cost model
 *        picks Q (or uniform), max_partition forces it.
 * process() allocates nothing and takes no lock on either engine.
 *
 * Deadlines: in CONVOY_RT_REALTIME mode a worker that has not finished when
 * its result is due is not waited for: that block's output is silence, the
 * miss is counted in convoy_rt_stats, and the latency stays the same. In
 * CONVOY_RT_OFFLINE mode (the default) process() waits for the workers, so
 * the output is exact whatever the machine's load: use it for files and
 * tests.
 *
 * Thread safety: one thread calls process() (the audio thread); any one
 * other thread may call set_routes() and stats() meanwhile. Everything else
 * must not run concurrently with process().
 */
#ifndef CONVOY_RT_H
#define CONVOY_RT_H

#include "convoy.h"
#include "convoy_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest block size, in frames. */
#define CONVOY_RT_MAX_BLOCK 8192
/** Most inputs or outputs of one convolver. */
#define CONVOY_RT_MAX_CHANNELS 1024

typedef enum convoy_rt_mode {
  CONVOY_RT_OFFLINE = 0, /* process() waits for workers: exact output */
  CONVOY_RT_REALTIME = 1 /* process() never waits: a late worker is a miss */
} convoy_rt_mode;

typedef struct convoy_rt_config {
  int32_t block_frames;  /* 1 .. CONVOY_RT_MAX_BLOCK; default 128 */
  int32_t n_inputs;      /* 1 .. CONVOY_RT_MAX_CHANNELS; default 1 */
  int32_t n_outputs;     /* 1 .. CONVOY_RT_MAX_CHANNELS; default 1 */
  int64_t max_ir_frames; /* longest impulse response any route may have, now
                            or after set_routes(); 0 = the longest at create.
                            Fixes the partition schedule and the memory. */
  convoy_engine engine;  /* AUTO, CPU or GPU (the families; exact CPU_DIRECT,
                            GPU_FFT ... are taken as their family). AUTO picks
                            the GPU when present and cheaper by cost model. */
  convoy_rt_mode mode;   /* default CONVOY_RT_OFFLINE */
  int32_t threads;       /* CPU worker threads for the later partitions;
                            0 = one per partition size (the OS then lets a
                            short partition's job preempt a long one's);
                            n > 0: at most n, the largest sizes sharing the
                            last thread. REALTIME mode, from the first
                            block on, puts them right below the thread that
                            calls process() when that thread is SCHED_FIFO
                            or SCHED_RR (SCHED_FIFO, the smallest partition's
                            highest); under an ordinary caller, or without
                            the permission, they stay ordinary threads */
  int32_t max_partition; /* largest partition in frames, a power of two
                            >= block; 0 = chosen by cost model. Setting it to
                            block_frames gives uniform partitions. CPU: the
                            schedule's largest size. GPU: the tail's
                            partition is the largest block_frames * 2^k (k
                            >= 1) not above it, uniform where there is none
                            or the response ends within twice that. */
  int32_t device;        /* GPU index; -1 = default */
} convoy_rt_config;

/** Fills *config with the defaults above. */
CONVOY_API void convoy_rt_config_init(convoy_rt_config *config);

typedef struct convoy_rt_route {
  int32_t input;     /* 0 .. n_inputs - 1 */
  int32_t output;    /* 0 .. n_outputs - 1 */
  const float *taps; /* impulse response, copied; finite values */
  int64_t n_taps;    /* 1 .. max_ir_frames */
  float gain;        /* linear factor applied to this route */
} convoy_rt_route;

typedef struct convoy_rt convoy_rt;

/** Creates a convolver with the given routes (n_routes >= 1; the same pair
 *  may appear twice, and their contributions add). Allocates everything and
 *  plans every FFT; starts the worker threads. */
CONVOY_API convoy_status convoy_rt_create(convoy_rt **rt, const convoy_rt_config *config,
                                          const convoy_rt_route *routes, int32_t n_routes);

/** Stops the workers and frees everything. NULL is a no-op. */
CONVOY_API void convoy_rt_destroy(convoy_rt *rt);

/** Processes n_frames frames, a multiple of block_frames: in[i] holds
 *  n_frames samples of input i, out[o] receives n_frames samples of output o
 *  (planar; in and out must not overlap). Cutting the same input into calls
 *  of any number of blocks gives bitwise the same output. Real-time safe:
 *  allocates nothing, takes no lock, makes no system call other than waking
 *  workers (and, in OFFLINE mode, waiting for them). */
CONVOY_API convoy_status convoy_rt_process(convoy_rt *rt, const float *const *in, float *const *out,
                                           int64_t n_frames);

/** Replaces all routes (same n_inputs and n_outputs; taps no longer than
 *  max_ir_frames). Called from a non-real-time thread while another thread
 *  runs process(): the new impulse responses are copied and transformed
 *  here, then handed over without locks; process() switches to them with a
 *  linear crossfade over one block, which starts at most
 *  convoy_rt_switch_delay() frames after the next block boundary. Returns
 *  once the new routes are handed over (not when the crossfade is done). Old
 *  route sets are freed by a later set_routes() or by destroy(). */
CONVOY_API convoy_status convoy_rt_set_routes(convoy_rt *rt, const convoy_rt_route *routes,
                                              int32_t n_routes);

/** Frames between set_routes() and the start of its crossfade, at most
 *  (GPU: 0 with uniform partitions, 2Q with a tail of partitions of Q). */
CONVOY_API int64_t convoy_rt_switch_delay(const convoy_rt *rt);

/** Returns to silence (zero history), keeping routes and plans. Not
 *  concurrently with process(). */
CONVOY_API convoy_status convoy_rt_reset(convoy_rt *rt);

typedef struct convoy_rt_stats {
  int64_t blocks;            /* blocks processed since create or reset */
  int64_t deadline_misses;   /* blocks output as silence (REALTIME mode) */
  int64_t route_switches;    /* switches to a set_routes() set completed: crossfades,
                                and a switch under way that reset() completed */
  int64_t route_sets_merged; /* set_routes() sets replaced by a later one before
                                process() switched to them (never heard) */
} convoy_rt_stats;

/** Counters, readable from any thread while process() runs. Every
 *  successful set_routes() is counted once in route_switches or
 *  route_sets_merged, when it is heard or replaced; the one or two sets
 *  handed over and not yet switched to are in neither. */
CONVOY_API convoy_status convoy_rt_get_stats(const convoy_rt *rt, convoy_rt_stats *stats);

CONVOY_API int32_t convoy_rt_block_frames(const convoy_rt *rt);

/** The engine running: CONVOY_ENGINE_CPU or CONVOY_ENGINE_GPU. */
CONVOY_API convoy_engine convoy_rt_engine(const convoy_rt *rt);

/** One line into buf (always NUL-terminated): engine, block, partition
 *  schedule, routes, threads or device. */
CONVOY_API convoy_status convoy_rt_describe(const convoy_rt *rt, char *buf, size_t buf_size);

/** Message of the last failure on this convolver; "" if none. */
CONVOY_API const char *convoy_rt_last_error(const convoy_rt *rt);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_RT_H */
