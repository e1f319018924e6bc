#!/bin/bash
# filter_soak.sh SECONDS BUILD [WORK]: `convoy filter` in a loop for SECONDS
# over random SigMF captures (datatype, length, channels), taps, engines
# (the CPU ones; SOAK_FAMILY=gpu: gpu-direct, gpu-fft and gpu), FFT
# sizes, threads and options (--decimate, --shift, --skip/--count, --tail,
# --out-format), each output checked against the double-precision
# reference (BUILD/tests/capture_ref compare). Per run it records the
# program's max RSS (/usr/bin/time) and the most descriptors it held open
# (sampled from /proc), and checks that the output folder holds the output
# and nothing else. Prints one line per failure and a summary; exit status 1
# when any run failed.
set -u
source "$(dirname "$0")/../tests/cli/random_taps.bash"
secs=${1:?seconds}
build=$(cd "${2:?build folder}" && pwd)
work=${3:-$(mktemp -d "${TMPDIR:-/tmp}/convoy-soak.XXXXXX")}
mkdir -p "$work/out"
cd "$work" || exit 1
C=$build/convoy
REF=$build/tests/capture_ref
RANDOM=${SOAK_SEED:-1}
types=(cf32_le ci16_le cu8 rf32_le ri16_le)
family=${SOAK_FAMILY:-cpu}
end=$(($(date +%s) + secs))
runs=0 fails=0
: >runs.tsv
logu() { awk -v lo="$1" -v hi="$2" -v r="$RANDOM$RANDOM" 'BEGIN { srand(r); printf "%d", exp(log(lo) + rand() * (log(hi) - log(lo))) }'; }
while [ "$(date +%s)" -lt "$end" ]; do
  runs=$((runs + 1))
  t=${types[RANDOM % ${#types[@]}]}
  frames=$(logu 1 2000000)
  ch=$((1 + RANDOM % 3))
  ntaps=$(logu 1 4096)
  "$REF" gen in.sigmf-data "$t" "$frames" $RANDOM --channels "$ch"
  printf '{"global": {"core:datatype": "%s", "core:version": "1.0.0", "core:num_channels": %d},
  "captures": [{"core:sample_start": 0}], "annotations": []}\n' "$t" "$ch" >in.sigmf-meta
  random_taps "$ntaps" $RANDOM >taps.txt
  ops=(--taps taps.txt -q)
  ref=(--channels "$ch")
  case $((RANDOM % 3)) in
  0) ops+=(--engine "$family-direct") ;;
  1) ops+=(--engine "$family-fft")
    [ $((RANDOM % 2)) = 0 ] && ops+=(--fft-size $((1 << ($(logu 1 6) + $(awk -v n="$ntaps" 'BEGIN { k = 0; while ((2 ^ k) < 2 * n) k++; print k }'))))) ;;
  2) [ "$family" = gpu ] && ops+=(--engine gpu) ;;
  esac
  ops+=(--threads $((1 + RANDOM % 2)))
  out_t=$t
  if [ $((RANDOM % 4)) = 0 ]; then
    case $t in c*) out_t=cf32_le ;; *) out_t=rf32_le ;; esac
    ops+=(--out-format "$out_t")
  fi
  if [ $((RANDOM % 3)) = 0 ] && [ "$frames" -gt 10 ]; then
    sk=$((RANDOM % (frames / 2))) n=$((1 + RANDOM % (frames - frames / 2)))
    ops+=(--skip "$sk" --count "$n" --cold-start)
    ref+=(--skip "$sk" --count "$n")
  fi
  if [ $((RANDOM % 3)) = 0 ]; then d=$((2 + RANDOM % 7)); ops+=(--decimate "$d"); ref+=(--decimate "$d"); fi
  if [[ $t == c* ]] && [ $((RANDOM % 3)) = 0 ]; then
    f=$((RANDOM % 400000 - 200000))
    ops+=(--shift "$f" --rate 1000000)
    ref+=(--shift "$(awk -v f="$f" 'BEGIN { printf "%.17g", f / 1e6 }')")
  fi
  if [ $((RANDOM % 3)) = 0 ]; then ops+=(--tail); ref+=(--tail); fi
  rm -rf out && mkdir out
  /usr/bin/time -f %M -o rss.txt "$C" filter in.sigmf-meta "out/o.$out_t" "${ops[@]}" 2>err.txt &
  pid=$!
  fds=0
  while kill -0 $pid 2>/dev/null; do
    p=$(pgrep -P $pid convoy | head -1)
    [ -n "$p" ] && n=$(ls /proc/"$p"/fd 2>/dev/null | wc -l) && [ "$n" -gt "$fds" ] && fds=$n
    sleep 0.02
  done
  wait $pid
  status=$?
  rss=$(tail -1 rss.txt)
  verdict=ok
  if [ $status -ne 0 ]; then
    verdict="exit $status: $(head -c 200 err.txt)"
  elif [ "$(ls -A out)" != "o.$out_t" ]; then
    verdict="left in out/: $(ls -A out | tr '\n' ' ')"
  elif ! "$REF" compare "out/o.$out_t" "$out_t" in.sigmf-data "$t" taps.txt "${ref[@]}" >cmp.txt 2>&1; then
    verdict="reference: $(head -c 200 cmp.txt)"
  fi
  printf '%d\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n' "$runs" "$t" "$frames" "$ch" "$ntaps" "$rss" "$fds" \
    "${ops[*]}" "$verdict" >>runs.tsv
  if [ "$verdict" != ok ]; then
    fails=$((fails + 1))
    echo "FAIL run $runs: convoy filter in.sigmf-meta o.$out_t ${ops[*]}: $verdict"
  fi
done
awk -F'\t' -v q="$runs" '
  { rss[NR] = $6; fd[NR] = $7; big[NR] = ($3 * $4 > 1000000) }
  END {
    for (i = 1; i <= NR; i++) {
      h = (i <= NR / 2) ? 1 : 2
      if (big[i] && rss[i] > bmax[h]) bmax[h] = rss[i]
      if (!big[i] && rss[i] > smax[h]) smax[h] = rss[i]
      if (fd[i] > fmax[h]) fmax[h] = fd[i]
    }
    printf "max RSS, inputs over 1M samples: first half %d KiB, second half %d KiB\n", bmax[1], bmax[2]
    printf "max RSS, smaller inputs:         first half %d KiB, second half %d KiB\n", smax[1], smax[2]
    printf "most descriptors open at once: first half %d, second half %d\n", fmax[1], fmax[2]
  }' runs.tsv
echo "runs $runs, failed $fails, in $secs s ($work/runs.tsv)"
[ "$fails" -eq 0 ]
