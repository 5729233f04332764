"""Safety properties of the binding (issue 25): output buffers are checked
against the inputs before any slice of them exists (point 3), and no
method of the main classes takes a caller's r0 (point 5)."""

from __future__ import annotations

import pytest

import blockmodes as bm
from blockmodes import hazmat

K16, K32 = bytes(16), bytes(32)


@pytest.mark.parametrize("name", ["OCB1", "CWC"])
def test_overlap_is_refused_first(name):
    """The overlap check comes before every other check on the arguments
    (it compares the raw address ranges before any slice is made): an
    overlapping ``buf`` is reported even when it is also too small or the
    nonce is wrong."""
    c = getattr(bm, name)(K16)
    n = 16 if name == "OCB1" else 11
    shared = bytearray(400)
    view = memoryview(shared)
    ct = c.encrypt(bytes(n), bytes(100))
    view[200 : 200 + len(ct)] = ct
    cases = [
        # buf too small and overlapping data
        lambda: c.encrypt_into(bytes(n), view[:100], None, view[50:60]),
        lambda: c.decrypt_into(bytes(n), view[200:316], None, view[300:310]),
        # a wrong nonce that overlaps buf
        lambda: c.encrypt_into(view[:5], bytes(100), None, view[:200]),
        # buf overlapping only the tag of the ciphertext
        lambda: c.decrypt_into(bytes(n), view[200:316], None, view[310:]),
        # buf overlapping the nonce alone
        lambda: c.encrypt_into(view[0:n], bytes(10), None, view[n - 1 : n + 40]),
    ]
    if name == "CWC":
        cases.append(lambda: c.encrypt_into(bytes(n), bytes(10), view[90:120], view[:100]))
        cases.append(lambda: c.decrypt_into(bytes(n), bytes(ct), view[99:100], view[:100]))
    for call in cases:
        with pytest.raises(ValueError, match="overlap"):
            call()
    # adjacent but disjoint: fine
    assert c.encrypt_into(view[0:n], view[n : n + 10], None, view[n + 10 : n + 10 + 26]) == 26
    # an empty input never overlaps
    assert c.encrypt_into(bytes(n), view[50:50], None, view[:16]) == 16


def test_no_r0_on_the_main_classes():
    """Only blockmodes.hazmat takes a caller's r0: no attribute of the main
    classes (or their objects) does."""
    objects = [bm.XCBCXor(K32), bm.PXCBCXor(K32), bm.XECBMAC(K16)]
    for obj in objects:
        for holder in (obj, type(obj)):
            names = [a for a in dir(holder) if "r0" in a or "with" in a]
            assert names == [], (type(obj).__name__, names)
    for cls in (bm.XCBCXor, bm.PXCBCXor, bm.XECBMAC):
        assert not hasattr(cls, "_encrypt_with_r0") and not hasattr(cls, "_mac_with_r0")
    # hazmat still gives them, through functions of its own
    x = bm.XCBCXor(K32)
    ct = hazmat.encrypt_with_r0(x, bytes(16), b"vector")
    assert ct == hazmat.encrypt_with_r0(x, bytes(16), b"vector") and x.decrypt(ct) == b"vector"
    p = bm.PXCBCXor(K32, 2)
    assert p.decrypt(hazmat.encrypt_with_r0(p, bytes(range(16)), bytes(100))) == bytes(100)
    m = bm.XECBMAC(K16)
    m.verify(b"m", hazmat.mac_with_r0(m, bytes(16), b"m"))
    with pytest.raises(TypeError, match="XCBCXor"):
        hazmat.encrypt_with_r0(bm.OCB1(K16), bytes(16), b"")
    with pytest.raises(TypeError, match="XECBMAC"):
        hazmat.mac_with_r0(bm.PMAC(K16), bytes(16), b"")
