"""Errors: every constructor and method with a wrong length, a wrong type,
an empty or an oversize input raises ValueError (naming the expected sizes),
TypeError, or the authentication exception; never anything else, and never
a PanicException (a BaseException) from the Rust side."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import blockmodes as bm
from blockmodes import hazmat

K16, K32, K48 = bytes(16), bytes(32), bytes(48)


def test_exception_hierarchy():
    assert issubclass(bm.Error, Exception)
    for e in (bm.InvalidTag, bm.InvalidSignature, bm.AlreadyFinalized):
        assert issubclass(e, bm.Error)
    assert not issubclass(bm.InvalidTag, ValueError)


# (callable, exception, a fragment the message must contain)
CASES = [
    # keys: wrong lengths name the lengths accepted
    (lambda: bm.OCB1(bytes(15)), ValueError, "16, 24 or 32"),
    (lambda: bm.OCB1(b""), ValueError, "16, 24 or 32"),
    (lambda: bm.CWC(bytes(33)), ValueError, "16, 24 or 32"),
    (lambda: bm.XCBCXor(K16), ValueError, "32, 48 or 64"),
    (lambda: bm.XCBCXor(bytes(33)), ValueError, "32, 48 or 64"),
    (lambda: bm.XCBCXor(K48, one_key=True), ValueError, "16, 24 or 32"),
    (lambda: bm.PXCBCXor(bytes(40)), ValueError, "32, 48 or 64"),
    (lambda: bm.PMAC(bytes(17)), ValueError, "16, 24 or 32"),
    (lambda: bm.PMAC(bytes(8)).mac(b""), ValueError, "16, 24 or 32"),
    (lambda: bm.XECBMAC(bytes(20)), ValueError, "16, 24 or 32"),
    (lambda: bm.Disk("ete", K32), ValueError, "16"),
    (lambda: bm.Disk("eme", bytes(20)), ValueError, "16, 24 or 32"),
    (lambda: bm.Disk("xex", bytes(64)), ValueError, "16, 24 or 32"),
    (lambda: bm.Disk("eme2", K32), ValueError, "48 or 64"),
    (lambda: bm.EME(bytes(8)), ValueError, "16, 24 or 32"),
    (lambda: bm.EtE(K32), ValueError, "16"),
    (lambda: bm.EME2(K32), ValueError, "48 or 64"),
    (lambda: bm.XEX(bytes(12)), ValueError, "16, 24 or 32"),
    (lambda: bm.StE(bytes(24)), ValueError, "16"),
    (lambda: hazmat.XCBC(K16), ValueError, "32, 48 or 64"),
    (lambda: hazmat.XCBCXorStateful(K16), ValueError, "32, 48 or 64"),
    (lambda: hazmat.XCBCStateful(K16), ValueError, "32, 48 or 64"),
    (lambda: hazmat.PXCBCXorStateful(K16), ValueError, "32, 48 or 64"),
    (lambda: hazmat.XECBMACStateful(K32 + K16), ValueError, "16, 24 or 32"),
    # tag lengths
    (lambda: bm.OCB1(K16, 0), ValueError, "8..=16"),
    (lambda: bm.OCB1(K16, tag_length=17), ValueError, "8..=16"),
    (lambda: bm.CWC(K16, -1), ValueError, "8..=16"),
    (lambda: bm.PMAC(K16, 17), ValueError, "8..=16"),
    (lambda: bm.PMAC(K16, 0).mac(b""), ValueError, "8..=16"),
    (lambda: bm.OCB1(K16, 2**70), ValueError, "8..=16"),
    # short tags: only in blockmodes.hazmat, which takes 1..=16
    (lambda: bm.OCB1(K16, 7), ValueError, "blockmodes.hazmat.OCB1"),
    (lambda: bm.CWC(K16, tag_length=1), ValueError, "blockmodes.hazmat.CWC"),
    (lambda: bm.PMAC(K16, 4), ValueError, "blockmodes.hazmat.PMAC"),
    (lambda: hazmat.OCB1(K16, 0), ValueError, "1..=16"),
    (lambda: hazmat.CWC(K16, 17), ValueError, "1..=16"),
    (lambda: hazmat.PMAC(K16, tag_length=17), ValueError, "1..=16"),
    # nonces, tweaks, blocks, r0, counters
    (lambda: bm.OCB1(K16).encrypt(bytes(15), b"x"), ValueError, "16 bytes"),
    (lambda: bm.OCB1(K16).decrypt(bytes(17), bytes(32)), ValueError, "16 bytes"),
    (lambda: bm.CWC(K16).encrypt(bytes(12), b"x"), ValueError, "11 bytes"),
    (lambda: bm.CWC(K16).decrypt(b"", bytes(32)), ValueError, "11 bytes"),
    (lambda: bm.EME(K16).encrypt(bytes(15), bytes(16)), ValueError, "16 bytes"),
    (lambda: bm.EtE(K16).decrypt(bytes(17), bytes(16)), ValueError, "16 bytes"),
    (lambda: bm.XEX(K16).encrypt(bytes(15), 1, bytes(16)), ValueError, "16 bytes"),
    (lambda: bm.XEX(K16).encrypt(bytes(16), 1, bytes(15)), ValueError, "16 bytes"),
    (lambda: bm.XEX(K16).decrypt(bytes(16), 1, bytes(32)), ValueError, "16 bytes"),
    (lambda: bm.StE(K16).encrypt(bytes(16), 1, b""), ValueError, "16 bytes"),
    (lambda: bm.XEX(K16).encrypt(bytes(16), 0, bytes(16)), ValueError, ">= 1"),
    (lambda: bm.XEX(K16).encrypt(bytes(16), 2**64, bytes(16)), ValueError, "2**64"),
    (lambda: bm.StE(K16).encrypt(bytes(15) + b"\x01", 1, bytes(16)), ValueError, "reserved"),
    (lambda: hazmat.encrypt_with_r0(bm.XCBCXor(K32), bytes(15), b""), ValueError, "16 bytes"),
    (lambda: hazmat.mac_with_r0(bm.XECBMAC(K16), bytes(17), b""), ValueError, "16 bytes"),
    (lambda: hazmat.XCBCXorStateful(K32).encrypt_with_counter(b"", b""), ValueError, "16 bytes"),
    (lambda: hazmat.XECBMACStateful(K16).mac_with_counter(bytes(8), b""), ValueError, "16 bytes"),
    # data: empty or oversize where refused
    (lambda: bm.EME(K16).encrypt(bytes(16), b""), ValueError, "16..=2048"),
    (lambda: bm.EME(K16).encrypt(bytes(16), bytes(2064)), ValueError, "16..=2048"),
    (lambda: bm.EME(K16).decrypt(bytes(16), bytes(17)), ValueError, "multiples of 16"),
    (lambda: bm.EtE(K16).encrypt(bytes(16), bytes(4096)), ValueError, "2048"),
    (lambda: bm.EME2(K48).encrypt(b"", bytes(15)), ValueError, "at least 16"),
    (lambda: bm.EME2(K48).decrypt(b"t", b""), ValueError, "at least 16"),
    (lambda: bm.Disk("xex", K16).encrypt_sectors(0, b""), ValueError, "512-byte sectors"),
    (lambda: bm.Disk("eme", K16).encrypt_sectors(0, bytes(700)), ValueError, "512-byte sectors"),
    (lambda: bm.Disk("ete", K16, 4096).decrypt_sectors(0, bytes(512)), ValueError, "4096-byte"),
    (lambda: bm.Disk("xex", K16).encrypt_sectors(2**64 - 1, bytes(1024)), ValueError, "overflow"),
    (lambda: bm.Disk("xex", K16).encrypt_sectors(-1, bytes(512)), ValueError, "2**64"),
    (lambda: bm.Disk("xex", K16, 100), ValueError, "multiples of 16"),
    (lambda: bm.Disk("xex", K16, 0), ValueError, "multiples of 16"),
    (lambda: bm.Disk("xex", K16, 8192), ValueError, "4096"),
    (lambda: bm.Disk("eme2", K48, 65536 + 16), ValueError, "65536"),
    (lambda: bm.Disk("aes", K16), ValueError, '"ete", "eme", "xex" or "eme2"'),
    (lambda: bm.PXCBCXor(K32, segment_blocks=0), ValueError, "1..=4294967295"),
    (lambda: bm.PXCBCXor(K32, segment_blocks=2**32), ValueError, "1..=4294967295"),
    (lambda: bm.PMAC(K16).partial(1, bytes(15)), ValueError, "16"),
    (lambda: bm.PMAC(K16).finish(bm.PMACPartial(), bytes(17)), ValueError, "16"),
    # wrong types
    (lambda: bm.OCB1("0" * 16), TypeError, "bytes-like"),
    (lambda: bm.OCB1(K16, "16"), TypeError, "int"),
    (lambda: bm.OCB1(K16, 16.0), TypeError, "int"),
    (lambda: bm.OCB1(K16, True), TypeError, "int"),
    (lambda: bm.OCB1(K16).encrypt(bytes(16), "text"), TypeError, "bytes-like"),
    (lambda: bm.OCB1(K16).encrypt(bytes(16), None), TypeError, "bytes-like"),
    (lambda: bm.OCB1(K16).encrypt(list(range(16)), b""), TypeError, "bytes-like"),
    (lambda: bm.CWC(K16).encrypt(bytes(11), b"", "ad"), TypeError, "bytes-like"),
    (lambda: bm.XCBCXor(K32).encrypt(12), TypeError, "bytes-like"),
    (lambda: bm.XCBCXor(K32, one_key="no"), TypeError, ""),
    (lambda: bm.PXCBCXor(K32, segment_blocks=1.5), TypeError, "int"),
    (lambda: bm.PMAC(K16).update("text"), TypeError, "bytes-like"),
    (lambda: bm.PMAC(K16).verify(None), TypeError, "bytes-like"),
    (lambda: bm.PMAC(K16).mac(3), TypeError, "bytes-like"),
    (lambda: bm.XECBMAC(K16).verify(b"", "tag"), TypeError, "bytes-like"),
    (lambda: bm.Disk(b"xex", K16), TypeError, "str"),
    (lambda: bm.Disk("xex", K16, "512"), TypeError, "int"),
    (lambda: bm.Disk("xex", K16).encrypt_sectors("0", bytes(512)), TypeError, "int"),
    (lambda: bm.Disk("xex", K16).encrypt_sectors(0.0, bytes(512)), TypeError, "int"),
    (lambda: bm.XEX(K16).encrypt(bytes(16), "1", bytes(16)), TypeError, "int"),
    (lambda: bm.EME2(K48).encrypt(None, bytes(16)), TypeError, "bytes-like"),
    (lambda: hazmat.encrypt_with_r0(bm.OCB1(K16), bytes(16), b""), TypeError, "XCBCXor"),
    (lambda: hazmat.mac_with_r0(bm.PMAC(K16), bytes(16), b""), TypeError, "XECBMAC"),
    # a non-contiguous NumPy view is refused (no silent copy of strided data)
    (
        lambda: bm.PMAC(K16).mac(np.zeros((4, 4), dtype=np.uint8)[:, ::2]),
        TypeError,
        "contiguous",
    ),
    # authentication failures
    (lambda: bm.OCB1(K16).decrypt(bytes(16), bytes(15)), bm.InvalidTag, ""),
    (lambda: bm.OCB1(K16).decrypt(bytes(16), bytes(40)), bm.InvalidTag, ""),
    (lambda: bm.CWC(K16).decrypt(bytes(11), b""), bm.InvalidTag, ""),
    (lambda: bm.XCBCXor(K32).decrypt(b""), bm.InvalidTag, ""),
    (lambda: bm.XCBCXor(K32).decrypt(bytes(47)), bm.InvalidTag, ""),
    (lambda: bm.XCBCXor(K32).decrypt(bytes(64)), bm.InvalidTag, ""),
    (lambda: bm.PXCBCXor(K32).decrypt(bytes(80)), bm.InvalidTag, ""),
    (lambda: bm.XECBMAC(K16).verify(b"", bytes(31)), bm.InvalidSignature, ""),
    (lambda: bm.XECBMAC(K16).verify(b"", bytes(32)), bm.InvalidSignature, ""),
    (lambda: hazmat.XECBMACStateful(K16).verify(b"x", bytes(32)), bm.InvalidSignature, ""),
    (lambda: bm.PMAC(K16).verify(b""), bm.InvalidSignature, ""),
    (lambda: bm.PMAC(K16).verify(bytes(16)), bm.InvalidSignature, ""),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_error_case(i):
    fn, exc, fragment = CASES[i]
    with pytest.raises(exc) as info:
        fn()
    assert fragment in str(info.value), str(info.value)


def test_already_finalized():
    for finish in ("finalize", "verify"):
        p = bm.PMAC(K16)
        p.update(b"abc")
        if finish == "finalize":
            p.finalize()
        else:
            with pytest.raises(bm.InvalidSignature):
                p.verify(bytes(16))
        for call in (lambda: p.update(b""), p.finalize, lambda: p.verify(bytes(16)), p.copy):
            with pytest.raises(bm.AlreadyFinalized):
                call()


def test_failed_decrypt_leaves_input_untouched():
    ocb = bm.OCB1(K16)
    ct = bytearray(ocb.encrypt(bytes(16), b"secret data here"))
    ct[0] ^= 1
    before = bytes(ct)
    with pytest.raises(bm.InvalidTag):
        ocb.decrypt(bytes(16), ct)
    assert bytes(ct) == before


def test_results_are_bytes_and_inputs_not_modified():
    msg = bytearray(b"m" * 100)
    for out in (
        bm.OCB1(K16).encrypt(bytes(16), msg),
        bm.CWC(K16).encrypt(bytes(11), msg, msg),
        bm.XCBCXor(K32).encrypt(msg),
        bm.PMAC(K16).mac(msg),
        bm.EME2(K48).encrypt(msg, msg),
    ):
        assert type(out) is bytes
    assert msg == b"m" * 100


def test_repr_hides_keys():
    for obj in (bm.OCB1(b"k" * 16), bm.PMAC(b"k" * 16), bm.Disk("xex", b"k" * 16), bm.EME(b"k" * 16)):
        assert "kkkk" not in repr(obj) and "6b6b" not in repr(obj)


def test_version():
    """__version__ is the Rust crate's version (python/Cargo.toml has its own
    workspace, so it repeats the root workspace's version: keep them equal)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "Cargo.toml"
    m = re.search(r'\[workspace\.package\][^\[]*?version\s*=\s*"([^"]+)"', root.read_text())
    assert m, "no [workspace.package] version in the root Cargo.toml"
    assert bm.__version__ == m.group(1)


ALLOWED = (ValueError, TypeError, OverflowError, bm.Error)

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.binary(max_size=80),
    st.lists(st.integers(0, 255), max_size=4),
)

FACTORIES = [
    lambda a: bm.OCB1(*a[:2]),
    lambda a: bm.CWC(*a[:2]),
    lambda a: bm.XCBCXor(*a[:1]),
    lambda a: bm.PXCBCXor(*a[:2]),
    lambda a: bm.PMAC(*a[:2]),
    lambda a: bm.PMAC(*a[:2]).mac(*a[2:3]),
    lambda a: bm.XECBMAC(*a[:1]),
    lambda a: bm.Disk(*a[:3]),
    lambda a: bm.EME(*a[:1]),
    lambda a: bm.EtE(*a[:1]),
    lambda a: bm.EME2(*a[:1]),
    lambda a: bm.XEX(*a[:1]),
    lambda a: bm.StE(*a[:1]),
    lambda a: bm.PMACPartial(*a[:1]),
    lambda a: hazmat.XCBC(*a[:1]),
    lambda a: hazmat.PXCBCXorStateful(*a[:2]),
    lambda a: hazmat.XECBMACStateful(*a[:1]),
]

OBJECTS = [
    bm.OCB1(K16),
    bm.CWC(K16),
    bm.XCBCXor(K32),
    bm.PXCBCXor(K32, 2),
    bm.XECBMAC(K16),
    bm.Disk("eme", K16, 16),
    bm.Disk("eme2", K48, 32),
    bm.EME(K16),
    bm.EtE(K16),
    bm.EME2(K48),
    bm.XEX(K16),
    bm.StE(K16),
    bm.PMACPartial(),
    hazmat.XCBC(K32),
    hazmat.XCBCXorStateful(K32),
    hazmat.XECBMACStateful(K16),
]


@given(st.sampled_from(range(len(FACTORIES))), st.lists(junk, min_size=0, max_size=3))
def test_junk_constructor_args(i, args):
    try:
        FACTORIES[i](args)
    except ALLOWED:
        pass


@given(
    st.sampled_from(range(len(OBJECTS) + 1)),
    st.sampled_from(
        [
            "encrypt",
            "decrypt",
            "mac",
            "verify",
            "encrypt_sectors",
            "decrypt_sectors",
            "update",
            "partial",
            "finish",
            "combine",
            "encrypt_with_r0",
            "encrypt_with_counter",
            "mac_with_counter",
            "generate_key",
            "encryptor",
        ]
    ),
    st.lists(junk, max_size=3),
)
def test_junk_method_args(i, name, args):
    """Any arguments to any method: only the documented exceptions (a Rust
    panic would surface as pyo3's PanicException, a BaseException)."""
    obj = OBJECTS[i] if i < len(OBJECTS) else bm.PMAC(K16)
    method = getattr(obj, name, None)
    if method is None:
        return
    try:
        method(*args)
    except ALLOWED:
        pass


@pytest.mark.parametrize("name", ["OCB1", "CWC"])
def test_encrypt_into_decrypt_into(name):
    n = 16 if name == "OCB1" else 11
    c = getattr(bm, name)(K16, 12)
    msg = bytes(range(100))
    out = bytearray(200)
    assert c.encrypt_into(bytes(n), msg, None, out) == 112
    assert bytes(out[:112]) == c.encrypt(bytes(n), msg) and out[112:] == bytes(88)
    pt = np.zeros(100, dtype=np.uint8)
    assert c.decrypt_into(bytes(n), out[:112], None, pt) == 100 and pt.tobytes() == msg
    with pytest.raises(ValueError, match="at least 112"):
        c.encrypt_into(bytes(n), msg, None, bytearray(111))
    with pytest.raises(ValueError, match="at least 100"):
        c.decrypt_into(bytes(n), out[:112], None, bytearray(99))
    with pytest.raises(TypeError, match="writable"):
        c.encrypt_into(bytes(n), msg, None, bytes(112))
    shared = bytearray(300)
    view = memoryview(shared)
    with pytest.raises(ValueError, match="overlap"):
        c.encrypt_into(bytes(n), view[:100], None, view[50:162])
    bad = bytearray(out[:112])
    bad[0] ^= 1
    dest = bytearray(b"\xff" * 100)
    with pytest.raises(bm.InvalidTag):
        c.decrypt_into(bytes(n), bad, None, dest)
    assert dest == bytes(100)  # no unauthenticated plaintext left behind
