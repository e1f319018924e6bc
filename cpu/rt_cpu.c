/* rt_cpu.c - the CPU real-time partitioned convolver: the backend table of
 * rt_backend.h, planning and allocation at create, reset and teardown. The
 * block itself is in rt_cpu_block.c, the workers in rt_worker.c. */
#include "error_internal.h"
#include "fftw_lock.h"
#include "rt_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FFT sizes up to this are planned with FFTW_MEASURE, larger ones with
 * FFTW_ESTIMATE (measuring them would make create take seconds). */
#define MEASURE_LIMIT (1 << 15)

/* The cost model weighs transforms against multiply-adds by the number of
 * routes, which create() does not know yet: assume one per channel. */
static int32_t assumed_routes(const rt_layout *l) {
  return l->n_in > l->n_out ? l->n_in : l->n_out;
}

static double cpu_cost(const rt_layout *l, const convoy_rt_route *routes, int32_t n_routes) {
  (void)routes;
  rt_schedule s;
  rt_schedule_choose(&s, l->block, l->max_ir, l->max_partition, l->n_in, l->n_out,
                     n_routes > 0 ? n_routes : assumed_routes(l));
  return rt_schedule_cost_ns(&s, l->n_in, l->n_out, n_routes > 0 ? n_routes : 1);
}

static float *zalloc(int64_t floats) {
  float *p = fftwf_malloc((size_t)(floats > 0 ? floats : 1) * sizeof(float));
  if (p) memset(p, 0, (size_t)(floats > 0 ? floats : 1) * sizeof(float));
  return p;
}

/* Split-layout plans for a 2p-point real FFT, on scratch arrays of the
 * alignment every later buffer has. Holds the planner lock. */
static int make_plans(int64_t p, fftwf_plan *forward, fftwf_plan *inverse) {
  int64_t stride = RT_STRIDE(p);
  float *time = zalloc(2 * p), *spec = zalloc(2 * stride);
  int ok = 0;
  if (time && spec) {
    fftwf_iodim dim = {.n = (int)(2 * p), .is = 1, .os = 1};
    unsigned flags = 2 * p <= MEASURE_LIMIT ? FFTW_MEASURE : FFTW_ESTIMATE;
    convoy_fftw_lock();
    *forward = fftwf_plan_guru_split_dft_r2c(1, &dim, 0, NULL, time, spec, spec + stride, flags);
    *inverse = fftwf_plan_guru_split_dft_c2r(1, &dim, 0, NULL, spec, spec + stride, time,
                                             flags | FFTW_DESTROY_INPUT);
    convoy_fftw_unlock();
    ok = *forward && *inverse;
  }
  fftwf_free(time);
  fftwf_free(spec);
  return ok;
}

static void destroy_plan(fftwf_plan *p) {
  if (*p) fftwf_destroy_plan(*p);
  *p = NULL;
}

static void cpu_destroy(void *impl) {
  rt_cpu *rt = impl;
  if (!rt) return;
  rt_workers_stop(rt);
  convoy_fftw_lock();
  destroy_plan(&rt->hforward);
  destroy_plan(&rt->hinverse);
  for (int j = 0; j < rt->n_levels; j++) {
    destroy_plan(&rt->level[j].forward);
    destroy_plan(&rt->level[j].inverse);
  }
  convoy_fftw_unlock();
  for (int j = 0; j < rt->n_levels; j++) {
    rt_level *lv = &rt->level[j];
    fftwf_free(lv->fdl);
    fftwf_free(lv->time);
    fftwf_free(lv->acc);
    fftwf_free(lv->out[0]);
    fftwf_free(lv->out[1]);
    fftwf_free(lv->xf_out);
    sem_destroy(&lv->done_sem);
  }
  fftwf_free((void *)rt->ring);
  fftwf_free(rt->hfdl);
  fftwf_free(rt->htime);
  fftwf_free(rt->hacc);
  fftwf_free(rt->xf_tmp);
  free(rt->xf_ptr);
  free(rt->workers);
  free(rt);
}

static convoy_status create_level(rt_cpu *rt, int j) {
  const rt_layout *l = &rt->l;
  rt_level *lv = &rt->level[j];
  lv->index = j;
  lv->p = rt->sched.size[j];
  lv->q = lv->p / l->block;
  lv->count = rt->sched.count[j];
  lv->offset = rt->sched.offset[j];
  lv->d = lv->offset / l->block;
  lv->stride = RT_STRIDE(lv->p);
  lv->last_c = -1;
  if (sem_init(&lv->done_sem, 0, 0) != 0) return CONVOY_ERR_BACKEND;
  if (!make_plans(lv->p, &lv->forward, &lv->inverse)) return CONVOY_ERR_BACKEND;
  lv->fdl = zalloc((int64_t)l->n_in * lv->count * 2 * lv->stride);
  lv->time = zalloc(2 * (int64_t)lv->p);
  lv->acc = zalloc(2 * lv->stride);
  lv->out[0] = zalloc((int64_t)l->n_out * lv->p);
  lv->out[1] = zalloc((int64_t)l->n_out * lv->p);
  lv->xf_out = zalloc((int64_t)l->n_out * lv->p);
  if (!lv->fdl || !lv->time || !lv->acc || !lv->out[0] || !lv->out[1] || !lv->xf_out)
    return CONVOY_ERR_OUT_OF_MEMORY;
  return CONVOY_OK;
}

static convoy_status cpu_create(const rt_layout *l, void **impl, char *err, size_t err_size) {
  *impl = NULL;
  rt_cpu *rt = calloc(1, sizeof *rt);
  if (!rt)
    return convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                               "real-time CPU engine: out of memory");
  rt->l = *l;
  rt->cmac = rt_cmac_select();
  rt_schedule_choose(&rt->sched, l->block, l->max_ir, l->max_partition, l->n_in, l->n_out,
                     assumed_routes(l));
  const int64_t b = l->block;
  int64_t need = 4 * b;
  for (int j = 0; j < rt->sched.n_levels; j++) {
    int64_t n = rt->sched.offset[j] + 2 * (int64_t)rt->sched.size[j] + 2 * b;
    if (n > need) need = n;
  }
  for (rt->ring_len = 1; rt->ring_len < need;) rt->ring_len *= 2;
  rt->hstride = RT_STRIDE(b);
  convoy_status st = CONVOY_OK;
  rt->ring = (_Atomic float *)zalloc((int64_t)l->n_in * rt->ring_len);
  rt->hfdl = zalloc((int64_t)l->n_in * rt->sched.n_head * 2 * rt->hstride);
  rt->htime = zalloc(2 * b);
  rt->hacc = zalloc(2 * rt->hstride);
  rt->xf_tmp = zalloc((int64_t)l->n_out * b);
  rt->xf_ptr = calloc((size_t)l->n_out, sizeof *rt->xf_ptr);
  if (!rt->ring || !rt->hfdl || !rt->htime || !rt->hacc || !rt->xf_tmp || !rt->xf_ptr)
    st = CONVOY_ERR_OUT_OF_MEMORY;
  else if (!make_plans(b, &rt->hforward, &rt->hinverse))
    st = CONVOY_ERR_BACKEND;
  for (int32_t o = 0; st == CONVOY_OK && o < l->n_out; o++) rt->xf_ptr[o] = rt->xf_tmp + o * b;
  for (int j = 0; st == CONVOY_OK && j < rt->sched.n_levels; j++) {
    rt->n_levels = j + 1;
    st = create_level(rt, j);
  }
  if (st == CONVOY_OK && rt->n_levels > 0) {
    rt->n_workers = l->threads > 0 && l->threads < rt->n_levels ? l->threads : rt->n_levels;
    rt->workers = calloc((size_t)rt->n_workers, sizeof *rt->workers);
    if (!rt->workers) st = CONVOY_ERR_OUT_OF_MEMORY;
    for (int j = 0; j < rt->n_levels; j++)
      rt->level[j].worker = j < rt->n_workers ? j : rt->n_workers - 1;
  }
  atomic_init(&rt->caller_prio, -1);
  if (st == CONVOY_OK && rt->n_workers > 0) {
    st = rt_workers_start(rt, err, err_size);
    if (st != CONVOY_OK) {
      cpu_destroy(rt);
      return st;
    }
  }
  if (st != CONVOY_OK) {
    cpu_destroy(rt);
    return convoy_error_format(
        err, err_size, st, "real-time CPU engine: %s (block %d, %lld taps, %d in, %d out)",
        st == CONVOY_ERR_OUT_OF_MEMORY ? "out of memory" : "FFTW planning failed", (int)l->block,
        (long long)l->max_ir, (int)l->n_in, (int)l->n_out);
  }
  *impl = rt;
  return CONVOY_OK;
}

static void cpu_install(void *impl, void *set) {
  rt_cpu *rt = impl;
  rt->active = set;
}

static void cpu_reset(void *impl) {
  rt_cpu *rt = impl;
  rt_workers_drain(rt);
  if (rt->next) rt->active = rt->next;
  rt->next = NULL;
  rt->old = NULL;
  const rt_layout *l = &rt->l;
  memset((void *)rt->ring, 0, (size_t)(l->n_in * rt->ring_len) * sizeof(float));
  memset(rt->hfdl, 0, (size_t)(l->n_in * rt->sched.n_head * 2 * rt->hstride) * sizeof(float));
  for (int j = 0; j < rt->n_levels; j++) {
    rt_level *lv = &rt->level[j];
    memset(lv->fdl, 0, (size_t)((int64_t)l->n_in * lv->count * 2 * lv->stride) * sizeof(float));
    memset(lv->slot, 0, sizeof lv->slot);
    lv->last_c = -1;
  }
  rt->k = 0;
  atomic_store(&rt->k_shared, 0);
  /* The next block may come from another thread (a warm-up runs on the
   * thread that creates the convolver, the audio comes later). */
  atomic_store(&rt->caller_prio, -1);
}

static void cpu_describe(const void *impl, char *buf, size_t buf_size) {
  const rt_cpu *rt = impl;
  char sched[256];
  rt_schedule_format(&rt->sched, sched, sizeof sched);
  snprintf(buf, buf_size, "cpu: partitions %s, %d worker thread%s", sched, rt->n_workers,
           rt->n_workers == 1 ? "" : "s");
}

static const rt_backend_ops cpu_ops = {
    .name = "cpu",
    .cost = cpu_cost,
    .create = cpu_create,
    .prepare = rt_cpu_prepare,
    .install = cpu_install,
    .begin_switch = rt_cpu_begin_switch,
    .switch_delay = rt_cpu_switch_delay,
    .process = rt_cpu_process,
    .reset = cpu_reset,
    .describe = cpu_describe,
    .free_set = rt_cpu_free_set,
    .destroy = cpu_destroy,
};

const rt_backend_ops *rt_backend_cpu(void) {
  return &cpu_ops;
}
