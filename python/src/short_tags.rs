//! `blockmodes.hazmat.OCB1`, `CWC` and `PMAC`: the main classes with the
//! papers' tags of any length, 1 to 16 bytes, for test vectors and research.
//!
//! The main classes take 8..=16-byte tags (`tag_length_arg`): a `t`-byte tag
//! is forged with probability 2^-8t per try, so a 1-byte tag falls after
//! about 256 tries. These subclasses differ only in their constructor (the
//! same library code, Rust's `ocb1::hazmat::Ocb1`, `cwc::hazmat::Cwc` and a
//! truncated PMAC tag); every method is the main class's.

use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;

use crate::aead::{PyCwc, PyOcb1};
use crate::buf::Buf;
use crate::hazmat_tag_length_arg;
use crate::mac::PyPmac;

/// The tag length argument of a hazmat constructor: 1..=16, default 16.
fn any_tag_length(tag_length: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    tag_length.map_or(Ok(16), hazmat_tag_length_arg)
}

/// **Hazardous.** ``blockmodes.OCB1`` with the paper's tags of any length:
/// ``OCB1(key, tag_length=16)`` with ``tag_length`` 1 to 16 bytes. A
/// ``t``-byte tag is forged with probability 2^-8t per try (a 1-byte tag
/// after about 256 tries): for test vectors and research only; the main
/// class takes 8 to 16 bytes. A subclass of ``blockmodes.OCB1``.
///
/// Example::
///
///     >>> from blockmodes import hazmat
///     >>> ocb = hazmat.OCB1(bytes(16), tag_length=4)
///     >>> len(ocb.encrypt(bytes(16), b"abc"))
///     7
#[pyclass(frozen, extends = PyOcb1, module = "blockmodes.hazmat", name = "OCB1")]
pub struct PyHazmatOcb1;

#[pymethods]
impl PyHazmatOcb1 {
    #[new]
    #[pyo3(signature = (key, tag_length = None), text_signature = "(key, tag_length=16)")]
    fn new(key: Buf, tag_length: Option<&Bound<'_, PyAny>>) -> PyResult<PyClassInitializer<Self>> {
        let t = any_tag_length(tag_length)?;
        Ok(PyClassInitializer::from(PyOcb1::keyed(key.as_slice(), t)?).add_subclass(Self))
    }
}

/// **Hazardous.** ``blockmodes.CWC`` with the paper's tags of any length:
/// ``CWC(key, tag_length=16)`` with ``tag_length`` 1 to 16 bytes. A
/// ``t``-byte tag is forged with probability 2^-8t per try: for test
/// vectors and research only; the main class takes 8 to 16 bytes. A
/// subclass of ``blockmodes.CWC``.
///
/// Example::
///
///     >>> from blockmodes import hazmat
///     >>> cwc = hazmat.CWC(bytes(16), tag_length=2)
///     >>> len(cwc.encrypt(bytes(11), b"abc", b"header"))
///     5
#[pyclass(frozen, extends = PyCwc, module = "blockmodes.hazmat", name = "CWC")]
pub struct PyHazmatCwc;

#[pymethods]
impl PyHazmatCwc {
    #[new]
    #[pyo3(signature = (key, tag_length = None), text_signature = "(key, tag_length=16)")]
    fn new(key: Buf, tag_length: Option<&Bound<'_, PyAny>>) -> PyResult<PyClassInitializer<Self>> {
        let t = any_tag_length(tag_length)?;
        Ok(PyClassInitializer::from(PyCwc::keyed(key.as_slice(), t)?).add_subclass(Self))
    }
}

/// **Hazardous.** ``blockmodes.PMAC`` with the paper's tags of any length:
/// ``PMAC(key, tag_length=16)`` with ``tag_length`` 1 to 16 bytes (the
/// streaming ``update`` / ``finalize`` / ``verify`` and ``finish``). A
/// ``t``-byte tag is forged with probability 2^-8t per try: for test vectors
/// and research only; the main class takes 8 to 16 bytes. A subclass of
/// ``blockmodes.PMAC``.
///
/// Example::
///
///     >>> from blockmodes import hazmat
///     >>> p = hazmat.PMAC(bytes(range(16)), tag_length=4)
///     >>> p.update(b"\x00\x01\x02")
///     >>> p.finalize().hex()
///     '256ba519'
#[pyclass(frozen, extends = PyPmac, module = "blockmodes.hazmat", name = "PMAC")]
pub struct PyHazmatPmac;

#[pymethods]
impl PyHazmatPmac {
    #[new]
    #[pyo3(signature = (key, tag_length = None), text_signature = "(key, tag_length=16)")]
    fn new(
        py: Python<'_>,
        key: Buf,
        tag_length: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let t = any_tag_length(tag_length)?;
        Ok(PyClassInitializer::from(PyPmac::keyed(py, key.as_slice(), t)?).add_subclass(Self))
    }
}

/// Registered as `_native._HazmatOCB1` etc. (`blockmodes.hazmat` re-exports
/// them under the main classes' names).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("_HazmatOCB1", py.get_type::<PyHazmatOcb1>())?;
    m.add("_HazmatCWC", py.get_type::<PyHazmatCwc>())?;
    m.add("_HazmatPMAC", py.get_type::<PyHazmatPmac>())?;
    Ok(())
}
