/*
 * live_timed.h - a call that may never return, given a time limit: closing
 * a connection to an audio server that stopped answering blocks for good.
 */
#ifndef CONVOY_CLI_LIVE_TIMED_H
#define CONVOY_CLI_LIVE_TIMED_H

/* Runs fn(arg) on a thread of its own and waits at most timeout_s seconds
 * for it. Returns 1 when it finished; 0 when the time ran out, fn going on
 * in the background: nothing it uses may be freed, and the caller should
 * end the process. Without a thread, fn runs here as long as it takes. One
 * call at a time. */
int live_timed_run(void (*fn)(void *), void *arg, double timeout_s);

#endif /* CONVOY_CLI_LIVE_TIMED_H */
