/*
 * argparse.h - a small command-line scanner for the subcommands, in the
 * style users know from sox and ffmpeg's GNU tools: long options as
 * "--name VALUE" or "--name=VALUE", short flags that may be grouped ("-qy"),
 * "-" as an ordinary argument (stdin/stdout), "--" ends the options.
 * Options may appear before, between or after the positional arguments.
 */
#ifndef CONVOY_CLI_ARGPARSE_H
#define CONVOY_CLI_ARGPARSE_H

#include <stddef.h>
#include <stdint.h>

typedef enum arg_kind {
  ARG_NONE = 0,     /* a flag */
  ARG_REQUIRED = 1, /* "--name VALUE" or "--name=VALUE"; the value may start with '-' */
  ARG_OPTIONAL = 2  /* "--name" or "--name=VALUE" only */
} arg_kind;

/* What arg_parse() does with an option itself, without the command's
 * handler: the table says where the value goes (offset into the target the
 * command passes). */
typedef enum arg_store {
  ARG_STORE_NONE = 0, /* the command's handler takes the option */
  ARG_STORE_FLAG,     /* int at offset = value */
  ARG_STORE_STRING,   /* const char * at offset = the option's value */
  ARG_STORE_DOUBLE    /* double at offset = the value, parsed by arg_double() */
} arg_store;

typedef struct arg_option {
  const char *name; /* long name without "--"; NULL ends the table */
  char short_name;  /* 0 when none; short options take no value */
  arg_kind kind;
  int id;          /* returned by arg_next; must be > 0 */
  arg_store store; /* ARG_STORE_NONE: id goes to the handler */
  size_t offset;   /* where a stored value goes in the target */
  int value;       /* what ARG_STORE_FLAG stores */
} arg_option;

/* The id of options arg_parse() stores itself. */
#define ARG_ID_STORED 0x7fffffff

/* Table entries stored into a field of struct type T. */
#define ARG_FLAG(name, short_name, T, field, value)                                                \
  { name, short_name, ARG_NONE, ARG_ID_STORED, ARG_STORE_FLAG, offsetof(T, field), value }
#define ARG_STRING(name, T, field)                                                                 \
  { name, 0, ARG_REQUIRED, ARG_ID_STORED, ARG_STORE_STRING, offsetof(T, field), 0 }
#define ARG_DOUBLE(name, T, field)                                                                 \
  { name, 0, ARG_REQUIRED, ARG_ID_STORED, ARG_STORE_DOUBLE, offsetof(T, field), 0 }
#define ARG_TABLE_END                                                                              \
  { NULL, 0, ARG_NONE, 0, ARG_STORE_NONE, 0, 0 }

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
  const char *cmd;           /* command name for messages */
  int only_positional;       /* after "--" */
  const char *current;       /* spelling of the option just returned, e.g. "--gain" */
  const arg_option *matched; /* its table entry */
  char current_buf[64];
} arg_parser;

/* Scans argv[1..argc-1] (argv[0] is the command name, used in messages). */
void arg_init(arg_parser *p, int argc, char **argv, const arg_option *opts);

/* Next option id, ARG_POSITIONAL, ARG_END or ARG_ERROR. *value is the
 * option's value (NULL for a flag or an absent optional value) or the
 * positional argument. Errors are printed with diag_usage. */
int arg_next(arg_parser *p, const char **value);

/* Handles one option (id > 0, value as arg_next gives it) or positional
 * argument (id ARG_POSITIONAL) for arg_parse(); returns 0 to go on, or a
 * status to stop with (an exit status, having printed any message). */
typedef int (*arg_handler)(arg_parser *p, int id, const char *value, void *target);

/* The scanning loop of every command: stores the table's stored options into
 * target, hands the others and the positional arguments to handle, and
 * stops at the end of the arguments, at a usage error (CLI_EXIT_USAGE), at
 * the first nonzero status of handle, or, when stop is not NULL, as soon as
 * *stop is nonzero after an option (--help). Returns 0 or that status. */
int arg_parse(arg_parser *p, void *target, arg_handler handle, const int *stop);

/* Strict number parsing of an option's value: the whole string must be a
 * finite number. On failure prints a usage error naming p->current and
 * returns -1. */
int arg_double(const arg_parser *p, const char *text, double *v);
/* An integer in [lo, hi]. */
int arg_int64(const arg_parser *p, const char *text, int64_t lo, int64_t hi, int64_t *v);
/* A filter design spec (convoy_design_parse_spec): its syntax, its keys and
 * every range that holds at any sample rate, checked before any file is
 * opened, so that a spec that cannot be right is a usage error. */
int arg_design_spec(const arg_parser *p, const char *text);

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
