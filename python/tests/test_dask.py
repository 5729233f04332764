"""blockmodes.dask.pmac_file on a LocalCluster with 2 worker processes equals
PMAC.mac of the file's bytes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import blockmodes

distributed = pytest.importorskip("distributed")
from blockmodes.dask import pmac_file  # noqa: E402

pytestmark = pytest.mark.slow

KEY = bytes(range(16))


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as c:
        yield c


def _file(tmp_path, data: bytes):
    p = tmp_path / "data.bin"
    p.write_bytes(data)
    return p


def test_64_mib_file(client, tmp_path):
    data = os.urandom(64 * 2**20)
    p = _file(tmp_path, data)
    assert pmac_file(KEY, p, client=client, chunk_bytes=8 * 2**20) == blockmodes.PMAC(KEY).mac(data)
    # the default chunk (64 MiB: one task for the body)
    assert pmac_file(KEY, str(p), client=client) == blockmodes.PMAC(KEY).mac(data)


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 32, 1000, 4096, 100_003])
@pytest.mark.parametrize("chunk", [16, 1000, 4096])
def test_sizes_and_chunks(client, tmp_path, size, chunk):
    if chunk == 16 and size > 4096:
        # 6,250 one-block tasks: 2.5 min of scheduler overhead for nothing
        # that chunk=16 on 4096 bytes (256 tasks) does not already cover.
        pytest.skip("chunk=16 is covered up to 4096 bytes")
    data = os.urandom(size)
    p = _file(tmp_path, data)
    for t in (16, 8):
        assert pmac_file(KEY, p, client=client, chunk_bytes=chunk, tag_length=t) == blockmodes.PMAC(
            KEY, t
        ).mac(data)


def test_current_client_and_aes256(client, tmp_path):
    data = os.urandom(3 * 2**20 + 9)
    p = _file(tmp_path, data)
    key = bytes(32)
    with client.as_current():
        assert pmac_file(key, p, chunk_bytes=2**20) == blockmodes.PMAC(key).mac(data)


def test_errors(client, tmp_path):
    p = _file(tmp_path, b"abc")
    with pytest.raises(ValueError, match="16, 24 or 32"):
        pmac_file(bytes(15), p, client=client)
    with pytest.raises(ValueError, match="8..=16"):
        pmac_file(KEY, p, client=client, tag_length=17)
    with pytest.raises(ValueError, match="chunk_bytes"):
        pmac_file(KEY, p, client=client, chunk_bytes=8)
    with pytest.raises(TypeError, match="chunk_bytes"):
        pmac_file(KEY, p, client=client, chunk_bytes=1.5)
    with pytest.raises(FileNotFoundError):
        pmac_file(KEY, tmp_path / "missing", client=client)


def test_too_many_tasks_refused(tmp_path):
    """chunk_bytes=16 on a 1.6 MB body is 100,001 tasks: refused before any
    task is sent (no client is touched)."""
    p = _file(tmp_path, bytes(1_600_017))  # body: 1,600,016 bytes
    with pytest.raises(ValueError, match=r"100001 tasks.*chunk_bytes >= 32"):
        pmac_file(KEY, p, client=object(), chunk_bytes=16)
    with pytest.raises(ValueError, match="more than 100000"):
        pmac_file(KEY, p, client=object(), chunk_bytes=31)  # rounded down to 16


def test_readme_dask_example_runs_as_a_script(tmp_path):
    """The README's Dask example, saved as a file and run with python: it
    starts a LocalCluster with worker processes, so it must be a proper
    script (``if __name__ == "__main__":``)."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "dask" in b]
    assert len(blocks) == 1
    script = tmp_path / "example.py"
    script.write_text(blocks[0])
    r = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.fullmatch(r"[0-9a-f]{32}", r.stdout.strip().splitlines()[-1])
