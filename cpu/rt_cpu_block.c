/* rt_cpu_block.c - one block of the CPU real-time convolver on the
 * process() thread: append the input to the history, transform it into the
 * head's delay line, hand due chunks to the level workers, multiply-add the
 * head, add the levels' results, and crossfade between route sets.
 *
 * Crossfade: begin_switch() at block k0 picks the crossfade block K, the
 * first block no job posted before k0 covers, for every level. Jobs posted
 * from k0 on know K: a job whose output ends before K reads only the old
 * set, one that starts after K only the new, one that covers K both (into
 * two buffers). Block K is computed with each set and mixed with a linear
 * ramp; from K + 1 on only the new set is read. The delay lines hold input
 * spectra only, so they serve both sets. */
#include "error_internal.h"
#include "rt_cpu.h"

#include <string.h>

static int64_t mod(int64_t a, int64_t m) {
  int64_t r = a % m;
  return r < 0 ? r + m : r;
}

static float *head_entry(const rt_cpu *rt, int32_t in, int64_t block) {
  return rt->hfdl +
         ((int64_t)in * rt->sched.n_head + mod(block, rt->sched.n_head)) * 2 * rt->hstride;
}

/* The output of set for block k into out: 1, or 0 when a level's result
 * is not there (REALTIME miss), -1 when no buffer holds set's result (a
 * bug). */
static int block_output(rt_cpu *rt, const rt_cpu_set *set, int64_t k, float *const *out) {
  const int64_t b = rt->l.block, hs = rt->hstride;
  for (int32_t o = 0; o < rt->l.n_out; o++) {
    int32_t r0 = set->first[o], r1 = set->first[o + 1];
    if (r0 == r1) {
      memset(out[o], 0, (size_t)b * sizeof(float));
      continue;
    }
    memset(rt->hacc, 0, (size_t)(2 * hs) * sizeof(float));
    for (int32_t r = r0; r < r1; r++) {
      const rt_cpu_route *route = &set->routes[r];
      for (int32_t s = 0; s < route->used[0]; s++)
        rt->cmac(rt->hacc, route->spec[0] + (int64_t)s * 2 * hs, head_entry(rt, route->in, k - s),
                 b + 1, hs);
    }
    fftwf_execute_split_dft_c2r(rt->hinverse, rt->hacc, rt->hacc + hs, rt->htime);
    memcpy(out[o], rt->htime + b, (size_t)b * sizeof(float));
  }
  for (int j = 0; j < rt->n_levels; j++) {
    rt_level *lv = &rt->level[j];
    int64_t frame = k * b;
    if (frame < lv->offset) continue;
    int64_t c = (frame - lv->offset) / lv->p;
    const rt_job *slot = &lv->slot[c & 1];
    if (slot->seq == 0 || slot->c != c ||
        atomic_load_explicit(&lv->done, memory_order_acquire) < slot->seq)
      return 0;
    const float *src = slot->set[0] == set   ? lv->out[c & 1]
                       : slot->set[1] == set ? lv->xf_out
                                             : NULL;
    if (!src) return -1;
    src += frame - (c * lv->p + lv->offset);
    for (int32_t o = 0; o < rt->l.n_out; o++) {
      if (set->first[o] == set->first[o + 1]) continue;
      const float *restrict from = src + (int64_t)o * lv->p;
      float *restrict to = out[o];
      for (int64_t t = 0; t < b; t++) to[t] += from[t];
    }
  }
  return 1;
}

/* Makes sure the job of chunk c, due now, is done where the mode allows:
 * runs it here when no worker has taken it yet (OFFLINE, or REALTIME for
 * small levels), waits for the worker in OFFLINE mode. */
static void collect(rt_cpu *rt, rt_level *lv, int64_t c) {
  const rt_job *slot = &lv->slot[c & 1];
  if (slot->seq == 0 || slot->c != c) return;
  if (atomic_load_explicit(&lv->done, memory_order_acquire) >= slot->seq) return;
  int offline = rt->l.mode == CONVOY_RT_OFFLINE;
  if ((offline || lv->q <= RT_STEAL_MAX_BLOCKS) &&
      atomic_load_explicit(&lv->done, memory_order_acquire) >= slot->seq - 1 &&
      rt_level_claim(lv, slot->seq))
    rt_level_run(rt, lv, slot->seq);
  else if (offline)
    rt_level_wait(lv, slot->seq);
}

/* Posts level lv's job when one starts at block k. */
static void post_due(rt_cpu *rt, rt_level *lv, int64_t k) {
  if (k < lv->d - lv->q || mod(k - lv->d, lv->q) != 0) return;
  rt_job job = {.c = (k - lv->d + lv->q) / lv->q, .seq = 0, .set = {rt->active, NULL}};
  if (rt->next) {
    int64_t first = k + lv->q, last = k + 2 * lv->q - 1;
    if (first > rt->xf_block)
      job.set[0] = rt->next;
    else if (last >= rt->xf_block)
      job.set[1] = rt->next;
  }
  int64_t posted = atomic_load_explicit(&lv->posted, memory_order_relaxed);
  if (atomic_load_explicit(&lv->done, memory_order_acquire) < posted - 1) {
    lv->slot[job.c & 1] = job; /* worker late (REALTIME): this chunk is lost */
    return;
  }
  job.seq = posted + 1;
  lv->slot[job.c & 1] = job;
  if (job.set[0] == rt->active) lv->active_seq = job.seq;
  rt_level_post(rt, lv, &job);
}

static void silence(const rt_cpu *rt, float *const *out) {
  for (int32_t o = 0; o < rt->l.n_out; o++) memset(out[o], 0, (size_t)rt->l.block * sizeof(float));
}

convoy_status rt_cpu_process(void *impl, const float *const *in, float *const *out,
                             rt_block_result *result, char *err, size_t err_size) {
  rt_cpu *rt = impl;
  const int64_t k = rt->k, b = rt->l.block;
  result->missed = 0;
  result->switch_done = 0;
  if (!rt->active)
    return convoy_error_format(err, err_size, CONVOY_ERR_STATE, "real-time CPU engine: no routes");
  if (rt->l.mode == CONVOY_RT_REALTIME &&
      atomic_load_explicit(&rt->caller_prio, memory_order_relaxed) < 0)
    rt_workers_note_caller(rt);

  /* Published before this block's input is written: a worker that reads
   * any of it (rt_ring.c) then also sees k (the fences pair up). */
  atomic_store_explicit(&rt->k_shared, k, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  for (int32_t i = 0; i < rt->l.n_in; i++) {
    rt_ring_write(rt, i, k * b, b, in[i]);
    rt_ring_read(rt, i, (k - 1) * b, 2 * b, rt->htime);
    float *x = head_entry(rt, i, k);
    fftwf_execute_split_dft_r2c(rt->hforward, rt->htime, x, x + rt->hstride);
  }
  for (int j = 0; j < rt->n_levels; j++) {
    rt_level *lv = &rt->level[j];
    if (k * b >= lv->offset) collect(rt, lv, (k * b - lv->offset) / lv->p);
    post_due(rt, lv, k);
  }

  int ok;
  if (rt->next && k == rt->xf_block) {
    ok = block_output(rt, rt->active, k, out);
    int ok2 = block_output(rt, rt->next, k, rt->xf_ptr);
    if (ok2 < ok) ok = ok2;
    if (ok > 0) {
      for (int32_t o = 0; o < rt->l.n_out; o++) {
        float *restrict y = out[o];
        const float *restrict z = rt->xf_ptr[o];
        for (int64_t t = 0; t < b; t++) {
          float w = (float)(t + 1) / (float)(b + 1);
          y[t] = (1.0f - w) * y[t] + w * z[t];
        }
      }
    }
    rt->old = rt->active;
    rt->active = rt->next;
    rt->next = NULL;
    for (int j = 0; j < rt->n_levels; j++) rt->old_seq[j] = rt->level[j].active_seq;
  } else {
    ok = block_output(rt, rt->active, k, out);
  }
  if (ok <= 0) silence(rt, out);
  if (ok < 0)
    return convoy_error_format(err, err_size, CONVOY_ERR_INTERNAL,
                               "real-time CPU engine: no level result for the route set at block "
                               "%lld",
                               (long long)k);
  result->missed = ok == 0;

  if (rt->old) {
    int reading = 0;
    for (int j = 0; j < rt->n_levels && !reading; j++)
      reading = atomic_load_explicit(&rt->level[j].done, memory_order_acquire) < rt->old_seq[j];
    if (!reading) {
      rt->old = NULL;
      result->switch_done = 1;
    }
  }
  rt->k = k + 1;
  return CONVOY_OK;
}

int rt_cpu_begin_switch(void *impl, void *set) {
  rt_cpu *rt = impl;
  if (rt->next || rt->old || !set) return 0;
  int64_t k0 = rt->k, xf = k0;
  for (int j = 0; j < rt->n_levels; j++) {
    const rt_level *lv = &rt->level[j];
    int64_t first_post = lv->d - lv->q;
    if (k0 - 1 < first_post) continue; /* no job posted yet */
    int64_t last_post = k0 - 1 - mod(k0 - 1 - lv->d, lv->q);
    if (last_post + 2 * lv->q > xf) xf = last_post + 2 * lv->q;
  }
  rt->xf_block = xf;
  rt->next = set;
  return 1;
}

int64_t rt_cpu_switch_delay(const void *impl) {
  const rt_cpu *rt = impl;
  int64_t worst = 0;
  for (int j = 0; j < rt->n_levels; j++) {
    int64_t d = 2 * (int64_t)rt->level[j].p - rt->l.block;
    if (d > worst) worst = d;
  }
  return worst;
}
