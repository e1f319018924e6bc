#!/bin/bash
# The output's sample format defaults to the input's; --subtype overrides it;
# the container follows OUT's extension; dither only on request.
source "$(dirname "$0")/common.bash"

printf '0.25\n0.5\n0.25\n' >taps.txt
for st in pcm16 pcm24 pcm32 float double; do
  gen in_$st.wav --frames 4000 --channels 2 --rate 44100 --subtype $st --signal noise --amp 0.5
  run filter in_$st.wav o_$st.wav --taps taps.txt -q
  expect_status 0 "$st in"
  check "$st in -> $st out (got $(info_field o_$st.wav subtype))" \
    test "$(info_field o_$st.wav subtype)" = $st
  check "$st out keeps rate and channels" \
    test "$(info_field o_$st.wav rate)/$(info_field o_$st.wav channels)" = 44100/2
done

for st in pcm16 pcm24 float; do
  run filter in_float.wav over_$st.wav --taps taps.txt --subtype $st -q
  expect_status 0 "--subtype $st"
  check "--subtype $st from float (got $(info_field over_$st.wav subtype))" \
    test "$(info_field over_$st.wav subtype)" = $st
done
run filter in_pcm16.wav over_float16.wav --taps taps.txt --subtype float -q
check "--subtype float from pcm16" test "$(info_field over_float16.wav subtype)" = float

run filter in_pcm16.wav o.flac --taps taps.txt -q
expect_status 0 "pcm16 WAV -> FLAC"
check "FLAC container from the extension" test "$(info_field o.flac container)" = flac
check "FLAC keeps pcm16" test "$(info_field o.flac subtype)" = pcm16
run filter in_pcm24.wav o24.flac --taps taps.txt -q
check "FLAC keeps pcm24" test "$(info_field o24.flac subtype)" = pcm24
run filter in_float.wav of.flac --taps taps.txt -q
expect_status 0 "float WAV -> FLAC picks an integer subtype"
check "float WAV -> FLAC is FLAC" test "$(info_field of.flac container)" = flac
run filter in_pcm16.wav o.au --taps taps.txt -q
check "AU container from the extension" test "$(info_field o.au container)" = au

# A single unit tap is an identity: without dither pcm16 comes back exactly,
# with dither (the default at 16 bits) it does not.
echo 1 >unit.txt
run filter in_pcm16.wav same16.wav --taps unit.txt --no-dither -q
expect_status 0 "--no-dither"
check "--no-dither: pcm16 through a unit tap is exact" \
  "$TOOLS/audio_check" compare same16.wav in_pcm16.wav unit.txt --max-err 0
run filter in_pcm16.wav dith16.wav --taps unit.txt -q
check "dither on by default at pcm16" \
  bash -c "! '$TOOLS/audio_check' compare dith16.wav in_pcm16.wav unit.txt --max-err 0 >/dev/null"
check "dither is small (under 2 LSB rms)" \
  "$TOOLS/audio_check" compare dith16.wav in_pcm16.wav unit.txt --max-err 2e-4
run filter in_pcm24.wav same24.wav --taps unit.txt -q
check "no dither at pcm24: exact" \
  "$TOOLS/audio_check" compare same24.wav in_pcm24.wav unit.txt --max-err 0

# Every readable input subtype into every writable container: the input's
# subtype where the container holds it, else the nearest one that it does (an
# mp3 into WAV or FLAC: pcm16, as sox does), said in one notice line.
gen in_mp3.mp3 --frames 4800 --channels 2 --rate 48000 --signal sine --amp 0.5
for t in pcm16 pcm24 pcm32 double; do
  gen any_$t.wav --frames 4800 --channels 2 --rate 48000 --subtype $t --signal noise --amp 0.5
done
cp in_float.wav any_float.wav
for input in any_pcm16.wav any_pcm24.wav any_pcm32.wav any_float.wav any_double.wav \
  in_mp3.mp3; do
  for ext in wav flac aiff au caf w64 ogg; do
    run filter $input cross.$ext --taps taps.txt -y
    expect_status 0 "$input -> .$ext"
  done
done
run filter in_mp3.mp3 mp3.wav --taps taps.txt
expect_status 0 "mp3 -> WAV"
check "mp3 -> WAV: pcm16" test "$(info_field mp3.wav subtype)" = pcm16
check "mp3 -> WAV: says so" grep -q "mp3.wav: the output cannot hold in_mp3.mp3's mpeg samples; writing pcm16" stderr.txt
run filter in_mp3.mp3 mp3q.flac --taps taps.txt -q
check "mp3 -> FLAC -q: pcm16, nothing said" \
  test "$(info_field mp3q.flac subtype)" = pcm16 -a ! -s stderr.txt

finish
