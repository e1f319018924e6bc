#!/bin/bash
# output_hashes.sh BUILD_DIR [--decimation] [ENGINE ...]
#
# Runs a fixed set of `convoy filter` jobs on deterministic inputs, once per
# ENGINE (default: cpu-direct cpu-fft), as many at a time as there are
# processors, and prints "SHA-256  job" for every output file. Two builds
# that print the same lines produced the same bits. Restructuring the code
# must not change them: run this before and after, on the CPU and on a GPU
# machine (ENGINES: gpu-direct gpu-fft auto), and compare.
#
# The jobs: audio and captures; real and complex; decimating,
# frequency-shifting, matched and batched pulses. With --decimation,
# instead, 260 decimating jobs an engine: D = 2, 3, 4, 5, 8, 12, 13, 16,
# 27, 32, 44, 64 and 100; real taps of 3 to 4096 on a float32 and a cu8
# capture, complex taps of 5 to 4096 on the cu8 capture.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
shift
SET=main
if [ "${1:-}" = --decimation ]; then
  SET=decimation
  shift
fi
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(cpu-direct cpu-fft)
CONVOY="$BUILD/convoy"
GEN="$BUILD/tests/gen_audio"
REF="$BUILD/tests/matched_ref"
AUDIO_CHECK="$BUILD/tests/audio_check"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/convoy-hashes.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
mkdir out

# Inputs: seeded, so every machine makes the same bytes.
main_inputs() {
  "$GEN" stereo.wav --frames 200003 --channels 2 --rate 48000 --signal noise --amp 0.5 --seed 7
  "$GEN" mono16.wav --frames 99991 --channels 1 --rate 44100 --subtype pcm16 --signal noise \
    --amp 0.9 --seed 11
  "$REF" chirp chirp.cf32 100
  "$REF" hide rx.cf32 chirp.cf32 150001 3 0.2 1000 70000 140000
  "$REF" hide pulses.cf32 chirp.cf32 24000 6 0.1 50 4147 8244 12341 16438 20535
  python3 - <<'EOF'
import random, struct
random.seed(5)
with open("raw.cu8", "wb") as f:
    f.write(bytes(random.randrange(256) for _ in range(2 * 120007)))
with open("ctaps.cf32", "wb") as f:
    f.write(struct.pack("<66f", *[random.uniform(-0.2, 0.2) for _ in range(66)]))
with open("long.txt", "w") as f:
    f.write("\n".join("%.9g" % random.uniform(-0.01, 0.01) for _ in range(3000)))
EOF
  "$CONVOY" design lowpass:cutoff=4000,width=800,rate=48000 >lp.txt
}

decimation_inputs() {
  python3 - <<'EOF'
import random, struct
random.seed(23)
with open("in.cf32", "wb") as f:
    f.write(struct.pack("<%df" % (2 * 150001), *[random.uniform(-1, 1) for _ in range(2 * 150001)]))
with open("in.cu8", "wb") as f:
    f.write(bytes(random.randrange(256) for _ in range(2 * 120007)))
for n in (3, 16, 37, 100, 256, 1000, 1024, 4096):
    with open("r%d.txt" % n, "w") as f:
        f.write("\n".join("%.9g" % random.uniform(-0.1, 0.1) for _ in range(n)))
for n in (5, 100, 1024, 4096):
    with open("c%d.cf32" % n, "wb") as f:
        f.write(struct.pack("<%df" % (2 * n), *[random.uniform(-0.1, 0.1) for _ in range(2 * n)]))
EOF
}

# One line a job: its output's name (in out/), then the arguments of
# `convoy filter` after the input, the output and before --engine.
main_jobs() { # ENGINE
  local e=$1
  echo "$e.wav_lp.wav stereo.wav --taps lp.txt"
  echo "$e.wav_long_pcm16.wav stereo.wav --taps long.txt --subtype pcm16"
  echo "$e.wav_tail_norm.flac mono16.wav --taps long.txt --tail --normalize"
  echo "$e.wav_align_gain.wav stereo.wav --design highpass:cutoff=80,width=40 --align --gain 3" \
    "--subtype pcm24"
  echo "$e.cu8_real.cf32 raw.cu8 --taps lp.txt"
  echo "$e.cu8_complex_ci16.ci16_le raw.cu8 --taps ctaps.cf32"
  echo "$e.cu8_decim.cf32 raw.cu8 --taps long.txt --decimate 7"
  echo "$e.cu8_shift_decim.sigmf-meta raw.cu8 --rate 2.4e6 --shift 3e5" \
    "--design lowpass:cutoff=1e5,width=2e4 --decimate 5 --align"
  echo "$e.cf32_skip_count.cf32 rx.cf32 --taps lp.txt --skip 1001 --count 77777 --tail"
  for mode in full same valid; do
    echo "$e.matched_$mode.cf32 rx.cf32 --matched chirp.cf32 --mode $mode --window hamming"
  done
  echo "$e.matched_decim.cf32 rx.cf32 --matched chirp.cf32 --decimate 3 --normalize-template"
  echo "$e.pulses.cf32 pulses.cf32 --matched chirp.cf32 --pulse-len 4000 --mode same"
}

decimation_jobs() { # ENGINE
  local e=$1
  for d in 2 3 4 5 8 12 13 16 27 32 44 64 100; do
    for n in 3 16 37 100 256 1000 1024 4096; do
      echo "$e.real$n.d$d.cf32 in.cf32 --taps r$n.txt --decimate $d"
      echo "$e.real$n.d$d.cu8.cf32 in.cu8 --taps r$n.txt --decimate $d"
    done
    for n in 5 100 1024 4096; do echo "$e.complex$n.d$d.cu8.cf32 in.cu8 --taps c$n.cf32 --decimate $d"; done
  done
}

"${SET}_inputs"
export CONVOY
for e in "${ENGINES[@]}"; do "${SET}_jobs" "$e" | sed "s/\$/ --engine $e/"; done |
  xargs -P "$(nproc)" -L 1 bash -c 'name=$0 in=$1; shift
    "$CONVOY" filter "$in" "out/$name" "$@" -q -y >/dev/null 2>"$name.err" ||
      echo "FAILED  $name: $(head -c 300 "$name.err")"' | LC_ALL=C sort
cd out
shopt -s nullglob
LC_COLLATE=C
for f in *; do
  case $f in # audio: the samples and format, not the headers (PEAK has a time stamp)
  *.wav | *.flac) sum=$("$AUDIO_CHECK" samples "$f" | sha256sum) ;;
  *) sum=$(sha256sum <"$f") ;;
  esac
  printf '%s  %s\n' "${sum:0:64}" "$f"
done
