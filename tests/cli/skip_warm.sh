#!/bin/bash
# --skip N --count M start warm: the selection is filtered as part of the
# whole input, so the output is bit for bit the part of a run over the whole
# input that lies there, on both CPU engines (cpu-fft also at a small FFT
# size, many blocks): captures (complex and real float32, 16-bit I/Q) with
# --align, --tail, --decimate (the whole input's grid, a skip off it
# included), --shift, no --count, a skip inside the first taps, from a pipe;
# audio (float WAV) likewise. --cold-start gives the old output (the
# selection filtered as a file of its own, bit for bit), whose first taps - 1
# frames differ from the warm start's and whose others equal them (bitwise
# on cpu-direct, to float rounding on cpu-fft). SigMF output records the
# selection and the start.
source "$(dirname "$0")/common.bash"

REF="$TOOLS/capture_ref"
T=37
random_taps $T 11 >taps.txt
"$REF" gen in.cf32 cf32_le 20000 5
"$REF" gen in.rf32 rf32_le 20000 6
"$REF" gen in.cs16 ci16_le 20000 7

# part FILE FIRST N BYTES: the bytes of frames [FIRST, FIRST + N) of a raw file.
part() { tail -c +$(($2 * $4 + 1)) "$1" | head -c $(($3 * $4)); }

# same_part DESCRIPTION WHOLE FIRST N BYTES SLICE: SLICE is frames [FIRST,
# FIRST + N) of WHOLE, bit for bit.
same_part() {
  local n
  n=$(($(wc -c <"$6") / $5))
  if [ "$n" -ne "$4" ]; then
    fail "$1: $n frames, want $4"
  elif cmp -s <(part "$2" "$3" "$4" "$5") "$6"; then
    pass
  else
    fail "$1: not the whole run's frames $3 .. $(($3 + $4))"
  fi
}

# close_floats DESCRIPTION A B: two float32 files of equal length agree to a
# relative L2 error of 1e-5.
close_floats() {
  if python3 - "$2" "$3" <<'PY'; then pass; else fail "$1: not equal to float rounding"; fi
import array, math, sys
a, b = array.array("f"), array.array("f")
a.frombytes(open(sys.argv[1], "rb").read())
b.frombytes(open(sys.argv[2], "rb").read())
num = sum((x - y) ** 2 for x, y in zip(a, b))
den = sum(x * x for x in a)
sys.exit(0 if len(a) == len(b) and math.sqrt(num / den) < 1e-5 else 1)
PY
}

# differ A B: the files are not the same bytes.
differ() { ! cmp -s "$1" "$2"; }

S=1234 M=5000
ENGINES=("--engine cpu-direct" "--engine cpu-fft" "--engine cpu-fft --fft-size 64")
for eng in "${ENGINES[@]}"; do
  # ops | decimation | extra frames the window keeps past the count
  for spec in "|1|0" "--align|1|0" "--tail|1|$((T - 1))" "--decimate 7|7|0" \
    "--decimate 5 --align|5|0" "--decimate 3 --shift 0.1 --rate 1|3|0"; do
    IFS='|' read -r ops d extra <<<"$spec"
    # shellcheck disable=SC2086
    run filter in.cf32 whole.cf32 --taps taps.txt $eng $ops -q -y
    # shellcheck disable=SC2086
    run filter in.cf32 sel.cf32 --taps taps.txt $eng $ops --skip $S --count $M -q -y
    expect_status 0 "$eng $ops --skip $S --count $M"
    a=$(((S + d - 1) / d)) b=$(((S + M + extra + d - 1) / d))
    same_part "cf32 $eng $ops" whole.cf32 $a $((b - a)) 8 sel.cf32
  done
  for spec in "in.rf32 4" "in.cs16 4"; do
    read -r in bytes <<<"$spec"
    # shellcheck disable=SC2086
    run filter $in whole.${in#in.} --taps taps.txt $eng --align -q -y
    # shellcheck disable=SC2086
    run filter $in sel.${in#in.} --taps taps.txt $eng --skip 777 --count 9000 --align -q -y
    same_part "${in#in.} $eng" whole.${in#in.} 777 9000 $bytes sel.${in#in.}
  done
  # No --count: to the end; a skip inside the first taps; the count alone.
  # shellcheck disable=SC2086
  run filter in.cf32 whole.cf32 --taps taps.txt $eng -q -y
  for span in "15000 -" "20 3000" "0 4321"; do
    read -r skip count <<<"$span"
    if [ "$count" = - ]; then
      # shellcheck disable=SC2086
      run filter in.cf32 sel.cf32 --taps taps.txt $eng --skip $skip -q -y
      count=$((20000 - skip))
    else
      # shellcheck disable=SC2086
      run filter in.cf32 sel.cf32 --taps taps.txt $eng --skip $skip --count $count -q -y
    fi
    same_part "cf32 $eng --skip $skip --count $count" whole.cf32 $skip $count 8 sel.cf32
  done
  # From a pipe: the same bytes as from the file.
  # shellcheck disable=SC2086
  run filter in.cf32 sel.cf32 --taps taps.txt $eng --skip $S --count $M --tail -q -y
  # shellcheck disable=SC2086
  cat in.cf32 | "$CONVOY" filter - - --format cf32_le --taps taps.txt $eng --skip $S --count $M \
    --tail -q >piped.cf32
  check "$eng: a warm selection from a pipe" cmp -s piped.cf32 sel.cf32

  # --cold-start: the selection filtered as a file of its own.
  part in.cf32 $S $M 8 >alone.cf32
  # shellcheck disable=SC2086
  run filter alone.cf32 old.cf32 --taps taps.txt $eng -q -y
  # shellcheck disable=SC2086
  run filter in.cf32 cold.cf32 --taps taps.txt $eng --skip $S --count $M --cold-start -q -y
  expect_status 0 "$eng --cold-start"
  check "$eng --cold-start: the old output" cmp -s cold.cf32 old.cf32
  # shellcheck disable=SC2086
  run filter in.cf32 warm.cf32 --taps taps.txt $eng --skip $S --count $M -q -y
  check "$eng --cold-start: the first taps - 1 frames differ" \
    differ <(part cold.cf32 0 $((T - 1)) 8) <(part warm.cf32 0 $((T - 1)) 8)
  part cold.cf32 $((T - 1)) $((M - T + 1)) 8 >cold_rest.f32
  part warm.cf32 $((T - 1)) $((M - T + 1)) 8 >warm_rest.f32
  if [ "$eng" = "--engine cpu-direct" ]; then
    check "$eng --cold-start: the rest, bit for bit" cmp -s cold_rest.f32 warm_rest.f32
  else
    close_floats "$eng --cold-start: the rest" warm_rest.f32 cold_rest.f32
  fi
done

# SigMF: the record says what was selected and how; a decimated warm
# selection keeps the whole input's grid (output k at window sample k D + 3).
cp in.cf32 rec.sigmf-data
printf '{"global": {"core:datatype": "cf32_le", "core:version": "1.0.0", "core:sample_rate": 1000000}, "captures": [{"core:sample_start": 0}], "annotations": []}\n' >rec.sigmf-meta
run filter rec.sigmf-meta sel --taps taps.txt --skip 1001 --count 3000 --decimate 4 -q
expect_status 0 "SigMF warm selection"
has() { if grep -qF -- "$2" "$1"; then pass; else fail "$3: $1 lacks $2"; fi; }
has sel.sigmf-meta '"skip": 1001' "record: skip"
has sel.sigmf-meta '"count": 3000' "record: count"
has sel.sigmf-meta '"start": "warm"' "record: warm start"
has sel.sigmf-meta '"decimation_phase": 3' "record: the whole input's decimation grid"
run filter rec.sigmf-meta all --taps taps.txt --decimate 4 -q
same_part "SigMF decimated selection" all.sigmf-data 251 750 8 sel.sigmf-data

# Audio: float WAV output against the whole file's run.
gen in.wav --frames 30000 --channels 2 --rate 48000 --subtype pcm16 --signal noise --amp 0.5
# frames_of FILE FIRST N: frames [FIRST, FIRST + N) of a WAV as audio_check's doubles.
frames_of() {
  local h ch
  h=$("$TOOLS/audio_check" samples "$1" | head -n 1)
  ch=$(echo "$h" | cut -d' ' -f2)
  "$TOOLS/audio_check" samples "$1" | tail -c +$((${#h} + 2 + $2 * 8 * ch)) | head -c $(($3 * 8 * ch))
}
for eng in "${ENGINES[@]}"; do
  for spec in "|0" "--align|0" "--tail|$((T - 1))"; do
    IFS='|' read -r ops extra <<<"$spec"
    # shellcheck disable=SC2086
    run filter in.wav whole.wav --taps taps.txt --subtype float $eng $ops -q -y
    # shellcheck disable=SC2086
    run filter in.wav sel.wav --taps taps.txt --subtype float $eng $ops --skip 4321 --count 10000 \
      -q -y
    expect_status 0 "audio $eng $ops"
    n=$((10000 + extra))
    check "audio $eng $ops: the whole run's frames" \
      cmp -s <(frames_of whole.wav 4321 $n) <(frames_of sel.wav 0 $n)
    check "audio $eng $ops: $n frames" test "$(info_field sel.wav frames)" -eq $n
  done
  # shellcheck disable=SC2086
  cat in.wav | "$CONVOY" filter - piped.wav --taps taps.txt --subtype float $eng --skip 4321 \
    --count 10000 --tail -q -y
  check "audio $eng: a warm selection from a pipe" \
    cmp -s <("$TOOLS/audio_check" samples piped.wav) <("$TOOLS/audio_check" samples sel.wav)
  # --cold-start: the old output, the selection as a file of its own.
  python3 - <<'PY'
import wave
with wave.open("in.wav", "rb") as w:
    params = w.getparams()
    w.setpos(4321)
    part = w.readframes(10000)
with wave.open("alone.wav", "wb") as o:
    o.setparams(params)
    o.writeframes(part)
PY
  # shellcheck disable=SC2086
  run filter alone.wav old.wav --taps taps.txt --subtype float $eng -q -y
  # shellcheck disable=SC2086
  run filter in.wav cold.wav --taps taps.txt --subtype float $eng --skip 4321 --count 10000 \
    --cold-start -q -y
  check "audio $eng --cold-start: the old output" \
    cmp -s <("$TOOLS/audio_check" samples cold.wav) <("$TOOLS/audio_check" samples old.wav)
done

finish
