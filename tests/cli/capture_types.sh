#!/bin/bash
# Every capture datatype through `convoy filter`: a 1-tap identity gives the
# input back code for code, and a 17-tap filter matches the double-precision
# reference of capture_ref (which decodes the bytes itself). Complex types
# run once the library accepts complex streams.
source "$(dirname "$0")/common.bash"

REF="$TOOLS/capture_ref"
FRAMES=3000
echo 1 >one.txt
random_taps 17 5 >taps17.txt

REAL="ru8 ri8 ru16_le ru16_be ri16_le ri16_be ru32_le ru32_be ri32_le ri32_be rf32_le rf32_be rf64_le rf64_be"
COMPLEX=${REAL//r/c}

# compare DESCRIPTION ARGS...: capture_ref compare ARGS, its line shown on failure.
compare() {
  local desc=$1
  shift
  if "$REF" compare "$@" >cmp.txt; then pass; else fail "$desc: $(cat cmp.txt)"; fi
}

# check_type TYPE: identity and 17-tap filter on a file named by the datatype.
check_type() {
  local t=$1
  "$REF" gen "in.$t" "$t" $FRAMES 11 || { fail "$t: gen"; return; }
  run filter "in.$t" "id.$t" --taps one.txt -q
  expect_status 0 "$t identity"
  # Samples are filtered in float32: 32-bit codes and float64 keep 24 bits.
  case $t in
  ?f64*) compare "$t identity (float64 through float32)" "id.$t" "$t" "in.$t" "$t" one.txt \
    --max-err 1e-7 ;;
  ?[iu]32*) compare "$t identity (32-bit codes through float32)" "id.$t" "$t" "in.$t" "$t" \
    one.txt ;;
  *) check "$t identity is code for code" cmp -s "in.$t" "id.$t" ;;
  esac
  run filter "in.$t" "f.$t" --taps taps17.txt -q
  expect_status 0 "$t filter"
  compare "$t filter" "f.$t" "$t" "in.$t" "$t" taps17.txt
}

for t in $REAL; do check_type "$t"; done

# A datatype named by --format on a file without a known extension, and an
# extension from the table (.s16 is ri16_le).
"$REF" gen plain.bin ri16_be 2000 3
run filter plain.bin out.bin --format ri16_be --taps taps17.txt -q
expect_status 0 "--format ri16_be"
compare "--format ri16_be output" out.bin ri16_be plain.bin ri16_be taps17.txt
"$REF" gen ext.s16 ri16_le 2000 4
run filter ext.s16 out.s16 --taps taps17.txt -q
expect_status 0 ".s16 extension"
compare ".s16 output" out.s16 ri16_le ext.s16 ri16_le taps17.txt

# Extension names as datatype names: --format and --out-format take the
# aliases of the extension table and mean the SigMF datatype (cs16, sc16 and
# C16 are ci16_le; fc32 and cfile cf32_le), bit for bit the canonical name's
# output; SigMF output records the canonical name.
"$REF" gen plain_c.bin ci16_le 2000 5
run filter plain_c.bin canon.bin --format ci16_le --taps taps17.txt -q
expect_status 0 "--format ci16_le"
for alias in cs16 sc16 C16; do
  run filter plain_c.bin alias.bin --format $alias --taps taps17.txt -q -y
  expect_status 0 "--format $alias"
  check "--format $alias is ci16_le" cmp -s alias.bin canon.bin
done
for alias in fc32 cfile; do
  run filter plain_c.bin out_$alias.bin --format cs16 --out-format $alias --taps taps17.txt -q
  expect_status 0 "--out-format $alias"
  compare "--out-format $alias is cf32_le" out_$alias.bin cf32_le plain_c.bin ci16_le taps17.txt
done
run filter plain_c.bin alias_meta.sigmf-meta --format sc16 --out-format fc32 --rate 1e6 \
  --taps taps17.txt -q
expect_status 0 "aliases to SigMF"
check "SigMF records cf32_le" grep -q '"core:datatype": *"cf32_le"' alias_meta.sigmf-meta
validate_sigmf alias_meta.sigmf-meta
run filter plain_c.bin x.bin --format cs17 --taps taps17.txt -q
expect_status 1 "--format cs17"

# Datatype conversion: by the output's extension, and by --out-format.
run filter ext.s16 conv.f32 --taps taps17.txt -q
expect_status 0 "ri16_le -> rf32_le by extension"
compare "ri16_le -> rf32_le" conv.f32 rf32_le ext.s16 ri16_le taps17.txt
run filter ext.s16 conv.raw --out-format ru8 --taps taps17.txt -q
expect_status 0 "ri16_le -> ru8 by --out-format"
compare "ri16_le -> ru8" conv.raw ru8 ext.s16 ri16_le taps17.txt

# Explicit scaling: rtl-sdr's (x - 127.5) / 127.5 on input, written as float.
"$REF" gen rtl.u8 ru8 2000 5
run filter rtl.u8 rtl.f32 --offset 127.5 --scale 0.00784313725490196 --taps taps17.txt -q
expect_status 0 "--scale/--offset"
compare "--scale/--offset applied" rtl.f32 rf32_le rtl.u8 ru8 taps17.txt \
  --in-offset 127.5 --in-scale 0.00784313725490196
# ... and on output: codes of 1/1000 per step, saturating.
run filter rtl.u8 scaled.s16 --out-scale 0.001 --taps taps17.txt -q
expect_status 0 "--out-scale"
compare "--out-scale applied" scaled.s16 ri16_le rtl.u8 ru8 taps17.txt \
  --out-scale 0.001

# Saturation: a gain that drives the output past full scale is clipped and
# counted, never wrapped.
run filter ext.s16 loud.s16 --taps one.txt --gain 20
expect_status 0 "clipping run"
check "clip count in the summary" grep -Eq 'clipped [1-9][0-9]* values' stderr.txt
compare "clipped codes saturate" loud.s16 ri16_le ext.s16 ri16_le one.txt --gain 10

# Complex datatypes need complex streams in the library.
"$REF" gen probe.cf32 cf32_le 16 1
run filter probe.cf32 probe_out.cf32 --taps one.txt -q
if [ "$STATUS" -ne 0 ] && grep -q "not supported" stderr.txt; then
  echo "note: complex streams are not in this library build; complex datatypes not checked"
else
  for t in $COMPLEX; do check_type "$t"; done
  # Complex taps (a .cf32 file) on a complex capture.
  "$REF" gen ctaps.cf32 cf32_le 9 7
  "$REF" gen c16.cs16 ci16_le 2000 8
  run filter c16.cs16 c16_out.cf32 --taps ctaps.cf32 --gain -20 -q
  expect_status 0 "complex taps"
  compare "complex taps output" c16_out.cf32 cf32_le c16.cs16 ci16_le ctaps.cf32 \
    --gain 0.1
  # The same taps saved by numpy (np.save of complex64 and complex128, both
  # byte orders): read as complex taps, the same output bit for bit.
  python3 - <<'PY'
import struct
raw = open("ctaps.cf32", "rb").read()
vals = struct.unpack("<%df" % (len(raw) // 4), raw)
for descr, fmt in (("<c8", "<%df"), ("<c16", "<%dd"), (">c8", ">%df"), (">c16", ">%dd")):
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(vals) // 2)
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    name = "ctaps_%s%s.npy" % ("le" if descr[0] == "<" else "be", descr[1:])
    with open(name, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack(fmt % len(vals), *vals))
PY
  for npy in ctaps_lec8 ctaps_lec16 ctaps_bec8 ctaps_bec16; do
    run filter c16.cs16 "$npy.cf32" --taps "$npy.npy" --gain -20 -q
    expect_status 0 "complex .npy taps ($npy)"
    check "complex .npy taps ($npy) = .cf32 taps" cmp -s "$npy.cf32" c16_out.cf32
  done
  # Audio is real: complex taps are refused, naming the file.
  gen mono.wav --frames 100 --channels 1 --rate 8000 --signal noise
  rm -rf out && mkdir out
  run filter mono.wav out/o.wav --taps ctaps_lec8.npy
  expect_status 2 "complex taps on audio"
  expect_one_error_line "complex taps on audio" "ctaps_lec8.npy"
  expect_dir_empty out "complex taps on audio"
fi

# The summary's peak of float output, which the pass keeps beside the
# writer (stored as given) or in it (converted to big-endian): the largest
# value lies near the end, chunks after the first, and the taps double it:
# 2 x 0.75 = +3.52 dBFS.
python3 - <<'PY'
import struct
n = 300000
for name, comps in (("pk.f32", 1), ("pk.cf32", 2)):
    vals = [0.25 * ((i * 7919) % 101 - 50) / 50 for i in range(n * comps)]
    vals[(n - 10) * comps + comps - 1] = -0.75
    with open(name, "wb") as f:
        f.write(struct.pack("<%df" % len(vals), *vals))
PY
echo 2 >two.txt
for f in "pk.f32 pk_out.f32" "pk.cf32 pk_out.cf32" "pk.f32 pk_be.f32 --out-format rf32_be"; do
  set -- $f
  run filter "$@" --taps two.txt
  expect_status 0 "peak of $2"
  check "peak of $2 is +3.52 dBFS" grep -q "peak +3.52 dBFS, clipped 0 values" stderr.txt
done

# Integer output's clip count covers the frames written: a loud last sample
# that only the ring-out amplifies (y[n] = 3 x[n - 30]) clips one value with
# --tail and none without it, where that ring-out is not written.
python3 - <<'PY'
import struct
n = 100000
vals = [0.1 * ((i * 7919) % 101 - 50) / 50 for i in range(2 * n)]
vals[2 * (n - 1)] = 0.9
with open("ring.cf32", "wb") as f:
    f.write(struct.pack("<%df" % len(vals), *vals))
PY
awk 'BEGIN { for (i = 0; i < 31; i++) print (i == 30 ? 3 : 0) }' >late.txt
run filter ring.cf32 ring.cs16 --taps late.txt
expect_status 0 "ring-out not written"
check "ring-out not written: nothing clipped" grep -q "peak -10.46 dBFS, clipped 0 values" stderr.txt
run filter ring.cf32 ring_tail.cs16 --taps late.txt --tail
expect_status 0 "ring-out written"
check "ring-out written: its value clipped" grep -q "peak +8.63 dBFS, clipped 1 values" stderr.txt

finish
