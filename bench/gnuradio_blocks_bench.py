#!/usr/bin/python3
"""gnuradio_blocks_bench.py - flowgraph throughput of convoy's GNU Radio block
against GNU Radio's own filters, on this machine.

Flowgraph: blocks.null_source(complex) -> blocks.head(N) -> filter ->
blocks.null_sink, for complex taps of 128 and 1024 (random) at decimation 1
and 8. Filters: convoy.fir_filter_ccc as it comes (engine auto, 1 thread,
its own buffer sizes), GNU Radio's filter.fft_filter_ccc at nthreads 1 and
2 with GNU Radio's default buffers and at nthreads 1 with the buffers the
convoy block asks for (2^17 items before it, 2^17 / D after), and, at
decimation 8 (where it computes only the kept outputs), fir_filter_ccc.
With --family xlating (or both, the default) also the frequency-translating
filters: convoy.freq_xlating_fir_filter_ccc against GNU Radio's
freq_xlating_fft_filter_ccc (default and convoy's buffers) and its
direct-form freq_xlating_fir_filter_ccc (not at 1024 taps without
decimation: too slow to wait for). Each configuration runs --runs times (default 3), the filters interleaved
round by round. The table gives medians: the input rate in mega-samples
per second of the flowgraph's wall time and of the process's CPU time
(every thread: source, head, filter, sink), and the CPU time of the
filter's own thread per input sample (from /proc/self/task/TID/schedstat,
read every 2 ms while it runs): the steadiest figure on a machine other
work shares. convoy's speed-up is given over GNU Radio's best FFT filter
and over GNU Radio's best filter of any kind, by wall time and by filter
thread CPU. The load average before and after is printed.

usage: PYTHONPATH=BUILD/gnuradio/python bench/gnuradio_blocks_bench.py
           [--samples N] [--runs R] [--out FILE.md]
Needs /usr/bin/python3 with GNU Radio 3.10 and numpy, and gnuradio.convoy
(a build with CONVOY_GNURADIO).
"""
import argparse
import os
import platform
import resource
import statistics
import sys
import threading
import time

import numpy as np
from gnuradio import blocks, filter, gr

from gnuradio import convoy


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


BIG = 1 << 17  # the buffers the convoy block asks for (items before it)
FS = 1e6


def make_xlating(ntaps, decim, taps):
    t = taps.tolist()
    fc, fs = 0.123 * FS, FS
    # GNU Radio's FFT one is a hierarchical block: an fft_filter_ccc and a rotator
    hier = ["fft_filter_ccc", "rotator_cc"]
    out = [("convoy freq_xlating_fir_filter_ccc",
            lambda: convoy.freq_xlating_fir_filter_ccc(decim, t, fc, fs), False,
            ["convoy_freq_xlating_fir_filter_ccc"]),
           ("GNU Radio freq_xlating_fft_filter_ccc",
            lambda: filter.freq_xlating_fft_filter_ccc(decim, t, fc, fs), False, hier),
           ("GNU Radio freq_xlating_fft_filter_ccc, convoy's buffers",
            lambda: filter.freq_xlating_fft_filter_ccc(decim, t, fc, fs), True, hier)]
    if decim > 1 or ntaps <= 128:
        out.append(("GNU Radio freq_xlating_fir_filter_ccc",
                    lambda: filter.freq_xlating_fir_filter_ccc(decim, t, fc, fs), False,
                    ["freq_xlating_fir_filter<IN_T,OUT_T,TAP_T>"]))
    return out


def make_filters(ntaps, decim, taps):
    t = taps.tolist()
    fft = ["fft_filter_ccc"]
    out = [("convoy fir_filter_ccc", lambda: convoy.fir_filter_ccc(decim, t), False,
            ["convoy_fir_filter_ccc"]),
           ("GNU Radio fft_filter_ccc nthreads=1", lambda: filter.fft_filter_ccc(decim, t, 1),
            False, fft),
           ("GNU Radio fft_filter_ccc nthreads=2", lambda: filter.fft_filter_ccc(decim, t, 2),
            False, fft),
           ("GNU Radio fft_filter_ccc nthreads=1, convoy's buffers",
            lambda: filter.fft_filter_ccc(decim, t, 1), True, fft)]
    if decim > 1:
        out.append(("GNU Radio fir_filter_ccc", lambda: filter.fir_filter_ccc(decim, t), False,
                    ["fir_filter_blk<IN_T,OUT_T,TAP_T>"]))
    return out


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def thread_cpu_ns(tids):
    """CPU time (ns) of the threads, from /proc/self/task/TID/schedstat."""
    total = 0
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def filter_threads(names):
    """The threads GNU Radio runs the blocks in: a thread's name is its
    block's name and number cut to 15 characters; the first 12 are matched."""
    tids = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if any(comm.startswith(n[:12]) for n in names):
            tids.append(tid)
    return tids


def run_once(make, big, decim, n, threads):
    """Returns (wall s, process CPU s, the filter's threads' CPU s, plan);
    threads: the names of the blocks whose threads are the filter's."""
    tb = gr.top_block()
    src = blocks.null_source(gr.sizeof_gr_complex)
    head = blocks.head(gr.sizeof_gr_complex, n)
    blk = make()
    if big:
        head.set_min_output_buffer(0, BIG)
        blk.set_min_output_buffer(0, max(BIG // decim, 8192))
    sink = blocks.null_sink(gr.sizeof_gr_complex)
    tb.connect(src, head, blk, sink)
    c0 = cpu_seconds()
    t0 = time.perf_counter()
    tb.start()
    waiter = threading.Thread(target=tb.wait)
    waiter.start()
    # The filter's threads' CPU time, read until they end (every 2 ms, so
    # the last 2 ms or less of it are not counted).
    tids, last = [], 0
    while waiter.is_alive():
        if not tids:
            tids = filter_threads(threads)
        if tids:
            last = max(last, thread_cpu_ns(tids))
        time.sleep(0.002)
    waiter.join()
    dt = time.perf_counter() - t0
    dc = cpu_seconds() - c0
    desc = blk.describe() if hasattr(blk, "describe") else ""
    return dt, dc, last * 1e-9, desc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=1 << 25)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", help="also write the table (markdown) here")
    ap.add_argument("--family", choices=("fir", "xlating", "both"), default="both",
                    help="plain FIR filters, frequency-translating ones, or both")
    a = ap.parse_args()
    rng = np.random.default_rng(2024)
    lines = []
    head = [f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {platform.node()}, "
            f"{os.cpu_count()} CPUs, {cpu_name()}",
            f"# GNU Radio {gr.version()}, libconvoy {convoy.version()}, "
            f"{a.samples} complex samples per run, median of {a.runs}",
            f"# load before: {load()}"]
    print("\n".join(head), flush=True)
    rows = []
    families = {"fir": [make_filters], "xlating": [make_xlating],
                "both": [make_filters, make_xlating]}[a.family]
    configs = [(f, ntaps, decim) for f in families for ntaps in (128, 1024) for decim in (1, 8)]
    for family, ntaps, decim in configs:
        taps = ((rng.standard_normal(ntaps) + 1j * rng.standard_normal(ntaps))
                / np.sqrt(2.0 * ntaps)).astype(np.complex64)
        if True:
            filters = family(ntaps, decim, taps)
            runs = {name: [] for name, _, _, _ in filters}
            descs = {}
            for _ in range(a.runs):
                for name, make, big, threads in filters:
                    dt, dc, dth, desc = run_once(make, big, decim, a.samples, threads)
                    runs[name].append((dt, dc, dth))
                    descs[name] = desc
            # medians: wall time, the process's CPU time, the filter thread's
            wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
            cpu = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
            thr = {k: statistics.median(r[2] for r in v) for k, v in runs.items()}
            fft = [k for k in runs if "fft_filter" in k]  # GNU Radio's FFT filters
            grs = [k for k in runs if k.startswith("GNU")]
            for name, _, _, _ in filters:
                note = ""
                if name.startswith("convoy"):
                    note = ("wall {:.2f}x / {:.2f}x, filter CPU {:.2f}x / {:.2f}x; {}".format(
                        min(wall[k] for k in fft) / wall[name],
                        min(wall[k] for k in grs) / wall[name],
                        min(thr[k] for k in fft) / thr[name],
                        min(thr[k] for k in grs) / thr[name],
                        descs[name].split(";")[0]))
                rows.append((ntaps, decim, name, a.samples / wall[name] / 1e6,
                             a.samples / cpu[name] / 1e6, thr[name] / a.samples * 1e9,
                             " ".join(f"{r[0]:.2f}" for r in runs[name]), note))
                print(f"{ntaps:5d} taps D={decim}: {name:60s} {rows[-1][3]:7.1f} MS/s wall "
                      f"{rows[-1][4]:7.1f} MS/s CPU {rows[-1][5]:5.2f} ns/sample filter  {note}",
                      flush=True)
    tail = f"# load after: {load()}"
    print(tail)
    table = ["| taps | D | filter | MS/s (wall) | MS/s (process CPU) | filter thread, ns/sample "
             "| runs, wall s | convoy: speed-up over GNU Radio's FFT filter / GNU Radio's best; plan |",
             "|---:|---:|---|---:|---:|---:|---|---|"]
    for ntaps, decim, name, w, c, t, runs, note in rows:
        table.append(f"| {ntaps} | {decim} | {name} | {w:.1f} | {c:.1f} | {t:.2f} | {runs} "
                     f"| {note} |")
    text = "\n".join(table) + "\n\n" + "\n".join("    " + h[2:] for h in head + [tail]) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
