/*
 * sigmf_internal.h - the SigMF metadata model's representation and JSON
 * helpers shared by io/sigmf_*.c. Internal to convoy_io.
 */
#ifndef CONVOY_SIGMF_INTERNAL_H
#define CONVOY_SIGMF_INTERNAL_H

#include "sigmf.h"

#include <cjson/cJSON.h>
#include <stdint.h>

/* The document is the model: every edit changes the tree in place, so keys
 * nobody interprets are kept where they were. Validated at parse (and kept
 * valid by every edit): root, "global", "captures", "annotations" exist with
 * the types and integer ranges documented in sigmf.h. */
struct sigmf_meta {
  cJSON *root;
  char *name;      /* for messages: the .sigmf-meta path, or the caller's name */
  char *data_path; /* the dataset, from sigmf_open; NULL otherwise */
};

/* Largest integer a JSON number holds exactly here (doubles). */
#define SJ_INT_MAX ((int64_t)1 << 53)

/* An integer-valued key of obj: 1 and *v when present and an integer in
 * [0, SJ_INT_MAX], 0 when absent, -1 when present but not such a number. */
int sj_uint(const cJSON *obj, const char *key, int64_t *v);

/* A number key: 1 and *v when present and finite, 0 absent, -1 otherwise. */
int sj_number(const cJSON *obj, const char *key, double *v);

/* A string key's value, or NULL when absent or not a string. */
const char *sj_string(const cJSON *obj, const char *key);

/* Sets obj[key] to a number, in place when the key exists (its position in
 * the object is kept), appended otherwise. Returns 0, or -1 out of memory. */
int sj_set_number(cJSON *obj, const char *key, double v);

/* Sets obj[key] to a string the same way. */
int sj_set_string(cJSON *obj, const char *key, const char *s);

/* Declares {"name": "convoy", "version": ..., "optional": true} in the global
 * object g's core:extensions unless an entry named "convoy" is there (as the
 * spec asks of a document with convoy: keys). Returns 0, or -1 out of memory. */
int sj_declare_convoy(cJSON *g);

/* The three sections of a validated model. */
cJSON *sj_global(const sigmf_meta *m);
cJSON *sj_captures(const sigmf_meta *m);
cJSON *sj_annotations(const sigmf_meta *m);

/* floor(a / b) and ceil(a / b) for b > 0. */
int64_t sj_floor_div(int64_t a, int64_t b);
int64_t sj_ceil_div(int64_t a, int64_t b);

/* Adds seconds to an ISO 8601 UTC time "YYYY-MM-DDTHH:MM:SS[.fraction]Z".
 * Writes the result into out (nanosecond resolution; as many fraction digits
 * as needed, at least as many as the input had). Returns 0, or -1 when text
 * is not of that form or out is too small. */
int sj_datetime_add(const char *text, double seconds, char *out, size_t out_size);

#endif /* CONVOY_SIGMF_INTERNAL_H */
