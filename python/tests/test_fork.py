"""A forked child (``os.fork``, ``multiprocessing``'s "fork" start method,
the default on Linux before Python 3.14) can use the multi-core paths
after the parent did: they ran on rayon's global pool, whose threads do not
exist in the child, and the child's first large PMAC, XECB-MAC, pXCBC or
sector call waited for them forever. The library now gives a child forked
after its parent ran them a pool of its own (`blockmodes` `par::install`)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, warnings
    warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads
    import blockmodes as bm

    big = bytes(range(256)) * 4096 * 4          # 4 MiB: above every parallel threshold
    k16, k32, k48 = bytes(range(16)), bytes(range(32)), bytes(range(48))

    def work():
        p = bm.PMAC(k16)
        x = bm.XECBMAC(k16)
        px = bm.PXCBCXor(k32, segment_blocks=16)
        sealed = [bm.Disk(c, k, 4096).encrypt_sectors(3, big)
                  for c, k in (("xex", k16), ("eme", k16), ("ete", k16), ("eme2", k48))]
        x.verify(big, x.mac(big))
        assert px.decrypt(px.encrypt(big)) == big
        return p.mac(big), sealed

    def level(depth):
        mine = work()
        if depth == 0:
            return
        pid = os.fork()
        if pid == 0:
            signal.alarm(60)                     # a hang ends the child, not the test run
            assert work() == mine
            level(depth - 1)                     # and a fork of the fork
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            print("child failed:", status, flush=True)
            os._exit(1)

    s = bm.PMAC(k16)
    s.update(big)                                # the serial path, for the value
    assert bm.PMAC(k16).mac(big) == s.finalize()
    level(2)
    print("ok")
    """
)


def test_parallel_paths_after_fork():
    r = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.stdout, r.stderr)
