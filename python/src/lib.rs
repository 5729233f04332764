//! `blockmodes._native`: the PyO3 extension behind the Python package
//! `blockmodes` (names and behaviour: `docs/spec/python.md`).
//!
//! Every call into the Rust library sits in one small function per mode
//! (the `rust_*` helpers and the trait impls of each module), so a rename in
//! the library is a one-line change here.
//!
//! Inputs come through the buffer protocol ([`buf::Buf`]), read in place;
//! the library works on them with the GIL released ([`run`]), and a panic
//! (there should be none) comes back as `blockmodes.Error`, never as a
//! `PanicException`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

mod aead;
mod buf;
mod disk;
mod files;
mod hazmat;
mod mac;
mod short_tags;

create_exception!(
    blockmodes,
    Error,
    PyException,
    "Base class of the errors blockmodes raises besides ValueError and TypeError."
);
create_exception!(
    blockmodes,
    InvalidTag,
    Error,
    "A ciphertext did not authenticate (raised by `decrypt`); no plaintext is returned."
);
create_exception!(
    blockmodes,
    InvalidSignature,
    Error,
    "A MAC tag did not verify (raised by `verify`)."
);
create_exception!(
    blockmodes,
    AlreadyFinalized,
    Error,
    "The object was used after `finalize()` or `verify()`."
);
create_exception!(
    blockmodes,
    NotYetFinalized,
    Error,
    "A result that exists only after `finalize()` (an encryption context's `tag`) was asked for before."
);

/// What an authentication failure means for the method that got it.
#[derive(Clone, Copy)]
pub(crate) enum Auth {
    /// Not an authentication call: every error is a bad argument.
    None,
    /// `decrypt`: `InvalidTag`, also for a ciphertext too short or of a
    /// length no encryption gives (it cannot authenticate either).
    Tag,
    /// `verify`: `InvalidSignature`.
    Signature,
}

/// The Python exception for a library error: `ValueError` with the
/// library's message (which names the expected sizes) for bad arguments,
/// `InvalidTag` / `InvalidSignature` for authentication failures.
pub(crate) fn to_py(e: blockmodes::Error, auth: Auth) -> PyErr {
    use blockmodes::Error as E;
    match e {
        E::Authentication | E::CiphertextTooShort { .. } | E::InvalidLength(_)
            if matches!(auth, Auth::Tag) =>
        {
            InvalidTag::new_err(format!(
                "the ciphertext does not authenticate ({e}): it was modified, \
                 truncated, or the key or nonce is wrong"
            ))
        }
        E::Authentication if matches!(auth, Auth::Signature) => {
            InvalidSignature::new_err("the tag does not match the data")
        }
        E::Rng | E::CounterExhausted => Error::new_err(e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// `ValueError` for a key of the wrong length, naming the lengths accepted.
/// `expected` is the lengths in words, optionally followed by a note in
/// parentheses: "16 (AES-128 only)".
pub(crate) fn key_error(expected: &str, got: usize) -> PyErr {
    let msg = match expected.split_once(" (") {
        Some((lengths, note)) => {
            format!("invalid key length: expected {lengths} bytes ({note}, got {got}")
        }
        None => format!("invalid key length: expected {expected} bytes, got {got}"),
    };
    PyValueError::new_err(msg)
}

/// `TypeError` unless `obj` is an `int` (and not a `bool`).
fn int_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<()> {
    if obj.is_instance_of::<pyo3::types::PyInt>() && !obj.is_instance_of::<pyo3::types::PyBool>() {
        Ok(())
    } else {
        Err(PyTypeError::new_err(format!(
            "{name} must be an int, not {}",
            obj.get_type().name()?
        )))
    }
}

/// Inputs from this many bytes on are processed with the GIL released
/// (below it, releasing and re-taking the GIL costs more than the work).
const DETACH_BYTES: usize = 2048;

/// Run `f` (the library's work) with the GIL released when `bytes` is large,
/// turning a panic into `blockmodes.Error`.
pub(crate) fn run<T, F>(py: Python<'_>, bytes: usize, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let guarded = move || catch_unwind(AssertUnwindSafe(f));
    let res = if bytes >= DETACH_BYTES {
        py.detach(guarded)
    } else {
        guarded()
    };
    res.map_err(|_| Error::new_err("internal error in the blockmodes library (please report it)"))
}

/// A new `bytes` of `len` bytes filled by `fill`, with the GIL released
/// when `work` is large (the object is not visible to other threads yet).
/// The object is allocated uninitialized (no zero fill of a large output):
/// `fill` must write every byte when it succeeds; if it fails the object is
/// dropped and the error raised.
pub(crate) fn new_bytes<'py, F>(
    py: Python<'py>,
    len: usize,
    work: usize,
    fill: F,
) -> PyResult<Bound<'py, PyBytes>>
where
    F: FnOnce(&mut [u8]) -> PyResult<()> + Send,
{
    let n = ffi::Py_ssize_t::try_from(len).map_err(|_| {
        PyValueError::new_err("input too long: the output would exceed the largest bytes object")
    })?;
    // SAFETY: PyBytes_FromStringAndSize(NULL, n) returns a new reference to
    // a bytes object of n uninitialized bytes (or NULL with an exception
    // set); PyBytes_AsString gives its buffer, valid while `obj` lives. No
    // other code sees the object before it is returned, so writing into it
    // (with the GIL released) is sound.
    unsafe {
        let ptr = ffi::PyBytes_FromStringAndSize(std::ptr::null(), n);
        let obj = Bound::from_owned_ptr_or_err(py, ptr)?;
        let data = ffi::PyBytes_AsString(ptr).cast::<u8>();
        if data.is_null() {
            return Err(PyErr::fetch(py));
        }
        let out = std::slice::from_raw_parts_mut(data, len);
        run(py, work, move || fill(out))??;
        Ok(obj.cast_into_unchecked::<PyBytes>())
    }
}

/// An `int` argument in `0..2^64`: `TypeError` for a non-int,
/// `ValueError` (naming the range) outside it.
pub(crate) fn u64_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    int_arg(obj, name)?;
    obj.extract::<u64>()
        .map_err(|_| PyValueError::new_err(format!("{name} must be in 0..2**64, got {obj}")))
}

/// A tag length argument of the main classes: 8..=16 (`ValueError`
/// otherwise; below 8 it names the `blockmodes.hazmat` class `hazmat_class`,
/// which takes the papers' short tags).
pub(crate) fn tag_length_arg(tag_length: &Bound<'_, PyAny>, hazmat_class: &str) -> PyResult<usize> {
    int_arg(tag_length, "tag_length")?;
    match tag_length.extract::<usize>() {
        Ok(t) if (8..=16).contains(&t) => Ok(t),
        Ok(t) if (1..8).contains(&t) => Err(PyValueError::new_err(format!(
            "invalid tag length: expected 8..=16 bytes, got {t} (a {t}-byte tag is forged with \
             probability 2^-{} per try; the papers' 1..=7-byte tags are in \
             blockmodes.hazmat.{hazmat_class})",
            8 * t
        ))),
        _ => Err(PyValueError::new_err(format!(
            "invalid tag length: expected 8..=16 bytes, got {tag_length}"
        ))),
    }
}

/// A tag length argument of the `blockmodes.hazmat` classes: 1..=16.
pub(crate) fn hazmat_tag_length_arg(tag_length: &Bound<'_, PyAny>) -> PyResult<usize> {
    int_arg(tag_length, "tag_length")?;
    match tag_length.extract::<usize>() {
        Ok(t) if (1..=16).contains(&t) => Ok(t),
        _ => Err(PyValueError::new_err(format!(
            "invalid tag length: expected 1..=16 bytes, got {tag_length}"
        ))),
    }
}

/// Key sizes in bits of the classes keyed with one AES key.
pub(crate) const AES_BITS: &[usize] = &[128, 192, 256];
/// The XCBC family: K ‖ K' (256, 384, 512) or one AES key (`one_key`).
pub(crate) const XCBC_BITS: &[usize] = &[128, 192, 256, 384, 512];

/// `generate_key(bit_length)`: `bit_length / 8` bytes from the operating
/// system's generator; `TypeError` for a non-int, `ValueError` naming the
/// sizes in `allowed` otherwise.
pub(crate) fn generate_key<'py>(
    py: Python<'py>,
    bit_length: &Bound<'py, PyAny>,
    allowed: &[usize],
) -> PyResult<Bound<'py, PyBytes>> {
    int_arg(bit_length, "bit_length")?;
    let names: Vec<String> = allowed.iter().map(usize::to_string).collect();
    let bits = bit_length
        .extract::<usize>()
        .ok()
        .filter(|b| allowed.contains(b))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "bit_length must be {} or {}, got {bit_length}",
                names[..names.len() - 1].join(", "),
                names[names.len() - 1]
            ))
        })?;
    let mut key = zeroize::Zeroizing::new([0u8; 64]);
    getrandom::fill(&mut key[..bits / 8]).map_err(|e| {
        Error::new_err(format!(
            "the operating system's random generator failed: {e}"
        ))
    })?;
    Ok(PyBytes::new(py, &key[..bits / 8]))
}

/// A fixed-size block argument (nonce, tweak, block): `ValueError` naming
/// the size otherwise.
pub(crate) fn block_arg<const N: usize>(data: &[u8], what: &str) -> PyResult<[u8; N]> {
    data.try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "invalid {what} length: expected {N} bytes, got {}",
            data.len()
        ))
    })
}

/// The native module `blockmodes._native`; `blockmodes/__init__.py`
/// re-exports everything.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("Error", py.get_type::<Error>())?;
    m.add("InvalidTag", py.get_type::<InvalidTag>())?;
    m.add("InvalidSignature", py.get_type::<InvalidSignature>())?;
    m.add("AlreadyFinalized", py.get_type::<AlreadyFinalized>())?;
    m.add("NotYetFinalized", py.get_type::<NotYetFinalized>())?;
    aead::register(m)?;
    mac::register(m)?;
    disk::register(m)?;
    hazmat::register(m)?;
    short_tags::register(m)?;
    files::register(m)?;
    Ok(())
}
