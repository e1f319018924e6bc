#!/usr/bin/env bash
# make_noisy_speech.sh - rebuilds examples/noisy_speech.wav, the recording the
# demo filters: real speech (the ALSA speaker-test voice prompts) with 50 Hz
# mains hum (harmonics at 100 and 150 Hz) and hiss above 4 kHz mixed in.
#
# Needs: alsa-utils (the voice prompts in /usr/share/sounds/alsa) and sox.
#   sudo apt-get install -y alsa-utils sox
# `make demo` does not run this; the generated file is part of the source tree.
# The output is repeatable (sox -R), so re-running gives the same file.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
voices=/usr/share/sounds/alsa
out=${1:-$here/noisy_speech.wav}
rate=16000

for tool in sox soxi; do
  command -v "$tool" >/dev/null || { echo "$0: needs $tool (apt-get install sox)" >&2; exit 1; }
done
[ -r "$voices/Front_Left.wav" ] ||
  { echo "$0: $voices/Front_Left.wav missing (apt-get install alsa-utils)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Speech: eight prompts with short pauses, mono, 16 kHz, peak -4 dBFS.
sox -R -n -r 48000 -c 1 -b 16 "$tmp/gap.wav" trim 0 0.3
parts=()
for name in Front_Left Front_Center Front_Right Side_Left Side_Right Rear_Left Rear_Center \
  Rear_Right; do
  parts+=("$voices/$name.wav" "$tmp/gap.wav")
done
sox -R "${parts[@]}" -b 32 -e float "$tmp/speech.wav" rate -v "$rate" norm -4
seconds=$(soxi -D "$tmp/speech.wav")

# Hum: 50 Hz mains with its 2nd and 3rd harmonics, clearly audible under the voice.
# (three synth channels, then mixed down to one with their amplitudes)
sox -R -r "$rate" -c 3 -n -c 1 -b 32 -e float "$tmp/hum.wav" \
  synth "$seconds" sine 50 sine 100 sine 150 remix 1v0.05,2v0.025,3v0.035
# Hiss: white noise above 4 kHz (steep sinc high-pass), low level.
sox -R -n -r "$rate" -c 1 -b 32 -e float "$tmp/hiss.wav" \
  synth "$seconds" whitenoise vol 0.06 sinc 4200

# -v 1 on each input: sum them as they are (sox -m would divide by three).
sox -R -m -v 1 "$tmp/speech.wav" -v 1 "$tmp/hum.wav" -v 1 "$tmp/hiss.wav" \
  -b 16 -e signed "$out" dither
echo "wrote $out ($(soxi -D "$out") s, $(soxi -r "$out") Hz)"
