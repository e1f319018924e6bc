/* rt.c - convoy_rt (include/convoy_rt.h): configuration, validation, backend
 * choice, create/destroy and queries. process(), set_routes() and reset()
 * are in rt_process.c. */
#include "engine.h"
#include "rt_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest impulse response accepted, in frames (about 93 minutes at 48 kHz):
 * far beyond any room, small enough that partition offsets fit easily. */
#define RT_MAX_IR_FRAMES (INT64_C(1) << 28)

void convoy_rt_config_init(convoy_rt_config *config) {
  if (!config) return;
  memset(config, 0, sizeof *config);
  config->block_frames = 128;
  config->n_inputs = 1;
  config->n_outputs = 1;
  config->max_ir_frames = 0;
  config->engine = CONVOY_ENGINE_AUTO;
  config->mode = CONVOY_RT_OFFLINE;
  config->threads = 0;
  config->max_partition = 0;
  config->device = -1;
}

static int is_pow2(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

static convoy_status check_config(const convoy_rt_config *c) {
  const char *fn = "convoy_rt_create";
  if (c->block_frames < 1 || c->block_frames > CONVOY_RT_MAX_BLOCK)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: block_frames %d is outside 1 .. %d",
                            fn, (int)c->block_frames, CONVOY_RT_MAX_BLOCK);
  if (c->n_inputs < 1 || c->n_inputs > CONVOY_RT_MAX_CHANNELS)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: n_inputs %d is outside 1 .. %d", fn,
                            (int)c->n_inputs, CONVOY_RT_MAX_CHANNELS);
  if (c->n_outputs < 1 || c->n_outputs > CONVOY_RT_MAX_CHANNELS)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: n_outputs %d is outside 1 .. %d", fn,
                            (int)c->n_outputs, CONVOY_RT_MAX_CHANNELS);
  if (c->max_ir_frames < 0 || c->max_ir_frames > RT_MAX_IR_FRAMES)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: max_ir_frames %lld is outside 0 .. %lld (0: the longest route)",
                            fn, (long long)c->max_ir_frames, (long long)RT_MAX_IR_FRAMES);
  if (!engine_is_known(c->engine))
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: unknown engine id %d", fn,
                            (int)c->engine);
  if (c->mode != CONVOY_RT_OFFLINE && c->mode != CONVOY_RT_REALTIME)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: mode %d is neither OFFLINE (0) nor REALTIME (1)", fn,
                            (int)c->mode);
  if (c->threads < 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: threads %d is negative (0: one per partition size)", fn,
                            (int)c->threads);
  if (c->max_partition != 0 &&
      (c->max_partition < c->block_frames ||
       (c->max_partition != c->block_frames && !is_pow2(c->max_partition))))
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: max_partition %d is neither 0, block_frames (%d) nor a power of "
                            "two above it",
                            fn, (int)c->max_partition, (int)c->block_frames);
  if (c->device < -1)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                            "%s: device %d is invalid (-1 means the default GPU)", fn,
                            (int)c->device);
  return CONVOY_OK;
}

convoy_status rt_check_routes(const char *fn, const convoy_rt_route *routes, int32_t n_routes,
                              int32_t n_in, int32_t n_out, int64_t max_ir) {
  if (!routes) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: routes is NULL", fn);
  if (n_routes < 1)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: n_routes %d is less than 1", fn,
                            (int)n_routes);
  int64_t limit = max_ir > 0 ? max_ir : RT_MAX_IR_FRAMES;
  for (int32_t r = 0; r < n_routes; r++) {
    const convoy_rt_route *x = &routes[r];
    if (x->input < 0 || x->input >= n_in)
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                              "%s: route %d: input %d is outside 0 .. %d", fn, (int)r,
                              (int)x->input, (int)n_in - 1);
    if (x->output < 0 || x->output >= n_out)
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                              "%s: route %d: output %d is outside 0 .. %d", fn, (int)r,
                              (int)x->output, (int)n_out - 1);
    if (!x->taps)
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: route %d: taps is NULL", fn,
                              (int)r);
    if (x->n_taps < 1 || x->n_taps > limit)
      return convoy_error_set(
          CONVOY_ERR_INVALID_ARGUMENT, "%s: route %d: n_taps %lld is outside 1 .. %lld%s", fn,
          (int)r, (long long)x->n_taps, (long long)limit, max_ir > 0 ? " (max_ir_frames)" : "");
    if (!isfinite(x->gain))
      return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: route %d: gain is not finite", fn,
                              (int)r);
    for (int64_t t = 0; t < x->n_taps; t++)
      if (!isfinite(x->taps[t]))
        return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT,
                                "%s: route %d: taps[%lld] is not finite", fn, (int)r, (long long)t);
  }
  return CONVOY_OK;
}

typedef struct rt_row {
  const char *name;
  convoy_family family;
  const rt_backend_ops *(*get)(void); /* NULL when not built */
} rt_row;

static const rt_row rt_rows[] = {
#define CONVOY_RT_BACKEND(name, family, needs, getter) {name, family, CONVOY_BUILT_##needs(getter)},
#include "engine_list.def"
};
#define N_RT_ROWS ((int)(sizeof rt_rows / sizeof rt_rows[0]))

static const rt_row *rt_row_of(convoy_family family) {
  for (int i = 0; i < N_RT_ROWS; i++)
    if (rt_rows[i].family == family) return &rt_rows[i];
  return NULL;
}

const rt_backend_ops *rt_backend_of(convoy_family family) {
  const rt_row *row = rt_row_of(family);
  return row && row->get ? row->get() : NULL;
}

/* The backend for the request: the one of the engine's family when it names
 * one (an error when that cannot serve the layout), else, for AUTO, the
 * cheapest that can, the first listed on a tie. */
static convoy_status choose_backend(const convoy_rt_config *c, const rt_layout *l,
                                    const convoy_rt_route *routes, int32_t n_routes,
                                    const rt_row **chosen) {
  const convoy_family family = convoy_engine_family(c->engine);
  if (family != CONVOY_FAMILY_ANY) {
    const rt_row *row = rt_row_of(family);
    const rt_backend_ops *ops = row && row->get ? row->get() : NULL;
    if (!ops || ops->cost(l, routes, n_routes) < 0)
      return convoy_error_set(CONVOY_ERR_NO_DEVICE, "convoy_rt_create: %s engine requested but %s",
                              convoy_engine_name(c->engine),
                              row && row->get ? "no usable device serves this layout"
                                              : "it is not built into this convoy");
    *chosen = row;
    return CONVOY_OK;
  }
  double best_cost = 0.0;
  *chosen = NULL;
  for (int i = 0; i < N_RT_ROWS; i++) {
    const rt_backend_ops *ops = rt_rows[i].get ? rt_rows[i].get() : NULL;
    const double cost = ops ? ops->cost(l, routes, n_routes) : -1.0;
    if (cost >= 0 && (!*chosen || cost < best_cost)) {
      *chosen = &rt_rows[i];
      best_cost = cost;
    }
  }
  if (!*chosen)
    return convoy_error_set(CONVOY_ERR_UNSUPPORTED,
                            "convoy_rt_create: no backend serves this layout");
  return CONVOY_OK;
}

convoy_status rt_node_make(convoy_rt *rt, const convoy_rt_route *routes, int32_t n_routes,
                           rt_set_node **node) {
  *node = calloc(1, sizeof **node);
  if (!*node)
    return convoy_error_format(rt->err, sizeof rt->err, CONVOY_ERR_OUT_OF_MEMORY,
                               "route set: out of memory");
  (*node)->n_routes = n_routes;
  convoy_status st =
      rt->ops->prepare(rt->impl, routes, n_routes, &(*node)->set, rt->err, sizeof rt->err);
  if (st != CONVOY_OK) {
    free(*node);
    *node = NULL;
  }
  return st;
}

void rt_node_free(convoy_rt *rt, rt_set_node *node) {
  if (!node) return;
  if (node->set) rt->ops->free_set(rt->impl, node->set);
  free(node);
}

void rt_free_retired(convoy_rt *rt) {
  rt_set_node *n = atomic_exchange(&rt->retired, NULL);
  while (n) {
    rt_set_node *next = n->next;
    rt_node_free(rt, n);
    n = next;
  }
}

void convoy_rt_destroy(convoy_rt *rt) {
  if (!rt) return;
  if (rt->impl) {
    rt_free_retired(rt);
    rt_node_free(rt, atomic_exchange(&rt->pending, NULL));
    rt_node_free(rt, rt->waiting);
    rt_node_free(rt, rt->switching);
    rt_node_free(rt, rt->active);
    rt->ops->destroy(rt->impl);
  }
  free(rt->in_blk);
  free(rt->out_blk);
  free(rt);
}

static convoy_status create_with(convoy_rt *rt, const rt_row *row, const convoy_rt_route *routes,
                                 int32_t n_routes) {
  const rt_backend_ops *ops = row->get();
  rt->ops = ops;
  rt->family = row->family;
  convoy_status st = ops->create(&rt->layout, &rt->impl, rt->err, sizeof rt->err);
  if (st != CONVOY_OK) {
    rt->impl = NULL;
    return st;
  }
  st = rt_node_make(rt, routes, n_routes, &rt->active);
  if (st != CONVOY_OK) {
    ops->destroy(rt->impl);
    rt->impl = NULL;
    return st;
  }
  ops->install(rt->impl, rt->active->set);
  return CONVOY_OK;
}

convoy_status convoy_rt_create(convoy_rt **rt_out, const convoy_rt_config *config,
                               const convoy_rt_route *routes, int32_t n_routes) {
  const char *fn = "convoy_rt_create";
  if (!rt_out) return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "%s: rt is NULL", fn);
  *rt_out = NULL;
  convoy_rt_config cfg;
  convoy_rt_config_init(&cfg);
  if (config) cfg = *config;
  convoy_status st = check_config(&cfg);
  if (st != CONVOY_OK) return st;
  st = rt_check_routes(fn, routes, n_routes, cfg.n_inputs, cfg.n_outputs, cfg.max_ir_frames);
  if (st != CONVOY_OK) return st;

  int64_t longest = 1;
  for (int32_t r = 0; r < n_routes; r++)
    if (routes[r].n_taps > longest) longest = routes[r].n_taps;
  rt_layout l = {
      .block = cfg.block_frames,
      .n_in = cfg.n_inputs,
      .n_out = cfg.n_outputs,
      .max_ir = cfg.max_ir_frames > 0 ? cfg.max_ir_frames : longest,
      .mode = cfg.mode,
      .threads = cfg.threads,
      .max_partition = cfg.max_partition,
      .device = cfg.device,
  };
  const rt_row *row = NULL;
  st = choose_backend(&cfg, &l, routes, n_routes, &row);
  if (st != CONVOY_OK) return st;

  convoy_rt *rt = calloc(1, sizeof *rt);
  if (!rt) return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
  rt->cfg = cfg;
  rt->layout = l;
  rt->in_blk = calloc((size_t)l.n_in, sizeof *rt->in_blk);
  rt->out_blk = calloc((size_t)l.n_out, sizeof *rt->out_blk);
  if (!rt->in_blk || !rt->out_blk) {
    convoy_rt_destroy(rt);
    return convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
  }
  st = create_with(rt, row, routes, n_routes);
  if (st != CONVOY_OK && row != &rt_rows[0] &&
      convoy_engine_family(cfg.engine) == CONVOY_FAMILY_ANY)
    st = create_with(rt, &rt_rows[0], routes, n_routes); /* the first listed serves AUTO */
  if (st != CONVOY_OK) {
    convoy_error_set(st, "%s: %s", fn, rt->err);
    convoy_rt_destroy(rt);
    return st;
  }
  *rt_out = rt;
  return CONVOY_OK;
}

int64_t convoy_rt_switch_delay(const convoy_rt *rt) {
  return rt ? rt->ops->switch_delay(rt->impl) : 0;
}

convoy_status convoy_rt_get_stats(const convoy_rt *rt, convoy_rt_stats *stats) {
  if (!rt || !stats)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_rt_get_stats: %s is NULL",
                            rt ? "stats" : "rt");
  stats->blocks = atomic_load_explicit(&rt->blocks, memory_order_relaxed);
  stats->deadline_misses = atomic_load_explicit(&rt->misses, memory_order_relaxed);
  stats->route_switches = atomic_load_explicit(&rt->switches, memory_order_relaxed);
  stats->route_sets_merged = atomic_load_explicit(&rt->merged, memory_order_relaxed);
  return CONVOY_OK;
}

int32_t convoy_rt_block_frames(const convoy_rt *rt) {
  return rt ? rt->layout.block : 0;
}

convoy_engine convoy_rt_engine(const convoy_rt *rt) {
  if (!rt) return CONVOY_ENGINE_AUTO;
  return convoy_family_choice(rt->family);
}

convoy_status convoy_rt_describe(const convoy_rt *rt, char *buf, size_t buf_size) {
  if (!rt || !buf || buf_size == 0)
    return convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_rt_describe: %s",
                            !rt    ? "rt is NULL"
                            : !buf ? "buf is NULL"
                                   : "buf_size is 0");
  char backend[200];
  backend[0] = '\0';
  rt->ops->describe(rt->impl, backend, sizeof backend);
  snprintf(buf, buf_size, "block %d, %d in x %d out, %d routes, %lld-frame IRs, %s mode; %s",
           (int)rt->layout.block, (int)rt->layout.n_in, (int)rt->layout.n_out,
           (int)(rt->active ? rt->active->n_routes : 0), (long long)rt->layout.max_ir,
           rt->layout.mode == CONVOY_RT_REALTIME ? "realtime" : "offline", backend);
  return CONVOY_OK;
}

const char *convoy_rt_last_error(const convoy_rt *rt) {
  return rt ? rt->err : "";
}
