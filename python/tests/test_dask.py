"""blockmodes.dask.pmac_file on a LocalCluster with 2 worker processes equals
PMAC.mac of the file's bytes."""

from __future__ import annotations

import os

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
    assert pmac_file(KEY, p, client=client, chunk_bytes=8 * 2**20) == blockmodes.PMAC.mac(KEY, data)
    # the default chunk (64 MiB: one task for the body)
    assert pmac_file(KEY, str(p), client=client) == blockmodes.PMAC.mac(KEY, data)


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 32, 1000, 4096, 100_003])
@pytest.mark.parametrize("chunk", [16, 1000, 4096])
def test_sizes_and_chunks(client, tmp_path, size, chunk):
    data = os.urandom(size)
    p = _file(tmp_path, data)
    for t in (16, 8):
        assert pmac_file(KEY, p, client=client, chunk_bytes=chunk, tag_length=t) == blockmodes.PMAC.mac(
            KEY, data, t
        )


def test_current_client_and_aes256(client, tmp_path):
    data = os.urandom(3 * 2**20 + 9)
    p = _file(tmp_path, data)
    key = bytes(32)
    with client.as_current():
        assert pmac_file(key, p, chunk_bytes=2**20) == blockmodes.PMAC.mac(key, data)


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
