/*
 * live_control.h - how a running `convoy live` is told what to do: SIGINT
 * and SIGTERM stop it, SIGHUP reloads the impulse responses, and lines on
 * stdin:
 *   reload      load the same files again (after editing them)
 *   ir FILE     switch to the impulse response in FILE (as --ir FILE)
 *   quit        stop (as Ctrl-C)
 * The signal handlers only set flags; everything happens on the main thread.
 */
#ifndef CONVOY_CLI_LIVE_CONTROL_H
#define CONVOY_CLI_LIVE_CONTROL_H

typedef enum live_command {
  LIVE_CMD_NONE = 0, /* timeout: nothing to do */
  LIVE_CMD_STOP,     /* SIGINT, SIGTERM, "quit" */
  LIVE_CMD_RELOAD,   /* SIGHUP, "reload" */
  LIVE_CMD_IR,       /* "ir FILE": the file in arg */
  LIVE_CMD_UNKNOWN   /* a line that is none of these: the line in arg */
} live_command;

/* Installs the handlers (no SA_RESTART, so a wait ends at once; a signal
 * ignored at the time, as under nohup, stays ignored) and starts
 * reading stdin unless it is a terminal this process does not own (a
 * background job). Main thread, once. */
void live_control_install(void);

/* Puts back the signal dispositions found at install. */
void live_control_restore(void);

/* Waits up to timeout_ms for a signal or a line on stdin. With
 * LIVE_CMD_IR or LIVE_CMD_UNKNOWN, arg (arg_size bytes) receives the file
 * or the line. A stop request is reported before anything else; the end of
 * stdin is not a command (stdin is then no longer read). */
live_command live_control_wait(int timeout_ms, char *arg, unsigned arg_size);

#endif /* CONVOY_CLI_LIVE_CONTROL_H */
