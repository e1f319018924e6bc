/* live_exec.c - the commands of a running `convoy live`, and their replies. */
#include "live_exec.h"

#include "diag.h"
#include "live_engine.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sends j (consumed) as q's reply. */
static void reply(const live_request *q, cJSON *j) {
  char *text = j ? cJSON_PrintUnformatted(j) : NULL;
  live_control_reply(q, text ? text : "{\"ok\":false,\"error\":\"out of memory\"}");
  free(text);
  cJSON_Delete(j);
}

static cJSON *ok(void) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddBoolToObject(j, "ok", 1);
  return j;
}

static void fail(const live_request *q, const char *why) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddBoolToObject(j, "ok", 0);
  cJSON_AddStringToObject(j, "error", why);
  reply(q, j);
}

static cJSON *muted_list(const live_run *r) {
  cJSON *a = cJSON_CreateArray();
  for (int32_t o = 0; o < r->reload.channels; o++)
    if (r->reload.muted[o]) cJSON_AddItemToArray(a, cJSON_CreateNumber(o + 1));
  return a;
}

static convoy_rt *running(const live_run *r) {
  return atomic_load(&r->engine->rt);
}

static void reload(live_run *r, const live_request *q) {
  char err[1024];
  const char *file = q->cmd == LIVE_CMD_IR ? q->arg : NULL;
  if (live_reload_run(&r->reload, running(r), file, err, sizeof err) != CONVOY_OK) {
    fail(q, err);
    return;
  }
  cJSON *j = ok();
  cJSON_AddStringToObject(j, "loaded", r->reload.source_arg);
  reply(q, j);
}

static void gain(live_run *r, const live_request *q) {
  char err[1024];
  const double old = r->reload.gain_db;
  r->reload.gain_db = q->gain_db;
  if (live_reload_apply(&r->reload, running(r), err, sizeof err) != CONVOY_OK) {
    r->reload.gain_db = old;
    diag_error("gain %g dB failed: %s", q->gain_db, err);
    fail(q, err);
    return;
  }
  diag_notice("gain %g dB", q->gain_db);
  cJSON *j = ok();
  cJSON_AddNumberToObject(j, "gain_db", q->gain_db);
  reply(q, j);
}

static void mute(live_run *r, const live_request *q) {
  char err[1024];
  const int on = q->cmd == LIVE_CMD_MUTE;
  const char *word = on ? "mute" : "unmute";
  if (q->output > r->reload.channels) {
    snprintf(err, sizeof err, "%s %d: there is no output %d (outputs 1..%d)", word, (int)q->output,
             (int)q->output, (int)r->reload.channels);
    fail(q, err);
    return;
  }
  unsigned char old[CONVOY_RT_MAX_CHANNELS];
  memcpy(old, r->reload.muted, sizeof old);
  for (int32_t o = 0; o < r->reload.channels; o++)
    if (q->output == 0 || q->output == o + 1) r->reload.muted[o] = (unsigned char)on;
  if (live_reload_apply(&r->reload, running(r), err, sizeof err) != CONVOY_OK) {
    memcpy(r->reload.muted, old, sizeof old);
    diag_error("%s failed: %s", word, err);
    fail(q, err);
    return;
  }
  if (q->output)
    diag_notice("output %d %s", (int)q->output, on ? "muted" : "unmuted");
  else
    diag_notice("every output %s", on ? "muted" : "unmuted");
  cJSON *j = ok();
  cJSON_AddItemToObject(j, "muted", muted_list(r));
  reply(q, j);
}

static cJSON *triple(double p50, double p99, double max) {
  cJSON *t = cJSON_CreateObject();
  cJSON_AddNumberToObject(t, "p50", p50);
  cJSON_AddNumberToObject(t, "p99", p99);
  cJSON_AddNumberToObject(t, "max", max);
  return t;
}

/* Each channel's peak (rms = 0) or RMS (rms = 1) over span s, linear. */
static cJSON *level_list(const live_run *r, const live_level_span *s, int side, int rms) {
  cJSON *a = cJSON_CreateArray();
  for (int32_t c = 0; c < r->levels.channels; c++)
    cJSON_AddItemToArray(
        a, cJSON_CreateNumber(rms ? live_level_rms(s, side, c) : (double)s->peak[side][c]));
  return a;
}

/* Figures since the last stats (or the start), and the run's totals. */
static void stats(live_run *r, const live_request *q) {
  live_figures f, span;
  live_run_figures(r, 1, &f);
  const double now = live_run_now();
  span = f;
  live_load_since(&r->load, &span.p50, &span.p99, &span.max);
  cJSON *j = ok();
  cJSON_AddNumberToObject(j, "block", f.block);
  cJSON_AddNumberToObject(j, "rate", f.rate);
  cJSON_AddNumberToObject(j, "latency_ms", f.latency_ms);
  cJSON_AddNumberToObject(j, "gain_db", r->reload.gain_db);
  cJSON_AddItemToObject(j, "muted", muted_list(r));
  cJSON_AddNumberToObject(j, "seconds", now - r->mark_s);
  cJSON_AddNumberToObject(j, "blocks", (double)(f.blocks - r->mark.blocks));
  cJSON_AddItemToObject(j, "load", triple(span.p50, span.p99, span.max));
  cJSON_AddItemToObject(j, "callback_us",
                        triple(live_figures_us(&f, span.p50), live_figures_us(&f, span.p99),
                               live_figures_us(&f, span.max)));
  cJSON_AddNumberToObject(j, "xruns",
                          (double)(live_figures_xruns(&f) - live_figures_xruns(&r->mark)));
  cJSON_AddNumberToObject(j, "clipped", (double)(f.clipped - r->mark.clipped));
  live_levels_drain(&r->levels, &r->engine->meter);
  const live_level_span *lv = &r->levels.stats;
  cJSON_AddItemToObject(j, "peak", level_list(r, lv, LIVE_OUT, 0));
  cJSON_AddItemToObject(j, "rms", level_list(r, lv, LIVE_OUT, 1));
  cJSON_AddItemToObject(j, "in_peak", level_list(r, lv, LIVE_IN, 0));
  cJSON_AddItemToObject(j, "in_rms", level_list(r, lv, LIVE_IN, 1));
  live_level_span_reset(&r->levels.stats);
  cJSON *total = cJSON_CreateObject();
  cJSON_AddNumberToObject(total, "seconds", now - r->started);
  cJSON_AddNumberToObject(total, "blocks", (double)f.blocks);
  cJSON_AddItemToObject(total, "load", triple(f.p50, f.p99, f.max));
  cJSON_AddNumberToObject(total, "xruns", (double)live_figures_xruns(&f));
  cJSON_AddNumberToObject(total, "audio_xruns", (double)f.audio_xruns);
  cJSON_AddNumberToObject(total, "late", (double)f.misses);
  cJSON_AddNumberToObject(total, "failed", (double)f.bad_blocks);
  cJSON_AddNumberToObject(total, "clipped", (double)f.clipped);
  cJSON_AddNumberToObject(total, "ir_changes", (double)f.ir_changes);
  cJSON_AddNumberToObject(total, "ir_merged", (double)f.ir_merged);
  cJSON_AddNumberToObject(total, "ir_pending", (double)f.ir_pending);
  cJSON_AddItemToObject(j, "total", total);
  r->mark = f;
  r->mark_s = now;
  reply(q, j);
}

int live_exec(live_run *r, const live_request *q) {
  char why[4200];
  switch (q->cmd) {
  case LIVE_CMD_NONE:
    return 0;
  case LIVE_CMD_STOP:
    reply(q, ok());
    return 1;
  case LIVE_CMD_RELOAD:
  case LIVE_CMD_IR:
    reload(r, q);
    return 0;
  case LIVE_CMD_GAIN:
    gain(r, q);
    return 0;
  case LIVE_CMD_MUTE:
  case LIVE_CMD_UNMUTE:
    mute(r, q);
    return 0;
  case LIVE_CMD_STATS:
    stats(r, q);
    return 0;
  case LIVE_CMD_UNKNOWN:
    snprintf(why, sizeof why, "unknown command '%s' (commands: %s)", q->arg, LIVE_COMMANDS);
    diag_warn("%s", why);
    fail(q, why);
    return 0;
  case LIVE_CMD_BAD:
    diag_warn("%s", q->arg);
    fail(q, q->arg);
    return 0;
  }
  return 0;
}
