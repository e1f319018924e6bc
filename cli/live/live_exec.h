/*
 * live_exec.h - carrying out the commands of a running `convoy live` (from
 * stdin, the control socket or a signal; live_control.h parses them) and
 * answering each with one line of JSON: {"ok":true,...} or
 * {"ok":false,"error":"..."}. A command that fails changes nothing. Gain,
 * mute and impulse response changes crossfade over one block. Main thread.
 */
#ifndef CONVOY_CLI_LIVE_EXEC_H
#define CONVOY_CLI_LIVE_EXEC_H

#include "live_control.h"
#include "live_run.h"

/* Carries out q (not LIVE_CMD_NONE) and replies. Returns 1 when the run
 * should stop (quit, or a stop signal). */
int live_exec(live_run *r, const live_request *q);

#endif /* CONVOY_CLI_LIVE_EXEC_H */
