/*
 * live_jack_ports.h - which JACK ports `convoy live`'s ports are connected
 * to: the physical ones (as PortAudio's JACK host connects), the ones
 * --connect patterns match, or none (--no-connect). Main thread; JACK
 * builds only.
 */
#ifndef CONVOY_CLI_LIVE_JACK_PORTS_H
#define CONVOY_CLI_LIVE_JACK_PORTS_H

#include "convoy.h"

#include <jack/jack.h>
#include <stddef.h>
#include <stdint.h>

/* With n patterns (POSIX extended regexes, unanchored, as jack_lsp takes
 * them), the other clients' audio ports each matches, in pattern order:
 * the k-th output port among them feeds in[k], out[k] feeds the k-th input
 * port; a pattern that matches no port of another client is an error. With
 * none, the physical capture ports feed in[] and out[] feeds the physical
 * playback ports, in order, as far as both go. A connection that exists
 * already is fine. One line in err on failure. */
convoy_status live_jack_ports_connect(jack_client_t *client, jack_port_t *const *in,
                                      jack_port_t *const *out, int32_t channels,
                                      const char *const *patterns, int n, int verbose, char *err,
                                      size_t err_size);

#endif /* CONVOY_CLI_LIVE_JACK_PORTS_H */
