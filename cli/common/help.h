/*
 * help.h - the help texts of the convoy program, with worked examples.
 */
#ifndef CONVOY_CLI_HELP_H
#define CONVOY_CLI_HELP_H

#include <stdio.h>

void help_main(FILE *f);   /* convoy --help: commands and examples */
void help_filter(FILE *f); /* convoy filter --help */
void help_design(FILE *f); /* convoy design --help */
void help_info(FILE *f);   /* convoy info --help */

#endif /* CONVOY_CLI_HELP_H */
