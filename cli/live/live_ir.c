/* live_ir.c - loading, designing and rate-matching the impulse responses. */
#define _POSIX_C_SOURCE 200809L
#include "live_ir.h"

#include "error_internal.h" /* CONVOY_QUOTE */
#include "live_resample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static convoy_status add(live_ir_bank *bank, const char *name, live_ir **out, char *err,
                         size_t err_size) {
  live_ir *grown = realloc(bank->irs, (size_t)(bank->count + 1) * sizeof *grown);
  char *copy = grown ? strdup(name) : NULL;
  if (grown) bank->irs = grown;
  if (!copy) {
    snprintf(err, err_size, "%s: out of memory", CONVOY_QUOTE(name));
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  live_ir *ir = &bank->irs[bank->count++];
  memset(ir, 0, sizeof *ir);
  ir->name = copy;
  *out = ir;
  return CONVOY_OK;
}

static convoy_status load_file(live_ir_bank *bank, const char *path, convoy_taps_format format,
                               char *err, size_t err_size) {
  if (live_ir_bank_find(bank, path)) return CONVOY_OK;
  live_ir *ir;
  convoy_status st = add(bank, path, &ir, err, err_size);
  if (st == CONVOY_OK) st = convoy_taps_load(path, format, &ir->taps, err, err_size);
  if (st == CONVOY_OK && ir->taps.is_complex) {
    snprintf(err, err_size, "%s: complex taps; convoy live filters real audio", path);
    st = CONVOY_ERR_FORMAT;
  }
  if (st != CONVOY_OK && err && err_size && !err[0])
    snprintf(err, err_size, "%s: %s", CONVOY_QUOTE(path), convoy_strerror(st));
  return st;
}

convoy_status live_ir_bank_load(live_ir_bank *bank, live_source source, const char *arg,
                                const live_config *cfg, char *err, size_t err_size) {
  memset(bank, 0, sizeof *bank);
  if (err && err_size) err[0] = '\0';
  bank->source = source;
  convoy_status st = CONVOY_OK;
  switch (source) {
  case LIVE_SOURCE_IR:
    st = load_file(bank, arg, CONVOY_TAPS_AUDIO, err, err_size);
    break;
  case LIVE_SOURCE_TAPS:
    st = load_file(bank, arg, CONVOY_TAPS_AUTO, err, err_size);
    break;
  case LIVE_SOURCE_DESIGN:
    bank->design = arg;
    break;
  case LIVE_SOURCE_CONFIG:
    for (int32_t i = 0; st == CONVOY_OK && i < cfg->n_routes; i++) {
      st = load_file(bank, cfg->routes[i].file, CONVOY_TAPS_AUTO, err, err_size);
      if (st != CONVOY_OK) live_config_locate(cfg, cfg->routes[i].line, err, err_size);
    }
    break;
  default:
    snprintf(err, err_size, "no impulse response given");
    st = CONVOY_ERR_INVALID_ARGUMENT;
  }
  if (st != CONVOY_OK) live_ir_bank_free(bank);
  return st;
}

static convoy_status design(live_ir_bank *bank, int32_t rate, char *err, size_t err_size) {
  live_ir *ir;
  convoy_status st = add(bank, bank->design, &ir, err, err_size);
  if (st != CONVOY_OK) return st;
  convoy_design d;
  st = convoy_design_parse(bank->design, rate, &d, err, err_size);
  if (st == CONVOY_OK) st = convoy_design_taps(&d, &ir->taps, err, err_size);
  bank->design = NULL;
  return st;
}

convoy_status live_ir_bank_fit(live_ir_bank *bank, int32_t rate, int resample, char *err,
                               size_t err_size) {
  if (bank->design) {
    convoy_status st = design(bank, rate, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  for (int32_t i = 0; i < bank->count; i++) {
    live_ir *ir = &bank->irs[i];
    if (ir->taps.rate <= 0 || fabs(ir->taps.rate - rate) < 0.5) continue;
    if (!resample) {
      snprintf(err, err_size, "%s: %s is %.0f Hz but the stream runs at %d Hz (add --resample-ir)",
               CONVOY_QUOTE(ir->name),
               bank->source == LIVE_SOURCE_DESIGN ? "design" : "impulse response", ir->taps.rate,
               (int)rate);
      return CONVOY_ERR_INVALID_ARGUMENT;
    }
    convoy_status st = live_resample_taps(&ir->taps, rate, ir->name, err, err_size);
    if (st != CONVOY_OK) return st;
  }
  return CONVOY_OK;
}

const live_ir *live_ir_bank_find(const live_ir_bank *bank, const char *path) {
  for (int32_t i = 0; i < bank->count; i++)
    if (strcmp(bank->irs[i].name, path) == 0) return &bank->irs[i];
  return NULL;
}

void live_ir_bank_free(live_ir_bank *bank) {
  if (!bank) return;
  for (int32_t i = 0; i < bank->count; i++) {
    free(bank->irs[i].name);
    convoy_taps_free(&bank->irs[i].taps);
  }
  free(bank->irs);
  memset(bank, 0, sizeof *bank);
}
