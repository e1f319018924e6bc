# convoy - a thin wrapper over CMake.
#
#   make demo          install what is missing, build, filter the bundled recording
#   make test          install what is missing (and GNU Radio for its blocks'
#                      tests), build, run the suite, then again under
#                      AddressSanitizer + UndefinedBehaviorSanitizer
#   make build         configure and build only (build/, Release)
#   make clean         remove the build trees
#   make format        clang-format the C, C++ and CUDA sources in place
#   make format-check  fail when a source is not formatted
#
# Variables: BUILD (build/), ASAN_BUILD (build-asan/), JOBS (all cores),
# CMAKE_FLAGS (extra -D options, e.g. CMAKE_FLAGS=-DCONVOY_CUDA=OFF).

BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CTEST_JOBS ?= 2
CMAKE_FLAGS ?=

# Debian/Ubuntu packages the build needs (the CUDA toolkit is optional and
# is found by CMake when installed): PortAudio and libsamplerate are for
# `convoy live` (left out of a build without them, but installed here so that
# it is built and tested), libjack for its native JACK backend (optional
# within live), jackd2 for its tests against a JACK server (dummy driver);
# pkg-config and binutils (readelf, nm) also for the tests of the exported
# symbols and of a program built against the installed library; mandoc for
# the manual pages' tests, bash-completion for the completion's test and its
# install folder; python3-jsonschema for the tests' check of SigMF output
# against SigMF's schema, python3 with numpy, cffi (the Python package and
# its install, the references of `convoy design --response`),
# scipy (the Python tests' reference), setuptools, wheel and pip (its pip
# install test). (Chromium, for the test that renders the SVGs, is left out:
# it is large; that test is skipped without it.)
DEB_PACKAGES := cmake make gcc libc6-dev pkg-config binutils libfftw3-dev libsndfile1-dev \
                libcjson-dev portaudio19-dev libjack-jackd2-dev libsamplerate0-dev jackd2 mandoc \
                bash-completion python3 python3-jsonschema python3-numpy python3-scipy python3-cffi \
                python3-setuptools python3-wheel python3-pip
# What `make test` adds for optional parts that are large: GNU Radio 3.10 and
# pybind11 for the GNU Radio blocks in gnuradio/ (CONVOY_GNURADIO=AUTO) and
# their tests (g++ comes with gnuradio-dev); Open MPI for `mpirun convoy
# filter` (CONVOY_MPI=AUTO) and its tests. Installed when running as root;
# otherwise their tests are left out, with a note.
DEB_TEST_PACKAGES := gnuradio-dev pybind11-dev g++ libopenmpi-dev openmpi-bin

DEMO_IN := examples/noisy_speech.wav
DEMO_OUT := $(BUILD)/demo/clean_speech.wav
# Keep the voice band, drop the 50/100/150 Hz hum below it and the hiss above it.
DEMO_FILTER := bandpass:low=200,high=3800,width=100,atten=80

SOURCE_DIRS := include pipeline cpu cuda filters io cli tests examples bench gnuradio

.PHONY: all deps deps-test configure build demo test test-asan clean format format-check

all: build

# `make test` installs the test-only packages before anything is configured.
deps: $(if $(filter test,$(MAKECMDGOALS)),deps-test)
	@if command -v dpkg-query >/dev/null 2>&1; then \
	  missing=""; \
	  for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" \
	      || missing="$$missing $$p"; \
	  done; \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	      echo "installing:$$missing"; \
	      export DEBIAN_FRONTEND=noninteractive; \
	      apt-get update && apt-get install -y --no-install-recommends $$missing || exit 1; \
	    else \
	      echo "convoy needs these packages:$$missing" >&2; \
	      echo "install them with:" >&2; \
	      echo "  sudo apt-get install -y$$missing" >&2; \
	      echo "then run make again." >&2; \
	      exit 1; \
	    fi; \
	  fi; \
	else \
	  for c in cmake cc pkg-config; do \
	    command -v $$c >/dev/null || { echo "convoy needs $$c (not found)" >&2; exit 1; }; \
	  done; \
	  pkg-config --exists fftw3f sndfile libcjson \
	    || { echo "convoy needs FFTW3 (single precision), libsndfile and cJSON development files" >&2; exit 1; }; \
	  pkg-config --exists portaudio-2.0 samplerate \
	    || echo "note: without PortAudio and libsamplerate development files, convoy live is left out" >&2; \
	fi

deps-test:
	@if command -v dpkg-query >/dev/null 2>&1; then \
	  missing=""; \
	  for p in $(DEB_TEST_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" \
	      || missing="$$missing $$p"; \
	  done; \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	      echo "installing for the tests:$$missing"; \
	      export DEBIAN_FRONTEND=noninteractive; \
	      apt-get update && apt-get install -y --no-install-recommends $$missing || exit 1; \
	    else \
	      echo "note: without$$missing the GNU Radio blocks and their tests are left out" >&2; \
	      echo "  (sudo apt-get install -y$$missing to include them)" >&2; \
	    fi; \
	  fi; \
	fi

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	env -u MAKEFLAGS -u MAKELEVEL cmake --build $(BUILD) -j$(JOBS)

demo: build
	@mkdir -p $(dir $(DEMO_OUT))
	@echo
	@echo "== filtering $(DEMO_IN): speech with 50 Hz mains hum and hiss"
	$(BUILD)/convoy filter $(DEMO_IN) $(DEMO_OUT) --design $(DEMO_FILTER) -y
	@echo
	@echo "== level in dBFS (RMS) per band, before -> after"
	@$(BUILD)/example_band_level $(DEMO_IN) $(DEMO_OUT)
	@echo
	@echo "result: $(abspath $(DEMO_OUT))"
	@echo "listen: play $(DEMO_IN) then play $(DEMO_OUT)   (sox; or aplay, ffplay -nodisp)"

# After each suite, why its GPU tests were skipped, when they were.
GPU_SKIP_NOTE = sed -n 's/^GPUs: *none (\(.*\))$$/note: the GPU tests were skipped: \1/p'

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(CTEST_JOBS)
	@$(BUILD)/convoy info | $(GPU_SKIP_NOTE)
	$(MAKE) --no-print-directory test-asan

# The same suite built with ASan + UBSan (CPU only), sizes shrunk.
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONVOY_SANITIZE=ON \
	  -DCONVOY_CUDA=OFF $(CMAKE_FLAGS)
	env -u MAKEFLAGS -u MAKELEVEL cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && CONVOY_TEST_QUICK=1 \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j$(CTEST_JOBS)
	@$(ASAN_BUILD)/convoy info | $(GPU_SKIP_NOTE)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)

format:
	@command -v clang-format >/dev/null || { echo "make format needs clang-format" >&2; exit 1; }
	find $(SOURCE_DIRS) -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cu' \
	  -o -name '*.cuh' \) -exec clang-format -i {} +

format-check:
	@command -v clang-format >/dev/null || { echo "make format-check needs clang-format" >&2; exit 1; }
	find $(SOURCE_DIRS) -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cu' \
	  -o -name '*.cuh' \) -exec clang-format --dry-run -Werror {} +
