/*
 * argparse.h - a small command-line scanner for the subcommands, in the
 * style users know from sox and ffmpeg's GNU tools: long options as
 * "--name VALUE" or "--name=VALUE", short flags that may be grouped ("-qy"),
 * "-" as an ordinary argument (stdin/stdout), "--" ends the options.
 * Options may appear before, between or after the positional arguments.
 */
#ifndef CONVOY_CLI_ARGPARSE_H
#define CONVOY_CLI_ARGPARSE_H

#include <stdint.h>

typedef enum arg_kind {
  ARG_NONE = 0,     /* a flag */
  ARG_REQUIRED = 1, /* "--name VALUE" or "--name=VALUE"; the value may start with '-' */
  ARG_OPTIONAL = 2  /* "--name" or "--name=VALUE" only */
} arg_kind;

typedef struct arg_option {
  const char *name; /* long name without "--"; NULL ends the table */
  char short_name;  /* 0 when none; short options take no value */
  arg_kind kind;
  int id; /* returned by arg_next; must be > 0 */
} arg_option;

enum {
  ARG_END = 0,         /* no more arguments */
  ARG_POSITIONAL = -1, /* *value is a positional argument */
  ARG_ERROR = -2       /* a usage error was printed */
};

typedef struct arg_parser {
  int argc;
  char **argv;
  int index;          /* next argv element */
  const char *shorts; /* rest of a group of short flags, or NULL */
  const arg_option *opts;
  const char *cmd;     /* command name for messages */
  int only_positional; /* after "--" */
  const char *current; /* spelling of the option just returned, e.g. "--gain" */
  char current_buf[64];
} arg_parser;

/* Scans argv[1..argc-1] (argv[0] is the command name, used in messages). */
void arg_init(arg_parser *p, int argc, char **argv, const arg_option *opts);

/* Next option id, ARG_POSITIONAL, ARG_END or ARG_ERROR. *value is the
 * option's value (NULL for a flag or an absent optional value) or the
 * positional argument. Errors are printed with diag_usage. */
int arg_next(arg_parser *p, const char **value);

/* Strict number parsing of an option's value: the whole string must be a
 * finite number. On failure prints a usage error naming p->current and
 * returns -1. */
int arg_double(const arg_parser *p, const char *text, double *v);
/* An integer in [lo, hi]. */
int arg_int64(const arg_parser *p, const char *text, int64_t lo, int64_t hi, int64_t *v);

/* A comma-separated list as an option's value ("--taps 16,128,1024"): item()
 * is called for each non-empty element with ctx, and returns 0 or a usage
 * exit status (having printed the message). Returns 0, item's status, or a
 * usage error (printed) for an empty or overlong list. */
int arg_list(const arg_parser *p, const char *text,
             int (*item)(const arg_parser *p, const char *element, void *ctx), void *ctx);

/* The same checks without a parser: 0 on success, -1 otherwise; nothing printed. */
int parse_double(const char *text, double *v);
int parse_int64(const char *text, int64_t *v);

#endif /* CONVOY_CLI_ARGPARSE_H */
