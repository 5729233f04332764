//! `blockmodes.hazmat`: the forms of the Gligor-Donescu modes outside the
//! spec's classes, for test vectors and for protocols that manage r0 or the
//! counter themselves: XCBC$ (no check block), and the counter forms
//! XCBC-XOR, XCBC, pXCBC-XOR and XECB-MAC under a caller-chosen counter.
//! The r0 forms of `XCBCXor`, `PXCBCXor` and `XECBMAC` are the module
//! functions `_hazmat_encrypt_with_r0` / `_hazmat_mac_with_r0`, which
//! `blockmodes.hazmat.encrypt_with_r0` / `mac_with_r0` call: no method of
//! the main classes takes an r0.
//!
//! Nothing here checks that an r0 or counter value is used once: see the
//! library's `xcbc::hazmat` for the duties that come with these calls.

use blockmodes::oracle::BlockCipher128Dec;
use blockmodes::xecb::XecbMacStateful;
use blockmodes::xecb::hazmat::SignWithCounter;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};

use crate::aead::{
    PyPxcbcXor, PyXcbcXor, Xcbc, XcbcForm, by_aes_key, segment_blocks_arg, xcbc_decrypt,
    xcbc_encrypt, xcbc_encrypt_with, xcbc_keyed,
};
use crate::buf::Buf;
use crate::mac::PyXecbMac;
use crate::{
    AES_BITS, Auth, InvalidSignature, XCBC_BITS, block_arg, generate_key, key_error, run, to_py,
};

type LibResult<T> = Result<T, blockmodes::Error>;
type Block = [u8; 16];

/// **Hazardous.** XCBC$ (Gligor, Donescu 2000) over AES: the XCBC chain
/// without the check block, so it gives **privacy only**: a modified
/// ciphertext decrypts to garbage or to a padding error, never to
/// ``InvalidTag`` by design. Use ``blockmodes.XCBCXor`` for integrity.
///
/// ``XCBC(key, one_key=False)``: keys as ``XCBCXor``. ``encrypt(data)``
/// (fresh random r0) returns ``y0 ‖ ciphertext``; ``encrypt_with_r0(r0,
/// data)`` takes a caller-chosen r0 (test vectors only); ``decrypt(data)``.
///
/// Example::
///
///     >>> import os
///     >>> from blockmodes.hazmat import XCBC
///     >>> x = XCBC(os.urandom(32))
///     >>> x.decrypt(x.encrypt(b"privacy only"))
///     b'privacy only'
#[pyclass(frozen, module = "blockmodes.hazmat", name = "XCBC")]
pub struct PyXcbcPlain {
    inner: Box<dyn Xcbc>,
}

#[pymethods]
impl PyXcbcPlain {
    #[new]
    #[pyo3(signature = (key, one_key = false))]
    fn new(key: Buf, one_key: bool) -> PyResult<Self> {
        Ok(Self {
            inner: xcbc_keyed(key.as_slice(), one_key, XcbcForm::Plain)?,
        })
    }

    /// generate_key(bit_length) -> bytes
    ///
    /// A new random key of ``bit_length`` bits: 256, 384 or 512 for K ‖ K',
    /// 128, 192 or 256 with ``one_key=True``.
    #[classmethod]
    fn generate_key<'py>(
        cls: &Bound<'py, PyType>,
        bit_length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        generate_key(cls.py(), bit_length, XCBC_BITS)
    }

    /// encrypt(data) -> bytes
    ///
    /// ``y0 ‖ ciphertext`` of ``data`` under a fresh random r0.
    fn encrypt<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_encrypt(py, &*self.inner, data.as_slice())
    }

    /// encrypt_with_r0(r0, data) -> bytes
    ///
    /// ``y0 ‖ ciphertext`` under the 16-byte ``r0`` (test vectors only).
    fn encrypt_with_r0<'py>(
        &self,
        py: Python<'py>,
        r0: Buf,
        data: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_encrypt_with(py, &*self.inner, r0.as_slice(), "r0", data.as_slice())
    }

    /// decrypt(data) -> bytes
    ///
    /// The plaintext of ``y0 ‖ ciphertext`` (``InvalidTag`` only when the
    /// length or the padding is impossible: no integrity).
    fn decrypt<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
        xcbc_decrypt(py, &*self.inner, data.as_slice())
    }

    fn __repr__(&self) -> &'static str {
        "XCBC(<key>)"
    }
}

/// One counter-form class of the XCBC family: `encrypt_with_counter` and
/// `decrypt`.
macro_rules! counter_class {
    ($py_name:literal, $rust:ident, $doc:literal, { $($new:tt)* }) => {
        #[doc = $doc]
        #[pyclass(frozen, module = "blockmodes.hazmat", name = $py_name)]
        pub struct $rust {
            inner: Box<dyn Xcbc>,
        }

        #[pymethods]
        impl $rust {
            $($new)*

            /// generate_key(bit_length) -> bytes
            ///
            /// A new random key of ``bit_length`` bits: 256, 384 or 512 for K ‖ K',
            /// 128, 192 or 256 with ``one_key=True``.
            #[classmethod]
            fn generate_key<'py>(
                        cls: &Bound<'py, PyType>,
                        bit_length: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                        generate_key(cls.py(), bit_length, XCBC_BITS)
            }

            /// encrypt_with_counter(counter, data) -> bytes
            ///
            /// ``counter ‖ ciphertext`` of ``data`` under the 16-byte
            /// big-endian ``counter`` value (never reuse one under a key).
            fn encrypt_with_counter<'py>(
                &self,
                py: Python<'py>,
                counter: Buf,
                data: Buf,
            ) -> PyResult<Bound<'py, PyBytes>> {
                xcbc_encrypt_with(py, &*self.inner, counter.as_slice(), "counter", data.as_slice())
            }

            /// decrypt(data) -> bytes
            ///
            /// The plaintext of ``counter ‖ ciphertext``; raises
            /// ``InvalidTag`` if it does not verify. Check the counter (the
            /// first 16 bytes) against the one you expect yourself.
            fn decrypt<'py>(&self, py: Python<'py>, data: Buf) -> PyResult<Bound<'py, PyBytes>> {
                xcbc_decrypt(py, &*self.inner, data.as_slice())
            }

            fn __repr__(&self) -> &'static str {
                concat!($py_name, "(<key>)")
            }
        }
    };
}

counter_class!(
    "XCBCXorStateful",
    PyXcbcXorStateful,
    "**Hazardous.** XCBC-XOR, the counter form of ``XCBCXor``: the sender's
counter replaces the random r0 and travels in clear as the first block.

``XCBCXorStateful(key, one_key=False)``: keys as ``XCBCXor``.

Example::

    >>> from blockmodes.hazmat import XCBCXorStateful
    >>> x = XCBCXorStateful(bytes(32))
    >>> ct = x.encrypt_with_counter((7).to_bytes(16, 'big'), b'chunk 7')
    >>> x.decrypt(ct)
    b'chunk 7'
",
    {
        #[new]
        #[pyo3(signature = (key, one_key = false))]
        fn new(key: Buf, one_key: bool) -> PyResult<Self> {
            Ok(Self {
                inner: xcbc_keyed(key.as_slice(), one_key, XcbcForm::XorCtr)?,
            })
        }
    }
);

counter_class!(
    "XCBCStateful",
    PyXcbcStateful,
    "**Hazardous.** XCBC, the counter form of XCBC$ (no check block: privacy
only).

``XCBCStateful(key, one_key=False)``: keys as ``XCBCXor``.

Example::

    >>> from blockmodes.hazmat import XCBCStateful
    >>> x = XCBCStateful(bytes(32))
    >>> x.decrypt(x.encrypt_with_counter(bytes(16), b'abc'))
    b'abc'
",
    {
        #[new]
        #[pyo3(signature = (key, one_key = false))]
        fn new(key: Buf, one_key: bool) -> PyResult<Self> {
            Ok(Self {
                inner: xcbc_keyed(key.as_slice(), one_key, XcbcForm::PlainCtr)?,
            })
        }
    }
);

counter_class!(
    "PXCBCXorStateful",
    PyPxcbcXorStateful,
    "**Hazardous.** pXCBC-XOR, the counter form of ``PXCBCXor``; a message of
L segments uses the counter values ``counter .. counter + L - 1``.

``PXCBCXorStateful(key, segment_blocks=1024, one_key=False)``.

Example::

    >>> from blockmodes.hazmat import PXCBCXorStateful
    >>> p = PXCBCXorStateful(bytes(32), segment_blocks=4)
    >>> p.decrypt(p.encrypt_with_counter(bytes(16), bytes(100))) == bytes(100)
    True
",
    {
        #[new]
        #[pyo3(
        signature = (key, segment_blocks = None, one_key = false),
        text_signature = "(key, segment_blocks=1024, one_key=False)"
    )]
        fn new(
            key: Buf,
            segment_blocks: Option<&Bound<'_, PyAny>>,
            one_key: bool,
        ) -> PyResult<Self> {
            let s = segment_blocks_arg(segment_blocks)?;
            Ok(Self {
                inner: xcbc_keyed(key.as_slice(), one_key, XcbcForm::PXorCtr(s))?,
            })
        }
    }
);

/// XECB-MAC (the counter form) under one AES key size.
trait XecbCtr: Send + Sync {
    fn mac_with_counter(&self, ctr: &Block, msg: &[u8]) -> [u8; 32];
    fn verify(&self, msg: &[u8], tag: &[u8]) -> LibResult<()>;
}

impl<C: BlockCipher128Dec + Send + Sync> XecbCtr for XecbMacStateful<C> {
    fn mac_with_counter(&self, ctr: &Block, msg: &[u8]) -> [u8; 32] {
        SignWithCounter::sign_with_counter(self, ctr, msg)
    }
    fn verify(&self, msg: &[u8], tag: &[u8]) -> LibResult<()> {
        XecbMacStateful::verify_tag_par(self, msg, tag)
    }
}

/// **Hazardous.** XECB-MAC, the counter form of ``XECBMAC``: the tag is
/// ``counter ‖ w``.
///
/// ``XECBMACStateful(key)``: key 16, 24 or 32 bytes.
///
/// Example::
///
///     >>> from blockmodes.hazmat import XECBMACStateful
///     >>> m = XECBMACStateful(bytes(16))
///     >>> tag = m.mac_with_counter(bytes(16), b'msg')
///     >>> m.verify(b'msg', tag)
#[pyclass(frozen, module = "blockmodes.hazmat", name = "XECBMACStateful")]
pub struct PyXecbMacStateful {
    inner: Box<dyn XecbCtr>,
}

#[pymethods]
impl PyXecbMacStateful {
    #[new]
    fn new(key: Buf) -> PyResult<Self> {
        let key = key.as_slice();
        let inner: LibResult<Box<dyn XecbCtr>> = by_aes_key!(key.len(), C => {
            XecbMacStateful::<C>::new_from_slice(key).map(|m| Box::new(m) as Box<dyn XecbCtr>)
        }, _ => return Err(key_error("16, 24 or 32", key.len())));
        Ok(Self {
            inner: inner.map_err(|e| to_py(e, Auth::None))?,
        })
    }

    /// generate_key(bit_length) -> bytes
    ///
    /// A new random key of ``bit_length`` bits: 128, 192 or 256.
    #[classmethod]
    fn generate_key<'py>(
        cls: &Bound<'py, PyType>,
        bit_length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        generate_key(cls.py(), bit_length, AES_BITS)
    }

    /// mac_with_counter(counter, data) -> bytes
    ///
    /// The 32-byte tag ``counter ‖ w`` of ``data``.
    fn mac_with_counter<'py>(
        &self,
        py: Python<'py>,
        counter: Buf,
        data: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let ctr = block_arg::<16>(counter.as_slice(), "counter")?;
        let (inner, data) = (&*self.inner, data.as_slice());
        let tag = run(py, data.len(), move || inner.mac_with_counter(&ctr, data))?;
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
        "XECBMACStateful(<key>)"
    }
}

/// `blockmodes.hazmat.encrypt_with_r0(cipher, r0, data)` for an `XCBCXor`
/// or a `PXCBCXor`: ``y0 ‖ ciphertext`` under the caller's r0.
#[pyfunction]
#[pyo3(name = "_hazmat_encrypt_with_r0")]
fn hazmat_encrypt_with_r0<'py>(
    py: Python<'py>,
    cipher: &Bound<'py, PyAny>,
    r0: Buf,
    data: Buf,
) -> PyResult<Bound<'py, PyBytes>> {
    let x: &dyn Xcbc = if let Ok(c) = cipher.cast::<PyXcbcXor>() {
        &*c.get().inner
    } else if let Ok(c) = cipher.cast::<PyPxcbcXor>() {
        &*c.get().inner
    } else {
        return Err(PyTypeError::new_err(format!(
            "cipher must be an XCBCXor, PXCBCXor or hazmat.XCBC, not {}",
            cipher.get_type().name()?
        )));
    };
    xcbc_encrypt_with(py, x, r0.as_slice(), "r0", data.as_slice())
}

/// `blockmodes.hazmat.mac_with_r0(mac, r0, data)` for an `XECBMAC`: the
/// 32-byte tag ``y0 ‖ w`` under the caller's r0.
#[pyfunction]
#[pyo3(name = "_hazmat_mac_with_r0")]
fn hazmat_mac_with_r0<'py>(
    py: Python<'py>,
    mac: &Bound<'py, PyAny>,
    r0: Buf,
    data: Buf,
) -> PyResult<Bound<'py, PyBytes>> {
    let Ok(m) = mac.cast::<PyXecbMac>() else {
        return Err(PyTypeError::new_err(format!(
            "mac must be an XECBMAC, not {}",
            mac.get_type().name()?
        )));
    };
    let r0 = block_arg::<16>(r0.as_slice(), "r0")?;
    let (inner, data) = (&*m.get().inner, data.as_slice());
    let tag = run(py, data.len(), move || inner.mac_with_r0(&r0, data))?;
    Ok(PyBytes::new(py, &tag))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hazmat_encrypt_with_r0, m)?)?;
    m.add_function(wrap_pyfunction!(hazmat_mac_with_r0, m)?)?;
    m.add_class::<PyXcbcPlain>()?;
    m.add_class::<PyXcbcXorStateful>()?;
    m.add_class::<PyXcbcStateful>()?;
    m.add_class::<PyPxcbcXorStateful>()?;
    m.add_class::<PyXecbMacStateful>()?;
    Ok(())
}
