#!/bin/bash
# `mpirun -np N convoy filter` (the CPU engines here): each rank filters a
# contiguous range of the input, warm-started, into its place in one
# output, and the output is bit for bit the single-process run's: raw cf32,
# rf32 and ci16 (clip counts summed), SigMF cu8 (metadata too), audio (WAV,
# RF64 and W64; PCM 16, 24 and 32 bits, and float, whose PEAK chunk differs
# only in its time stamp), lengths that no rank count divides, 2 and 3
# ranks, with --decimate, --shift, --align, --tail, --gain, --skip/--count
# (warm and --cold-start), a valid-mode matched filter, and taps longer than
# a rank's range; with --plan measure, the reference's within the engine's
# error. What cannot be split (--normalize, FLAC out) is refused. A failure
# every rank meets is reported once; a rank killed mid-run leaves no output
# and no temporary. Skipped (77) without mpirun or a build with MPI.
source "$(dirname "$0")/common.bash"

command -v mpirun >/dev/null || { echo "no mpirun: skipped"; exit 77; }
"$CONVOY" info | grep -qE '^  MPI +yes' || { echo "convoy built without MPI: skipped"; exit 77; }
# Open MPI refuses root unless told; a private temporary directory per job.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN=(mpirun --oversubscribe)
# In the sanitizer build: what Open MPI keeps until exit is not a leak of
# convoy's (full stacks, and components kept loaded, to tell them apart).
export OMPI_MCA_mca_base_component_disable_dlclose=1
export LSAN_OPTIONS="suppressions=$TESTS_DIR/cli/mpi_leaks.supp:print_suppressions=0:fast_unwind_on_malloc=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"

REF="$TOOLS/capture_ref"
"$REF" gen in.cf32 cf32_le 100003 5
"$REF" gen in.rf32 rf32_le 100003 6
"$REF" gen in.cs16 ci16_le 100003 7
"$REF" gen small.cf32 cf32_le 1000 8
"$REF" gen rec.sigmf-data cu8 70001 9
cat >rec.sigmf-meta <<'JSON'
{
    "global": {"core:datatype": "cu8", "core:version": "1.0.0", "core:sample_rate": 2000000},
    "captures": [{"core:sample_start": 0, "core:frequency": 100000000}],
    "annotations": [{"core:sample_start": 30000, "core:sample_count": 500, "core:label": "burst"}]
}
JSON
random_taps 301 11 >taps.txt
random_taps 1500 12 >long.txt
"$REF" gen tmpl.cf32 cf32_le 200 10

# same N DESCRIPTION OUT ARGS...: `convoy filter ARGS one.OUT` in one
# process and `mpirun -np N convoy filter ARGS split.OUT` give the same
# bytes (and the same SigMF metadata, and the same clip count).
same() {
  local n=$1 desc=$2 out=$3
  shift 3
  rm -f one.* split.*
  if ! "$CONVOY" filter "$@" "one.$out" 2>one.txt; then
    fail "$desc: the single run failed: $(head -c 300 one.txt)"
    return
  fi
  if ! "${MPIRUN[@]}" -np "$n" "$CONVOY" filter "$@" "split.$out" >mpi.txt 2>&1; then
    fail "$desc, $n ranks: failed: $(head -c 600 mpi.txt | tr '\n' '|')"
    return
  fi
  local data=$out
  [ "$out" = sigmf-meta ] && data=sigmf-data
  if ! cmp -s "one.$data" "split.$data"; then
    fail "$desc, $n ranks: the samples differ from one process's"
  elif [ "$data" != "$out" ] && ! cmp -s <(sed 's/split/one/g' "split.$out") "one.$out"; then
    fail "$desc, $n ranks: the SigMF metadata differs: $(diff "one.$out" "split.$out" | head -5)"
  elif [ "$(grep -o 'clipped [0-9]*' one.txt)" != "$(grep -o 'clipped [0-9]*' mpi.txt)" ]; then
    fail "$desc, $n ranks: clip counts differ: $(grep clipped one.txt) / $(grep clipped mpi.txt)"
  else
    pass
  fi
}

ENGINES=("--engine cpu-direct" "--engine cpu-fft" "--engine cpu-fft --fft-size 1024")
OPS=("" "--decimate 7" "--decimate 5 --shift 12345 --rate 1e6" "--align" "--tail"
  "--align --decimate 3 --tail" "--skip 1234 --count 50001"
  "--skip 777 --count 40000 --cold-start" "--skip 100 --decimate 4 --align")
if [ -n "${CONVOY_TEST_QUICK:-}" ]; then # the sanitizer build: fewer, slower runs
  ENGINES=("--engine cpu-fft --fft-size 1024")
  OPS=("--decimate 5 --shift 12345 --rate 1e6" "--align --decimate 3 --tail"
    "--skip 777 --count 40000 --cold-start")
fi
for n in 2 3; do
  for eng in "${ENGINES[@]}"; do
    for ops in "${OPS[@]}"; do
      # shellcheck disable=SC2086
      same $n "cf32 $eng $ops" cf32 in.cf32 --taps taps.txt $eng $ops -q
    done
  done
  same $n "rf32 --decimate 3" rf32 in.rf32 --taps taps.txt --decimate 3 -q
  # Clips counted over the frames written: with --tail, and without it, where
  # the ring-out one process computes is not written and not counted.
  same $n "ci16 with clipping" cs16 in.cs16 --taps taps.txt --gain 30 --tail
  same $n "ci16 with clipping, no tail" cs16 in.cs16 --taps taps.txt --gain 30
  same $n "SigMF cu8 to cf32, decimated and shifted" sigmf-meta rec.sigmf-meta --taps taps.txt \
    --out-format cf32_le --decimate 4 --shift 150000 -q
  same $n "matched filter, valid mode" cf32 in.cf32 --matched tmpl.cf32 --mode valid -q
  same $n "matched filter, full mode" cf32 in.cf32 --matched tmpl.cf32 --mode full -q
  same $n "1500 taps over 1000 samples" cf32 small.cf32 --taps long.txt --tail -q
  same $n "1500 taps over 1000 samples, decimated" cf32 small.cf32 --taps long.txt --decimate 3 -q
done

# Audio: the file as one process writes it. A float WAV's PEAK chunk holds
# the time it was written (bytes 61-64 here): only those may differ.
gen st.wav --frames 100003 --channels 2 --subtype pcm16 --signal noise --amp 0.9
gen st3.wav --frames 70001 --channels 3 --subtype pcm24 --signal noise --amp 0.9
echo 1 >identity.txt
# RF64 content under a .wav name, as recorders write it (.rf64 names the
# raw float64 capture datatype on input).
"$CONVOY" filter st3.wav st3.rf64 --taps identity.txt -q && mv st3.rf64 rf64_in.wav ||
  fail "making an RF64 input"
check "the RF64 input is RF64" test "$(head -c 4 rf64_in.wav)" = RF64
same_audio() { # N DESCRIPTION IN OUT ARGS...
  local n=$1 desc=$2 in=$3 out=$4
  shift 4
  rm -f "one.$out" "split.$out"
  if ! "$CONVOY" filter "$in" "one.$out" "$@" -q 2>one.txt ||
    ! "${MPIRUN[@]}" -np "$n" "$CONVOY" filter "$in" "split.$out" "$@" -q >mpi.txt 2>&1; then
    fail "$desc, $n ranks: a run failed: $(head -c 300 one.txt mpi.txt | tr '\n' '|')"
  elif [ -n "$(cmp -l "one.$out" "split.$out" | awk '$1 < 61 || $1 > 64')" ] ||
    [ "$(stat -c %s "one.$out")" != "$(stat -c %s "split.$out")" ]; then
    fail "$desc, $n ranks: the file differs from one process's: $(cmp "one.$out" "split.$out")"
  else
    pass
  fi
}
for n in 2 3; do
  for ops in "" "--subtype float" "--subtype pcm24 --tail" "--align --gain 6" \
    "--skip 1000 --count 50001" "--skip 1000 --count 50001 --cold-start" "--subtype pcm32"; do
    # shellcheck disable=SC2086
    same_audio $n "WAV $ops" st.wav wav --taps taps.txt $ops
  done
  same_audio $n "RF64 in, W64 out" rf64_in.wav w64 --taps taps.txt --tail
  same_audio $n "WAV in, RF64 float out" st.wav rf64 --taps taps.txt --subtype float
done

# --plan measure: each process times its own plans, so the ranges join into
# the reference within the engine's error rather than into one run's bits.
if "${MPIRUN[@]}" -np 2 "$CONVOY" filter in.cf32 measure.cf32 --taps taps.txt --engine cpu-fft \
  --plan measure -q >mpi.txt 2>&1; then
  check "cf32, --plan measure, 2 ranks, matches the reference" \
    "$REF" compare measure.cf32 cf32_le in.cf32 cf32_le taps.txt
else
  fail "cf32, --plan measure, 2 ranks: failed: $(head -c 300 mpi.txt | tr '\n' '|')"
fi
if "${MPIRUN[@]}" -np 2 "$CONVOY" filter st.wav measure.wav --taps taps.txt --engine cpu-fft \
  --subtype float --plan measure -q >mpi.txt 2>&1; then
  check "WAV, --plan measure, 2 ranks, matches the reference" \
    "$TOOLS/audio_check" compare measure.wav st.wav taps.txt
else
  fail "WAV, --plan measure, 2 ranks: failed: $(head -c 300 mpi.txt | tr '\n' '|')"
fi
rm -rf out && mkdir out
"${MPIRUN[@]}" -np 2 "$CONVOY" filter st.wav out/n.wav --taps taps.txt --normalize >mpi.txt 2>&1
status=$?
if [ "$status" -eq 1 ] && grep -q 'runs in one process' mpi.txt; then pass; else
  fail "--normalize over two ranks: status $status: $(head -c 300 mpi.txt)"
fi
"${MPIRUN[@]}" -np 2 "$CONVOY" filter st.wav out/f.flac --taps taps.txt >mpi.txt 2>&1
status=$?
if [ "$status" -eq 2 ] && [ "$(grep -c '^convoy: ' mpi.txt)" -eq 1 ]; then pass; else
  fail "FLAC over two ranks: status $status: $(head -c 300 mpi.txt)"
fi
expect_dir_empty out "audio that cannot be split"

# A failure every rank meets: one error line, exit 2, nothing written.
rm -rf out && mkdir out
"${MPIRUN[@]}" -np 3 "$CONVOY" filter in.cf32 out/no/such/dir.cf32 --taps taps.txt >mpi.txt 2>&1
status=$?
lines=$(grep -c '^convoy: ' mpi.txt)
if [ "$status" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q 'dir.cf32' mpi.txt; then
  pass
else
  fail "OUT in a missing folder: status $status, $lines convoy lines: $(head -c 400 mpi.txt)"
fi
expect_dir_empty out "OUT in a missing folder"

# A pipe cannot be split.
cat in.cf32 | "${MPIRUN[@]}" -np 2 "$CONVOY" filter - out/p.cf32 --format cf32_le \
  --taps taps.txt >mpi.txt 2>&1
status=$?
if [ "$status" -eq 1 ] && grep -q 'not pipes' mpi.txt; then pass; else
  fail "a pipe over two ranks: status $status: $(head -c 300 mpi.txt)"
fi

# A rank killed mid-run: the job stops, and neither OUT nor a temporary is
# left (rank 0 removes its named temporary when mpirun ends it).
"$REF" gen big.cf32 cf32_le 1000000 3
random_taps 60000 13 >slow.txt
rm -rf out && mkdir out
"${MPIRUN[@]}" -np 2 "$CONVOY" filter big.cf32 out/k.cf32 --taps slow.txt --engine cpu-direct \
  >mpi.txt 2>&1 &
job=$!
victim=""
for _ in $(seq 1 200); do
  for p in $(pgrep -f "filter big.cf32 out/k.cf32"); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && victim=$p
  done
  [ -n "$victim" ] && [ -n "$(ls -A out)" ] && break
  sleep 0.05
done
if [ -z "$victim" ]; then
  fail "kill: rank 1 never started: $(head -c 300 mpi.txt)"
else
  sleep 0.3
  kill -KILL "$victim"
fi
wait $job
status=$?
if [ "$status" -ne 0 ]; then pass; else fail "kill: mpirun exited 0"; fi
expect_dir_empty out "a rank killed mid-run"

finish
