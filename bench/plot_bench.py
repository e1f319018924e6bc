#!/usr/bin/env python3
"""Draws `convoy bench --json` results as an SVG: throughput against taps.

usage: plot_bench.py BENCH.json [-o OUT.svg] [--peers PEERS.TSV --frames N]

One line per engine of the in-memory rows (MS/s, the median, with a whisker
from the slowest to the fastest run), log-log, a colour per engine; the
file-to-file rows of `convoy bench --file`, when present, dashed (a dash per
subtype). --peers adds the rows of
bench/peers.sh's peers.tsv (scipy in memory; sox, ffmpeg and convoy filter
file to file), dotted, at MS/s = FRAMES / seconds / 1e6 (the TSV holds
seconds; its in-memory convoy rows repeat BENCH.json's and are left out).
Rows that did not run (skipped, failed, unavailable) are left out. BENCH.json
may be "-" (stdin); OUT defaults to stdout. Needs only the standard library.
"""
import argparse
import csv
import json
import math
import sys
from xml.sax.saxutils import escape, quoteattr

WIDTH, HEIGHT = 900, 560
LEFT, RIGHT, TOP, BOTTOM = 78.0, 640.0, 64.0, 490.0
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]


class Series:
    def __init__(self, name, kind, base, subtype=""):
        self.name, self.kind = name, kind  # kind: memory, file, peer
        self.base, self.subtype = base, subtype  # engine or tool (its colour); file subtype
        self.points = []  # (taps, median, lo, hi) in MS/s

    def add(self, taps, median, lo, hi):
        self.points.append((taps, median, lo, hi))


def convoy_series(doc):
    series = {}
    for section, kind in (("memory", "memory"), ("file", "file")):
        for r in doc.get(section, []):
            if r.get("state") != "ok" or "msps" not in r:
                continue
            sub = r.get("subtype", "") if kind == "file" else ""
            name = r["engine"] + (f" (file, {sub})" if kind == "file" else "")
            s = series.setdefault(name, Series(name, kind, r["engine"], sub))
            m = r["msps"]
            s.add(int(r["taps"]), m["median"], m["min"], m["max"])
    return list(series.values())


def peer_series(path, frames):
    series = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if not r.get("median_s") or r["tool"].startswith("convoy "):
                continue
            kind = r["kind"]
            tool = "convoy filter" if r["tool"] == "convoy" else r["tool"]
            sub = r["subtype"] if kind == "file" else ""
            name = tool + (f" (file, {sub})" if kind == "file" else "")
            s = series.setdefault(name, Series(name, "peer", tool, sub))
            rate = lambda sec: frames / float(sec) / 1e6  # noqa: E731
            s.add(int(r["taps"]), rate(r["median_s"]), rate(r["max_s"] or r["median_s"]),
                  rate(r["min_s"] or r["median_s"]))
    return list(series.values())


def log_range(values, pad):
    lo, hi = min(values), max(values)
    if lo == hi:
        lo, hi = lo / pad, hi * pad
    return lo, hi


def draw(doc, series, out):
    taps = [p[0] for s in series for p in s.points]
    rates = [v for s in series for p in s.points for v in p[1:] if v > 0]
    t_lo, t_hi = log_range(taps, 2.0)
    x_lo, x_hi = math.floor(math.log2(t_lo)), math.ceil(math.log2(t_hi))
    y_lo, y_hi = math.floor(math.log10(min(rates))), math.ceil(math.log10(max(rates)))
    if y_lo == y_hi:
        y_hi += 1

    def px(t):
        return LEFT + (math.log2(t) - x_lo) / (x_hi - x_lo) * (RIGHT - LEFT)

    def py(v):
        v = max(v, 10.0 ** (y_lo - 1))
        return BOTTOM - (math.log10(v) - y_lo) / (y_hi - y_lo) * (BOTTOM - TOP)

    machine = doc.get("machine", {})
    settings = doc.get("settings", {})
    build = doc.get("build", {})
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    w(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
      f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif">\n')
    w("<desc>convoy bench throughput, drawn by bench/plot_bench.py</desc>\n")
    w('<rect width="100%" height="100%" fill="#ffffff"/>\n')
    title = f"convoy {build.get('convoy', '')} bench: throughput against taps"
    sub = (f"{machine.get('cpu_model', '?')}, {machine.get('cpu_threads', '?')} threads; "
           f"{settings.get('frames', '?')} frames x {settings.get('channels', '?')} channel(s), "
           f"median of {settings.get('runs', '?')} runs (whiskers: slowest..fastest)")
    w(f'<text x="{(LEFT + RIGHT) / 2:.1f}" y="24" text-anchor="middle" font-size="15" '
      f'font-weight="bold">{escape(title)}</text>\n')
    w(f'<text x="{(LEFT + RIGHT) / 2:.1f}" y="44" text-anchor="middle" font-size="11" '
      f'fill="#555555">{escape(sub)}</text>\n')

    w('<g class="grid" stroke="#dddddd" stroke-width="1">\n')
    for e in range(x_lo, x_hi + 1):
        w(f'<line x1="{px(2 ** e):.2f}" y1="{TOP}" x2="{px(2 ** e):.2f}" y2="{BOTTOM}"/>\n')
    for e in range(y_lo, y_hi + 1):
        w(f'<line x1="{LEFT}" y1="{py(10 ** e):.2f}" x2="{RIGHT}" y2="{py(10 ** e):.2f}"/>\n')
    w("</g>\n")
    w(f'<rect class="frame" x="{LEFT}" y="{TOP}" width="{RIGHT - LEFT}" height="{BOTTOM - TOP}" '
      f'fill="none" stroke="#333333"/>\n')
    w('<g class="ticks" font-size="11" fill="#333333">\n')
    step = max(1, (x_hi - x_lo + 11) // 12)
    for e in range(x_lo, x_hi + 1, step):
        x = px(2 ** e)
        w(f'<line x1="{x:.2f}" y1="{BOTTOM}" x2="{x:.2f}" y2="{BOTTOM + 5}" stroke="#333333"/>'
          f'<text x="{x:.2f}" y="{BOTTOM + 18}" text-anchor="middle">{2 ** e}</text>\n')
    for e in range(y_lo, y_hi + 1):
        y = py(10 ** e)
        label = f"{10.0 ** e:g}"
        w(f'<line x1="{LEFT - 5}" y1="{y:.2f}" x2="{LEFT}" y2="{y:.2f}" stroke="#333333"/>'
          f'<text x="{LEFT - 8}" y="{y + 4:.2f}" text-anchor="end">{label}</text>\n')
    w("</g>\n")
    w(f'<text x="{(LEFT + RIGHT) / 2:.1f}" y="{HEIGHT - 30}" text-anchor="middle" '
      f'font-size="12">Taps (log scale)</text>\n')
    w(f'<text transform="translate(20 {(TOP + BOTTOM) / 2:.1f}) rotate(-90)" '
      f'text-anchor="middle" font-size="12">Throughput, MS/s (log scale)</text>\n')

    # A colour per engine or tool; solid in memory, dashed by subtype file to
    # file, dotted for the peers in memory.
    colour_of = {}
    for s in series:
        colour_of.setdefault(s.base, COLOURS[len(colour_of) % len(COLOURS)])
    subtype_dash = {"float": "7,4", "pcm16": "3,3", "raw f32": "10,3,2,3", "raw cf32": "10,3,2,3"}

    def dash(s):
        if s.subtype:
            return f' stroke-dasharray="{subtype_dash.get(s.subtype, "7,4")}"'
        return ' stroke-dasharray="2,3"' if s.kind == "peer" else ""

    for s in series:
        colour = colour_of[s.base]
        pts = sorted(s.points)
        w(f'<g class="series" data-engine={quoteattr(s.name)} data-kind="{s.kind}" '
          f'stroke="{colour}" fill="{colour}">\n<title>{escape(s.name)}</title>\n')
        coords = " ".join(f"{px(t):.2f},{py(m):.2f}" for t, m, _, _ in pts)
        w(f'<polyline fill="none" stroke-width="1.8"{dash(s)} points="{coords}"/>\n')
        for t, m, lo, hi in pts:
            x = px(t)
            w(f'<line x1="{x:.2f}" y1="{py(lo):.2f}" x2="{x:.2f}" y2="{py(hi):.2f}" '
              f'stroke-width="1"/>')
            w(f'<circle class="point" data-taps="{t}" data-msps="{m:.6g}" cx="{x:.2f}" '
              f'cy="{py(m):.2f}" r="3"><title>{escape(s.name)}: {t} taps, {m:.4g} MS/s'
              f'</title></circle>\n')
        w("</g>\n")

    w('<g class="legend" font-size="11">\n')
    for i, s in enumerate(series):
        y = TOP + 10 + 18 * i
        w(f'<line x1="{RIGHT + 16}" y1="{y:.1f}" x2="{RIGHT + 44}" y2="{y:.1f}" '
          f'stroke="{colour_of[s.base]}" stroke-width="1.8"{dash(s)}/>'
          f'<text x="{RIGHT + 50}" y="{y + 4:.1f}" fill="#333333">{escape(s.name)}</text>\n')
    w("</g>\n</svg>\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", help="convoy bench --json output (- for stdin)")
    ap.add_argument("-o", "--output", default="-", help="SVG file (default: stdout)")
    ap.add_argument("--peers", help="bench/peers.sh's peers.tsv")
    ap.add_argument("--frames", type=int, help="the peers' frames (peers.sh --frames)")
    a = ap.parse_args()
    if a.peers and not a.frames:
        ap.error("--peers needs --frames (the frames peers.sh measured)")
    try:
        src = sys.stdin if a.bench == "-" else open(a.bench)
        doc = json.load(src)
    except (OSError, ValueError) as e:
        raise SystemExit(f"plot_bench.py: {a.bench}: {e}")
    series = convoy_series(doc)
    if a.peers:
        try:
            series += peer_series(a.peers, a.frames)
        except (OSError, KeyError, ValueError) as e:
            raise SystemExit(f"plot_bench.py: {a.peers}: {e}")
    if not any(s.points and all(v > 0 for p in s.points for v in p[1:]) for s in series):
        raise SystemExit(f"plot_bench.py: {a.bench}: no measured rows to draw")
    if a.output == "-":
        draw(doc, series, sys.stdout)
    else:
        with open(a.output, "w") as out:
            draw(doc, series, out)


if __name__ == "__main__":
    main()
