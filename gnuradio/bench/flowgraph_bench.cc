/*
 * flowgraph_bench.cc - flowgraph throughput of convoy's fir_filter_ccc,
 * with any engine (a GPU one included), beside GNU Radio's fft_filter_ccc,
 * from C++: no Python, so that it runs where GNU Radio's Python is not
 * installed (the GPU machine, with GNU Radio's libraries carried there).
 *
 *   convoy_gr_flowgraph_bench [--samples N] [--runs R] [--taps LIST]
 *                             [--decim LIST] [--engines LIST]
 *
 * Flowgraph: blocks.null_source(complex) -> blocks.head(N) -> filter ->
 * blocks.null_sink, random complex taps (seeded). For each taps and
 * decimation: convoy's block for each engine of --engines (default
 * "auto,cpu-fft") and GNU Radio's fft_filter_ccc (nthreads 1, its default
 * buffers), interleaved run by run; prints the median wall time of R runs
 * and the input rate (MS/s), and each convoy row's plan. Exit status 1 when
 * a flowgraph fails or an engine cannot be made.
 */
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/convoy/fir_filter_ccc.h>
#include <gnuradio/filter/fft_filter_ccc.h>
#include <gnuradio/top_block.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

/* Seconds for one run of src -> head(n) -> block -> sink. */
double run_once(gr::basic_block_sptr block, long n) {
  auto tb = gr::make_top_block("bench");
  auto src = gr::blocks::null_source::make(sizeof(gr_complex));
  auto head = gr::blocks::head::make(sizeof(gr_complex), (uint64_t)n);
  auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
  tb->connect(src, 0, head, 0);
  tb->connect(head, 0, block, 0);
  tb->connect(block, 0, sink, 0);
  const auto t0 = std::chrono::steady_clock::now();
  tb->run();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct row {
  std::string name;
  std::function<gr::basic_block_sptr()> make;
  std::string plan;
  std::vector<double> secs;
};

} // namespace

int main(int argc, char **argv) {
  long samples = 1L << 27;
  int runs = 5;
  std::vector<std::string> taps_list = {"128", "1024"}, decim_list = {"1", "8"},
                           engines = {"auto", "cpu-fft"};
  for (int i = 1; i < argc; i += 2) { // options and their values come in pairs
    const std::string a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!v) {
      std::fprintf(stderr, "convoy_gr_flowgraph_bench: %s needs a value\n", a.c_str());
      return 2;
    }
    if (a == "--samples")
      samples = std::atol(v);
    else if (a == "--runs")
      runs = std::atoi(v);
    else if (a == "--taps")
      taps_list = split(v);
    else if (a == "--decim")
      decim_list = split(v);
    else if (a == "--engines")
      engines = split(v);
    else {
      std::fprintf(stderr, "convoy_gr_flowgraph_bench: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (samples < 1 || runs < 1) {
    std::fprintf(stderr, "convoy_gr_flowgraph_bench: --samples and --runs must be positive\n");
    return 2;
  }
  std::printf("%ld complex samples a run, median of %d runs\n", samples, runs);
  std::printf("| taps | D | filter | median s | MS/s | plan |\n|---:|---:|---|---:|---:|---|\n");
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const auto &ts : taps_list) {
    const int ntaps = std::atoi(ts.c_str());
    std::vector<gr_complex> taps(ntaps);
    for (auto &t : taps) t = gr_complex(u(rng), u(rng)) / (float)ntaps;
    for (const auto &ds : decim_list) {
      const int decim = std::atoi(ds.c_str());
      std::vector<row> rows;
      for (const auto &e : engines) {
        std::string plan;
        try {
          plan = gr::convoy::fir_filter_ccc::make(decim, taps, e)->describe();
        } catch (const std::exception &ex) {
          std::fprintf(stderr, "convoy_gr_flowgraph_bench: engine %s: %s\n", e.c_str(), ex.what());
          return 1;
        }
        rows.push_back({"convoy fir_filter_ccc engine=" + e,
                        [=] { return gr::convoy::fir_filter_ccc::make(decim, taps, e); },
                        plan,
                        {}});
      }
      rows.push_back({"GNU Radio fft_filter_ccc nthreads=1",
                      [=] { return gr::filter::fft_filter_ccc::make(decim, taps, 1); },
                      "",
                      {}});
      for (int r = 0; r < runs; r++)
        for (auto &rw : rows) rw.secs.push_back(run_once(rw.make(), samples));
      for (auto &rw : rows) {
        const double s = median(rw.secs);
        std::printf("| %d | %d | %s | %.3f | %.1f | %s |\n", ntaps, decim, rw.name.c_str(), s,
                    (double)samples / s / 1e6, rw.plan.c_str());
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
