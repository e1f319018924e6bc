/*
 * convoy_core.h - the machinery every convoy block shares: a convoy_stream
 * driven from general_work, outputs that do not fit kept for the next call,
 * the end of the stream flushed, taps switched at a sample boundary.
 *
 * The blocks' classes derive from their public interface and from
 * convoy_core, both with gr::block as a virtual base (the block's own
 * constructor constructs gr::block). See filter_base.h for what the blocks
 * promise; the notes here are about how.
 *
 * Frames: one input item is one frame of a mono convoy stream (float, or
 * gr_complex as re, im), so GNU Radio's buffers go to convoy as they are.
 *
 * Switching: a request (new taps and/or center frequency) becomes a switch
 * at an absolute input item A (a multiple of D). At A a new stream is made
 * and primed with the P = ntaps - 1 input items before A (kept in a ring
 * here, zeros before the first item), its decimation phase P mod D so that
 * it keeps outputs at multiples of D; its first floor(P / D) outputs are
 * dropped. The old stream is flushed and its outputs before A / D kept.
 *
 * Scheduling: the block is a gr::block of relative rate 1/D whose outputs
 * may come calls after their input (the FFT and GPU engines hold input
 * back). forecast() asks for D items an output, and for none while outputs
 * wait in the FIFO or once the upstream has ended, so that general_work then
 * flushes the stream (outputs up to the last whole group of D items, none
 * of the ring-out). Outputs are written straight into GNU Radio's buffer
 * when they fit (the input fed is cut so that convoy_stream_max_output()
 * fits the room), else through a scratch buffer into the FIFO. A declared
 * history (items skipped at each call's start) makes GNU Radio give the
 * upstream buffer room for calls of tens of thousands of items.
 *
 * Phase (frequency-translating blocks): the rotator's phase phi (cycles) at
 * input item k is phi_A + f (k - A) since the last switch at A. A stream
 * started at S = A - P computes y'[i] = e^{-j 2 pi f (k - S)} F(k) (convoy's
 * shift counts from its own start; F is the filter with taps rotated by
 * e^{j 2 pi f j}), so its taps are multiplied once by the constant
 * c = e^{-j 2 pi (phi_A - f P)}, which makes its outputs e^{-j 2 pi phi(k)} F(k):
 * no work per sample.
 */
#ifndef INCLUDED_CONVOY_GR_CORE_H
#define INCLUDED_CONVOY_GR_CORE_H

#include <gnuradio/block.h>
#include <gnuradio/gr_complex.h>

#include <convoy.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace convoy {

struct core_options {
  bool complex_items = true; /* gr_complex items (else float) */
  bool complex_taps = false; /* the block's taps type is gr_complex */
  bool xlating = false;      /* has a center frequency */
  double sampling_freq = 1.0;
  double center_freq = 0.0;
  int decimation = 1;
  std::string engine = "auto";
  int device = -1;
  std::string tag_key;
  int nthreads = 1;
};

/* frac(f * n) in [0, 1), to about 1e-16 for any 64-bit n (f * n itself is
 * not representable in double beyond 2^53). */
double frac_mul(double f, uint64_t n);

class core : virtual public gr::block {
public:
  ~core() override;

  int general_work(int noutput_items, gr_vector_int &ninput_items,
                   gr_vector_const_void_star &input_items,
                   gr_vector_void_star &output_items) override;
  void forecast(int noutput_items, gr_vector_int &ninput_items_required) override;
  bool start() override;

protected:
  /* taps: the filter's taps as complex (imaginary parts 0 for real taps).
   * Throws std::invalid_argument for bad parameters, std::runtime_error
   * when convoy cannot make the stream. */
  core(const core_options &opt, const std::vector<gr_complex> &taps);

  /* Requests, from any thread; validated here (std::invalid_argument). */
  void request_taps(const std::vector<gr_complex> &taps);
  void request_center_freq(double hz);
  void handle_freq_message(const pmt::pmt_t &msg);

  /* The block's taps from a tag's vector (identity; the matched filter
   * makes a template into its taps). Throws std::invalid_argument. */
  virtual std::vector<gr_complex> taps_from_tag(const std::vector<gr_complex> &v);

  /* For the getters: the latest taps and frequency asked for. */
  std::vector<gr_complex> wanted_taps() const;
  double wanted_center_freq() const;

  std::string core_engine() const;
  std::string core_describe() const;
  int core_decimation() const { return d_decim; }
  long core_latency() const;

  static void check_taps(const std::vector<gr_complex> &taps, bool complex_taps);

private:
  struct request {
    bool has_taps = false;
    std::vector<gr_complex> taps;
    bool has_freq = false;
    double freq = 0.0;
    void merge(const request &later);
  };
  struct pending_switch {
    uint64_t at; /* absolute input item, a multiple of D */
    request req;
  };

  convoy_stream *make_stream(const std::vector<gr_complex> &taps, double f, int32_t phase,
                             gr_complex c, std::string &err, convoy_status *status = nullptr);
  void reset_state();
  void scan_tags(uint64_t end);
  void add_pending(uint64_t at, const request &req);
  bool apply_due_switches(char *out, int noutput, int64_t &produced);
  bool do_switch(uint64_t at, const request &req, char *out, int noutput, int64_t &produced);
  int64_t fit(int64_t max_frames, int64_t capacity) const;
  int64_t drop_discarded(float *frames, int64_t n);
  bool process_direct(const char *in, int64_t n, char *out, int64_t capacity, int64_t &delivered);
  bool process_scratch(const char *in, int64_t n, int64_t &got);
  void emit(const float *frames, int64_t n, char *out, int noutput, int64_t &produced);
  int64_t drain_fifo(char *out, int noutput);
  int64_t fifo_frames() const;
  void hist_push(const char *in, int64_t n);
  void hist_refill(int64_t p);
  void hist_grow(int64_t cap);
  bool prime(convoy_stream *s, int64_t p, uint64_t at, int64_t &dropped);
  bool flush_to_end(char *out, int noutput, int64_t &produced);
  bool input_done_now(int64_t *remaining);
  void set_stream(convoy_stream *s);
  void fail(const std::string &what);

  /* fixed at construction */
  const bool d_cplx_items;
  const bool d_cplx_taps;
  const bool d_xlating;
  const double d_fs;
  const int d_decim;
  const size_t d_ff; /* floats per frame: 1 or 2 */
  convoy_engine d_engine;
  int d_device;
  int d_threads;
  int64_t d_hold = 0;        /* declared history - 1: items skipped at each call's start */
  std::string d_engine_name; /* of d_stream, for the getters (under d_mutex) */
  std::string d_describe;
  long d_latency = 0;
  pmt::pmt_t d_tag_key; /* PMT_NIL: no switching by tags */

  /* settings in effect (work thread) */
  std::vector<gr_complex> d_taps;
  double d_freq;      /* Hz */
  double d_phi_start; /* rotator phase at d_a_start, cycles in [0, 1) */
  uint64_t d_a_start; /* input item where the settings took effect */

  /* requests (any thread) */
  mutable std::mutex d_mutex;
  bool d_have_request = false;
  request d_request;
  std::vector<gr_complex> d_want_taps;
  double d_want_freq;

  /* stream and positions (work thread) */
  convoy_stream *d_stream = nullptr;
  uint64_t d_consumed = 0;    /* input items fed to streams */
  uint64_t d_stream_next = 0; /* output index of the stream's next output */
  int64_t d_discard = 0;      /* stream outputs still to drop (priming) */
  bool d_flushed = false;
  bool d_ran = false;
  std::deque<pending_switch> d_switches;
  uint64_t d_tag_scan = 0;

  /* outputs waiting for room downstream, and work space */
  std::vector<float> d_fifo;
  size_t d_fifo_pos = 0; /* floats */
  std::vector<float> d_scratch;

  /* the last d_hist_valid input frames, a ring of d_hist_cap frames */
  std::vector<float> d_hist;
  int64_t d_hist_cap = 0;
  int64_t d_hist_valid = 0;
  int64_t d_hist_w = 0;

  /* this call's input: the item d_call_start (the first new one), with the
   * d_hold items before it readable too (GNU Radio's history) */
  const char *d_call_in = nullptr;
  uint64_t d_call_start = 0;
};

} // namespace convoy
} // namespace gr

#endif /* INCLUDED_CONVOY_GR_CORE_H */
