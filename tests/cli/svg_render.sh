#!/bin/bash
# The SVGs of `convoy design --plot` and bench/plot_bench.py render in a real
# browser: headless Chromium takes a screenshot of each, and the picture is
# not blank (many colours, ink over a fair part of it, the curve's blue in
# it). Chromium is large and no build needs it, so `make deps` does not
# install it: without /usr/bin/chromium (or CHROMIUM) this test is skipped.
source "$(dirname "$0")/common.bash"

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "skipped: no $CHROMIUM (apt-get install chromium)"
  exit 77
fi
PY=$(python_with zlib json) || {
  echo "skipped: no python3"
  exit 77
}

# render SVG PNG WIDTH HEIGHT: a screenshot of SVG at that window size.
render() {
  rm -f "$2"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$WORK/chromium-profile" --screenshot="$WORK/$2" --window-size="$3,$4" \
    "file://$WORK/$1" >chromium.log 2>&1
  check "chromium renders $1 (log: $(tail -c 300 chromium.log | tr '\n' '|'))" test -s "$2"
}

# check_png PNG: decoded here (8-bit RGB or RGBA, any PNG filter), the image
# has 8 colours or more, ink on 2% of it or more, and 50 pixels or more near
# the curve's colour #1f77b4.
check_png() {
  if "$PY" - "$1" >png_check.txt 2>&1 <<'PY'; then pass; else fail "PNG $1: $(head -c 400 png_check.txt)"; fi
import struct, sys, zlib
from collections import Counter

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, pixels = bytearray(stride), []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    pixels += [tuple(line[i:i + 3]) for i in range(0, stride, bpp)]
    prev = line
colours = Counter(pixels)
background, count = colours.most_common(1)[0]
ink = 1 - count / len(pixels)
blue = sum(n for (r, g, b), n in colours.items() if abs(r - 31) + abs(g - 119) + abs(b - 180) < 60)
print(f"{w}x{h}, {len(colours)} colours, background {background}, ink {ink:.1%}, blue {blue}")
assert len(colours) >= 8, "too few colours: a blank picture"
assert ink >= 0.02, "almost nothing drawn"
assert blue >= 50, "no curve"
PY
  cat png_check.txt
}

"$CONVOY" design lowpass:cutoff=4000,width=500,atten=80,rate=48000 --plot design.svg >/dev/null
check "design --plot" test -s design.svg
render design.svg design.png 800 600
check_png design.png

run bench --json --taps 16,256 --frames 2^12 --runs 1 --engine cpu-direct,cpu-fft
expect_status 0 "bench --json"
"$PY" "$TESTS_DIR/../bench/plot_bench.py" stdout.txt -o bench.svg
check "plot_bench.py" test -s bench.svg
render bench.svg bench.png 900 560
check_png bench.png

finish
