/*
 * live_ctl_server.h - the control socket of `convoy live --control PATH`: a
 * UNIX-domain stream socket, mode 0600, on which clients (`convoy ctl`)
 * send command lines and get one reply line each. This part only moves
 * lines: live_control.c parses them, live_exec.c carries them out. Main
 * thread only.
 */
#ifndef CONVOY_CLI_LIVE_CTL_SERVER_H
#define CONVOY_CLI_LIVE_CTL_SERVER_H

#include "convoy.h"

#include <poll.h>
#include <stddef.h>

#define LIVE_CTL_MAX_CLIENTS 8 /* connections served at once */
#define LIVE_CTL_LINE 4096     /* longest command line, newline included */

typedef struct live_ctl_server live_ctl_server;

/* Listens at path. A socket there that a process answers on is refused
 * (another convoy live runs); one nobody answers on, left by a process that
 * ended without removing it, is removed first; any other file there is
 * refused. One line in err on failure. */
convoy_status live_ctl_server_open(live_ctl_server **s, const char *path, char *err,
                                   size_t err_size);

/* Closes the connections and the socket and removes the socket file, when
 * it is still this one. NULL-safe. */
void live_ctl_server_close(live_ctl_server *s);

/* Fills p with the descriptors to poll (POLLIN): the socket, then each
 * connection; returns how many (at most max). */
int live_ctl_server_fds(const live_ctl_server *s, struct pollfd *p, int max);

/* After poll() on those: accepts new connections and reads what the
 * connections sent (a line longer than LIVE_CTL_LINE is answered with an
 * error and its connection closed). */
void live_ctl_server_service(live_ctl_server *s, const struct pollfd *p, int n);

/* The next whole line a connection sent, without its newline, into line;
 * *client is the connection to answer. A connection that ended is closed
 * once its lines are taken (a last line without newline counts). Returns 0
 * when no line is waiting. */
int live_ctl_server_next(live_ctl_server *s, char *line, size_t size, int *client);

/* Sends text and a newline to connection client; a connection that does
 * not take it within a second is closed. */
void live_ctl_server_reply(live_ctl_server *s, int client, const char *text);

#endif /* CONVOY_CLI_LIVE_CTL_SERVER_H */
