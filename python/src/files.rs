//! `blockmodes.files`: the `blockmodes` command's key files and sealed files
//! (`docs/file-format.md`, sections 1 and 2) through the CLI's own code, the
//! `blockmodes-file` crate (header, Argon2id and HKDF keys, STREAM chunks,
//! outputs that appear only when complete). The Python wrappers are in
//! `blockmodes/files.py`.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use blockmodes_file::failure::Failure;
use blockmodes_file::header::{CHUNK_LOG2_RANGE, HEADER_LEN, Header, KdfLimit, Mode, Secret};
use blockmodes_file::input::AlignedReader;
use blockmodes_file::keyfile::MasterKey;
use blockmodes_file::output::{Access, Output};
use blockmodes_file::stream::{ChunkCipher, chunk_cipher};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

use crate::buf::Buf;
use crate::{Error, InvalidTag};

/// Why a file operation stopped.
enum Stop {
    /// The input was rejected (`InvalidTag`): not authentic, or not a
    /// sealed file.
    Rejected(String),
    /// A bad argument (`ValueError`).
    Usage(String),
    /// An I/O error (`OSError`).
    Io(std::io::Error, String),
}

impl From<Failure> for Stop {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Rejected(m) => Stop::Rejected(m),
            Failure::Usage(m) => Stop::Usage(m),
            // An output that cannot be created, written or renamed (missing
            // or read-only directory, full disk) is an `OSError` with its
            // errno (`FileNotFoundError` ...), as `open()` raises.
            Failure::Io {
                message,
                errno: Some(code),
            } => Stop::Io(std::io::Error::from_raw_os_error(code), message),
            // Without an error number (a short write, say): `OSError` all
            // the same, with errno 0.
            Failure::Io { message, .. } => {
                Stop::Io(std::io::Error::other(message.clone()), message)
            }
        }
    }
}

fn to_py(s: Stop) -> PyErr {
    match s {
        Stop::Rejected(m) => InvalidTag::new_err(m),
        Stop::Usage(m) => PyValueError::new_err(m),
        Stop::Io(e, what) => PyOSError::new_err((e.raw_os_error().unwrap_or(0), what)),
    }
}

fn io(what: &str, path: &Path) -> impl FnOnce(std::io::Error) -> Stop {
    let what = format!("cannot {what} {}", path.display());
    move |e| {
        let msg = format!("{what}: {e}");
        Stop::Io(e, msg)
    }
}

/// The secret of a call: exactly one of a 32-byte master key and a
/// non-empty passphrase.
fn secret(key: Option<&[u8]>, passphrase: Option<&[u8]>) -> Result<Secret, Stop> {
    match (key, passphrase) {
        (Some(k), None) => {
            let k: &[u8; 32] = k.try_into().map_err(|_| {
                Stop::Usage(format!(
                    "invalid master key length: expected 32 bytes (a key file's key), got {}",
                    k.len()
                ))
            })?;
            Ok(Secret::KeyFile(MasterKey::from_bytes(k)))
        }
        (None, Some(p)) if !p.is_empty() => Ok(Secret::Passphrase(Zeroizing::new(p.to_vec()))),
        (None, Some(_)) => Err(Stop::Usage("empty passphrase".into())),
        _ => Err(Stop::Usage(
            "give exactly one of key (the 32-byte master key of a key file) and passphrase".into(),
        )),
    }
}

fn mode_arg(mode: &str) -> Result<Mode, Stop> {
    match mode {
        "ocb1" => Ok(Mode::Ocb1),
        "cwc" => Ok(Mode::Cwc),
        "xcbc-xor" => Ok(Mode::XcbcXor),
        other => Err(Stop::Usage(format!(
            "unknown mode {other:?}: expected \"ocb1\", \"cwc\" or \"xcbc-xor\""
        ))),
    }
}

/// Fill `buf` (cleared first) with up to `n` bytes of `input`: fewer only at
/// its end.
fn read_up_to(input: &mut dyn Read, n: usize, buf: &mut Zeroizing<Vec<u8>>) -> Result<(), Stop> {
    buf.clear();
    buf.resize(n, 0);
    let mut got = 0;
    while got < n {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let msg = format!("cannot read the input: {e}");
                return Err(Stop::Io(e, msg));
            }
        }
    }
    buf.truncate(got);
    Ok(())
}

fn write_err(e: std::io::Error) -> Stop {
    let msg = format!("cannot write the output: {e}");
    Stop::Io(e, msg)
}

/// `blockmodes seal`: the header, then chunk after chunk (section 2.2).
fn seal_stream(
    secret: &Secret,
    mode: Mode,
    chunk_log2: u8,
    input: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<(), Stop> {
    if !CHUNK_LOG2_RANGE.contains(&chunk_log2) {
        return Err(Stop::Usage(format!(
            "invalid chunk size 2**{chunk_log2}: expected a power of two from 1 KiB to 16 MiB"
        )));
    }
    let header = Header::new(mode, chunk_log2, secret)?;
    let keys = header.seal_keys(secret)?;
    let cipher = chunk_cipher(mode, &keys.payload)?;
    out.write_all(&keys.header_bytes).map_err(write_err)?;
    let c = header.chunk_len();
    let (mut cur, mut next) = (Zeroizing::new(Vec::new()), Zeroizing::new(Vec::new()));
    let mut sealed = Vec::new();
    read_up_to(input, c, &mut cur)?;
    for index in 0u64.. {
        if cur.len() == c {
            read_up_to(input, c, &mut next)?;
        } else {
            next.clear();
        }
        let last = next.is_empty();
        sealed.resize(cipher.sealed_len(cur.len()), 0);
        cipher
            .seal(index, last, &cur, &mut sealed)
            .map_err(|_| Stop::Usage(format!("internal error: chunk {index} not sealed")))?;
        out.write_all(&sealed).map_err(write_err)?;
        if last {
            break;
        }
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(())
}

/// `blockmodes open`: check the header, then open chunk after chunk; a
/// chunk's plaintext goes to `out` only once it authenticated.
fn open_stream(
    secret: &Secret,
    limit: KdfLimit,
    input: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<(), Stop> {
    let mut head = Zeroizing::new(Vec::new());
    read_up_to(input, HEADER_LEN, &mut head)?;
    let header = Header::parse(&head)?;
    if let (Some(k), Secret::Passphrase(_)) = (header.kdf, secret)
        && limit.check(&k).is_err()
    {
        return Err(Stop::Rejected(format!(
            "the header asks for Argon2id with {} MiB and {} passes, above the limit \
                 before the header authenticates (max_kdf_memory_mib={}, max_kdf_passes={}): \
                 nothing was computed; if you trust this file, raise the limits",
            k.m_kib.div_ceil(1024),
            k.t,
            limit.max_m_mib,
            limit.max_t
        )));
    }
    let keys = header.open_keys(&head, secret)?;
    let cipher: Box<dyn ChunkCipher> = chunk_cipher(header.mode, &keys.payload)?;
    let s = cipher.sealed_len(header.chunk_len());
    let (mut cur, mut next) = (Zeroizing::new(Vec::new()), Zeroizing::new(Vec::new()));
    let mut plain = Zeroizing::new(Vec::new());
    read_up_to(input, s, &mut cur)?;
    for index in 0u64.. {
        if cur.len() == s {
            read_up_to(input, s, &mut next)?;
        } else {
            next.clear();
        }
        let last = next.is_empty();
        let reject = || {
            Stop::Rejected(format!(
                "corrupted or truncated at byte {} (chunk {index} does not authenticate)",
                HEADER_LEN as u64 + index * s as u64
            ))
        };
        let room = cipher.max_opened_len(cur.len()).ok_or_else(reject)?;
        plain.resize(room, 0);
        let n = cipher
            .open(index, last, &cur, &mut plain)
            .map_err(|_| reject())?;
        out.write_all(&plain[..n]).map_err(write_err)?;
        if last {
            break;
        }
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(())
}

fn limit(max_kdf_memory_mib: u32, max_kdf_passes: u32) -> KdfLimit {
    KdfLimit {
        max_m_mib: max_kdf_memory_mib,
        max_t: max_kdf_passes,
    }
}

/// `_file_seal(data, key, passphrase, mode, chunk_log2) -> bytes`.
#[pyfunction]
#[pyo3(name = "_file_seal")]
fn file_seal<'py>(
    py: Python<'py>,
    data: Buf,
    key: Option<Buf>,
    passphrase: Option<Buf>,
    mode: &str,
    chunk_log2: u8,
) -> PyResult<Bound<'py, PyBytes>> {
    let (data, key, pass) = (
        data.as_slice(),
        key.as_ref().map(Buf::as_slice),
        passphrase.as_ref().map(Buf::as_slice),
    );
    let out = py
        .detach(|| -> Result<Vec<u8>, Stop> {
            let secret = secret(key, pass)?;
            let mut out = Vec::with_capacity(data.len() + data.len() / 1024 + 256);
            seal_stream(
                &secret,
                mode_arg(mode)?,
                chunk_log2,
                &mut &data[..],
                &mut out,
            )?;
            Ok(out)
        })
        .map_err(to_py)?;
    Ok(PyBytes::new(py, &out))
}

/// `_file_open(sealed, key, passphrase, max_kdf_memory_mib, max_kdf_passes) -> bytes`.
#[pyfunction]
#[pyo3(name = "_file_open")]
fn file_open<'py>(
    py: Python<'py>,
    sealed: Buf,
    key: Option<Buf>,
    passphrase: Option<Buf>,
    max_kdf_memory_mib: u32,
    max_kdf_passes: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let (sealed, key, pass) = (
        sealed.as_slice(),
        key.as_ref().map(Buf::as_slice),
        passphrase.as_ref().map(Buf::as_slice),
    );
    let plain = py
        .detach(|| -> Result<Zeroizing<Vec<u8>>, Stop> {
            let secret = secret(key, pass)?;
            let mut out = Zeroizing::new(Vec::with_capacity(sealed.len()));
            let lim = limit(max_kdf_memory_mib, max_kdf_passes);
            open_stream(&secret, lim, &mut &sealed[..], &mut *out)?;
            Ok(out)
        })
        .map_err(to_py)?;
    Ok(PyBytes::new(py, &plain))
}

/// Run `f` from the file `src` into a new file `dst` that appears only if
/// `f` succeeds (section 2.3).
fn path_to_path(
    src: &Path,
    dst: &Path,
    force: bool,
    sync: bool,
    access: Access,
    f: impl FnOnce(&mut dyn Read, &mut dyn Write) -> Result<(), Stop>,
) -> Result<(), Stop> {
    // Reads placed for the kernel's page-cache copy (`input`'s docs):
    // through a `BufReader`, `seal_file` of 1 GiB took 0.69-1.06 s on Zen 3
    // against 0.30-0.35 s (README, "The command's files").
    let mut input = AlignedReader::new(File::open(src).map_err(io("open", src))?, 0);
    let mut out = Output::file(dst, force, access)?.with_sync(sync);
    f(&mut input, &mut out)?;
    out.commit()?;
    Ok(())
}

/// `_file_seal_path(src, dst, key, passphrase, mode, chunk_log2, force, sync)`.
#[pyfunction]
#[pyo3(name = "_file_seal_path")]
#[allow(clippy::too_many_arguments)]
fn file_seal_path(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    key: Option<Buf>,
    passphrase: Option<Buf>,
    mode: &str,
    chunk_log2: u8,
    force: bool,
    sync: bool,
) -> PyResult<()> {
    let (key, pass) = (
        key.as_ref().map(Buf::as_slice),
        passphrase.as_ref().map(Buf::as_slice),
    );
    py.detach(|| {
        let secret = secret(key, pass)?;
        let mode = mode_arg(mode)?;
        path_to_path(&src, &dst, force, sync, Access::Umask, |i, o| {
            seal_stream(&secret, mode, chunk_log2, i, o)
        })
    })
    .map_err(to_py)
}

/// `_file_open_path(src, dst, key, passphrase, max_kdf_memory_mib, max_kdf_passes, force, sync)`.
#[pyfunction]
#[pyo3(name = "_file_open_path")]
#[allow(clippy::too_many_arguments)]
fn file_open_path(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    key: Option<Buf>,
    passphrase: Option<Buf>,
    max_kdf_memory_mib: u32,
    max_kdf_passes: u32,
    force: bool,
    sync: bool,
) -> PyResult<()> {
    let (key, pass) = (
        key.as_ref().map(Buf::as_slice),
        passphrase.as_ref().map(Buf::as_slice),
    );
    py.detach(|| {
        let secret = secret(key, pass)?;
        let lim = limit(max_kdf_memory_mib, max_kdf_passes);
        path_to_path(&src, &dst, force, sync, Access::Private, |i, o| {
            open_stream(&secret, lim, i, o)
        })
    })
    .map_err(to_py)
}

/// `_file_key_generate() -> bytes`: a new master key.
#[pyfunction]
#[pyo3(name = "_file_key_generate")]
fn file_key_generate(py: Python<'_>) -> PyResult<Bound<'_, PyBytes>> {
    let k = MasterKey::generate().map_err(|f| Error::new_err(f.message().to_owned()))?;
    Ok(PyBytes::new(py, k.bytes()))
}

/// `_file_key_text(key) -> str`: a key file's text.
#[pyfunction]
#[pyo3(name = "_file_key_text")]
fn file_key_text(key: Buf) -> PyResult<String> {
    match secret(Some(key.as_slice()), None).map_err(to_py)? {
        Secret::KeyFile(k) => Ok(k.to_file_text().to_string()),
        Secret::Passphrase(_) => unreachable!("a key was given"),
    }
}

/// `_file_key_parse(text) -> bytes`: the key of a key file's text.
#[pyfunction]
#[pyo3(name = "_file_key_parse")]
fn file_key_parse<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyBytes>> {
    let k = MasterKey::from_file_text(text)
        .map_err(|why| PyValueError::new_err(format!("not a blockmodes key file ({why})")))?;
    Ok(PyBytes::new(py, k.bytes()))
}

/// `_file_key_write(path, key, force)`: write a key file (mode 0600, never
/// replacing a file unless `force`).
#[pyfunction]
#[pyo3(name = "_file_key_write")]
fn file_key_write(path: PathBuf, key: Buf, force: bool) -> PyResult<()> {
    match secret(Some(key.as_slice()), None).map_err(to_py)? {
        Secret::KeyFile(k) => k.write(&path, force).map_err(|f| to_py(f.into())),
        Secret::Passphrase(_) => unreachable!("a key was given"),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(file_seal, m)?)?;
    m.add_function(wrap_pyfunction!(file_open, m)?)?;
    m.add_function(wrap_pyfunction!(file_seal_path, m)?)?;
    m.add_function(wrap_pyfunction!(file_open_path, m)?)?;
    m.add_function(wrap_pyfunction!(file_key_generate, m)?)?;
    m.add_function(wrap_pyfunction!(file_key_text, m)?)?;
    m.add_function(wrap_pyfunction!(file_key_parse, m)?)?;
    m.add_function(wrap_pyfunction!(file_key_write, m)?)?;
    Ok(())
}
