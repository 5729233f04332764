"""blockmodes: block-cipher modes of operation from the papers, in Rust.

One class per mode, keyed once, methods on bytes (in the style of
``cryptography``). Every data argument accepts any contiguous buffer
(``bytes``, ``bytearray``, ``memoryview``, NumPy arrays); results are
``bytes``. Large inputs are processed with the GIL released.

Authenticated encryption: :class:`OCB1`, :class:`CWC` (both also on-line,
through :class:`AEADEncryptionContext`), :class:`XCBCXor`, :class:`PXCBCXor`. MACs: :class:`PMAC` (with :class:`PMACPartial` for split
inputs, see :mod:`blockmodes.dask`), :class:`XECBMAC`. Length-preserving
ciphers without integrity: :class:`Disk`, :class:`EME`, :class:`EtE`,
:class:`EME2`, :class:`XEX`, :class:`StE`.

Errors: ``ValueError`` (wrong sizes, naming the expected ones), ``TypeError``
(wrong types), :class:`InvalidTag` (``decrypt``), :class:`InvalidSignature`
(``verify``), :class:`AlreadyFinalized`, :class:`NotYetFinalized`; the last
four subclass
:class:`Error`.
"""

from blockmodes._native import (
    CWC,
    EME,
    EME2,
    OCB1,
    PMAC,
    PXCBCXor,
    StE,
    XCBCXor,
    XECBMAC,
    XEX,
    AEADEncryptionContext,
    AlreadyFinalized,
    Disk,
    Error,
    EtE,
    InvalidSignature,
    InvalidTag,
    NotYetFinalized,
    PMACPartial,
    __version__,
)

__all__ = [
    "__version__",
    "Error",
    "InvalidTag",
    "InvalidSignature",
    "AlreadyFinalized",
    "NotYetFinalized",
    "OCB1",
    "CWC",
    "AEADEncryptionContext",
    "XCBCXor",
    "PXCBCXor",
    "PMAC",
    "PMACPartial",
    "XECBMAC",
    "Disk",
    "EME",
    "EtE",
    "EME2",
    "XEX",
    "StE",
]
