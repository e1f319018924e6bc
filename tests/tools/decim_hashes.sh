#!/bin/bash
# decim_hashes.sh BUILD_DIR [ENGINE]
#
# Runs a fixed set of decimating `convoy filter` jobs on deterministic
# captures, on one engine (default gpu-direct), as many at a time as there
# are processors, and prints "SHA-256  job" for every output: D = 2, 3, 4,
# 5, 8, 12, 13, 16, 27, 32, 44, 64 and 100; real taps of 3 to 4096 on a
# float32 and a cu8 capture, complex taps of 5 to 4096 on the cu8 capture.
# Two builds that print the same lines decimated to the same bits.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
ENGINE=${2:-gpu-direct}
CONVOY="$BUILD/convoy"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/convoy-decim-hashes.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

python3 - <<'PY'
import random, struct
random.seed(23)
with open("in.cf32", "wb") as f:
    f.write(struct.pack("<%df" % (2 * 150001), *[random.uniform(-1, 1) for _ in range(2 * 150001)]))
with open("in.cu8", "wb") as f:
    f.write(bytes(random.randrange(256) for _ in range(2 * 120007)))
for n in (3, 16, 37, 100, 256, 1000, 1024, 4096):
    with open("r%d.txt" % n, "w") as f:
        f.write("\n".join("%.9g" % random.uniform(-0.1, 0.1) for _ in range(n)))
for n in (5, 100, 1024, 4096):
    with open("c%d.cf32" % n, "wb") as f:
        f.write(struct.pack("<%df" % (2 * n), *[random.uniform(-0.1, 0.1) for _ in range(2 * n)]))
PY

jobs_list() {
  for d in 2 3 4 5 8 12 13 16 27 32 44 64 100; do
    for n in 3 16 37 100 256 1000 1024 4096; do
      echo "real$n.d$d.cf32 in.cf32 r$n.txt $d"
      echo "real$n.d$d.cu8 in.cu8 r$n.txt $d"
    done
    for n in 5 100 1024 4096; do echo "complex$n.d$d.cu8 in.cu8 c$n.cf32 $d"; done
  done
}
export CONVOY ENGINE
jobs_list | xargs -P "$(nproc)" -L 1 bash -c '"$CONVOY" filter "$1" "out.$0.cf32" --taps "$2" \
  --decimate "$3" --engine "$ENGINE" -q -y 2>"$0.err" || echo "FAILED  $0: $(head -c 300 "$0.err")"'
for f in out.*.cf32; do
  printf '%s  %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "${f#out.}"
done | LC_ALL=C sort -k2
