/*
 * fuzz_live_config.c - fuzz entry point for the routing file of
 * `convoy live --config FILE` (cli/live/live_config.c).
 *
 * Every input (cut at its first NUL byte, as a text file would be read) is
 * parsed. A property that does not hold aborts, which the fuzzer reports
 * like a crash:
 *   - a file is either refused with "NAME:LINE: problem" (or "NAME: no
 *     routes") and nothing kept, or gives at least one route whose fields
 *     are in their documented ranges;
 *   - the routes and settings, written back as a config file (quoting file
 *     names as the format allows), parse to the same routes and settings.
 *
 * Short run: the ctest fuzz_live_config_replay feeds corpus_live_config/ and
 * mutations of it (fuzz_replay.c), in the normal and the ASan+UBSan builds.
 *
 * Long run (libFuzzer; clang), as for fuzz_capture.c:
 *   cmake --build build-fuzz --target fuzz_live_config -j
 *   mkdir -p build-fuzz/corpus_live_config
 *   build-fuzz/tests/fuzz/fuzz_live_config build-fuzz/corpus_live_config \
 *         tests/fuzz/corpus_live_config -max_len=4096 -max_total_time=3600
 */
#include "convoy_rt.h"
#include "fuzz_property.h"
#include "live_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "fuzz.conf"

static void check_ranges(const live_config *cfg) {
  fuzz_require(cfg->n_routes >= 1 && cfg->routes, "success gives routes");
  fuzz_require(cfg->rate == 0 || (cfg->rate >= 1000 && cfg->rate <= 1536000), "rate in range");
  fuzz_require(cfg->block >= 0 && cfg->block <= CONVOY_RT_MAX_BLOCK, "block in range");
  fuzz_require(cfg->channels >= 0 && cfg->channels <= CONVOY_RT_MAX_CHANNELS, "channels in range");
  fuzz_require(cfg->max_channel >= 1 && cfg->max_channel <= CONVOY_RT_MAX_CHANNELS,
               "max_channel in range");
  for (int32_t i = 0; i < cfg->n_routes; i++) {
    const live_config_route *r = &cfg->routes[i];
    fuzz_require(r->input >= 0 && r->input < cfg->max_channel, "input below max_channel");
    fuzz_require(r->output >= 0 && r->output < cfg->max_channel, "output below max_channel");
    fuzz_require(r->channel >= -1 && r->channel < CONVOY_RT_MAX_CHANNELS, "channel in range");
    fuzz_require(r->gain_db >= -200 && r->gain_db <= 60, "gain in range");
    fuzz_require(r->file && r->file[0], "file named");
    fuzz_require(r->line >= 1, "line counted");
  }
}

/* How a file name can be written so that it reads back: plain when it has
 * no blank, '#' or '"'; in quotes when it has no '"'; else not at all. A
 * name that reads as FILE:CHANNEL needs a channel after it to stay whole. */
static int write_file_field(char *out, size_t size, const live_config_route *r) {
  const char *f = r->file;
  const char *colon = strrchr(f, ':');
  if (r->channel < 0 && colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1))
    return -1;
  const int plain = !strpbrk(f, " \t\r\v\f#\"") && f[0] != '\0';
  if (!plain && strchr(f, '"')) return -1;
  int n = plain ? snprintf(out, size, "%s", f) : snprintf(out, size, "\"%s\"", f);
  if (r->channel >= 0) n += snprintf(out + n, size - (size_t)n, ":%d", (int)r->channel + 1);
  return n;
}

static void round_trip(const live_config *cfg) {
  size_t cap = 64;
  for (int32_t i = 0; i < cfg->n_routes; i++) cap += strlen(cfg->routes[i].file) + 80;
  char *text = malloc(cap);
  if (!text) return;
  size_t n = 0;
  if (cfg->rate) n += (size_t)snprintf(text + n, cap - n, "rate %d\n", (int)cfg->rate);
  if (cfg->block) n += (size_t)snprintf(text + n, cap - n, "block %d\n", (int)cfg->block);
  if (cfg->channels) n += (size_t)snprintf(text + n, cap - n, "channels %d\n", (int)cfg->channels);
  for (int32_t i = 0; i < cfg->n_routes; i++) {
    const live_config_route *r = &cfg->routes[i];
    char field[4200];
    if (strlen(r->file) + 32 > sizeof field || write_file_field(field, sizeof field, r) < 0) {
      free(text);
      return; /* a name the format cannot write back */
    }
    n += (size_t)snprintf(text + n, cap - n, "%d %d %s %.17g\n", (int)r->input + 1,
                          (int)r->output + 1, field, r->gain_db);
  }
  live_config back;
  char err[512] = "";
  convoy_status st = live_config_parse(text, NAME, NULL, &back, err, sizeof err);
  fuzz_require(st == CONVOY_OK, "a config written back parses");
  fuzz_require(back.rate == cfg->rate && back.block == cfg->block &&
                   back.channels == cfg->channels && back.n_routes == cfg->n_routes &&
                   back.max_channel == cfg->max_channel,
               "a config written back has the same settings");
  for (int32_t i = 0; i < cfg->n_routes; i++) {
    const live_config_route *a = &cfg->routes[i], *b = &back.routes[i];
    fuzz_require(a->input == b->input && a->output == b->output && a->channel == b->channel &&
                     a->gain_db == b->gain_db && strcmp(a->file, b->file) == 0,
                 "a config written back has the same routes");
  }
  live_config_free(&back);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  live_config cfg;
  char err[512] = "";
  convoy_status st = live_config_parse(text, NAME, NULL, &cfg, err, sizeof err);
  if (st == CONVOY_OK) {
    check_ranges(&cfg);
    round_trip(&cfg);
  } else {
    fuzz_require(st == CONVOY_ERR_FORMAT || st == CONVOY_ERR_OUT_OF_MEMORY,
                 "a refusal is a format error");
    fuzz_require(strncmp(err, NAME ":", strlen(NAME) + 1) == 0, "a refusal names the file");
    fuzz_require(cfg.n_routes == 0 && cfg.routes == NULL, "a refusal keeps nothing");
  }
  live_config_free(&cfg);
  free(text);
  return 0;
}
