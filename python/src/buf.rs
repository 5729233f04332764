//! Read-only access to any object with the buffer protocol, without a copy.
//!
//! PyO3's `PyBuffer` is not available under the abi3 (limited) API before
//! Python 3.11, but the wheel targets abi3-py39. `PyObject_GetBuffer`,
//! `PyBuffer_Release` and the `Py_buffer` layout have been the same in every
//! CPython 3 (3.11 merely added them to the limited API, unchanged), so they
//! are declared here. `PyBUF_SIMPLE` asks for one contiguous run of bytes:
//! exporters that cannot give one (a non-contiguous NumPy view) refuse.

use std::ffi::{c_char, c_int, c_void};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi::{Py_ssize_t, PyObject};
use pyo3::prelude::*;

#[repr(C)]
struct PyBufferView {
    buf: *mut c_void,
    obj: *mut PyObject,
    len: Py_ssize_t,
    itemsize: Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut Py_ssize_t,
    strides: *mut Py_ssize_t,
    suboffsets: *mut Py_ssize_t,
    internal: *mut c_void,
}

const PYBUF_SIMPLE: c_int = 0;
const PYBUF_WRITABLE: c_int = 0x0001;

unsafe extern "C" {
    fn PyObject_GetBuffer(obj: *mut PyObject, view: *mut PyBufferView, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut PyBufferView);
}

/// A data argument: the bytes of a `bytes`, `bytearray`, `memoryview`,
/// contiguous NumPy array or any other contiguous buffer, held (and the
/// exporter locked against resizing) until dropped.
pub struct Buf {
    // Boxed: the exporter may keep pointers into the view until release.
    view: Box<PyBufferView>,
}

impl Buf {
    /// The address range of the bytes, as plain numbers (no slice made).
    fn addr_range(&self) -> std::ops::Range<usize> {
        raw_range(&self.view)
    }

    /// The bytes, borrowed for the life of `self`.
    pub fn as_slice(&self) -> &[u8] {
        if self.view.len <= 0 || self.view.buf.is_null() {
            return &[];
        }
        // SAFETY: a successful PyObject_GetBuffer(PyBUF_SIMPLE) gives `len`
        // contiguous bytes at `buf`, valid until PyBuffer_Release (in Drop).
        // (As with every buffer consumer, another thread writing into a
        // mutable exporter during the call changes the bytes read.)
        unsafe { std::slice::from_raw_parts(self.view.buf as *const u8, self.view.len as usize) }
    }
}

/// The address range of a view's bytes (empty for an empty view).
fn raw_range(view: &PyBufferView) -> std::ops::Range<usize> {
    if view.len <= 0 || view.buf.is_null() {
        return 0..0;
    }
    let start = view.buf as usize;
    start..start.saturating_add(view.len as usize)
}

impl Drop for Buf {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful PyObject_GetBuffer and
        // is released exactly once, with the interpreter attached.
        Python::attach(|_| unsafe { PyBuffer_Release(&mut *self.view) });
    }
}

/// `PyObject_GetBuffer` with `flags`, or `TypeError` naming what was expected.
fn get_view(
    obj: Borrowed<'_, '_, PyAny>,
    flags: c_int,
    expected: &str,
) -> PyResult<Box<PyBufferView>> {
    let mut view = Box::new(PyBufferView {
        buf: std::ptr::null_mut(),
        obj: std::ptr::null_mut(),
        len: 0,
        itemsize: 0,
        readonly: 0,
        ndim: 0,
        format: std::ptr::null_mut(),
        shape: std::ptr::null_mut(),
        strides: std::ptr::null_mut(),
        suboffsets: std::ptr::null_mut(),
        internal: std::ptr::null_mut(),
    });
    // SAFETY: `obj` is a live object and the interpreter is attached.
    let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) };
    if rc != 0 {
        let cause = PyErr::fetch(obj.py());
        let ty = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        return Err(PyTypeError::new_err(format!(
            "expected {expected}, not {ty} ({cause})"
        )));
    }
    Ok(view)
}

impl<'a, 'py> FromPyObject<'a, 'py> for Buf {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let view = get_view(
            obj,
            PYBUF_SIMPLE,
            "a contiguous bytes-like object (bytes, bytearray, memoryview, contiguous array)",
        )?;
        Ok(Buf { view })
    }
}

/// A writable output argument (`bytearray`, writable `memoryview`,
/// contiguous NumPy array ...), held until dropped.
pub struct BufMut {
    view: Box<PyBufferView>,
}

impl BufMut {
    /// The bytes, borrowed mutably for the life of `self`, once their
    /// address range is known to be disjoint from every buffer of `inputs`:
    /// `ValueError` otherwise. The ranges are compared as numbers before any
    /// slice exists, so a `&mut [u8]` never aliases a `&[u8]` of an input.
    pub fn disjoint_mut_slice(&mut self, inputs: &[Option<&Buf>]) -> PyResult<&mut [u8]> {
        let o = raw_range(&self.view);
        for i in inputs.iter().flatten() {
            let r = i.addr_range();
            if !r.is_empty() && !o.is_empty() && r.start < o.end && o.start < r.end {
                return Err(PyValueError::new_err(
                    "buf must not overlap the input buffers",
                ));
            }
        }
        Ok(self.as_mut_slice())
    }

    /// The bytes, borrowed mutably for the life of `self` (for outputs that
    /// take no input buffer; see `disjoint_mut_slice`).
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        if self.view.len <= 0 || self.view.buf.is_null() {
            return &mut [];
        }
        // SAFETY: a successful PyObject_GetBuffer(PyBUF_WRITABLE) gives `len`
        // contiguous writable bytes at `buf`, valid until PyBuffer_Release.
        unsafe {
            std::slice::from_raw_parts_mut(self.view.buf.cast::<u8>(), self.view.len as usize)
        }
    }
}

impl Drop for BufMut {
    fn drop(&mut self) {
        // SAFETY: as for `Buf`.
        Python::attach(|_| unsafe { PyBuffer_Release(&mut *self.view) });
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for BufMut {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let view = get_view(
            obj,
            PYBUF_WRITABLE,
            "a writable contiguous buffer (bytearray, memoryview of one, contiguous array)",
        )?;
        Ok(BufMut { view })
    }
}
