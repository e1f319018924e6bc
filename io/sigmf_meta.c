/* sigmf_meta.c - the SigMF metadata model: parsing and validation, accessors,
 * creation, copying and printing. */
#include "io_message.h"
#include "sigmf_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Line and column (1-based) of byte offset pos in text. */
static void line_col(const char *text, size_t len, size_t pos, int64_t *line, int64_t *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < pos && i < len; i++) {
    if (text[i] == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

/* ------------------------------------------------------------- validation */

typedef struct checker {
  const char *name;
  char *err;
  size_t err_size;
} checker;

static convoy_status bad(const checker *c, const char *where, int64_t index, const char *key,
                         const char *what) {
  if (index >= 0)
    io_errorf(c->err, c->err_size, "%s: %s[%" PRId64 "]%s%s: %s", c->name, where, index,
              *key ? "." : "", key, what);
  else
    io_errorf(c->err, c->err_size, "%s: %s.%s: %s", c->name, where, key, what);
  return CONVOY_ERR_FORMAT;
}

static const char not_uint[] = "expected a non-negative integer";

static convoy_status check_uint(const checker *c, const cJSON *obj, const char *where,
                                int64_t index, const char *key, int required, int64_t *v) {
  int64_t dummy;
  int r = sj_uint(obj, key, v ? v : &dummy);
  if (r < 0) return bad(c, where, index, key, not_uint);
  if (r == 0 && required) return bad(c, where, index, key, "missing (required)");
  return CONVOY_OK;
}

static convoy_status check_number(const checker *c, const cJSON *obj, const char *where,
                                  int64_t index, const char *key) {
  double v;
  if (sj_number(obj, key, &v) < 0) return bad(c, where, index, key, "expected a number");
  return CONVOY_OK;
}

static convoy_status check_string(const checker *c, const cJSON *obj, const char *where,
                                  int64_t index, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (item && !cJSON_IsString(item)) return bad(c, where, index, key, "expected a string");
  return CONVOY_OK;
}

static convoy_status check_global(const checker *c, const cJSON *g, int64_t *offset) {
  const cJSON *dt = cJSON_GetObjectItemCaseSensitive(g, "core:datatype");
  if (!dt) return bad(c, "global", -1, "core:datatype", "missing (required)");
  if (!cJSON_IsString(dt)) return bad(c, "global", -1, "core:datatype", "expected a string");
  capture_datatype t;
  char msg[160];
  if (capture_datatype_parse(dt->valuestring, &t, msg, sizeof msg) != CONVOY_OK)
    return bad(c, "global", -1, "core:datatype", msg);
  convoy_status st;
  if ((st = check_string(c, g, "global", -1, "core:version")) != CONVOY_OK) return st;
  static const char *const rates[] = {"core:sample_rate", "convoy:sample_rate"};
  for (int i = 0; i < 2; i++) {
    double rate;
    int r = sj_number(g, rates[i], &rate);
    if (r < 0 || (r > 0 && !(rate > 0.0)))
      return bad(c, "global", -1, rates[i], "expected a positive number");
  }
  int64_t channels = 1;
  if ((st = check_uint(c, g, "global", -1, "core:num_channels", 0, &channels)) != CONVOY_OK)
    return st;
  if (channels < 1 || channels > CONVOY_MAX_CHANNELS) {
    char what[64];
    snprintf(what, sizeof what, "%" PRId64 " channels is out of range (1 .. %d)", channels,
             CONVOY_MAX_CHANNELS);
    return bad(c, "global", -1, "core:num_channels", what);
  }
  *offset = 0;
  if ((st = check_uint(c, g, "global", -1, "core:offset", 0, offset)) != CONVOY_OK) return st;
  return check_uint(c, g, "global", -1, "core:trailing_bytes", 0, NULL);
}

static int by_key(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key twice in one object is ambiguous: cJSON reads the first, Python's
 * json (sigmf-python) the last, and an edit (sigmf_writer removing
 * core:trailing_bytes) would change the first only. Such an object of the
 * model (the top level, global, a capture, an annotation) is refused:
 * where[index] (index -1: where alone; where NULL: the top level). */
static convoy_status unique_keys(const checker *c, const cJSON *obj, const char *where,
                                 int64_t index) {
  size_t n = 0;
  for (const cJSON *e = obj->child; e; e = e->next) n++;
  if (n < 2) return CONVOY_OK;
  const char **keys = malloc(n * sizeof *keys);
  if (!keys) {
    io_errorf(c->err, c->err_size, "%s: out of memory", c->name);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  size_t k = 0;
  for (const cJSON *e = obj->child; e; e = e->next) keys[k++] = e->string ? e->string : "";
  qsort(keys, n, sizeof *keys, by_key);
  const char *dup = NULL;
  for (k = 1; k < n && !dup; k++)
    if (strcmp(keys[k - 1], keys[k]) == 0) dup = keys[k];
  convoy_status st = CONVOY_OK;
  if (dup) {
    char at[48] = "the top level";
    if (where && index >= 0)
      snprintf(at, sizeof at, "%s[%" PRId64 "]", where, index);
    else if (where)
      snprintf(at, sizeof at, "%s", where);
    io_errorf(c->err, c->err_size,
              "%s: %s: the key \"%.80s\" appears twice (JSON readers differ on which one counts)",
              c->name, at, dup);
    st = CONVOY_ERR_FORMAT;
  }
  free(keys);
  return st;
}

/* sample_start of entry i of a section: present, an integer, >= offset. */
static convoy_status check_start(const checker *c, const cJSON *e, const char *where, int64_t i,
                                 int64_t offset) {
  int64_t s;
  convoy_status st = check_uint(c, e, where, i, "core:sample_start", 1, &s);
  if (st != CONVOY_OK) return st;
  if (s < offset) return bad(c, where, i, "core:sample_start", "is before global core:offset");
  return CONVOY_OK;
}

static convoy_status check_captures(const checker *c, const cJSON *a, int64_t offset) {
  int64_t i = 0;
  for (const cJSON *e = a->child; e; e = e->next, i++) {
    if (!cJSON_IsObject(e)) return bad(c, "captures", i, "", "expected an object");
    convoy_status st;
    if ((st = unique_keys(c, e, "captures", i)) != CONVOY_OK ||
        (st = check_start(c, e, "captures", i, offset)) != CONVOY_OK ||
        (st = check_number(c, e, "captures", i, "core:frequency")) != CONVOY_OK ||
        (st = check_uint(c, e, "captures", i, "core:global_index", 0, NULL)) != CONVOY_OK ||
        (st = check_uint(c, e, "captures", i, "core:header_bytes", 0, NULL)) != CONVOY_OK ||
        (st = check_string(c, e, "captures", i, "core:datetime")) != CONVOY_OK)
      return st;
  }
  return CONVOY_OK;
}

static convoy_status check_annotations(const checker *c, const cJSON *a, int64_t offset) {
  int64_t i = 0;
  for (const cJSON *e = a->child; e; e = e->next, i++) {
    if (!cJSON_IsObject(e)) return bad(c, "annotations", i, "", "expected an object");
    convoy_status st;
    if ((st = unique_keys(c, e, "annotations", i)) != CONVOY_OK ||
        (st = check_start(c, e, "annotations", i, offset)) != CONVOY_OK ||
        (st = check_uint(c, e, "annotations", i, "core:sample_count", 0, NULL)) != CONVOY_OK ||
        (st = check_number(c, e, "annotations", i, "core:freq_lower_edge")) != CONVOY_OK ||
        (st = check_number(c, e, "annotations", i, "core:freq_upper_edge")) != CONVOY_OK ||
        (st = check_string(c, e, "annotations", i, "core:label")) != CONVOY_OK)
      return st;
  }
  return CONVOY_OK;
}

/* A section array: present and an array, or absent and then added empty
 * (the spec requires all three sections). */
static convoy_status section(const checker *c, cJSON *root, const char *key, cJSON **out) {
  cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!a) {
    a = cJSON_AddArrayToObject(root, key);
    if (!a) {
      io_errorf(c->err, c->err_size, "%s: out of memory", c->name);
      return CONVOY_ERR_OUT_OF_MEMORY;
    }
  } else if (!cJSON_IsArray(a)) {
    io_errorf(c->err, c->err_size, "%s: \"%s\": expected an array", c->name, key);
    return CONVOY_ERR_FORMAT;
  }
  *out = a;
  return CONVOY_OK;
}

static convoy_status validate(const checker *c, cJSON *root) {
  if (!cJSON_IsObject(root)) {
    io_errorf(c->err, c->err_size, "%s: expected a JSON object at the top level", c->name);
    return CONVOY_ERR_FORMAT;
  }
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "global");
  if (!cJSON_IsObject(g)) {
    io_errorf(c->err, c->err_size, "%s: \"global\": %s", c->name,
              g ? "expected an object" : "missing (required)");
    return CONVOY_ERR_FORMAT;
  }
  int64_t offset = 0;
  convoy_status st = unique_keys(c, root, NULL, -1);
  if (st == CONVOY_OK) st = unique_keys(c, g, "global", -1);
  if (st == CONVOY_OK) st = check_global(c, g, &offset);
  cJSON *caps = NULL, *anns = NULL;
  if (st == CONVOY_OK) st = section(c, root, "captures", &caps);
  if (st == CONVOY_OK) st = section(c, root, "annotations", &anns);
  if (st == CONVOY_OK) st = check_captures(c, caps, offset);
  if (st == CONVOY_OK) st = check_annotations(c, anns, offset);
  return st;
}

/* ------------------------------------------------------------- NUL */

/* cJSON ends a string at a NUL, so "cf32_le\u0000x" would read as "cf32_le"
 * and be written back cut. A NUL is found in the text instead: a raw NUL
 * byte (never JSON; cJSON takes one between tokens for blank space and one
 * inside a string for a character) or the escape \u0000 inside a string. */
typedef struct nul_find {
  size_t at;      /* byte offset of the NUL or of its escape */
  int raw;        /* 1: a NUL byte, 0: \u0000 */
  int64_t string; /* index of the string holding it, in document order; -1: none */
} nul_find;

static int find_nul(const char *text, size_t len, nul_find *f) {
  int in_string = 0;
  int64_t strings = -1;
  for (size_t i = 0; i < len; i++) {
    const char ch = text[i];
    if (ch == '\0') {
      *f = (nul_find){i, 1, in_string ? strings : -1};
      return 1;
    }
    if (!in_string) {
      if (ch == '"') {
        in_string = 1;
        strings++;
      }
    } else if (ch == '"') {
      in_string = 0;
    } else if (ch == '\\' && i + 1 < len) {
      if (text[i + 1] == 'u' && i + 5 < len && memcmp(text + i + 2, "0000", 4) == 0) {
        *f = (nul_find){i, 0, strings};
        return 1;
      }
      i++; /* the escaped character: \" does not end the string */
    }
  }
  return 0;
}

/* Where string number *k (document order, keys counted) lies under item:
 * path gets "global.core:datatype" or "captures[1].core:label" for a value,
 * the object's path and *is_key = 1 for a key. Returns 1 when found. */
static int string_path(const cJSON *item, int64_t *k, char *path, size_t size, int *is_key) {
  const size_t n = strlen(path);
  if (cJSON_IsString(item)) return (*k)-- == 0;
  if (!cJSON_IsObject(item) && !cJSON_IsArray(item)) return 0;
  int64_t i = 0;
  for (const cJSON *e = item->child; e; e = e->next, i++) {
    if (cJSON_IsObject(item)) {
      if ((*k)-- == 0) {
        *is_key = 1;
        return 1;
      }
      snprintf(path + n, size - n, "%s%s", n ? "." : "", e->string ? e->string : "");
      for (char *p = path + n; *p; p++) /* a key's text: kept on one line */
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    } else {
      snprintf(path + n, size - n, "[%" PRId64 "]", i);
    }
    if (string_path(e, k, path, size, is_key)) return 1;
    path[n] = '\0';
  }
  return 0;
}

/* A NUL inside the text: an error naming the key when it is in a string. */
static convoy_status refuse_nul(const char *text, size_t len, const nul_find *f, const cJSON *root,
                                const char *name, char *err, size_t err_size) {
  int64_t line, col;
  line_col(text, len, f->at, &line, &col);
  char at[96];
  snprintf(at, sizeof at, "%s at byte %zu, line %" PRId64 ", column %" PRId64,
           f->raw ? "a NUL byte" : "\\u0000", f->at, line, col);
  char path[256] = "";
  int64_t k = f->string;
  int is_key = 0;
  if (f->string >= 0 && root && string_path(root, &k, path, sizeof path, &is_key))
    io_errorf(err, err_size, "%s: %s: %s holds a NUL character (%s)", name,
              path[0] ? path : "top level", is_key ? "a key" : "the string", at);
  else
    io_errorf(err, err_size, "%s: contains %s; not JSON text", name, at);
  return CONVOY_ERR_FORMAT;
}

/* ------------------------------------------------------------- lifecycle */

static sigmf_meta *wrap(cJSON *root, const char *name) {
  sigmf_meta *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->root = root;
  m->name = dup_string(name ? name : "metadata");
  if (!m->name) {
    free(m);
    return NULL;
  }
  return m;
}

convoy_status sigmf_meta_parse(sigmf_meta **out, const char *text, size_t len, const char *name,
                               char *err, size_t err_size) {
  if (!out || (!text && len > 0)) {
    io_errorf(err, err_size, "sigmf_meta_parse: NULL argument");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  if (!name) name = "metadata";
  checker c = {name, err, err_size};
  nul_find nul;
  const int has_nul = find_nul(text, len, &nul);
  if (has_nul && nul.string < 0) return refuse_nul(text, len, &nul, NULL, name, err, err_size);
  const char *end = NULL;
  cJSON *root = len ? cJSON_ParseWithLengthOpts(text, len, &end, 0) : NULL;
  if (!root) {
    if (has_nul) return refuse_nul(text, len, &nul, NULL, name, err, err_size);
    if (len == 0) {
      io_errorf(err, err_size, "%s: empty file (expected SigMF JSON)", name);
      return CONVOY_ERR_FORMAT;
    }
    size_t pos = end && end >= text ? (size_t)(end - text) : 0;
    int64_t line, col;
    line_col(text, len, pos, &line, &col);
    io_errorf(err, err_size, "%s: invalid JSON at line %" PRId64 ", column %" PRId64, name, line,
              col);
    return CONVOY_ERR_FORMAT;
  }
  /* Anything but whitespace after the document is an error too. */
  size_t pos = (size_t)(end - text);
  while (pos < len &&
         (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
    pos++;
  if (pos < len) {
    int64_t line, col;
    line_col(text, len, pos, &line, &col);
    io_errorf(err, err_size,
              "%s: invalid JSON at line %" PRId64 ", column %" PRId64 " (text after the document)",
              name, line, col);
    cJSON_Delete(root);
    return CONVOY_ERR_FORMAT;
  }
  if (has_nul) {
    convoy_status st = refuse_nul(text, len, &nul, root, name, err, err_size);
    cJSON_Delete(root);
    return st;
  }
  convoy_status st = validate(&c, root);
  if (st != CONVOY_OK) {
    cJSON_Delete(root);
    return st;
  }
  sigmf_meta *m = wrap(root, name);
  if (!m) {
    cJSON_Delete(root);
    io_errorf(err, err_size, "%s: out of memory", name);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  *out = m;
  return CONVOY_OK;
}

convoy_status sigmf_meta_create(sigmf_meta **out, capture_datatype type, int32_t channels,
                                double sample_rate, char *err, size_t err_size) {
  *out = NULL;
  const char *tname = capture_datatype_name(type);
  if (!tname || channels < 1 || channels > CONVOY_MAX_CHANNELS || !isfinite(sample_rate)) {
    io_errorf(err, err_size, "sigmf_meta_create: invalid datatype, channels or rate");
    return CONVOY_ERR_INVALID_ARGUMENT;
  }
  cJSON *root = cJSON_CreateObject();
  cJSON *g = root ? cJSON_AddObjectToObject(root, "global") : NULL;
  int ok = g && cJSON_AddStringToObject(g, "core:datatype", tname) &&
           cJSON_AddStringToObject(g, "core:version", SIGMF_VERSION_DEFAULT);
  if (ok && sample_rate > 0.0)
    ok = cJSON_AddNumberToObject(g, "core:sample_rate", sample_rate) != 0;
  if (ok && channels > 1) ok = cJSON_AddNumberToObject(g, "core:num_channels", channels) != 0;
  cJSON *caps = ok ? cJSON_AddArrayToObject(root, "captures") : NULL;
  cJSON *cap = caps ? cJSON_CreateObject() : NULL;
  ok = cap && cJSON_AddNumberToObject(cap, "core:sample_start", 0) &&
       cJSON_AddItemToArray(caps, cap);
  if (!ok) cJSON_Delete(cap);
  ok = ok && cJSON_AddArrayToObject(root, "annotations");
  sigmf_meta *m = ok ? wrap(root, "metadata") : NULL;
  if (!m) {
    cJSON_Delete(root);
    io_errorf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  *out = m;
  return CONVOY_OK;
}

sigmf_meta *sigmf_meta_copy(const sigmf_meta *src) {
  if (!src) return NULL;
  cJSON *root = cJSON_Duplicate(src->root, 1);
  sigmf_meta *m = root ? wrap(root, src->name) : NULL;
  if (!m) {
    cJSON_Delete(root);
    return NULL;
  }
  if (src->data_path && !(m->data_path = dup_string(src->data_path))) {
    sigmf_meta_free(m);
    return NULL;
  }
  return m;
}

void sigmf_meta_free(sigmf_meta *m) {
  if (!m) return;
  cJSON_Delete(m->root);
  free(m->name);
  free(m->data_path);
  free(m);
}

/* cJSON indents with tabs and puts a tab after ':'. JSON strings never hold a
 * raw tab (cJSON escapes it), so every tab is layout: leading ones become four
 * spaces, the others one. */
char *sigmf_meta_print(const sigmf_meta *m) {
  if (!m) return NULL;
  char *raw = cJSON_Print(m->root);
  if (!raw) return NULL;
  size_t tabs = 0, n = 0;
  for (; raw[n]; n++) tabs += raw[n] == '\t';
  char *out = malloc(n + 3 * tabs + 2);
  if (out) {
    size_t o = 0;
    int leading = 1;
    for (size_t i = 0; i < n; i++) {
      char ch = raw[i];
      if (ch == '\t') {
        const int w = leading ? 4 : 1;
        for (int k = 0; k < w; k++) out[o++] = ' ';
        continue;
      }
      leading = ch == '\n';
      out[o++] = ch;
    }
    out[o++] = '\n';
    out[o] = '\0';
  }
  cJSON_free(raw);
  return out;
}

/* ------------------------------------------------------------- accessors */

capture_datatype sigmf_meta_datatype(const sigmf_meta *m) {
  capture_datatype t = {0, 0, 0, 0};
  if (m) (void)capture_datatype_parse(sj_string(sj_global(m), "core:datatype"), &t, NULL, 0);
  return t;
}

double sigmf_meta_sample_rate(const sigmf_meta *m) {
  double v = 0.0;
  if (!m) return 0.0;
  if (sj_number(sj_global(m), "core:sample_rate", &v) > 0) return v;
  return sj_number(sj_global(m), "convoy:sample_rate", &v) > 0 ? v : 0.0;
}

int32_t sigmf_meta_channels(const sigmf_meta *m) {
  int64_t v = 1;
  return m && sj_uint(sj_global(m), "core:num_channels", &v) > 0 ? (int32_t)v : 1;
}

const char *sigmf_meta_version(const sigmf_meta *m) {
  return m ? sj_string(sj_global(m), "core:version") : NULL;
}

int64_t sigmf_meta_offset(const sigmf_meta *m) {
  int64_t v = 0;
  return m && sj_uint(sj_global(m), "core:offset", &v) > 0 ? v : 0;
}

static const cJSON *nth(const cJSON *array, int64_t i) {
  if (i < 0) return NULL;
  const cJSON *e = array ? array->child : NULL;
  for (; e && i > 0; i--) e = e->next;
  return e;
}

static int64_t count_of(const cJSON *array) {
  int64_t n = 0;
  for (const cJSON *e = array ? array->child : NULL; e; e = e->next) n++;
  return n;
}

int64_t sigmf_meta_capture_count(const sigmf_meta *m) {
  return m ? count_of(sj_captures(m)) : 0;
}

int64_t sigmf_meta_annotation_count(const sigmf_meta *m) {
  return m ? count_of(sj_annotations(m)) : 0;
}

int sigmf_meta_capture(const sigmf_meta *m, int64_t i, sigmf_capture *out) {
  const cJSON *e = m ? nth(sj_captures(m), i) : NULL;
  if (!e) return -1;
  memset(out, 0, sizeof *out);
  (void)sj_uint(e, "core:sample_start", &out->sample_start);
  out->sample_start -= sigmf_meta_offset(m);
  out->has_frequency = sj_number(e, "core:frequency", &out->frequency) > 0;
  out->has_global_index = sj_uint(e, "core:global_index", &out->global_index) > 0;
  (void)sj_uint(e, "core:header_bytes", &out->header_bytes);
  out->datetime = sj_string(e, "core:datetime");
  return 0;
}

int sigmf_meta_annotation(const sigmf_meta *m, int64_t i, sigmf_annotation *out) {
  const cJSON *e = m ? nth(sj_annotations(m), i) : NULL;
  if (!e) return -1;
  memset(out, 0, sizeof *out);
  (void)sj_uint(e, "core:sample_start", &out->sample_start);
  out->sample_start -= sigmf_meta_offset(m);
  if (sj_uint(e, "core:sample_count", &out->sample_count) <= 0) out->sample_count = -1;
  out->has_lower_edge = sj_number(e, "core:freq_lower_edge", &out->lower_edge) > 0;
  out->has_upper_edge = sj_number(e, "core:freq_upper_edge", &out->upper_edge) > 0;
  out->label = sj_string(e, "core:label");
  return 0;
}

char *sigmf_meta_global_json(const sigmf_meta *m, const char *key) {
  const cJSON *item = m ? cJSON_GetObjectItemCaseSensitive(sj_global(m), key) : NULL;
  if (!item) return NULL;
  char *raw = cJSON_PrintUnformatted(item);
  if (!raw) return NULL;
  char *out = dup_string(raw);
  cJSON_free(raw);
  return out;
}

const char *sigmf_meta_data_path(const sigmf_meta *m) {
  return m ? m->data_path : NULL;
}
