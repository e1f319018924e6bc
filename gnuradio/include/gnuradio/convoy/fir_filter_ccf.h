/*
 * fir_filter_ccf.h - FIR filter on convoy's engines: complex samples, real taps (I and Q filtered
 * alike).
 */
#ifndef INCLUDED_CONVOY_GR_FIR_FILTER_CCF_H
#define INCLUDED_CONVOY_GR_FIR_FILTER_CCF_H

#include <gnuradio/convoy/api.h>
#include <gnuradio/convoy/filter_base.h>
#include <gnuradio/gr_complex.h>

#include <string>
#include <vector>

namespace gr {
namespace convoy {

/*!
 * \brief Decimating FIR filter: complex samples, real taps (I and Q filtered alike), through
 * libconvoy. \ingroup convoy
 *
 * Output n is y[n D] = sum_k taps[k] x[n D - k], as GNU Radio's
 * filter.fir_filter_ccf (see filter_base for the alignment, tags and taps changes).
 */
class CONVOY_GR_API fir_filter_ccf : virtual public filter_base {
public:
  typedef std::shared_ptr<fir_filter_ccf> sptr;

  /*!
   * \param decimation D, 1 .. 4096: keep every D-th output.
   * \param taps the filter, at least one tap, all finite.
   * \param engine "auto" (convoy's cost model), "cpu", "gpu" or an engine
   *        name ("cpu-direct", "cpu-fft", "gpu-direct", "gpu-fft"). A GPU
   *        engine with no usable GPU falls back to the CPU with a warning.
   * \param device GPU index for the GPU engines, -1 for the default.
   * \param tag_key key of the input tags that switch taps ("" for none).
   * \param nthreads CPU threads of the engine: 1 (the default, as GNU
   *        Radio's fft_filter: the flowgraph's other blocks have threads
   *        of their own), or 0 for every online CPU.
   *
   * Bad parameters throw std::invalid_argument (ValueError in Python).
   */
  static sptr make(int decimation, const std::vector<float> &taps,
                   const std::string &engine = "auto", int device = -1,
                   const std::string &tag_key = "", int nthreads = 1);

  /*! New taps, taking effect at the start of the next call (tagged
   *  "convoy_taps" there). Throws std::invalid_argument for empty or
   *  non-finite taps. */
  virtual void set_taps(const std::vector<float> &taps) = 0;

  /*! The taps last given (to make() or set_taps()). */
  virtual std::vector<float> taps() const = 0;
};

} // namespace convoy
} // namespace gr

#endif /* INCLUDED_CONVOY_GR_FIR_FILTER_CCF_H */
