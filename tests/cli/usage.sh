#!/bin/bash
# Usage errors: exit status 1, one line on stderr, nothing written.
source "$(dirname "$0")/common.bash"

gen in.wav --frames 1000 --channels 1 --rate 48000 --signal noise
printf '0.5\n0.5\n' >taps.txt
mkdir out

# expect_usage DESCRIPTION NEEDLE ARGS...
expect_usage() {
  local desc=$1 needle=$2
  shift 2
  run "$@"
  expect_status 1 "$desc"
  expect_one_error_line "$desc" "$needle"
  expect_dir_empty out "$desc"
}

expect_usage "unknown option" --frobnicate filter in.wav out/o.wav --taps taps.txt --frobnicate
expect_usage "unknown short option" -Z filter in.wav out/o.wav --taps taps.txt -Z
expect_usage "option value missing" --taps filter in.wav out/o.wav --taps
expect_usage "no taps source" --taps filter in.wav out/o.wav
expect_usage "two taps sources" --design filter in.wav out/o.wav --taps taps.txt \
  --design lowpass:cutoff=1000,width=100
expect_usage "missing OUT" OUT filter in.wav --taps taps.txt
expect_usage "missing IN and OUT" IN filter --taps taps.txt
expect_usage "third file" extra.wav filter in.wav out/o.wav extra.wav --taps taps.txt
expect_usage "bad gain number" abc filter in.wav out/o.wav --taps taps.txt --gain abc
expect_usage "gain with junk after the number" 3dB filter in.wav out/o.wav --taps taps.txt --gain 3dB
expect_usage "bad thread count" --threads filter in.wav out/o.wav --taps taps.txt --threads 0
expect_usage "bad fft size" --fft-size filter in.wav out/o.wav --taps taps.txt --fft-size x
expect_usage "unknown plan" "--plan: 'bogus' is not one of estimate, measure" filter in.wav \
  out/o.wav --taps taps.txt --plan bogus
expect_usage "plan without a value" --plan filter in.wav out/o.wav --taps taps.txt --plan
expect_usage "unknown engine" warp filter in.wav out/o.wav --taps taps.txt --engine warp
expect_usage "unknown subtype" pcm12 filter in.wav out/o.wav --taps taps.txt --subtype pcm12
expect_usage "normalize above 0 dBFS" --normalize filter in.wav out/o.wav --taps taps.txt --normalize=3
expect_usage "gain and normalize" --normalize filter in.wav out/o.wav --taps taps.txt --gain 1 --normalize
expect_usage "normalize from stdin" stdin filter - out/o.wav --taps taps.txt --normalize
expect_usage "flag with a value" --tail filter in.wav out/o.wav --taps taps.txt --tail=1
expect_usage "unknown command" frobnicate frobnicate
expect_usage "design without SPEC" SPEC design
expect_usage "design bad rate" --rate design lowpass:cutoff=1000,width=100 --rate -5
expect_usage "info with an argument" extra info extra
expect_usage "help for an unknown command" nosuch help nosuch

# Design specs wrong whatever the input: checked before IN is opened.
expect_usage "unknown design type" notch filter in.wav out/o.wav --design notch:1000
expect_usage "misspelt design key" cutof filter in.wav out/o.wav --design lowpass:cutof=1000
expect_usage "bare design type" cutoff filter in.wav out/o.wav --design lowpass
expect_usage "design without width or taps" width filter in.wav out/o.wav \
  --design lowpass:cutoff=1000
expect_usage "design value not a number" abc filter in.wav out/o.wav \
  --design lowpass:cutoff=1000,taps=abc
expect_usage "negative width" width filter in.wav out/o.wav --design lowpass:cutoff=1000,width=-50
expect_usage "bandpass low above high" low filter in.wav out/o.wav \
  --design bandpass:low=3000,high=300,width=100
expect_usage "atten beyond what float32 taps meet" "float32 taps do not meet more" filter in.wav \
  out/o.wav --design lowpass:cutoff=1000,width=100,atten=150
expect_usage "design whose own rate puts the cutoff past Nyquist" Nyquist filter in.wav out/o.wav \
  --design lowpass:cutoff=30000,width=100,rate=48000
expect_usage "design spec on convoy design" Nyquist design lowpass:cutoff=30000,taps=31 --rate 48000
if have_live; then
  expect_usage "live design spec" cutof live --design lowpass:cutof=1000
fi

# A value the input does not supply is missing from the command line.
"$TOOLS/capture_ref" gen raw.cf32 cf32_le 100 1
expect_usage "design needing a rate a raw capture lacks" "rate" filter raw.cf32 out/o.cf32 \
  --design lowpass:cutoff=1000,taps=31
expect_usage "seconds needing a rate a raw capture lacks" "sample rate" filter raw.cf32 \
  out/o.cf32 --taps taps.txt --skip 0.5s

# An existing OUT without -y (as ffmpeg): tests/cli/overwrite.sh.

expect_usage "convoy without a command" "no command"

finish
