#!/bin/bash
# --version, the help texts, `convoy info`, and the GPU fallback notice.
source "$(dirname "$0")/common.bash"

run --version
expect_status 0 "--version"
check "--version prints 'convoy X.Y.Z'" grep -qE '^convoy [0-9]+\.[0-9]+\.[0-9]+$' stdout.txt

for args in --help help "help filter" "filter --help" "design --help" "info --help"; do
  run $args
  expect_status 0 "convoy $args"
  check "convoy $args prints usage" grep -q "Usage: convoy" stdout.txt
done
run filter --help
check "filter --help has examples" grep -q -- "--design highpass" stdout.txt
check "filter --help documents --normalize's default" grep -q -- "--normalize.*default -1" stdout.txt
check "filter --help documents --cold-start" grep -q -- "--cold-start" stdout.txt
run --help
for cmd in filter design info bench; do
  check "--help lists $cmd" grep -q "^  $cmd" stdout.txt
done

run info
expect_status 0 "info"
for key in FFTW libsndfile "CUDA engines" cpu-direct cpu-fft gpu-direct gpu-fft \
  "CPU threads" GPUs; do
  check "info shows $key" grep -q "$key" stdout.txt
done
check "info: cpu-direct available" grep -qE "cpu-direct +available" stdout.txt

# A GPU engine where none can run: one notice, then the CPU engine.
gen in.wav --frames 1000 --channels 1 --rate 48000 --signal noise
printf '0.5\n0.5\n' >taps.txt
if grep -qE "gpu-direct +available" stdout.txt; then
  echo "note: a GPU is available here; the fallback check is skipped"
else
  for engine in gpu gpu-direct gpu-fft; do
    run filter in.wav o_$engine.wav --taps taps.txt --engine $engine
    expect_status 0 "--engine $engine without a GPU"
    check "--engine $engine without a GPU: one notice line" \
      test "$(grep -c "engine not available" stderr.txt)" -eq 1
    check "--engine $engine without a GPU: a CPU engine ran" grep -qE "engine cpu" stderr.txt
    run filter in.wav o2_$engine.wav --taps taps.txt --engine $engine -q
    check "--engine $engine -q: silent" test ! -s stderr.txt
  done
fi

run filter in.wav o_v.wav --taps taps.txt -v
check "-v prints the plan" grep -q "plan:" stderr.txt
check "summary names the engine" grep -Eq "engine (cpu|gpu)-" stderr.txt
check "summary gives the speed" grep -q "x real time" stderr.txt

finish
