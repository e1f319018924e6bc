#!/bin/bash
# Captures through pipes: `cat x | convoy filter - -` gives the bytes the
# file-to-file run gives (several datatypes, channels, many chunks), --skip
# and --count through a pipe, decimation and shift, stdin redirected from a
# file, and the errors (no --format, SigMF to stdout, a partial sample at
# the end, skip or count past the end, options that need the length) with
# exit status 2 and nothing written.
source "$(dirname "$0")/common.bash"

REF="$TOOLS/capture_ref"
random_taps 33 7 >taps.txt
# Long enough for several chunks of convoy's reads (2^17 values each).
FRAMES=300001

# piped IN ARGS...: cat IN | convoy ARGS..., like run (stdout.txt, stderr.txt).
piped() {
  local in=$1
  shift
  cat "$in" | "$CONVOY" "$@" >stdout.txt 2>stderr.txt
  STATUS=${PIPESTATUS[1]}
}

# same_bytes DESCRIPTION WANT GOT
same_bytes() {
  if cmp -s "$2" "$3"; then pass; else fail "$1: $3 differs from $2 ($(wc -c <"$2") vs $(wc -c <"$3") bytes)"; fi
}

# check_type TYPE OUT_TYPE: stdin/stdout against file to file.
check_type() {
  local t=$1 ot=$2
  "$REF" gen "in.$t" "$t" $FRAMES 5 || { fail "$t: gen"; return; }
  local fmt=(--format "$t" --out-format "$ot")
  run filter "in.$t" "want.$ot" --out-format "$ot" --taps taps.txt -q -y
  expect_status 0 "$t -> $ot file to file"
  piped "in.$t" filter - - "${fmt[@]}" --taps taps.txt -q
  expect_status 0 "$t -> $ot through pipes"
  same_bytes "$t -> $ot: pipe to pipe" "want.$ot" stdout.txt
  check "$t: nothing but samples on stdout, nothing on stderr with -q" test ! -s stderr.txt
  piped "in.$t" filter - "out.$ot" --format "$t" --taps taps.txt -q -y
  expect_status 0 "$t: pipe to file"
  same_bytes "$t -> $ot: pipe to file" "want.$ot" "out.$ot"
  run filter "in.$t" - --out-format "$ot" --taps taps.txt -q
  expect_status 0 "$t: file to stdout"
  same_bytes "$t -> $ot: file to stdout" "want.$ot" stdout.txt
  # stdin redirected from a file: measured like a named file.
  "$CONVOY" filter - - "${fmt[@]}" --taps taps.txt -q <"in.$t" >redirected.out 2>stderr.txt
  STATUS=$?
  expect_status 0 "$t: stdin from a file"
  same_bytes "$t -> $ot: stdin from a file" "want.$ot" redirected.out
}

check_type cf32_le cf32_le
check_type cu8 cu8
check_type ci16_le ci16_le
check_type cu8 cf32_le
check_type cf32_le ci8
check_type ri16_be rf32_le
check_type cf64_le cf64_le

# --skip and --count through a pipe (samples, and seconds with --rate); the
# skipped samples are read and dropped.
"$REF" gen in.cs16 ci16_le $FRAMES 9
for span in "--skip 1000" "--count 70000" "--skip 150001 --count 100000" \
  "--skip 0.5s --count 1.25s --rate 100000" "--skip 299000"; do
  # shellcheck disable=SC2086
  run filter in.cs16 want.cs16 --taps taps.txt -q -y $span
  expect_status 0 "file $span"
  # shellcheck disable=SC2086
  piped in.cs16 filter - - --format ci16_le --taps taps.txt -q $span
  expect_status 0 "pipe $span"
  same_bytes "pipe $span" want.cs16 stdout.txt
done

# Decimation, frequency shift and alignment through pipes.
for ops in "--decimate 4" "--decimate 7 --shift 1500 --rate 48000" "--align --decimate 3" "--tail"; do
  # shellcheck disable=SC2086
  run filter in.cs16 want.cf32 --out-format cf32_le --taps taps.txt -q -y $ops
  expect_status 0 "file $ops"
  # shellcheck disable=SC2086
  piped in.cs16 filter - - --format ci16_le --out-format cf32_le --taps taps.txt -q $ops
  expect_status 0 "pipe $ops"
  same_bytes "pipe $ops" want.cf32 stdout.txt
done

# A SigMF recording to stdout: raw samples with --out-format, no metadata.
run filter in.cs16 rec.sigmf-meta --design lowpass:cutoff=0.2,taps=9 --rate 1 -q
expect_status 0 "make a SigMF recording"
validate_sigmf rec.sigmf-meta
run filter rec.sigmf-meta want.cs16 --taps taps.txt -q -y
expect_status 0 "SigMF to a raw file"
run filter rec.sigmf-meta - --out-format ci16_le --taps taps.txt -q
expect_status 0 "SigMF to stdout with --out-format"
same_bytes "SigMF to stdout" want.cs16 stdout.txt
check "no metadata written beside" test ! -e -.sigmf-meta

# Errors: one line, exit status 2, nothing on stdout, no file made.
mkdir -p errs
expect_nothing() {
  expect_status 2 "$1"
  expect_one_error_line "$1" "$2"
  check "$1: nothing on stdout" test ! -s stdout.txt
  expect_dir_empty errs "$1"
}
run filter rec.sigmf-meta - --taps taps.txt
expect_nothing "SigMF to stdout without --out-format" "SigMF"
piped in.cs16 filter - errs/out.cs16 --taps taps.txt
expect_nothing "stdin without --format" "--format"
piped in.cs16 filter - - --scale 0.5 --taps taps.txt
expect_nothing "stdin without --format, with --scale" "--format"
head -c 4003 in.cs16 >partial.raw
piped partial.raw filter - - --format ci16_le --taps taps.txt
expect_nothing "a partial sample at the end of stdin" "stdin"
check "the partial sample is named" grep -q "inside a sample" stderr.txt
piped partial.raw filter - errs/out.cs16 --format ci16_le --taps taps.txt
expect_nothing "a partial sample, to a file" "stdin"
head -c 4000 in.cs16 >small.raw
piped small.raw filter - - --format ci16_le --skip 1000 --taps taps.txt
expect_nothing "skip past the end of a pipe" "past the end"
piped small.raw filter - - --format ci16_le --skip 900 --count 200 --taps taps.txt
expect_nothing "count past the end of a pipe" "past the end"
: >empty.raw
piped empty.raw filter - - --format ci16_le --taps taps.txt
expect_status 0 "empty stdin: an empty signal"
check "empty stdin: nothing on stdout" test ! -s stdout.txt
piped small.raw filter - - --format sigmf --taps taps.txt
expect_status 1 "--format sigmf is not a datatype"
"$REF" gen tmpl.cf32 cf32_le 16 3
piped small.raw filter - - --format ci16_le --matched tmpl.cf32 --mode valid
expect_nothing "--mode valid needs the length" "--mode valid"
"$CONVOY" filter - - --format ci16_le --matched tmpl.cf32 --mode valid -q <small.raw >valid.out 2>stderr.txt
STATUS=$?
expect_status 0 "--mode valid with stdin from a file"
run filter small.raw valid.want --format ci16_le --out-format ci16_le --matched tmpl.cf32 --mode valid -q
same_bytes "--mode valid, stdin from a file" valid.want valid.out
piped small.raw filter - - --format ci16_le --matched tmpl.cf32 --pulse-len 100
expect_nothing "--pulse-len needs the length" "--pulse-len"
# ... which --count gives.
run filter small.raw pulses.want --format ci16_le --out-format cf32_le --matched tmpl.cf32 \
  --pulse-len 100 --count 900 -q
expect_status 0 "pulses from a file"
piped small.raw filter - - --format ci16_le --out-format cf32_le --matched tmpl.cf32 \
  --pulse-len 100 --count 900 -q
expect_status 0 "pulses through a pipe with --count"
same_bytes "pulses through a pipe with --count" pulses.want stdout.txt

finish
