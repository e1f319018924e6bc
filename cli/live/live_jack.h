/*
 * live_jack.h - `convoy live`'s native JACK backend: a JACK client of its
 * own whose process callback runs the convolver in JACK's thread, one call
 * per period of exactly the server's size (no adaptation buffer), with
 * ports in_1.. and out_1.., its latency (none added) reported to JACK, and
 * the server's period, rate and shutdown followed.
 *
 * Callbacks: process (the audio thread: no allocation, no lock, no
 * blocking call; live_engine_run), and on JACK's other thread buffer size,
 * sample rate, xrun, latency and shutdown, which only store what they
 * learn (atomics) for the main thread. Everything here but the callbacks is
 * for the main thread. Without libjack at build time live_jack_open fails
 * saying so.
 */
#ifndef CONVOY_CLI_LIVE_JACK_H
#define CONVOY_CLI_LIVE_JACK_H

#include "convoy.h"
#include "live_callback.h"

#include <stddef.h>
#include <stdint.h>

typedef struct live_jack live_jack;

/* Opens a client of the JACK server that runs (JACK_DEFAULT_SERVER's, else
 * the default one) without starting a server; name NULL is "convoy" (the
 * server adds a suffix when the name is taken). libjack's own messages go
 * to stderr only when verbose. NULL with the reason in err when no server
 * answers. */
live_jack *live_jack_open(const char *name, int verbose, char *err, size_t err_size);

/* The client's name as the server has it. */
const char *live_jack_name(const live_jack *j);

/* The server's sample rate and period (frames), as last announced. */
int32_t live_jack_rate(const live_jack *j);
int32_t live_jack_period(const live_jack *j);

/* Registers e->channels ports each way (in_1.., out_1..), sets the
 * callbacks and activates the client: from then on the process callback
 * runs e's convolver (live_engine_take) every period. A period whose size
 * is not a multiple of the convolver's block is output as silence and
 * counted (live_jack_idle) until the main thread hands over a convolver of
 * the new size. */
convoy_status live_jack_start(live_jack *j, live_engine *e, char *err, size_t err_size);

/* Connects the ports (after live_jack_start): with patterns (n > 0), to the
 * other clients' ports they match (regexes as jack_lsp takes them): the
 * k-th matching output port feeds in_k, out_k feeds the k-th matching
 * input port; with none, nothing; otherwise to the physical capture and
 * playback ports in order. A pattern that matches no port is an error.
 * Prints each connection with verbose. */
convoy_status live_jack_connect(live_jack *j, const char *const *patterns, int n, int none,
                                int verbose, char *err, size_t err_size);

/* The latency around convoy, frames: JACK's capture latency of the inputs
 * plus the playback latency of the outputs (the largest of each, as the
 * connected ports report it; 0 when unconnected). convoy adds none. */
int64_t live_jack_latency(const live_jack *j);

/* Periods output as silence while the convolver's block did not fit them. */
int64_t live_jack_idle(const live_jack *j);

/* NULL while the server runs the client; once it shut down or dropped the
 * client, its reason. */
const char *live_jack_ended(const live_jack *j);

/* Deactivates and closes the client (NULL: nothing), waiting at most
 * timeout_s seconds. Returns 1 when done (j freed); 0 when the server did
 * not answer in time: the callbacks may still run, so nothing they use
 * may be freed and the caller should end the process. */
int live_jack_close(live_jack *j, double timeout_s);

#endif /* CONVOY_CLI_LIVE_JACK_H */
