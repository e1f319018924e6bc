/*
 * block_common.h - what the blocks' classes share beside convoy_core: taps
 * between the blocks' types and the core's complex form, and the getters
 * of filter_base.
 */
#ifndef INCLUDED_CONVOY_GR_BLOCK_COMMON_H
#define INCLUDED_CONVOY_GR_BLOCK_COMMON_H

#include "convoy_core.h"

#include <gnuradio/gr_complex.h>

#include <string>
#include <vector>

namespace gr {
namespace convoy {

inline std::vector<gr_complex> to_core_taps(const std::vector<float> &taps) {
  return std::vector<gr_complex>(taps.begin(), taps.end());
}

inline std::vector<gr_complex> to_core_taps(const std::vector<gr_complex> &taps) {
  return taps;
}

template <class T> std::vector<T> from_core_taps(const std::vector<gr_complex> &taps);

template <> inline std::vector<float> from_core_taps<float>(const std::vector<gr_complex> &taps) {
  std::vector<float> r(taps.size());
  for (size_t i = 0; i < taps.size(); i++) r[i] = taps[i].real();
  return r;
}

template <>
inline std::vector<gr_complex> from_core_taps<gr_complex>(const std::vector<gr_complex> &taps) {
  return taps;
}

/* The core's options from what every block's make() takes; a
 * frequency-translating block adds its frequencies. */
inline core_options block_options(bool complex_items, bool complex_taps, int decimation,
                                  const std::string &engine, int device, const std::string &tag_key,
                                  int nthreads) {
  core_options o;
  o.complex_items = complex_items;
  o.complex_taps = complex_taps;
  o.decimation = decimation;
  o.engine = engine;
  o.device = device;
  o.tag_key = tag_key;
  o.nthreads = nthreads;
  return o;
}

inline core_options xlating_options(bool complex_taps, int decimation, double center_freq,
                                    double sampling_freq, const std::string &engine, int device,
                                    const std::string &tag_key, int nthreads) {
  core_options o = block_options(true, complex_taps, decimation, engine, device, tag_key, nthreads);
  o.xlating = true;
  o.center_freq = center_freq;
  o.sampling_freq = sampling_freq;
  return o;
}

/* A block's class: its public interface Iface, convoy_core, and
 * filter_base's getters answered by the core. The most derived class
 * constructs gr::block (a virtual base). */
template <class Iface> class block_impl : public Iface, public core {
protected:
  block_impl(const core_options &opt, const std::vector<gr_complex> &taps) : core(opt, taps) {}

public:
  std::string engine() const override { return core_engine(); }
  std::string describe() const override { return core_describe(); }
  int decimation() const override { return core_decimation(); }
  long latency() const override { return core_latency(); }
};

} // namespace convoy
} // namespace gr

#endif /* INCLUDED_CONVOY_GR_BLOCK_COMMON_H */
