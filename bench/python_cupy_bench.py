#!/usr/bin/env python3
"""The Python package's CuPy path against its host path and against CuPy's
own overlap-add, in one process.

    CONVOY_LIBRARY=/tmp/b/libconvoy.so PYTHONPATH=python \\
        python3 bench/python_cupy_bench.py [--log2n 26] [--batch 64x20] \\
        [--taps 16,1024,65536] [--runs 5] [--json FILE]

For float32 and complex64 signals (one of 2^LOG2N samples, and a batch of
ROWS x 2^COLS along the last axis) and random taps (seeded; real taps for
float32 signals, complex taps for complex64 ones), it times

  convoy.convolve(x_gpu, h, mode="full", engine=E)   the CuPy path: the device
                                                     API of convoy_cuda.h on
                                                     CuPy's current stream
  cupyx.scipy.signal.oaconvolve(x_gpu, h_gpu)        (axes=-1 for the batch)
  cupyx.scipy.signal.fftconvolve(x_gpu, h_gpu)       (one large FFT; for context)
  convoy.convolve(x_numpy, h, engine=E)              the host path: numpy in and
                                                     out through the library's
                                                     pinned host-to-host pipeline

for E = gpu-direct (up to 1024 taps) and gpu-fft, and says which of them the
package's default engine ("auto", on GPU arrays the library's GPU choice)
picks. Each is run once to warm up (plans, CUDA start, CuPy's kernel cache),
then RUNS times: the median is reported. GPU calls are timed with CuPy events
on the current stream (the wall-clock time, stream synchronized, is printed
beside it); the host path, which returns numpy arrays, by the wall clock.
Rates are input samples per second (a complex sample counts once).

Every output is compared with a float64/complex128 oaconvolve on the GPU
(max |y - ref| / max |ref|), and the CuPy path's output with the host path's
of the same engine: largest relative difference and whether the bits are
equal. The two paths are different C APIs (convoy_cuda_conv_* against
convoy_stream_*), whose plans the script prints (describe()); the header
promises agreement within float rounding, not equal bits. Where the same C
convolver runs (same plan) with different cuts, bits are promised: the
script checks that the package's cutting of a call into pieces of whole FFT
granules (2^20 frames at most) gives the bits of one C call over the whole
signal on the same convolver (the "cuts" column).
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--log2n", type=int, default=26, help="mono signal length, log2")
    p.add_argument("--batch", default="64x20", help="ROWSxLOG2COLS of the batch, or 'none'")
    p.add_argument("--taps", default="16,1024,65536")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--kinds", default="float32,complex64")
    p.add_argument("--no-host", action="store_true", help="skip the host path")
    p.add_argument("--no-fftconvolve", action="store_true")
    p.add_argument("--no-cuts", action="store_true", help="skip the cuts check")
    p.add_argument("--breakdown", action="store_true",
                   help="also time the CuPy path's parts: creating the device convolver, "
                        "the zero-padded copy in, the C calls alone (convolver reused), the "
                        "copy out")
    p.add_argument("--max-frames", type=int, default=0,
                   help="pass max_frames to the CuPy path (frames per C call; the package's "
                        "default is min(length, 2^20))")
    p.add_argument("--json", help="write every measurement here")
    return p.parse_args()


def main():
    a = parse_args()
    import cupy as cp
    import cupyx.scipy.signal as csig

    import convoy
    from convoy import _cuda
    from convoy._filters import make_filters
    from convoy._lib import engine_id, lib

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    info = {
        "gpu": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
        "cupy": cp.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
        "convoy_library": convoy.library_path, "convoy_version": convoy.library_version,
    }
    try:
        import cffi
        info["cffi"] = cffi.__version__
    except ImportError:
        pass
    print("# " + ", ".join("%s %s" % kv for kv in info.items()), flush=True)

    shapes = [("mono", (1 << a.log2n,))]
    if a.batch != "none":
        rows, cols = (int(v) for v in a.batch.split("x"))
        shapes.append(("batch", (rows, 1 << cols)))
    taps_list = [int(t) for t in a.taps.split(",")]
    kinds = a.kinds.split(",")
    rng = np.random.default_rng(2024)

    def sync():
        dev.synchronize()

    def free():
        sync()
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()

    def time_gpu(fn):
        """(median event seconds, median wall seconds, warm-up output)."""
        sync()
        y = fn()
        sync()
        ev, wall = [], []
        st = cp.cuda.get_current_stream()
        for _ in range(a.runs):
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            t0 = time.perf_counter()
            e0.record(st)
            r = fn()
            e1.record(st)
            e1.synchronize()
            wall.append(time.perf_counter() - t0)
            ev.append(cp.cuda.get_elapsed_time(e0, e1) / 1e3)
            del r
        return statistics.median(ev), statistics.median(wall), y

    def time_host(fn):
        y = fn()
        wall = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            r = fn()
            wall.append(time.perf_counter() - t0)
            del r
        return statistics.median(wall), y

    def rel(y, ref):
        y = cp.asarray(y)
        return float(cp.abs(y.astype(ref.dtype) - ref).max() / cp.abs(ref).max())

    def device_plan(h32, g, eng, cx, max_frames):
        conv = _cuda.DeviceConv(make_filters([h32]), g, engine_id(eng), cx, dev.id, max_frames)
        try:
            return engine_name(conv.engine()), conv.describe()
        finally:
            conv.close()

    def engine_name(e):
        return convoy._lib.engine_name(e)

    def cuts_check(xb, h32, eng, cx, length):
        """The package's cutting (pieces of whole granules, at most 2^20
        frames) against one C call over the whole signal, on one convolver
        (max_frames = length): (equal bits, pieces, plan)."""
        b, n = xb.shape
        st = int(cp.cuda.get_current_stream().ptr)
        conv = _cuda.DeviceConv(make_filters([h32]), b, engine_id(eng), cx, dev.id, length)
        try:
            granule = lib.convoy_cuda_conv_granule(conv._conv)
            if cx:
                sig = cp.zeros((length, b), cp.complex64)
                sig[:n] = xb.T
            else:
                sig = cp.zeros((b, length), cp.float32)
                sig[:, :n] = xb
            outs = []
            mf = min(length, 1 << 20)  # the package's max_frames, and its pieces
            package_piece = mf // granule * granule if granule <= mf else mf
            for piece in (length, package_piece):
                conv.piece = piece
                out = cp.empty_like(sig)
                if cx:
                    conv.process(sig.data.ptr, out.data.ptr, length, st)
                else:
                    conv.process_planar(sig.data.ptr, length, out.data.ptr, length, length, st)
                outs.append(out)
                conv.reset(st)
            pieces = -(-length // conv.piece)
            return bool(cp.array_equal(outs[0], outs[1])), pieces, conv.describe()
        finally:
            conv.close()

    def parts(xb, h32, eng, cx, length):
        """The CuPy path's parts, each timed alone as time_gpu does: creating
        (and closing) the device convolver convolve() makes for a call; the
        zero-padded copy of the input it makes (interleaved (length, rows)
        for complex, planar rows for real); the C calls over it on one
        convolver reused (reset between runs); the copy into the output's
        layout (a transposed copy for complex batches, the 'full' window
        made contiguous otherwise)."""
        b, n = xb.shape
        st = int(cp.cuda.get_current_stream().ptr)
        mf = a.max_frames or min(length, 1 << 20)
        filters = make_filters([h32])

        def create():
            _cuda.DeviceConv(filters, b, engine_id(eng), cx, dev.id, mf).close()

        def pad():
            if cx:
                sig = cp.zeros((length, b), cp.complex64)
                sig[:n] = xb.T
            else:
                sig = cp.zeros((b, length), cp.float32)
                sig[:, :n] = xb
            return sig

        t_create = time_gpu(create)[1]
        t_in, _, sig = time_gpu(pad)
        out = cp.empty_like(sig)
        conv = _cuda.DeviceConv(filters, b, engine_id(eng), cx, dev.id, mf)
        try:
            def calls():
                conv.reset(st)
                if cx:
                    conv.process(sig.data.ptr, out.data.ptr, length, st)
                else:
                    conv.process_planar(sig.data.ptr, length, out.data.ptr, length, length, st)
            t_calls = time_gpu(calls)[0]
        finally:
            conv.close()
        del sig

        def finish():
            if cx:
                full = cp.empty((b, length), cp.complex64)
                full[:] = out.T
                return cp.ascontiguousarray(full.reshape(xd_shape_of(b, length)))
            return cp.ascontiguousarray(out[:, :length].reshape(xd_shape_of(b, length)))

        def xd_shape_of(b, length):
            return (length,) if b == 1 else (b, length)

        t_out = time_gpu(finish)[0]
        return dict(create_s=t_create, in_s=t_in, calls_s=t_calls, out_s=t_out)

    dopts = {"max_frames": a.max_frames} if a.max_frames else {}
    info["max_frames"] = a.max_frames or "default: min(length, 2^20)"
    results = []
    hdr = ("%-5s %-9s %6s %-10s %9s %9s %9s %9s %7s %9s %9s  %s"
           % ("shape", "dtype", "taps", "engine", "cupy GS/s", "wall ms", "oa GS/s",
              "fft GS/s", "x oa", "host GS/s", "host/cupy", "diffs"))
    print(hdr, flush=True)
    for shape_name, shape in shapes:
        nsamp = int(np.prod(shape))
        for kind in kinds:
            cx = kind == "complex64"
            xh = rng.standard_normal(shape, dtype=np.float32)
            if cx:
                xh = (xh + 1j * rng.standard_normal(shape, dtype=np.float32)).astype(np.complex64)
            xd = cp.asarray(xh)
            for taps in taps_list:
                hh = rng.standard_normal(taps, dtype=np.float32) / np.sqrt(taps)
                if cx:
                    hh = ((hh + 1j * rng.standard_normal(taps, dtype=np.float32) / np.sqrt(taps))
                          .astype(np.complex64))
                hb = hh if len(shape) == 1 else hh[None, :]
                hd = cp.asarray(hb)
                axes = None if len(shape) == 1 else -1
                g = 1 if len(shape) == 1 else shape[0]
                n = shape[-1]
                length = n + taps - 1
                # float64 reference on the GPU
                ref = csig.oaconvolve(xd.astype(cp.complex128 if cx else cp.float64),
                                      hd.astype(cp.complex128 if cx else cp.float64), axes=axes)
                t_oa, w_oa, y_oa = time_gpu(lambda: csig.oaconvolve(xd, hd, axes=axes))
                row = dict(shape=shape_name, dims=list(shape), dtype=kind, taps=taps,
                           oaconvolve_s=t_oa, oaconvolve_wall_s=w_oa,
                           oaconvolve_gss=nsamp / t_oa / 1e9,
                           oaconvolve_dtype=str(y_oa.dtype), oaconvolve_err=rel(y_oa, ref))
                del y_oa
                if not a.no_fftconvolve:
                    free()
                    try:
                        t_ff, w_ff, y_ff = time_gpu(lambda: csig.fftconvolve(xd, hd, axes=axes))
                        row.update(fftconvolve_s=t_ff, fftconvolve_gss=nsamp / t_ff / 1e9,
                                   fftconvolve_err=rel(y_ff, ref))
                        del y_ff
                    except cp.cuda.memory.OutOfMemoryError:
                        row.update(fftconvolve_s=None, fftconvolve_gss=None)
                free()
                h32 = np.ascontiguousarray(hh)
                auto_engine, _ = device_plan(h32, g, "gpu", cx, min(length, 1 << 20))
                row["auto_engine"] = auto_engine
                engines = (["gpu-direct"] if taps <= 1024 else []) + ["gpu-fft"]
                for eng in engines:
                    r = dict(row, engine=eng)
                    t_cp, w_cp, y_cp = time_gpu(lambda: convoy.convolve(xd, hh, mode="full",
                                                                        engine=eng, **dopts))
                    r.update(cupy_s=t_cp, cupy_wall_s=w_cp, cupy_gss=nsamp / t_cp / 1e9,
                             cupy_err=rel(y_cp, ref), ratio_vs_oaconvolve=t_oa / t_cp)
                    r["cupy_plan"] = device_plan(h32, g, eng, cx,
                                                 a.max_frames or min(length, 1 << 20))[1]
                    xb = xd.reshape(g, n)
                    if not a.no_cuts:
                        r["cuts_bitwise"], r["cuts_pieces"], r["cuts_plan"] = cuts_check(
                            xb, h32, eng, cx, length)
                    if a.breakdown:
                        r.update(parts(xb, h32, eng, cx, length))
                    free()
                    if not a.no_host:
                        t_h, y_h = time_host(lambda: convoy.convolve(xh, hh, mode="full",
                                                                     engine=eng))
                        with convoy.Stream(hh, channels=g, engine=eng, complex=cx) as s:
                            r["host_plan"] = s.describe()
                        yhd = cp.asarray(y_h)
                        del y_h
                        r.update(host_s=t_h, host_gss=nsamp / t_h / 1e9, host_err=rel(yhd, ref),
                                 host_vs_cupy_rel=rel(y_cp, yhd.astype(cp.complex128 if cx
                                                                       else cp.float64)),
                                 host_vs_cupy_bitwise=bool(cp.array_equal(y_cp, yhd)),
                                 host_vs_cupy_differing=int((y_cp != yhd).sum()))
                        del yhd
                    del y_cp
                    free()
                    results.append(r)
                    diffs = "err cupy %.1e oa %.1e" % (r["cupy_err"], r["oaconvolve_err"])
                    if "host_err" in r:
                        diffs += " host %.1e; host-vs-cupy %.1e %s" % (
                            r["host_err"], r["host_vs_cupy_rel"],
                            "bitwise" if r["host_vs_cupy_bitwise"]
                            else "(%d differ)" % r["host_vs_cupy_differing"])
                    if "cuts_bitwise" in r:
                        diffs += "; cuts %s (%d pieces)" % ("bitwise" if r["cuts_bitwise"]
                                                            else "DIFFER", r["cuts_pieces"])
                    if "create_s" in r:
                        diffs += ("; parts ms: create %.2f, in %.2f, C calls %.2f (%.1f GS/s),"
                                  " out %.2f" % (r["create_s"] * 1e3, r["in_s"] * 1e3,
                                                 r["calls_s"] * 1e3, nsamp / r["calls_s"] / 1e9,
                                                 r["out_s"] * 1e3))
                    print("%-5s %-9s %6d %-10s %9.2f %9.2f %9.2f %9s %7.2f %9s %9s  %s" % (
                        shape_name, kind, taps,
                        eng + ("*" if eng == auto_engine else ""), r["cupy_gss"],
                        w_cp * 1e3, r["oaconvolve_gss"],
                        "%.2f" % r["fftconvolve_gss"] if r.get("fftconvolve_gss") else "-",
                        r["ratio_vs_oaconvolve"],
                        "%.2f" % r["host_gss"] if "host_gss" in r else "-",
                        "%.2f" % (r["cupy_s"] / r["host_s"]) if "host_s" in r else "-",
                        diffs), flush=True)
                del ref, hd
                free()
            del xd
            free()
    print("# * marks the engine the package's default (engine='auto') picks on GPU arrays")
    print("# plans:")
    for r in results:
        print("#  %s %s %d %s: cupy [%s] host [%s] cuts [%s]" % (
            r["shape"], r["dtype"], r["taps"], r["engine"], r["cupy_plan"],
            r.get("host_plan", "-"), r.get("cuts_plan", "-")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(info=info, runs=a.runs, results=results), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
