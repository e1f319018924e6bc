#!/bin/bash
# convoy filter output against a double-precision reference convolution:
# text taps, --design and --ir; float and pcm24 input; mono and stereo; the
# direct and FFT CPU engines; --gain; --plan estimate and measure.
source "$(dirname "$0")/common.bash"

FRAMES=30011
random_taps 300 7 >taps.txt
"$CONVOY" design lowpass:cutoff=5000,width=1500 --rate 48000 >design.txt || fail "convoy design"
gen ir_mono.wav --frames 700 --channels 1 --rate 48000 --signal noise --amp 0.01 --seed 3
gen ir_stereo.wav --frames 513 --channels 2 --rate 48000 --signal noise --amp 0.01 --seed 4

for subtype in float pcm24; do
  # pcm24 output carries quantisation error of about 1e-7 of full scale.
  if [ $subtype = float ]; then maxerr=1e-5; else maxerr=1e-4; fi
  for ch in 1 2; do
    in=in_${subtype}_$ch.wav
    gen $in --frames $FRAMES --channels $ch --rate 48000 --subtype $subtype --signal noise \
      --amp 0.5 --seed $ch
    for engine in cpu-direct cpu-fft auto; do
      tag="$subtype ${ch}ch $engine"
      rm -f o_taps.wav o_design.wav o_ir.wav
      run filter $in o_taps.wav --taps taps.txt --engine $engine -q
      expect_status 0 "$tag --taps"
      check "$tag --taps matches the reference" \
        "$TOOLS/audio_check" compare o_taps.wav $in taps.txt --max-err $maxerr

      run filter $in o_design.wav --design lowpass:cutoff=5000,width=1500 --engine $engine -q
      expect_status 0 "$tag --design"
      check "$tag --design matches the reference" \
        "$TOOLS/audio_check" compare o_design.wav $in design.txt --max-err $maxerr

      ir=ir_mono.wav
      [ $ch = 2 ] && ir=ir_stereo.wav
      run filter $in o_ir.wav --ir $ir --engine $engine -q
      expect_status 0 "$tag --ir $ir"
      check "$tag --ir $ir matches the reference" \
        "$TOOLS/audio_check" compare o_ir.wav $in $ir --max-err $maxerr
    done
  done
done

# One mono IR for every channel of a stereo input, and --gain.
run filter in_float_2.wav o_gain.wav --ir ir_mono.wav --gain -6.5 -q
expect_status 0 "--gain -6.5"
check "--gain -6.5 scales the output" \
  "$TOOLS/audio_check" compare o_gain.wav in_float_2.wav ir_mono.wav --gain -6.5
check "--gain is not ignored" \
  bash -c "! '$TOOLS/audio_check' compare o_gain.wav in_float_2.wav ir_mono.wav >/dev/null"

# A 4-channel IR on a stereo input is true stereo (L->L, L->R, R->L, R->R),
# on every CPU engine, from pcm16 (read in its own width) and float, with the
# ring-out, and through --normalize's measuring pass.
gen ts_ir.wav --frames 300 --channels 4 --rate 48000 --signal noise --amp 0.2 --seed 21
gen ts_in16.wav --frames 9000 --channels 2 --rate 48000 --subtype pcm16 --signal noise --seed 22
for engine in cpu-direct cpu-fft auto; do
  for in in in_float_2.wav ts_in16.wav; do
    rm -f o_ts.wav
    run filter $in o_ts.wav --ir ts_ir.wav --engine $engine --subtype float --tail -q
    expect_status 0 "true stereo, $engine, $in"
    check "true stereo, $engine, $in, matches the reference" \
      "$TOOLS/audio_check" compare o_ts.wav $in ts_ir.wav --tail --max-err 1e-5
  done
done
run filter in_float_2.wav o_ts_norm.wav --ir ts_ir.wav --normalize=-3 -q
expect_status 0 "true stereo with --normalize"
check "true stereo with --normalize peaks at -3 dBFS" \
  awk -v p="$(info_field o_ts_norm.wav peak)" 'BEGIN { exit !(p > 0.70 && p < 0.71) }'
gen ts_mono.wav --frames 500 --channels 1 --rate 48000 --signal noise
expect_fail "4-channel IR on a mono input" "need 1" ts_mono.wav out/o.wav --ir ts_ir.wav

# Taps longer than the signal, explicit FFT size and threads.
gen short.wav --frames 100 --channels 1 --rate 48000 --signal noise --seed 9
random_taps 1000 11 >long.txt
for engine in cpu-direct cpu-fft; do
  rm -f o_short.wav
  run filter short.wav o_short.wav --taps long.txt --engine $engine --tail -q
  expect_status 0 "taps longer than the signal, $engine"
  check "taps longer than the signal, $engine, matches" \
    "$TOOLS/audio_check" compare o_short.wav short.wav long.txt --tail
done
run filter in_float_1.wav o_fft.wav --taps taps.txt --engine cpu-fft --fft-size 4096 --threads 1 -q
expect_status 0 "--fft-size 4096 --threads 1"
check "--fft-size 4096 --threads 1 matches" \
  "$TOOLS/audio_check" compare o_fft.wav in_float_1.wav taps.txt

# --plan estimate and --plan measure (timed FFTW plans) on every CPU engine,
# audio and a capture: both match the reference, and estimate gives the
# same bytes run after run (AU output: a float WAV's PEAK chunk holds the
# time). The measure cost model prices large blocks cheaper, so 100 taps get
# a larger FFT under it: cpu-fft's -v plan shows that the option reached it.
random_taps 100 13 >taps100.txt
"$TOOLS/capture_ref" gen iq.cf32 cf32_le 20000 14
fft_size_of_plan() { sed -nE 's/^convoy: plan: cpu-fft N=([0-9]+).*/\1/p' stderr.txt; }
# plan_run KIND ENGINE PLAN: filters KIND's input (audio, capture) into
# o_plan_KIND_ENGINE_PLAN.EXT and checks it against the reference.
plan_run() {
  local kind=$1 engine=$2 plan=$3 tag="$1, $2, --plan $3"
  local out=o_plan_${kind}_${engine}_$plan
  if [ "$kind" = audio ]; then
    run filter in_float_2.wav "$out.au" --taps taps100.txt --engine "$engine" --plan "$plan" -v
    expect_status 0 "$tag"
    check "$tag matches the reference" \
      "$TOOLS/audio_check" compare "$out.au" in_float_2.wav taps100.txt
  else
    run filter iq.cf32 "$out.cf32" --taps taps100.txt --engine "$engine" --plan "$plan" -v
    expect_status 0 "$tag"
    check "$tag matches the reference" \
      "$TOOLS/capture_ref" compare "$out.cf32" cf32_le iq.cf32 cf32_le taps100.txt
  fi
  check "$tag: -v prints the plan" grep -q "^convoy: plan: $engine" stderr.txt
}
for kind in audio capture; do
  estimated="" measured=""
  for engine in cpu-fft cpu-direct; do
    plan_run $kind $engine estimate
    [ $engine = cpu-fft ] && estimated=$(fft_size_of_plan)
    plan_run $kind $engine measure
    [ $engine = cpu-fft ] && measured=$(fft_size_of_plan)
  done
  check "$kind: --plan reaches cpu-fft (FFT ${estimated:-?} estimated, ${measured:-?} measured)" \
    test -n "$estimated" -a -n "$measured" -a "$estimated" != "$measured"
done
for engine in cpu-fft cpu-direct; do
  run filter in_float_2.wav o_plan_again.au --taps taps100.txt --engine $engine --plan estimate -q
  check "--plan estimate, $engine: the same bytes on a second run" \
    cmp -s o_plan_again.au o_plan_audio_${engine}_estimate.au
  rm -f o_plan_again.au
done
run filter in_float_2.wav o_plan_default.au --taps taps100.txt --engine cpu-fft -v
check "estimate is the default plan" cmp -s o_plan_default.au o_plan_audio_cpu-fft_estimate.au

finish
