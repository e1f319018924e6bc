/*
 * freq_xlating_fir_filter_ccf.h - frequency-translating decimating FIR filter on convoy's
 * engines: complex samples, real taps.
 */
#ifndef INCLUDED_CONVOY_GR_FREQ_XLATING_FIR_FILTER_CCF_H
#define INCLUDED_CONVOY_GR_FREQ_XLATING_FIR_FILTER_CCF_H

#include <gnuradio/convoy/api.h>
#include <gnuradio/convoy/filter_base.h>
#include <gnuradio/gr_complex.h>

#include <string>
#include <vector>

namespace gr {
namespace convoy {

/*!
 * \brief Frequency-translating decimating FIR filter (real taps), through
 * libconvoy: GNU Radio's filter.freq_xlating_fir_filter_ccf on convoy's engines.
 * \ingroup convoy
 *
 * The band around center_freq is moved to 0 Hz, filtered by taps and
 * decimated by D. With f = center_freq / sampling_freq and ntaps taps,
 *
 *     out[n] = e^{-j phi(n)} sum_k taps[k] e^{j 2 pi f k} x[n D - k],
 *     phi(n) = 2 pi f (n D + (ntaps - 1) / 2),
 *
 * which is GNU Radio 3.10's freq_xlating_fir_filter, whose rotator starts at
 * the phase of the taps' centre. convoy does it with
 * convoy_stream_config.shift (taps rotated once, each output rotated by
 * its absolute index in double precision), so the phase is continuous
 * across calls and exact over any length of stream. A retune (new center
 * frequency or taps) at input item A keeps the rotator's phase and moves it
 * by 2 pi (f_new - f_old) (ntaps - 1) / 2, as GNU Radio does, so that a
 * signal in the passband keeps its phase; output A / D is tagged "freq".
 * The message port "freq" takes a pair (anything . Hz) or a dict with the
 * key "freq", as GNU Radio's.
 */
class CONVOY_GR_API freq_xlating_fir_filter_ccf : virtual public filter_base {
public:
  typedef std::shared_ptr<freq_xlating_fir_filter_ccf> sptr;

  /*!
   * \param decimation D, 1 .. 4096.
   * \param taps the baseband (lowpass) filter, at least one tap.
   * \param center_freq the frequency moved to 0, Hz (any finite value; it
   *        aliases modulo sampling_freq).
   * \param sampling_freq the input's sample rate, Hz (> 0).
   * \param engine, device, tag_key, nthreads as fir_filter_ccf.
   */
  static sptr make(int decimation, const std::vector<float> &taps, double center_freq,
                   double sampling_freq, const std::string &engine = "auto", int device = -1,
                   const std::string &tag_key = "", int nthreads = 1);

  /*! New baseband taps, from the start of the next call. */
  virtual void set_taps(const std::vector<float> &taps) = 0;
  virtual std::vector<float> taps() const = 0;

  /*! New center frequency (Hz), from the start of the next call. */
  virtual void set_center_freq(double center_freq) = 0;
  virtual double center_freq() const = 0;
};

} // namespace convoy
} // namespace gr

#endif /* INCLUDED_CONVOY_GR_FREQ_XLATING_FIR_FILTER_CCF_H */
