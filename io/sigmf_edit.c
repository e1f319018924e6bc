/* sigmf_edit.c - edits of the SigMF model for a processed output: datatype,
 * version, rate; delay shift, decimation, retuning and clipping of the
 * capture and annotation segments (rules in sigmf.h). */
#include "io_message.h"
#include "sigmf_internal.h"

#include <math.h>
#include <stdio.h>

static convoy_status oom(const sigmf_meta *m, char *err, size_t err_size) {
  io_errorf(err, err_size, "%s: out of memory", m->name);
  return CONVOY_ERR_OUT_OF_MEMORY;
}

static int bad_meta(const sigmf_meta *m, char *err, size_t err_size) {
  if (m) return 0;
  io_errorf(err, err_size, "no SigMF metadata");
  return 1;
}

convoy_status sigmf_meta_set_datatype(sigmf_meta *m, capture_datatype type, char *err,
                                      size_t err_size) {
  if (bad_meta(m, err, err_size)) return CONVOY_ERR_INVALID_ARGUMENT;
  const char *name = capture_datatype_name(type);
  if (!name) {
    io_errorf(err, err_size, "%s: invalid datatype", m->name);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  return sj_set_string(sj_global(m), "core:datatype", name) ? oom(m, err, err_size) : CONVOY_OK;
}

convoy_status sigmf_meta_set_version(sigmf_meta *m, const char *version, char *err,
                                     size_t err_size) {
  if (bad_meta(m, err, err_size)) return CONVOY_ERR_INVALID_ARGUMENT;
  if (!version || !*version) {
    io_errorf(err, err_size, "%s: empty SigMF version", m->name);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  return sj_set_string(sj_global(m), "core:version", version) ? oom(m, err, err_size) : CONVOY_OK;
}

convoy_status sigmf_meta_set_sample_rate(sigmf_meta *m, double rate, char *err, size_t err_size) {
  if (bad_meta(m, err, err_size)) return CONVOY_ERR_INVALID_ARGUMENT;
  if (!isfinite(rate)) {
    io_errorf(err, err_size, "%s: sample rate must be finite", m->name);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(sj_global(m), "convoy:sample_rate");
  if (rate <= 0.0) {
    cJSON_DeleteItemFromObjectCaseSensitive(sj_global(m), "core:sample_rate");
    return CONVOY_OK;
  }
  return sj_set_number(sj_global(m), "core:sample_rate", rate) ? oom(m, err, err_size) : CONVOY_OK;
}

/* ------------------------------------------------------------- segments */

/* Start of entry e relative to the dataset (offset removed). */
static int64_t rel_start(const cJSON *e, int64_t offset) {
  int64_t s = 0;
  (void)sj_uint(e, "core:sample_start", &s);
  return s - offset;
}

static int set_start(cJSON *e, int64_t rel, int64_t offset) {
  return sj_set_number(e, "core:sample_start", (double)(rel + offset));
}

static void drop(cJSON *array, cJSON *e) {
  cJSON_Delete(cJSON_DetachItemViaPointer(array, e));
}

/* A capture segment's start was moved k samples further (in input samples)
 * than its content: global_index and datetime follow. rate: input rate, 0
 * when unknown. */
static int move_capture_time(cJSON *e, int64_t k, double rate) {
  if (k == 0) return 0;
  int64_t g;
  if (sj_uint(e, "core:global_index", &g) > 0) {
    if (g + k < 0 || g + k > SJ_INT_MAX)
      cJSON_DeleteItemFromObjectCaseSensitive(e, "core:global_index");
    else if (sj_set_number(e, "core:global_index", (double)(g + k)))
      return -1;
  }
  const char *dt = sj_string(e, "core:datetime");
  char moved[64];
  if (dt && rate > 0.0 && sj_datetime_add(dt, (double)k / rate, moved, sizeof moved) == 0)
    return sj_set_string(e, "core:datetime", moved);
  return 0;
}

/* Annotation [rel, rel + count) (count < 0: to the end) after a map that
 * gives output start `start` and, for count > 0, output end `end`: writes
 * the entry or drops it. `keep` is 0 when the annotation lies wholly before
 * the output's first sample. */
static int put_annotation(cJSON *array, cJSON *e, int keep, int64_t start, int64_t end,
                          int64_t count, int64_t offset) {
  if (!keep) {
    drop(array, e);
    return 0;
  }
  if (start < 0) start = 0;
  if (set_start(e, start, offset)) return -1;
  if (count > 0) return sj_set_number(e, "core:sample_count", (double)(end - start));
  return 0;
}

/* 1 when moving the entries of a section by delta > 0 takes a start or an
 * end beyond SJ_INT_MAX. */
static int reach(const cJSON *array, int64_t offset, int64_t delta) {
  for (const cJSON *e = array->child; e; e = e->next) {
    int64_t count = 0;
    (void)sj_uint(e, "core:sample_count", &count);
    if (rel_start(e, offset) + offset + count > SJ_INT_MAX - delta) return 1;
  }
  return 0;
}

convoy_status sigmf_meta_shift(sigmf_meta *m, int64_t delta, char *err, size_t err_size) {
  if (bad_meta(m, err, err_size)) return CONVOY_ERR_INVALID_ARGUMENT;
  if (delta > SJ_INT_MAX || delta < -SJ_INT_MAX) {
    io_errorf(err, err_size, "%s: shift of %lld samples is out of range", m->name,
              (long long)delta);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  const int64_t offset = sigmf_meta_offset(m);
  const double rate = sigmf_meta_sample_rate(m);
  cJSON *caps = sj_captures(m);
  if (delta > 0 && (reach(caps, offset, delta) || reach(sj_annotations(m), offset, delta))) {
    io_errorf(err, err_size, "%s: a shift of %lld samples moves sample indices past 2^53", m->name,
              (long long)delta);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }

  /* The segment in force at output sample 0: the last one starting at or
   * before it; or the first, when it began the dataset and now starts later. */
  cJSON *cover = NULL;
  int64_t cover_r = 0;
  for (cJSON *e = caps->child; e; e = e->next) {
    const int64_t r = rel_start(e, offset) + delta;
    if (r <= 0 && (!cover || r >= cover_r)) {
      cover = e;
      cover_r = r;
    }
  }
  if (!cover && caps->child && rel_start(caps->child, offset) == 0) {
    cover = caps->child;
    cover_r = delta;
  }
  for (cJSON *e = caps->child, *next; e; e = next) {
    next = e->next;
    const int64_t r = rel_start(e, offset) + delta;
    if (e == cover) {
      if (set_start(e, 0, offset) || move_capture_time(e, -cover_r, rate))
        return oom(m, err, err_size);
    } else if (r <= 0) {
      drop(caps, e);
    } else if (set_start(e, r, offset)) {
      return oom(m, err, err_size);
    }
  }

  cJSON *anns = sj_annotations(m);
  for (cJSON *e = anns->child, *next; e; e = next) {
    next = e->next;
    int64_t count = -1;
    (void)sj_uint(e, "core:sample_count", &count);
    const int64_t start = rel_start(e, offset) + delta;
    const int64_t end = count > 0 ? start + count : start;
    const int keep = count < 0 || (count == 0 ? start >= 0 : end > 0);
    if (put_annotation(anns, e, keep, start, end, count, offset)) return oom(m, err, err_size);
  }
  return CONVOY_OK;
}

convoy_status sigmf_meta_decimate(sigmf_meta *m, int64_t factor, int64_t phase, char *err,
                                  size_t err_size) {
  if (bad_meta(m, err, err_size)) return CONVOY_ERR_INVALID_ARGUMENT;
  if (factor < 1 || factor > SJ_INT_MAX || phase < 0 || phase >= factor) {
    io_errorf(err, err_size, "%s: decimation %lld phase %lld is out of range", m->name,
              (long long)factor, (long long)phase);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (factor == 1) return CONVOY_OK;
  cJSON *g = sj_global(m);
  const int64_t offset = sigmf_meta_offset(m);
  const int64_t new_offset = offset / factor;
  const double rate = sigmf_meta_sample_rate(m);
  if (rate > 0.0 &&
      sigmf_meta_set_sample_rate(m, rate / (double)factor, err, err_size) != CONVOY_OK)
    return oom(m, err, err_size);
  if (cJSON_GetObjectItemCaseSensitive(g, "core:offset") &&
      sj_set_number(g, "core:offset", (double)new_offset))
    return oom(m, err, err_size);

  /* Captures: first output sample at or after the segment's input start. A
   * segment overtaken by the next one at the same output sample is dropped. */
  cJSON *caps = sj_captures(m);
  for (cJSON *e = caps->child, *next; e; e = next) {
    next = e->next;
    const int64_t rel = rel_start(e, offset);
    int64_t out = sj_ceil_div(rel - phase, factor);
    if (out < 0) out = 0;
    if (next) {
      int64_t out_next = sj_ceil_div(rel_start(next, offset) - phase, factor);
      if (out_next <= out) {
        drop(caps, e);
        continue;
      }
    }
    if (move_capture_time(e, out * factor + phase - rel, rate) || set_start(e, out, new_offset))
      return oom(m, err, err_size);
  }

  /* Annotations: every output sample whose input period overlaps. */
  cJSON *anns = sj_annotations(m);
  for (cJSON *e = anns->child, *next; e; e = next) {
    next = e->next;
    int64_t count = -1;
    (void)sj_uint(e, "core:sample_count", &count);
    const int64_t rel = rel_start(e, offset);
    const int keep = count < 0 || (count == 0 ? rel >= phase : rel + count > phase);
    const int64_t start = sj_floor_div(rel - phase, factor);
    const int64_t end = count > 0 ? sj_ceil_div(rel + count - phase, factor) : start;
    if (put_annotation(anns, e, keep, start, end, count, new_offset)) return oom(m, err, err_size);
  }
  return CONVOY_OK;
}

/* 1 when key + delta stays finite in every entry of a section that has it. */
static int finite_after(const cJSON *array, const char *key, double delta) {
  for (const cJSON *e = array->child; e; e = e->next) {
    double f;
    if (sj_number(e, key, &f) > 0 && !isfinite(f + delta)) return 0;
  }
  return 1;
}

convoy_status sigmf_meta_retune(sigmf_meta *m, double delta_hz, char *err, size_t err_size) {
  if (bad_meta(m, err, err_size)) return CONVOY_ERR_INVALID_ARGUMENT;
  if (!isfinite(delta_hz)) {
    io_errorf(err, err_size, "%s: frequency shift must be finite", m->name);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (delta_hz == 0.0) return CONVOY_OK;
  const int64_t offset = sigmf_meta_offset(m);
  cJSON *caps = sj_captures(m);
  if (!finite_after(caps, "core:frequency", delta_hz) ||
      !finite_after(sj_annotations(m), "core:freq_lower_edge", -delta_hz) ||
      !finite_after(sj_annotations(m), "core:freq_upper_edge", -delta_hz)) {
    io_errorf(err, err_size, "%s: a shift of %g Hz takes a frequency out of range", m->name,
              delta_hz);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }

  /* Annotations first: whether an annotation's capture segment knows its
   * frequency decides whether its edges are absolute. */
  cJSON *anns = sj_annotations(m);
  for (cJSON *e = anns->child; e; e = e->next) {
    const int64_t rel = rel_start(e, offset);
    const cJSON *seg = caps->child;
    for (const cJSON *c = caps->child; c; c = c->next)
      if (rel_start(c, offset) <= rel) seg = c;
    double f;
    if (seg && sj_number(seg, "core:frequency", &f) > 0) continue;
    static const char *const edges[] = {"core:freq_lower_edge", "core:freq_upper_edge"};
    for (int k = 0; k < 2; k++)
      if (sj_number(e, edges[k], &f) > 0 && sj_set_number(e, edges[k], f - delta_hz))
        return oom(m, err, err_size);
  }
  for (cJSON *c = caps->child; c; c = c->next) {
    double f;
    if (sj_number(c, "core:frequency", &f) > 0 && sj_set_number(c, "core:frequency", f + delta_hz))
      return oom(m, err, err_size);
  }
  return CONVOY_OK;
}

convoy_status sigmf_meta_clip(sigmf_meta *m, int64_t frames, char *err, size_t err_size) {
  if (bad_meta(m, err, err_size)) return CONVOY_ERR_INVALID_ARGUMENT;
  if (frames < 0) {
    io_errorf(err, err_size, "%s: negative length", m->name);
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  const int64_t offset = sigmf_meta_offset(m);
  cJSON *caps = sj_captures(m);
  for (cJSON *e = caps->child, *next; e; e = next) {
    next = e->next;
    const int64_t rel = rel_start(e, offset);
    if (rel >= frames && rel != 0) drop(caps, e);
  }
  cJSON *anns = sj_annotations(m);
  for (cJSON *e = anns->child, *next; e; e = next) {
    next = e->next;
    const int64_t rel = rel_start(e, offset);
    int64_t count = -1;
    (void)sj_uint(e, "core:sample_count", &count);
    if (rel >= frames)
      drop(anns, e);
    else if (count > frames - rel && sj_set_number(e, "core:sample_count", (double)(frames - rel)))
      return oom(m, err, err_size);
  }
  return CONVOY_OK;
}
