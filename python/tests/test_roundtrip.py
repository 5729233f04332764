"""Round trips with hypothesis on every class, every data argument given as
bytes, bytearray, memoryview (also of a slice) or a NumPy array; the result
must not depend on the buffer type."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blockmodes
from blockmodes import hazmat

settings.register_profile(
    "blockmodes", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("blockmodes")

KINDS = ["bytes", "bytearray", "memoryview", "memoryview-slice", "numpy-u8", "numpy-u32"]


def wrap(data: bytes, kind: str):
    """``data`` as a buffer of the given kind (same bytes)."""
    if kind == "bytes":
        return bytes(data)
    if kind == "bytearray":
        return bytearray(data)
    if kind == "memoryview":
        return memoryview(bytearray(data))
    if kind == "memoryview-slice":  # a view at an odd offset into a larger buffer
        return memoryview(b"\xaa" * 3 + data + b"\x55" * 5)[3 : 3 + len(data)]
    if kind == "numpy-u8":
        return np.frombuffer(data, dtype=np.uint8).copy()
    if kind == "numpy-u32":  # a multi-byte dtype where the length allows it
        if len(data) % 4 == 0:
            return np.frombuffer(data, dtype="<u4").copy()
        return np.frombuffer(data, dtype=np.uint8).copy()
    raise AssertionError(kind)


kinds = st.sampled_from(KINDS)
data = st.binary(max_size=3000)


def key(n):
    return st.binary(min_size=n, max_size=n)


aes_keys = st.one_of(key(16), key(24), key(32))


def flip(b: bytes, i: int) -> bytes:
    b = bytearray(b)
    b[i % len(b)] ^= 1 << (i % 8)
    return bytes(b)


@given(aes_keys, key(16), data, st.integers(1, 16), kinds, st.integers(0, 10**6))
def test_ocb1(k, nonce, msg, t, kind, i):
    # tags of any length: the hazmat form; 8..=16 bytes: the main class too
    ocb = hazmat.OCB1(wrap(k, kind), tag_length=t)
    sealed = ocb.encrypt(wrap(nonce, kind), wrap(msg, kind))
    assert isinstance(sealed, bytes) and len(sealed) == len(msg) + t
    assert sealed == blockmodes.OCB1(k).encrypt(nonce, msg)[: len(msg) + t]
    if t >= 8:
        assert sealed == blockmodes.OCB1(k, t).encrypt(nonce, msg)
    assert ocb.decrypt(wrap(nonce, kind), wrap(sealed, kind)) == msg
    if t >= 8:  # a t-byte tag is forged by chance with probability 2^-8t
        with pytest.raises(blockmodes.InvalidTag):
            ocb.decrypt(nonce, flip(sealed, i))


@given(aes_keys, key(11), data, st.binary(max_size=300), st.integers(1, 16), kinds, st.integers(0, 10**6))
def test_cwc(k, nonce, msg, ad, t, kind, i):
    cwc = hazmat.CWC(wrap(k, kind), tag_length=t)
    ct = cwc.encrypt(wrap(nonce, kind), wrap(msg, kind), wrap(ad, kind))
    assert ct == blockmodes.CWC(k).encrypt(nonce, msg, ad)[: len(msg) + t]
    if t >= 8:
        assert ct == blockmodes.CWC(k, t).encrypt(nonce, msg, ad)
    assert cwc.decrypt(nonce, wrap(ct, kind), wrap(ad, kind)) == msg
    if t >= 8:  # a t-byte tag is forged by chance with probability 2^-8t
        with pytest.raises(blockmodes.InvalidTag):
            cwc.decrypt(nonce, flip(ct, i), ad)
        with pytest.raises(blockmodes.InvalidTag):
            cwc.decrypt(nonce, ct, ad + b"x")


@given(st.one_of(key(32), key(48), key(64)), st.booleans(), data, kinds, st.integers(0, 10**6))
def test_xcbc_xor(k, one_key, msg, kind, i):
    if one_key:
        k = k[: len(k) // 2]
    x = blockmodes.XCBCXor(wrap(k, kind), one_key=one_key)
    ct = x.encrypt(wrap(msg, kind))
    assert len(ct) == 16 * (len(msg) // 16 + 3)
    assert x.encrypt(msg) != ct  # fresh r0 each call
    assert x.decrypt(wrap(ct, kind)) == msg
    with pytest.raises(blockmodes.InvalidTag):
        x.decrypt(flip(ct, i))
    r0 = bytes(range(16))
    assert hazmat.encrypt_with_r0(x, wrap(r0, kind), wrap(msg, kind)) == hazmat.encrypt_with_r0(
        x, r0, msg
    )


@given(st.one_of(key(32), key(64)), st.booleans(), st.integers(1, 40), data, kinds, st.integers(0, 10**6))
def test_pxcbc_xor(k, one_key, s, msg, kind, i):
    if one_key:
        k = k[: len(k) // 2]
    p = blockmodes.PXCBCXor(wrap(k, kind), segment_blocks=s, one_key=one_key)
    assert p.segment_blocks == s
    ct = p.encrypt(wrap(msg, kind))
    assert p.decrypt(wrap(ct, kind)) == msg
    with pytest.raises(blockmodes.InvalidTag):
        p.decrypt(flip(ct, i))


@given(aes_keys, data, st.integers(1, 16), kinds, st.lists(st.integers(0, 3000), max_size=5))
def test_pmac(k, msg, t, kind, cuts):
    tag = hazmat.PMAC(wrap(k, kind), t).mac(wrap(msg, kind))
    if t >= 8:
        assert tag == blockmodes.PMAC(k, tag_length=t).mac(msg) and len(tag) == t
    p = hazmat.PMAC(wrap(k, kind), t)
    prev = 0
    for c in sorted(c % (len(msg) + 1) for c in cuts) + [len(msg)]:
        p.update(wrap(msg[prev:c], kind))
        prev = c
    p.copy().verify(wrap(tag, kind))
    assert p.finalize() == tag


@given(aes_keys, data, kinds, st.integers(0, 10**6))
def test_xecb_mac(k, msg, kind, i):
    m = blockmodes.XECBMAC(wrap(k, kind))
    tag = m.mac(wrap(msg, kind))
    assert len(tag) == 32 and m.mac(msg) != tag
    m.verify(wrap(msg, kind), wrap(tag, kind))
    with pytest.raises(blockmodes.InvalidSignature):
        m.verify(msg, flip(tag, i))
    if msg:
        with pytest.raises(blockmodes.InvalidSignature):
            m.verify(flip(msg, i), tag)


DISK_KEYS = {"ete": [16], "eme": [16, 24, 32], "xex": [16, 24, 32], "eme2": [48, 64]}


@st.composite
def disks(draw):
    cipher = draw(st.sampled_from(sorted(DISK_KEYS)))
    k = draw(key(draw(st.sampled_from(DISK_KEYS[cipher]))))
    size = draw(st.sampled_from([16, 512, 2048, 4096] + ([48] if cipher != "eme2" else [4112])))
    n = draw(st.integers(1, 4))
    return cipher, k, size, n


@given(disks(), st.integers(0, 2**64 - 5), kinds, st.randoms(use_true_random=False))
def test_disk(d, first, kind, rnd):
    cipher, k, size, n = d
    disk = blockmodes.Disk(cipher, wrap(k, kind), sector_size=size)
    assert disk.sector_size == size
    image = rnd.randbytes(size * n)
    enc = disk.encrypt_sectors(first, wrap(image, kind))
    assert len(enc) == len(image) and enc != image
    assert disk.decrypt_sectors(first, wrap(enc, kind)) == image
    # sector by sector gives the same bytes
    assert b"".join(
        disk.encrypt_sectors(first + j, image[j * size : (j + 1) * size]) for j in range(n)
    ) == enc


@given(
    st.sampled_from(["EME", "EtE", "EME2"]),
    st.integers(1, 128),
    st.binary(max_size=40),
    kinds,
    st.randoms(use_true_random=False),
)
def test_wide(name, blocks, tweak, kind, rnd):
    cls = getattr(blockmodes, name)
    k = rnd.randbytes({"EME": 32, "EtE": 16, "EME2": 64}[name])
    if name == "EME2":
        msg = rnd.randbytes(16 + rnd.randrange(3000))
    else:
        msg = rnd.randbytes(16 * blocks)
        tweak = rnd.randbytes(16)
    c = cls(wrap(k, kind))
    ct = c.encrypt(wrap(tweak, kind), wrap(msg, kind))
    assert len(ct) == len(msg)
    assert c.decrypt(wrap(tweak, kind), wrap(ct, kind)) == msg


@given(st.sampled_from(["XEX", "StE"]), key(16), key(16), st.integers(1, 2**64 - 1), key(16), kinds)
def test_tweakable(name, k, n, i, block, kind):
    if name == "StE" and n == bytes(15) + b"\x01" and i == 1:
        return  # the reserved tweak
    c = getattr(blockmodes, name)(wrap(k, kind))
    ct = c.encrypt(wrap(n, kind), i, wrap(block, kind))
    assert c.decrypt(n, i, ct) == block


@given(st.sampled_from(["XCBC", "XCBCXorStateful", "XCBCStateful", "PXCBCXorStateful"]), key(32), key(16), data, kinds)
def test_hazmat_xcbc(name, k, v, msg, kind):
    cls = getattr(hazmat, name)
    x = cls(wrap(k, kind))
    if name == "XCBC":
        ct = x.encrypt_with_r0(wrap(v, kind), wrap(msg, kind))
        assert x.decrypt(x.encrypt(msg)) == msg
    else:
        ct = x.encrypt_with_counter(wrap(v, kind), wrap(msg, kind))
        assert ct[:16] == v
    assert x.decrypt(wrap(ct, kind)) == msg


@given(aes_keys, key(16), data, kinds)
def test_hazmat_xecb(k, ctr, msg, kind):
    m = hazmat.XECBMACStateful(wrap(k, kind))
    tag = m.mac_with_counter(wrap(ctr, kind), wrap(msg, kind))
    assert tag[:16] == ctr
    m.verify(wrap(msg, kind), tag)
