#!/usr/bin/env python3
"""GPU peers of convoy's device-resident kernels, measured in one process.

    python3 bench/gpu_peers.py [--log2n 28] [--reps 7] [--ours BENCH_LOG] [--complex]

For 16, 1024 and 65536 taps on 2^LOG2N float32 mono samples already in GPU
memory, times

  cupyx.scipy.signal.oaconvolve            (overlap-add FFT)
  cupyx.scipy.signal.fftconvolve           (one large FFT)
  cupyx.scipy.signal.convolve(method='direct')
  torch.nn.functional.conv1d               (taps flipped, float32, cuDNN with
                                            cudnn.benchmark on; TF32 off, and
                                            once more with TF32 allowed)

each in mode 'valid' over n + taps - 1 inputs, so that every peer produces
exactly the n outputs convoy's gpu_kernels_bench produces. Times are the
median of REPS runs between CUDA events after one warm-up run (which also
pays for plans, kernel compilation and cuDNN's algorithm search). A peer
whose run would take more than 0.5 s at the full size (estimated from a run
at 2^20) or that runs out of memory is measured at a smaller size, and the
table says so (TF32 conv1d is skipped at 65536 taps for time). Every peer's output is spot-checked at 16 positions against a
float64 sum on the host. Also: CuPy oaconvolve at 1024 taps from a host
numpy array and back (end to end, wall clock).

With --complex the signal is complex64 (2^(LOG2N-1) complex samples, so
2^LOG2N real values) under the same real float32 taps, CuPy's peers only,
and GS/s counts real values a second (two a complex sample), as
gpu_calls_bench's cf32 rows do.

With --ours, the "summary" lines of gpu_kernels_bench's output (run in the
same device session) give convoy's rates, and the script prints the ratios
against the issue's targets.
"""
import argparse
import re
import sys
import time

import numpy as np

LIMIT_S = 0.5  # longest single timed run at the full size before the size is cut
MIN_LOG2 = 20
COMPLEX = False  # --complex: complex64 signals, rates in real values a second


def cupy_modules():
    import cupy
    import cupyx.scipy.signal as signal

    return cupy, signal


def free_memory():
    try:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    except Exception:
        pass
    try:
        import torch

        torch.cuda.empty_cache()
    except Exception:
        pass


class Peer:
    """One way of filtering a device array x (n + m - 1 samples) with taps h."""

    def __init__(self, name, kind, max_taps=None):
        self.name = name
        self.kind = kind  # 'cupy' or 'torch'
        self.max_taps = max_taps

    def prepare(self, x, h):
        """Returns a callable that runs the filter once and returns its output."""
        raise NotImplementedError


class CupyPeer(Peer):
    def __init__(self, name, fn):
        super().__init__(name, "cupy")
        self.fn = fn

    def prepare(self, x, h):
        return lambda: self.fn(x, h)


class TorchPeer(Peer):
    def __init__(self, name, tf32, max_taps=None):
        super().__init__(name, "torch", max_taps)
        self.tf32 = tf32

    def prepare(self, x, h):
        import torch
        import torch.nn.functional as F

        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = self.tf32
        xt = torch.as_tensor(x, device="cuda").view(1, 1, -1)  # zero-copy through DLPack
        wt = torch.as_tensor(h, device="cuda").flip(0).contiguous().view(1, 1, -1)

        def run():
            with torch.no_grad():
                return F.conv1d(xt, wt).view(-1)

        return run


def timer(kind):
    """Event pair factory for the peer's library, recording on its current stream."""
    if kind == "torch":
        import torch

        def measure(fn):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            out = fn()
            b.record()
            b.synchronize()
            return a.elapsed_time(b) * 1e-3, out

    else:
        import cupy

        def measure(fn):
            a = cupy.cuda.Event()
            b = cupy.cuda.Event()
            a.record()
            out = fn()
            b.record()
            b.synchronize()
            return cupy.cuda.get_elapsed_time(a, b) * 1e-3, out

    return measure


def to_host(out):
    if hasattr(out, "get"):
        return out.get()
    return out.detach().cpu().numpy()


def spot_check(out_host, x_host, h_host, n):
    """Worst |out - ref| / sum |h x| over 16 of the n valid outputs (host arrays)."""
    rng = np.random.default_rng(7)
    m = len(h_host)
    if out_host.shape[0] != n:
        return float("inf")
    worst = 0.0
    hr = h_host[::-1].astype(np.float64)
    wide = np.complex128 if np.iscomplexobj(x_host) else np.float64
    for k in rng.integers(0, n, 16):
        seg = x_host[k : k + m].astype(wide)
        prod = hr * seg
        ref, mag = prod.sum(), np.abs(prod).sum()
        worst = max(worst, abs(complex(out_host[k]) - ref) / (mag if mag > 0 else 1.0))
    return worst


def measure_peer(peer, m, log2n, reps, cupy):
    """Returns (log2 size used, median seconds, GS/s, check, note)."""
    measure = timer(peer.kind)
    rng = cupy.random.default_rng(1234)
    h = (rng.random(m, dtype=cupy.float32) * 2 - 1).astype(cupy.float32)
    h_host = h.get()
    note = ""

    def setup(k):
        if COMPLEX:  # 2^k real values
            n = 1 << (k - 1)
            re = rng.random(n + m - 1, dtype=cupy.float32) * 2 - 1
            im = rng.random(n + m - 1, dtype=cupy.float32) * 2 - 1
            return n, (re + 1j * im).astype(cupy.complex64)
        n = 1 << k
        x = (rng.random(n + m - 1, dtype=cupy.float32) * 2 - 1).astype(cupy.float32)
        return n, x

    # Estimate from a small run (after its own warm-up).
    k = log2n
    try:
        n_small, x_small = setup(MIN_LOG2)
        fn = peer.prepare(x_small, h)
        measure(fn)
        t_small, _ = measure(fn)
        del fn, x_small
        free_memory()
        est = t_small * (1 << (log2n - MIN_LOG2))
        while k > MIN_LOG2 and est > LIMIT_S:
            k -= 1
            est /= 2
        if est > 0.3:
            reps = min(reps, 3)
        if k < log2n:
            note = "size cut to 2^%d (est. %.1f s per run at 2^%d)" % (
                k,
                t_small * (1 << (log2n - MIN_LOG2)),
                log2n,
            )
    except Exception as e:  # the peer does not work at all
        free_memory()
        return None, None, None, None, "failed: %s" % str(e).splitlines()[0][:80]

    while True:
        try:
            n, x = setup(k)
            fn = peer.prepare(x, h)
            _, out = measure(fn)  # warm-up
            del out
            times = []
            for _ in range(reps):
                t, out = measure(fn)
                times.append(t)
            # Check a window of the output against the matching input window.
            lo = n // 3
            w = min(n - lo, 1 << 16)
            check = spot_check(to_host(out[lo : lo + w]), x[lo : lo + w + m - 1].get(), h_host, w)
            del out, fn, x
            free_memory()
            t = float(np.median(times))
            values = 2 * n if COMPLEX else n
            return k, t, values / t * 1e-9, check, note
        except Exception as e:
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            free_memory()
            if "memory" in msg.lower() and k > MIN_LOG2:
                k -= 1
                note = "size cut to 2^%d (out of memory above)" % k
                continue
            return None, None, None, None, "failed: %s" % msg[:80]


def end_to_end(cupy, signal, m, log2n, reps):
    """CuPy oaconvolve from a host array and back, wall clock."""
    n = 1 << log2n
    rng = np.random.default_rng(99)
    x_host = (rng.random(n + m - 1, dtype=np.float32) * 2 - 1).astype(np.float32)
    h_host = (rng.random(m, dtype=np.float32) * 2 - 1).astype(np.float32)

    def once():
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        x = cupy.asarray(x_host)
        h = cupy.asarray(h_host)
        y = signal.oaconvolve(x, h, mode="valid")
        out = cupy.asnumpy(y)
        cupy.cuda.Device().synchronize()
        t = time.perf_counter() - t0
        del x, h, y
        return t, out

    once()
    free_memory()
    times = []
    out = None
    for _ in range(reps):
        t, out = once()
        free_memory()
        times.append(t)
    check = spot_check(out, x_host, h_host, n)
    t = float(np.median(times))
    return t, n / t * 1e-9, check


def parse_ours(path):
    ours = {}
    with open(path) as f:
        for line in f:
            mm = re.match(r"summary taps=(\d+) (.*)", line.strip())
            if mm:
                vals = dict(kv.split("=") for kv in mm.group(2).split())
                ours[int(mm.group(1))] = {k: float(v) for k, v in vals.items()}
    return ours


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--log2n", type=int, default=28)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--taps", default="16,1024,65536")
    ap.add_argument("--ours", help="gpu_kernels_bench output with 'summary' lines")
    ap.add_argument("--only", help="comma-separated peer names to run (default: all)")
    ap.add_argument("--no-host", action="store_true", help="skip the host-to-host CuPy run")
    ap.add_argument("--complex", action="store_true", help="complex64 signals, CuPy's peers")
    args = ap.parse_args()
    global COMPLEX
    COMPLEX = args.complex

    cupy, signal = cupy_modules()
    import torch

    dev = cupy.cuda.runtime.getDeviceProperties(0)
    print(
        "device: %s; CuPy %s, PyTorch %s (cuDNN %s)"
        % (dev["name"].decode(), cupy.__version__, torch.__version__, torch.backends.cudnn.version())
    )
    print(
        "signal: 2^%d %s, mono, device-resident; 'valid' outputs; median of %d runs"
        % (
            args.log2n,
            "real values as complex64 samples (GS/s: real values)" if COMPLEX else "float32 samples",
            args.reps,
        )
    )

    peers = [
        CupyPeer("cupyx oaconvolve", lambda x, h: signal.oaconvolve(x, h, mode="valid")),
        CupyPeer("cupyx fftconvolve", lambda x, h: signal.fftconvolve(x, h, mode="valid")),
        CupyPeer(
            "cupyx convolve direct", lambda x, h: signal.convolve(x, h, mode="valid", method="direct")
        ),
        TorchPeer("torch conv1d fp32", tf32=False),
        TorchPeer("torch conv1d tf32", tf32=True, max_taps=1024),
    ]
    if COMPLEX:
        peers = [p for p in peers if p.kind == "cupy"]
    if args.only:
        wanted = [w.strip() for w in args.only.split(",")]
        peers = [p for p in peers if any(w in p.name for w in wanted)]
    taps_list = [int(t) for t in args.taps.split(",")]
    results = {}
    print()
    print("%-24s %7s %6s %10s %9s %9s  %s" % ("peer", "taps", "size", "time ms", "GS/s", "check", "note"))
    for m in taps_list:
        for peer in peers:
            if peer.max_taps and m > peer.max_taps:
                continue
            k, t, gsps, check, note = measure_peer(peer, m, args.log2n, args.reps, cupy)
            results[(peer.name, m)] = gsps
            if t is None:
                print("%-24s %7d %6s %10s %9s %9s  %s" % (peer.name, m, "-", "-", "-", "-", note))
            else:
                print(
                    "%-24s %7d %6s %10.3f %9.2f %9.1e  %s"
                    % (peer.name, m, "2^%d" % k, t * 1e3, gsps, check, note)
                )
            sys.stdout.flush()

    if not args.no_host and not COMPLEX:
        print()
        t, gsps, check = end_to_end(cupy, signal, 1024, args.log2n, 3)
        results[("cupyx oaconvolve host-to-host", 1024)] = gsps
        print(
            "cupyx oaconvolve, 1024 taps, host numpy array to host numpy array (pageable), "
            "2^%d samples: %.1f ms, %.2f GS/s, check %.1e" % (args.log2n, t * 1e3, gsps, check)
        )

    if args.ours:
        ours = parse_ours(args.ours)
        print()
        print("convoy (gpu_kernels_bench, same session) against the targets:")
        if 16 in ours:
            o = ours[16]
            frac = o["direct_gsps"] / o["copy_gsps"] if o["copy_gsps"] else 0
            print(
                "  direct 16 taps: %.1f GS/s = %.1f%% of the copy rate (target >= 70%%): %s"
                % (o["direct_gsps"], 100 * frac, "met" if frac >= 0.70 else "MISSED")
            )
            tq = results.get(("torch conv1d fp32", 16))
            if tq:
                print("    vs torch conv1d fp32: %.2fx" % (o["direct_gsps"] / tq))
        for m, target in ((1024, 4.5), (65536, 3.0)):
            if m not in ours:
                continue
            o = ours[m]
            peer = results.get(("cupyx oaconvolve", m))
            if not peer:
                print("  fft %d taps: no CuPy oaconvolve figure" % m)
                continue
            ratio = o["fft_gsps"] / peer
            print(
                "  fft %d taps: %.1f GS/s vs CuPy oaconvolve %.2f GS/s = %.2fx (target >= %.1fx): %s"
                % (m, o["fft_gsps"], peer, ratio, target, "met" if ratio >= target else "MISSED")
            )


if __name__ == "__main__":
    main()
