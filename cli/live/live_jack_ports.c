/* live_jack_ports.c - connecting `convoy live`'s JACK ports. */
#ifdef CONVOY_HAVE_JACK
#include "live_jack_ports.h"

#include "diag.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Port names to connect, each way, in order; borrowed from jack_get_ports
 * lists, which stay alive until connect_all returns. */
typedef struct peer_list {
  const char **names;
  int32_t count, cap;
} peer_list;

static int push(peer_list *l, const char *name) {
  if (l->count == l->cap) return 0; /* more than the channels: the rest stay unconnected */
  l->names[l->count++] = name;
  return 1;
}

static convoy_status link_ports(jack_client_t *client, const char *src, const char *dst,
                                int verbose, char *err, size_t err_size) {
  int e = jack_connect(client, src, dst);
  if (e != 0 && e != EEXIST) {
    snprintf(err, err_size, "JACK could not connect %s to %s", src, dst);
    return CONVOY_ERR_BACKEND;
  }
  if (verbose) diag_notice("connected %s -> %s", src, dst);
  return CONVOY_OK;
}

/* Sources to in[], out[] to sinks. */
static convoy_status link_all(jack_client_t *client, jack_port_t *const *in,
                              jack_port_t *const *out, const peer_list *sources,
                              const peer_list *sinks, int verbose, char *err, size_t err_size) {
  convoy_status st = CONVOY_OK;
  for (int32_t k = 0; st == CONVOY_OK && k < sources->count; k++)
    st = link_ports(client, sources->names[k], jack_port_name(in[k]), verbose, err, err_size);
  for (int32_t k = 0; st == CONVOY_OK && k < sinks->count; k++)
    st = link_ports(client, jack_port_name(out[k]), sinks->names[k], verbose, err, err_size);
  return st;
}

/* The other clients' ports a pattern matches, sorted into sources and sinks;
 * the list is kept in lists[] for the caller to free. */
static convoy_status match(jack_client_t *client, const char *pattern, const char ***list,
                           peer_list *sources, peer_list *sinks, char *err, size_t err_size) {
  *list = jack_get_ports(client, pattern, JACK_DEFAULT_AUDIO_TYPE, 0);
  int found = 0;
  for (int i = 0; *list && (*list)[i]; i++) {
    jack_port_t *p = jack_port_by_name(client, (*list)[i]);
    if (!p || jack_port_is_mine(client, p)) continue;
    found = 1;
    if (jack_port_flags(p) & JackPortIsOutput)
      push(sources, (*list)[i]);
    else if (jack_port_flags(p) & JackPortIsInput)
      push(sinks, (*list)[i]);
  }
  if (found) return CONVOY_OK;
  snprintf(err, err_size,
           "--connect '%s': no audio port of another JACK client matches (jack_lsp lists them)",
           pattern);
  return CONVOY_ERR_INVALID_ARGUMENT;
}

convoy_status live_jack_ports_connect(jack_client_t *client, jack_port_t *const *in,
                                      jack_port_t *const *out, int32_t channels,
                                      const char *const *patterns, int n, int verbose, char *err,
                                      size_t err_size) {
  peer_list sources = {calloc((size_t)channels, sizeof(char *)), 0, channels};
  peer_list sinks = {calloc((size_t)channels, sizeof(char *)), 0, channels};
  const char **lists[64] = {NULL};
  const int n_lists = n > 0 ? n : 2;
  convoy_status st = sources.names && sinks.names ? CONVOY_OK : CONVOY_ERR_OUT_OF_MEMORY;
  if (st != CONVOY_OK) snprintf(err, err_size, "out of memory");
  if (st == CONVOY_OK && n == 0) {
    lists[0] = jack_get_ports(client, NULL, JACK_DEFAULT_AUDIO_TYPE,
                              JackPortIsPhysical | JackPortIsOutput);
    lists[1] =
        jack_get_ports(client, NULL, JACK_DEFAULT_AUDIO_TYPE, JackPortIsPhysical | JackPortIsInput);
    for (int i = 0; lists[0] && lists[0][i] && push(&sources, lists[0][i]); i++) {
    }
    for (int i = 0; lists[1] && lists[1][i] && push(&sinks, lists[1][i]); i++) {
    }
  }
  for (int k = 0; st == CONVOY_OK && k < n && k < 64; k++)
    st = match(client, patterns[k], &lists[k], &sources, &sinks, err, err_size);
  if (st == CONVOY_OK) st = link_all(client, in, out, &sources, &sinks, verbose, err, err_size);
  for (int k = 0; k < n_lists && k < 64; k++)
    if (lists[k]) jack_free(lists[k]);
  free(sources.names);
  free(sinks.names);
  return st;
}
#else
typedef int live_jack_ports_unused; /* no libjack: nothing to connect */
#endif
