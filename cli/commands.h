/*
 * commands.h - the subcommands of the convoy program and its exit statuses.
 *
 * main() dispatches `convoy NAME ARGS...` to cmd_NAME(argc, argv) with argv[0]
 * the command name ("filter", "design", ...) and argv[1..argc-1] its
 * arguments. Each returns the process exit status below. Errors are printed
 * by the command itself: one line on stderr starting "convoy: ".
 */
#ifndef CONVOY_CLI_COMMANDS_H
#define CONVOY_CLI_COMMANDS_H

/* Exit statuses, as sox uses them. */
enum {
  CLI_EXIT_OK = 0,    /* success (also --help) */
  CLI_EXIT_USAGE = 1, /* bad command line: unknown option, missing or bad value */
  CLI_EXIT_FAIL = 2   /* processing error: unreadable input, bad taps, I/O failure */
};

/* convoy filter IN OUT (--taps FILE | --ir FILE | --design SPEC) [options] */
int cmd_filter(int argc, char **argv);

/* convoy design SPEC [--rate HZ]: prints the taps as text. */
int cmd_design(int argc, char **argv);

/* convoy info: version, build features, engines, CPU threads, GPUs. */
int cmd_info(int argc, char **argv);

/* convoy bench [options]: engine throughput (cli/bench/cmd_bench.c). */
int cmd_bench(int argc, char **argv);

/* convoy live (--ir FILE | --taps FILE | --design SPEC | --config FILE) [options]:
 * real-time convolution between audio devices (cli/live/cmd_live.c; in a
 * build without PortAudio and libsamplerate, cli/main.c's, which says so). */
int cmd_live(int argc, char **argv);

/* convoy ctl PATH COMMAND...: a command to `convoy live --control PATH`,
 * its JSON reply printed (cli/live/cmd_ctl.c). */
int cmd_ctl(int argc, char **argv);

#endif /* CONVOY_CLI_COMMANDS_H */
