"""``python -m blockmodes.bench``: per-call time and throughput from Python.

Measures ``OCB1.encrypt`` (and ``encrypt_into`` a reused buffer: no
allocation of the result), ``CWC.encrypt`` and ``PMAC(key).mac`` (AES-128,
16-byte tags) at 64 B, 1 KiB, 16 KiB and 1 MiB, next to ``cryptography``'s
``AESOCB3.encrypt`` and ``AESGCM.encrypt`` (AES-128) measured in the same
process when ``cryptography`` is installed. Each figure is the best of
several repetitions of a timed loop (the least disturbed one), so the
numbers are comparable between rows on a busy machine.

Options: ``--quick`` (fewer and shorter repetitions), ``--sizes 64,1024``
(bytes), ``--repeat N``, ``--seconds S`` (the length of one repetition).

``--dask MIB`` measures instead ``blockmodes.dask.pmac_file`` on a file of
MIB MiB (in the page cache) on a ``LocalCluster`` of 2 worker processes
(one thread each), next to the same byte-range reader in this one process
(one thread) and to ``PMAC(key).mac`` of the bytes in memory (all cores).
Needs ``dask[distributed]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from typing import Callable, List, Optional, Tuple

import blockmodes

SIZES = [64, 1024, 16 * 1024, 1024 * 1024]


def _label(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def measure(fn: Callable[[], object], seconds: float, repeat: int) -> float:
    """Seconds per call: the best of ``repeat`` loops of about ``seconds`` each."""
    # calibrate: calls per loop
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= seconds / 4 or n >= 1 << 24:
            break
        n *= 4 if dt < seconds / 40 else 2
    n = max(1, int(n * seconds / max(dt, 1e-9)))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def rows(sizes: List[int]) -> List[Tuple[str, int, Callable[[], object]]]:
    key = bytes(range(16))
    nonce16, nonce11, nonce12 = bytes(16), bytes(11), bytes(12)
    ocb = blockmodes.OCB1(key)
    cwc = blockmodes.CWC(key)
    out: List[Tuple[str, int, Callable[[], object]]] = []
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESOCB3
    except ImportError:  # optional
        AESGCM = AESOCB3 = None  # type: ignore[assignment,misc]
    ocb3 = AESOCB3(key) if AESOCB3 is not None else None
    gcm = AESGCM(key) if AESGCM is not None else None
    for n in sizes:
        data = os.urandom(n)
        out.append(("blockmodes OCB1.encrypt", n, lambda d=data: ocb.encrypt(nonce16, d)))
        buf = bytearray(n + 16)
        out.append(
            ("blockmodes OCB1.encrypt_into (one out)", n, lambda d=data, b=buf: ocb.encrypt_into(nonce16, d, b))
        )
        if ocb3 is not None:
            out.append(
                ("cryptography AESOCB3.encrypt", n, lambda d=data: ocb3.encrypt(nonce12, d, None))
            )
        out.append(("blockmodes CWC.encrypt", n, lambda d=data: cwc.encrypt(nonce11, d)))
        if gcm is not None:
            out.append(
                ("cryptography AESGCM.encrypt", n, lambda d=data: gcm.encrypt(nonce12, d, None))
            )
        out.append(("blockmodes PMAC.mac", n, lambda d=data, m=blockmodes.PMAC(key): m.mac(d)))
    return out


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def dask_bench(mib: int, repeat: int, chunk_mib: int) -> None:
    import tempfile

    from distributed import Client, LocalCluster

    from blockmodes.dask import _partial_range, _split, pmac_file

    key = bytes(range(16))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "data.bin")
        with open(path, "wb") as f:
            for _ in range(mib):
                f.write(os.urandom(2**20))
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            data = f.read()  # also puts the file in the page cache
        expect = blockmodes.PMAC(key).mac(data)

        def best(fn: Callable[[], bytes]) -> float:
            t = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                assert fn() == expect
                t = min(t, time.perf_counter() - t0)
            return t

        def one_process() -> bytes:
            body = _split(size)
            sigma = _partial_range(key, path, 0, body, 16)
            with open(path, "rb") as f:
                f.seek(body)
                return blockmodes.PMAC(key).finish(sigma, f.read())

        results = [
            ("PMAC.mac of the bytes in memory (this process, all cores)", best(lambda m=blockmodes.PMAC(key): m.mac(data))),
            ("file, one process, one thread (pmac_file's reader)", best(one_process)),
        ]
        del data
        t0 = time.perf_counter()
        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster, Client(cluster) as client:
            start = time.perf_counter() - t0
            client.run(lambda: __import__("blockmodes"))  # import on the workers first
            pmac_file(key, path, client=client, chunk_bytes=chunk_mib * 2**20)  # warm up
            results.append(
                (
                    f"pmac_file, LocalCluster 2 workers x 1 thread, {chunk_mib} MiB tasks",
                    best(lambda: pmac_file(key, path, client=client, chunk_bytes=chunk_mib * 2**20)),
                )
            )
    print(f"PMAC-AES-128 of a {mib} MiB file (best of {repeat}; cluster start-up {start:.1f} s not counted)")
    print(f"{'':70} {'time':>9} {'GB/s':>7}")
    for name, t in results:
        print(f"{name:70} {t * 1e3:7.1f}ms {size / t / 1e9:7.2f}")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m blockmodes.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repetitions")
    ap.add_argument("--sizes", help="comma-separated message sizes in bytes")
    ap.add_argument("--repeat", type=int, help="repetitions per figure (best is kept)")
    ap.add_argument("--seconds", type=float, help="length of one repetition")
    ap.add_argument("--dask", type=int, metavar="MIB", help="measure blockmodes.dask.pmac_file on a MIB MiB file")
    ap.add_argument("--dask-chunk", type=int, default=16, metavar="MIB", help="chunk_bytes of --dask in MiB")
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",")] if a.sizes else SIZES
    repeat = a.repeat or (3 if a.quick else 7)
    seconds = a.seconds or (0.02 if a.quick else 0.1)
    try:
        import cryptography

        crypto = f"cryptography {cryptography.__version__}"
    except ImportError:
        crypto = "cryptography not installed (pip install cryptography for the comparison rows)"
    print(f"blockmodes {blockmodes.__version__}, Python {platform.python_version()}, {crypto}")
    print(f"CPU: {_cpu()} ({os.cpu_count()} logical CPUs); AES-128, 16-byte tags; best of {repeat}")
    print()
    if a.dask:
        dask_bench(a.dask, a.repeat or 3, a.dask_chunk)
        return 0
    print(f"{'operation':38} {'size':>8} {'per call':>12} {'GB/s':>8}")
    last = None
    for name, n, fn in rows(sizes):
        if last is not None and n != last:
            print()
        last = n
        t = measure(fn, seconds, repeat)
        per = f"{t * 1e6:.2f} us" if t < 1e-3 else f"{t * 1e3:.3f} ms"
        print(f"{name:38} {_label(n):>8} {per:>12} {n / t / 1e9:8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
