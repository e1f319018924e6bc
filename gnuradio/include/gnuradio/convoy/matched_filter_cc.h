/*
 * matched_filter_cc.h - correlation with a template (matched filter, pulse
 * compression) on convoy's engines.
 */
#ifndef INCLUDED_CONVOY_GR_MATCHED_FILTER_CC_H
#define INCLUDED_CONVOY_GR_MATCHED_FILTER_CC_H

#include <gnuradio/convoy/api.h>
#include <gnuradio/convoy/filter_base.h>
#include <gnuradio/gr_complex.h>

#include <string>
#include <vector>

namespace gr {
namespace convoy {

/*!
 * \brief Streaming matched filter: the input correlated with a complex
 * template, through libconvoy.
 * \ingroup convoy
 *
 * The template w (T samples) is weighted by the window and, with
 * normalize, scaled to unit energy (sum |w|^2 = 1), as `convoy filter
 * --matched --window ... --normalize-template` and convoy_pulse do; the
 * block then filters with h[k] = conj(w[T - 1 - k]), so that
 *
 *     out[n] = full[n D],  full[m] = sum_j conj(w[j]) x[m - (T - 1) + j],
 *
 * numpy.correlate(x, w, "full")[:len(x)] for D = 1: the "full" alignment.
 * An occurrence of the template starting at input item d peaks at
 * full[d + T - 1], i.e. T - 1 items after its start (a tag on its first
 * item lands T - 1 items before the peak).
 */
class CONVOY_GR_API matched_filter_cc : virtual public filter_base {
public:
  typedef std::shared_ptr<matched_filter_cc> sptr;

  /*!
   * \param waveform the template, at least one sample, finite.
   * \param window "none", "hamming", "hann" (or "hanning"), "kaiser" or
   *        "kaiser:beta=B" (beta 8.6 by default): numpy's symmetric
   *        windows of T points.
   * \param normalize scale the windowed template to unit energy.
   * \param decimation D, 1 .. 4096.
   * \param engine, device, tag_key, nthreads as fir_filter_ccf; a tag of
   *        tag_key carries a new template (windowed and normalised alike).
   */
  static sptr make(const std::vector<gr_complex> &waveform, const std::string &window = "none",
                   bool normalize = false, int decimation = 1, const std::string &engine = "auto",
                   int device = -1, const std::string &tag_key = "", int nthreads = 1);

  /*! A new template (same window and normalisation), from the start of the
   *  next call; tagged "convoy_taps". */
  virtual void set_template(const std::vector<gr_complex> &waveform) = 0;
  virtual std::vector<gr_complex> waveform() const = 0;

  /*! The matched filter's taps now: conj(w[T - 1 - k]), windowed and
   *  normalised. */
  virtual std::vector<gr_complex> taps() const = 0;
};

} // namespace convoy
} // namespace gr

#endif /* INCLUDED_CONVOY_GR_MATCHED_FILTER_CC_H */
