"""``python -m blockmodes.bench``: per-call time and throughput from Python.

Measures ``OCB1.encrypt`` (and ``encrypt_into`` a reused buffer: no
allocation of the result), ``CWC.encrypt``, ``PMAC(key).mac`` (AES-128,
16-byte tags) and ``Disk("xex").encrypt_sectors`` (512-byte sectors) at 64 B,
1 KiB, 16 KiB and 1 MiB, next to ``cryptography``'s ``AESOCB3.encrypt``,
``AESGCM.encrypt`` (AES-128, 12-byte nonces) and AES-128-XTS (one
``Cipher(AES(key), XTS(tweak)).encryptor()`` per 512-byte unit, the unit
number as its tweak, as pyca's API asks) measured in the same process when
``cryptography`` is installed; the header names the OpenSSL that
``cryptography`` runs on. A message shorter than 512 bytes is one sector
(data unit) of its own length, as in ``blockmodes bench``. ``PMAC(key).mac``
(from 512 KiB) and ``encrypt_sectors`` (from 256 KiB) use all cores;
``RAYON_NUM_THREADS=1`` keeps them on one thread.

Each figure is the best of several repetitions of a timed loop (the least
disturbed one); the repetitions of all rows of one size take turns, so a
change in the machine's speed hits them alike and the rows of one size
stay comparable on a busy machine. A peer's row ends with the speed of
the blockmodes row it is paired with, relative to the peer's (``x peer``).

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


def _calibrate(fn: Callable[[], object], seconds: float) -> int:
    """Calls per timed loop of about ``seconds``."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= seconds / 4 or n >= 1 << 24:
            break
        n *= 4 if dt < seconds / 40 else 2
    return max(1, int(n * seconds / max(dt, 1e-9)))


def _loop(fn: Callable[[], object], n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def measure(fn: Callable[[], object], seconds: float, repeat: int) -> float:
    """Seconds per call: the best of ``repeat`` loops of about ``seconds`` each."""
    return measure_together([fn], seconds, repeat)[0]


def measure_together(fns: List[Callable[[], object]], seconds: float, repeat: int) -> List[float]:
    """Seconds per call of each of ``fns``: the best of ``repeat`` loops of
    about ``seconds`` each, the functions' loops taking turns."""
    ns = [_calibrate(fn, seconds) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, (fn, n) in enumerate(zip(fns, ns)):
            best[i] = min(best[i], _loop(fn, n))
    return best


# A row: (name, size, the call, the name of the blockmodes row a peer is paired with).
Row = Tuple[str, int, Callable[[], object], Optional[str]]


def _xts_units(key32: bytes, data: bytes, unit: int) -> Callable[[], bytes]:
    """``cryptography``'s AES-XTS over ``data`` in ``unit``-byte data units,
    unit i under the tweak i (16 bytes little-endian): one encryptor per
    unit, since a pyca cipher context cannot change its tweak."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    aes = algorithms.AES(key32)
    view = memoryview(data)
    starts = range(0, len(data), unit)

    def run() -> bytes:
        out = []
        for i, at in enumerate(starts):
            enc = Cipher(aes, modes.XTS(i.to_bytes(16, "little"))).encryptor()
            out.append(enc.update(view[at : at + unit]))
            out.append(enc.finalize())
        return b"".join(out)

    return run


def rows(sizes: List[int]) -> List[Row]:
    key = bytes(range(16))
    # AES-128-XTS: data key, then a different tweak key (OpenSSL refuses equal halves)
    xts_key = key + bytes(range(16, 32))
    nonce16, nonce11, nonce12 = bytes(16), bytes(11), bytes(12)
    ocb = blockmodes.OCB1(key)
    cwc = blockmodes.CWC(key)
    out: List[Row] = []
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESOCB3
    except ImportError:  # optional
        AESGCM = AESOCB3 = None  # type: ignore[assignment,misc]
    ocb3 = AESOCB3(key) if AESOCB3 is not None else None
    gcm = AESGCM(key) if AESGCM is not None else None
    for n in sizes:
        data = os.urandom(n)
        out.append(("blockmodes OCB1.encrypt", n, lambda d=data: ocb.encrypt(nonce16, d), None))
        buf = bytearray(n + 16)
        out.append(
            ("blockmodes OCB1.encrypt_into (one buf)", n, lambda d=data, b=buf: ocb.encrypt_into(nonce16, d, None, b), None)
        )
        if ocb3 is not None:
            out.append(
                (
                    "cryptography AESOCB3.encrypt",
                    n,
                    lambda d=data: ocb3.encrypt(nonce12, d, None),
                    "blockmodes OCB1.encrypt",
                )
            )
        out.append(("blockmodes CWC.encrypt", n, lambda d=data: cwc.encrypt(nonce11, d), None))
        if gcm is not None:
            out.append(
                (
                    "cryptography AESGCM.encrypt",
                    n,
                    lambda d=data: gcm.encrypt(nonce12, d, None),
                    "blockmodes CWC.encrypt",
                )
            )
        out.append(("blockmodes PMAC.mac", n, lambda d=data, m=blockmodes.PMAC(key): m.mac(d), None))
        unit = min(512, n)
        if unit >= 16 and n % unit == 0 and unit % 16 == 0:
            xex = blockmodes.Disk("xex", key, sector_size=unit)
            out.append(
                (f"blockmodes Disk xex-{unit}", n, lambda d=data, x=xex: x.encrypt_sectors(0, d), None)
            )
            if gcm is not None:  # cryptography is installed
                out.append((f"cryptography AES-XTS-{unit}", n, _xts_units(xts_key, data, unit), f"blockmodes Disk xex-{unit}"))
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
        from cryptography.hazmat.backends.openssl import backend

        crypto = f"cryptography {cryptography.__version__} on {backend.openssl_version_text()}"
    except ImportError:
        crypto = "cryptography not installed (pip install cryptography for the comparison rows)"
    print(f"blockmodes {blockmodes.__version__}, Python {platform.python_version()}, {crypto}")
    print(f"CPU: {_cpu()} ({os.cpu_count()} logical CPUs); AES-128, 16-byte tags; best of {repeat}")
    print()
    if a.dask:
        dask_bench(a.dask, a.repeat or 3, a.dask_chunk)
        return 0
    print(f"{'operation':38} {'size':>8} {'per call':>12} {'GB/s':>8} {'x peer':>7}")
    table = rows(sizes)
    for k, n in enumerate(sizes):
        if k:
            print()
        group = [r for r in table if r[1] == n]
        times = measure_together([fn for _, _, fn, _ in group], seconds, repeat)
        by_name = {name: t for (name, _, _, _), t in zip(group, times)}
        for (name, _, _, ours), t in zip(group, times):
            per = f"{t * 1e6:.2f} us" if t < 1e-3 else f"{t * 1e3:.3f} ms"
            ratio = f"{t / by_name[ours]:6.2f}x" if ours in by_name else ""
            print(f"{name:38} {_label(n):>8} {per:>12} {n / t / 1e9:8.2f} {ratio:>7}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
