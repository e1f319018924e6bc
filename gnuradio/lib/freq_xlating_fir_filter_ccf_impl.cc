/*
 * freq_xlating_fir_filter_ccf_impl.cc - freq_xlating_fir_filter_ccf on convoy_core
 * (convoy_stream_config.shift).
 */
#include "block_common.h"

#include <gnuradio/convoy/freq_xlating_fir_filter_ccf.h>
#include <gnuradio/io_signature.h>

namespace gr {
namespace convoy {

class freq_xlating_fir_filter_ccf_impl : public block_impl<freq_xlating_fir_filter_ccf> {
public:
  freq_xlating_fir_filter_ccf_impl(int decimation, const std::vector<float> &taps,
                                   double center_freq, double sampling_freq,
                                   const std::string &engine, int device,
                                   const std::string &tag_key, int nthreads)
      : gr::block("convoy_freq_xlating_fir_filter_ccf",
                  gr::io_signature::make(1, 1, sizeof(gr_complex)),
                  gr::io_signature::make(1, 1, sizeof(gr_complex))),
        block_impl(xlating_options(false, decimation, center_freq, sampling_freq, engine, device,
                                   tag_key, nthreads),
                   to_core_taps(taps)) {}

  void set_taps(const std::vector<float> &taps) override { request_taps(to_core_taps(taps)); }
  std::vector<float> taps() const override { return from_core_taps<float>(wanted_taps()); }
  void set_center_freq(double center_freq) override { request_center_freq(center_freq); }
  double center_freq() const override { return wanted_center_freq(); }
};

freq_xlating_fir_filter_ccf::sptr freq_xlating_fir_filter_ccf::make(
    int decimation, const std::vector<float> &taps, double center_freq, double sampling_freq,
    const std::string &engine, int device, const std::string &tag_key, int nthreads) {
  return gnuradio::make_block_sptr<freq_xlating_fir_filter_ccf_impl>(
      decimation, taps, center_freq, sampling_freq, engine, device, tag_key, nthreads);
}

} // namespace convoy
} // namespace gr
