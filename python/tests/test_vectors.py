"""Every vector file of the repository through the Python API, both
directions; `invalid` vectors must be refused with the right exception.

The expected values come only from the files (the papers' appendices,
libtomcrypt/Krovetz, and the independent Go reference in vectors/independent).
"""

from __future__ import annotations

import pytest

import blockmodes
from blockmodes import hazmat

from conftest import h, load, vector_files

FILES = vector_files()


def _xcbc_key(v: dict) -> tuple[bytes, bool]:
    """K ‖ K' for the two-key form; K alone (one_key=True) without key2."""
    if "key2" in v:
        return h(v["key"]) + h(v["key2"]), False
    return h(v["key"]), True


def _receiver(cls, key: bytes, v: dict, tag: bytes):
    """The receiver for `tag_size` (docs/spec/vectors.md: the tag length it is
    set up for; len(tag) without it). None for a `tag_size` outside 1..=16,
    which the constructor refuses: that counts as rejected. `cls` is the
    hazmat form (the papers' vectors have tags of 1 to 16 bytes)."""
    t = v.get("tag_size", len(tag))
    if v["result"] == "valid":
        assert t == len(tag)
    if not 1 <= t <= 16:
        with pytest.raises(ValueError, match="1..=16"):
            cls(key, t)
        return None
    return cls(key, t)


def check_ocb1(v: dict) -> None:
    key, nonce, msg, ct, tag = (h(v[k]) for k in ("key", "nonce", "msg", "ct", "tag"))
    ocb = _receiver(hazmat.OCB1, key, v, tag)
    if ocb is None:
        return
    if v["result"] == "valid":
        assert ocb.encrypt(nonce, msg) == ct + tag
        assert ocb.decrypt(nonce, ct + tag) == msg
    else:
        with pytest.raises(blockmodes.InvalidTag):
            ocb.decrypt(nonce, ct + tag)


def check_cwc(v: dict) -> None:
    key, nonce, ad, msg, ct, tag = (h(v[k]) for k in ("key", "nonce", "ad", "msg", "ct", "tag"))
    cwc = _receiver(hazmat.CWC, key, v, tag)
    if cwc is None:
        return
    if v["result"] == "valid":
        assert cwc.encrypt(nonce, msg, ad) == ct + tag
        assert cwc.decrypt(nonce, ct + tag, ad) == msg
        if not ad:
            assert cwc.encrypt(nonce, msg) == ct + tag
            assert cwc.decrypt(nonce, ct + tag, None) == msg
    else:
        with pytest.raises(blockmodes.InvalidTag):
            cwc.decrypt(nonce, ct + tag, ad)


def check_pmac(v: dict) -> None:
    key, msg, tag = h(v["key"]), h(v["msg"]), h(v["tag"])
    t = len(tag)
    if v["result"] == "valid":
        if t >= 8:  # the main class takes 8..=16-byte tags
            assert blockmodes.PMAC(key, t).mac(msg) == tag
        assert hazmat.PMAC(key, t).mac(msg) == tag
        p = hazmat.PMAC(key, t)
        # streaming, in uneven pieces
        for i in range(0, len(msg), 37):
            p.update(msg[i : i + 37])
        q = p.copy()
        assert p.finalize() == tag
        q.verify(tag)
        # partial sums: body blocks one by one, combined in reverse order
        body_len = 0 if not msg else (len(msg) - 1) // 16 * 16
        parts = [p.partial(1 + i // 16, msg[i : i + 16]) for i in range(0, body_len, 16)]
        acc = blockmodes.PMACPartial()
        for part in reversed(parts):
            acc = acc.combine(part)
        assert p.finish(acc, msg[body_len:]) == tag
    else:
        p = _receiver(hazmat.PMAC, key, v, tag)
        if p is None:
            return
        assert hazmat.PMAC(key, p.tag_length).mac(msg) != tag
        p.update(msg)
        with pytest.raises(blockmodes.InvalidSignature):
            p.verify(tag)


def check_xex(v: dict, cls=blockmodes.XEX) -> None:
    c = cls(h(v["key"]))
    n, i, pt, ct = h(v["tweak_n"]), v["tweak_i"], h(v["pt"]), h(v["ct"])
    assert len(pt) == len(ct) and len(pt) % 16 == 0
    for k in range(0, len(pt), 16):
        assert c.encrypt(n, i + k // 16, pt[k : k + 16]) == ct[k : k + 16]
        assert c.decrypt(n, i + k // 16, ct[k : k + 16]) == pt[k : k + 16]


def check_ste(v: dict) -> None:
    check_xex(v, blockmodes.StE)


def _wide(c, v: dict) -> None:
    tweak, pt, ct = h(v["tweak"]), h(v["pt"]), h(v["ct"])
    n = v.get("iterations", 1)
    if v.get("direction") == "decrypt":
        x = ct
        for _ in range(n):
            x = c.decrypt(tweak, x)
        assert x == pt
        if n == 1:
            assert c.encrypt(tweak, pt) == ct
    else:
        x = pt
        for _ in range(n):
            x = c.encrypt(tweak, x)
        assert x == ct
        if n == 1:
            assert c.decrypt(tweak, ct) == pt


def check_eme(v: dict) -> None:
    _wide(blockmodes.EME(h(v["key"])), v)


def check_eme2(v: dict) -> None:
    _wide(blockmodes.EME2(h(v["key"])), v)


def check_ete(v: dict) -> None:
    _wide(blockmodes.EtE(h(v["key"])), v)


def _xcbc(v: dict, enc, dec) -> None:
    msg, ct = h(v["msg"]), h(v["ct"])
    if v["result"] == "valid":
        assert enc(msg) == ct
        assert dec(ct) == msg
    else:
        with pytest.raises(blockmodes.InvalidTag):
            dec(ct)


def check_xcbc_xor(v: dict) -> None:
    key, one = _xcbc_key(v)
    x = blockmodes.XCBCXor(key, one_key=one)
    _xcbc(v, lambda m: hazmat.encrypt_with_r0(x, h(v["r0"]), m), x.decrypt)


def check_xcbc(v: dict) -> None:
    key, one = _xcbc_key(v)
    x = hazmat.XCBC(key, one_key=one)
    _xcbc(v, lambda m: hazmat.encrypt_with_r0(x, h(v["r0"]), m), x.decrypt)


def check_pxcbc_xor(v: dict) -> None:
    key, one = _xcbc_key(v)
    x = blockmodes.PXCBCXor(key, segment_blocks=v["segment_blocks"], one_key=one)
    _xcbc(v, lambda m: hazmat.encrypt_with_r0(x, h(v["r0"]), m), x.decrypt)


def check_xcbc_xor_ctr(v: dict) -> None:
    key, one = _xcbc_key(v)
    x = hazmat.XCBCXorStateful(key, one_key=one)
    _xcbc(v, lambda m: x.encrypt_with_counter(h(v["ctr"]), m), x.decrypt)


def check_xcbc_ctr(v: dict) -> None:
    key, one = _xcbc_key(v)
    x = hazmat.XCBCStateful(key, one_key=one)
    _xcbc(v, lambda m: x.encrypt_with_counter(h(v["ctr"]), m), x.decrypt)


def check_pxcbc_xor_ctr(v: dict) -> None:
    key, one = _xcbc_key(v)
    x = hazmat.PXCBCXorStateful(key, segment_blocks=v["segment_blocks"], one_key=one)
    _xcbc(v, lambda m: x.encrypt_with_counter(h(v["ctr"]), m), x.decrypt)


def check_xecb(v: dict) -> None:
    m = blockmodes.XECBMAC(h(v["key"]))
    msg, tag = h(v["msg"]), h(v["tag"])
    if v["result"] == "valid":
        assert hazmat.mac_with_r0(m, h(v["r0"]), msg) == tag
        m.verify(msg, tag)
    else:
        with pytest.raises(blockmodes.InvalidSignature):
            m.verify(msg, tag)


def check_xecb_ctr(v: dict) -> None:
    m = hazmat.XECBMACStateful(h(v["key"]))
    msg, tag = h(v["msg"]), h(v["tag"])
    if v["result"] == "valid":
        assert m.mac_with_counter(h(v["ctr"]), msg) == tag
        m.verify(msg, tag)
    else:
        with pytest.raises(blockmodes.InvalidSignature):
            m.verify(msg, tag)


def check_sectors(v: dict) -> None:
    d = blockmodes.Disk(v["cipher"], h(v["key"]), sector_size=int(v["sector_size"]))
    first, pt, ct = int(v["first_sector"]), h(v["pt"]), h(v["ct"])
    assert d.encrypt_sectors(first, pt) == ct
    assert d.decrypt_sectors(first, ct) == pt


CHECKS = {
    "ocb1-aes": check_ocb1,
    "cwc-aes": check_cwc,
    "pmac-aes": check_pmac,
    "xex-aes": check_xex,
    "ste-xex-aes": check_ste,
    "eme-aes": check_eme,
    "eme2-aes": check_eme2,
    "ete-eme-aes": check_ete,
    "xcbc-xor-aes": check_xcbc_xor,
    "xcbc-aes": check_xcbc,
    "pxcbc-xor-aes": check_pxcbc_xor,
    "xcbc-xor-ctr-aes": check_xcbc_xor_ctr,
    "xcbc-ctr-aes": check_xcbc_ctr,
    "pxcbc-xor-ctr-aes": check_pxcbc_xor_ctr,
    "xecb-mac-aes": check_xecb,
    "xecb-mac-ctr-aes": check_xecb_ctr,
    "sectors-aes": check_sectors,
}


def test_every_file_found():
    # 16 + 15 shared-format files and 3 sector files at the time of writing;
    # a file added later is picked up by the glob and must name a known scheme.
    assert len(FILES) >= 34, [str(f) for f in FILES]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_vector_file(path):
    data = load(path)
    scheme = data["scheme"]
    assert scheme in CHECKS, f"{path}: scheme {scheme!r} has no Python check"
    vectors = data["vectors"]
    assert vectors
    failures = []
    for v in vectors:
        try:
            CHECKS[scheme](v)
        except AssertionError as e:  # collect all, then fail with every name
            failures.append(f"{v.get('name')}: {e}")
    assert not failures, "\n".join(failures)
    # both results present in files that have invalid vectors are both checked
    assert {v["result"] for v in vectors if "result" in v} <= {"valid", "invalid"}
