//! Authenticated encryption: `OCB1`, `CWC`, `XCBCXor`, `PXCBCXor`.

use blockmodes::aead::inout::InOutBuf;
use blockmodes::aead::{self, AeadInOut};
// The hazmat forms (tags of 1..=16 bytes; the same code as the safe types):
// the Python constructors enforce the safe API's 8-byte floor, and
// `blockmodes.hazmat`'s classes (`short_tags.rs`) the papers' 1..=16.
use blockmodes::cwc::CwcEncryptor;
use blockmodes::cwc::hazmat::Cwc;
use blockmodes::ocb1::Ocb1Encryptor;
use blockmodes::ocb1::hazmat::Ocb1;
use blockmodes::oracle::{BlockCipher128, BlockCipher128Dec};
use blockmodes::pxcbc::{PxcbcXor, PxcbcXorStateful};
use blockmodes::tag::{Hazmat, TagSize};
use blockmodes::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
use blockmodes::xcbc::{Xcbc as Xcbc_, XcbcStateful, XcbcXor, XcbcXorStateful};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};

use crate::buf::{Buf, BufMut};
use crate::{
    AES_BITS, AlreadyFinalized, Auth, InvalidTag, NotYetFinalized, XCBC_BITS, block_arg,
    generate_key, key_error, new_bytes, run, tag_length_arg, to_py,
};

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
    /// The library's on-line encryptor under `nonce` (and `ad`, read now).
    fn encryptor<'a>(&'a self, nonce: &[u8], ad: &[u8]) -> LibResult<Box<dyn OnlineEnc + 'a>>;
}

/// A library on-line encryptor (`Ocb1Encryptor`, `CwcEncryptor`).
pub(crate) trait OnlineEnc: Send {
    /// Append the ciphertext of `data` that is ready to `out`.
    fn update(&mut self, data: &[u8], out: &mut Vec<u8>) -> LibResult<()>;
    /// Append the held-back ciphertext to `out`; the tag.
    fn finish(self: Box<Self>, out: &mut Vec<u8>) -> Vec<u8>;
}

impl<C: BlockCipher128 + Sync, T: TagSize<P>, P: blockmodes::tag::TagPolicy> OnlineEnc
    for Ocb1Encryptor<'_, C, T, P>
{
    fn update(&mut self, data: &[u8], out: &mut Vec<u8>) -> LibResult<()> {
        Ocb1Encryptor::update(self, data, out);
        Ok(())
    }
    fn finish(self: Box<Self>, out: &mut Vec<u8>) -> Vec<u8> {
        Ocb1Encryptor::finish(*self, out).to_vec()
    }
}

impl<C: BlockCipher128 + Sync, T: TagSize<P>, P: blockmodes::tag::TagPolicy> OnlineEnc
    for CwcEncryptor<'_, C, T, P>
{
    fn update(&mut self, data: &[u8], out: &mut Vec<u8>) -> LibResult<()> {
        CwcEncryptor::update(self, data, out)
    }
    fn finish(self: Box<Self>, out: &mut Vec<u8>) -> Vec<u8> {
        CwcEncryptor::finish(*self, out).to_vec()
    }
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
    fn encryptor<'a>(&'a self, nonce: &[u8], _ad: &[u8]) -> LibResult<Box<dyn OnlineEnc + 'a>> {
        Ok(Box::new(self.0.encryptor(nonce)?))
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
    fn encryptor<'a>(&'a self, nonce: &[u8], ad: &[u8]) -> LibResult<Box<dyn OnlineEnc + 'a>> {
        Ok(Box::new(self.0.encryptor(nonce, ad)?))
    }
}

fn ocb_sealer(key: &[u8], tag_len: usize) -> PyResult<Arc<dyn Sealer>> {
    let made: LibResult<Arc<dyn Sealer>> = by_aes_key!(key.len(), C => by_tag_len!(tag_len, T => {
        Ocb1::<C, T>::new_from_slice(key).map(|o| Arc::new(OcbSealer(o)) as Arc<dyn Sealer>)
    }), _ => return Err(key_error("16, 24 or 32", key.len())));
    made.map_err(|e| to_py(e, Auth::None))
}

fn cwc_sealer(key: &[u8], tag_len: usize) -> PyResult<Arc<dyn Sealer>> {
    let made: LibResult<Arc<dyn Sealer>> = by_aes_key!(key.len(), C => by_tag_len!(tag_len, T => {
        Cwc::<C, T>::new_from_slice(key).map(|o| Arc::new(CwcSealer(o)) as Arc<dyn Sealer>)
    }), _ => return Err(key_error("16, 24 or 32", key.len())));
    made.map_err(|e| to_py(e, Auth::None))
}

/// What an AEAD class takes besides the key: its name, nonce length, and
/// whether it authenticates associated data.
pub(crate) struct Shape {
    name: &'static str,
    nonce_len: usize,
    takes_ad: bool,
}

const OCB1_SHAPE: Shape = Shape {
    name: "OCB1",
    nonce_len: 16,
    takes_ad: false,
};

const CWC_SHAPE: Shape = Shape {
    name: "CWC",
    nonce_len: 11,
    takes_ad: true,
};

/// `ocb_sealer` or `cwc_sealer`.
type MakeSealer = fn(&[u8], usize) -> PyResult<Arc<dyn Sealer>>;

/// A keyed AEAD (`OCB1` or `CWC`): every method of the two classes.
struct Keyed {
    inner: Arc<dyn Sealer>,
    tag_len: usize,
    shape: &'static Shape,
}

fn too_short(tag_len: usize, got: usize) -> PyErr {
    InvalidTag::new_err(format!(
        "ciphertext too short: need at least the {tag_len}-byte tag, got {got} bytes"
    ))
}

impl Keyed {
    fn new(
        key: &[u8],
        tag_length: Option<&Bound<'_, PyAny>>,
        shape: &'static Shape,
        make: MakeSealer,
    ) -> PyResult<Self> {
        let tag_len = match tag_length {
            Some(t) => tag_length_arg(t, shape.name)?,
            None => 16,
        };
        Self::with_len(key, tag_len, shape, make)
    }

    /// Keyed with a tag length already checked (the main classes' 8..=16,
    /// or the hazmat classes' 1..=16).
    fn with_len(
        key: &[u8],
        tag_len: usize,
        shape: &'static Shape,
        make: MakeSealer,
    ) -> PyResult<Self> {
        Ok(Self {
            inner: make(key, tag_len)?,
            tag_len,
            shape,
        })
    }

    /// The nonce, or `ValueError` naming its length.
    fn nonce<'a>(&self, nonce: &'a Buf) -> PyResult<&'a [u8]> {
        let n = nonce.as_slice();
        if n.len() != self.shape.nonce_len {
            return Err(PyValueError::new_err(format!(
                "invalid nonce length: expected {} bytes, got {}",
                self.shape.nonce_len,
                n.len()
            )));
        }
        Ok(n)
    }

    /// The associated data: OCB 1.0 takes none (`None` or empty only).
    fn ad<'a>(&self, ad: Option<&'a Buf>) -> PyResult<&'a [u8]> {
        let ad = ad.map_or(&[][..], Buf::as_slice);
        if !self.shape.takes_ad && !ad.is_empty() {
            return Err(PyValueError::new_err(format!(
                "{} (OCB 1.0) authenticates no associated data: pass None or b\"\" \
                 (got {} bytes); use blockmodes.CWC for associated data",
                self.shape.name,
                ad.len()
            )));
        }
        Ok(ad)
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Buf,
        data: &Buf,
        ad: Option<&Buf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (nonce, ad, data) = (self.nonce(nonce)?, self.ad(ad)?, data.as_slice());
        let s = &*self.inner;
        let total = data
            .len()
            .checked_add(self.tag_len)
            .ok_or_else(|| PyValueError::new_err("input too long"))?;
        new_bytes(py, total, data.len() + ad.len(), move |out| {
            s.seal(nonce, ad, data, out)
                .map_err(|e| to_py(e, Auth::None))
        })
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Buf,
        data: &Buf,
        ad: Option<&Buf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (nonce, ad, data) = (self.nonce(nonce)?, self.ad(ad)?, data.as_slice());
        let s = &*self.inner;
        let ct_len = data
            .len()
            .checked_sub(self.tag_len)
            .ok_or_else(|| too_short(self.tag_len, data.len()))?;
        let (ct, tag) = data.split_at(ct_len);
        // The new bytes object is nobody else's until returned: plaintext
        // written into it before the tag check is seen by no one.
        new_bytes(py, ct_len, data.len() + ad.len(), move |out| {
            s.open(nonce, ad, ct, tag, out)
                .map_err(|e| to_py(e, Auth::Tag))
        })
    }

    /// `encrypt_into`: ``ciphertext ‖ tag`` into the first bytes of `out`.
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Buf,
        data: &Buf,
        out: &mut BufMut,
        ad: Option<&Buf>,
    ) -> PyResult<usize> {
        // Before any slice of `out` exists: its range against the inputs'.
        let out = out.disjoint_mut_slice(&[Some(nonce), Some(data), ad])?;
        let (nonce, ad, data) = (self.nonce(nonce)?, self.ad(ad)?, data.as_slice());
        let need = data.len().saturating_add(self.tag_len);
        if out.len() < need {
            return Err(PyValueError::new_err(format!(
                "buf too small: expected at least {need} bytes (len(data) + tag_length), got {}",
                out.len()
            )));
        }
        let (out, s) = (&mut out[..need], &*self.inner);
        run(py, data.len() + ad.len(), move || {
            s.seal(nonce, ad, data, out)
        })?
        .map_err(|e| to_py(e, Auth::None))?;
        Ok(need)
    }

    /// `decrypt_into`: the plaintext into the first bytes of `out` (wiped
    /// on failure).
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Buf,
        data: &Buf,
        out: &mut BufMut,
        ad: Option<&Buf>,
    ) -> PyResult<usize> {
        let out = out.disjoint_mut_slice(&[Some(nonce), Some(data), ad])?;
        let (nonce, ad, data) = (self.nonce(nonce)?, self.ad(ad)?, data.as_slice());
        let ct_len = data
            .len()
            .checked_sub(self.tag_len)
            .ok_or_else(|| too_short(self.tag_len, data.len()))?;
        if out.len() < ct_len {
            return Err(PyValueError::new_err(format!(
                "buf too small: expected at least {ct_len} bytes (len(data) - tag_length), got {}",
                out.len()
            )));
        }
        let (ct, tag) = data.split_at(ct_len);
        let (out, s) = (&mut out[..ct_len], &*self.inner);
        run(py, data.len() + ad.len(), move || {
            s.open(nonce, ad, ct, tag, out)
        })?
        .map_err(|e| to_py(e, Auth::Tag))?;
        Ok(ct_len)
    }

    fn encryptor(&self, nonce: &Buf, ad: Option<&Buf>) -> PyResult<PyEncryptor> {
        let (nonce, ad) = (self.nonce(nonce)?, self.ad(ad)?);
        let cell = EncCell::try_new(self.inner.clone(), |s| s.encryptor(nonce, ad).map(Some))
            .map_err(|e| to_py(e, Auth::None))?;
        Ok(PyEncryptor {
            state: Mutex::new(EncState {
                cell: Some(cell),
                tag: None,
            }),
        })
    }
}

type EncBox<'a> = Option<Box<dyn OnlineEnc + 'a>>;

self_cell::self_cell!(
    /// A library on-line encryptor with the keyed mode it borrows.
    struct EncCell {
        owner: Arc<dyn Sealer>,
        #[covariant]
        dependent: EncBox,
    }
);

struct EncState {
    /// `None` once finalized.
    cell: Option<EncCell>,
    /// The tag, once finalized.
    tag: Option<Vec<u8>>,
}

/// An on-line encryption context, from ``OCB1(key).encryptor(nonce)`` or
/// ``CWC(key).encryptor(nonce, associated_data)``, shaped as
/// ``cryptography``'s ``AEADEncryptionContext``: ``update(data)`` returns
/// the ciphertext ready so far (OCB 1.0 holds back the last 1 to 16 bytes,
/// whose block is enciphered differently), ``finalize()`` the rest, and then
/// ``tag`` is the tag. The pieces joined, followed by ``tag``, are the
/// one-shot ``encrypt`` for any split of the message.
///
/// There is no on-line decryptor (``blockmodes.hazmat`` has none either):
/// it would release plaintext before the tag is checked.
///
/// Example::
///
///     >>> import blockmodes
///     >>> ocb = blockmodes.OCB1(bytes(16))
///     >>> enc = ocb.encryptor(bytes(16))
///     >>> ct = enc.update(b"attack ") + enc.update(b"at dawn") + enc.finalize()
///     >>> ct + enc.tag == ocb.encrypt(bytes(16), b"attack at dawn")
///     True
#[pyclass(frozen, module = "blockmodes", name = "AEADEncryptionContext")]
pub struct PyEncryptor {
    /// Locked only inside `run` (so with the GIL released for large
    /// pieces): a second thread waits rather than failing.
    state: Mutex<EncState>,
}

#[pymethods]
impl PyEncryptor {
    /// update(data) -> bytes
    ///
    /// Encrypt the next piece of the message; returns the ciphertext that
    /// is ready (possibly fewer bytes than ``data``).
    fn update<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        let (data, state) = (data.as_slice(), &self.state);
        let out = run(py, data.len(), move || -> PyResult<Vec<u8>> {
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            let cell = st.cell.as_mut().ok_or_else(already_finalized)?;
            let mut out = Vec::with_capacity(data.len() + 16);
            cell.with_dependent_mut(|_, enc| match enc {
                Some(enc) => enc.update(data, &mut out),
                None => Ok(()),
            })
            .map_err(|e| to_py(e, Auth::None))?;
            Ok(out)
        })??;
        Ok(PyBytes::new(py, &out))
    }

    /// finalize() -> bytes
    ///
    /// End the message: the rest of the ciphertext. The tag is then in
    /// ``tag``; the context takes no more data.
    fn finalize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let state = &self.state;
        let out = run(py, 0, move || -> PyResult<Vec<u8>> {
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            let mut cell = st.cell.take().ok_or_else(already_finalized)?;
            let mut out = Vec::with_capacity(16);
            let tag = cell.with_dependent_mut(|_, enc| enc.take().map(|e| e.finish(&mut out)));
            st.tag = tag;
            Ok(out)
        })??;
        Ok(PyBytes::new(py, &out))
    }

    /// The tag (``tag_length`` bytes), once ``finalize()`` has been called;
    /// ``blockmodes.NotYetFinalized`` before.
    #[getter]
    fn tag<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match &st.tag {
            Some(t) => Ok(PyBytes::new(py, t)),
            None => Err(NotYetFinalized::new_err(
                "the tag is available after finalize()",
            )),
        }
    }

    fn __repr__(&self) -> &'static str {
        "AEADEncryptionContext(<state>)"
    }
}

fn already_finalized() -> PyErr {
    AlreadyFinalized::new_err("the encryption context is already finalized")
}

/// OCB 1.0 (Rogaway, Bellare, Black, Krovetz 2001) over AES: authenticated
/// encryption in one pass, 16-byte nonce, no associated data.
///
/// ``OCB1(key, tag_length=16)``: ``key`` is 16, 24 or 32 bytes (AES-128,
/// -192, -256; ``OCB1.generate_key(bit_length)`` draws one); ``tag_length``
/// 8 to 16 bytes (a shorter tag is the prefix of the full one; a ``t``-byte
/// tag is forged with probability 2^-8t per try, so the papers' 1- to
/// 7-byte tags are only in ``blockmodes.hazmat.OCB1``).
///
/// ``encrypt(nonce, data, associated_data=None)`` returns ``ciphertext ‖
/// tag``; ``decrypt(nonce, data, associated_data=None)`` returns the
/// plaintext or raises ``blockmodes.InvalidTag`` (the shape of
/// ``cryptography``'s ``AESOCB3``; OCB 1.0 authenticates no associated data,
/// so ``associated_data`` must be ``None`` or empty: ``ValueError``
/// otherwise). ``encryptor(nonce)`` encrypts a message given in pieces.
/// Never reuse a nonce under one key.
///
/// ``decrypt_into`` writes the plaintext into the caller's buffer while it
/// decrypts and checks the tag only at the end (zeroing the buffer if it
/// fails): until it returns, another thread or process that can read that
/// buffer may see unauthenticated plaintext (as with ``cryptography``'s
/// ``decrypt_into``). ``decrypt`` has no such window.
///
/// Example::
///
///     >>> import os, blockmodes
///     >>> ocb = blockmodes.OCB1(blockmodes.OCB1.generate_key(128))
///     >>> nonce = os.urandom(16)
///     >>> sealed = ocb.encrypt(nonce, b"attack at dawn", None)
///     >>> len(sealed)
///     30
///     >>> ocb.decrypt(nonce, sealed, None)
///     b'attack at dawn'
#[pyclass(frozen, subclass, module = "blockmodes", name = "OCB1")]
pub struct PyOcb1(Keyed);

impl PyOcb1 {
    /// Keyed with a tag length already checked (1..=16).
    pub(crate) fn keyed(key: &[u8], tag_len: usize) -> PyResult<Self> {
        Keyed::with_len(key, tag_len, &OCB1_SHAPE, ocb_sealer).map(Self)
    }
}

#[pymethods]
impl PyOcb1 {
    #[new]
    #[pyo3(signature = (key, tag_length = None), text_signature = "(key, tag_length=16)")]
    fn new(key: Buf, tag_length: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Keyed::new(key.as_slice(), tag_length, &OCB1_SHAPE, ocb_sealer).map(Self)
    }

    /// generate_key(bit_length) -> bytes
    ///
    /// A new random key of ``bit_length`` bits (128, 192 or 256) from the
    /// operating system's generator.
    #[classmethod]
    fn generate_key<'py>(
        cls: &Bound<'py, PyType>,
        bit_length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        generate_key(cls.py(), bit_length, AES_BITS)
    }

    /// encrypt(nonce, data, associated_data=None) -> bytes
    ///
    /// ``ciphertext ‖ tag`` of ``data`` under the 16-byte ``nonce``
    /// (``len(data) + tag_length`` bytes). ``associated_data``: ``None`` or
    /// empty (OCB 1.0 has none).
    #[pyo3(signature = (nonce, data, associated_data = None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Buf,
        data: Buf,
        associated_data: Option<Buf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.0.encrypt(py, &nonce, &data, associated_data.as_ref())
    }

    /// decrypt(nonce, data, associated_data=None) -> bytes
    ///
    /// The plaintext of ``ciphertext ‖ tag``; raises ``InvalidTag`` if it
    /// does not authenticate (nothing is returned then).
    #[pyo3(signature = (nonce, data, associated_data = None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Buf,
        data: Buf,
        associated_data: Option<Buf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.0.decrypt(py, &nonce, &data, associated_data.as_ref())
    }

    /// encrypt_into(nonce, data, associated_data, buf) -> int
    ///
    /// As ``encrypt``, written into the writable buffer ``buf`` (at least
    /// ``len(data) + tag_length`` bytes, not overlapping the inputs)
    /// instead of a new ``bytes``; returns the number of bytes written.
    /// Reusing one output buffer saves the allocation of a large result.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: Buf,
        data: Buf,
        associated_data: Option<Buf>,
        mut buf: BufMut,
    ) -> PyResult<usize> {
        self.0
            .encrypt_into(py, &nonce, &data, &mut buf, associated_data.as_ref())
    }

    /// decrypt_into(nonce, data, associated_data, buf) -> int
    ///
    /// As ``decrypt``, written into ``buf`` (at least ``len(data) -
    /// tag_length`` bytes); returns the plaintext length. On ``InvalidTag``
    /// those bytes of ``buf`` are zeroed. **Until the call returns, ``buf``
    /// holds plaintext that is not yet authenticated**: do not let another
    /// thread or process read it meanwhile (use ``decrypt`` if one might).
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: Buf,
        data: Buf,
        associated_data: Option<Buf>,
        mut buf: BufMut,
    ) -> PyResult<usize> {
        self.0
            .decrypt_into(py, &nonce, &data, &mut buf, associated_data.as_ref())
    }

    /// encryptor(nonce, associated_data=None) -> AEADEncryptionContext
    ///
    /// On-line encryption under the 16-byte ``nonce``: ``update(data)``
    /// any number of times, then ``finalize()``, then ``tag``
    /// (``associated_data``: ``None`` or empty, as for ``encrypt``).
    #[pyo3(signature = (nonce, associated_data = None))]
    fn encryptor(&self, nonce: Buf, associated_data: Option<Buf>) -> PyResult<PyEncryptor> {
        self.0.encryptor(&nonce, associated_data.as_ref())
    }

    /// The tag length in bytes.
    #[getter]
    fn tag_length(&self) -> usize {
        self.0.tag_len
    }

    fn __repr__(&self) -> String {
        format!("OCB1(<key>, tag_length={})", self.0.tag_len)
    }
}

/// CWC (Kohno, Viega, Whiting 2004) over AES: authenticated encryption with
/// associated data (counter mode and a Carter-Wegman hash mod 2^127 - 1),
/// 11-byte nonce.
///
/// ``CWC(key, tag_length=16)``: ``key`` is 16, 24 or 32 bytes
/// (``CWC.generate_key(bit_length)`` draws one); ``tag_length`` 8 to 16
/// bytes (a ``t``-byte tag is forged with probability 2^-8t per try; the
/// papers' 1- to 7-byte tags are only in ``blockmodes.hazmat.CWC``).
///
/// ``encrypt(nonce, data, associated_data=None)`` returns
/// ``ciphertext ‖ tag``; ``decrypt(nonce, data, associated_data=None)``
/// returns the plaintext or raises ``blockmodes.InvalidTag``.
/// ``encryptor(nonce, associated_data=None)`` encrypts a message given in
/// pieces. ``decrypt_into`` checks the tag (over the ciphertext) before it
/// writes any plaintext.
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
pub struct PyCwc(Keyed);

impl PyCwc {
    /// Keyed with a tag length already checked (1..=16).
    pub(crate) fn keyed(key: &[u8], tag_len: usize) -> PyResult<Self> {
        Keyed::with_len(key, tag_len, &CWC_SHAPE, cwc_sealer).map(Self)
    }
}

#[pymethods]
impl PyCwc {
    #[new]
    #[pyo3(signature = (key, tag_length = None), text_signature = "(key, tag_length=16)")]
    fn new(key: Buf, tag_length: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Keyed::new(key.as_slice(), tag_length, &CWC_SHAPE, cwc_sealer).map(Self)
    }

    /// generate_key(bit_length) -> bytes
    ///
    /// A new random key of ``bit_length`` bits (128, 192 or 256).
    #[classmethod]
    fn generate_key<'py>(
        cls: &Bound<'py, PyType>,
        bit_length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        generate_key(cls.py(), bit_length, AES_BITS)
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
        self.0.encrypt(py, &nonce, &data, associated_data.as_ref())
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
        self.0.decrypt(py, &nonce, &data, associated_data.as_ref())
    }

    /// encrypt_into(nonce, data, associated_data, buf) -> int
    ///
    /// As ``encrypt``, written into the writable buffer ``buf`` (at least
    /// ``len(data) + tag_length`` bytes, not overlapping the inputs);
    /// returns the number of bytes written.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: Buf,
        data: Buf,
        associated_data: Option<Buf>,
        mut buf: BufMut,
    ) -> PyResult<usize> {
        self.0
            .encrypt_into(py, &nonce, &data, &mut buf, associated_data.as_ref())
    }

    /// decrypt_into(nonce, data, associated_data, buf) -> int
    ///
    /// As ``decrypt``, written into ``buf`` (at least ``len(data) -
    /// tag_length`` bytes); returns the plaintext length. The tag is
    /// checked before any plaintext is written; on ``InvalidTag`` those
    /// bytes of ``buf`` are zeroed.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: Buf,
        data: Buf,
        associated_data: Option<Buf>,
        mut buf: BufMut,
    ) -> PyResult<usize> {
        self.0
            .decrypt_into(py, &nonce, &data, &mut buf, associated_data.as_ref())
    }

    /// encryptor(nonce, associated_data=None) -> AEADEncryptionContext
    ///
    /// On-line encryption under the 11-byte ``nonce`` and
    /// ``associated_data`` (read now): ``update(data)`` any number of
    /// times, then ``finalize()``, then ``tag``.
    #[pyo3(signature = (nonce, associated_data = None))]
    fn encryptor(&self, nonce: Buf, associated_data: Option<Buf>) -> PyResult<PyEncryptor> {
        self.0.encryptor(&nonce, associated_data.as_ref())
    }

    /// The tag length in bytes.
    #[getter]
    fn tag_length(&self) -> usize {
        self.0.tag_len
    }

    fn __repr__(&self) -> String {
        format!("CWC(<key>, tag_length={})", self.0.tag_len)
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
        return Err(PyValueError::new_err(format!(
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
    pub(crate) inner: Box<dyn Xcbc>,
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

    /// generate_key(bit_length) -> bytes
    ///
    /// A new random key of ``bit_length`` bits: 256, 384 or 512 for the
    /// two-key form (K ‖ K'), 128, 192 or 256 with ``one_key=True``.
    #[classmethod]
    fn generate_key<'py>(
        cls: &Bound<'py, PyType>,
        bit_length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        generate_key(cls.py(), bit_length, XCBC_BITS)
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
    pub(crate) inner: Box<dyn Xcbc>,
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

    /// generate_key(bit_length) -> bytes
    ///
    /// A new random key of ``bit_length`` bits: 256, 384 or 512 for the
    /// two-key form (K ‖ K'), 128, 192 or 256 with ``one_key=True``.
    #[classmethod]
    fn generate_key<'py>(
        cls: &Bound<'py, PyType>,
        bit_length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        generate_key(cls.py(), bit_length, XCBC_BITS)
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
    m.add_class::<PyEncryptor>()?;
    m.add_class::<PyCwc>()?;
    m.add_class::<PyXcbcXor>()?;
    m.add_class::<PyPxcbcXor>()?;
    Ok(())
}
