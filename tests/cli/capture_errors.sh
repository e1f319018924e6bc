#!/bin/bash
# Bad captures: exit status 2, one line on stderr naming the file and the
# problem, and nothing written (no output, no temporary).
source "$(dirname "$0")/common.bash"

REF="$TOOLS/capture_ref"
random_taps 9 1 >taps.txt
"$REF" gen good.cf32 cf32_le 1000 1
"$REF" gen good.sigmf-data ci16_le 1000 2
printf '{"global": {"core:datatype": "ci16_le", "core:version": "1.0.0"}, "captures": [{"core:sample_start": 0}], "annotations": []}\n' >good.sigmf-meta

# The good inputs work (so the failures below are the inputs' doing).
mkdir -p ok
run filter good.sigmf-meta ok/o --taps taps.txt -q
expect_status 0 "good SigMF"

cp good.sigmf-data badjson.sigmf-data
printf '{"global": {"core:datatype": "ci16_le",, }\n' >badjson.sigmf-meta
expect_fail "invalid JSON" "invalid JSON" badjson.sigmf-meta out/o --taps taps.txt

# A NUL in a string: cJSON would end the string there and read "ci16_le".
# As \u0000 (valid JSON) and as a raw byte (not JSON): refused, naming the key.
meta_with() {
  printf '{"global": {"core:datatype": "%s", "core:version": "1.0.0"}, "captures": [{"core:sample_start": 0}], "annotations": []}\n' "$1"
}
cp good.sigmf-data nul_escape.sigmf-data
meta_with 'ci16_le\u0000x' >nul_escape.sigmf-meta
expect_fail "\\u0000 in core:datatype" \
  "nul_escape.sigmf-meta: global.core:datatype: the string holds a NUL character (\u0000 at byte 37" \
  nul_escape.sigmf-meta out/o --taps taps.txt
cp good.sigmf-data nul_byte.sigmf-data
meta_with "ci16_le$(printf 'Q')x" | tr Q '\000' >nul_byte.sigmf-meta
check "a NUL byte is written" test "$(tr -cd '\000' <nul_byte.sigmf-meta | wc -c)" -eq 1
expect_fail "NUL byte in core:datatype" \
  "nul_byte.sigmf-meta: global.core:datatype: the string holds a NUL character (a NUL byte at byte 37" \
  nul_byte.sigmf-meta out/o --taps taps.txt

cp good.sigmf-data badtype.sigmf-data
sed 's/ci16_le/ci12_le/' good.sigmf-meta >badtype.sigmf-meta
expect_fail "unknown datatype" "ci12_le" badtype.sigmf-meta out/o --taps taps.txt

cp good.sigmf-meta nodata.sigmf-meta
expect_fail "missing .sigmf-data" "nodata.sigmf-data" nodata.sigmf-meta out/o --taps taps.txt
# A dataset that global core:dataset names as a directory: the message names
# the meta file that asked for it, not only the directory.
printf '{"global": {"core:datatype": "ci16_le", "core:dataset": ".."}, "captures": [], "annotations": []}\n' >dotdot.sigmf-meta
expect_fail "core:dataset names a directory" \
  "dotdot.sigmf-meta: its dataset .. (global core:dataset) is a directory" \
  dotdot.sigmf-meta out/o --taps taps.txt
mkdir dir.sigmf-data
cp good.sigmf-meta dir.sigmf-meta
expect_fail "the .sigmf-data is a directory" "dir.sigmf-meta: its dataset dir.sigmf-data is a directory" \
  dir.sigmf-meta out/o --taps taps.txt

{ cat good.sigmf-data; printf 'x'; } >odd.sigmf-data
cp good.sigmf-meta odd.sigmf-meta
expect_fail "size not a multiple (SigMF)" "not a multiple" odd.sigmf-meta out/o --taps taps.txt
{ cat good.cf32; printf 'xyz'; } >odd.cf32
expect_fail "size not a multiple (raw)" "not a multiple" odd.cf32 out/o.cf32 --taps taps.txt

expect_fail "skip past the end" "past the end" good.cf32 out/o.cf32 --taps taps.txt --skip 1000
expect_fail "count past the end" "past the end" good.cf32 out/o.cf32 --taps taps.txt \
  --skip 10 --count 991
expect_fail "skip in seconds past the end" "past the end" good.cf32 out/o.cf32 \
  --taps taps.txt --rate 1000 --skip 2s

expect_fail "missing taps file" "nothere.txt" good.cf32 out/o.cf32 --taps nothere.txt
printf '0.1\nabc\n' >garbage.txt
expect_fail "unreadable taps" "garbage.txt" good.cf32 out/o.cf32 --taps garbage.txt
head -c 13 good.cf32 >odd_taps.cf32
expect_fail "complex taps of a bad size" "odd_taps.cf32" good.cf32 out/o.cf32 --taps odd_taps.cf32
"$REF" gen real.f32 rf32_le 100 4
expect_fail "complex taps on a real capture" "complex taps" real.f32 out/o.f32 --taps good.cf32

expect_fail "missing input" "missing.cf32" missing.cf32 out/o.cf32 --taps taps.txt
expect_fail "SigMF archive" "archives" rec.sigmf out/o --taps taps.txt
expect_fail "complex to real" "do not mix" good.cf32 out/o.f32 --taps taps.txt
expect_fail "--format contradicts core:datatype" "contradicts" good.sigmf-meta out/o \
  --format cu8 --taps taps.txt

# Usage errors (exit 1): a bad datatype name, capture options on audio.
run filter good.cf32 out/o.cf32 --taps taps.txt --format ci15_le
expect_status 1 "--format ci15_le"
check "--format names the bad datatype" grep -q "unknown datatype 'ci15_le'" stderr.txt
# A capture into an audio file name: refused (raw samples would sit under a
# name every audio program misreads), unless --out-format says raw is meant.
for name in o.wav o.flac o.aiff; do
  run filter good.cf32 out/$name --taps taps.txt
  expect_status 1 "capture into $name"
  check "capture into $name: names the fix" grep -q "name OUT by its datatype" stderr.txt
  expect_dir_empty out "capture into $name"
done
run filter good.cf32 out/raw.wav --taps taps.txt --out-format cf32_le -q
expect_status 0 "capture into .wav with --out-format"
cp good.cf32 rec.iq
run filter rec.iq out/o.cf32 --taps taps.txt --decimate 2
expect_status 1 "capture option on an unknown extension"
check "points to --format" grep -q -- "--format" stderr.txt
gen audio.wav --frames 100 --channels 1 --rate 8000 --signal noise
run filter audio.wav out/o.wav --taps taps.txt --decimate 2
expect_status 1 "--decimate on audio"
run filter good.cf32 out/o.cf32 --taps taps.txt --subtype pcm16
expect_status 1 "--subtype on a capture"
run filter good.cf32 out/o.cf32 --taps taps.txt --skip 1x
expect_status 1 "--skip 1x"

# An existing output is not replaced without -y.
"$REF" gen exists.cf32 cf32_le 10 3
cp exists.cf32 exists.bak
run filter good.cf32 exists.cf32 --taps taps.txt
expect_status 1 "existing output"
check "existing output untouched" cmp -s exists.cf32 exists.bak
# A SigMF pair: either file already there refuses the run.
cp good.sigmf-data pair.sigmf-data
cp pair.sigmf-data pair.bak
run filter good.sigmf-meta pair.sigmf-meta --taps taps.txt
expect_status 1 "existing SigMF data file"
expect_one_error_line "existing SigMF data file" pair.sigmf-data
check "existing SigMF data untouched" cmp -s pair.sigmf-data pair.bak
check "no meta written beside it" test ! -e pair.sigmf-meta

finish
