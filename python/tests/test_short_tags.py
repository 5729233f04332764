"""Short tags: the main OCB1, CWC and PMAC take 8..=16-byte tags and name
``blockmodes.hazmat`` below that; the hazmat forms take the papers' 1..=16
and agree with the main classes (a shorter tag is the prefix of the full
one). A 1-byte tag is forged within 256 tries: the reason for the floor."""

from __future__ import annotations

import pytest

import blockmodes
from blockmodes import hazmat

KEY = bytes(range(16))


@pytest.mark.parametrize("name", ["OCB1", "CWC", "PMAC"])
@pytest.mark.parametrize("t", range(1, 8))
def test_main_classes_refuse_short_tags_and_name_hazmat(name, t):
    with pytest.raises(ValueError, match=f"blockmodes.hazmat.{name}"):
        getattr(blockmodes, name)(KEY, t)
    with pytest.raises(ValueError, match=f"blockmodes.hazmat.{name}"):
        getattr(blockmodes, name)(KEY, tag_length=t)
    h = getattr(hazmat, name)(KEY, t)
    assert h.tag_length == t
    assert isinstance(h, getattr(blockmodes, name))


@pytest.mark.parametrize("t", range(8, 17))
def test_main_classes_take_8_to_16(t):
    for name in ("OCB1", "CWC", "PMAC"):
        assert getattr(blockmodes, name)(KEY, t).tag_length == t


@pytest.mark.parametrize("t", range(1, 17))
def test_hazmat_forms_are_prefixes_of_the_full_tag(t):
    msg, ad = b"a message of some length", b"header"
    full = blockmodes.OCB1(KEY).encrypt(bytes(16), msg)
    ocb = hazmat.OCB1(KEY, t)
    sealed = ocb.encrypt(bytes(16), msg)
    assert sealed == full[: len(msg) + t]
    assert ocb.decrypt(bytes(16), sealed) == msg

    full = blockmodes.CWC(KEY).encrypt(bytes(11), msg, ad)
    cwc = hazmat.CWC(KEY, tag_length=t)
    ct = cwc.encrypt(bytes(11), msg, ad)
    assert ct == full[: len(msg) + t]
    assert cwc.decrypt(bytes(11), ct, ad) == msg

    p = hazmat.PMAC(KEY, t)
    p.update(msg)
    assert p.copy().finalize() == blockmodes.PMAC(KEY).mac(msg)[:t]
    p.verify(blockmodes.PMAC(KEY).mac(msg)[:t])


def test_a_one_byte_tag_is_forged_within_256_tries():
    # The review's attack on a 1-byte OCB1 tag: flip one ciphertext bit and
    # try every tag byte. Exactly one of the 256 verifies (2^-8 per try).
    ocb = hazmat.OCB1(KEY, 1)
    nonce = bytes(16)
    sealed = bytearray(ocb.encrypt(nonce, b"pay 100 to alice"))
    sealed[0] ^= 1
    forged = []
    for guess in range(256):
        sealed[-1] = guess
        try:
            forged.append(ocb.decrypt(nonce, bytes(sealed)))
        except blockmodes.InvalidTag:
            pass
    assert len(forged) == 1 and forged[0] != b"pay 100 to alice"


def test_hazmat_pmac_copy_stays_hazmat():
    """``copy()`` of a ``blockmodes.hazmat.PMAC`` is a ``hazmat.PMAC`` (as
    ``cryptography``'s ``CMAC.copy`` returns a ``CMAC``), not a main-class
    ``PMAC`` holding a tag length the main class refuses."""
    msg = bytes.fromhex("000102")
    tag = bytes.fromhex("256ba5193c1b991b4df0c51f388a9e27")  # vectors/pmac-aes.json, PMAC-AES-128-3B
    p = hazmat.PMAC(KEY, 4)
    p.update(msg[:1])
    c = p.copy()
    assert type(c) is hazmat.PMAC and c.tag_length == 4
    c.update(msg[1:])
    assert c.finalize() == tag[:4]
    assert type(blockmodes.PMAC(KEY).copy()) is blockmodes.PMAC
