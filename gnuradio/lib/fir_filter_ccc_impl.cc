/*
 * fir_filter_ccc_impl.cc - fir_filter_ccc on convoy_core.
 */
#include "block_common.h"

#include <gnuradio/convoy/fir_filter_ccc.h>
#include <gnuradio/io_signature.h>

namespace gr {
namespace convoy {

class fir_filter_ccc_impl : public block_impl<fir_filter_ccc> {
public:
  fir_filter_ccc_impl(int decimation, const std::vector<gr_complex> &taps,
                      const std::string &engine, int device, const std::string &tag_key,
                      int nthreads)
      : gr::block("convoy_fir_filter_ccc", gr::io_signature::make(1, 1, sizeof(gr_complex)),
                  gr::io_signature::make(1, 1, sizeof(gr_complex))),
        block_impl(block_options(true, true, decimation, engine, device, tag_key, nthreads),
                   to_core_taps(taps)) {}

  void set_taps(const std::vector<gr_complex> &taps) override { request_taps(to_core_taps(taps)); }
  std::vector<gr_complex> taps() const override {
    return from_core_taps<gr_complex>(wanted_taps());
  }
};

fir_filter_ccc::sptr fir_filter_ccc::make(int decimation, const std::vector<gr_complex> &taps,
                                          const std::string &engine, int device,
                                          const std::string &tag_key, int nthreads) {
  return gnuradio::make_block_sptr<fir_filter_ccc_impl>(decimation, taps, engine, device, tag_key,
                                                        nthreads);
}

} // namespace convoy
} // namespace gr
