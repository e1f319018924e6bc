/*
 * audio_split.h - `convoy filter` on an audio file cut into contiguous
 * ranges (cli/scale/split_plan.h) filtered at once: one pipeline per GPU of
 * --devices on threads of this process, and one set per rank of an MPI
 * job. Each range opens IN itself, starts its stream warm and writes its
 * frames in place into OUT's temporary (io/audio_part.h); rank 0 writes the
 * header last, with the whole length and the ranges' peaks, and puts OUT in
 * place. The file is bitwise what one process writes.
 *
 * IN must be a file (not stdin), OUT a WAV, RF64 or W64 file of PCM or
 * float samples; --normalize (two passes over IN) runs in one process.
 */
#ifndef CONVOY_CLI_AUDIO_SPLIT_H
#define CONVOY_CLI_AUDIO_SPLIT_H

#include "filter_job.h"

/* Runs the job split (j->opt, names and engine set; nothing opened). Prints
 * the summary (rank 0) or one error line; returns a CLI_EXIT_* status that
 * every rank shares, with nothing left at OUT on failure. */
int audio_split_run(filter_job *j);

#endif /* CONVOY_CLI_AUDIO_SPLIT_H */
