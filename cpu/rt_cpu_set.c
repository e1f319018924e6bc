/* rt_cpu_set.c - route sets of the CPU real-time convolver: each route's
 * impulse response cut by the schedule and transformed into split spectra.
 * Runs off the real-time thread, possibly while process() runs: it only
 * executes the shared FFTW plans on its own buffers, which FFTW allows. */
#include "error_internal.h"
#include "rt_cpu.h"

#include <stdlib.h>
#include <string.h>

/* Partition size and first tap of part v (0 head, 1 + j level j). */
static void part_geometry(const rt_cpu *rt, int v, int64_t *p, int64_t *off) {
  if (v == 0) {
    *p = rt->l.block;
    *off = 0;
  } else {
    *p = rt->sched.size[v - 1];
    *off = rt->sched.offset[v - 1];
  }
}

static fftwf_plan part_plan(const rt_cpu *rt, int v) {
  return v == 0 ? rt->hforward : rt->level[v - 1].forward;
}

static int64_t route_floats(const rt_cpu *rt, int64_t n_taps, int32_t *used) {
  int64_t total = 0;
  for (int v = 0; v <= rt->sched.n_levels; v++) {
    int64_t p, off;
    part_geometry(rt, v, &p, &off);
    used[v] = rt_schedule_used(&rt->sched, v - 1, n_taps);
    total += (int64_t)used[v] * 2 * RT_STRIDE(p);
  }
  return total;
}

void rt_cpu_free_set(void *impl, void *set) {
  rt_cpu_set *s = set;
  if (!s) return;
  /* A late REALTIME job might still read it: let posted jobs finish. */
  if (impl) rt_workers_drain(impl);
  fftwf_free(s->mem);
  free(s->routes);
  free(s->first);
  free(s);
}

/* Transforms one route's taps into its spectra. time holds 2 * largest P. */
static void transform_route(const rt_cpu *rt, const convoy_rt_route *src, rt_cpu_route *dst,
                            float *time) {
  for (int v = 0; v <= rt->sched.n_levels; v++) {
    int64_t p, off;
    part_geometry(rt, v, &p, &off);
    int64_t stride = RT_STRIDE(p);
    float scale = src->gain / (float)(2 * p);
    for (int32_t s = 0; s < dst->used[v]; s++) {
      int64_t first = off + (int64_t)s * p;
      int64_t n = src->n_taps - first < p ? src->n_taps - first : p;
      memset(time, 0, (size_t)(2 * p) * sizeof *time);
      for (int64_t t = 0; t < n; t++) time[t] = src->taps[first + t] * scale;
      float *spec = dst->spec[v] + (int64_t)s * 2 * stride;
      fftwf_execute_split_dft_r2c(part_plan(rt, v), time, spec, spec + stride);
    }
  }
}

convoy_status rt_cpu_prepare(void *impl, const convoy_rt_route *routes, int32_t n_routes,
                             void **set_out, char *err, size_t err_size) {
  rt_cpu *rt = impl;
  const int32_t n_out = rt->l.n_out;
  *set_out = NULL;
  int64_t largest = rt->l.block;
  for (int j = 0; j < rt->sched.n_levels; j++)
    if (rt->sched.size[j] > largest) largest = rt->sched.size[j];
  rt_cpu_set *s = calloc(1, sizeof *s);
  int32_t *order = malloc((size_t)n_routes * sizeof *order);
  int32_t *fill = calloc((size_t)n_out, sizeof *fill);
  float *time = fftwf_malloc((size_t)(2 * largest) * sizeof *time);
  if (s) {
    s->n_routes = n_routes;
    s->routes = calloc((size_t)n_routes, sizeof *s->routes);
    s->first = calloc((size_t)n_out + 1, sizeof *s->first);
  }
  if (!s || !s->routes || !s->first || !order || !fill || !time) goto oom;

  /* Stable counting sort by output: sorted route i is routes[order[i]]. */
  for (int32_t r = 0; r < n_routes; r++) s->first[routes[r].output + 1]++;
  for (int32_t o = 0; o < n_out; o++) s->first[o + 1] += s->first[o];
  for (int32_t r = 0; r < n_routes; r++) {
    int32_t o = routes[r].output;
    order[s->first[o] + fill[o]++] = r;
  }
  int64_t floats = 1;
  for (int32_t i = 0; i < n_routes; i++) {
    rt_cpu_route *d = &s->routes[i];
    d->in = routes[order[i]].input;
    d->out = routes[order[i]].output;
    floats += route_floats(rt, routes[order[i]].n_taps, d->used);
  }
  s->mem = fftwf_malloc((size_t)floats * sizeof(float));
  if (!s->mem) goto oom;
  memset(s->mem, 0, (size_t)floats * sizeof(float));
  float *cursor = s->mem;
  for (int32_t i = 0; i < n_routes; i++) {
    rt_cpu_route *d = &s->routes[i];
    for (int v = 0; v <= rt->sched.n_levels; v++) {
      int64_t p, off;
      part_geometry(rt, v, &p, &off);
      d->spec[v] = cursor;
      cursor += (int64_t)d->used[v] * 2 * RT_STRIDE(p);
    }
    transform_route(rt, &routes[order[i]], d, time);
  }
  free(order);
  free(fill);
  fftwf_free(time);
  *set_out = s;
  return CONVOY_OK;

oom:
  free(order);
  free(fill);
  fftwf_free(time);
  rt_cpu_free_set(NULL, s);
  return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                             "route set: out of memory for the spectra of %d routes",
                             (int)n_routes);
}
