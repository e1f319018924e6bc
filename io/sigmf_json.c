/* sigmf_json.c - typed access to cJSON values, index arithmetic and ISO 8601
 * time arithmetic for the SigMF model. */
#define _DEFAULT_SOURCE /* timegm */

#include "sigmf_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int sj_uint(const cJSON *obj, const char *key, int64_t *v) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item) return 0;
  if (!cJSON_IsNumber(item)) return -1;
  const double d = item->valuedouble;
  if (!(d >= 0.0 && d <= (double)SJ_INT_MAX) || d != floor(d)) return -1;
  *v = (int64_t)d;
  return 1;
}

int sj_number(const cJSON *obj, const char *key, double *v) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item) return 0;
  if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble)) return -1;
  *v = item->valuedouble;
  return 1;
}

const char *sj_string(const cJSON *obj, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(item) ? item->valuestring : NULL;
}

int sj_set_number(cJSON *obj, const char *key, double v) {
  cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (item && cJSON_IsNumber(item)) {
    cJSON_SetNumberValue(item, v);
    return 0;
  }
  cJSON *n = cJSON_CreateNumber(v);
  if (!n) return -1;
  if (item) return cJSON_ReplaceItemInObjectCaseSensitive(obj, key, n) ? 0 : (cJSON_Delete(n), -1);
  return cJSON_AddItemToObject(obj, key, n) ? 0 : (cJSON_Delete(n), -1);
}

int sj_set_string(cJSON *obj, const char *key, const char *s) {
  cJSON *n = cJSON_CreateString(s);
  if (!n) return -1;
  cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (item) return cJSON_ReplaceItemInObjectCaseSensitive(obj, key, n) ? 0 : (cJSON_Delete(n), -1);
  return cJSON_AddItemToObject(obj, key, n) ? 0 : (cJSON_Delete(n), -1);
}

cJSON *sj_global(const sigmf_meta *m) {
  return cJSON_GetObjectItemCaseSensitive(m->root, "global");
}
cJSON *sj_captures(const sigmf_meta *m) {
  return cJSON_GetObjectItemCaseSensitive(m->root, "captures");
}
cJSON *sj_annotations(const sigmf_meta *m) {
  return cJSON_GetObjectItemCaseSensitive(m->root, "annotations");
}

int64_t sj_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

int64_t sj_ceil_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}

int sj_datetime_add(const char *text, double seconds, char *out, size_t out_size) {
  int year, mon, day, hour, min, sec, used = 0;
  if (!text || !isfinite(seconds) || fabs(seconds) > 1e12) return -1;
  if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &mon, &day, &hour, &min, &sec, &used) != 6 ||
      used != 19)
    return -1;
  const char *p = text + used;
  int64_t frac_ns = 0;
  int digits = 0;
  if (*p == '.') {
    p++;
    int64_t scale = 100000000;
    while (*p >= '0' && *p <= '9') {
      frac_ns += (*p - '0') * scale;
      scale /= 10;
      digits++;
      p++;
    }
    if (digits == 0) return -1;
  }
  if (p[0] != 'Z' || p[1] != '\0') return -1;
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60) return -1;
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  const time_t base = timegm(&tm);
  if (base == (time_t)-1) return -1;
  /* Whole seconds and nanoseconds apart, so that large times keep ns steps. */
  const double whole = floor(seconds);
  int64_t ns = frac_ns + (int64_t)llround((seconds - whole) * 1e9);
  int64_t secs = (int64_t)base + (int64_t)whole + ns / 1000000000;
  ns %= 1000000000;
  time_t t = (time_t)secs;
  struct tm r;
  if (!gmtime_r(&t, &r) || r.tm_year + 1900 < 0 || r.tm_year + 1900 > 9999) return -1;
  char frac[16] = "";
  if (ns != 0 || digits > 0) {
    snprintf(frac, sizeof frac, ".%09" PRId64, ns);
    int keep = 10; /* '.' and nine digits */
    while (keep > 1 + digits && keep > 2 && frac[keep - 1] == '0') keep--;
    frac[keep] = '\0';
  }
  int n = snprintf(out, out_size, "%04d-%02d-%02dT%02d:%02d:%02d%sZ", r.tm_year + 1900,
                   r.tm_mon + 1, r.tm_mday, r.tm_hour, r.tm_min, r.tm_sec, frac);
  return n > 0 && (size_t)n < out_size ? 0 : -1;
}
