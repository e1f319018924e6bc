/* design_table.c - a frequency response as TSV or JSON (design_table.h). */
#include "design_table.h"

#include <math.h>

static const char *const names[] = {"magnitude_db", "phase_rad", "group_delay_samples"};

static const char *frequency_name(const design_view *v) {
  return v->rate > 0 ? "frequency_hz" : "frequency_cycles_per_sample";
}

static double column(const convoy_response_point *p, int c) {
  switch (c) {
  case 0:
    return p->magnitude_db;
  case 1:
    return p->phase;
  default:
    return p->group_delay;
  }
}

static double frequency(const design_view *v, const convoy_response_point *p) {
  return v->rate > 0 ? p->frequency * v->rate : p->frequency;
}

/* A JSON string literal: quotes, backslashes and control bytes escaped. */
static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(f, "\\u%04x", *c);
    else
      fputc(*c, f);
  }
  fputc('"', f);
}

/* One JSON column: numbers, null for -inf and NaN. */
static void json_column(FILE *f, const design_view *v, const char *name, int c) {
  fprintf(f, ",\n  \"%s\": [", name);
  for (int64_t k = 0; k < v->n_points; k++) {
    double x = c < 0 ? frequency(v, &v->points[k]) : column(&v->points[k], c);
    if (k > 0) fputs(k % 8 == 0 ? ",\n    " : ", ", f);
    if (isfinite(x))
      fprintf(f, "%.12g", x);
    else
      fputs("null", f);
  }
  fputc(']', f);
}

int design_table_write(FILE *f, const design_view *v, int json) {
  if (json) {
    fputs("{\n  \"source\": ", f);
    json_string(f, v->source);
    fprintf(f, ",\n  \"taps\": %lld,\n  \"rate_hz\": ", (long long)v->taps);
    if (v->rate > 0)
      fprintf(f, "%.17g", v->rate);
    else
      fputs("null", f);
    fprintf(f, ",\n  \"points\": %lld", (long long)v->n_points);
    json_column(f, v, frequency_name(v), -1);
    for (int c = 0; c < 3; c++) json_column(f, v, names[c], c);
    fputs("\n}\n", f);
  } else {
    fprintf(f, "%s\t%s\t%s\t%s\n", frequency_name(v), names[0], names[1], names[2]);
    for (int64_t k = 0; k < v->n_points; k++) {
      const convoy_response_point *p = &v->points[k];
      /* printf's "-inf" and "nan" spellings, whatever the sign bit of a NaN. */
      fprintf(f, "%.12g\t%.12g\t%.12g\t", frequency(v, p), p->magnitude_db, p->phase);
      if (isnan(p->group_delay))
        fputs("nan\n", f);
      else
        fprintf(f, "%.12g\n", p->group_delay);
    }
  }
  return ferror(f) ? -1 : 0;
}
