/* design_parse.c - convoy_design_parse: "TYPE:key=value,..." into a convoy_design.
 *
 * TYPE and keys are matched without regard to case; blanks around names and
 * values are ignored, and so are empty items (a trailing comma). Numbers are
 * read with '.' as the decimal point whatever the locale. */
#include "design_internal.h"
#include "taps_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#define BAD(...) convoy_error_format(err, err_size, CONVOY_ERR_INVALID_ARGUMENT, __VA_ARGS__)

enum { KEY_CUTOFF, KEY_LOW, KEY_HIGH, KEY_WIDTH, KEY_ATTEN, KEY_TAPS, KEY_RATE, KEY_COUNT };
static const char *const key_names[KEY_COUNT] = {"cutoff", "low",  "high", "width",
                                                 "atten",  "taps", "rate"};

/* Case-insensitive comparison of s[0..len) with the NUL-terminated word. */
static int same_word(const char *s, size_t len, const char *word) {
  size_t i = 0;
  for (; i < len && word[i]; i++)
    if (tolower((unsigned char)s[i]) != word[i]) return 0;
  return i == len && !word[i];
}

/* Trims blanks off both ends of [*s, *s + *len). */
static void trim(const char **s, size_t *len) {
  while (*len && isspace((unsigned char)**s)) (*s)++, (*len)--;
  while (*len && isspace((unsigned char)(*s)[*len - 1])) (*len)--;
}

static convoy_status parse_value(const char *label, const char *key, const char *v, size_t len,
                                 double *out, char *err, size_t err_size) {
  char buf[64], q[48];
  taps_quote(q, sizeof q, v, len, 32);
  if (len == 0) return BAD("%s: %s= has no value", label, key);
  if (len >= sizeof buf) return BAD("%s: value '%s' of %s= is not a number", label, q, key);
  memcpy(buf, v, len);
  buf[len] = '\0';
  char *end = NULL;
  errno = 0;
  double x = taps_strtod(buf, &end);
  if (end != buf + len) return BAD("%s: value '%s' of %s= is not a number", label, q, key);
  if (!isfinite(x)) return BAD("%s: %s=%s is not a finite number", label, key, q);
  *out = x;
  return CONVOY_OK;
}

/* The spec into *design (rate: rate= or the argument) with the checks
 * that hold at any rate; label receives the quoted spec. */
static convoy_status parse_spec(const char *spec, double rate, convoy_design *design, char *label,
                                size_t label_size, char *err, size_t err_size) {
  if (err && err_size) err[0] = '\0';
  if (!design) return BAD("design: NULL argument");
  memset(design, 0, sizeof *design);
  if (!spec) return BAD("design: no spec given");
  if (!*spec)
    return BAD(
        "empty design spec: expected TYPE:key=value,... such as lowpass:cutoff=4000,width=500");

  taps_quote(label, label_size, spec, strlen(spec), 80);

  const char *colon = strchr(spec, ':');
  const char *type = spec;
  size_t type_len = colon ? (size_t)(colon - spec) : strlen(spec);
  trim(&type, &type_len);
  char tq[48];
  taps_quote(tq, sizeof tq, type, type_len, 32);
  static const convoy_design_type types[] = {CONVOY_DESIGN_LOWPASS, CONVOY_DESIGN_HIGHPASS,
                                             CONVOY_DESIGN_BANDPASS, CONVOY_DESIGN_BANDSTOP};
  int found = 0;
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    if (same_word(type, type_len, convoy_design_type_name(types[i]))) {
      design->type = types[i];
      found = 1;
    }
  }
  if (!found)
    return BAD("%s: unknown filter type '%s' (lowpass, highpass, bandpass or bandstop)", label, tq);
  int two_edges = design->type == CONVOY_DESIGN_BANDPASS || design->type == CONVOY_DESIGN_BANDSTOP;

  double value[KEY_COUNT] = {0};
  int given[KEY_COUNT] = {0};
  const char *p = colon ? colon + 1 : spec + strlen(spec);
  while (*p) {
    const char *item = p;
    const char *comma = strchr(p, ',');
    size_t item_len = comma ? (size_t)(comma - p) : strlen(p);
    p = comma ? comma + 1 : p + item_len;
    trim(&item, &item_len);
    if (item_len == 0) continue;

    char iq[48];
    taps_quote(iq, sizeof iq, item, item_len, 32);
    const char *eq = memchr(item, '=', item_len);
    if (!eq) return BAD("%s: '%s' is not key=value", label, iq);
    const char *key = item, *val = eq + 1;
    size_t key_len = (size_t)(eq - item), val_len = item_len - key_len - 1;
    trim(&key, &key_len);
    trim(&val, &val_len);

    int k = 0;
    while (k < KEY_COUNT && !same_word(key, key_len, key_names[k])) k++;
    char kq[48];
    taps_quote(kq, sizeof kq, key, key_len, 32);
    if (k == KEY_COUNT)
      return BAD("%s: unknown key '%s' (%s, width, atten, taps, rate)", label, kq,
                 two_edges ? "low, high" : "cutoff");
    if (two_edges && k == KEY_CUTOFF)
      return BAD("%s: key 'cutoff' does not apply to %s (use low= and high=)", label,
                 convoy_design_type_name(design->type));
    if (!two_edges && (k == KEY_LOW || k == KEY_HIGH))
      return BAD("%s: key '%s' does not apply to %s (use cutoff=)", label, key_names[k],
                 convoy_design_type_name(design->type));
    if (given[k]) return BAD("%s: key '%s' given twice", label, key_names[k]);
    convoy_status st = parse_value(label, key_names[k], val, val_len, &value[k], err, err_size);
    if (st != CONVOY_OK) return st;
    given[k] = 1;
  }

  if (!two_edges && !given[KEY_CUTOFF]) return BAD("%s: missing cutoff=HZ", label);
  if (two_edges && !given[KEY_LOW]) return BAD("%s: missing low=HZ", label);
  if (two_edges && !given[KEY_HIGH]) return BAD("%s: missing high=HZ", label);
  if (given[KEY_TAPS]) {
    double t = value[KEY_TAPS];
    if (t != floor(t)) return BAD("%s: taps=%.10g is not a whole number", label, t);
    if (t < 1 || t > (double)DESIGN_MAX_TAPS)
      return BAD("%s: taps=%.10g is outside 1..%lld", label, t, (long long)DESIGN_MAX_TAPS);
    design->taps = (int64_t)t;
  }
  if (given[KEY_RATE]) {
    if (!(value[KEY_RATE] > 0))
      return BAD("%s: rate=%.10g is not a positive sample rate", label, value[KEY_RATE]);
    rate = value[KEY_RATE];
  }
  if (given[KEY_WIDTH] && !(value[KEY_WIDTH] > 0))
    return BAD("%s: width=%.10g is not a positive width", label, value[KEY_WIDTH]);
  design->rate = rate;
  design->cutoff = value[KEY_CUTOFF];
  design->low = value[KEY_LOW];
  design->high = value[KEY_HIGH];
  design->width = value[KEY_WIDTH];
  design->atten = given[KEY_ATTEN] ? value[KEY_ATTEN] : DESIGN_DEFAULT_ATTEN;
  return design_check_spec(design, label, err, err_size);
}

convoy_status convoy_design_parse_spec(const char *spec, convoy_design *design, char *err,
                                       size_t err_size) {
  char label[96];
  return parse_spec(spec, 0, design, label, sizeof label, err, err_size);
}

convoy_status convoy_design_parse(const char *spec, double rate, convoy_design *design, char *err,
                                  size_t err_size) {
  char label[96];
  convoy_status st = parse_spec(spec, rate, design, label, sizeof label, err, err_size);
  if (st != CONVOY_OK) return st;
  return design_check(design, label, err, err_size);
}
