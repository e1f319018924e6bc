/* main.c - `convoy COMMAND ...`: dispatch to the subcommands. */
#include "commands.h"
#include "convoy.h"
#include "diag.h"
#include "engine_names.h"
#include "help.h"
#ifdef CONVOY_HAVE_LIVE
#include "live_help.h"
#else
#define help_live NULL
#define help_ctl NULL
#endif

#include <stdio.h>
#include <string.h>

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  void (*help)(FILE *f); /* NULL: the command prints its own with --help */
} command;

static const command commands[] = {
    {"filter", cmd_filter, help_filter}, {"design", cmd_design, help_design},
    {"info", cmd_info, help_info},       {"bench", cmd_bench, NULL},
    {"live", cmd_live, help_live},       {"ctl", cmd_ctl, help_ctl}};

#ifndef CONVOY_HAVE_LIVE
/* A build without PortAudio and libsamplerate leaves cli/live/ out; the
 * command is still known, to say so. */
int cmd_live(int argc, char **argv) {
  (void)argc, (void)argv;
  diag_error("live: this build has no live audio (built without PortAudio and libsamplerate)");
  return CLI_EXIT_FAIL;
}

/* `convoy ctl` is built with `convoy live` (cli/live/cmd_ctl.c). */
int cmd_ctl(int argc, char **argv) {
  (void)argc, (void)argv;
  diag_error("ctl: this build has no live audio (built without PortAudio and libsamplerate)");
  return CLI_EXIT_FAIL;
}
#endif

static const command *find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

static int help_command(int argc, char **argv) {
  if (argc < 2) {
    help_main(stdout);
    return CLI_EXIT_OK;
  }
  /* Not in the help: the engine names one per line, for the shell
   * completion (completion/convoy.bash), so that it names no engine itself. */
  if (strcmp(argv[1], "--list-engines") == 0 || strcmp(argv[1], "--list-engines=choices") == 0) {
    engine_names_list(stdout, argv[1][14] ? ENGINE_NAMES_CHOICES : ENGINE_NAMES_ALL);
    return CLI_EXIT_OK;
  }
  const command *c = find(argv[1]);
  if (!c) {
    diag_error("help: unknown command '%s' (see 'convoy --help')", argv[1]);
    return CLI_EXIT_USAGE;
  }
  if (c->help) {
    c->help(stdout);
    return CLI_EXIT_OK;
  }
  char *args[] = {argv[1], "--help", NULL};
  return c->run(2, args);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    diag_error(
        "no command given (commands: filter, design, info, bench, live, ctl; see 'convoy --help')");
    return CLI_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
    printf("convoy %s\n", convoy_version());
    return CLI_EXIT_OK;
  }
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0)
    return help_command(argc - 1, argv + 1);
  const command *c = find(name);
  if (!c) {
    diag_error("unknown command '%s' (commands: filter, design, info, bench, live, ctl; see "
               "'convoy --help')",
               name);
    return CLI_EXIT_USAGE;
  }
  return c->run(argc - 1, argv + 1);
}
