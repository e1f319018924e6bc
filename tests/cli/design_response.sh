#!/bin/bash
# `convoy design --response/--plot`: the response table against a DFT of the
# taps computed here in double precision (numpy), at every frequency of the
# grid: magnitude within 1e-3 dB wherever it is above -100 dB, the phase
# (wrapped) and unwrapped, the group delay of symmetric designs (N - 1) / 2
# and of other taps Re(DFT(n h) / DFT(h)); the JSON form parses and holds the
# same columns; the SVG is well-formed XML with the spec's edges, bands and
# attenuation marked; --taps files, stdout, and the refusals.
source "$(dirname "$0")/common.bash"

PY=$(python_with numpy json xml.etree.ElementTree) || {
  echo "skipped: no python3 with numpy (apt-get install python3-numpy)"
  exit 77
}

# check_table TAPS TABLE RATE POINTS SYMMETRIC: TABLE (TSV or JSON) is the
# response of the taps in TAPS (text, '#' comments; or a .npy) at RATE Hz
# (0: cycles per sample) on POINTS frequencies.
check_table() {
  local desc="response $2 of $1"
  if "$PY" - "$@" >table_check.txt 2>&1 <<'PY'; then pass; else fail "$desc: $(head -c 600 table_check.txt)"; fi
import json, sys
import numpy as np

taps_path, table, rate, points, symmetric = sys.argv[1:6]
rate, points, symmetric = float(rate), int(points), symmetric == "1"
if taps_path.endswith(".npy"):
    h = np.load(taps_path).astype(np.float32).astype(np.float64).ravel()
else:
    h = np.loadtxt(taps_path, comments="#", dtype=np.float64, ndmin=1)
    h = h.astype(np.float32).astype(np.float64)  # the float taps convoy filters with
n = len(h)
fname = "frequency_hz" if rate > 0 else "frequency_cycles_per_sample"
names = [fname, "magnitude_db", "phase_rad", "group_delay_samples"]
if table.endswith(".json"):
    doc = json.load(open(table))
    assert doc["taps"] == n and doc["points"] == points, (doc["taps"], doc["points"])
    assert (doc["rate_hz"] or 0) == rate, doc["rate_hz"]
    cols = [np.array([np.nan if v is None else v for v in doc[k]], dtype=float) for k in names]
else:
    with open(table) as f:
        header = f.readline().rstrip("\n").split("\t")
    assert header == names, header
    data = np.loadtxt(table, skiprows=1, delimiter="\t", ndmin=2)
    cols = [data[:, i] for i in range(4)]
freq, mag, phase, gd = cols
assert len(freq) == points, f"{len(freq)} rows, want {points}"
nyq = rate / 2 if rate > 0 else 0.5
assert np.allclose(freq, np.linspace(0, nyq, points), rtol=1e-11, atol=0), "frequency grid"

# H(f) = sum h[n] e^(-2 pi i f n), and sum n h[n] e^(...), in double.
cyc = freq / (rate if rate > 0 else 1.0)
idx = np.arange(n, dtype=np.float64)
turns = np.mod(np.outer(cyc, idx), 1.0)
e = np.exp(-2j * np.pi * turns)
H = e @ h
B = e @ (idx * h)
with np.errstate(divide="ignore"):
    ref_db = 20 * np.log10(np.abs(H))
live = ref_db > -100
assert live.sum() >= max(3, points // 20), f"only {live.sum()} points above -100 dB"
err_db = np.abs(mag[live] - ref_db[live])
assert err_db.max() < 1e-3, f"magnitude off by {err_db.max():.3g} dB at {freq[live][err_db.argmax()]}"
dph = np.angle(np.exp(1j * (phase[live] - np.angle(H[live]))))
assert np.abs(dph).max() < 1e-6, f"phase off by {np.abs(dph).max():.3g} rad"
steps = np.abs(np.diff(phase))
assert np.all(steps <= np.pi * (1 + 1e-9)), f"phase not unwrapped: a step of {steps.max():.6g}"
if symmetric:
    assert np.allclose(h, h[::-1], rtol=0, atol=0), "taps not symmetric"
    want = np.full(live.sum(), (n - 1) / 2)
else:
    want = np.real(B[live] / H[live])
gerr = np.abs(gd[live] - want)
assert gerr.max() < 1e-6 * (1 + np.abs(want).max()), f"group delay off by {gerr.max():.3g}"
print(f"ok: {n} taps, {points} points, {live.sum()} above -100 dB, worst {err_db.max():.2g} dB")
PY
}

# check_svg SVG WHAT...: SVG is well-formed XML with a response curve and
# the marks listed: title=TEXT, edge=HZ, pass=FROM:TO, stop=FROM:TO,
# atten=DB, no-spec.
check_svg() {
  local svg=$1
  if "$PY" - "$@" >svg_check.txt 2>&1 <<'PY'; then pass; else fail "SVG $svg: $(head -c 600 svg_check.txt)"; fi
import sys
import xml.etree.ElementTree as ET

svg, wants = sys.argv[1], sys.argv[2:]
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(svg).getroot()
assert root.tag == ns + "svg", root.tag
els = list(root.iter())
def cls(c):
    return [e for e in els if e.get("class") == c]
curve = cls("response")
assert len(curve) == 1 and curve[0].tag == ns + "polyline", "one response polyline"
assert len(curve[0].get("points").split()) >= 100, "the curve has points"
texts = " ".join("".join(e.itertext()) for e in els if e.tag == ns + "text")
for w in wants:
    kind, _, val = w.partition("=")
    if kind == "title":
        assert val in texts, f"title {val!r} not in the texts"
    elif kind == "edge":
        hz = [float(e.get("data-hz")) for e in cls("edge")]
        assert any(abs(h - float(val)) < 1e-6 for h in hz), f"no edge at {val} Hz: {hz}"
    elif kind in ("pass", "stop"):
        lo, hi = map(float, val.split(":"))
        rects = [(float(e.get("data-from-hz")), float(e.get("data-to-hz"))) for e in cls(kind + "band")]
        assert any(abs(a - lo) < 1e-6 and abs(b - hi) < 1e-6 for a, b in rects), \
            f"no {kind}band {lo}..{hi}: {rects}"
    elif kind == "atten":
        dbs = [float(e.get("data-db")) for e in cls("atten")]
        assert dbs and all(d == float(val) for d in dbs), f"attenuation lines {dbs}, want {val}"
    elif kind == "no-spec":
        assert not cls("edge") and not cls("atten") and not cls("passband"), "spec marks drawn"
print("ok")
PY
}

# ---------------------------------------------------------------- designs
SPEC=lowpass:cutoff=4000,width=500,atten=80,rate=48000
run design "$SPEC" --response lp.tsv --plot lp.svg
expect_status 0 "design --response --plot"
mv stdout.txt lp.txt
"$CONVOY" design "$SPEC" >plain.txt
check "the taps still go to stdout, as without --response" cmp -s lp.txt plain.txt
check_table lp.txt lp.tsv 48000 2048 1
check_svg lp.svg "title=$SPEC" "title=$(count_taps lp.txt) taps" edge=3750 edge=4250 \
  pass=0:3750 stop=4250:24000 atten=-80

run design "$SPEC" --response lp.json --points 1000
expect_status 0 "--response FILE.json"
check_table lp.txt lp.json 48000 1000 1

SPEC=highpass:cutoff=300,width=200,atten=100,rate=44100
"$CONVOY" design "$SPEC" --response hp.tsv --points 513 --plot hp.svg >hp.txt
check_table hp.txt hp.tsv 44100 513 1
check_svg hp.svg edge=200 edge=400 stop=0:200 pass=400:22050 atten=-100

SPEC=bandpass:low=300,high=3400,width=100,rate=8000
"$CONVOY" design "$SPEC" --response bp.tsv --plot bp.svg >bp.txt
check_table bp.txt bp.tsv 8000 2048 1
check_svg bp.svg edge=250 edge=350 edge=3350 edge=3450 stop=0:250 pass=350:3350 stop=3450:4000 \
  atten=-80

# taps= (even length, no width): the cutoffs are the marked edges.
SPEC=bandstop:low=45,high=55,taps=301,atten=60,rate=1000
"$CONVOY" design "$SPEC" --response bs.tsv --plot bs.svg >bs.txt
check_table bs.txt bs.tsv 1000 2048 1
check_svg bs.svg edge=45 edge=55 atten=-60
SPEC=lowpass:cutoff=1000,taps=64,rate=8000
"$CONVOY" design "$SPEC" --response even.tsv >even.txt
check_table even.txt even.tsv 8000 2048 1

# ---------------------------------------------------------------- --taps files
random_taps 37 5 >rand.txt
run design --taps rand.txt --rate 1000 --response rand.tsv --plot rand.svg
expect_status 0 "--taps FILE --rate"
check "--taps: nothing on stdout" test ! -s stdout.txt
check_table rand.txt rand.tsv 1000 2048 0
check_svg rand.svg title=rand.txt no-spec
run design --taps rand.txt --response norm.json --points 300
expect_status 0 "--taps without a rate"
check_table rand.txt norm.json 0 300 0
check "no rate: frequency in cycles per sample" grep -q '"frequency_cycles_per_sample"' norm.json
"$PY" -c 'import numpy as np; np.save("rand.npy", np.loadtxt("rand.txt").astype(np.float64))'
run design --taps rand.npy --rate 1000 --response npy.tsv
expect_status 0 "--taps FILE.npy"
check_table rand.txt npy.tsv 1000 2048 0

# An exact zero (Nyquist of [1, 1]): -inf dB and nan in the TSV, null in JSON.
printf '1\n1\n' >ones.txt
run design --taps ones.txt --response - --points 3
expect_status 0 "--response - (stdout)"
check "[1, 1] at Nyquist: -inf dB, nan delay" \
  bash -c "tail -n 1 stdout.txt | grep -qP '^0\.5\t-inf\t[-0-9.e]+\tnan$'"
"$CONVOY" design --taps ones.txt --response ones.json --points 3
check "JSON: null for -inf and nan" "$PY" -c '
import json; d = json.load(open("ones.json"))
assert d["magnitude_db"][2] is None and d["group_delay_samples"][2] is None, d
assert d["rate_hz"] is None and d["taps"] == 2'

# An impulse response as audio: its own rate; a channel picked from two.
gen ir2.wav --frames 64 --channels 2 --rate 22050 --subtype float --signal noise --amp 0.1 --seed 3
run design --taps ir2.wav --response ir.tsv
expect_status 2 "two channels without --channel"
expect_one_error_line "two channels without --channel" "--channel"
run design --taps ir2.wav --channel 2 --response ir.tsv
expect_status 0 "--channel 2"
check "the audio file's rate" bash -c "tail -n 1 ir.tsv | grep -q '^11025	'"
run design --taps ir2.wav --channel 3 --response ir.tsv
expect_status 2 "--channel 3 of 2"
expect_one_error_line "--channel 3 of 2" "2 channels"

# SVG to stdout: no taps with it.
run design lowpass:cutoff=1000,width=200,rate=8000 --plot -
expect_status 0 "--plot -"
check "--plot -: an SVG on stdout, no taps" bash -c "head -n 1 stdout.txt | grep -q '^<?xml' && ! grep -q '^# convoy' stdout.txt"

# ---------------------------------------------------------------- refusals
usage_error() { # DESCRIPTION NEEDLE ARGS...
  local desc=$1 needle=$2
  shift 2
  run design "$@"
  expect_status 1 "$desc"
  expect_one_error_line "$desc" "$needle"
}
usage_error "--taps without an output" "--response" --taps rand.txt
usage_error "SPEC and --taps" "not both" "$SPEC" --taps rand.txt --plot x.svg
usage_error "--points 1" "--points" "$SPEC" --response x.tsv --points 1
usage_error "--points without an output" "--points" "$SPEC" --points 100
usage_error "--channel without --taps" "--channel" "$SPEC" --channel 1 --plot x.svg
usage_error "both to stdout" "stdout" "$SPEC" --response - --plot -
check "no output left by the refusals" test ! -e x.svg -a ! -e x.tsv

run design --taps missing.txt --plot x.svg
expect_status 2 "a missing taps file"
expect_one_error_line "a missing taps file" missing.txt
"$PY" -c 'import numpy as np; np.save("c.npy", np.array([1, 0.5j], dtype=np.complex64))'
run design --taps c.npy --plot x.svg
expect_status 2 "complex taps"
expect_one_error_line "complex taps" "real taps only"
run design "$SPEC" --plot no/such/dir/x.svg
expect_status 2 "an output in a missing folder"
expect_one_error_line "an output in a missing folder" "no/such/dir"
check "no output left by the failures" test ! -e x.svg

finish
