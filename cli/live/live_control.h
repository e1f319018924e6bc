/*
 * live_control.h - how a running `convoy live` is told what to do: SIGINT
 * and SIGTERM stop it, SIGHUP reloads the impulse responses, and command
 * lines, on stdin and on the control socket (--control, live_ctl_server.h),
 * read by one parser:
 *   reload      load the same files again (after editing them)
 *   ir FILE     switch to the impulse response in FILE (as --ir FILE)
 *   gain DB     set the gain of every route to DB decibels (as --gain)
 *   mute [N]    silence output N (counted from 1), or every output
 *   unmute [N]  undo mute
 *   stats       figures since the last stats
 *   quit        stop (as Ctrl-C)
 * The signal handlers only set flags; everything happens on the main thread.
 */
#ifndef CONVOY_CLI_LIVE_CONTROL_H
#define CONVOY_CLI_LIVE_CONTROL_H

#include "live_ctl_server.h"

#include <stdint.h>

typedef enum live_command {
  LIVE_CMD_NONE = 0, /* timeout: nothing to do */
  LIVE_CMD_STOP,     /* SIGINT, SIGTERM, "quit" */
  LIVE_CMD_RELOAD,   /* SIGHUP, "reload" */
  LIVE_CMD_IR,       /* "ir FILE": the file in arg */
  LIVE_CMD_UNKNOWN,  /* a line that is none of these: the line in arg */
  LIVE_CMD_GAIN,     /* "gain DB": gain_db */
  LIVE_CMD_MUTE,     /* "mute [N]": output */
  LIVE_CMD_UNMUTE,   /* "unmute [N]": output */
  LIVE_CMD_STATS,    /* "stats" */
  LIVE_CMD_BAD       /* a command with a wrong argument: what is wrong in arg */
} live_command;

/* Where a request came from, and so where its reply goes. */
enum { LIVE_FROM_SIGNAL = -2, LIVE_FROM_STDIN = -1 /* >= 0: a control connection */ };

typedef struct live_request {
  live_command cmd;
  int from;       /* LIVE_FROM_SIGNAL, LIVE_FROM_STDIN or a control connection */
  double gain_db; /* LIVE_CMD_GAIN: -200 .. 60, as --gain */
  int32_t output; /* LIVE_CMD_MUTE, LIVE_CMD_UNMUTE: counted from 1; 0 = every output */
  char arg[4096]; /* LIVE_CMD_IR: the file; LIVE_CMD_UNKNOWN: the line; LIVE_CMD_BAD: why */
} live_request;

/* The command words, for messages: "gain DB, mute [N], ...". */
#define LIVE_COMMANDS "gain DB, mute [N], unmute [N], ir FILE, reload, stats, quit"

/* Parses one command line (trimmed in place) into q (not q->from); a blank
 * line is LIVE_CMD_NONE. */
live_command live_control_parse(char *line, live_request *q);

/* Installs the handlers (no SA_RESTART, so a wait ends at once; a signal
 * ignored at the time, as under nohup, stays ignored) and starts
 * reading stdin unless it is a terminal this process does not own (a
 * background job). Main thread, once. */
void live_control_install(void);

/* From now on, also reads the command lines of server's connections
 * (NULL: none). */
void live_control_serve(live_ctl_server *server);

/* Puts back the signal dispositions found at install. */
void live_control_restore(void);

/* Waits up to timeout_ms for a signal or a command line on stdin or the
 * control socket, and returns it parsed in q. A stop request is reported
 * before anything else; the end of stdin is not a command (stdin is then no
 * longer read). */
live_command live_control_wait(int timeout_ms, live_request *q);

/* Answers q with one line of text: to its control connection, or on
 * stdout for stdin; a signal gets none. */
void live_control_reply(const live_request *q, const char *text);

#endif /* CONVOY_CLI_LIVE_CONTROL_H */
