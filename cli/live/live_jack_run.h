/*
 * live_jack_run.h - `convoy live` on its native JACK backend: choosing it
 * (--backend, or auto: JACK when a server answers), starting the client at
 * the server's rate and period, and following the server while running:
 * a new period rebuilds the convolver off the audio thread and hands it
 * over, a new rate refits the responses (or stops when one no longer
 * matches and --resample-ir is not given), a server shutdown stops.
 */
#ifndef CONVOY_CLI_LIVE_JACK_RUN_H
#define CONVOY_CLI_LIVE_JACK_RUN_H

#include "live_run.h"
#include "live_setup.h"

/* Sets r->backend from --backend and what runs, opening r->jack for JACK:
 * auto is JACK when neither --in nor --out is given and a JACK server
 * answers. Returns CLI_EXIT_OK, or CLI_EXIT_FAIL after one line when JACK
 * is required (--backend jack, --connect, --no-connect) and none answers. */
int live_jack_run_choose(live_run *r);

/* From the loaded setup s: the format (the server's rate and period; a
 * --rate, --block or config value that differs is an error naming both),
 * the routes, the convolver, the ports, activation and connections. On
 * success s is kept in r->reload. Prints one line on failure and returns
 * its exit status. */
int live_jack_run_start(live_run *r, live_setup *s);

/* Once per turn of the main loop: follows a new period or rate. Returns
 * CLI_EXIT_OK, or CLI_EXIT_FAIL after one line when the server ended or a
 * change cannot be followed. */
int live_jack_run_follow(live_run *r);

#endif /* CONVOY_CLI_LIVE_JACK_RUN_H */
