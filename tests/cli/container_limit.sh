#!/bin/bash
# WAV, AIFF and AU count their sizes in 32 bits (4 GiB of samples). An
# output known to outgrow that is written as RF64 where WAV was asked for
# (one notice; the samples as a WAV would hold them), refused with one
# error line and nothing written for AIFF, and an input whose length is not
# known in advance (a streamed WAV on stdin) stops with one error line and
# nothing left when it gets there. The limit is lowered for the test
# (CONVOY_IO_TEST_SIZE_LIMIT), so that a few hundred kB stand for 4 GiB.
source "$(dirname "$0")/common.bash"

export CONVOY_IO_TEST_SIZE_LIMIT=100000
gen in.wav --frames 60000 --channels 1 --subtype pcm16 --signal noise --amp 0.5
gen small.wav --frames 20000 --channels 1 --subtype pcm16 --signal noise --amp 0.5
echo 0.5 >half.txt

magic() { head -c 4 "$1"; }

# Known length, float out: 240000 bytes of samples do not fit: RF64.
run filter in.wav out.wav --taps half.txt --subtype float
expect_status 0 "WAV over the limit"
check "WAV over the limit: written as RF64" test "$(magic out.wav)" = RF64
check "WAV over the limit: one notice" grep -q "writing RF64" stderr.txt
if "$TOOLS/audio_check" compare out.wav in.wav half.txt >cmp.txt; then pass; else
  fail "WAV over the limit: samples: $(cat cmp.txt)"
fi

# Under the limit: a WAV as always.
run filter small.wav out_small.wav --taps half.txt
expect_status 0 "WAV under the limit"
check "WAV under the limit: RIFF" test "$(magic out_small.wav)" = RIFF

# AIFF has no 64-bit twin here: refused before anything is written.
rm -rf out && mkdir out
run filter in.wav out/o.aiff --taps half.txt --subtype float
expect_status 2 "AIFF over the limit"
expect_one_error_line "AIFF over the limit" "o.aiff"
expect_dir_empty out "AIFF over the limit"

# An AU streamed with its size unknown (0xffffffff) through a pipe: the length
# shows only while writing, and the write stops there.
gen in.au --frames 60000 --channels 1 --subtype pcm16 --signal noise --amp 0.5
python3 - in.au streamed.au <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[8:12] = b"\xff\xff\xff\xff"
open(sys.argv[2], "wb").write(b)
PY
rm -rf out && mkdir out
cat streamed.au | "$CONVOY" filter - out/s.wav --taps half.txt --subtype float >stdout.txt 2>stderr.txt
STATUS=$?
expect_status 2 "streamed input over the limit"
expect_one_error_line "streamed input over the limit" ".rf64 or .w64"
expect_dir_empty out "streamed input over the limit"

finish
