/*
 * rt_backend.h - the interface a real-time partitioned convolution engine
 * implements (internal). pipeline/rt.c (the convoy_rt object of
 * include/convoy_rt.h) validates arguments, owns the route sets' life cycle
 * and the statistics, and drives one backend block by block.
 */
#ifndef CONVOY_RT_BACKEND_H
#define CONVOY_RT_BACKEND_H

#include "convoy_rt.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rt_layout {
  int32_t block;         /* frames per block, 1 .. CONVOY_RT_MAX_BLOCK */
  int32_t n_in, n_out;   /* planar channels */
  int64_t max_ir;        /* longest impulse response of any set, >= 1 */
  convoy_rt_mode mode;   /* OFFLINE: wait for workers; REALTIME: never wait */
  int32_t threads;       /* CPU worker threads, 0 = one per partition size */
  int32_t max_partition; /* CPU schedule hint (0 = cost model) */
  int32_t device;        /* GPU index, -1 default */
} rt_layout;

/* What process() reports about one block. */
typedef struct rt_block_result {
  int missed;      /* 1: a result was not ready in time, out is silence */
  int switch_done; /* 1: the crossfade begun by begin_switch() ended with
                      this block; the previous set is no longer read */
} rt_block_result;

typedef struct rt_backend_ops {
  const char *name; /* "cpu" or "gpu" */

  /* Estimated compute time of one block in nanoseconds, negative when this
   * backend cannot serve the layout (not built, no device). */
  double (*cost)(const rt_layout *l, const convoy_rt_route *routes, int32_t n_routes);

  /* Plans everything, allocates state (delay lines, scratch), starts
   * workers. No routes yet. */
  convoy_status (*create)(const rt_layout *l, void **impl, char *err, size_t err_size);

  /* Not real-time: copies and transforms routes (already validated: indices
   * in range, 1 <= n_taps <= max_ir, finite) into a set for this impl. May
   * run concurrently with process(). */
  convoy_status (*prepare)(void *impl, const convoy_rt_route *routes, int32_t n_routes, void **set,
                           char *err, size_t err_size);

  /* Makes set the active one at once, no crossfade. Not concurrently with
   * process() (used after create). */
  void (*install)(void *impl, void *set);

  /* Real-time safe, called by the process() thread between blocks: start
   * switching to set. The one-block linear crossfade from the active set to
   * set begins within switch_delay() frames; until process() reports
   * switch_done the old set is still read. Returns 0 (and does nothing)
   * while a previous switch is still in progress. */
  int (*begin_switch)(void *impl, void *set);

  /* Frames between begin_switch() and the first block of its crossfade, at
   * most (0 when the crossfade starts with the next block). */
  int64_t (*switch_delay)(const void *impl);

  /* Real-time safe: one block. in[i] holds block samples of input i, out[o]
   * receives block samples of output o. */
  convoy_status (*process)(void *impl, const float *const *in, float *const *out,
                           rt_block_result *result, char *err, size_t err_size);

  /* Zero history, keeping sets and plans; a switch in progress completes at
   * once. Not concurrently with process(). */
  void (*reset)(void *impl);

  /* One line: engine, schedule or device, plan parameters. */
  void (*describe)(const void *impl, char *buf, size_t buf_size);

  /* Frees a set that is neither active nor being switched to. */
  void (*free_set)(void *impl, void *set);

  /* Stops workers, frees everything except sets (the front frees those). */
  void (*destroy)(void *impl);
} rt_backend_ops;

/* The getters of the listed backends (engine_list.def): the ops, or NULL
 * when the backend cannot run here. One whose row needs CUDA is neither
 * defined nor referenced without it. */
#define CONVOY_RT_BACKEND(name, family, needs, getter) const rt_backend_ops *getter(void);
#include "engine_list.def"

/* The listed backend of a family, or NULL when none is built or it cannot
 * run here. */
const rt_backend_ops *rt_backend_of(convoy_family family);

#endif /* CONVOY_RT_BACKEND_H */
