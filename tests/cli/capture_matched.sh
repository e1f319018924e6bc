#!/bin/bash
# Matched filtering (--matched / --correlate) and batched pulse compression
# (--pulses / --pulse-len) of captures: peaks where the template was hidden,
# output lengths per mode, values against an independent double-precision
# correlation (tests/tools/matched_ref.c), and every error.
source "$(dirname "$0")/common.bash"

REF="$TOOLS/matched_ref"
T=100
N=5000
D=1234
"$REF" chirp chirp.cf32 $T
"$REF" hide rx.cf32 chirp.cf32 $N 1 0.1 $D

# frames FILE BYTES_PER_SAMPLE
frames() { echo $(($(stat -c %s "$1") / $2)); }

# expect_peak DESC FILE WANT [peak options]
expect_peak() {
  local desc=$1 file=$2 want=$3
  shift 3
  local got
  got=$("$REF" peak "$file" "$@")
  if [ "$got" = "$want" ]; then pass; else fail "$desc: peak at $got, want $want"; fi
}

# expect_ref DESC OUT IN TEMPLATE [correlate options]
expect_ref() {
  local desc=$1
  shift
  if "$REF" correlate "$@" >ref.txt; then pass; else fail "$desc: $(cat ref.txt)"; fi
}

# The chirp at D peaks at D + T - 1 (full), D + T - 1 - (T-1)/2 (same), D (valid).
for mode in full same valid; do
  case $mode in
  full) want_len=$((N + T - 1)) want_peak=$((D + T - 1)) ;;
  same) want_len=$N want_peak=$((D + T - 1 - (T - 1) / 2)) ;;
  valid) want_len=$((N - T + 1)) want_peak=$D ;;
  esac
  run filter rx.cf32 out_$mode.cf32 --matched chirp.cf32 --mode $mode -q
  expect_status 0 "--mode $mode"
  check "--mode $mode: $want_len samples" test "$(frames out_$mode.cf32 8)" -eq $want_len
  expect_peak "--mode $mode" out_$mode.cf32 $want_peak
  expect_ref "--mode $mode against the reference" out_$mode.cf32 rx.cf32 chirp.cf32 --mode $mode
done
run filter rx.cf32 default.cf32 --matched chirp.cf32 -q
check "full is the default mode" cmp -s default.cf32 out_full.cf32
run filter rx.cf32 corr.cf32 --correlate chirp.cf32 -q
check "--correlate is --matched" cmp -s corr.cf32 out_full.cf32

# Two occurrences: a peak in each half.
"$REF" hide two.cf32 chirp.cf32 $N 2 0.1 700 3600
run filter two.cf32 two_out.cf32 --matched chirp.cf32 --mode valid -q
expect_peak "first of two" two_out.cf32 700 --count 2000
expect_peak "second of two" two_out.cf32 $((3600 - 2000)) --from 2000

# Windows and normalisation against the reference.
for w in hamming hann kaiser kaiser:beta=5; do
  run filter rx.cf32 w_$w.cf32 --matched chirp.cf32 --window $w --normalize-template --mode same -q
  expect_status 0 "--window $w"
  expect_ref "--window $w --normalize-template" w_$w.cf32 rx.cf32 chirp.cf32 --mode same \
    --window $w --normalize
done
run filter rx.cf32 n.cf32 --matched chirp.cf32 --normalize-template --mode valid -q
expect_ref "--normalize-template" n.cf32 rx.cf32 chirp.cf32 --mode valid --normalize
expect_peak "--normalize-template keeps the peak" n.cf32 $D

# Real template on a real capture.
"$REF" chirp rchirp.f32 64
"$REF" hide real.f32 rchirp.f32 3000 3 0.2 500
run filter real.f32 real_out.f32 --matched rchirp.f32 --window hann -q
expect_status 0 "real capture"
expect_ref "real template" real_out.f32 real.f32 rchirp.f32 --window hann
# A real template on a complex capture filters I and Q alike.
run filter rx.cf32 rc.cf32 --matched rchirp.f32 --mode same -q
expect_ref "real template, complex capture" rc.cf32 rx.cf32 rchirp.f32 --mode same

# Long capture, long template: many chunks, both CPU engines.
"$REF" chirp long_t.cf32 1000
"$REF" hide long.cf32 long_t.cf32 300000 4 0.5 150000
for e in cpu-fft cpu-direct; do
  run filter long.cf32 long_$e.cf32 --matched long_t.cf32 --mode same --engine $e -q
  expect_status 0 "long capture, $e"
  expect_ref "long capture, $e" long_$e.cf32 long.cf32 long_t.cf32 --mode same
  expect_peak "long capture, $e" long_$e.cf32 $((150000 + 999 - 499))
done

# SigMF: a template recording, a 2-channel input, metadata of the output.
cp chirp.cf32 tmpl.sigmf-data
printf '{"global": {"core:datatype": "cf32_le", "core:version": "1.0.0"}, "captures": [{"core:sample_start": 0}], "annotations": []}\n' >tmpl.sigmf-meta
run filter rx.cf32 s.cf32 --matched tmpl.sigmf-meta -q
check "SigMF template" cmp -s s.cf32 out_full.cf32
"$REF" hide two_ch.cf32 chirp.cf32 4000 5 0.1 100 2500
cp two_ch.cf32 rec.sigmf-data
printf '{"global": {"core:datatype": "cf32_le", "core:version": "1.0.0", "core:num_channels": 2, "core:sample_rate": 1e6}, "captures": [{"core:sample_start": 0}], "annotations": [{"core:sample_start": 1000, "core:sample_count": 10}]}\n' >rec.sigmf-meta
run filter rec.sigmf-meta mf --matched chirp.cf32 --mode full --window hamming -q
expect_status 0 "SigMF 2 channels"
cp mf.sigmf-data mf.cf32
expect_ref "SigMF 2 channels" mf.cf32 two_ch.cf32 chirp.cf32 --channels 2 --window hamming
check "recorded as matched" grep -q '"design":.*matched:template=chirp.cf32,mode=full,window=hamming' \
  mf.sigmf-meta
check "annotation moved by T-1" grep -q "\"core:sample_start\":[[:space:]]*$((1000 + T - 1))" \
  mf.sigmf-meta

# Pulses: P pulses of L samples, an echo at a different delay in each.
P=8
L=1000
offs=""
for p in $(seq 0 $((P - 1))); do offs="$offs $((p * L + 50 + 97 * p))"; done
# shellcheck disable=SC2086
"$REF" hide pulses.cf32 chirp.cf32 $((P * L)) 6 0.1 $offs
for mode in full same valid; do
  case $mode in
  full) olen=$((L + T - 1)) lag=$((T - 1)) ;;
  same) olen=$L lag=$((T - 1 - (T - 1) / 2)) ;;
  valid) olen=$((L - T + 1)) lag=0 ;;
  esac
  run filter pulses.cf32 pc_$mode.cf32 --matched chirp.cf32 --pulse-len $L --mode $mode \
    --window hann --normalize-template -q
  expect_status 0 "--pulses, --mode $mode"
  check "--pulses --mode $mode: $P x $olen samples" test "$(frames pc_$mode.cf32 8)" -eq $((P * olen))
  expect_ref "--pulses --mode $mode" pc_$mode.cf32 pulses.cf32 chirp.cf32 --pulse-len $L \
    --mode $mode --window hann --normalize
  for p in 0 3 7; do
    expect_peak "pulse $p, --mode $mode" pc_$mode.cf32 $((50 + 97 * p + lag)) --from $((p * olen)) \
      --count $olen
  done
done
run filter pulses.cf32 pc_p.cf32 --matched chirp.cf32 --pulses $P --pulse-len $L --mode same \
  --window hann --normalize-template -q
check "--pulses P equals P from the length" cmp -s pc_p.cf32 pc_same.cf32
run filter pulses.cf32 pc_first.cf32 --matched chirp.cf32 --pulses 3 --pulse-len $L --engine gpu
check "--pulses 3 of 8" test "$(frames pc_first.cf32 8)" -eq $((3 * (L + T - 1)))
expect_ref "--pulses 3 of 8" pc_first.cf32 pulses.cf32 chirp.cf32 --pulses 3 --pulse-len $L
check "summary names the pulses" grep -q "3 x $L samples" stderr.txt
# --plan measure: the timed plans (FFTW_MEASURE here) of a matched filter's
# stream and of a batch of pulses give the reference too.
run filter rx.cf32 m_measure.cf32 --matched chirp.cf32 --mode same --engine cpu-fft \
  --plan measure -q
expect_status 0 "--matched --plan measure"
expect_ref "--matched --plan measure" m_measure.cf32 rx.cf32 chirp.cf32 --mode same
expect_peak "--matched --plan measure" m_measure.cf32 $((D + T - 1 - (T - 1) / 2))
run filter pulses.cf32 pc_measure.cf32 --matched chirp.cf32 --pulse-len $L --mode same \
  --window hann --normalize-template --engine cpu --plan measure -q
expect_status 0 "--pulses --plan measure"
expect_ref "--pulses --plan measure" pc_measure.cf32 pulses.cf32 chirp.cf32 --pulse-len $L \
  --mode same --window hann --normalize
# Two channels of pulses as SigMF, written as SigMF.
cp two_ch.cf32 pch.sigmf-data
sed 's/"annotations": \[.*\]/"annotations": []/' rec.sigmf-meta >pch.sigmf-meta
run filter pch.sigmf-meta pch_out --matched chirp.cf32 --pulse-len 500 --mode valid -q
expect_status 0 "2-channel pulses"
cp pch_out.sigmf-data pch_out.cf32
expect_ref "2-channel pulses" pch_out.cf32 two_ch.cf32 chirp.cf32 --channels 2 --pulse-len 500 \
  --mode valid
check "pulses recorded" grep -q 'pulses=4,pulse_len=500' pch_out.sigmf-meta
validate_sigmf mf.sigmf-meta pch_out.sigmf-meta

# Errors: exit 2, one line naming the file, nothing written.
expect_fail "template longer than the pulse" "100 samples, longer than --pulse-len 50" \
  rx.cf32 out/o.cf32 --matched chirp.cf32 --pulse-len 50
expect_fail "input shorter than P x L" "fewer than --pulses 6 x --pulse-len 1000" \
  rx.cf32 out/o.cf32 --matched chirp.cf32 --pulses 6 --pulse-len 1000
expect_fail "not a multiple of the pulse length" "not a whole number of pulses" \
  rx.cf32 out/o.cf32 --matched chirp.cf32 --pulse-len 3000
expect_fail "missing template" "nothere.cf32" rx.cf32 out/o.cf32 --matched nothere.cf32
expect_fail "complex template, real capture" "complex template" real.f32 out/o.f32 \
  --matched chirp.cf32
expect_fail "complex template, real pulses" "complex template" real.f32 out/o.f32 \
  --matched chirp.cf32 --pulse-len 1000
expect_fail "valid with a template longer than the input" "longer than the input" \
  rchirp.f32 out/o.f32 --matched real.f32 --mode valid
head -c 800 /dev/zero >zero.cf32
expect_fail "zero template normalised" "zero.cf32" rx.cf32 out/o.cf32 --matched zero.cf32 \
  --normalize-template
cp two_ch.cf32 tmpl2.sigmf-data
sed 's/, "annotations": \[.*\]/, "annotations": []/' rec.sigmf-meta >tmpl2.sigmf-meta
expect_fail "2-channel template" "one channel" rx.cf32 out/o.cf32 --matched tmpl2.sigmf-meta
cp chirp.cf32 chirp.iq
expect_fail "template of unknown type" "chirp.iq" rx.cf32 out/o.cf32 --matched chirp.iq
head -c 13 chirp.cf32 >odd.cf32
expect_fail "template of a bad size" "odd.cf32" rx.cf32 out/o.cf32 --matched odd.cf32

# Usage errors: exit 1.
expect_usage() {
  local desc=$1
  shift
  run filter "$@"
  expect_status 1 "$desc"
}
expect_usage "--matched with --taps" rx.cf32 o.cf32 --matched chirp.cf32 --taps chirp.cf32
expect_usage "--window without --matched" rx.cf32 o.cf32 --taps chirp.cf32 --window hann
expect_usage "unknown --mode" rx.cf32 o.cf32 --matched chirp.cf32 --mode middle
expect_usage "unknown --window" rx.cf32 o.cf32 --matched chirp.cf32 --window boxcar
expect_usage "--pulses without --pulse-len" rx.cf32 o.cf32 --matched chirp.cf32 --pulses 4
expect_usage "--tail with --matched" rx.cf32 o.cf32 --matched chirp.cf32 --tail
expect_usage "--pulse-len 0" rx.cf32 o.cf32 --matched chirp.cf32 --pulse-len 0
check "no output from usage errors" test ! -e o.cf32

finish
