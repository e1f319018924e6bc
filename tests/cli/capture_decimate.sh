#!/bin/bash
# --decimate and --shift on captures: the data against the reference tool's
# double-precision frequency-translating decimating filter, the SigMF
# metadata after decimation and shift (sample rate, frequency, annotations
# rescaled, processing record), and the bad uses.
source "$(dirname "$0")/common.bash"

REF="$TOOLS/capture_ref"
"$REF" gen rec.sigmf-data cf32_le 20000 5
cat >rec.sigmf-meta <<'JSON'
{
    "global": {
        "core:datatype": "cf32_le",
        "core:version": "1.0.0",
        "core:sample_rate": 1000000
    },
    "captures": [
        {"core:sample_start": 0, "core:frequency": 915000000}
    ],
    "annotations": [
        {"core:sample_start": 1000, "core:sample_count": 200, "core:label": "burst",
         "core:freq_lower_edge": 915050000, "core:freq_upper_edge": 915150000}
    ]
}
JSON
# Symmetric taps: linear phase, delay 4.
printf '%s\n' 0.02 -0.05 0.1 0.2 0.3 0.2 0.1 -0.05 0.02 >sym9.txt
random_taps 37 11 >taps37.txt

has() { if grep -qF -- "$2" "$1"; then pass; else fail "$3: '$2' not in $1"; fi; }
hasnt() { if grep -qF -- "$2" "$1"; then fail "$3: '$2' in $1"; else pass; fi; }
compare() { # OUT OUT_TYPE IN IN_TYPE TAPS [options]: the reference tool agrees
  if "$REF" compare "$@" >cmp.txt; then pass; else fail "data $1 $*: $(cat cmp.txt)"; fi
}

# Decimate by 4 and move +100 kHz to 0 Hz: rate / 4, frequency + 100 kHz,
# the annotation (delayed by 4) rescaled: input 1004 .. 1203 -> output 251 .. 300.
run filter rec.sigmf-meta out --taps sym9.txt --decimate 4 --shift 100000 -q
expect_status 0 "--decimate 4 --shift 100000"
compare out.sigmf-data cf32_le rec.sigmf-data cf32_le sym9.txt --decimate 4 --shift 0.1
has out.sigmf-meta '"core:sample_rate": 250000' "rate divided by 4"
has out.sigmf-meta '"core:frequency": 915100000' "frequency moved by the shift"
has out.sigmf-meta '"core:sample_start": 251' "annotation start rescaled"
has out.sigmf-meta '"core:sample_count": 50' "annotation length rescaled"
has out.sigmf-meta '"core:freq_lower_edge": 915050000' "RF annotation edges kept"
has out.sigmf-meta '"decimation": 4' "record: decimation"
has out.sigmf-meta '"decimation_phase": 0' "record: decimation phase"
has out.sigmf-meta '"shift_hz": 100000' "record: shift"
frames=$(($(stat -c %s out.sigmf-data) / 8))
check "output holds ceil(20000 / 4) frames (got $frames)" test "$frames" -eq 5000

# --align drops the delay of 4 first, and output k is then the aligned
# signal's sample 3k (the filter output's 3k + 4), as without --align it is
# the filter output's 3k: the kept samples always start the window.
run filter rec.sigmf-meta aligned --taps sym9.txt --align --decimate 3 -v
expect_status 0 "--align --decimate 3"
compare aligned.sigmf-data cf32_le rec.sigmf-data cf32_le sym9.txt --drop 4 --decimate 3
check "-v says which samples are kept" grep -q "the aligned signal's sample 3 k" stderr.txt
has aligned.sigmf-meta '"core:sample_rate": 333333.3' "rate divided by 3"
has aligned.sigmf-meta '"decimation_phase": 0' "record: phase 0"
has aligned.sigmf-meta '"core:sample_start": 333' "aligned annotation: 1000 in [999, 1002)"
has aligned.sigmf-meta '"core:frequency": 915000000' "no shift: frequency kept"

# 607 linear-phase taps (delay 303, not a multiple of 8) with --align
# --decimate 8 and a shift, on both CPU engines: output k is the aligned
# signal's sample 8k, the shift still following the input's own index.
"$CONVOY" design lowpass:cutoff=40000,taps=607,rate=1000000 >t607.txt
for engine in cpu-direct cpu-fft; do
  run filter rec.sigmf-meta a607_$engine --taps t607.txt --align --decimate 8 --shift 123000 \
    --engine $engine -q
  expect_status 0 "607 taps --align --decimate 8 --shift, $engine"
  compare a607_$engine.sigmf-data cf32_le rec.sigmf-data cf32_le t607.txt --drop 303 \
    --decimate 8 --shift 0.123
done

# Two channels, a negative shift, a long filter, --tail: every frame of the
# ring-out that falls on the grid.
"$REF" gen two.cf32 cf32_le 3001 6 --channels 2
cat >two.sigmf-meta <<'JSON'
{"global": {"core:datatype": "cf32_le", "core:version": "1.0.0", "core:num_channels": 2,
 "core:sample_rate": 2000000}, "captures": [{"core:sample_start": 0}], "annotations": []}
JSON
cp two.cf32 two.sigmf-data
run filter two.sigmf-meta two_out --taps taps37.txt --decimate 13 --shift -740000 --tail -q
expect_status 0 "2 channels, --decimate 13 --shift -740000 --tail"
compare two_out.sigmf-data cf32_le two.cf32 cf32_le taps37.txt --channels 2 --tail \
  --decimate 13 --shift -0.37
has two_out.sigmf-meta '"core:sample_rate": 153846.15' "rate divided by 13"

# A normalised rate of 1 decimated by 4: 0.25 Hz, below SigMF's 1 Hz minimum
# for core:sample_rate, is written as convoy:sample_rate, and read back as
# the rate (40 s at 0.25 Hz are 10 samples).
run filter rec.sigmf-meta slow --taps sym9.txt --rate 1 --decimate 4 -q
expect_status 0 "--rate 1 --decimate 4"
has slow.sigmf-meta '"convoy:sample_rate": 0.25' "a rate below 1 Hz as convoy:sample_rate"
hasnt slow.sigmf-meta '"core:sample_rate"' "no core:sample_rate below 1 Hz"
run filter slow.sigmf-meta slow_part --taps sym9.txt --count 40s -q
expect_status 0 "seconds at convoy:sample_rate"
check "40 s at 0.25 Hz: 10 samples" test "$(stat -c %s slow_part.sigmf-data)" -eq 80

validate_sigmf out.sigmf-meta aligned.sigmf-meta a607_cpu-direct.sigmf-meta \
  a607_cpu-fft.sigmf-meta two_out.sigmf-meta slow.sigmf-meta slow_part.sigmf-meta

# Raw ci16 in and out, --skip with --cold-start: the grid and the shift start
# at the first frame read (skip_warm.sh has the warm start's whole-input grid).
"$REF" gen raw.cs16 ci16_le 5000 7
run filter raw.cs16 raw_out.cs16 --taps taps37.txt --skip 123 --decimate 8 --rate 1e6 \
  --shift 250000 --gain -6 --cold-start -q
expect_status 0 "raw ci16 --skip 123 --decimate 8 --shift 250000"
compare raw_out.cs16 ci16_le raw.cs16 ci16_le taps37.txt --skip 123 --decimate 8 --shift 0.25 \
  --gain 0.501187233627272
# Every engine the library has agrees.
for engine in cpu-direct cpu-fft; do
  run filter raw.cs16 "e_$engine.cf32" --format ci16_le --out-format cf32_le --taps taps37.txt \
    --decimate 8 --rate 1e6 --shift 250000 --engine "$engine" -q
  expect_status 0 "--engine $engine"
  compare "e_$engine.cf32" cf32_le raw.cs16 ci16_le taps37.txt --decimate 8 --shift 0.25
done

# Bad uses: usage errors (exit 1), nothing written.
mkdir -p bad && cd bad || exit 1
"$REF" gen real.f32 rf32_le 100 1
run filter ../rec.sigmf-meta o1 --taps ../sym9.txt --decimate 0
expect_status 1 "--decimate 0"
run filter ../rec.sigmf-meta o2 --taps ../sym9.txt --decimate 4097
expect_status 1 "--decimate 4097"
run filter real.f32 o3.f32 --taps ../sym9.txt --shift 100 --rate 1000
expect_status 2 "--shift on real samples"
check "--shift on real: says complex" grep -q "complex" stderr.txt
run filter ../raw.cs16 o4.cs16 --taps ../sym9.txt --shift 100
expect_status 1 "--shift without a rate"
check "--shift without rate: says --rate" grep -q -- "--rate" stderr.txt
run filter ../rec.sigmf-meta o5 --taps ../sym9.txt --shift 600000
expect_status 2 "--shift beyond half the rate"
run filter ../rec.sigmf-meta o6 --taps ../sym9.txt --shift abc
expect_status 1 "--shift abc"
gen tone.wav --rate 8000 --frames 100
run filter tone.wav o7.wav --taps ../sym9.txt --decimate 2
expect_status 1 "--decimate on audio"
rm -f real.f32 tone.wav stderr.txt stdout.txt
expect_dir_empty .
cd ..

finish
