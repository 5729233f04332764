"""The ``blockmodes`` command's key files and sealed files, from Python.

The same bytes as ``blockmodes keygen`` / ``seal`` / ``open``
(``docs/file-format.md``), through the command's own Rust code (the
``blockmodes-file`` crate: the 88-byte header, Argon2id and HKDF-SHA256 keys,
the STREAM chunks in OCB 1.0, CWC or XCBC-XOR with AES-256), so one pipeline
can mix the command and Python without hand-written HKDF:

* :func:`generate_key`, :func:`write_key_file`, :func:`read_key_file`,
  :func:`key_file_text`, :func:`parse_key_file`: the 32-byte master key and
  its text file (``blockmodes-key-v1 <64 hex digits>``);
* :func:`seal_bytes` / :func:`open_bytes`: a sealed file in memory;
* :func:`seal_file` / :func:`open_file`: file to file, chunk by chunk; the
  output appears under its name only once it is complete (and, for
  ``open_file``, every chunk authenticated), never replacing a file unless
  ``force=True``.

Exactly one of ``key`` (a master key, 32 bytes) and ``passphrase`` (``str``,
UTF-8 encoded, or bytes; not empty) is given. A sealed file that does not
authenticate (wrong key, modified, truncated, not a sealed file) raises
:class:`blockmodes.InvalidTag`, naming the byte where the first bad chunk
starts; nothing is returned or written then. A file that cannot be read,
created or written raises ``OSError`` with its errno (``FileNotFoundError``
for a missing directory ...), as ``open()`` does.

Example::

    >>> from blockmodes import files
    >>> key = files.generate_key()
    >>> sealed = files.seal_bytes(b"attack at dawn", key=key)
    >>> sealed[:8]
    b'blkmodes'
    >>> files.open_bytes(sealed, key=key)
    b'attack at dawn'
    >>> files.parse_key_file(files.key_file_text(key)) == key
    True
"""

from __future__ import annotations

import os
from typing import Optional, Union

from blockmodes._native import (
    _file_key_generate,
    _file_key_parse,
    _file_key_text,
    _file_key_write,
    _file_open,
    _file_open_path,
    _file_seal,
    _file_seal_path,
)

__all__ = [
    "MODES",
    "generate_key",
    "key_file_text",
    "parse_key_file",
    "write_key_file",
    "read_key_file",
    "seal_bytes",
    "open_bytes",
    "seal_file",
    "open_file",
]

#: The payload modes of a sealed file (``blockmodes seal --mode``).
MODES = ("ocb1", "cwc", "xcbc-xor")

_Path = Union[str, "os.PathLike[str]"]
_Passphrase = Union[str, bytes, bytearray, memoryview, None]


def _passphrase(p: _Passphrase) -> Union[bytes, bytearray, memoryview, None]:
    if isinstance(p, str):
        return p.encode("utf-8")
    return p


def _chunk_log2(chunk_size: int) -> int:
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int):
        raise TypeError(f"chunk_size must be an int, not {type(chunk_size).__name__}")
    if chunk_size <= 0 or chunk_size & (chunk_size - 1) or not 2**10 <= chunk_size <= 2**24:
        raise ValueError(
            f"chunk_size must be a power of two from 1024 (1 KiB) to 16777216 (16 MiB), got {chunk_size}"
        )
    return chunk_size.bit_length() - 1


def _u32(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not 0 <= value < 2**32:
        raise ValueError(f"{name} must be in 0..=4294967295, got {value}")
    return value


def _mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    return mode


def generate_key() -> bytes:
    """A new 32-byte master key from the operating system's generator."""
    return _file_key_generate()


def key_file_text(key: bytes) -> str:
    """The text of a key file holding the 32-byte master ``key`` (as
    ``blockmodes keygen`` writes it: two comment lines and the key line)."""
    return _file_key_text(key)


def parse_key_file(text: str) -> bytes:
    """The 32-byte master key of a key file's ``text``; ``ValueError`` if it
    is not one (exactly one ``blockmodes-key-v1`` line, ``#`` comments and
    blank lines ignored)."""
    return _file_key_parse(text)


def write_key_file(path: _Path, key: Optional[bytes] = None, *, force: bool = False) -> bytes:
    """Write a key file at ``path`` (mode 0600, through a temporary file
    renamed into place) holding ``key``, or a new key when ``key`` is
    ``None``; returns the key. An existing ``path`` raises
    ``FileExistsError`` unless ``force=True``."""
    path = os.fspath(path)
    if not force and os.path.lexists(path):
        raise FileExistsError(17, "key file exists (force=True replaces it)", path)
    if key is None:
        key = generate_key()
    _file_key_write(path, key, bool(force))
    return bytes(key)


def read_key_file(path: _Path) -> bytes:
    """The 32-byte master key of the key file at ``path``."""
    with open(os.fspath(path), "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{os.fspath(path)} is not a blockmodes key file (not text)") from None
    return parse_key_file(text)


def seal_bytes(
    data,
    *,
    key: Optional[bytes] = None,
    passphrase: _Passphrase = None,
    mode: str = "ocb1",
    chunk_size: int = 65536,
) -> bytes:
    """The sealed file (header and chunks) of ``data``, as ``blockmodes seal
    --mode MODE --chunk-size SIZE`` writes it. A passphrase is stretched
    with Argon2id (64 MiB, 3 passes), as the command does."""
    return _file_seal(
        data, key, _passphrase(passphrase), _mode(mode), _chunk_log2(chunk_size)
    )


def open_bytes(
    sealed,
    *,
    key: Optional[bytes] = None,
    passphrase: _Passphrase = None,
    max_kdf_memory_mib: int = 256,
    max_kdf_passes: int = 8,
) -> bytes:
    """The plaintext of the sealed file ``sealed``; raises
    :class:`blockmodes.InvalidTag` unless every chunk authenticates. As
    ``blockmodes open``, the Argon2id cost a passphrase file's header asks
    for is refused above ``max_kdf_memory_mib`` / ``max_kdf_passes`` (ints,
    0 to 2**32 - 1) before anything is computed."""
    return _file_open(
        sealed,
        key,
        _passphrase(passphrase),
        _u32(max_kdf_memory_mib, "max_kdf_memory_mib"),
        _u32(max_kdf_passes, "max_kdf_passes"),
    )


def seal_file(
    src: _Path,
    dst: _Path,
    *,
    key: Optional[bytes] = None,
    passphrase: _Passphrase = None,
    mode: str = "ocb1",
    chunk_size: int = 65536,
    force: bool = False,
    sync: bool = False,
) -> None:
    """Seal the file ``src`` into ``dst`` (``blockmodes seal SRC -o DST``),
    one chunk at a time. ``dst`` appears only when complete; an existing
    ``dst`` raises ``FileExistsError`` unless ``force=True``; ``sync=True``
    syncs it to disk before the rename."""
    dst = os.fspath(dst)
    if not force and os.path.lexists(dst):
        raise FileExistsError(17, "output exists (force=True replaces it)", dst)
    _file_seal_path(
        os.fspath(src),
        dst,
        key,
        _passphrase(passphrase),
        _mode(mode),
        _chunk_log2(chunk_size),
        bool(force),
        bool(sync),
    )


def open_file(
    src: _Path,
    dst: _Path,
    *,
    key: Optional[bytes] = None,
    passphrase: _Passphrase = None,
    max_kdf_memory_mib: int = 256,
    max_kdf_passes: int = 8,
    force: bool = False,
    sync: bool = False,
) -> None:
    """Open the sealed file ``src`` into ``dst`` (``blockmodes open SRC -o
    DST``): ``dst`` appears only once every chunk authenticated; on
    :class:`blockmodes.InvalidTag` nothing is left under ``dst``."""
    dst = os.fspath(dst)
    if not force and os.path.lexists(dst):
        raise FileExistsError(17, "output exists (force=True replaces it)", dst)
    _file_open_path(
        os.fspath(src),
        dst,
        key,
        _passphrase(passphrase),
        _u32(max_kdf_memory_mib, "max_kdf_memory_mib"),
        _u32(max_kdf_passes, "max_kdf_passes"),
        bool(force),
        bool(sync),
    )
