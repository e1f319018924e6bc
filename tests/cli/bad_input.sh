#!/bin/bash
# Every bad input: exit status 2, one line on stderr naming the file (or the
# spec) and the problem, and nothing written: no OUT, no temporary file.
source "$(dirname "$0")/common.bash"

gen good.wav --frames 20000 --channels 2 --rate 48000 --signal noise
gen good_1ch.wav --frames 20000 --channels 1 --rate 48000 --signal noise
random_taps 31 1 >taps.txt
mkdir out

expect_fail "missing input" missing.wav missing.wav out/o.wav --taps taps.txt

mkdir adir.wav
expect_fail "input is a directory" adir.wav adir.wav out/o.wav --taps taps.txt
if [ "$(id -u)" -ne 0 ]; then
  cp good.wav locked.wav && chmod 000 locked.wav
  expect_fail "unreadable input" locked.wav locked.wav out/o.wav --taps taps.txt
else
  echo "note: running as root, which reads any file: the chmod 000 check is skipped"
fi

# A WAV cut short: its header promises more frames than there are. The error
# comes after OUT's temporary was opened, so this also checks its removal.
gen long.wav --frames 400000 --channels 1 --rate 48000 --signal noise
size=$(stat -c %s long.wav)
cp long.wav truncated.wav && truncate -s $((size / 2)) truncated.wav
expect_fail "truncated WAV" truncated.wav truncated.wav out/o.wav --taps taps.txt

printf 'this is not audio\n%.0s' {1..50} >text.wav
expect_fail "not an audio file" text.wav text.wav out/o.wav --taps taps.txt

# A RIFF/WAVE file whose format tag (0x1234) no reader knows.
{
  printf 'RIFF\x4c\x00\x00\x00WAVEfmt \x10\x00\x00\x00'
  printf '\x34\x12\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00'
  printf 'data\x28\x00\x00\x00'
  head -c 40 /dev/zero
} >unknown_codec.wav
expect_fail "unsupported WAV codec" unknown_codec.wav unknown_codec.wav out/o.wav --taps taps.txt


expect_fail "unknown output type" o.xyz good.wav out/o.xyz --taps taps.txt
expect_fail "float samples in FLAC" o.flac good.wav out/o.flac --taps taps.txt --subtype float
expect_fail "output directory missing" nodir good.wav nodir/o.wav --taps taps.txt

printf '0.1\n0.2\nabc\n0.3\n' >garbage.txt
expect_fail "taps with garbage" garbage.txt good.wav out/o.wav --taps garbage.txt
printf '0.1\nnan\n0.3\n' >nan.txt
expect_fail "taps with NaN" nan.txt good.wav out/o.wav --taps nan.txt
printf '0.1, inf, 0.3\n' >inf.txt
expect_fail "taps with Inf" inf.txt good.wav out/o.wav --taps inf.txt
printf '# only a comment\n\n' >none.txt
expect_fail "taps file without taps" none.txt good.wav out/o.wav --taps none.txt
: >zero.txt
expect_fail "empty taps file" zero.txt good.wav out/o.wav --taps zero.txt
printf '0.5 0.25\n-0.125 0.001\n0 1\n' >twocol.txt # numpy: savetxt(f, c_[h.real, h.imag])
expect_fail "two-column taps file" "two numbers on every line" good.wav out/o.wav --taps twocol.txt
expect_fail "missing taps file" nothere.txt good.wav out/o.wav --taps nothere.txt

gen ir44.wav --frames 100 --channels 1 --rate 44100 --signal noise --amp 0.1
expect_fail "IR rate differs" ir44.wav good.wav out/o.wav --ir ir44.wav
gen ir3.wav --frames 100 --channels 3 --rate 48000 --signal noise --amp 0.1
expect_fail "IR with 3 channels for a stereo input" ir3.wav good.wav out/o.wav --ir ir3.wav
expect_fail "IR that is not audio" text.wav good.wav out/o.wav --ir text.wav

expect_fail "cutoff at Nyquist" cutoff good.wav out/o.wav --design lowpass:cutoff=24000,width=500
expect_fail "cutoff above Nyquist" cutoff good.wav out/o.wav --design lowpass:cutoff=30000,width=500
# (a spec wrong at any rate is a usage error: tests/cli/usage.sh)
expect_fail "design rate differs from the input" 44100 good.wav out/o.wav \
  --design lowpass:cutoff=1000,width=100,rate=44100

# A write that fails midway (the file size limit, with SIGXFSZ ignored so
# that write() returns EFBIG): exit 2, the reason, and no OUT or temporary
# left, for integer output (quantized on the pass's encoder thread) and for
# float output (written by the writer directly).
gen long_st.wav --frames 400000 --channels 2 --rate 48000 --signal noise --amp 0.5
for subtype in pcm16 pcm24 float; do
  rm -rf out && mkdir out
  (
    trap '' XFSZ
    ulimit -f 256
    "$CONVOY" filter long_st.wav out/o.wav --taps taps.txt --subtype $subtype >stdout.txt 2>stderr.txt
  )
  STATUS=$?
  expect_status 2 "write failing midway ($subtype)"
  expect_one_error_line "write failing midway ($subtype)" "o.wav: write failed"
  expect_dir_empty out "write failing midway ($subtype)"
done

finish
