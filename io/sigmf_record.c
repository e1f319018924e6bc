/* sigmf_record.c - records the processing applied to an output in the
 * "convoy" namespace of its SigMF metadata. */
#include "io_message.h"
#include "sigmf_internal.h"

#include <math.h>
#include <string.h>

int sj_declare_convoy(cJSON *g) {
  cJSON *ext = cJSON_GetObjectItemCaseSensitive(g, "core:extensions");
  if (ext && !cJSON_IsArray(ext)) return 0; /* someone else's malformed value: left alone */
  if (!ext && !(ext = cJSON_AddArrayToObject(g, "core:extensions"))) return -1;
  for (const cJSON *e = ext->child; e; e = e->next) {
    const char *name = sj_string(e, "name");
    if (name && strcmp(name, "convoy") == 0) return 0;
  }
  cJSON *entry = cJSON_CreateObject();
  if (!entry || !cJSON_AddStringToObject(entry, "name", "convoy") ||
      !cJSON_AddStringToObject(entry, "version", convoy_version()) ||
      !cJSON_AddTrueToObject(entry, "optional") || !cJSON_AddItemToArray(ext, entry)) {
    cJSON_Delete(entry);
    return -1;
  }
  return 0;
}

static int add_string(cJSON *o, const char *key, const char *s) {
  return !s || cJSON_AddStringToObject(o, key, s) ? 0 : -1;
}

static int add_number(cJSON *o, const char *key, double v) {
  return cJSON_AddNumberToObject(o, key, v) ? 0 : -1;
}

static int add_scaling(cJSON *o, const char *prefix, int has, capture_scaling s) {
  if (!has) return 0;
  cJSON *sc = cJSON_AddObjectToObject(o, prefix);
  return sc && !add_number(sc, "scale", s.scale) && !add_number(sc, "offset", s.offset) ? 0 : -1;
}

static int fill(cJSON *o, const sigmf_processing *p) {
  int r = add_string(o, "operation", p->operation ? p->operation : "filter");
  if (p->taps > 0) {
    r |= add_number(o, "taps", (double)p->taps);
    r |= add_string(o, "taps_type", p->taps_complex ? "complex" : "real");
  }
  r |= add_string(o, "design", p->design);
  r |= add_string(o, "taps_file", p->taps_file);
  r |= add_string(o, "engine", p->engine);
  if (p->decimation > 1) {
    r |= add_number(o, "decimation", (double)p->decimation);
    r |= add_number(o, "decimation_phase", (double)p->decimation_phase);
  }
  if (p->shift_hz != 0.0 && isfinite(p->shift_hz)) r |= add_number(o, "shift_hz", p->shift_hz);
  if (p->delay != 0) r |= add_number(o, "delay", (double)p->delay);
  if (p->start) {
    r |= add_number(o, "skip", (double)p->skip);
    if (p->count >= 0) r |= add_number(o, "count", (double)p->count);
    r |= add_string(o, "start", p->start);
  }
  r |= add_string(o, "input", p->input);
  r |= add_string(o, "input_datatype", p->input_datatype);
  r |= add_scaling(o, "input_scaling", p->has_input_scaling, p->input_scaling);
  r |= add_scaling(o, "output_scaling", p->has_output_scaling, p->output_scaling);
  if (p->has_clipped) r |= add_number(o, "clipped", (double)p->clipped);
  r |= add_string(o, "version", convoy_version());
  return r;
}

convoy_status sigmf_meta_record(sigmf_meta *m, const sigmf_processing *p, char *err,
                                size_t err_size) {
  if (!m || !p) {
    io_errorf(err, err_size, "sigmf_meta_record: NULL argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  cJSON *g = sj_global(m);
  cJSON *list = cJSON_GetObjectItemCaseSensitive(g, "convoy:processing");
  if (list && !cJSON_IsArray(list)) { /* not ours to interpret: replaced by a list holding it */
    cJSON *old = cJSON_DetachItemViaPointer(g, list);
    list = cJSON_CreateArray();
    if (!list || !cJSON_AddItemToArray(list, old)) {
      cJSON_Delete(old);
      cJSON_Delete(list);
      goto oom;
    }
    if (!cJSON_AddItemToObject(g, "convoy:processing", list)) {
      cJSON_Delete(list);
      goto oom;
    }
  }
  if (!list && !(list = cJSON_AddArrayToObject(g, "convoy:processing"))) goto oom;
  cJSON *entry = cJSON_CreateObject();
  if (!entry) goto oom;
  if (fill(entry, p) || !cJSON_AddItemToArray(list, entry)) {
    cJSON_Delete(entry);
    goto oom;
  }
  if (sj_declare_convoy(g)) goto oom;
  return CONVOY_OK;
oom:
  io_errorf(err, err_size, "%s: out of memory", m->name);
  return CONVOY_ERR_OUT_OF_MEMORY;
}
