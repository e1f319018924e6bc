/*
 * bench_live.h - `convoy bench --live`: the real-time convolver of
 * convoy_rt.h at a simulated real-time pace, with no audio device, over
 * block sizes, impulse response lengths and channel counts.
 */
#ifndef CONVOY_BENCH_LIVE_H
#define CONVOY_BENCH_LIVE_H

/* 1 when the arguments of `convoy bench` (argv[0] "bench") ask for --live
 * (before any "--"). */
int bench_live_requested(int argc, char **argv);

/* Runs `convoy bench --live [options]` with cmd_bench's argv; prints to
 * stdout (errors to stderr) and returns the exit status (CLI_EXIT_*). */
int bench_live_main(int argc, char **argv);

#endif /* CONVOY_BENCH_LIVE_H */
