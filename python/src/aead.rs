//! Authenticated encryption: `OCB1`, `CWC`, `XCBCXor`, `PXCBCXor`.

use blockmodes::aead::inout::InOutBuf;
use blockmodes::aead::{self, AeadInOut};
// The hazmat forms (tags of 1..=16 bytes; the same code as the safe types):
// the Python constructors enforce the safe API's 8-byte floor, and
// `blockmodes.hazmat`'s classes (`short_tags.rs`) the papers' 1..=16.
use blockmodes::cwc::hazmat::Cwc;
use blockmodes::ocb1::hazmat::Ocb1;
use blockmodes::oracle::{BlockCipher128, BlockCipher128Dec};
use blockmodes::pxcbc::{PxcbcXor, PxcbcXorStateful};
use blockmodes::tag::{Hazmat, TagSize};
use blockmodes::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
use blockmodes::xcbc::{Xcbc as Xcbc_, XcbcStateful, XcbcXor, XcbcXorStateful};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buf::{Buf, BufMut};
use crate::{Auth, InvalidTag, block_arg, key_error, new_bytes, run, tag_length_arg, to_py};

/// `match` on an AES key length with `$C` bound to the cipher type.
macro_rules! by_aes_key {
    ($len:expr, $C:ident => $body:expr, _ => $other:expr) => {
        match $len {
            16 => {
                type $C = blockmodes::Aes128;
                $body
            }
            24 => {
                type $C = blockmodes::Aes192;
                $body
            }
            32 => {
                type $C = blockmodes::Aes256;
                $body
            }
            _ => $other,
        }
    };
}
pub(crate) use by_aes_key;

/// `match` on a tag length 1..=16 with `$T` bound to its `typenum` size.
macro_rules! by_tag_len {
    ($t:expr, $T:ident => $body:expr) => {{
        use blockmodes::cipher::consts::*;
        match $t {
            1 => {
                type $T = U1;
                $body
            }
            2 => {
                type $T = U2;
                $body
            }
            3 => {
                type $T = U3;
                $body
            }
            4 => {
                type $T = U4;
                $body
            }
            5 => {
                type $T = U5;
                $body
            }
            6 => {
                type $T = U6;
                $body
            }
            7 => {
                type $T = U7;
                $body
            }
            8 => {
                type $T = U8;
                $body
            }
            9 => {
                type $T = U9;
                $body
            }
            10 => {
                type $T = U10;
                $body
            }
            11 => {
                type $T = U11;
                $body
            }
            12 => {
                type $T = U12;
                $body
            }
            13 => {
                type $T = U13;
                $body
            }
            14 => {
                type $T = U14;
                $body
            }
            15 => {
                type $T = U15;
                $body
            }
            _ => {
                type $T = U16;
                $body
            }
        }
    }};
}

type LibResult<T> = Result<T, blockmodes::Error>;

/// An AEAD with its tag length fixed at construction, from the input
/// buffer straight into the output (no copy where the mode allows it).
trait Sealer: Send + Sync {
    /// `out` = room for ciphertext ‖ tag (`msg.len()` + the tag length).
    fn seal(&self, nonce: &[u8], ad: &[u8], msg: &[u8], out: &mut [u8]) -> LibResult<()>;
    /// `out` = room for the plaintext (`ct.len()` bytes); wiped on failure.
    fn open(&self, nonce: &[u8], ad: &[u8], ct: &[u8], tag: &[u8], out: &mut [u8])
    -> LibResult<()>;
}

struct OcbSealer<C, T: TagSize<Hazmat>>(Ocb1<C, T>);

/// OCB 1.0 through the `aead` in-out interface: the library reads `msg`
/// and writes `out` in one pass (its inherent methods work in place, which
/// would cost a copy of the input first).
impl<C, T> Sealer for OcbSealer<C, T>
where
    C: BlockCipher128Dec + Send + Sync,
    T: TagSize<Hazmat>,
{
    fn seal(&self, nonce: &[u8], _ad: &[u8], msg: &[u8], out: &mut [u8]) -> LibResult<()> {
        let nonce = aead::Nonce::<Ocb1<C, T>>::try_from(nonce).map_err(|_| bad_nonce(nonce))?;
        let (ct, tag_out) = out.split_at_mut(msg.len());
        let buf = InOutBuf::new(msg, ct)
            .map_err(|_| blockmodes::Error::InvalidLength("output buffer"))?;
        let tag = self
            .0
            .encrypt_inout_detached(&nonce, &[], buf)
            .map_err(|_| blockmodes::Error::InvalidLength("OCB 1.0 input"))?;
        tag_out.copy_from_slice(&tag);
        Ok(())
    }
    fn open(
        &self,
        nonce: &[u8],
        _ad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> LibResult<()> {
        let nonce = aead::Nonce::<Ocb1<C, T>>::try_from(nonce).map_err(|_| bad_nonce(nonce))?;
        let tag = aead::Tag::<Ocb1<C, T>>::try_from(tag)
            .map_err(|_| blockmodes::Error::Authentication)?;
        let buf = InOutBuf::new(ct, out)
            .map_err(|_| blockmodes::Error::InvalidLength("output buffer"))?;
        self.0
            .decrypt_inout_detached(&nonce, &[], buf, &tag)
            .map_err(|_| blockmodes::Error::Authentication)
    }
}

fn bad_nonce(nonce: &[u8]) -> blockmodes::Error {
    blockmodes::Error::InvalidNonceLength {
        expected: 16,
        got: nonce.len(),
    }
}

struct CwcSealer<C, T: TagSize<Hazmat>>(Cwc<C, T>);

/// CWC in place on the output (its in-out interface copies the input there
/// first too: the hash reads the ciphertext).
impl<C, T> Sealer for CwcSealer<C, T>
where
    C: BlockCipher128 + Send + Sync,
    T: TagSize<Hazmat>,
{
    fn seal(&self, nonce: &[u8], ad: &[u8], msg: &[u8], out: &mut [u8]) -> LibResult<()> {
        let (ct, tag_out) = out.split_at_mut(msg.len());
        ct.copy_from_slice(msg);
        let tag = self.0.encrypt_detached(nonce, ad, ct)?;
        tag_out.copy_from_slice(&tag);
        Ok(())
    }
    fn open(
        &self,
        nonce: &[u8],
        ad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> LibResult<()> {
        out.copy_from_slice(ct);
        self.0.decrypt_detached(nonce, ad, out, tag)
    }
}

fn ocb_sealer(key: &[u8], tag_len: usize) -> PyResult<Box<dyn Sealer>> {
    let made: LibResult<Box<dyn Sealer>> = by_aes_key!(key.len(), C => by_tag_len!(tag_len, T => {
        Ocb1::<C, T>::new_from_slice(key).map(|o| Box::new(OcbSealer(o)) as Box<dyn Sealer>)
    }), _ => return Err(key_error("16, 24 or 32", key.len())));
    made.map_err(|e| to_py(e, Auth::None))
}

fn cwc_sealer(key: &[u8], tag_len: usize) -> PyResult<Box<dyn Sealer>> {
    let made: LibResult<Box<dyn Sealer>> = by_aes_key!(key.len(), C => by_tag_len!(tag_len, T => {
        Cwc::<C, T>::new_from_slice(key).map(|o| Box::new(CwcSealer(o)) as Box<dyn Sealer>)
    }), _ => return Err(key_error("16, 24 or 32", key.len())));
    made.map_err(|e| to_py(e, Auth::None))
}

fn seal<'py>(
    py: Python<'py>,
    s: &dyn Sealer,
    tag_len: usize,
    nonce: &[u8],
    ad: &[u8],
    data: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let total = data
        .len()
        .checked_add(tag_len)
        .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("input too long"))?;
    new_bytes(py, total, data.len() + ad.len(), move |out| {
        s.seal(nonce, ad, data, out)
            .map_err(|e| to_py(e, Auth::None))
    })
}

fn open<'py>(
    py: Python<'py>,
    s: &dyn Sealer,
    tag_len: usize,
    nonce: &[u8],
    ad: &[u8],
    data: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let Some(ct_len) = data.len().checked_sub(tag_len) else {
        return Err(InvalidTag::new_err(format!(
            "ciphertext too short: need at least the {tag_len}-byte tag, got {} bytes",
            data.len()
        )));
    };
    let (ct, tag) = data.split_at(ct_len);
    new_bytes(py, ct_len, data.len() + ad.len(), move |out| {
        s.open(nonce, ad, ct, tag, out)
            .map_err(|e| to_py(e, Auth::Tag))
    })
}

/// `ValueError` unless `out` (an output buffer) is disjoint from every input.
fn check_disjoint(out: &[u8], inputs: &[&[u8]]) -> PyResult<()> {
    let o = out.as_ptr_range();
    for i in inputs {
        let r = i.as_ptr_range();
        if !i.is_empty() && !out.is_empty() && r.start < o.end && o.start < r.end {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "out must not overlap the input buffers",
            ));
        }
    }
    Ok(())
}

/// `encrypt_into`: ``ciphertext ‖ tag`` into the first bytes of `out`.
fn seal_into(
    py: Python<'_>,
    s: &dyn Sealer,
    tag_len: usize,
    nonce: &[u8],
    ad: &[u8],
    data: &[u8],
    out: &mut BufMut,
) -> PyResult<usize> {
    let out = out.as_mut_slice();
    let need = data.len().saturating_add(tag_len);
    if out.len() < need {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "out too small: expected at least {need} bytes (len(data) + tag_length), got {}",
            out.len()
        )));
    }
    check_disjoint(out, &[nonce, ad, data])?;
    let out = &mut out[..need];
    run(py, data.len() + ad.len(), move || {
        s.seal(nonce, ad, data, out)
    })?
    .map_err(|e| to_py(e, Auth::None))?;
    Ok(need)
}

/// `decrypt_into`: the plaintext into the first bytes of `out` (wiped on
/// failure).
fn open_into(
    py: Python<'_>,
    s: &dyn Sealer,
    tag_len: usize,
    nonce: &[u8],
    ad: &[u8],
    data: &[u8],
    out: &mut BufMut,
) -> PyResult<usize> {
    let Some(ct_len) = data.len().checked_sub(tag_len) else {
        return Err(InvalidTag::new_err(format!(
            "ciphertext too short: need at least the {tag_len}-byte tag, got {} bytes",
            data.len()
        )));
    };
    let out = out.as_mut_slice();
    if out.len() < ct_len {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "out too small: expected at least {ct_len} bytes (len(data) - tag_length), got {}",
            out.len()
        )));
    }
    check_disjoint(out, &[nonce, ad, data])?;
    let (ct, tag) = data.split_at(ct_len);
    let out = &mut out[..ct_len];
    run(py, data.len() + ad.len(), move || {
        s.open(nonce, ad, ct, tag, out)
    })?
    .map_err(|e| to_py(e, Auth::Tag))?;
    Ok(ct_len)
}

/// OCB 1.0 (Rogaway, Bellare, Black, Krovetz 2001) over AES: authenticated
/// encryption in one pass, 16-byte nonce, no associated data.
///
/// ``OCB1(key, tag_length=16)``: ``key`` is 16, 24 or 32 bytes (AES-128,
/// -192, -256); ``tag_length`` 8 to 16 bytes (a shorter tag is the prefix of
/// the full one; a ``t``-byte tag is forged with probability 2^-8t per try,
/// so the papers' 1- to 7-byte tags are only in ``blockmodes.hazmat.OCB1``).
///
/// ``encrypt(nonce, data)`` returns ``ciphertext ‖ tag``;
/// ``decrypt(nonce, data)`` returns the plaintext or raises
/// ``blockmodes.InvalidTag``. Never reuse a nonce under one key.
///
/// Example::
///
///     >>> import os, blockmodes
///     >>> ocb = blockmodes.OCB1(bytes(16))
///     >>> nonce = os.urandom(16)
///     >>> sealed = ocb.encrypt(nonce, b"attack at dawn")
///     >>> len(sealed)
///     30
///     >>> ocb.decrypt(nonce, sealed)
///     b'attack at dawn'
#[pyclass(frozen, subclass, module = "blockmodes", name = "OCB1")]
pub struct PyOcb1 {
    inner: Box<dyn Sealer>,
    tag_len: usize,
}

impl PyOcb1 {
    /// Keyed with a tag length already checked (1..=16).
    pub(crate) fn keyed(key: &[u8], tag_len: usize) -> PyResult<Self> {
        Ok(Self {
            inner: ocb_sealer(key, tag_len)?,
            tag_len,
        })
    }
}

#[pymethods]
impl PyOcb1 {
    #[new]
    #[pyo3(signature = (key, tag_length = None), text_signature = "(key, tag_length=16)")]
    fn new(key: Buf, tag_length: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let tag_len = match tag_length {
            Some(t) => tag_length_arg(t, "OCB1")?,
            None => 16,
        };
        Self::keyed(key.as_slice(), tag_len)
    }

    /// encrypt(nonce, data) -> bytes
    ///
    /// ``ciphertext ‖ tag`` of ``data`` under the 16-byte ``nonce``
    /// (``len(data) + tag_length`` bytes).
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Buf,
        data: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        block_arg::<16>(nonce.as_slice(), "nonce")?;
        seal(
            py,
            &*self.inner,
            self.tag_len,
            nonce.as_slice(),
            &[],
            data.as_slice(),
        )
    }

    /// decrypt(nonce, data) -> bytes
    ///
    /// The plaintext of ``ciphertext ‖ tag``; raises ``InvalidTag`` if it
    /// does not authenticate (nothing is returned then).
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Buf,
        data: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        block_arg::<16>(nonce.as_slice(), "nonce")?;
        open(
            py,
            &*self.inner,
            self.tag_len,
            nonce.as_slice(),
            &[],
            data.as_slice(),
        )
    }

    /// encrypt_into(nonce, data, out) -> int
    ///
    /// As ``encrypt``, written into the writable buffer ``out`` (at least
    /// ``len(data) + tag_length`` bytes, not overlapping ``data``) instead
    /// of a new ``bytes``; returns the number of bytes written. Reusing one
    /// output buffer saves the allocation of a large result.
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: Buf,
        data: Buf,
        mut out: BufMut,
    ) -> PyResult<usize> {
        block_arg::<16>(nonce.as_slice(), "nonce")?;
        seal_into(
            py,
            &*self.inner,
            self.tag_len,
            nonce.as_slice(),
            &[],
            data.as_slice(),
            &mut out,
        )
    }

    /// decrypt_into(nonce, data, out) -> int
    ///
    /// As ``decrypt``, written into ``out`` (at least ``len(data) -
    /// tag_length`` bytes); returns the plaintext length. On ``InvalidTag``
    /// those bytes of ``out`` are zeroed.
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: Buf,
        data: Buf,
        mut out: BufMut,
    ) -> PyResult<usize> {
        block_arg::<16>(nonce.as_slice(), "nonce")?;
        open_into(
            py,
            &*self.inner,
            self.tag_len,
            nonce.as_slice(),
            &[],
            data.as_slice(),
            &mut out,
        )
    }

    /// The tag length in bytes.
    #[getter]
    fn tag_length(&self) -> usize {
        self.tag_len
    }

    fn __repr__(&self) -> String {
        format!("OCB1(<key>, tag_length={})", self.tag_len)
    }
}

/// CWC (Kohno, Viega, Whiting 2004) over AES: authenticated encryption with
/// associated data (counter mode and a Carter-Wegman hash mod 2^127 - 1),
/// 11-byte nonce.
///
/// ``CWC(key, tag_length=16)``: ``key`` is 16, 24 or 32 bytes; ``tag_length``
/// 8 to 16 bytes (a ``t``-byte tag is forged with probability 2^-8t per try;
/// the papers' 1- to 7-byte tags are only in ``blockmodes.hazmat.CWC``).
///
/// ``encrypt(nonce, data, associated_data=None)`` returns
/// ``ciphertext ‖ tag``; ``decrypt(nonce, data, associated_data=None)``
/// returns the plaintext or raises ``blockmodes.InvalidTag``.
///
/// Example::
///
///     >>> import os, blockmodes
///     >>> cwc = blockmodes.CWC(bytes(32))
///     >>> nonce = os.urandom(11)
///     >>> ct = cwc.encrypt(nonce, b"secret", b"header")
///     >>> cwc.decrypt(nonce, ct, b"header")
///     b'secret'
#[pyclass(frozen, subclass, module = "blockmodes", name = "CWC")]
pub struct PyCwc {
    inner: Box<dyn Sealer>,
    tag_len: usize,
}

impl PyCwc {
    /// Keyed with a tag length already checked (1..=16).
    pub(crate) fn keyed(key: &[u8], tag_len: usize) -> PyResult<Self> {
        Ok(Self {
            inner: cwc_sealer(key, tag_len)?,
            tag_len,
        })
    }
}

#[pymethods]
impl PyCwc {
    #[new]
    #[pyo3(signature = (key, tag_length = None), text_signature = "(key, tag_length=16)")]
    fn new(key: Buf, tag_length: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let tag_len = match tag_length {
            Some(t) => tag_length_arg(t, "CWC")?,
            None => 16,
        };
        Self::keyed(key.as_slice(), tag_len)
    }

    /// encrypt(nonce, data, associated_data=None) -> bytes
    ///
    /// ``ciphertext ‖ tag`` of ``data`` under the 11-byte ``nonce``,
    /// authenticating ``associated_data`` too.
    #[pyo3(signature = (nonce, data, associated_data = None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Buf,
        data: Buf,
        associated_data: Option<Buf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        block_arg::<11>(nonce.as_slice(), "nonce")?;
        let ad = associated_data.as_ref().map_or(&[][..], Buf::as_slice);
        seal(
            py,
            &*self.inner,
            self.tag_len,
            nonce.as_slice(),
            ad,
            data.as_slice(),
        )
    }

    /// decrypt(nonce, data, associated_data=None) -> bytes
    ///
    /// The plaintext of ``ciphertext ‖ tag``; raises ``InvalidTag`` if it
    /// (or the associated data) does not authenticate.
    #[pyo3(signature = (nonce, data, associated_data = None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Buf,
        data: Buf,
        associated_data: Option<Buf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        block_arg::<11>(nonce.as_slice(), "nonce")?;
        let ad = associated_data.as_ref().map_or(&[][..], Buf::as_slice);
        open(
            py,
            &*self.inner,
            self.tag_len,
            nonce.as_slice(),
            ad,
            data.as_slice(),
        )
    }

    /// encrypt_into(nonce, data, out, associated_data=None) -> int
    ///
    /// As ``encrypt``, written into the writable buffer ``out`` (at least
    /// ``len(data) + tag_length`` bytes, not overlapping the inputs);
    /// returns the number of bytes written.
    #[pyo3(signature = (nonce, data, out, associated_data = None))]
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: Buf,
        data: Buf,
        mut out: BufMut,
        associated_data: Option<Buf>,
    ) -> PyResult<usize> {
        block_arg::<11>(nonce.as_slice(), "nonce")?;
        let ad = associated_data.as_ref().map_or(&[][..], Buf::as_slice);
        seal_into(
            py,
            &*self.inner,
            self.tag_len,
            nonce.as_slice(),
            ad,
            data.as_slice(),
            &mut out,
        )
    }

    /// decrypt_into(nonce, data, out, associated_data=None) -> int
    ///
    /// As ``decrypt``, written into ``out`` (at least ``len(data) -
    /// tag_length`` bytes); returns the plaintext length. On ``InvalidTag``
    /// those bytes of ``out`` are zeroed.
    #[pyo3(signature = (nonce, data, out, associated_data = None))]
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: Buf,
        data: Buf,
        mut out: BufMut,
        associated_data: Option<Buf>,
    ) -> PyResult<usize> {
        block_arg::<11>(nonce.as_slice(), "nonce")?;
        let ad = associated_data.as_ref().map_or(&[][..], Buf::as_slice);
        open_into(
            py,
            &*self.inner,
            self.tag_len,
            nonce.as_slice(),
            ad,
            data.as_slice(),
            &mut out,
        )
    }

    /// The tag length in bytes.
    #[getter]
    fn tag_length(&self) -> usize {
        self.tag_len
    }

    fn __repr__(&self) -> String {
        format!("CWC(<key>, tag_length={})", self.tag_len)
    }
}

/// The XCBC family (XCBC$-XOR, XCBC$, pXCBC$-XOR and their counter forms):
/// one call per function of the library.
pub(crate) trait Xcbc: Send + Sync {
    fn ciphertext_len(&self, msg_len: usize) -> LibResult<usize>;
    /// Encryption under a fresh random r0 (stateless forms only).
    fn encrypt_into(&self, msg: &[u8], out: &mut [u8]) -> LibResult<usize>;
    fn decrypt(&self, ct: &[u8]) -> LibResult<Vec<u8>>;
    /// Encryption under a caller-chosen r0 (stateless forms) or counter
    /// value (counter forms).
    fn encrypt_with(&self, value: &Block, msg: &[u8], out: &mut [u8]) -> LibResult<usize>;
}

type Block = [u8; 16];

macro_rules! xcbc_stateless {
    ($ty:ident) => {
        impl<C: BlockCipher128Dec + Send + Sync> Xcbc for $ty<C> {
            fn ciphertext_len(&self, msg_len: usize) -> LibResult<usize> {
                $ty::ciphertext_len(self, msg_len)
            }
            fn encrypt_into(&self, msg: &[u8], out: &mut [u8]) -> LibResult<usize> {
                $ty::encrypt_into(self, msg, out)
            }
            fn decrypt(&self, ct: &[u8]) -> LibResult<Vec<u8>> {
                $ty::decrypt(self, ct)
            }
            fn encrypt_with(&self, r0: &Block, msg: &[u8], out: &mut [u8]) -> LibResult<usize> {
                EncryptWithR0::encrypt_with_r0_into(self, r0, msg, out)
            }
        }
    };
}

macro_rules! xcbc_stateful {
    ($ty:ident) => {
        impl<C: BlockCipher128Dec + Send + Sync> Xcbc for $ty<C> {
            fn ciphertext_len(&self, msg_len: usize) -> LibResult<usize> {
                $ty::ciphertext_len(self, msg_len)
            }
            fn encrypt_into(&self, _msg: &[u8], _out: &mut [u8]) -> LibResult<usize> {
                Err(blockmodes::Error::InvalidParameter(
                    "a counter form encrypts only under a given counter",
                ))
            }
            fn decrypt(&self, ct: &[u8]) -> LibResult<Vec<u8>> {
                $ty::decrypt(self, ct)
            }
            fn encrypt_with(&self, ctr: &Block, msg: &[u8], out: &mut [u8]) -> LibResult<usize> {
                EncryptWithCounter::encrypt_with_counter_into(self, ctr, msg, out)
            }
        }
    };
}

xcbc_stateless!(XcbcXor);
xcbc_stateless!(Xcbc_);
xcbc_stateless!(PxcbcXor);
xcbc_stateful!(XcbcXorStateful);
xcbc_stateful!(XcbcStateful);
xcbc_stateful!(PxcbcXorStateful);

/// Which member of the XCBC family a keyed object is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum XcbcForm {
    /// XCBC$-XOR.
    Xor,
    /// XCBC$ (no check block: privacy only).
    Plain,
    /// pXCBC$-XOR with S blocks per segment.
    PXor(usize),
    /// The counter forms of the three.
    XorCtr,
    PlainCtr,
    PXorCtr(usize),
}

/// The key of an XCBC-family mode: K ‖ K' (two-key) or K (`one_key`).
pub(crate) fn xcbc_keyed(key: &[u8], one_key: bool, form: XcbcForm) -> PyResult<Box<dyn Xcbc>> {
    fn make<C>(key: &[u8], one_key: bool, form: XcbcForm) -> LibResult<Box<dyn Xcbc>>
    where
        C: BlockCipher128Dec + blockmodes::cipher::KeyInit + Send + Sync + 'static,
    {
        macro_rules! keyed {
            ($ty:ty) => {
                if one_key {
                    <$ty>::new_from_slice_one_key(key)?
                } else {
                    <$ty>::new_from_slice(key)?
                }
            };
        }
        Ok(match form {
            XcbcForm::Xor => Box::new(keyed!(XcbcXor<C>)),
            XcbcForm::Plain => Box::new(keyed!(Xcbc_<C>)),
            XcbcForm::PXor(s) => Box::new(keyed!(PxcbcXor<C>).with_segment_blocks(s)?),
            XcbcForm::XorCtr => Box::new(keyed!(XcbcXorStateful<C>)),
            XcbcForm::PlainCtr => Box::new(keyed!(XcbcStateful<C>)),
            XcbcForm::PXorCtr(s) => Box::new(keyed!(PxcbcXorStateful<C>).with_segment_blocks(s)?),
        })
    }
    let (aes_len, expected) = if one_key {
        (key.len(), "16, 24 or 32 (one AES key, one_key=True)")
    } else if key.len().is_multiple_of(2) {
        (
            key.len() / 2,
            "32, 48 or 64 (K ‖ K', two AES keys of one size)",
        )
    } else {
        (0, "32, 48 or 64 (K ‖ K', two AES keys of one size)")
    };
    by_aes_key!(aes_len, C => make::<C>(key, one_key, form),
        _ => return Err(key_error(expected, key.len())))
    .map_err(|e| to_py(e, Auth::None))
}

/// A `segment_blocks` argument: an int in 1..2**32 - 1.
pub(crate) fn segment_blocks_arg(s: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    let Some(s) = s else {
        return Ok(blockmodes::pxcbc::DEFAULT_SEGMENT_BLOCKS);
    };
    let v = crate::u64_arg(s, "segment_blocks")?;
    if !(1..=u32::MAX as u64).contains(&v) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "segment_blocks must be in 1..=4294967295 blocks, got {v}"
        )));
    }
    Ok(v as usize)
}

pub(crate) fn xcbc_encrypt<'py>(
    py: Python<'py>,
    x: &dyn Xcbc,
    msg: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let len = x
        .ciphertext_len(msg.len())
        .map_err(|e| to_py(e, Auth::None))?;
    new_bytes(py, len, msg.len(), move |out| {
        x.encrypt_into(msg, out)
            .map(|_| ())
            .map_err(|e| to_py(e, Auth::None))
    })
}

pub(crate) fn xcbc_decrypt<'py>(
    py: Python<'py>,
    x: &dyn Xcbc,
    ct: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let pt = run(py, ct.len(), move || x.decrypt(ct))?.map_err(|e| to_py(e, Auth::Tag))?;
    Ok(PyBytes::new(py, &pt))
}

pub(crate) fn xcbc_encrypt_with<'py>(
    py: Python<'py>,
    x: &dyn Xcbc,
    value: &[u8],
    what: &str,
    msg: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let value = block_arg::<16>(value, what)?;
    let len = x
        .ciphertext_len(msg.len())
        .map_err(|e| to_py(e, Auth::None))?;
    new_bytes(py, len, msg.len(), move |out| {
        x.encrypt_with(&value, msg, out)
            .map(|_| ())
            .map_err(|e| to_py(e, Auth::None))
    })
}

/// XCBC$-XOR (Gligor, Donescu 2000) over AES: encryption with integrity in
/// one CBC-like pass; a fresh random r0 for every message, sent as
/// ``y0 = E_K(r0)``; no associated data. Encryption is serial (like CBC),
/// decryption parallel; see ``PXCBCXor`` for parallel encryption.
///
/// ``XCBCXor(key, one_key=False)``: ``key`` is K ‖ K' (32, 48 or 64 bytes:
/// two AES-128/192/256 keys), or one AES key (16, 24 or 32 bytes) with
/// ``one_key=True`` (the paper's one-key form, whose ciphertexts differ).
///
/// ``encrypt(data)`` returns ``y0 ‖ ciphertext`` (``16 * (len(data) // 16 +
/// 3)`` bytes); ``decrypt(data)`` returns the plaintext or raises
/// ``blockmodes.InvalidTag``.
///
/// Example::
///
///     >>> import os, blockmodes
///     >>> x = blockmodes.XCBCXor(os.urandom(32))
///     >>> ct = x.encrypt(b"attack at dawn")
///     >>> len(ct)
///     48
///     >>> x.decrypt(ct)
///     b'attack at dawn'
#[pyclass(frozen, module = "blockmodes", name = "XCBCXor")]
pub struct PyXcbcXor {
    inner: Box<dyn Xcbc>,
    one_key: bool,
}

#[pymethods]
impl PyXcbcXor {
    #[new]
    #[pyo3(signature = (key, one_key = false))]
    fn new(key: Buf, one_key: bool) -> PyResult<Self> {
        Ok(Self {
            inner: xcbc_keyed(key.as_slice(), one_key, XcbcForm::Xor)?,
            one_key,
        })
    }

    /// encrypt(data) -> bytes
    ///
    /// ``y0 ‖ ciphertext`` of ``data`` with a fresh random r0.
    fn encrypt<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_encrypt(py, &*self.inner, data.as_slice())
    }

    /// decrypt(data) -> bytes
    ///
    /// The plaintext of ``y0 ‖ ciphertext``; raises ``InvalidTag`` if the
    /// check block does not verify.
    fn decrypt<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_decrypt(py, &*self.inner, data.as_slice())
    }

    /// _encrypt_with_r0(r0, data) -> bytes
    ///
    /// **Hazardous, for test vectors only**: encrypt with a caller-chosen
    /// r0 (never reuse one under a key; a non-random r0 voids the proof).
    fn _encrypt_with_r0<'py>(
        &self,
        py: Python<'py>,
        r0: Buf,
        data: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_encrypt_with(py, &*self.inner, r0.as_slice(), "r0", data.as_slice())
    }

    fn __repr__(&self) -> String {
        format!(
            "XCBCXor(<key>, one_key={})",
            if self.one_key { "True" } else { "False" }
        )
    }
}

/// pXCBC$-XOR (Gligor, Donescu 2000) over AES: the parallel form of
/// ``XCBCXor``, the message cut into segments of ``segment_blocks`` blocks
/// (each its own chain, encrypted on several threads when large).
///
/// ``PXCBCXor(key, segment_blocks=1024, one_key=False)``: keys as for
/// ``XCBCXor``; ``segment_blocks`` 1 to 2**32 - 1. Methods as ``XCBCXor``.
///
/// Example::
///
///     >>> import os, blockmodes
///     >>> p = blockmodes.PXCBCXor(os.urandom(32), segment_blocks=16)
///     >>> msg = bytes(5000)
///     >>> p.decrypt(p.encrypt(msg)) == msg
///     True
#[pyclass(frozen, module = "blockmodes", name = "PXCBCXor")]
pub struct PyPxcbcXor {
    inner: Box<dyn Xcbc>,
    segment_blocks: usize,
    one_key: bool,
}

#[pymethods]
impl PyPxcbcXor {
    #[new]
    #[pyo3(
        signature = (key, segment_blocks = None, one_key = false),
        text_signature = "(key, segment_blocks=1024, one_key=False)"
    )]
    fn new(key: Buf, segment_blocks: Option<&Bound<'_, PyAny>>, one_key: bool) -> PyResult<Self> {
        let segment_blocks = segment_blocks_arg(segment_blocks)?;
        Ok(Self {
            inner: xcbc_keyed(key.as_slice(), one_key, XcbcForm::PXor(segment_blocks))?,
            segment_blocks,
            one_key,
        })
    }

    /// encrypt(data) -> bytes
    ///
    /// ``y0 ‖ ciphertext`` of ``data`` with a fresh random r0.
    fn encrypt<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_encrypt(py, &*self.inner, data.as_slice())
    }

    /// decrypt(data) -> bytes
    ///
    /// The plaintext of ``y0 ‖ ciphertext``; raises ``InvalidTag`` if a
    /// check block does not verify.
    fn decrypt<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_decrypt(py, &*self.inner, data.as_slice())
    }

    /// _encrypt_with_r0(r0, data) -> bytes
    ///
    /// **Hazardous, for test vectors only**: encrypt with a caller-chosen r0.
    fn _encrypt_with_r0<'py>(
        &self,
        py: Python<'py>,
        r0: Buf,
        data: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_encrypt_with(py, &*self.inner, r0.as_slice(), "r0", data.as_slice())
    }

    /// Blocks per segment.
    #[getter]
    fn segment_blocks(&self) -> usize {
        self.segment_blocks
    }

    fn __repr__(&self) -> String {
        format!(
            "PXCBCXor(<key>, segment_blocks={}, one_key={})",
            self.segment_blocks,
            if self.one_key { "True" } else { "False" }
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyOcb1>()?;
    m.add_class::<PyCwc>()?;
    m.add_class::<PyXcbcXor>()?;
    m.add_class::<PyPxcbcXor>()?;
    Ok(())
}
