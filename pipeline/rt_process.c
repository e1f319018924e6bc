/* rt_process.c - convoy_rt's process(), set_routes() and reset(): the block
 * loop and the route sets' hand-over between the set_routes() thread and the
 * process() thread (see rt_internal.h). The process() thread never frees or
 * allocates: it moves sets between its own pointers and pushes those no
 * longer read onto the retired stack. */
#include "rt_internal.h"

#include <stdlib.h>

static void retire(convoy_rt *rt, rt_set_node *node) {
  rt_set_node *head = atomic_load_explicit(&rt->retired, memory_order_relaxed);
  do {
    node->next = head;
  } while (!atomic_compare_exchange_weak_explicit(&rt->retired, &head, node, memory_order_release,
                                                  memory_order_relaxed));
}

/* Between blocks: take a newly handed-over set and start switching to it. */
static void pick_up(convoy_rt *rt) {
  if (rt->switching) return;
  if (atomic_load_explicit(&rt->pending, memory_order_relaxed)) {
    rt_set_node *n = atomic_exchange_explicit(&rt->pending, NULL, memory_order_acquire);
    if (n) {
      if (rt->waiting) { /* superseded before it was used */
        retire(rt, rt->waiting);
        atomic_fetch_add_explicit(&rt->merged, 1, memory_order_relaxed);
      }
      rt->waiting = n;
    }
  }
  if (rt->waiting && rt->ops->begin_switch(rt->impl, rt->waiting->set)) {
    rt->switching = rt->waiting;
    rt->waiting = NULL;
  }
}

convoy_status convoy_rt_process(convoy_rt *rt, const float *const *in, float *const *out,
                                int64_t n_frames) {
  const char *fn = "convoy_rt_process";
  if (!rt) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: rt is NULL", fn);
  if (!in || !out)
    return convoy_error_format(rt->err, sizeof rt->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: %s is NULL", fn, in ? "out" : "in");
  const int32_t b = rt->layout.block;
  if (n_frames < 0 || n_frames % b != 0)
    return convoy_error_format(rt->err, sizeof rt->err, CONVOY_ERR_INVALID_ARGUMENT,
                               "%s: n_frames %lld is not a non-negative multiple of the block "
                               "(%d frames)",
                               fn, (long long)n_frames, (int)b);
  for (int32_t i = 0; i < rt->layout.n_in; i++)
    if (!in[i])
      return convoy_error_format(rt->err, sizeof rt->err, CONVOY_ERR_INVALID_ARGUMENT,
                                 "%s: in[%d] is NULL", fn, (int)i);
  for (int32_t o = 0; o < rt->layout.n_out; o++)
    if (!out[o])
      return convoy_error_format(rt->err, sizeof rt->err, CONVOY_ERR_INVALID_ARGUMENT,
                                 "%s: out[%d] is NULL", fn, (int)o);

  for (int64_t at = 0; at < n_frames; at += b) {
    for (int32_t i = 0; i < rt->layout.n_in; i++) rt->in_blk[i] = in[i] + at;
    for (int32_t o = 0; o < rt->layout.n_out; o++) rt->out_blk[o] = out[o] + at;
    pick_up(rt);
    rt_block_result res = {0, 0};
    convoy_status st = rt->ops->process(rt->impl, rt->in_blk, (float *const *)rt->out_blk, &res,
                                        rt->err, sizeof rt->err);
    if (st != CONVOY_OK) return st;
    if (res.switch_done && rt->switching) {
      retire(rt, rt->active);
      rt->active = rt->switching;
      rt->switching = NULL;
      atomic_fetch_add_explicit(&rt->switches, 1, memory_order_relaxed);
    }
    if (res.missed) atomic_fetch_add_explicit(&rt->misses, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&rt->blocks, 1, memory_order_relaxed);
  }
  return CONVOY_OK;
}

convoy_status convoy_rt_set_routes(convoy_rt *rt, const convoy_rt_route *routes, int32_t n_routes) {
  const char *fn = "convoy_rt_set_routes";
  if (!rt) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: rt is NULL", fn);
  rt_free_retired(rt);
  convoy_status st =
      rt_check_routes(fn, routes, n_routes, rt->layout.n_in, rt->layout.n_out, rt->layout.max_ir);
  if (st != CONVOY_OK) {
    convoy_error_format(rt->err, sizeof rt->err, st, "%s", convoy_last_error());
    return st;
  }
  rt_set_node *node = NULL;
  st = rt_node_make(rt, routes, n_routes, &node);
  if (st != CONVOY_OK) return convoy_error_set(st, "%s: %s", fn, rt->err);
  /* A set handed over earlier and not taken yet is never read: free it. */
  rt_set_node *unread = atomic_exchange_explicit(&rt->pending, node, memory_order_acq_rel);
  if (unread) {
    rt_node_free(rt, unread);
    atomic_fetch_add_explicit(&rt->merged, 1, memory_order_relaxed);
  }
  return CONVOY_OK;
}

convoy_status convoy_rt_reset(convoy_rt *rt) {
  if (!rt) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_rt_reset: rt is NULL");
  rt->ops->reset(rt->impl);
  if (rt->switching) { /* the switch under way is complete: nothing to fade from */
    retire(rt, rt->active);
    rt->active = rt->switching;
    rt->switching = NULL;
    atomic_fetch_add_explicit(&rt->switches, 1, memory_order_relaxed);
  }
  atomic_store(&rt->blocks, 0);
  atomic_store(&rt->misses, 0);
  return CONVOY_OK;
}
