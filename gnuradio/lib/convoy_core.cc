/*
 * convoy_core.cc - a convoy_stream driven from general_work (see
 * convoy_core.h for the design).
 */
#include "convoy_core.h"

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace convoy {

namespace {

const double two_pi = 6.283185307179586476925286766559;

/* Input frames a call feeds through the scratch buffer when the output
 * buffer cannot take the stream's next output directly. */
const int64_t scratch_chunk = 1 << 16;

/* Items of declared history (see the constructor): the upstream buffer holds
 * at least twice this many. */
const int64_t hold_items = 1 << 16;

double frac(double x) {
  return x - std::floor(x);
}

/* frac(a * b) for a double a and an integer b < 2^32 held in a double:
 * p + e == a * b exactly (two-product), and frac(p) is exact. */
double frac_product(double a, double b) {
  const double p = a * b;
  const double e = std::fma(a, b, -p);
  return frac(frac(p) + e);
}

std::string engine_list() {
  std::string names;
  for (int32_t i = 0; i < convoy_engine_count(); i++) {
    if (i) names += ", ";
    names += convoy_engine_name(convoy_engine_at(i));
  }
  return names;
}

int64_t round_up(uint64_t x, int d) {
  return (int64_t)((x + (uint64_t)d - 1) / (uint64_t)d * (uint64_t)d);
}

} // namespace

double frac_mul(double f, uint64_t n) {
  const double hi = (double)(n >> 32);
  const double lo = (double)(n & 0xffffffffu);
  /* f * 2^32 is exact (a power-of-two scaling). */
  return frac(frac_product(std::ldexp(f, 32), hi) + frac_product(f, lo));
}

void core::request::merge(const request &later) {
  if (later.has_taps) {
    has_taps = true;
    taps = later.taps;
  }
  if (later.has_freq) {
    has_freq = true;
    freq = later.freq;
  }
}

core::core(const core_options &o, const std::vector<gr_complex> &taps)
    : d_cplx_items(o.complex_items), d_cplx_taps(o.complex_taps), d_xlating(o.xlating),
      d_fs(o.sampling_freq), d_decim(o.decimation), d_ff(o.complex_items ? 2 : 1),
      d_engine(CONVOY_ENGINE_AUTO), d_device(o.device), d_threads(o.nthreads),
      d_tag_key(o.tag_key.empty() ? pmt::PMT_NIL : pmt::intern(o.tag_key)), d_freq(o.center_freq),
      d_phi_start(0.0), d_a_start(0), d_want_freq(o.center_freq) {
  if (o.decimation < 1 || o.decimation > CONVOY_MAX_DECIMATION)
    throw std::invalid_argument("convoy: decimation must be 1 .. " +
                                std::to_string(CONVOY_MAX_DECIMATION) + ", not " +
                                std::to_string(o.decimation));
  check_taps(taps, d_cplx_taps);
  if (convoy_engine_from_name(o.engine.c_str(), &d_engine) != CONVOY_OK)
    throw std::invalid_argument("convoy: unknown engine '" + o.engine + "' (one of " +
                                engine_list() + ")");
  if (o.device < -1)
    throw std::invalid_argument("convoy: device must be a GPU index or -1, not " +
                                std::to_string(o.device));
  if (o.nthreads < 0)
    throw std::invalid_argument("convoy: nthreads must be 0 (convoy's default) or more, not " +
                                std::to_string(o.nthreads));
  if (d_xlating) {
    if (!std::isfinite(o.sampling_freq) || o.sampling_freq <= 0.0)
      throw std::invalid_argument("convoy: sampling_freq must be a positive number, not " +
                                  std::to_string(o.sampling_freq));
    if (!std::isfinite(o.center_freq))
      throw std::invalid_argument("convoy: center_freq must be finite");
  }
  if (convoy_engine_family(d_engine) == CONVOY_FAMILY_GPU && !convoy_engine_available(d_engine)) {
    const convoy_engine cpu = convoy_engine_cpu_fallback(d_engine);
    const int gpus = convoy_gpu_count();
    d_logger->warn("engine {} cannot run here ({}); using {}", convoy_engine_name(d_engine),
                   gpus == 0 ? std::string("no usable GPU: ") + convoy_last_error()
                             : std::string("not built"),
                   convoy_engine_name(cpu));
    d_engine = cpu;
  }
  d_taps = taps;
  d_want_taps = taps;
  reset_state();

  set_relative_rate((uint64_t)1, (uint64_t)d_decim);
  /* Large buffers on both sides, so that a call carries tens of
   * thousands of items when the stream is backlogged: GNU Radio's default
   * (32 KiB) makes calls of a few thousand items, and the per-call cost
   * of the scheduler then weighs on an engine that filters a sample in a
   * few nanoseconds. GNU Radio sizes the upstream buffer from the history
   * of the blocks reading it (at least twice it), so the block declares a
   * history of its own: the d_hold items before the new ones stay
   * unconsumed and are skipped (the convoy stream keeps its own history).
   * The output buffer holds two such calls' outputs and two of the
   * engine's blocks (so that an FFT engine writes straight into it),
   * capped, since a GPU stream holds back chunks of millions of frames
   * (the scratch path copes with any size). */
  d_hold = hold_items;
  set_history((unsigned)d_hold + 1);
  {
    const int64_t per_call = (hold_items + d_decim - 1) / d_decim;
    const int64_t per_block = (d_latency + d_decim) / d_decim;
    const int64_t out =
        std::min<int64_t>(std::max<int64_t>({2 * per_call, 2 * per_block, 8192}), (int64_t)1 << 21);
    set_min_output_buffer(0, (long)out);
  }
  if (d_xlating) {
    message_port_register_in(pmt::mp("freq"));
    set_msg_handler(pmt::mp("freq"),
                    [this](const pmt::pmt_t &msg) { this->handle_freq_message(msg); });
  }
}

core::~core() {
  convoy_stream_destroy(d_stream);
}

void core::check_taps(const std::vector<gr_complex> &taps, bool complex_taps) {
  if (taps.empty())
    throw std::invalid_argument("convoy: the taps are empty (a filter needs at least one tap)");
  if (taps.size() > ((size_t)1 << 31)) throw std::invalid_argument("convoy: more than 2^31 taps");
  for (size_t i = 0; i < taps.size(); i++) {
    if (!std::isfinite(taps[i].real()) || !std::isfinite(taps[i].imag()))
      throw std::invalid_argument("convoy: tap " + std::to_string(i) + " is not finite");
    if (!complex_taps && taps[i].imag() != 0.0f)
      throw std::invalid_argument("convoy: tap " + std::to_string(i) +
                                  " is complex; this block takes real taps");
  }
}

convoy_stream *core::make_stream(const std::vector<gr_complex> &taps, double f, int32_t phase,
                                 gr_complex c, std::string &err, convoy_status *status) {
  const int64_t n = (int64_t)taps.size();
  const bool real = !d_cplx_taps && c == gr_complex(1.0f, 0.0f);
  std::vector<float> buf(real ? n : 2 * n);
  if (real) {
    for (int64_t i = 0; i < n; i++) buf[i] = taps[i].real();
  } else {
    const std::complex<double> cd(c.real(), c.imag());
    for (int64_t i = 0; i < n; i++) {
      const std::complex<double> t = cd * std::complex<double>(taps[i].real(), taps[i].imag());
      buf[2 * i] = (float)t.real();
      buf[2 * i + 1] = (float)t.imag();
    }
  }
  convoy_filter *filt = nullptr;
  convoy_status st = convoy_filter_create_typed(
      &filt, real ? CONVOY_SAMPLE_F32 : CONVOY_SAMPLE_CF32, buf.data(), n);
  if (st != CONVOY_OK) {
    err = convoy_last_error();
    if (status) *status = st;
    return nullptr;
  }
  convoy_stream_config cfg;
  convoy_stream_config_init(&cfg);
  cfg.channels = 1;
  cfg.engine = d_engine;
  cfg.sample = d_cplx_items ? CONVOY_SAMPLE_CF32 : CONVOY_SAMPLE_F32;
  cfg.threads = d_threads;
  cfg.device = d_device;
  cfg.decimation = d_decim;
  cfg.decimation_phase = phase;
  /* The rotation per sample is periodic in f with period 1: any center
   * frequency maps into convoy's -0.5 .. 0.5. */
  cfg.shift = f - std::round(f);
  convoy_stream *s = nullptr;
  st = convoy_stream_create(&s, &cfg, &filt, 1);
  convoy_filter_destroy(filt);
  if (st != CONVOY_OK) {
    err = convoy_last_error();
    if (status) *status = st;
    return nullptr;
  }
  return s;
}

/* Makes s the running stream; the getters read what describes it. */
void core::set_stream(convoy_stream *s) {
  char desc[512] = "";
  convoy_stream_describe(s, desc, sizeof desc);
  const std::string name = convoy_engine_name(convoy_stream_engine(s));
  const long latency = (long)convoy_stream_latency(s);
  convoy_stream *old;
  {
    std::lock_guard<std::mutex> lock(d_mutex);
    old = d_stream;
    d_stream = s;
    d_engine_name = name;
    d_describe = desc;
    d_latency = latency;
  }
  convoy_stream_destroy(old);
}

/* A stream at input item 0 with the settings in effect; GNU Radio's initial
 * rotator phase, 2 pi f (ntaps - 1) / 2. */
void core::reset_state() {
  const double f = d_xlating ? d_freq / d_fs : 0.0;
  const uint64_t p = d_taps.size() - 1;
  d_phi_start = d_xlating ? frac_mul(f / 2.0, p) : 0.0;
  d_a_start = 0;
  const gr_complex c = (gr_complex)std::polar(1.0, -two_pi * d_phi_start);
  std::string err;
  convoy_status st = CONVOY_OK;
  convoy_stream *s = make_stream(d_taps, f, 0, c, err, &st);
  if (!s) {
    if (st == CONVOY_ERR_INVALID_ARGUMENT) throw std::invalid_argument("convoy: " + err);
    throw std::runtime_error("convoy: " + err);
  }
  set_stream(s);
  d_consumed = 0;
  d_stream_next = 0;
  d_discard = 0;
  d_flushed = false;
  d_switches.clear();
  d_tag_scan = 0;
  d_fifo.clear();
  d_fifo_pos = 0;
  d_hist_cap = std::max<int64_t>(d_hist_cap, (int64_t)p);
  d_hist.assign((size_t)d_hist_cap * d_ff, 0.0f);
  d_hist_valid = 0;
  d_hist_w = 0;
}

bool core::start() {
  if (d_ran) {
    try {
      reset_state();
    } catch (const std::exception &e) {
      d_logger->error("cannot restart: {}", e.what());
      return false;
    }
    d_ran = false;
  }
  return gr::block::start();
}

void core::request_taps(const std::vector<gr_complex> &taps) {
  check_taps(taps, d_cplx_taps);
  std::lock_guard<std::mutex> lock(d_mutex);
  d_request.has_taps = true;
  d_request.taps = taps;
  d_have_request = true;
  d_want_taps = taps;
}

void core::request_center_freq(double hz) {
  if (!std::isfinite(hz)) throw std::invalid_argument("convoy: center_freq must be finite");
  std::lock_guard<std::mutex> lock(d_mutex);
  d_request.has_freq = true;
  d_request.freq = hz;
  d_have_request = true;
  d_want_freq = hz;
}

void core::handle_freq_message(const pmt::pmt_t &msg) {
  pmt::pmt_t x = pmt::PMT_NIL;
  if (pmt::is_dict(msg) && pmt::dict_has_key(msg, pmt::intern("freq")))
    x = pmt::dict_ref(msg, pmt::intern("freq"), pmt::PMT_NIL);
  else if (pmt::is_pair(msg))
    x = pmt::cdr(msg);
  if (!pmt::is_real(x) && !pmt::is_integer(x)) {
    d_logger->warn("freq message without a frequency: {}", pmt::write_string(msg));
    return;
  }
  try {
    request_center_freq(pmt::to_double(x));
  } catch (const std::exception &e) {
    d_logger->warn("freq message: {}", e.what());
  }
}

std::vector<gr_complex> core::taps_from_tag(const std::vector<gr_complex> &v) {
  return v;
}

std::vector<gr_complex> core::wanted_taps() const {
  std::lock_guard<std::mutex> lock(d_mutex);
  return d_want_taps;
}

double core::wanted_center_freq() const {
  std::lock_guard<std::mutex> lock(d_mutex);
  return d_want_freq;
}

std::string core::core_engine() const {
  std::lock_guard<std::mutex> lock(d_mutex);
  return d_engine_name;
}

std::string core::core_describe() const {
  std::lock_guard<std::mutex> lock(d_mutex);
  return d_describe;
}

long core::core_latency() const {
  std::lock_guard<std::mutex> lock(d_mutex);
  return d_latency;
}

void core::fail(const std::string &what) {
  d_logger->error("{}: {}", what, convoy_stream_last_error(d_stream));
}

/* ------------------------------------------------------------ the FIFO */

int64_t core::fifo_frames() const {
  return (int64_t)((d_fifo.size() - d_fifo_pos) / d_ff);
}

int64_t core::drain_fifo(char *out, int noutput) {
  const int64_t n = std::min<int64_t>(fifo_frames(), noutput);
  if (n > 0) {
    std::memcpy(out, d_fifo.data() + d_fifo_pos, (size_t)n * d_ff * sizeof(float));
    d_fifo_pos += (size_t)n * d_ff;
  }
  if (d_fifo_pos == d_fifo.size()) {
    d_fifo.clear();
    d_fifo_pos = 0;
  } else if (d_fifo_pos > d_fifo.size() / 2) {
    d_fifo.erase(d_fifo.begin(), d_fifo.begin() + (std::ptrdiff_t)d_fifo_pos);
    d_fifo_pos = 0;
  }
  return n;
}

/* Frames in output order: into out while nothing waits in the FIFO and
 * there is room, the rest behind the FIFO. */
void core::emit(const float *frames, int64_t n, char *out, int noutput, int64_t &produced) {
  if (n <= 0) return;
  if (fifo_frames() == 0) {
    const int64_t k = std::min<int64_t>(n, noutput - produced);
    if (k > 0) {
      std::memcpy(out + (size_t)produced * d_ff * sizeof(float), frames,
                  (size_t)k * d_ff * sizeof(float));
      produced += k;
      frames += (size_t)k * d_ff;
      n -= k;
    }
  }
  if (n > 0) d_fifo.insert(d_fifo.end(), frames, frames + (size_t)n * d_ff);
}

/* ------------------------------------------------------------ history */

void core::hist_grow(int64_t cap) {
  if (cap <= d_hist_cap) return;
  std::vector<float> h((size_t)cap * d_ff, 0.0f);
  for (int64_t i = 0; i < d_hist_valid; i++) {
    const int64_t src = ((d_hist_w - d_hist_valid + i) % d_hist_cap + d_hist_cap) % d_hist_cap;
    std::memcpy(&h[(size_t)i * d_ff], &d_hist[(size_t)src * d_ff], d_ff * sizeof(float));
  }
  d_hist.swap(h);
  d_hist_cap = cap;
  d_hist_w = d_hist_valid % cap;
}

void core::hist_push(const char *in, int64_t n) {
  if (d_hist_cap == 0 || n <= 0) return;
  const float *src = reinterpret_cast<const float *>(in);
  if (n >= d_hist_cap) {
    std::memcpy(d_hist.data(), src + (size_t)(n - d_hist_cap) * d_ff,
                (size_t)d_hist_cap * d_ff * sizeof(float));
    d_hist_w = 0;
    d_hist_valid = d_hist_cap;
    return;
  }
  const int64_t first = std::min(n, d_hist_cap - d_hist_w);
  std::memcpy(&d_hist[(size_t)d_hist_w * d_ff], src, (size_t)first * d_ff * sizeof(float));
  if (n > first)
    std::memcpy(d_hist.data(), src + (size_t)first * d_ff,
                (size_t)(n - first) * d_ff * sizeof(float));
  d_hist_w = (d_hist_w + n) % d_hist_cap;
  d_hist_valid = std::min(d_hist_cap, d_hist_valid + n);
}

/* Puts the last p input items (fewer at the stream's start) in the ring
 * from GNU Radio's buffer, which holds this call's items and the d_hold
 * before them: taps longer than the ring held then switch right away. */
void core::hist_refill(int64_t p) {
  if (d_call_in == nullptr) return;
  const int64_t into_call = (int64_t)(d_consumed - d_call_start);
  const int64_t k = std::min<int64_t>({p, d_hist_cap, (int64_t)d_consumed, d_hold + into_call});
  if (k <= d_hist_valid) return;
  d_hist_w = 0;
  d_hist_valid = 0;
  hist_push(d_call_in + (std::ptrdiff_t)(into_call - k) * (std::ptrdiff_t)(d_ff * sizeof(float)),
            k);
}

/* ------------------------------------------------------------ the stream */

/* The most input frames (a multiple of D, at most max_frames) whose output
 * fits capacity frames. */
int64_t core::fit(int64_t max_frames, int64_t capacity) const {
  if (capacity <= 0) return 0;
  int64_t lo = 0, hi = max_frames / d_decim;
  if (convoy_stream_max_output(d_stream, hi * d_decim) <= capacity) return hi * d_decim;
  hi--;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (convoy_stream_max_output(d_stream, mid * d_decim) <= capacity)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo * d_decim;
}

/* Drops the leading frames still due to be dropped (a primed stream's
 * outputs before its switch); returns the frames left, moved to the front. */
int64_t core::drop_discarded(float *frames, int64_t n) {
  const int64_t drop = std::min(n, d_discard);
  if (drop > 0) {
    std::memmove(frames, frames + (size_t)drop * d_ff, (size_t)(n - drop) * d_ff * sizeof(float));
    d_discard -= drop;
  }
  return n - drop;
}

bool core::process_direct(const char *in, int64_t n, char *out, int64_t capacity,
                          int64_t &delivered) {
  int64_t got = 0;
  float *o = reinterpret_cast<float *>(out);
  if (convoy_stream_process(d_stream, reinterpret_cast<const float *>(in), n, o, capacity, &got) !=
      CONVOY_OK) {
    fail("convoy_stream_process");
    return false;
  }
  delivered = drop_discarded(o, got);
  d_stream_next += (uint64_t)delivered;
  return true;
}

bool core::process_scratch(const char *in, int64_t n, int64_t &got) {
  const int64_t cap = std::max<int64_t>(convoy_stream_max_output(d_stream, n), 1);
  if ((int64_t)d_scratch.size() < cap * (int64_t)d_ff) d_scratch.resize((size_t)cap * d_ff);
  if (convoy_stream_process(d_stream, reinterpret_cast<const float *>(in), n, d_scratch.data(), cap,
                            &got) != CONVOY_OK) {
    fail("convoy_stream_process");
    return false;
  }
  got = drop_discarded(d_scratch.data(), got);
  d_stream_next += (uint64_t)got;
  return true;
}

/* End of input: the held-back outputs of the items fed, none of the
 * ring-out (output n exists for n D < items consumed). */
bool core::flush_to_end(char *out, int noutput, int64_t &produced) {
  const int64_t total = std::max<int64_t>(convoy_stream_flush_frames(d_stream), 1);
  if ((int64_t)d_scratch.size() < total * (int64_t)d_ff) d_scratch.resize((size_t)total * d_ff);
  int64_t got = 0;
  if (convoy_stream_flush(d_stream, d_scratch.data(), total, &got) != CONVOY_OK) {
    fail("convoy_stream_flush");
    return false;
  }
  got = drop_discarded(d_scratch.data(), got);
  const int64_t keep =
      std::min<int64_t>(got, (int64_t)(d_consumed / (uint64_t)d_decim - d_stream_next));
  emit(d_scratch.data(), keep, out, noutput, produced);
  d_stream_next += (uint64_t)keep;
  d_flushed = true;
  return true;
}

/* Feeds a new stream the p input items before item `at` (zeros before item
 * 0); every output it gives is before `at` and is dropped. */
bool core::prime(convoy_stream *s, int64_t p, uint64_t at, int64_t &dropped) {
  dropped = 0;
  const int64_t zeros = (uint64_t)p > at ? p - (int64_t)at : 0;
  const int64_t kept = p - zeros;
  std::vector<float> zbuf;
  auto feed = [&](const float *in, int64_t n) {
    while (n > 0) {
      const int64_t k = std::min<int64_t>(n, scratch_chunk);
      const int64_t cap = std::max<int64_t>(convoy_stream_max_output(s, k), 1);
      if ((int64_t)d_scratch.size() < cap * (int64_t)d_ff) d_scratch.resize((size_t)cap * d_ff);
      int64_t got = 0;
      if (convoy_stream_process(s, in, k, d_scratch.data(), cap, &got) != CONVOY_OK) return false;
      dropped += got;
      in += (size_t)k * d_ff;
      n -= k;
    }
    return true;
  };
  if (zeros > 0) {
    zbuf.assign((size_t)std::min<int64_t>(zeros, scratch_chunk) * d_ff, 0.0f);
    for (int64_t left = zeros; left > 0;) {
      const int64_t k = std::min<int64_t>(left, scratch_chunk);
      if (!feed(zbuf.data(), k)) return false;
      left -= k;
    }
  }
  if (kept > 0) {
    const int64_t start = ((d_hist_w - kept) % d_hist_cap + d_hist_cap) % d_hist_cap;
    const int64_t first = std::min(kept, d_hist_cap - start);
    if (!feed(&d_hist[(size_t)start * d_ff], first)) return false;
    if (kept > first && !feed(d_hist.data(), kept - first)) return false;
  }
  return true;
}

/* ------------------------------------------------------------ switching */

void core::add_pending(uint64_t at, const request &req) {
  auto it = d_switches.begin();
  while (it != d_switches.end() && it->at < at) ++it;
  if (it != d_switches.end() && it->at == at) {
    it->req.merge(req);
    return;
  }
  d_switches.insert(it, pending_switch{at, req});
}

void core::scan_tags(uint64_t end) {
  if (end <= d_tag_scan) return;
  std::vector<gr::tag_t> tags;
  get_tags_in_range(tags, 0, d_tag_scan, end, d_tag_key);
  d_tag_scan = end;
  std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
  for (const gr::tag_t &t : tags) {
    const pmt::pmt_t &v = t.value;
    request req;
    try {
      if (d_xlating && (pmt::is_real(v) || pmt::is_integer(v))) {
        const double hz = pmt::to_double(v);
        if (!std::isfinite(hz)) throw std::invalid_argument("the frequency is not finite");
        req.has_freq = true;
        req.freq = hz;
      } else {
        std::vector<gr_complex> vals;
        if (pmt::is_f32vector(v)) {
          for (float x : pmt::f32vector_elements(v)) vals.emplace_back(x, 0.0f);
        } else if (pmt::is_f64vector(v)) {
          for (double x : pmt::f64vector_elements(v)) vals.emplace_back((float)x, 0.0f);
        } else if (pmt::is_c32vector(v)) {
          vals = pmt::c32vector_elements(v);
        } else if (pmt::is_c64vector(v)) {
          for (const auto &x : pmt::c64vector_elements(v))
            vals.emplace_back((float)x.real(), (float)x.imag());
        } else if (pmt::is_vector(v)) {
          for (size_t i = 0; i < pmt::length(v); i++) {
            const std::complex<double> x = pmt::to_complex(pmt::vector_ref(v, i));
            vals.emplace_back((float)x.real(), (float)x.imag());
          }
        } else {
          throw std::invalid_argument(d_xlating ? "the value is neither taps nor a frequency"
                                                : "the value is not a vector of taps");
        }
        req.has_taps = true;
        req.taps = taps_from_tag(vals);
        check_taps(req.taps, d_cplx_taps);
      }
    } catch (const std::exception &e) {
      d_logger->warn("ignoring the tag {} on item {}: {}", pmt::symbol_to_string(d_tag_key),
                     t.offset, e.what());
      continue;
    }
    /* Start keeping the input a longer filter is primed with now, so
     * that it is there when the tagged item comes. */
    if (req.has_taps) hist_grow((int64_t)req.taps.size() - 1);
    add_pending((uint64_t)round_up(t.offset, d_decim), req);
  }
}

bool core::apply_due_switches(char *out, int noutput, int64_t &produced) {
  while (!d_switches.empty() && d_switches.front().at <= d_consumed) {
    request req = d_switches.front().req;
    d_switches.pop_front();
    while (!d_switches.empty() && d_switches.front().at <= d_consumed) {
      req.merge(d_switches.front().req);
      d_switches.pop_front();
    }
    const int64_t p = (int64_t)(req.has_taps ? req.taps.size() : d_taps.size()) - 1;
    if (d_hist_cap < p) hist_grow(p);
    const int64_t need = std::min<int64_t>(p, (int64_t)d_consumed);
    if (d_hist_valid < need) hist_refill(p);
    if (d_hist_valid < need) {
      /* Longer taps than GNU Radio's history holds: the switch waits
       * until p items have been kept. */
      add_pending((uint64_t)round_up(d_consumed + (uint64_t)(p - d_hist_valid), d_decim), req);
      break;
    }
    if (!do_switch(d_consumed, req, out, noutput, produced)) return false;
  }
  return true;
}

bool core::do_switch(uint64_t at, const request &req, char *out, int noutput, int64_t &produced) {
  const std::vector<gr_complex> &taps = req.has_taps ? req.taps : d_taps;
  const double freq = req.has_freq ? req.freq : d_freq;
  const int64_t p = (int64_t)taps.size() - 1;
  const double f_old = d_xlating ? d_freq / d_fs : 0.0;
  const double f_new = d_xlating ? freq / d_fs : 0.0;
  /* The rotator's phase at `at`, moved as GNU Radio moves it on a retune. */
  double phi = frac(d_phi_start + frac_mul(f_old, at - d_a_start));
  if (d_xlating) phi = frac(phi + frac_mul((f_new - f_old) / 2.0, (uint64_t)p));
  const gr_complex c = (gr_complex)std::polar(1.0, -two_pi * (phi - frac_mul(f_new, (uint64_t)p)));

  std::string err;
  convoy_stream *s = make_stream(taps, f_new, (int32_t)(p % d_decim), c, err);
  int64_t dropped = 0;
  if (s && !prime(s, p, at, dropped)) {
    err = convoy_stream_last_error(s);
    convoy_stream_destroy(s);
    s = nullptr;
  }
  if (!s) {
    d_logger->error("cannot switch filters at item {}: {}; the old filter goes on", at, err);
    return true;
  }

  /* The old stream's outputs before the switch. */
  const int64_t total = std::max<int64_t>(convoy_stream_flush_frames(d_stream), 1);
  if ((int64_t)d_scratch.size() < total * (int64_t)d_ff) d_scratch.resize((size_t)total * d_ff);
  int64_t got = 0;
  if (convoy_stream_flush(d_stream, d_scratch.data(), total, &got) != CONVOY_OK) {
    fail("convoy_stream_flush");
    convoy_stream_destroy(s);
    return false;
  }
  got = drop_discarded(d_scratch.data(), got);
  const int64_t keep = std::min<int64_t>(got, (int64_t)(at / (uint64_t)d_decim - d_stream_next));
  emit(d_scratch.data(), keep, out, noutput, produced);

  set_stream(s);
  d_discard = p / d_decim - dropped;
  d_stream_next = at / (uint64_t)d_decim;
  const bool taps_changed = req.has_taps;
  if (req.has_taps) d_taps = req.taps;
  d_freq = freq;
  d_phi_start = phi;
  d_a_start = at;

  const uint64_t tag_at = at / (uint64_t)d_decim;
  if (taps_changed)
    add_item_tag(0, tag_at, pmt::intern("convoy_taps"), pmt::from_long((long)taps.size()),
                 alias_pmt());
  if (d_xlating) add_item_tag(0, tag_at, pmt::intern("freq"), pmt::from_double(freq), alias_pmt());
  return true;
}

/* ------------------------------------------------------------ scheduling */

bool core::input_done_now(int64_t *remaining) {
  buffer_reader_sptr r = detail()->input(0);
  gr::thread::scoped_lock lock(*r->mutex());
  if (remaining) *remaining = r->items_available() - d_hold;
  return r->done();
}

void core::forecast(int noutput_items, gr_vector_int &ninput_items_required) {
  /* Outputs waiting here, or an upstream that has ended (the held-back
   * outputs are due): call general_work whatever the input. */
  bool now = fifo_frames() > 0;
  if (!now && !d_flushed) now = input_done_now(nullptr);
  ninput_items_required[0] = now ? 0 : noutput_items * d_decim + (int)d_hold;
}

int core::general_work(int noutput_items, gr_vector_int &ninput_items,
                       gr_vector_const_void_star &input_items, gr_vector_void_star &output_items) {
  const char *in = static_cast<const char *>(input_items[0]) + d_hold * d_ff * sizeof(float);
  char *out = static_cast<char *>(output_items[0]);
  const size_t fb = d_ff * sizeof(float);
  d_ran = true;

  int64_t produced = drain_fifo(out, noutput_items);
  if (fifo_frames() > 0 || d_flushed) {
    consume_each(0);
    return (int)produced;
  }
  {
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_have_request) {
      add_pending(d_consumed, d_request);
      d_request = request();
      d_have_request = false;
    }
  }
  d_call_in = in;
  d_call_start = d_consumed;
  const int64_t avail = ninput_items[0] - d_hold;
  if (!pmt::is_null(d_tag_key)) scan_tags(d_consumed + (uint64_t)avail);

  const int64_t whole = avail / d_decim * d_decim;
  int64_t pos = 0;
  bool ok = true;
  for (;;) {
    if (!apply_due_switches(out, noutput_items, produced)) {
      ok = false;
      break;
    }
    if (fifo_frames() > 0) break;
    int64_t seg = whole - pos;
    if (!d_switches.empty())
      seg = std::min<int64_t>(seg, (int64_t)(d_switches.front().at - d_consumed));
    if (seg <= 0) break;
    const int64_t cap = noutput_items - produced;
    int64_t n = fit(seg, cap);
    if (n > 0) {
      int64_t delivered = 0;
      if (!process_direct(in + (size_t)pos * fb, n, out + (size_t)produced * fb, cap, delivered)) {
        ok = false;
        break;
      }
      produced += delivered;
    } else {
      /* The stream's next output does not fit: through the scratch
       * buffer, the rest of it waiting in the FIFO. */
      if (produced > 0) break;
      n = std::min<int64_t>(seg, std::max<int64_t>(scratch_chunk / d_decim, 1) * d_decim);
      int64_t got = 0;
      if (!process_scratch(in + (size_t)pos * fb, n, got)) {
        ok = false;
        break;
      }
      emit(d_scratch.data(), got, out, noutput_items, produced);
    }
    hist_push(in + (size_t)pos * fb, n);
    pos += n;
    d_consumed += (uint64_t)n;
  }
  consume_each((int)pos);
  d_call_in = nullptr;
  if (!ok) return WORK_DONE;

  int64_t remaining = 0;
  if (input_done_now(&remaining) && remaining < d_decim) {
    if (!flush_to_end(out, noutput_items, produced)) return WORK_DONE;
  }
  return (int)produced;
}

} // namespace convoy
} // namespace gr
