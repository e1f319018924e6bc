/*
 * python_bindings.cc - the module gnuradio.convoy.convoy_python (pybind11):
 * the blocks of include/gnuradio/convoy/, on gnuradio.gr's block classes.
 */
#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/convoy/filter_base.h>
#include <gnuradio/convoy/fir_filter_ccc.h>
#include <gnuradio/convoy/fir_filter_ccf.h>
#include <gnuradio/convoy/fir_filter_fff.h>
#include <gnuradio/convoy/freq_xlating_fir_filter_ccc.h>
#include <gnuradio/convoy/freq_xlating_fir_filter_ccf.h>
#include <gnuradio/convoy/matched_filter_cc.h>

#include <convoy.h>

namespace py = pybind11;
using namespace gr::convoy;

namespace {

template <class B, class TAP> void bind_fir(py::module &m, const char *name, const char *doc) {
  py::class_<B, filter_base, gr::block, gr::basic_block, std::shared_ptr<B>>(m, name, doc)
      .def(py::init(&B::make), py::arg("decimation"), py::arg("taps"), py::arg("engine") = "auto",
           py::arg("device") = -1, py::arg("tag_key") = "", py::arg("nthreads") = 1)
      .def("set_taps", &B::set_taps, py::arg("taps"))
      .def("taps", &B::taps);
}

template <class B, class TAP> void bind_xlating(py::module &m, const char *name, const char *doc) {
  py::class_<B, filter_base, gr::block, gr::basic_block, std::shared_ptr<B>>(m, name, doc)
      .def(py::init(&B::make), py::arg("decimation"), py::arg("taps"), py::arg("center_freq"),
           py::arg("sampling_freq"), py::arg("engine") = "auto", py::arg("device") = -1,
           py::arg("tag_key") = "", py::arg("nthreads") = 1)
      .def("set_taps", &B::set_taps, py::arg("taps"))
      .def("taps", &B::taps)
      .def("set_center_freq", &B::set_center_freq, py::arg("center_freq"))
      .def("center_freq", &B::center_freq);
}

} // namespace

PYBIND11_MODULE(convoy_python, m) {
  // The base classes gr.block and gr.basic_block live there.
  py::module::import("gnuradio.gr");

  m.doc() = "GNU Radio blocks on libconvoy's streaming FIR engines";
  m.def("version", &convoy_version, "libconvoy's version, MAJOR.MINOR.PATCH");
  m.def("gpu_count", &convoy_gpu_count, "usable CUDA devices (0 without CUDA)");

  py::class_<filter_base, gr::block, gr::basic_block, std::shared_ptr<filter_base>>(
      m, "filter_base", "What every convoy block shares (see filter_base.h)")
      .def("engine", &filter_base::engine, "the engine running now")
      .def("describe", &filter_base::describe, "convoy_stream_describe() of the stream")
      .def("decimation", &filter_base::decimation)
      .def("latency", &filter_base::latency, "input items the engine may hold back");

  bind_fir<fir_filter_fff, float>(m, "fir_filter_fff",
                                  "Decimating FIR filter, real samples and taps, on libconvoy");
  bind_fir<fir_filter_ccf, float>(
      m, "fir_filter_ccf", "Decimating FIR filter, complex samples, real taps, on libconvoy");
  bind_fir<fir_filter_ccc, gr_complex>(
      m, "fir_filter_ccc", "Decimating FIR filter, complex samples and taps, on libconvoy");
  bind_xlating<freq_xlating_fir_filter_ccf, float>(
      m, "freq_xlating_fir_filter_ccf",
      "Frequency-translating decimating FIR filter, real taps, on libconvoy");
  bind_xlating<freq_xlating_fir_filter_ccc, gr_complex>(
      m, "freq_xlating_fir_filter_ccc",
      "Frequency-translating decimating FIR filter, complex taps, on libconvoy");

  py::class_<matched_filter_cc, filter_base, gr::block, gr::basic_block,
             std::shared_ptr<matched_filter_cc>>(
      m, "matched_filter_cc", "Correlation with a template (full alignment), on libconvoy")
      .def(py::init(&matched_filter_cc::make), py::arg("waveform"), py::arg("window") = "none",
           py::arg("normalize") = false, py::arg("decimation") = 1, py::arg("engine") = "auto",
           py::arg("device") = -1, py::arg("tag_key") = "", py::arg("nthreads") = 1)
      .def("set_template", &matched_filter_cc::set_template, py::arg("waveform"))
      .def("waveform", &matched_filter_cc::waveform)
      .def("taps", &matched_filter_cc::taps);
}
