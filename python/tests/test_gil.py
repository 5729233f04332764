"""The GIL is released while the library works: two threads on 64 MiB each
finish in clearly less than twice one thread's time (on a machine with at
least two free cores), and a Python thread keeps running during a call."""

from __future__ import annotations

import os
import threading
import time

import pytest

import blockmodes

MIB64 = 64 * 2**20
# "Clearly less than twice": two threads on two cores take at most 1.6 times
# one thread's time (1.0 ideally; memory bandwidth and a shared machine
# take some of it).
LIMIT = float(os.environ.get("BLOCKMODES_GIL_RATIO", "1.6"))

pytestmark = pytest.mark.slow


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _run_threads(fns) -> float:
    ts = [threading.Thread(target=f) for f in fns]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def _run_threads_cpu(fns) -> tuple[float, float]:
    """(wall time, process CPU time) of running ``fns`` in threads."""
    c0 = time.process_time()
    wall = _run_threads(fns)
    return wall, time.process_time() - c0


@pytest.mark.skipif(_cores() < 2, reason="needs two cores")
@pytest.mark.parametrize("name", ["OCB1", "CWC"])
def test_two_threads_in_parallel(name):
    key = bytes(range(16))
    c = getattr(blockmodes, name)(key)
    nonce = bytes(16 if name == "OCB1" else 11)
    a, b = os.urandom(MIB64), os.urandom(MIB64)
    c.encrypt(nonce, a[: 2**20])  # warm up
    ratios, overlap = [], []
    # The machine may be shared with other jobs: take the best of up to
    # eight attempts (with the GIL held the ratio is 2 or more every time).
    for _ in range(8):
        one = _run_threads([lambda: c.encrypt(nonce, a)])
        two, cpu = _run_threads_cpu([lambda: c.encrypt(nonce, a), lambda: c.encrypt(nonce, b)])
        ratios.append(two / one)
        # CPU time over wall time: how many threads ran at once (at most
        # about 1 with the GIL held, whatever the load).
        overlap.append(cpu / two)
        if two / one < LIMIT:
            break
    print(
        f"{name}: two threads / one thread = {min(ratios):.2f} "
        f"({[round(r, 2) for r in ratios]}; threads at once {[round(o, 2) for o in overlap]})"
    )
    if min(ratios) >= LIMIT:
        # Inconclusive on a shared machine, in two cases (a held GIL gives
        # about 1.0 on an idle machine, and fails below):
        if max(overlap) >= 1.3:
            pytest.skip(
                f"the threads ran concurrently (CPU/wall up to {max(overlap):.2f}: the GIL was "
                f"released) but the machine was too busy for the wall-time check"
            )
        if max(overlap) < 0.9:
            pytest.skip(
                f"the machine is oversubscribed: this process never had one full core "
                f"(CPU/wall at most {max(overlap):.2f}); the wall-time check cannot be made"
            )
    assert min(ratios) < LIMIT, (ratios, overlap)


def test_python_thread_runs_during_a_call():
    """Independent of the core count: a pure-Python counter advances while
    one long call runs (it could not if the call held the GIL)."""
    ocb = blockmodes.OCB1(bytes(16))
    data = os.urandom(MIB64)
    ticks = []
    stop = threading.Event()
    started = threading.Event()

    def call():
        started.set()
        for _ in range(3):
            ocb.encrypt(bytes(16), data)
        stop.set()

    t = threading.Thread(target=call)
    t.start()
    started.wait()
    before = len(ticks)
    while not stop.is_set():
        ticks.append(time.perf_counter())
    t.join()
    # With the GIL held through each call, the loop would get at most a few
    # switch intervals' worth of iterations between calls.
    assert len(ticks) - before > 10_000, len(ticks)


def test_shared_pmac_object_across_threads():
    """Concurrent update calls on one PMAC take turns (no RuntimeError, no
    lost data); partial/mac run alongside."""
    key = bytes(16)
    chunk = os.urandom(4 * 2**20)
    p = blockmodes.PMAC(key)
    errors = []

    def feed():
        try:
            for _ in range(4):
                p.update(chunk)  # identical chunks: the order does not matter
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def side():
        try:
            for i in range(20):
                p.partial(1 + i, chunk[:4096])
                blockmodes.PMAC.mac(key, chunk[:65536])
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    _run_threads([feed, feed, side])
    assert not errors, errors
    assert p.finalize() == blockmodes.PMAC.mac(key, chunk * 8)
