/*
 * pass_warm.h - `convoy filter --skip N --count M` with a warm start: the
 * selection [N, N + M) of the input is filtered as part of the whole input,
 * so the output is bitwise the part of a run over the whole input that lies
 * there (convoy.h, "Exact ranges (warm start)").
 *
 * The stream is created with config.first_sample = N. The pass reads, before
 * the selection, the stream's convoy_stream_history_frames() frames and
 * gives them to convoy_stream_set_history(); after it, as many frames as the
 * output window's last frame needs to be exact: the window's end (the
 * selection's end, moved by --align, plus the ring-out with --tail) and the
 * engine's lookahead, cut short at the input's end. The window is counted in
 * selected frames, not in frames read. With --cold-start none of this
 * happens: the selection is filtered as a signal of its own, starting from
 * silence and ringing out after its last frame.
 */
#ifndef CONVOY_CLI_PASS_WARM_H
#define CONVOY_CLI_PASS_WARM_H

#include "convoy.h"

#include <stdint.h>

struct pass_window;

/* What a pass reads around its selection. A zeroed struct reads the input
 * as it comes: the cold start. */
typedef struct pass_warm {
  int64_t history;    /* frames read first, for convoy_stream_set_history; 0: none */
  int64_t read_limit; /* frames read after them at most; 0: to the input's end */
} pass_warm;

/* Plans a warm pass through stream (made with config.first_sample = skip)
 * over the selection [skip, skip + count) (count -1: to the input's end),
 * whose window w already holds the skip, tail and drop_end of the output:
 * sets w's count (with count >= 0) and *warm. Returns the first frame the
 * reader must deliver, skip - warm->history. */
int64_t pass_warm_plan(const convoy_stream *stream, int64_t skip, int64_t count,
                       struct pass_window *w, pass_warm *warm);

#endif /* CONVOY_CLI_PASS_WARM_H */
