/*
 * live_help.h - the help text of `convoy live`.
 */
#ifndef CONVOY_CLI_LIVE_HELP_H
#define CONVOY_CLI_LIVE_HELP_H

#include <stdio.h>

void help_live(FILE *f); /* convoy live --help */
void help_ctl(FILE *f);  /* convoy ctl --help */

#endif /* CONVOY_CLI_LIVE_HELP_H */
