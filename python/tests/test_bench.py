"""``python -m blockmodes.bench`` runs and shows its peers: cryptography's
AESOCB3, AESGCM and AES-XTS rows, each with the ratio of the blockmodes row
it is paired with, and the OpenSSL that cryptography runs on."""

import pytest

from blockmodes import bench

cryptography = pytest.importorskip("cryptography")


def test_bench_shows_the_peers_and_their_openssl(capsys):
    assert bench.main(["--sizes", "64,1024", "--repeat", "1", "--seconds", "0.001"]) == 0
    out = capsys.readouterr().out
    from cryptography.hazmat.backends.openssl import backend

    assert f"on {backend.openssl_version_text()}" in out.splitlines()[0]
    rows = {line[:38].strip(): line for line in out.splitlines() if line.startswith(("blockmodes ", "cryptography "))}
    for name in (
        "cryptography AESOCB3.encrypt",
        "cryptography AESGCM.encrypt",
        "cryptography AES-XTS-512",
        "cryptography AES-XTS-64",
    ):
        assert name in rows, out
        assert rows[name].rstrip().endswith("x"), rows[name]
    assert "blockmodes Disk xex-512" in rows


def test_xts_row_encrypts_each_unit_under_its_number():
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    key = bytes(range(32))
    data = bytes(range(256)) * 8  # four 512-byte units
    got = bench._xts_units(key, data, 512)()
    want = b"".join(
        Cipher(algorithms.AES(key), modes.XTS(i.to_bytes(16, "little"))).encryptor().update(data[512 * i : 512 * (i + 1)])
        for i in range(4)
    )
    assert got == want
    assert len(set(got[i : i + 512] for i in range(0, 2048, 512))) == 4
