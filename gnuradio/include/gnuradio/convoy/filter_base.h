/*
 * filter_base.h - what every convoy block shares: the engine that runs, its
 * plan, the decimation and the tag that switches taps.
 */
#ifndef INCLUDED_CONVOY_GR_FILTER_BASE_H
#define INCLUDED_CONVOY_GR_FILTER_BASE_H

#include <gnuradio/block.h>
#include <gnuradio/convoy/api.h>

#include <string>

namespace gr {
namespace convoy {

/*!
 * \brief The part of every convoy block's interface that is not about taps.
 * \ingroup convoy
 *
 * Every convoy block filters one stream through a convoy_stream (libconvoy):
 * output item n is
 *
 *     y[n D] = sum_k h[k] x[n D - k]
 *
 * counted from the first input item (x is zero before it), the same
 * alignment as GNU Radio's fir_filter_xxx: with D = 1 the output is
 * numpy.convolve(x, h)[:len(x)], and an input of N items gives floor(N / D)
 * outputs. A tag on input item k goes to output round(k / D), as GNU Radio
 * moves tags through its decimators (no sample delay is declared, as
 * fir_filter declares none).
 *
 * The block is a gr::block of fixed rate 1/D rather than a sync_decimator:
 * convoy's FFT and GPU engines hold back up to a block of input before they
 * return its output, so an output may come a call later than its input.
 * Nothing is lost: when the upstream ends, the held-back outputs are
 * written before the block reports done. The output does not depend on how
 * the scheduler cuts the stream (convoy streams are bitwise
 * chunk-invariant).
 *
 * Changing taps while running (set_taps(), and set_center_freq() or
 * set_template() where the block has them) takes effect at an input item
 * A, a multiple of D, at the start of the next call to the block: a new
 * convoy stream is primed with the ntaps - 1 input items before A, so that
 * output A / D on is the new filter over the whole history, as GNU Radio's
 * filters do on set_taps(). Output A / D carries a tag "convoy_taps" (value:
 * the new number of taps) when the taps changed; the frequency-translating
 * blocks also tag it "freq" (the center frequency), as GNU Radio's
 * freq_xlating_fir_filter does. Taps longer than any the block has had
 * switch at A too, primed from the input GNU Radio keeps before each call
 * (65,536 items); taps longer than 65,537 take effect once the block has
 * kept ntaps - 1 input items.
 *
 * With a tag key (constructor argument tag_key, "" for none), a tag of that
 * key on input item k whose value is a vector of numbers switches to those
 * taps (the template, for matched_filter_cc) at A = k rounded up to a
 * multiple of D: output A / D is the first one computed with them. On the
 * frequency-translating blocks a tag whose value is a number sets the
 * center frequency (Hz) there.
 */
class CONVOY_GR_API filter_base : virtual public gr::block {
public:
  typedef std::shared_ptr<filter_base> sptr;

  /*! The engine that runs now: "cpu-direct", "cpu-fft", "gpu-direct" or "gpu-fft". */
  virtual std::string engine() const = 0;

  /*! convoy_stream_describe() of the stream that runs now: engine, FFT size,
   *  block, threads. */
  virtual std::string describe() const = 0;

  /*! The decimation D given at construction. */
  virtual int decimation() const = 0;

  /*! Input items the engine may hold back before their output comes
   *  (convoy_stream_latency(): 0 for cpu-direct). */
  virtual long latency() const = 0;
};

} // namespace convoy
} // namespace gr

#endif /* INCLUDED_CONVOY_GR_FILTER_BASE_H */
