"""blockmodes.files reads and writes the CLI's key files and sealed files
(docs/file-format.md): round trips in Python, and interoperation with the
real ``blockmodes`` binary both ways when one is built (target/release or,
as ``.ci/run`` leaves it before the Python tests, target/debug;
BLOCKMODES_CLI names another)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

import blockmodes
from blockmodes import files

ROOT = Path(__file__).resolve().parents[2]


def _cli():
    env = os.environ.get("BLOCKMODES_CLI")
    if env:
        return env
    for p in (ROOT / "target" / "release" / "blockmodes", ROOT / "target" / "debug" / "blockmodes"):
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return shutil.which("blockmodes")


CLI = _cli()
needs_cli = pytest.mark.skipif(CLI is None, reason="no blockmodes binary (cargo build --release -p blockmodes-cli)")

KEY = bytes(range(32))
MSG = bytes(range(256)) * 40 + b"tail"  # 10244 bytes: 11 chunks of 1 KiB, the last short


@pytest.mark.parametrize("mode", files.MODES)
def test_round_trip_and_layout(mode):
    for msg in (b"", b"x", bytes(1024), MSG):
        sealed = files.seal_bytes(msg, key=KEY, mode=mode, chunk_size=1024)
        assert sealed[:8] == b"blkmodes" and sealed[8] == 1
        assert sealed[9] == files.MODES.index(mode) + 1 and sealed[10] == 1 and sealed[11] == 10
        assert sealed[12:24] == bytes(12)  # no KDF for a key file
        per_chunk = 48 if mode == "xcbc-xor" else 16
        chunks = max(1, -(-len(msg) // 1024))
        if mode != "xcbc-xor":
            assert len(sealed) == 88 + len(msg) + per_chunk * chunks
        assert files.open_bytes(sealed, key=KEY) == msg
        assert files.seal_bytes(msg, key=KEY, mode=mode, chunk_size=1024) != sealed  # fresh salt


def test_tampering_is_refused():
    sealed = bytearray(files.seal_bytes(MSG, key=KEY, chunk_size=1024))
    for at in (0, 9, 30, 60, 88, 88 + 1040 + 5, len(sealed) - 1):
        bad = bytearray(sealed)
        bad[at] ^= 1
        with pytest.raises(blockmodes.InvalidTag):
            files.open_bytes(bad, key=KEY)
    with pytest.raises(blockmodes.InvalidTag, match="byte 1128"):  # the second chunk
        bad = bytearray(sealed)
        bad[88 + 1040 + 5] ^= 1
        files.open_bytes(bad, key=KEY)
    for cut in (88, 88 + 1040, len(sealed) - 1):  # truncation, also at a chunk boundary
        with pytest.raises(blockmodes.InvalidTag):
            files.open_bytes(sealed[:cut], key=KEY)
    with pytest.raises(blockmodes.InvalidTag):
        files.open_bytes(bytes(sealed) + b"x", key=KEY)
    with pytest.raises(blockmodes.InvalidTag, match="wrong key"):
        files.open_bytes(sealed, key=bytes(32))
    with pytest.raises(blockmodes.InvalidTag, match="not a blockmodes file"):
        files.open_bytes(b"hello", key=KEY)


def test_arguments():
    with pytest.raises(ValueError, match="exactly one"):
        files.seal_bytes(b"", key=KEY, passphrase="p")
    with pytest.raises(ValueError, match="exactly one"):
        files.seal_bytes(b"")
    with pytest.raises(ValueError, match="32 bytes"):
        files.seal_bytes(b"", key=bytes(16))
    with pytest.raises(ValueError, match="empty passphrase"):
        files.seal_bytes(b"", passphrase="")
    with pytest.raises(ValueError, match="power of two"):
        files.seal_bytes(b"", key=KEY, chunk_size=1000)
    with pytest.raises(ValueError, match="unknown mode"):
        files.seal_bytes(b"", key=KEY, mode="gcm")


def test_key_files(tmp_path):
    p = tmp_path / "my.key"
    key = files.write_key_file(p)
    assert len(key) == 32 and files.read_key_file(p) == key
    assert stat.S_IMODE(p.stat().st_mode) == 0o600
    text = p.read_text()
    assert f"blockmodes-key-v1 {key.hex()}" in text.splitlines()
    with pytest.raises(FileExistsError):
        files.write_key_file(p, KEY)
    files.write_key_file(p, KEY, force=True)
    assert files.read_key_file(p) == KEY
    assert files.parse_key_file("# c\n\nblockmodes-key-v1 " + "AB" * 32 + " \r\n") == b"\xab" * 32
    for bad in ("", "blockmodes-key-v1 00\n", "blockmodes-key-v2 " + "00" * 32):
        with pytest.raises(ValueError, match="key file"):
            files.parse_key_file(bad)


def test_files_to_files(tmp_path):
    src, sealed, back = tmp_path / "m", tmp_path / "m.bm", tmp_path / "m.out"
    src.write_bytes(MSG)
    files.seal_file(src, sealed, key=KEY, mode="cwc", chunk_size=1024)
    files.open_file(sealed, back, key=KEY)
    assert back.read_bytes() == MSG
    with pytest.raises(FileExistsError):
        files.open_file(sealed, back, key=KEY)
    raw = bytearray(sealed.read_bytes())
    raw[-1] ^= 1
    sealed.write_bytes(raw)
    with pytest.raises(blockmodes.InvalidTag):
        files.open_file(sealed, tmp_path / "never", key=KEY)
    assert sorted(os.listdir(tmp_path)) == ["m", "m.bm", "m.out"]  # no output, no temporary


def test_passphrase_round_trip():
    sealed = files.seal_bytes(b"secret", passphrase="correct horse")
    assert sealed[10] == 2 and sealed[12:24] == bytes.fromhex("00010000 00000003 00000001")
    assert files.open_bytes(sealed, passphrase=b"correct horse") == b"secret"
    with pytest.raises(blockmodes.InvalidTag, match="wrong passphrase"):
        files.open_bytes(sealed, passphrase="wrong")
    with pytest.raises(blockmodes.InvalidTag, match="max_kdf_memory_mib"):
        files.open_bytes(sealed, passphrase="correct horse", max_kdf_memory_mib=32)


@needs_cli
@pytest.mark.parametrize("mode", files.MODES)
def test_cli_opens_what_python_seals_and_back(tmp_path, mode):
    keyfile = tmp_path / "k.key"
    files.write_key_file(keyfile, KEY)
    # Python seals, the CLI opens
    (tmp_path / "py.bm").write_bytes(files.seal_bytes(MSG, key=KEY, mode=mode, chunk_size=1024))
    r = subprocess.run(
        [CLI, "open", "--key-file", keyfile, "-o", tmp_path / "py.out", tmp_path / "py.bm"],
        capture_output=True,
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "py.out").read_bytes() == MSG
    # the CLI seals (with a key file from `keygen`), Python opens
    (tmp_path / "m").write_bytes(MSG)
    r = subprocess.run([CLI, "keygen", "-o", tmp_path / "cli.key"], capture_output=True)
    assert r.returncode == 0, r.stderr
    cli_key = files.read_key_file(tmp_path / "cli.key")
    r = subprocess.run(
        [CLI, "seal", "--mode", mode, "--chunk-size", "1K", "--key-file", tmp_path / "cli.key",
         "-o", tmp_path / "cli.bm", tmp_path / "m"],
        capture_output=True,
    )
    assert r.returncode == 0, r.stderr
    assert files.open_bytes((tmp_path / "cli.bm").read_bytes(), key=cli_key) == MSG
    files.open_file(tmp_path / "cli.bm", tmp_path / "cli.out", key=cli_key)
    assert (tmp_path / "cli.out").read_bytes() == MSG


@needs_cli
def test_cli_passphrase_files_both_ways(tmp_path):
    (tmp_path / "pass").write_bytes(b"correct horse\n")
    (tmp_path / "m").write_bytes(b"pipeline")
    r = subprocess.run(
        [CLI, "seal", "--passphrase-file", tmp_path / "pass", "-o", tmp_path / "cli.bm", tmp_path / "m"],
        capture_output=True,
    )
    assert r.returncode == 0, r.stderr
    assert files.open_bytes((tmp_path / "cli.bm").read_bytes(), passphrase="correct horse") == b"pipeline"
    (tmp_path / "py.bm").write_bytes(files.seal_bytes(b"from python", passphrase="correct horse", mode="cwc"))
    r = subprocess.run(
        [CLI, "open", "--passphrase-file", tmp_path / "pass", tmp_path / "py.bm"], capture_output=True
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"from python"


@pytest.mark.parametrize("call", ["open_bytes", "open_file"])
def test_kdf_limits_are_checked_ints(tmp_path, call):
    """max_kdf_memory_mib / max_kdf_passes: a non-int is TypeError (not
    truncated, not parsed from a str), a value outside 0..2**32 - 1 is
    ValueError (not OverflowError), as every other int argument."""
    sealed = files.seal_bytes(b"x", key=KEY)
    src = tmp_path / "x.bm"
    src.write_bytes(sealed)

    def run(**kw):
        if call == "open_bytes":
            return files.open_bytes(sealed, key=KEY, **kw)
        return files.open_file(src, tmp_path / "out", key=KEY, force=True, **kw)

    for name in ("max_kdf_memory_mib", "max_kdf_passes"):
        for bad in (-1, 2**32, 2**70):
            with pytest.raises(ValueError, match=name):
                run(**{name: bad})
        for bad in (1.5, "9", None, True):
            with pytest.raises(TypeError, match=name):
                run(**{name: bad})
    run(max_kdf_memory_mib=0, max_kdf_passes=2**32 - 1)  # a key file needs no KDF


def test_a_write_error_keeps_its_errno(tmp_path):
    """A write that fails (here past a file-size limit: EFBIG) is an OSError
    with the operating system's errno, as for ``open()``: the temporary
    file's own writer used to wrap the error and lose it (errno 0)."""
    import sys
    import textwrap

    src = tmp_path / "m"
    src.write_bytes(bytes(65536))
    script = textwrap.dedent(
        """
        import errno, resource, signal, sys
        from blockmodes import files
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        for limit, call in (
            (4096, lambda: files.seal_file(sys.argv[1], sys.argv[2], key=bytes(range(32)))),
            (10, lambda: files.write_key_file(sys.argv[3])),
        ):
            hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
            try:
                call()
                print("no error")
            except OSError as e:
                print(errno.errorcode.get(e.errno, e.errno))
        """
    )
    r = subprocess.run(
        [sys.executable, "-c", script, str(src), str(tmp_path / "m.bm"), str(tmp_path / "k")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.stdout.split() == ["EFBIG", "EFBIG"], (r.stdout, r.stderr)


def test_output_io_errors_are_oserror(tmp_path):
    """An output that cannot be created (here: its directory is missing) is
    an OSError with its errno, as ``open(path, "wb")`` raises, not a
    ValueError."""
    src = tmp_path / "m"
    src.write_bytes(b"m")
    missing = tmp_path / "no" / "such"
    with pytest.raises(FileNotFoundError):
        open(missing, "wb")
    sealed = tmp_path / "m.bm"
    files.seal_file(src, sealed, key=KEY)
    for call in (
        lambda: files.seal_file(src, missing, key=KEY),
        lambda: files.open_file(sealed, missing, key=KEY),
        lambda: files.write_key_file(missing),
    ):
        with pytest.raises(FileNotFoundError) as info:
            call()
        assert info.value.errno == 2 and str(tmp_path / "no") in str(info.value)
