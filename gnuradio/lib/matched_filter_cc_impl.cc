/*
 * matched_filter_cc_impl.cc - matched_filter_cc on convoy_core: the template
 * windowed, normalised, conjugated and reversed into taps, as
 * pipeline/pulse_filter.c does for convoy_pulse and `convoy filter
 * --matched` (the window weights are the same formulas, in double).
 */
#include "block_common.h"

#include <gnuradio/convoy/matched_filter_cc.h>
#include <gnuradio/io_signature.h>

#include <convoy_pulse.h>

#include <cmath>
#include <stdexcept>

namespace gr {
namespace convoy {

namespace {

double bessel_i0(double x) {
  double sum = 1.0, term = 1.0;
  const double q = x * x / 4.0;
  for (int k = 1; k < 500; k++) {
    term *= q / ((double)k * (double)k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

double window_weight(convoy_pulse_window window, double beta, size_t j, size_t t) {
  if (t <= 1) return 1.0;
  const double pi = 3.14159265358979323846;
  const double phase = 2.0 * pi * (double)j / (double)(t - 1);
  switch (window) {
  case CONVOY_WINDOW_HAMMING:
    return 0.54 - 0.46 * std::cos(phase);
  case CONVOY_WINDOW_HANN:
    return 0.5 - 0.5 * std::cos(phase);
  case CONVOY_WINDOW_KAISER: {
    const double r = 2.0 * (double)j / (double)(t - 1) - 1.0;
    const double s = 1.0 - r * r;
    return bessel_i0(beta * std::sqrt(s > 0.0 ? s : 0.0)) / bessel_i0(beta);
  }
  case CONVOY_WINDOW_NONE:
  default:
    return 1.0;
  }
}

struct window_spec {
  convoy_pulse_window window = CONVOY_WINDOW_NONE;
  double beta = 8.6;
};

window_spec parse_window(const std::string &name) {
  window_spec w;
  if (convoy_pulse_window_from_name(name.c_str(), &w.window, &w.beta) != CONVOY_OK)
    throw std::invalid_argument(std::string("convoy: ") + convoy_last_error());
  return w;
}

std::vector<gr_complex> matched_taps(const std::vector<gr_complex> &waveform, const window_spec &w,
                                     bool normalize) {
  const size_t t = waveform.size();
  if (t == 0)
    throw std::invalid_argument(
        "convoy: the template is empty (a matched filter needs at least one sample)");
  double energy = 0.0;
  for (size_t j = 0; j < t; j++) {
    const double re = waveform[j].real(), im = waveform[j].imag();
    if (!std::isfinite(re) || !std::isfinite(im))
      throw std::invalid_argument("convoy: template sample " + std::to_string(j) +
                                  " is not finite");
    const double g = window_weight(w.window, w.beta, j, t);
    energy += g * g * (re * re + im * im);
  }
  double scale = 1.0;
  if (normalize) {
    if (!(energy > 0.0))
      throw std::invalid_argument(
          "convoy: cannot normalise a template of zero energy (after the window)");
    scale = 1.0 / std::sqrt(energy);
  }
  std::vector<gr_complex> h(t);
  for (size_t k = 0; k < t; k++) {
    const size_t j = t - 1 - k;
    const double g = scale * window_weight(w.window, w.beta, j, t);
    h[k] = gr_complex((float)(g * waveform[j].real()), (float)(-g * waveform[j].imag()));
  }
  return h;
}

} // namespace

class matched_filter_cc_impl : public block_impl<matched_filter_cc> {
public:
  matched_filter_cc_impl(const std::vector<gr_complex> &waveform, const std::string &window,
                         bool normalize, int decimation, const std::string &engine, int device,
                         const std::string &tag_key, int nthreads)
      : gr::block("convoy_matched_filter_cc", gr::io_signature::make(1, 1, sizeof(gr_complex)),
                  gr::io_signature::make(1, 1, sizeof(gr_complex))),
        block_impl(block_options(true, true, decimation, engine, device, tag_key, nthreads),
                   matched_taps(waveform, parse_window(window), normalize)),
        d_window(parse_window(window)), d_normalize(normalize), d_waveform(waveform) {}

  void set_template(const std::vector<gr_complex> &waveform) override {
    request_taps(matched_taps(waveform, d_window, d_normalize));
    std::lock_guard<std::mutex> lock(d_wave_mutex);
    d_waveform = waveform;
  }

  std::vector<gr_complex> waveform() const override {
    std::lock_guard<std::mutex> lock(d_wave_mutex);
    return d_waveform;
  }

  std::vector<gr_complex> taps() const override { return wanted_taps(); }

protected:
  std::vector<gr_complex> taps_from_tag(const std::vector<gr_complex> &v) override {
    return matched_taps(v, d_window, d_normalize);
  }

private:
  const window_spec d_window;
  const bool d_normalize;
  mutable std::mutex d_wave_mutex;
  std::vector<gr_complex> d_waveform;
};

matched_filter_cc::sptr matched_filter_cc::make(const std::vector<gr_complex> &waveform,
                                                const std::string &window, bool normalize,
                                                int decimation, const std::string &engine,
                                                int device, const std::string &tag_key,
                                                int nthreads) {
  return gnuradio::make_block_sptr<matched_filter_cc_impl>(waveform, window, normalize, decimation,
                                                           engine, device, tag_key, nthreads);
}

} // namespace convoy
} // namespace gr
