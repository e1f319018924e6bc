#!/bin/bash
# scale_out.sh: `convoy filter` over several GPUs of one host, checked and
# timed. Needs a CUDA build (BUILD) on a machine with two or more GPUs.
#
#   bench/scale_out.sh check BUILD [CONVOY_MPI]
#       The same bytes from one pipeline on GPU 0 (`--device 0`), one on the
#       last GPU (`--device N-1`), one pipeline a GPU (`--devices all`) and,
#       given a convoy built with MPI, `mpirun -np 2` (rank r on GPU r), on
#       raw cf32, a cu8 SigMF recording and stereo pcm16 WAV whose lengths
#       no range count divides, with and without --decimate and --shift, on
#       gpu-direct and gpu-fft (ENGINES). Prints a line a job; exit 1 on a
#       mismatch.
#   bench/scale_out.sh scale BUILD [CONVOY_MPI]
#       Wall clock of `cp`, `--device 0`, `--devices all` and `mpirun -np 2`
#       on the same capture, median of RUNS (default 3), at 16, 1024 and
#       65536 taps on tmpfs (SHM_DIR, default /dev/shm; GIB GiB, default 8)
#       and at 1024 taps on DISK_DIR (default /var/tmp; DISK_GIB, default 4).
#
# Tools from BUILD/tests (capture_ref, gen_audio) make the inputs.
set -euo pipefail
mode=$1
BUILD=$(cd "$2" && pwd)
CONVOY="$BUILD/convoy"
CONVOY_MPI=${3:-}
REF="$BUILD/tests/capture_ref"
GEN="$BUILD/tests/gen_audio"
RUNS=${RUNS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --bind-to none -np 2)

ngpu=$(nvidia-smi -L | grep -c '^GPU')
[ "$ngpu" -ge 2 ] || { echo "scale_out.sh: $ngpu GPU(s) here, two or more needed" >&2; exit 77; }
last=$((ngpu - 1))

source "$(dirname "$0")/../tests/cli/random_taps.bash"

# now: seconds since the epoch, to the nanosecond.
now() { date +%s.%N; }

# median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

check() {
  local work
  work=$(mktemp -d "${SHM_DIR:-/dev/shm}/scale-check.XXXXXX")
  trap 'rm -rf "$work"' RETURN
  cd "$work"
  "$REF" gen m.cf32 cf32_le 20000003 1
  "$REF" gen rec.sigmf-data cu8 10000019 2
  cat >rec.sigmf-meta <<'JSON'
{
    "global": {"core:datatype": "cu8", "core:version": "1.0.0", "core:sample_rate": 2000000},
    "captures": [{"core:sample_start": 0, "core:frequency": 100000000}],
    "annotations": [{"core:sample_start": 3000000, "core:sample_count": 500, "core:label": "burst"}]
}
JSON
  "$GEN" st.wav --frames 3000017 --channels 2 --rate 48000 --subtype pcm16 --signal noise --amp 0.5 --seed 3
  random_taps 16 4 >t16.txt
  random_taps 1024 5 >t1024.txt
  random_taps 65536 6 >t65536.txt
  # The inputs' own hashes, so that runs on two hosts can be compared.
  echo "inputs  $(cat m.cf32 rec.sigmf-data st.wav t16.txt t1024.txt t65536.txt | sha256sum | cut -c1-16)"
  # And the plans, which follow the device's attributes, for the same reason.
  local e t
  for e in ${ENGINES:-gpu-direct gpu-fft}; do
    for t in 16 1024 65536; do
      echo "plan    $e $t taps: $("$CONVOY" filter m.cf32 o.cf32 --taps "t$t.txt" --engine "$e" \
        --device 0 -v -y 2>&1 | sed -n 's/.*plan: //p' | head -n 1)"
    done
  done
  local bad=0 jobs=0
  # run_way WAY ARGS...: `convoy filter ARGS -q -y` run WAY (a --device or
  # --devices option, or "mpirun -np 2"), its messages in err.txt.
  run_way() {
    local way=$1
    shift
    rm -f o.* o.sigmf-*
    # shellcheck disable=SC2086
    case $way in
    mpirun*) "${MPIRUN[@]}" "$CONVOY_MPI" filter "$@" -q -y >err.txt 2>&1 ;;
    *) "$CONVOY" filter "$@" $way -q -y 2>err.txt ;;
    esac
  }
  # job NAME OUT ARGS...: every way of running ARGS gives the bytes of the first.
  job() {
    local name=$1 out=$2
    shift 2
    local ways=("--device 0" "--device $last" "--devices all") way ref="" h same=1
    [ -n "$CONVOY_MPI" ] && ways+=("mpirun -np 2")
    for way in "${ways[@]}"; do
      if ! run_way "$way" "$@" "o.$out"; then
        echo "FAILED  $name ($way): $(head -c 300 err.txt | tr '\n' '|')"
        bad=$((bad + 1))
        return
      fi
      h=$(cat o.* | sha256sum | cut -c1-16)
      if [ -z "$ref" ]; then ref=$h; elif [ "$h" != "$ref" ]; then
        echo "DIFFER  $name: $way gives $h, ${ways[0]} $ref"
        same=0
      fi
    done
    if [ $same = 1 ]; then
      jobs=$((jobs + 1))
      echo "same    $name  $ref"
    else
      bad=$((bad + 1))
    fi
  }
  for e in ${ENGINES:-gpu-direct gpu-fft}; do
    for t in 16 1024 65536; do
      [ "$e" = gpu-direct ] && [ "$t" = 65536 ] && continue
      job "$e cf32 $t taps" cf32 m.cf32 --taps "t$t.txt" --engine "$e"
    done
    job "$e cf32 1024 taps, --decimate 7 --shift" cf32 m.cf32 --taps t1024.txt --engine "$e" \
      --rate 1000000 --decimate 7 --shift 12345
    job "$e cf32 16 taps, --decimate 4 --shift" cf32 m.cf32 --taps t16.txt --engine "$e" \
      --rate 1000000 --decimate 4 --shift -200000
    job "$e cf32 1024 taps, --align --tail" cf32 m.cf32 --taps t1024.txt --engine "$e" --align --tail
    job "$e cf32 16 taps, --skip --count" cf32 m.cf32 --taps t16.txt --engine "$e" \
      --skip 1234567 --count 9000001
    job "$e cf32 to ci16, --gain 20 --tail" cs16 m.cf32 --taps t1024.txt --engine "$e" --gain 20 --tail
    job "$e SigMF cu8" sigmf-meta rec.sigmf-meta --taps t1024.txt --engine "$e"
    job "$e SigMF cu8, --decimate 8 --shift" sigmf-meta rec.sigmf-meta --taps t1024.txt \
      --engine "$e" --decimate 8 --shift 100000 --out-format cf32_le
    job "$e WAV pcm16" wav st.wav --taps t1024.txt --engine "$e"
    job "$e WAV to pcm24, --tail" wav st.wav --taps t16.txt --engine "$e" --subtype pcm24 --tail
  done
  echo "$jobs jobs the same every way, $bad failed or differed"
  [ "$bad" = 0 ]
}

# timed LABEL CMD...: RUNS runs of CMD, their median in seconds.
timed() {
  local label=$1 t0 t1
  shift
  for _ in $(seq "$RUNS"); do
    t0=$(now)
    "$@" >/dev/null 2>&1 || { echo "FAILED  $label" >&2; return 1; }
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
  done | median | awk -v l="$label" '{ printf "%-44s %.3f s\n", l, $1 }'
}

scale_dir() { # DIR GIB TAPS...
  local dir=$1 gib=$2
  shift 2
  local work in
  work=$(mktemp -d "$dir/scale.XXXXXX")
  in=$work/big.cf32
  # 1 GiB of random samples, repeated.
  "$REF" gen "$work/one.cf32" cf32_le 134217728 7
  for _ in $(seq "$gib"); do cat "$work/one.cf32"; done >"$in"
  rm -f "$work/one.cf32"
  echo "== $gib GiB cf32 in $dir ($(df -h --output=fstype "$dir" | tail -1 | tr -d ' '))"
  timed "cp" cp "$in" "$work/o.cf32"
  local t
  for t in "$@"; do
    random_taps "$t" 8 >"$work/t.txt"
    timed "$t taps, --device 0" "$CONVOY" filter "$in" "$work/o.cf32" --taps "$work/t.txt" -q -y --device 0
    timed "$t taps, --devices all ($ngpu)" "$CONVOY" filter "$in" "$work/o.cf32" --taps "$work/t.txt" -q -y --devices all
    [ -n "$CONVOY_MPI" ] && timed "$t taps, mpirun -np 2" "${MPIRUN[@]}" "$CONVOY_MPI" filter "$in" "$work/o.cf32" --taps "$work/t.txt" -q -y
  done
  rm -rf "$work"
}

case $mode in
check) check ;;
scale)
  scale_dir "${SHM_DIR:-/dev/shm}" "${GIB:-8}" 16 1024 65536
  scale_dir "${DISK_DIR:-/var/tmp}" "${DISK_GIB:-4}" 1024
  ;;
*)
  echo "usage: scale_out.sh check|scale BUILD [CONVOY_MPI]" >&2
  exit 2
  ;;
esac
