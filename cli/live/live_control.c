/* live_control.c - signals and stdin commands of a running `convoy live`. */
#define _POSIX_C_SOURCE 200809L
#include "live_control.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag, reload_flag;
static struct sigaction old_int, old_term, old_hup;
static int read_stdin;
static char line_buf[4096];
static size_t line_len;
static int line_overflow;

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
  /* Reading a terminal from a background job would stop the process. */
  read_stdin = !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) == getpgrp();
}

void live_control_restore(void) {
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
}

static void trim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
  size_t lead = strspn(s, " \t");
  memmove(s, s + lead, n - lead + 1);
}

static live_command parse(char *line, char *arg, unsigned arg_size) {
  trim(line);
  if (!line[0]) return LIVE_CMD_NONE;
  if (strcmp(line, "reload") == 0) return LIVE_CMD_RELOAD;
  if (strcmp(line, "quit") == 0 || strcmp(line, "stop") == 0) return LIVE_CMD_STOP;
  if (strncmp(line, "ir ", 3) == 0 || strncmp(line, "ir\t", 3) == 0) {
    char *file = line + 3;
    trim(file);
    if (file[0]) {
      snprintf(arg, arg_size, "%s", file);
      return LIVE_CMD_IR;
    }
  }
  snprintf(arg, arg_size, "%s", line);
  return LIVE_CMD_UNKNOWN;
}

/* A complete line already buffered, if any. */
static live_command take_line(char *arg, unsigned arg_size) {
  char *nl = memchr(line_buf, '\n', line_len);
  if (!nl) return LIVE_CMD_NONE;
  *nl = '\0';
  char line[sizeof line_buf];
  memcpy(line, line_buf, (size_t)(nl - line_buf) + 1);
  size_t rest = line_len - (size_t)(nl - line_buf) - 1;
  memmove(line_buf, nl + 1, rest);
  line_len = rest;
  if (line_overflow) { /* the tail of an over-long line */
    line_overflow = 0;
    snprintf(arg, arg_size, "(a line longer than %zu bytes)", sizeof line_buf - 1);
    return LIVE_CMD_UNKNOWN;
  }
  live_command c = parse(line, arg, arg_size);
  return c;
}

live_command live_control_wait(int timeout_ms, char *arg, unsigned arg_size) {
  for (;;) {
    if (stop_flag) return LIVE_CMD_STOP;
    if (reload_flag) {
      reload_flag = 0;
      return LIVE_CMD_RELOAD;
    }
    live_command c;
    while ((c = take_line(arg, arg_size)) == LIVE_CMD_NONE && memchr(line_buf, '\n', line_len))
      ;
    if (c != LIVE_CMD_NONE) return c;
    struct pollfd p = {STDIN_FILENO, POLLIN, 0};
    int n = poll(&p, read_stdin ? 1 : 0, timeout_ms);
    if (n < 0 && errno == EINTR) continue; /* a signal: look at the flags */
    if (n <= 0) return LIVE_CMD_NONE;
    if (line_len == sizeof line_buf - 1) { /* no newline in a full buffer */
      line_len = 0;
      line_overflow = 1;
    }
    ssize_t got = read(STDIN_FILENO, line_buf + line_len, sizeof line_buf - 1 - line_len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) { /* end of stdin (or an error): commands are over */
      read_stdin = 0;
      /* A last line without newline, or the rest of an over-long one (none
       * left when its length was a multiple of the buffer's): still a line. */
      if (line_len > 0 || line_overflow) line_buf[line_len++] = '\n';
      continue;
    }
    line_len += (size_t)got;
    timeout_ms = 0; /* a partial line: come back on the next wait */
  }
}
