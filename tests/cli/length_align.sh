#!/bin/bash
# Output length (input's, or + taps-1 with --tail) and --align removing the
# group delay.
source "$(dirname "$0")/common.bash"

N=12345
P=3000
gen in.wav --frames $N --channels 1 --rate 48000 --signal noise
gen imp.wav --frames $N --channels 2 --rate 48000 --signal impulse --pos $P --amp 0.9
SPEC=lowpass:cutoff=6000,taps=101
"$CONVOY" design $SPEC --rate 48000 >lp.txt || fail "convoy design"
M=$(count_taps lp.txt)
check "design made 101 taps (got $M)" test "$M" -eq 101
D=$(((M - 1) / 2))

for engine in cpu-direct cpu-fft; do
  rm -f plain.wav tail.wav delayed.wav aligned.wav al.wav altail.wav
  run filter in.wav plain.wav --taps lp.txt --engine $engine -q
  check "$engine: no --tail: input's length" test "$(info_field plain.wav frames)" -eq $N
  run filter in.wav tail.wav --taps lp.txt --engine $engine --tail -q
  check "$engine: --tail: in + taps - 1" test "$(info_field tail.wav frames)" -eq $((N + M - 1))
  check "$engine: --tail content" "$TOOLS/audio_check" compare tail.wav in.wav lp.txt --tail

  run filter imp.wav delayed.wav --design $SPEC --engine $engine -q
  check "$engine: impulse at $P comes out at $((P + D)) without --align" \
    test "$(info_field delayed.wav peak_frame)" -eq $((P + D))
  run filter imp.wav aligned.wav --design $SPEC --align --engine $engine -q
  expect_status 0 "$engine: --align"
  check "$engine: --align puts the peak at $P (got $(info_field aligned.wav peak_frame))" \
    test "$(info_field aligned.wav peak_frame)" -eq $P
  check "$engine: --align keeps the input's length" test "$(info_field aligned.wav frames)" -eq $N

  run filter in.wav al.wav --taps lp.txt --align --engine $engine -q
  check "$engine: --align output is y[D .. D+N-1] (ring-out at the end)" \
    "$TOOLS/audio_check" compare al.wav in.wav lp.txt --skip $D
  run filter in.wav altail.wav --taps lp.txt --align --tail --engine $engine -q
  check "$engine: --align --tail is y[D ..], N + M - 1 - D frames" \
    "$TOOLS/audio_check" compare altail.wav in.wav lp.txt --skip $D --tail
done

# Taps that are not linear phase: --align uses the largest tap (index 2) and says so.
printf '0.1\n0.3\n0.9\n0.2\n0.05\n' >minphase.txt
run filter imp.wav mp.wav --taps minphase.txt --align
expect_status 0 "--align with non-linear-phase taps"
check "--align with non-linear-phase taps: a notice" grep -q "linear phase" stderr.txt
check "--align with non-linear-phase taps: peak at $P" test "$(info_field mp.wav peak_frame)" -eq $P

# --align=sox drops floor((T-1)/2) frames whatever the taps, as sox's fir does:
# even and odd tap counts, taps that are not linear phase, audio and a capture.
for T in 8 9; do
  random_taps $T 5 >r$T.txt
  S=$(((T - 1) / 2))
  run filter in.wav sox$T.wav --taps r$T.txt --align=sox -q
  expect_status 0 "--align=sox, $T taps"
  check "--align=sox, $T taps: IN's length" test "$(info_field sox$T.wav frames)" -eq $N
  check "--align=sox, $T taps: y[$S ..]" "$TOOLS/audio_check" compare sox$T.wav in.wav r$T.txt \
    --skip $S
done
"$TOOLS/capture_ref" gen cap.cf32 cf32_le 5000 7
run filter cap.cf32 cap_sox.cf32 --taps r8.txt --align=sox -q
expect_status 0 "--align=sox on a capture"
check "--align=sox on a capture: y[3 ..]" "$TOOLS/capture_ref" compare cap_sox.cf32 cf32_le \
  cap.cf32 cf32_le r8.txt --drop 3
run filter in.wav bad.wav --taps r8.txt --align=soxx -q
expect_status 1 "--align=soxx"

# An empty input gives an empty output and exit 0, as sox and ffmpeg do; with
# --tail too (the ring-out of nothing is nothing); for captures, from a file
# or from stdin, too.
gen empty.wav --frames 0 --channels 2 --rate 48000
for t in "" --tail; do
  run filter empty.wav empty_out.wav --taps lp.txt $t -y
  expect_status 0 "empty WAV $t"
  check "empty WAV $t: an empty WAV" test "$(info_field empty_out.wav frames)" -eq 0
  : >empty.cf32
  run filter empty.cf32 empty_out.cf32 --taps lp.txt $t -y -q
  expect_status 0 "empty capture $t"
  check "empty capture $t: an empty file" test ! -s empty_out.cf32 -a -e empty_out.cf32
done
"$CONVOY" filter - empty_stdin.cf32 --format cf32_le --taps lp.txt -q -y </dev/null
check "empty stdin capture: exit 0, an empty file" test $? -eq 0 -a -e empty_stdin.cf32 \
  -a ! -s empty_stdin.cf32

# --skip and --count with --cold-start on audio: the frames [skip, skip +
# count) of IN, filtered as if they were the whole file (the filter starts
# from silence there), in frames or seconds, from a file or a pipe; a range
# past the end is refused. (The warm start, the default, is skip_warm.sh's.)
gen long16.wav --frames 48000 --channels 2 --rate 48000 --subtype pcm16 --signal noise --amp 0.5
python3 - <<'PY'
import wave
with wave.open("long16.wav", "rb") as w:
    params = w.getparams()
    w.setpos(4800)
    part = w.readframes(24000)
with wave.open("part16.wav", "wb") as o:
    o.setparams(params)
    o.writeframes(part)
PY
run filter part16.wav whole_part.wav --taps lp.txt --subtype float -q -y
for range in "--skip 4800 --count 24000" "--skip 0.1s --count 0.5s"; do
  run filter long16.wav ranged.wav --taps lp.txt --subtype float $range --cold-start -q -y
  expect_status 0 "audio $range"
  check "audio $range: the filtered part, bit for bit" \
    cmp <("$TOOLS/audio_check" samples ranged.wav) <("$TOOLS/audio_check" samples whole_part.wav)
done
cat long16.wav | "$CONVOY" filter - piped.wav --taps lp.txt --subtype float --skip 4800 \
  --count 24000 --cold-start -q -y
check "audio range from a pipe" \
  cmp <("$TOOLS/audio_check" samples piped.wav) <("$TOOLS/audio_check" samples whole_part.wav)
run filter long16.wav past.wav --taps lp.txt --skip 48000 -q
expect_status 2 "audio --skip past the end"
check "audio --skip past the end: says so" grep -q "past the end" stderr.txt

finish
