/*
 * fir_filter_fff_impl.cc - fir_filter_fff on convoy_core.
 */
#include "block_common.h"

#include <gnuradio/convoy/fir_filter_fff.h>
#include <gnuradio/io_signature.h>

namespace gr {
namespace convoy {

class fir_filter_fff_impl : public block_impl<fir_filter_fff> {
public:
  fir_filter_fff_impl(int decimation, const std::vector<float> &taps, const std::string &engine,
                      int device, const std::string &tag_key, int nthreads)
      : gr::block("convoy_fir_filter_fff", gr::io_signature::make(1, 1, sizeof(float)),
                  gr::io_signature::make(1, 1, sizeof(float))),
        block_impl(block_options(false, false, decimation, engine, device, tag_key, nthreads),
                   to_core_taps(taps)) {}

  void set_taps(const std::vector<float> &taps) override { request_taps(to_core_taps(taps)); }
  std::vector<float> taps() const override { return from_core_taps<float>(wanted_taps()); }
};

fir_filter_fff::sptr fir_filter_fff::make(int decimation, const std::vector<float> &taps,
                                          const std::string &engine, int device,
                                          const std::string &tag_key, int nthreads) {
  return gnuradio::make_block_sptr<fir_filter_fff_impl>(decimation, taps, engine, device, tag_key,
                                                        nthreads);
}

} // namespace convoy
} // namespace gr
