#!/bin/bash
# output_hashes.sh BUILD_DIR [ENGINE ...]
#
# Runs a fixed set of `convoy filter` jobs (audio and captures; real and
# complex; decimating, frequency-shifting, matched and batched pulses) on
# deterministic inputs, once per ENGINE (default: cpu-direct cpu-fft), and
# prints "SHA-256  job" for every output file. Two builds that print the same
# lines produced the same bits. Restructuring the code must not change them:
# run this before and after, on the CPU and on a GPU machine
# (ENGINES: gpu-direct gpu-fft auto), and compare.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
shift
ENGINES=("$@")
[ ${#ENGINES[@]} -gt 0 ] || ENGINES=(cpu-direct cpu-fft)
CONVOY="$BUILD/convoy"
GEN="$BUILD/tests/gen_audio"
REF="$BUILD/tests/matched_ref"
AUDIO_CHECK="$BUILD/tests/audio_check"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/convoy-hashes.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# Inputs: seeded, so every machine makes the same bytes.
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

job() { # NAME ARGS...: one filter run, output named NAME.*
  local name=$1
  shift
  "$CONVOY" filter "$@" -q -y >/dev/null 2>"$name.err" || {
    echo "FAILED  $name: $(head -c 300 "$name.err")"
    return 0
  }
}

for e in "${ENGINES[@]}"; do
  E=(--engine "$e")
  job "$e.wav_lp" stereo.wav "$e.wav_lp.wav" --taps lp.txt "${E[@]}"
  job "$e.wav_long_pcm16" stereo.wav "$e.wav_long_pcm16.wav" --taps long.txt --subtype pcm16 \
    "${E[@]}"
  job "$e.wav_tail_norm" mono16.wav "$e.wav_tail_norm.flac" --taps long.txt --tail --normalize \
    "${E[@]}"
  job "$e.wav_align_gain" stereo.wav "$e.wav_align_gain.wav" \
    --design highpass:cutoff=80,width=40 --align --gain 3 --subtype pcm24 "${E[@]}"
  job "$e.cu8_real" raw.cu8 "$e.cu8_real.cf32" --taps lp.txt "${E[@]}"
  job "$e.cu8_complex_ci16" raw.cu8 "$e.cu8_complex_ci16.ci16_le" --taps ctaps.cf32 "${E[@]}"
  job "$e.cu8_decim" raw.cu8 "$e.cu8_decim.cf32" --taps long.txt --decimate 7 "${E[@]}"
  job "$e.cu8_shift_decim" raw.cu8 "$e.cu8_shift_decim.sigmf-meta" --rate 2.4e6 --shift 3e5 \
    --design lowpass:cutoff=1e5,width=2e4 --decimate 5 --align "${E[@]}"
  job "$e.cf32_skip_count" rx.cf32 "$e.cf32_skip_count.cf32" --taps lp.txt --skip 1001 \
    --count 77777 --tail "${E[@]}"
  for mode in full same valid; do
    job "$e.matched_$mode" rx.cf32 "$e.matched_$mode.cf32" --matched chirp.cf32 --mode $mode \
      --window hamming "${E[@]}"
  done
  job "$e.matched_decim" rx.cf32 "$e.matched_decim.cf32" --matched chirp.cf32 --decimate 3 \
    --normalize-template "${E[@]}"
  job "$e.pulses" pulses.cf32 "$e.pulses.cf32" --matched chirp.cf32 --pulse-len 4000 --mode same \
    "${E[@]}"
done
rm -f ./*.err
find . -maxdepth 1 -type f ! -name 'stereo.wav' ! -name 'mono16.wav' ! -name 'chirp.cf32' \
  ! -name 'rx.cf32' ! -name 'pulses.cf32' ! -name 'raw.cu8' ! -name 'ctaps.cf32' \
  ! -name 'long.txt' ! -name 'lp.txt' -printf '%f\n' | LC_ALL=C sort | while read -r f; do
  case $f in # audio: the samples and format, not the headers (PEAK has a time stamp)
  *.wav | *.flac) sum=$("$AUDIO_CHECK" samples "$f" | sha256sum) ;;
  *) sum=$(sha256sum <"$f") ;;
  esac
  printf '%s  %s\n' "${sum:0:64}" "$f"
done
