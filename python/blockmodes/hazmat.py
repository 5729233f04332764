"""Hazardous materials: the Gligor-Donescu forms outside the main classes.

For test vectors and for protocols that manage r0 or the counter
themselves. Nothing here checks that an r0 or a counter value is used only
once under a key; a repeated value lets an attacker compare plaintexts and
forge ciphertexts, and a chosen (non-random) r0 voids the security proof of
the r0 forms. Prefer :class:`blockmodes.XCBCXor`, :class:`blockmodes.PXCBCXor`
and :class:`blockmodes.XECBMAC`, which draw a fresh random r0 per call.

* :class:`XCBC`: XCBC$, the chain without its check block (privacy only).
* :class:`XCBCXorStateful`, :class:`XCBCStateful`, :class:`PXCBCXorStateful`,
  :class:`XECBMACStateful`: the counter forms, under a caller-given 16-byte
  big-endian counter; the counter travels in clear as the first block, and
  the receiver must check it against the one it expects.
* :func:`encrypt_with_r0`, :func:`mac_with_r0`: the r0 forms with a chosen r0.
* :class:`OCB1`, :class:`CWC`, :class:`PMAC`: the main classes with the
  papers' short tags, ``tag_length`` 1 to 16 bytes (the main classes take 8
  to 16). A ``t``-byte tag is forged with probability 2^-8t per try (a
  1-byte tag after about 256 tries): for test vectors and research only.
  Subclasses of :class:`blockmodes.OCB1`, :class:`blockmodes.CWC` and
  :class:`blockmodes.PMAC`, with every method of theirs.

Example::

    >>> from blockmodes import XCBCXor
    >>> from blockmodes.hazmat import encrypt_with_r0
    >>> x = XCBCXor(bytes(32))
    >>> ct = encrypt_with_r0(x, bytes(16), b"vector")
    >>> x.decrypt(ct)
    b'vector'
"""

from __future__ import annotations

from typing import Union

from blockmodes._native import (
    _HazmatCWC as CWC,
    _HazmatOCB1 as OCB1,
    _HazmatPMAC as PMAC,
)
from blockmodes._native import (
    _hazmat_encrypt_with_r0,
    _hazmat_mac_with_r0,
    XCBC,
    XECBMAC,
    PXCBCXor,
    PXCBCXorStateful,
    XCBCStateful,
    XCBCXor,
    XCBCXorStateful,
    XECBMACStateful,
)

__all__ = [
    "OCB1",
    "CWC",
    "PMAC",
    "XCBC",
    "XCBCXorStateful",
    "XCBCStateful",
    "PXCBCXorStateful",
    "XECBMACStateful",
    "encrypt_with_r0",
    "mac_with_r0",
]


def encrypt_with_r0(cipher: Union[XCBCXor, PXCBCXor, XCBC], r0, data) -> bytes:
    """``y0 ‖ ciphertext`` of ``data`` under the caller-chosen 16-byte ``r0``.

    ``cipher`` is an :class:`blockmodes.XCBCXor`, :class:`blockmodes.PXCBCXor`
    or :class:`XCBC`. For test vectors only: never reuse an r0 under a key.
    """
    if isinstance(cipher, XCBC):
        return cipher.encrypt_with_r0(r0, data)
    return _hazmat_encrypt_with_r0(cipher, r0, data)


def mac_with_r0(mac: XECBMAC, r0, data) -> bytes:
    """The 32-byte XECB$-MAC tag ``y0 ‖ w`` of ``data`` under the chosen ``r0``.

    For test vectors only: never reuse an r0 under a key.
    """
    return _hazmat_mac_with_r0(mac, r0, data)
