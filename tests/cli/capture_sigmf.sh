#!/bin/bash
# SigMF in -> SigMF out: the datatype, the rate, annotations and captures
# moved by the filter delay (and by --skip), unknown keys kept, and the
# processing record; raw in -> SigMF out with --rate.
source "$(dirname "$0")/common.bash"

REF="$TOOLS/capture_ref"
"$REF" gen rec.sigmf-data ri16_le 10000 2
cat >rec.sigmf-meta <<'JSON'
{
    "global": {
        "core:datatype": "ri16_le",
        "core:version": "1.0.0",
        "core:sample_rate": 1000000,
        "core:author": "someone",
        "acme:antenna": {"gain_db": 3.5}
    },
    "captures": [
        {"core:sample_start": 0, "core:frequency": 915000000}
    ],
    "annotations": [
        {"core:sample_start": 1000, "core:sample_count": 200, "core:label": "burst", "acme:snr": 12},
        {"core:sample_start": 50, "core:sample_count": 10, "core:label": "early"}
    ]
}
JSON
random_taps 31 9 >taps31.txt # not symmetric: delay is its largest tap's index
SPEC=lowpass:cutoff=100000,taps=41 # linear phase: delay 20

# has FILE TEXT DESCRIPTION: FILE contains the line fragment TEXT.
has() { if grep -qF -- "$2" "$1"; then pass; else fail "$3: '$2' not in $1"; fi; }
hasnt() { if grep -qF -- "$2" "$1"; then fail "$3: '$2' in $1"; else pass; fi; }

# SigMF in, base name out (no capture extension): a SigMF pair, datatype from
# --out-format, delay 20 added to every annotation.
run filter rec.sigmf-meta out --design "$SPEC" --out-format rf32_le -q
expect_status 0 "SigMF to SigMF"
check "out.sigmf-data written" test -f out.sigmf-data
has out.sigmf-meta '"core:datatype": "rf32_le"' "datatype"
has out.sigmf-meta '"core:version": "1.0.0"' "version"
has out.sigmf-meta '"core:sample_rate": 1000000' "rate"
has out.sigmf-meta '"core:sample_start": 1020' "annotation shifted by the delay"
has out.sigmf-meta '"core:sample_start": 70' "second annotation shifted"
has out.sigmf-meta '"acme:snr": 12' "unknown annotation key kept"
has out.sigmf-meta '"gain_db": 3.5' "unknown global object kept"
has out.sigmf-meta '"core:author": "someone"' "core key kept"
has out.sigmf-meta '"core:frequency": 915000000' "capture frequency kept"
has out.sigmf-meta '"operation": "filter"' "processing record"
has out.sigmf-meta '"taps": 41' "record: taps"
has out.sigmf-meta "\"design\": \"$SPEC\"" "record: design"
# The engine the stream chose (a CPU engine here, a GPU one where present).
has out.sigmf-meta '"engine": "' "record: engine"
check "record names a real engine" grep -Eq '"engine": "(cpu|gpu)-(direct|fft)' out.sigmf-meta
has out.sigmf-meta '"delay": 20' "record: delay"
has out.sigmf-meta '"input_datatype": "ri16_le"' "record: input datatype"
has out.sigmf-meta '"scale": 3.0517578125e-05' "record: input scaling"
has out.sigmf-meta '"name": "convoy"' "convoy extension declared"
"$CONVOY" design "$SPEC" --rate 1000000 >spec.txt
if "$REF" compare out.sigmf-data rf32_le rec.sigmf-data ri16_le spec.txt >cmp.txt; then
  pass
else
  fail "SigMF data: $(cat cmp.txt)"
fi

# --align removes the delay: annotations stay where they were.
run filter rec.sigmf-meta aligned.sigmf-meta --design "$SPEC" --align -q
expect_status 0 "--align"
has aligned.sigmf-meta '"core:sample_start": 1000' "--align keeps the annotation"
has aligned.sigmf-meta '"core:datatype": "ri16_le"' "datatype defaults to the input's"
hasnt aligned.sigmf-meta '"delay":' "--align: no delay recorded"
if "$REF" compare aligned.sigmf-data ri16_le rec.sigmf-data ri16_le spec.txt --drop 20 >cmp.txt; then
  pass
else
  fail "--align data: $(cat cmp.txt)"
fi

# A taps file, and --skip/--count: the output starts at input sample 900.
run filter rec.sigmf-data part --taps taps31.txt --skip 900 --count 0.002s --cold-start -q
expect_status 0 "--skip/--count on SigMF"
delay=$(awk '!/^#/ { v = $1 < 0 ? -$1 : $1; if (v > best) { best = v; at = n } n++ } END { print at }' taps31.txt)
has part.sigmf-meta "\"core:sample_start\": $((100 + delay))" "annotation after --skip 900"
has part.sigmf-meta '"core:sample_count": 200' "annotation length kept"
hasnt part.sigmf-meta '"early"' "annotation before the skip dropped"
has part.sigmf-meta '"taps_file": "taps31.txt"' "record: taps file"
has part.sigmf-meta '"skip": 900' "record: --skip in samples"
has part.sigmf-meta '"count": 2000' "record: --count 0.002s in samples"
has part.sigmf-meta '"start": "cold"' "record: cold start"
hasnt out.sigmf-meta '"skip":' "no --skip: none recorded"
hasnt out.sigmf-meta '"count":' "no --count: none recorded"
if "$REF" compare part.sigmf-data ri16_le rec.sigmf-data ri16_le taps31.txt --skip 900 \
  --count 2000 >cmp.txt; then pass; else fail "--skip/--count data: $(cat cmp.txt)"; fi

# Raw in, SigMF out: minimal metadata with --rate, and the record.
"$REF" gen raw.cs8 ci8 4000 3
run filter raw.cs8 raw_out.sigmf-data --taps taps31.txt --rate 2.4e6 -q
expect_status 0 "raw to SigMF"
has raw_out.sigmf-meta '"core:datatype": "ci8"' "raw: datatype"
has raw_out.sigmf-meta '"core:sample_rate": 2400000' "raw: rate from --rate"
has raw_out.sigmf-meta '"input": "raw.cs8"' "raw: input recorded"
has raw_out.sigmf-meta '"offset": 0' "raw: scaling recorded"

# --rate overrides the recording's rate.
run filter rec.sigmf-meta rerated --taps taps31.txt --rate 2e6 -q
expect_status 0 "--rate on SigMF"
has rerated.sigmf-meta '"core:sample_rate": 2000000' "--rate written"

# SigMF in, raw out: a capture extension makes a raw file, no metadata.
run filter rec.sigmf-meta flat.s16 --taps taps31.txt -q
expect_status 0 "SigMF to raw"
check "raw file written" test -f flat.s16
check "no metadata beside a raw output" test ! -e flat.s16.sigmf-meta

# The pair's base name as input.
run filter rec based --taps taps31.txt -q
expect_status 0 "base name input"
check "base name input gives SigMF" test -f based.sigmf-meta

# Every metadata file written above is SigMF as the specification's schema has it.
validate_sigmf out.sigmf-meta aligned.sigmf-meta part.sigmf-meta raw_out.sigmf-meta \
  rerated.sigmf-meta based.sigmf-meta

finish
