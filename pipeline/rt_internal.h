/*
 * rt_internal.h - the convoy_rt object (internal), shared by pipeline/rt.c
 * (configuration, validation, create/destroy, queries) and
 * pipeline/rt_process.c (process, set_routes, reset: the route sets' life
 * cycle).
 *
 * Route sets travel between threads inside rt_set_node:
 *   set_routes() thread --pending (atomic exchange)--> process() thread
 *   process() thread --retired (lock-free stack, push only)--> set_routes()
 *   or destroy(), which take the whole stack with one exchange and free it.
 * active, switching and waiting belong to the process() thread.
 */
#ifndef CONVOY_RT_INTERNAL_H
#define CONVOY_RT_INTERNAL_H

#include "error_internal.h"
#include "rt_backend.h"

#include <stdatomic.h>

typedef struct rt_set_node {
  void *set; /* backend's set */
  int32_t n_routes;
  struct rt_set_node *next; /* in the retired stack */
} rt_set_node;

struct convoy_rt {
  convoy_rt_config cfg;
  rt_layout layout;
  const rt_backend_ops *ops;
  convoy_family family; /* ops' row in engine_list.def */
  void *impl;
  rt_set_node *active;    /* being read */
  rt_set_node *switching; /* handed to begin_switch(), crossfade not done */
  rt_set_node *waiting;   /* taken from pending, begin_switch() refused so far */
  _Atomic(rt_set_node *) pending;
  _Atomic(rt_set_node *) retired;
  const float **in_blk; /* [n_inputs] per-block pointers */
  float **out_blk;      /* [n_outputs] */
  _Atomic int64_t blocks, misses, switches, merged;
  char err[CONVOY_ERROR_SIZE];
};

/* Checks routes against the layout (max_ir 0: no length limit); message
 * names fn and the route. Writes to the thread's convoy_last_error(). */
convoy_status rt_check_routes(const char *fn, const convoy_rt_route *routes, int32_t n_routes,
                              int32_t n_in, int32_t n_out, int64_t max_ir);

/* Prepares a node for routes with the backend (not real-time). */
convoy_status rt_node_make(convoy_rt *rt, const convoy_rt_route *routes, int32_t n_routes,
                           rt_set_node **node);
/* Frees a node and its set (NULL is a no-op). */
void rt_node_free(convoy_rt *rt, rt_set_node *node);
/* Frees every retired node. */
void rt_free_retired(convoy_rt *rt);

#endif /* CONVOY_RT_INTERNAL_H */
