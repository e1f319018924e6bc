#!/bin/bash
# Integer audio made on the GPU: with a GPU engine and nothing between the
# stream and the file (no gain, no --align, no warm start), the stream
# quantizes with the output's dither and seed, and the host only writes. The
# codes must be the ones the host quantizer makes of the same engine's float
# output: that output written as float, then quantized by an identity filter
# on a CPU engine. Clipping is included (taps loud enough), dither on and
# off, 16/24/32 bits, WAV and FLAC. Skips (77) without a usable GPU.
source "$(dirname "$0")/common.bash"

"$CONVOY" info | grep -Eq "^ +gpu-fft +available" || {
  echo "no usable GPU: skipped"
  exit 77
}

gen in.wav --frames 300007 --channels 2 --rate 48000 --signal noise --amp 0.9
awk 'BEGIN { srand(3); for (i = 0; i < 31; i++) printf "%.9g\n", (2 * rand() - 1) * 0.4 }' >loud.txt
echo 1 >one.txt

# level_line FILE: the summary's level line of a run's stderr.
level_line() { grep "level" "$1"; }

for e in gpu-fft gpu-direct; do
  run filter in.wav "f_$e.wav" --taps loud.txt --engine $e --subtype float -q -y
  expect_status 0 "$e float output"
  for out in "wav pcm16" "wav pcm24" "wav pcm32" "flac pcm16" "flac pcm24"; do
    set -- $out
    for d in "" --no-dither; do
      what="$e to $1 $2${d:+ $d}"
      run filter "f_$e.wav" "host.$1" --taps one.txt --engine cpu-direct --subtype $2 $d -y
      expect_status 0 "$what, quantized by the host"
      cp stderr.txt host_err.txt
      run filter in.wav "gpu.$1" --taps loud.txt --engine $e --subtype $2 $d -v -y
      expect_status 0 "$what, quantized by the stream"
      check "$what: no quantizing on the host (the stream made the codes)" \
        bash -c '! grep -q "encode [0-9]" stderr.txt'
      if [ "$1 $2" = "wav pcm24" ]; then
        check "$what: the stream's codes packed to 3 bytes off the writer's thread" \
          grep -q "pack [0-9]" stderr.txt
      fi
      check "$what: the same codes as the host's" cmp -s "host.$1" "gpu.$1"
      check "$what: the same level and clip count" \
        test "$(level_line stderr.txt)" = "$(level_line host_err.txt)"
    done
  done
done
# Where the stream's output is not the file's (a gain, --align), the host
# still quantizes: an encoder thread, and the codes of the float output.
run filter in.wav g.wav --taps loud.txt --engine gpu-fft --subtype pcm16 --gain -3 -v
expect_status 0 "gain on the GPU engine"
check "gain: the host quantizes" grep -q "encode [0-9]" stderr.txt

finish
