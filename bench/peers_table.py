#!/usr/bin/env python3
"""Turns peers.tsv (from bench/peers.sh) into Markdown tables.

MS/s = FRAMES / seconds / 1e6 (mono); x real time = (FRAMES / 48000) / seconds.
In memory, "vs oaconvolve" is the tool's speed over scipy.signal.oaconvolve's
at the same tap count; file to file, "convoy is" is convoy filter's speed over
the tool's on the same file (above 1: convoy is faster).

usage: peers_table.py PEERS.TSV FRAMES
"""
import csv
import sys

RATE = 48000


def main() -> None:
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    frames = int(sys.argv[2])

    def msps(s: str) -> float:
        return frames / float(s) / 1e6

    def find(kind, tool, taps, sub):
        for r in rows:
            if (r["kind"], r["tool"], r["taps"], r["subtype"]) == (kind, tool, taps, sub) and r["median_s"]:
                return r
        return None

    print(f"### In memory ({frames} float32 samples, median of runs)\n")
    print("| taps | tool | median s | MS/s (median) | MS/s (min .. max) | vs oaconvolve | note |")
    print("|---:|---|---:|---:|---:|---:|---|")
    for r in (r for r in rows if r["kind"] == "memory"):
        if not r["median_s"]:
            print(f"| {r['taps']} | {r['tool']} | | | | | {r['note']} |")
            continue
        base = find("memory", "scipy.signal.oaconvolve", r["taps"], "float32")
        ratio = f"{float(base['median_s']) / float(r['median_s']):.2f}x" if base else ""
        print(f"| {r['taps']} | {r['tool']} | {float(r['median_s']):.4f} | "
              f"{msps(r['median_s']):.1f} | {msps(r['max_s']):.1f} .. {msps(r['min_s']):.1f} | "
              f"{ratio} | {r['note']} |")

    print(f"\n### File to file ({frames} frames mono, 48 kHz WAV, wall clock per command)\n")
    print("| taps | subtype | tool | median s | MS/s | x real time | convoy is | note |")
    print("|---:|---|---|---:|---:|---:|---:|---|")
    for r in (r for r in rows if r["kind"] == "file"):
        if not r["median_s"]:
            print(f"| {r['taps']} | {r['subtype']} | {r['tool']} | | | | | {r['note']} |")
            continue
        conv = find("file", "convoy", r["taps"], r["subtype"])
        ratio = (f"{float(r['median_s']) / float(conv['median_s']):.2f}x"
                 if conv and r["tool"] != "convoy" else "")
        xrt = frames / RATE / float(r["median_s"])
        print(f"| {r['taps']} | {r['subtype']} | {r['tool']} | {float(r['median_s']):.3f} | "
              f"{msps(r['median_s']):.1f} | {xrt:.0f} | {ratio} | {r['note']} |")


if __name__ == "__main__":
    main()
