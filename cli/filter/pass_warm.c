/* pass_warm.c - the reads around a warm-start selection (pass_warm.h). */
#include "pass_warm.h"

#include "pass_loop.h"

int64_t pass_warm_plan(const convoy_stream *stream, int64_t skip, int64_t count, pass_window *w,
                       pass_warm *warm) {
  warm->history = convoy_stream_history_frames(stream);
  warm->read_limit = 0;
  w->has_count = count >= 0;
  w->count = count;
  if (count >= 0) {
    /* The window's end in the stream's output frames (the filter output
     * y[skip + i] is output frame i), then in input frames from skip. */
    const int64_t taps = convoy_stream_taps(stream);
    int64_t end = (w->tail ? count + taps - 1 : w->skip + count) - w->drop_end;
    if (end < 0) end = 0;
    warm->read_limit = end + convoy_stream_lookahead_frames(stream, skip + end);
  }
  return skip - warm->history;
}
