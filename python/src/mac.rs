//! MACs: `PMAC` (streaming, one-shot, and partial sums for split inputs),
//! `PMACPartial`, `XECBMAC`.

use blockmodes::cipher::KeyInit;
use blockmodes::oracle::{BlockCipher128Dec, decrypt_block, encrypt_block};
use blockmodes::pmac::{PartialSigma, Pmac};
use blockmodes::xecb::XecbMac;
use blockmodes::xecb::hazmat::SignWithR0;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyDeprecationWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::types::{PyBytes, PyType};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::aead::by_aes_key;
use crate::buf::Buf;
use crate::short_tags::PyHazmatPmac;
use crate::{
    AES_BITS, AlreadyFinalized, Auth, InvalidSignature, block_arg, generate_key, key_error, run,
    tag_length_arg, to_py,
};

type LibResult<T> = Result<T, blockmodes::Error>;
type Block = [u8; 16];

/// PMAC under one AES key size, with full 16-byte tags (a shorter tag is
/// the prefix of the full one, `docs/spec/conventions.md`, so the
/// binding truncates instead of instantiating every tag size).
trait PmacDyn: Send + Sync {
    fn boxed_clone(&self) -> Box<dyn PmacDyn>;
    fn update(&mut self, data: &[u8]);
    fn finalize(self: Box<Self>) -> Block;
    fn partial(&self, first_block: u64, blocks: &[u8]) -> LibResult<Block>;
    fn finish(&self, sigma: &Block, last: &[u8]) -> LibResult<Block>;
    /// The one-shot tag (on several threads for large inputs).
    fn mac_full(&self, data: &[u8]) -> Block;
}

struct PmacImpl<C> {
    pmac: Pmac<C>,
    /// The same AES key, for the Σ conversions below.
    cipher: C,
}

impl<C: BlockCipher128Dec + Clone> PmacImpl<C> {
    /// The 16 bytes of a library `PartialSigma`, which offers no accessor.
    /// Through the public API: `finish(Σ, "")` is `E_K(Σ ⊕ 10^127)` (the
    /// padded empty final block), so `Σ = D_K(finish(Σ, "")) ⊕ 10^127`.
    /// (With `PartialSigma::to_bytes` in the library this is one line.)
    fn sigma_to_bytes(&self, sigma: PartialSigma) -> LibResult<Block> {
        let tag: Block = self.pmac.finish(sigma, &[])?.into();
        let mut s = decrypt_block(&self.cipher, &tag);
        s[0] ^= 0x80;
        Ok(s)
    }

    /// A library `PartialSigma` holding `s`, which offers no constructor.
    /// `partial_sigma(1, B)` is `E_K(B ⊕ γ_1·L)` with `γ_1·L = L = E_K(0)`,
    /// so `B = D_K(s) ⊕ L` gives `s`. (`PartialSigma::from_bytes` would
    /// make this one line.)
    fn sigma_from_bytes(&self, s: &Block) -> LibResult<PartialSigma> {
        let mut b = decrypt_block(&self.cipher, s);
        let mut l = encrypt_block(&self.cipher, &[0; 16]);
        for (x, y) in b.iter_mut().zip(&l) {
            *x ^= y;
        }
        let sigma = self.pmac.partial_sigma(1, &b);
        b.zeroize();
        l.zeroize();
        sigma
    }
}

impl<C> PmacDyn for PmacImpl<C>
where
    C: BlockCipher128Dec + Clone + Send + Sync + 'static,
{
    fn boxed_clone(&self) -> Box<dyn PmacDyn> {
        Box::new(PmacImpl {
            pmac: self.pmac.clone(),
            cipher: self.cipher.clone(),
        })
    }
    fn update(&mut self, data: &[u8]) {
        self.pmac.update(data);
    }
    fn finalize(self: Box<Self>) -> Block {
        self.pmac.finalize().into_bytes().into()
    }
    fn partial(&self, first_block: u64, blocks: &[u8]) -> LibResult<Block> {
        let sigma = self.pmac.partial_sigma(first_block, blocks)?;
        self.sigma_to_bytes(sigma)
    }
    fn finish(&self, sigma: &Block, last: &[u8]) -> LibResult<Block> {
        let sigma = self.sigma_from_bytes(sigma)?;
        Ok(self.pmac.finish(sigma, last)?.into())
    }
    fn mac_full(&self, data: &[u8]) -> Block {
        self.pmac.mac_par(data).into()
    }
}

/// A keyed PMAC for the deprecated static `PMAC.mac(key, data)`.
trait OneShot: Send + Sync {
    fn mac_full(&self, data: &[u8]) -> Block;
}

impl<C: BlockCipher128Dec + Send + Sync> OneShot for Pmac<C> {
    fn mac_full(&self, data: &[u8]) -> Block {
        self.mac_par(data).into()
    }
}

/// `PMAC.mac`, a descriptor serving two forms: on an object,
/// `PMAC(key, tag_length).mac(data)` (keyed once, like `XECBMAC.mac`); on
/// the class, the old static `PMAC.mac(key, data, tag_length=16)`, which
/// re-keys on every call and warns (`DeprecationWarning`: kept for one
/// release).
#[pyclass(frozen, module = "blockmodes", name = "_PMACMacDescriptor")]
pub struct PmacMacDescriptor;

#[pymethods]
impl PmacMacDescriptor {
    fn __get__(
        &self,
        py: Python<'_>,
        obj: Option<&Bound<'_, PyAny>>,
        _owner: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        match obj.filter(|o| !o.is_none()) {
            // The object's own bound `mac`, made once with it: a fetch costs
            // a reference count, not a new object.
            Some(o) => Ok(o.cast::<PyPmac>()?.get().bound.clone_ref(py).into_any()),
            None => Ok(Py::new(py, PmacStaticMac)?.into_any()),
        }
    }
}

/// mac(data) -> bytes
///
/// The tag of ``data`` alone under this object's key and tag length (on
/// several threads from 512 KiB on; the tag is the same). It neither uses
/// nor changes the ``update`` state, and works after ``finalize()``.
#[pyclass(frozen, module = "blockmodes", name = "_PMACBoundMac")]
pub struct PmacBoundMac {
    /// The PMAC object's keyed instance (not the object: no reference cycle).
    keyed: Arc<dyn PmacDyn>,
    tag_len: usize,
}

#[pymethods]
impl PmacBoundMac {
    fn __call__<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        let (keyed, data) = (&*self.keyed, data.as_slice());
        let full = run(py, data.len(), || keyed.mac_full(data))?;
        Ok(tag_bytes(py, full, self.tag_len))
    }

    fn __repr__(&self) -> &'static str {
        "<bound method PMAC.mac of PMAC(<key>)>"
    }
}

/// PMAC.mac(key, data, tag_length=16) -> bytes
///
/// **Deprecated** (``DeprecationWarning``; removed in the next release):
/// the one-shot PMAC of ``data`` under ``key``, which sets up the key on
/// every call. Use ``PMAC(key, tag_length).mac(data)``.
#[pyclass(frozen, module = "blockmodes", name = "_PMACStaticMac")]
pub struct PmacStaticMac;

#[pymethods]
impl PmacStaticMac {
    #[pyo3(signature = (key, data, tag_length = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        key: Buf,
        data: Buf,
        tag_length: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        PyErr::warn(
            py,
            &py.get_type::<PyDeprecationWarning>(),
            c"PMAC.mac(key, data, tag_length) is deprecated and will be removed in the next \
              release: use PMAC(key, tag_length).mac(data)",
            1,
        )?;
        let tag_len = match tag_length {
            Some(t) => tag_length_arg(t, "PMAC")?,
            None => 16,
        };
        let (key, data) = (key.as_slice(), data.as_slice());
        // One key schedule (not `pmac_keyed`'s second cipher for partial sums).
        let p: Box<dyn OneShot> = by_aes_key!(key.len(), C => Box::new(
            Pmac::<C>::new_from_slice(key).map_err(|e| to_py(e, Auth::None))?
        ), _ => return Err(key_error("16, 24 or 32", key.len())));
        let full = run(py, data.len(), || p.mac_full(data))?;
        Ok(tag_bytes(py, full, tag_len))
    }

    fn __repr__(&self) -> &'static str {
        "<deprecated static PMAC.mac(key, data, tag_length=16)>"
    }
}

fn pmac_keyed(key: &[u8]) -> PyResult<Box<dyn PmacDyn>> {
    fn make<C>(key: &[u8]) -> LibResult<Box<dyn PmacDyn>>
    where
        C: BlockCipher128Dec + KeyInit + Clone + Send + Sync + 'static,
    {
        let cipher = blockmodes::oracle::cipher_from_key::<C>(key)?;
        Ok(Box::new(PmacImpl {
            pmac: Pmac::<C>::new_from_slice(key)?,
            cipher,
        }))
    }
    by_aes_key!(key.len(), C => make::<C>(key), _ => return Err(key_error("16, 24 or 32", key.len())))
        .map_err(|e| to_py(e, Auth::None))
}

/// Constant-time check of `tag` against the first bytes of `full`.
fn check_tag(mut full: Block, tag_len: usize, tag: &[u8]) -> PyResult<()> {
    let ok = tag.len() == tag_len && bool::from(full[..tag_len].ct_eq(tag));
    full.zeroize();
    if ok {
        Ok(())
    } else {
        Err(InvalidSignature::new_err("the tag does not match the data"))
    }
}

fn tag_bytes<'py>(py: Python<'py>, mut full: Block, tag_len: usize) -> Bound<'py, PyBytes> {
    let b = PyBytes::new(py, &full[..tag_len]);
    full.zeroize();
    b
}

/// PMAC (Black, Rogaway 2002) over AES: a parallelizable MAC, in the style
/// of ``cryptography``'s ``CMAC``.
///
/// ``PMAC(key, tag_length=16)``: ``key`` is 16, 24 or 32 bytes
/// (``PMAC.generate_key(bit_length)`` draws one); ``tag_length`` 8 to 16
/// bytes (a ``t``-byte tag is forged with probability 2^-8t per try; the
/// papers' 1- to 7-byte tags are only in ``blockmodes.hazmat.PMAC``).
///
/// * ``mac(data) -> tag``: the one-shot tag of ``data`` under this
///   object's key (keyed once: reuse the object; multi-core on large
///   inputs). The static ``PMAC.mac(key, data, tag_length=16)`` of the
///   previous release still works but raises a ``DeprecationWarning``.
/// * ``update(data)``, then ``finalize() -> tag`` or ``verify(signature)``
///   (raises ``InvalidSignature``); the object cannot be used after either
///   (``AlreadyFinalized``); ``copy()`` forks the state. Threads may
///   share one object: concurrent ``update`` calls take turns (in an
///   unspecified order, so feed one message from one thread); ``mac``,
///   ``partial`` and ``finish`` never wait for them.
/// * For inputs split across processes or machines (see
///   ``blockmodes.dask``): ``partial(first_block_index, blocks)``,
///   ``PMACPartial.combine`` and ``finish(partial, last)``. Split the
///   message as ``body ‖ last`` where ``last`` is its final 1 to 16 bytes
///   (empty only for the empty message) and ``body`` whole 16-byte blocks;
///   every body block must be covered exactly once, blocks numbered from 1.
///
/// Example::
///
///     >>> import blockmodes
///     >>> key = bytes(range(16))
///     >>> p = blockmodes.PMAC(key)
///     >>> p.mac(b"\x00\x01\x02").hex()
///     '256ba5193c1b991b4df0c51f388a9e27'
///     >>> p.update(b"\x00\x01")
///     >>> p.update(b"\x02")
///     >>> p.verify(bytes.fromhex("256ba5193c1b991b4df0c51f388a9e27"))
///     >>> msg = bytes(100)                  # body: blocks 1..6, last: 4 bytes
///     >>> a = p.partial(1, msg[:32]); b = p.partial(3, msg[32:96])
///     >>> p.finish(b.combine(a), msg[96:]) == p.mac(msg)
///     True
#[pyclass(frozen, subclass, module = "blockmodes", name = "PMAC")]
pub struct PyPmac {
    /// The streaming state, `None` once finalized. Locked only with the GIL
    /// released or for work that never waits for the GIL while holding the
    /// lock, so a second thread waits instead of deadlocking or failing.
    state: Mutex<Option<Box<dyn PmacDyn>>>,
    /// A keyed instance with no input, for `partial` / `finish` (which never
    /// touch the streaming state, even after `finalize`).
    keyed: Arc<dyn PmacDyn>,
    tag_len: usize,
    /// `self.mac`, bound once.
    bound: Py<PmacBoundMac>,
}

fn already_finalized() -> PyErr {
    AlreadyFinalized::new_err("PMAC object already finalized")
}

impl PyPmac {
    /// Keyed with a tag length already checked (1..=16).
    pub(crate) fn keyed(py: Python<'_>, key: &[u8], tag_len: usize) -> PyResult<Self> {
        let keyed: Arc<dyn PmacDyn> = pmac_keyed(key)?.into();
        let bound = Py::new(
            py,
            PmacBoundMac {
                keyed: keyed.clone(),
                tag_len,
            },
        )?;
        Ok(Self {
            state: Mutex::new(Some(keyed.boxed_clone())),
            keyed,
            tag_len,
            bound,
        })
    }

    /// The state, the lock taken with the GIL released (a thread holding it
    /// may be working detached; waiting for it with the GIL held is safe
    /// too, since holders never wait for the GIL, but would stall Python).
    fn with_state<T: Send>(
        &self,
        py: Python<'_>,
        work: usize,
        f: impl FnOnce(&mut Option<Box<dyn PmacDyn>>) -> PyResult<T> + Send,
    ) -> PyResult<T> {
        let state = &self.state;
        run(py, work, move || {
            let mut guard = state.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut guard)
        })?
    }
}

#[pymethods]
impl PyPmac {
    #[new]
    #[pyo3(signature = (key, tag_length = None), text_signature = "(key, tag_length=16)")]
    fn new(py: Python<'_>, key: Buf, tag_length: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let tag_len = match tag_length {
            Some(t) => tag_length_arg(t, "PMAC")?,
            None => 16,
        };
        Self::keyed(py, key.as_slice(), tag_len)
    }

    /// update(data) -> None
    ///
    /// Absorb more of the message; any split gives the same tag.
    fn update(&self, py: Python<'_>, data: Buf) -> PyResult<()> {
        let data = data.as_slice();
        self.with_state(py, data.len(), move |state| {
            state.as_mut().ok_or_else(already_finalized)?.update(data);
            Ok(())
        })
    }

    /// finalize() -> bytes
    ///
    /// The tag of everything given to ``update``; the object is finished.
    fn finalize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let full = self.with_state(py, 0, |state| {
            Ok(state.take().ok_or_else(already_finalized)?.finalize())
        })?;
        Ok(tag_bytes(py, full, self.tag_len))
    }

    /// verify(signature) -> None
    ///
    /// Check the tag ``signature`` against everything given to ``update``,
    /// in constant time; raises ``InvalidSignature`` if it does not match.
    /// The object is finished either way.
    fn verify(&self, py: Python<'_>, signature: Buf) -> PyResult<()> {
        let full = self.with_state(py, 0, |state| {
            Ok(state.take().ok_or_else(already_finalized)?.finalize())
        })?;
        check_tag(full, self.tag_len, signature.as_slice())
    }

    /// copy() -> PMAC
    ///
    /// An independent copy of the current state (same key, tag length and
    /// class: a ``blockmodes.hazmat.PMAC`` gives a ``hazmat.PMAC``).
    fn copy(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let (py, this) = (slf.py(), slf.get());
        let state = this.with_state(py, 0, |state| {
            Ok(state.as_ref().ok_or_else(already_finalized)?.boxed_clone())
        })?;
        let copy = Self {
            state: Mutex::new(Some(state)),
            keyed: this.keyed.clone(),
            tag_len: this.tag_len,
            bound: this.bound.clone_ref(py),
        };
        if slf.is_instance_of::<PyHazmatPmac>() {
            let init = PyClassInitializer::from(copy).add_subclass(PyHazmatPmac);
            return Ok(Py::new(py, init)?.into_any());
        }
        Ok(Py::new(py, copy)?.into_any())
    }

    /// The one-shot ``mac``: ``PMAC(key, tag_length).mac(data)`` on an
    /// object, the deprecated ``PMAC.mac(key, data, tag_length=16)`` on
    /// the class (see `PmacMacDescriptor`).
    #[classattr]
    fn mac(py: Python<'_>) -> PyResult<Py<PmacMacDescriptor>> {
        Py::new(py, PmacMacDescriptor)
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

    /// partial(first_block_index, blocks) -> PMACPartial
    ///
    /// The partial sum of whole 16-byte blocks of the message body starting
    /// at block ``first_block_index`` (1-based). Does not touch the
    /// ``update`` state.
    fn partial(
        &self,
        py: Python<'_>,
        first_block_index: &Bound<'_, PyAny>,
        blocks: Buf,
    ) -> PyResult<PyPmacPartial> {
        let first = crate::u64_arg(first_block_index, "first_block_index")?;
        let keyed = &*self.keyed;
        let blocks = blocks.as_slice();
        let sigma = run(py, blocks.len(), move || keyed.partial(first, blocks))?
            .map_err(|e| to_py(e, Auth::None))?;
        Ok(PyPmacPartial { sigma })
    }

    /// finish(partial, last) -> bytes
    ///
    /// The tag of ``body ‖ last`` from the combined partial sum of the whole
    /// body and its final 1 to 16 bytes (empty only for the empty message:
    /// ``ValueError`` for an empty ``last`` after blocks).
    fn finish<'py>(
        &self,
        py: Python<'py>,
        partial: PyRef<'_, PyPmacPartial>,
        last: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let last = last.as_slice();
        // An empty `last` ends only the empty message, whose sum is zero: a
        // message of whole blocks ends with its last block (`finish(Σ, "")`
        // of a non-zero Σ is no message's tag). Σ is compared in constant time.
        if last.is_empty() && !bool::from(partial.sigma.ct_eq(&[0; 16])) {
            return Err(PyValueError::new_err(
                "last is empty but the partial sum covers blocks: last must be the message's \
                 final 1 to 16 bytes (for a message of whole blocks, its last block), \
                 empty only for the empty message",
            ));
        }
        let full = self
            .keyed
            .finish(&partial.sigma, last)
            .map_err(|e| to_py(e, Auth::None))?;
        Ok(tag_bytes(py, full, self.tag_len))
    }

    /// The tag length in bytes.
    #[getter]
    fn tag_length(&self) -> usize {
        self.tag_len
    }

    fn __repr__(&self) -> String {
        format!("PMAC(<key>, tag_length={})", self.tag_len)
    }
}

/// A PMAC partial sum of a run of message blocks (``PMAC.partial``):
/// combine partial sums in any order with ``combine`` (or ``^``) and turn
/// the sum of the whole body into a tag with ``PMAC.finish``.
///
/// ``PMACPartial()`` is the sum of no blocks. Partial sums pickle (to send
/// them between processes); they are key-dependent secret values, so send
/// them only over channels you would send the tag over.
///
/// Example::
///
///     >>> import pickle, blockmodes
///     >>> p = blockmodes.PMAC(bytes(16))
///     >>> msg = bytes(range(40))        # body: blocks 1..2, last: 8 bytes
///     >>> parts = [pickle.loads(pickle.dumps(p.partial(i + 1, msg[16 * i:16 * i + 16])))
///     ...          for i in (1, 0)]
///     >>> p.finish(parts[0] ^ parts[1], msg[32:]) == p.mac(msg)
///     True
#[pyclass(frozen, module = "blockmodes", name = "PMACPartial")]
pub struct PyPmacPartial {
    sigma: Block,
}

impl Drop for PyPmacPartial {
    fn drop(&mut self) {
        self.sigma.zeroize();
    }
}

#[pymethods]
impl PyPmacPartial {
    #[new]
    #[pyo3(signature = (state = None), text_signature = "()")]
    fn new(state: Option<Buf>) -> PyResult<Self> {
        let sigma = match state {
            Some(s) => block_arg::<16>(s.as_slice(), "PMACPartial state")?,
            None => [0; 16],
        };
        Ok(Self { sigma })
    }

    /// combine(other) -> PMACPartial
    ///
    /// The partial sum of both runs of blocks (order does not matter).
    fn combine(&self, other: PyRef<'_, PyPmacPartial>) -> Self {
        let mut sigma = self.sigma;
        for (a, b) in sigma.iter_mut().zip(&other.sigma) {
            *a ^= b;
        }
        Self { sigma }
    }

    fn __xor__(&self, other: PyRef<'_, PyPmacPartial>) -> Self {
        self.combine(other)
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyType>, (Bound<'py, PyBytes>,))> {
        let state = PyBytes::new(slf.py(), &slf.get().sigma);
        Ok((slf.get_type(), (state,)))
    }

    fn __repr__(&self) -> &'static str {
        "PMACPartial(<secret>)"
    }
}

/// XECB$-MAC under one AES key size: one call per library function.
pub(crate) trait Xecb: Send + Sync {
    fn mac(&self, msg: &[u8]) -> LibResult<[u8; 32]>;
    fn verify(&self, msg: &[u8], tag: &[u8]) -> LibResult<()>;
    fn mac_with_r0(&self, r0: &Block, msg: &[u8]) -> [u8; 32];
}

impl<C: BlockCipher128Dec + Send + Sync> Xecb for XecbMac<C> {
    fn mac(&self, msg: &[u8]) -> LibResult<[u8; 32]> {
        XecbMac::mac_par(self, msg)
    }
    fn verify(&self, msg: &[u8], tag: &[u8]) -> LibResult<()> {
        XecbMac::verify_tag_par(self, msg, tag)
    }
    fn mac_with_r0(&self, r0: &Block, msg: &[u8]) -> [u8; 32] {
        SignWithR0::sign_with_r0(self, r0, msg)
    }
}

/// XECB$-MAC (Gligor, Donescu 2000) over AES: a parallel, randomized MAC;
/// the tag ``y0 ‖ w`` (32 bytes) carries ``y0 = E_K(r0)`` for a fresh random
/// r0, so two tags of one message differ.
///
/// ``XECBMAC(key)``: ``key`` is 16, 24 or 32 bytes. ``mac(data) -> tag``;
/// ``verify(data, tag)`` raises ``InvalidSignature`` if it does not match.
///
/// Example::
///
///     >>> import os, blockmodes
///     >>> m = blockmodes.XECBMAC(os.urandom(16))
///     >>> tag = m.mac(b"pay 100 to bob")
///     >>> len(tag)
///     32
///     >>> m.verify(b"pay 100 to bob", tag)
#[pyclass(frozen, module = "blockmodes", name = "XECBMAC")]
pub struct PyXecbMac {
    pub(crate) inner: Box<dyn Xecb>,
}

#[pymethods]
impl PyXecbMac {
    #[new]
    fn new(key: Buf) -> PyResult<Self> {
        let key = key.as_slice();
        let inner: LibResult<Box<dyn Xecb>> = by_aes_key!(key.len(), C => {
            XecbMac::<C>::new_from_slice(key).map(|m| Box::new(m) as Box<dyn Xecb>)
        }, _ => return Err(key_error("16, 24 or 32", key.len())));
        Ok(Self {
            inner: inner.map_err(|e| to_py(e, Auth::None))?,
        })
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

    /// mac(data) -> bytes
    ///
    /// The 32-byte tag ``y0 ‖ w`` of ``data`` with a fresh random r0.
    fn mac<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        let inner = &*self.inner;
        let data = data.as_slice();
        let tag =
            run(py, data.len(), move || inner.mac(data))?.map_err(|e| to_py(e, Auth::None))?;
        Ok(PyBytes::new(py, &tag))
    }

    /// verify(data, tag) -> None
    ///
    /// Raises ``InvalidSignature`` unless ``tag`` is a tag of ``data``.
    fn verify(&self, py: Python<'_>, data: Buf, tag: Buf) -> PyResult<()> {
        let (inner, data, tag) = (&*self.inner, data.as_slice(), tag.as_slice());
        if tag.len() != blockmodes::xecb::TAG_LEN {
            return Err(InvalidSignature::new_err(format!(
                "the tag does not match the data (an XECB-MAC tag is 32 bytes, got {})",
                tag.len()
            )));
        }
        run(py, data.len(), move || inner.verify(data, tag))?.map_err(|e| to_py(e, Auth::Signature))
    }

    fn __repr__(&self) -> &'static str {
        "XECBMAC(<key>)"
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPmac>()?;
    m.add_class::<PmacMacDescriptor>()?;
    m.add_class::<PyPmacPartial>()?;
    m.add_class::<PyXecbMac>()?;
    Ok(())
}
