#!/bin/bash
# Levels: integer output saturates (never wraps) and the clipping is
# reported; --normalize reaches its peak target; the summary's peak.
source "$(dirname "$0")/common.bash"

echo 1 >unit.txt
N=48000
gen loud.wav --frames $N --channels 1 --rate 48000 --subtype pcm16 --signal sine --amp 0.9 --freq 441

# 0.9 * 10^(12/20) = 3.58: |x| >= 1 wherever |sin| >= 0.28, 82% of the samples.
run filter loud.wav clip.wav --taps unit.txt --gain 12
expect_status 0 "--gain 12 into pcm16"
clipped=$(sed -n 's/.*clipped \([0-9]*\) samples.*/\1/p' stderr.txt)
check "summary reports clipped samples (got '${clipped}')" test "${clipped:-0}" -gt 0
check "a warning suggests --gain or --normalize" grep -q "warning: .*clipped.*--gain.*--normalize" stderr.txt
codes=$("$TOOLS/audio_check" codes clip.wav)
maxc=$(echo "$codes" | sed -n 's/.*max_codes=\([0-9]*\).*/\1/p')
minc=$(echo "$codes" | sed -n 's/.*min_codes=\([0-9]*\).*/\1/p')
echo "clipped=$clipped $codes"
check "positive overs hold +32767 (got $maxc of $N)" test "$maxc" -gt $((N * 38 / 100))
check "negative overs hold -32768 (got $minc of $N)" test "$minc" -gt $((N * 38 / 100))
check "clip count matches the full-scale codes ($clipped vs $((maxc + minc)))" \
  test $((maxc + minc - clipped)) -le $((N / 100)) -a $((clipped - maxc - minc)) -le $((N / 100))
check "summary peak above 0 dBFS" grep -q "peak +1[01]\.[0-9]* dBFS" stderr.txt

run filter loud.wav quiet.wav --taps unit.txt --gain -6 -q
check "-q prints nothing" test ! -s stderr.txt
check "no clipping at -6 dB" test "$("$TOOLS/audio_check" codes quiet.wav | sed 's/.*max_codes=\([0-9]*\).*/\1/')" -eq 0

gen soft.wav --frames $N --channels 2 --rate 48000 --subtype float --signal noise --amp 0.1
random_taps 64 5 >taps.txt
run filter soft.wav norm.wav --taps taps.txt --normalize
expect_status 0 "--normalize"
peak=$(info_field norm.wav peak)
check "--normalize peaks at -1 dBFS (got $peak)" \
  awk -v p="$peak" 'BEGIN { exit !(p > 0.8912 && p < 0.8914) }'
check "--normalize reports its gain" grep -q "(normalized)" stderr.txt
run filter soft.wav norm3.wav --taps taps.txt --normalize=-3 -q
peak=$(info_field norm3.wav peak)
check "--normalize=-3 peaks at -3 dBFS (got $peak)" \
  awk -v p="$peak" 'BEGIN { exit !(p > 0.7078 && p < 0.7080) }'
# The normalized output is the filtered signal times one constant.
raw_peak=$("$CONVOY" filter soft.wav raw.wav --taps taps.txt -q && info_field raw.wav peak)
g=$(awk -v a="$raw_peak" 'BEGIN { printf "%.9f", 20 * log(0.70794578 / a) / log(10) }')
check "--normalize=-3 is a plain gain of $g dB" \
  "$TOOLS/audio_check" compare norm3.wav soft.wav taps.txt --gain "$g"

finish
