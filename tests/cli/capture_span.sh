#!/bin/bash
# --skip and --count with --cold-start, in samples and in seconds (from
# --rate or the SigMF core:sample_rate): the output is the part [skip, skip +
# count) of the input filtered as a signal of its own, as capture_ref
# computes it; --tail and --align on that part. (The warm start, the default,
# is skip_warm.sh's.)
source "$(dirname "$0")/common.bash"

REF="$TOOLS/capture_ref"
random_taps 23 4 >taps.txt
"$REF" gen in.s16 ri16_le 6000 1

# compare DESCRIPTION ARGS...: capture_ref compare ARGS, its line shown on failure.
compare() {
  local desc=$1
  shift
  if "$REF" compare "$@" >cmp.txt; then pass; else fail "$desc: $(cat cmp.txt)"; fi
}

run filter in.s16 a.s16 --taps taps.txt --skip 100 --count 500 --cold-start -q
expect_status 0 "samples"
compare "--skip 100 --count 500" a.s16 ri16_le in.s16 ri16_le taps.txt --skip 100 --count 500

run filter in.s16 b.s16 --taps taps.txt --rate 10000 --skip 0.01s --count 0.05s --cold-start -q
expect_status 0 "seconds with --rate"
check "seconds equal samples at 10 kHz" cmp -s a.s16 b.s16

run filter in.s16 c.s16 --taps taps.txt --skip 5999 --cold-start -q
expect_status 0 "last sample only"
compare "--skip 5999" c.s16 ri16_le in.s16 ri16_le taps.txt --skip 5999

run filter in.s16 d.s16 --taps taps.txt --count 1000 --cold-start -q
expect_status 0 "count only"
compare "--count 1000" d.s16 ri16_le in.s16 ri16_le taps.txt --count 1000

run filter in.s16 e.s16 --taps taps.txt --skip 300 --count 700 --tail --cold-start -q
expect_status 0 "--tail"
compare "--tail on a part" e.s16 ri16_le in.s16 ri16_le taps.txt --skip 300 --count 700 --tail

SPEC=lowpass:cutoff=1000,taps=21
"$CONVOY" design "$SPEC" --rate 10000 >spec.txt
run filter in.s16 f.s16 --design "$SPEC" --rate 10000 --skip 0.02s --count 400 --align --cold-start -q
expect_status 0 "--align on a part"
compare "--align on a part" f.s16 ri16_le in.s16 ri16_le spec.txt --skip 200 --count 400 --drop 10

# SigMF: seconds from core:sample_rate.
cp in.s16 rec.sigmf-data
printf '{"global": {"core:datatype": "ri16_le", "core:version": "1.0.0", "core:sample_rate": 20000}, "captures": [{"core:sample_start": 0}], "annotations": []}\n' >rec.sigmf-meta
run filter rec.sigmf-meta g.s16 --taps taps.txt --skip 0.005s --count 0.025s --cold-start -q
expect_status 0 "seconds from core:sample_rate"
check "0.005 s and 0.025 s at 20 kHz are 100 and 500 samples" cmp -s a.s16 g.s16

finish
