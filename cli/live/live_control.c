/* live_control.c - signals and command lines of a running `convoy live`. */
#define _POSIX_C_SOURCE 200809L
#include "live_control.h"

#include "argparse.h" /* parse_double, parse_int64 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag, reload_flag;
static struct sigaction old_int, old_term, old_hup, old_pipe;
static int read_stdin;
static char line_buf[4096];
static size_t line_len;
static int line_overflow;
static live_ctl_server *ctl_server;

static void on_stop(int sig) {
  (void)sig;
  stop_flag = 1;
}

static void on_hup(int sig) {
  (void)sig;
  reload_flag = 1;
}

/* A signal ignored at start (nohup, a background job) stays ignored. */
static void catch (int sig, void (*handler)(int), struct sigaction *old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = handler;
  sigaction(sig, NULL, old);
  if (old->sa_handler != SIG_IGN) sigaction(sig, &sa, NULL);
}

void live_control_install(void) {
  catch (SIGINT, on_stop, &old_int);
  catch (SIGTERM, on_stop, &old_term);
  catch (SIGHUP, on_hup, &old_hup);
  /* A reader of the replies on stdout that went away is no reason to stop. */
  catch (SIGPIPE, SIG_IGN, &old_pipe);
  /* Reading a terminal from a background job would stop the process. */
  read_stdin = !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) == getpgrp();
}

void live_control_serve(live_ctl_server *server) {
  ctl_server = server;
}

void live_control_restore(void) {
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  sigaction(SIGPIPE, &old_pipe, NULL);
}

static void trim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
  size_t lead = strspn(s, " \t");
  memmove(s, s + lead, n - lead + 1);
}

static live_command bad(live_request *q, const char *what, const char *word) {
  snprintf(q->arg, sizeof q->arg, "%s: %s", word, what);
  return q->cmd = LIVE_CMD_BAD;
}

/* "mute", "mute N": N an output counted from 1. */
static live_command output_arg(live_request *q, live_command cmd, const char *word,
                               const char *rest) {
  int64_t n = 0;
  q->output = 0;
  if (!rest[0]) return q->cmd = cmd;
  if (parse_int64(rest, &n) != 0 || n < 1 || n > 1024) {
    snprintf(q->arg, sizeof q->arg, "%s: '%.100s' is not an output number (1, 2, ...)", word, rest);
    return q->cmd = LIVE_CMD_BAD;
  }
  q->output = (int32_t)n;
  return q->cmd = cmd;
}

static live_command gain_arg(live_request *q, const char *rest) {
  if (!rest[0]) return bad(q, "give the gain in dB, e.g. 'gain -6'", "gain");
  if (parse_double(rest, &q->gain_db) != 0) {
    snprintf(q->arg, sizeof q->arg, "gain: '%.100s' is not a number of dB", rest);
    return q->cmd = LIVE_CMD_BAD;
  }
  if (q->gain_db < -200 || q->gain_db > 60) {
    snprintf(q->arg, sizeof q->arg, "gain: %.100s dB is outside -200..60", rest);
    return q->cmd = LIVE_CMD_BAD;
  }
  return q->cmd = LIVE_CMD_GAIN;
}

live_command live_control_parse(char *line, live_request *q) {
  trim(line);
  q->arg[0] = '\0';
  if (!line[0]) return q->cmd = LIVE_CMD_NONE;
  /* The command word, then the rest of the line (a file name may hold blanks). */
  size_t w = strcspn(line, " \t");
  char word[16] = "";
  /* Not trimmed in place: an unknown line is reported as it was given. */
  char *rest = line + w + strspn(line + w, " \t");
  if (w < sizeof word) memcpy(word, line, w), word[w] = '\0';
  const int bare = !rest[0];
  if (strcmp(word, "reload") == 0)
    return bare ? (q->cmd = LIVE_CMD_RELOAD) : bad(q, "takes no argument", word);
  if (strcmp(word, "quit") == 0 || strcmp(word, "stop") == 0)
    return bare ? (q->cmd = LIVE_CMD_STOP) : bad(q, "takes no argument", word);
  if (strcmp(word, "stats") == 0)
    return bare ? (q->cmd = LIVE_CMD_STATS) : bad(q, "takes no argument", word);
  if (strcmp(word, "ir") == 0) {
    if (bare) return bad(q, "give the impulse response's file", word);
    snprintf(q->arg, sizeof q->arg, "%s", rest);
    return q->cmd = LIVE_CMD_IR;
  }
  if (strcmp(word, "gain") == 0) return gain_arg(q, rest);
  if (strcmp(word, "mute") == 0) return output_arg(q, LIVE_CMD_MUTE, word, rest);
  if (strcmp(word, "unmute") == 0) return output_arg(q, LIVE_CMD_UNMUTE, word, rest);
  snprintf(q->arg, sizeof q->arg, "%s", line);
  return q->cmd = LIVE_CMD_UNKNOWN;
}

/* A complete line already buffered from stdin, if any. */
static live_command take_line(live_request *q) {
  char *nl = memchr(line_buf, '\n', line_len);
  if (!nl) return LIVE_CMD_NONE;
  *nl = '\0';
  char line[sizeof line_buf];
  memcpy(line, line_buf, (size_t)(nl - line_buf) + 1);
  size_t rest = line_len - (size_t)(nl - line_buf) - 1;
  memmove(line_buf, nl + 1, rest);
  line_len = rest;
  q->from = LIVE_FROM_STDIN;
  if (line_overflow) { /* the tail of an over-long line */
    line_overflow = 0;
    snprintf(q->arg, sizeof q->arg, "(a line longer than %zu bytes)", sizeof line_buf - 1);
    return q->cmd = LIVE_CMD_UNKNOWN;
  }
  return live_control_parse(line, q);
}

/* A complete line already read from a control connection, if any. */
static live_command take_socket_line(live_request *q) {
  char line[LIVE_CTL_LINE];
  int client;
  while (ctl_server && live_ctl_server_next(ctl_server, line, sizeof line, &client)) {
    q->from = client;
    if (live_control_parse(line, q) != LIVE_CMD_NONE) return q->cmd;
    live_control_reply(q, "{\"ok\":false,\"error\":\"an empty command line\"}");
  }
  return LIVE_CMD_NONE;
}

/* Reads what stdin has; 0 when it ended (or failed). */
static int read_stdin_once(void) {
  if (line_len == sizeof line_buf - 1) { /* no newline in a full buffer */
    line_len = 0;
    line_overflow = 1;
  }
  ssize_t got = read(STDIN_FILENO, line_buf + line_len, sizeof line_buf - 1 - line_len);
  if (got < 0 && errno == EINTR) return 1;
  if (got <= 0) { /* end of stdin (or an error): commands are over */
    read_stdin = 0;
    /* A last line without newline, or the rest of an over-long one (none
     * left when its length was a multiple of the buffer's): still a line. */
    if (line_len > 0 || line_overflow) line_buf[line_len++] = '\n';
    return 0;
  }
  line_len += (size_t)got;
  return 1;
}

live_command live_control_wait(int timeout_ms, live_request *q) {
  for (;;) {
    q->from = LIVE_FROM_SIGNAL;
    q->arg[0] = '\0';
    if (stop_flag) return q->cmd = LIVE_CMD_STOP;
    if (reload_flag) {
      reload_flag = 0;
      return q->cmd = LIVE_CMD_RELOAD;
    }
    live_command c;
    while ((c = take_line(q)) == LIVE_CMD_NONE && memchr(line_buf, '\n', line_len))
      ;
    if (c != LIVE_CMD_NONE) return c;
    if ((c = take_socket_line(q)) != LIVE_CMD_NONE) return c;
    struct pollfd p[1 + 1 + LIVE_CTL_MAX_CLIENTS];
    p[0] = (struct pollfd){read_stdin ? STDIN_FILENO : -1, POLLIN, 0};
    int n = 1 + (ctl_server ? live_ctl_server_fds(ctl_server, p + 1, 1 + LIVE_CTL_MAX_CLIENTS) : 0);
    int ready = poll(p, (nfds_t)n, timeout_ms);
    if (ready < 0 && errno == EINTR) continue; /* a signal: look at the flags */
    if (ready <= 0) return q->cmd = LIVE_CMD_NONE;
    if (p[0].revents) read_stdin_once();
    if (ctl_server) live_ctl_server_service(ctl_server, p + 1, n - 1);
    timeout_ms = 0; /* a partial line: come back on the next wait */
  }
}

void live_control_reply(const live_request *q, const char *text) {
  if (q->from == LIVE_FROM_STDIN) {
    fprintf(stdout, "%s\n", text);
    fflush(stdout);
  } else if (q->from >= 0 && ctl_server) {
    live_ctl_server_reply(ctl_server, q->from, text);
  }
}
