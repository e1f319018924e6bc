#
# gnuradio.convoy - GNU Radio blocks on libconvoy's streaming FIR engines.
#
"""
GNU Radio blocks on libconvoy, convoy's streaming convolution library:

  fir_filter_fff, fir_filter_ccf, fir_filter_ccc   decimating FIR filters
  freq_xlating_fir_filter_ccf, _ccc                 frequency-translating FIR filters
  matched_filter_cc                                 correlation with a template

Each takes engine ("auto", "cpu", "gpu" or an engine name), device (GPU
index, -1 default), tag_key (input tags that switch taps) and nthreads. See
include/gnuradio/convoy/filter_base.h for the alignment and taps changes.
"""

from .convoy_python import *  # noqa: F401,F403
