//! Length-preserving ciphers without integrity: `Disk` (sectors), the
//! wide-block ciphers `EME`, `EtE`, `EME2` and the tweakable block ciphers
//! `XEX`, `StE`.

use blockmodes::cipher::KeyInit;
use blockmodes::eme::Eme;
use blockmodes::eme2::Eme2;
use blockmodes::ete::EteEmeAes128;
use blockmodes::oracle::BlockCipher128Dec;
use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
use blockmodes::ste::SteXexAes128;
use blockmodes::tweakable::TweakableBlockCipher;
use blockmodes::xex::{Xex, XexTweak};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyType};

use crate::aead::by_aes_key;
use crate::buf::Buf;
use crate::{Auth, block_arg, generate_key, key_error, new_bytes, to_py, u64_arg};

type LibResult<T> = Result<T, blockmodes::Error>;
type Block = [u8; 16];

/// `data` transformed in place into a new `bytes` by `f`, GIL released when large.
/// A data length the cipher refuses is reported with the length given.
fn transformed<'py, F>(py: Python<'py>, data: &[u8], f: F) -> PyResult<Bound<'py, PyBytes>>
where
    F: FnOnce(&mut [u8]) -> LibResult<()> + Send,
{
    new_bytes(py, data.len(), data.len(), move |out| {
        out.copy_from_slice(data);
        f(out).map_err(|e| match e {
            blockmodes::Error::InvalidLength(_) => {
                PyValueError::new_err(format!("{e}, got {} bytes", data.len()))
            }
            e => to_py(e, Auth::None),
        })
    })
}

/// Encrypt or decrypt whole sectors of a disk image with one of the
/// length-preserving disk ciphers over AES (no integrity: a modified sector
/// decrypts to garbage, not to an error).
///
/// ``Disk(cipher, key, sector_size=512)``:
///
/// * ``"ete"``: EtE[EME, StE[XEX]] (Bellare, Cash, Keelveedhi), key-safe
///   (stays secure even when the image contains its own key), 16-byte key;
/// * ``"eme"``: EME (Halevi, Rogaway), key 16, 24 or 32 bytes;
/// * ``"xex"``: XEX (Rogaway), key 16, 24 or 32 bytes;
/// * ``"eme2"``: EME2 (IEEE P1619.2), key 48 or 64 bytes.
///
/// ``sector_size`` is 16 to 2048 in multiples of 16, or 4096 (EME2: any
/// multiple of 16 up to 65536). Sector ``s`` uses the tweak of
/// ``docs/spec/disk.md``.
///
/// ``encrypt_sectors(first_sector, data)`` / ``decrypt_sectors(first_sector,
/// data)``: ``data`` is a whole number of sectors numbered from
/// ``first_sector``; large inputs use several threads.
///
/// Example::
///
///     >>> import blockmodes
///     >>> disk = blockmodes.Disk("ete", bytes(16))
///     >>> image = bytes(8 * 512)
///     >>> enc = disk.encrypt_sectors(1000, image)   # sectors 1000..1007
///     >>> disk.decrypt_sectors(1000, enc) == image
///     True
#[pyclass(frozen, module = "blockmodes", name = "Disk")]
pub struct PyDisk {
    inner: Box<dyn SectorCipher>,
    cipher: String,
}

fn sectors<'py>(
    py: Python<'py>,
    d: &dyn SectorCipher,
    first_sector: &Bound<'_, PyAny>,
    data: &[u8],
    enc: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let first = u64_arg(first_sector, "first_sector")?;
    let size = d.sector_size();
    if data.is_empty() || !data.len().is_multiple_of(size) {
        return Err(PyValueError::new_err(format!(
            "invalid data length: expected a non-empty whole number of {size}-byte sectors, got {} bytes",
            data.len()
        )));
    }
    transformed(py, data, move |buf| {
        if enc {
            d.encrypt_sectors(first, buf)
        } else {
            d.decrypt_sectors(first, buf)
        }
    })
}

#[pymethods]
impl PyDisk {
    #[new]
    #[pyo3(
        signature = (cipher, key, sector_size = None),
        text_signature = "(cipher, key, sector_size=512)"
    )]
    fn new(
        cipher: &Bound<'_, PyAny>,
        key: Buf,
        sector_size: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        if !cipher.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "cipher must be a str: \"ete\", \"eme\", \"xex\" or \"eme2\"",
            ));
        }
        let name: String = cipher.extract()?;
        let kind: DiskCipher = name.parse().map_err(|_| {
            PyValueError::new_err(format!(
                "unknown disk cipher {name:?}: expected \"ete\", \"eme\", \"xex\" or \"eme2\""
            ))
        })?;
        let size = match sector_size {
            Some(s) => u64_arg(s, "sector_size")?,
            None => 512,
        };
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let key = key.as_slice();
        let inner = aes_sectors(kind, key, size).map_err(|e| match e {
            blockmodes::Error::InvalidKeyLength { got, .. }
            | blockmodes::Error::UnsupportedKeyLength { got, .. } => {
                key_error(disk_key_lengths(kind), got)
            }
            e => to_py(e, Auth::None),
        })?;
        Ok(Self {
            inner,
            cipher: name,
        })
    }

    /// generate_key(bit_length) -> bytes
    ///
    /// A new random key of ``bit_length`` bits: 128 for ``"ete"``; 128,
    /// 192 or 256 for ``"eme"`` and ``"xex"``; 384 or 512 for ``"eme2"``.
    #[classmethod]
    fn generate_key<'py>(
        cls: &Bound<'py, PyType>,
        bit_length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        generate_key(cls.py(), bit_length, &[128, 192, 256, 384, 512])
    }

    /// encrypt_sectors(first_sector, data) -> bytes
    ///
    /// The encryption of the sectors ``first_sector, first_sector + 1, ...``
    /// that make up ``data`` (a non-empty whole number of sectors).
    fn encrypt_sectors<'py>(
        &self,
        py: Python<'py>,
        first_sector: &Bound<'_, PyAny>,
        data: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        sectors(py, &*self.inner, first_sector, data.as_slice(), true)
    }

    /// decrypt_sectors(first_sector, data) -> bytes
    ///
    /// The decryption of what ``encrypt_sectors`` gave for the same sectors.
    fn decrypt_sectors<'py>(
        &self,
        py: Python<'py>,
        first_sector: &Bound<'_, PyAny>,
        data: Buf,
    ) -> PyResult<Bound<'py, PyBytes>> {
        sectors(py, &*self.inner, first_sector, data.as_slice(), false)
    }

    /// The sector size in bytes.
    #[getter]
    fn sector_size(&self) -> usize {
        self.inner.sector_size()
    }

    fn __repr__(&self) -> String {
        format!(
            "Disk({:?}, <key>, sector_size={})",
            self.cipher,
            self.inner.sector_size()
        )
    }
}

/// The key lengths a disk cipher accepts, in words.
/// The key sizes in bits of the tweakable classes, for `generate_key`.
fn key_bits(class: &str) -> &'static [usize] {
    match class {
        "EtE" | "StE" => &[128],
        "EME2" => &[384, 512],
        _ => crate::AES_BITS,
    }
}

fn disk_key_lengths(kind: DiskCipher) -> &'static str {
    match kind {
        DiskCipher::Ete => "16 (AES-128 only)",
        DiskCipher::Eme2 => "48 or 64",
        _ => "16, 24 or 32",
    }
}

/// A wide-block (tweakable, length-preserving) cipher: one call each way.
trait Wide: Send + Sync {
    fn encrypt(&self, tweak: &[u8], data: &mut [u8]) -> LibResult<()>;
    fn decrypt(&self, tweak: &[u8], data: &mut [u8]) -> LibResult<()>;
}

/// EME and EtE take a 16-byte tweak (checked before the call).
fn tweak16(tweak: &[u8]) -> &Block {
    tweak.try_into().unwrap_or(&[0; 16])
}

impl<C: BlockCipher128Dec + Send + Sync> Wide for Eme<C> {
    fn encrypt(&self, tweak: &[u8], data: &mut [u8]) -> LibResult<()> {
        Eme::encrypt(self, tweak16(tweak), data)
    }
    fn decrypt(&self, tweak: &[u8], data: &mut [u8]) -> LibResult<()> {
        Eme::decrypt(self, tweak16(tweak), data)
    }
}

impl Wide for EteEmeAes128 {
    fn encrypt(&self, tweak: &[u8], data: &mut [u8]) -> LibResult<()> {
        EteEmeAes128::encrypt(self, tweak16(tweak), data)
    }
    fn decrypt(&self, tweak: &[u8], data: &mut [u8]) -> LibResult<()> {
        EteEmeAes128::decrypt(self, tweak16(tweak), data)
    }
}

impl<C: BlockCipher128Dec + Send + Sync> Wide for Eme2<C> {
    fn encrypt(&self, tweak: &[u8], data: &mut [u8]) -> LibResult<()> {
        Eme2::encrypt(self, tweak, data)
    }
    fn decrypt(&self, tweak: &[u8], data: &mut [u8]) -> LibResult<()> {
        Eme2::decrypt(self, tweak, data)
    }
}

fn wide<'py>(
    py: Python<'py>,
    w: &dyn Wide,
    tweak: &[u8],
    data: &[u8],
    enc: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    transformed(py, data, move |buf| {
        if enc {
            w.encrypt(tweak, buf)
        } else {
            w.decrypt(tweak, buf)
        }
    })
}

macro_rules! wide_class {
    ($py_name:literal, $rust:ident, $tweak_check:expr, $make:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(frozen, module = "blockmodes", name = $py_name)]
        pub struct $rust {
            inner: Box<dyn Wide>,
        }

        #[pymethods]
        impl $rust {
            #[new]
            fn new(key: Buf) -> PyResult<Self> {
                let make: fn(&[u8]) -> PyResult<Box<dyn Wide>> = $make;
                Ok(Self {
                    inner: make(key.as_slice())?,
                })
            }

            /// generate_key(bit_length) -> bytes
            ///
            /// A new random key of ``bit_length`` bits (see the class).
            #[classmethod]
            fn generate_key<'py>(
                cls: &Bound<'py, PyType>,
                bit_length: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                generate_key(cls.py(), bit_length, key_bits($py_name))
            }

            /// encrypt(tweak, data) -> bytes
            ///
            /// The encryption of ``data`` (same length) under ``tweak``.
            fn encrypt<'py>(
                &self,
                py: Python<'py>,
                tweak: Buf,
                data: Buf,
            ) -> PyResult<Bound<'py, PyBytes>> {
                let check: fn(&[u8]) -> PyResult<()> = $tweak_check;
                check(tweak.as_slice())?;
                wide(py, &*self.inner, tweak.as_slice(), data.as_slice(), true)
            }

            /// decrypt(tweak, data) -> bytes
            ///
            /// The decryption of ``data`` (same length) under ``tweak``.
            fn decrypt<'py>(
                &self,
                py: Python<'py>,
                tweak: Buf,
                data: Buf,
            ) -> PyResult<Bound<'py, PyBytes>> {
                let check: fn(&[u8]) -> PyResult<()> = $tweak_check;
                check(tweak.as_slice())?;
                wide(py, &*self.inner, tweak.as_slice(), data.as_slice(), false)
            }

            fn __repr__(&self) -> &'static str {
                concat!($py_name, "(<key>)")
            }
        }
    };
}

fn check_tweak16(tweak: &[u8]) -> PyResult<()> {
    block_arg::<16>(tweak, "tweak").map(|_| ())
}

fn any_tweak(_: &[u8]) -> PyResult<()> {
    Ok(())
}

fn eme_keyed(key: &[u8]) -> PyResult<Box<dyn Wide>> {
    by_aes_key!(key.len(), C => Eme::<C>::new_from_slice(key).map(|e| Box::new(e) as Box<dyn Wide>),
        _ => return Err(key_error("16, 24 or 32", key.len())))
    .map_err(|e| to_py(e, Auth::None))
}

fn ete_keyed(key: &[u8]) -> PyResult<Box<dyn Wide>> {
    if key.len() != 16 {
        return Err(key_error("16 (AES-128 only)", key.len()));
    }
    EteEmeAes128::new_from_slice(key)
        .map(|e| Box::new(e) as Box<dyn Wide>)
        .map_err(|e| to_py(e, Auth::None))
}

fn eme2_keyed(key: &[u8]) -> PyResult<Box<dyn Wide>> {
    match key.len() {
        48 => Eme2::<blockmodes::Aes128>::new_from_slice(key).map(|e| Box::new(e) as Box<dyn Wide>),
        64 => Eme2::<blockmodes::Aes256>::new_from_slice(key).map(|e| Box::new(e) as Box<dyn Wide>),
        n => {
            return Err(key_error(
                "48 or 64 (K_AD ‖ K_ECB ‖ an AES-128 or AES-256 key)",
                n,
            ));
        }
    }
    .map_err(|e| to_py(e, Auth::None))
}

wide_class!(
    "EME",
    PyEme,
    check_tweak16,
    eme_keyed,
    "EME (Halevi, Rogaway 2004) over AES: a tweakable wide-block cipher on one
data unit of 16 to 2048 bytes in whole blocks (length-preserving, no
integrity).

``EME(key)``: key 16, 24 or 32 bytes. ``encrypt(tweak, data)`` /
``decrypt(tweak, data)``: ``tweak`` 16 bytes.

Example::

    >>> import blockmodes
    >>> eme = blockmodes.EME(bytes(16))
    >>> ct = eme.encrypt(bytes(16), b\"sixteen byte msg\" * 4)
    >>> len(ct), eme.decrypt(bytes(16), ct)[:16]
    (64, b'sixteen byte msg')
"
);

wide_class!(
    "EtE",
    PyEte,
    check_tweak16,
    ete_keyed,
    "EtE[EME, StE[XEX-AES-128]] (Bellare, Cash, Keelveedhi 2011): the key-safe
wide-block cipher, secure even on data that contains its own key; AES-128
only. Data units as ``EME`` (16 to 2048 bytes in whole blocks).

``EtE(key)``: key 16 bytes. ``encrypt(tweak, data)`` / ``decrypt(tweak,
data)``: ``tweak`` 16 bytes.

Example::

    >>> import blockmodes
    >>> key = bytes(range(16))
    >>> ete = blockmodes.EtE(key)
    >>> ct = ete.encrypt(bytes(16), key * 4)   # the key in the data is fine
    >>> ete.decrypt(bytes(16), ct) == key * 4
    True
"
);

wide_class!(
    "EME2",
    PyEme2,
    any_tweak,
    eme2_keyed,
    "EME2 (IEEE P1619.2) over AES: a tweakable wide-block cipher on data of
at least 16 bytes (any length), with a tweak (associated data) of any length.

``EME2(key)``: key K_AD ‖ K_ECB ‖ K_AES, 48 bytes (AES-128) or 64 (AES-256).
``encrypt(tweak, data)`` / ``decrypt(tweak, data)``.

Example::

    >>> import blockmodes
    >>> eme2 = blockmodes.EME2(bytes(48))
    >>> ct = eme2.encrypt(b\"sector 7\", b\"any length >= 16 bytes\")
    >>> eme2.decrypt(b\"sector 7\", ct)
    b'any length >= 16 bytes'
"
);

/// A tweakable block cipher with XEX's tweak (N, i).
trait Tbc: Send + Sync {
    fn encrypt(&self, t: &XexTweak, block: &mut Block) -> LibResult<()>;
    fn decrypt(&self, t: &XexTweak, block: &mut Block) -> LibResult<()>;
}

impl<C: BlockCipher128Dec + Clone + Send + Sync> Tbc for Xex<C> {
    fn encrypt(&self, t: &XexTweak, block: &mut Block) -> LibResult<()> {
        TweakableBlockCipher::encrypt_block(self, t, block)
    }
    fn decrypt(&self, t: &XexTweak, block: &mut Block) -> LibResult<()> {
        TweakableBlockCipher::decrypt_block(self, t, block)
    }
}

impl Tbc for SteXexAes128 {
    fn encrypt(&self, t: &XexTweak, block: &mut Block) -> LibResult<()> {
        TweakableBlockCipher::encrypt_block(self, t, block)
    }
    fn decrypt(&self, t: &XexTweak, block: &mut Block) -> LibResult<()> {
        TweakableBlockCipher::decrypt_block(self, t, block)
    }
}

fn tbc<'py>(
    py: Python<'py>,
    c: &dyn Tbc,
    tweak_n: &[u8],
    tweak_i: &Bound<'_, PyAny>,
    block: &[u8],
    enc: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let n = block_arg::<16>(tweak_n, "tweak_n")?;
    let i = u64_arg(tweak_i, "tweak_i")?;
    if i == 0 {
        return Err(PyValueError::new_err("tweak_i must be >= 1, got 0"));
    }
    let mut b = block_arg::<16>(block, "block")?;
    let t = XexTweak { n, i };
    if enc {
        c.encrypt(&t, &mut b)
    } else {
        c.decrypt(&t, &mut b)
    }
    .map_err(|e| to_py(e, Auth::None))?;
    Ok(PyBytes::new(py, &b))
}

macro_rules! tbc_class {
    ($py_name:literal, $rust:ident, $make:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(frozen, module = "blockmodes", name = $py_name)]
        pub struct $rust {
            inner: Box<dyn Tbc>,
        }

        #[pymethods]
        impl $rust {
            #[new]
            fn new(key: Buf) -> PyResult<Self> {
                let make: fn(&[u8]) -> PyResult<Box<dyn Tbc>> = $make;
                Ok(Self {
                    inner: make(key.as_slice())?,
                })
            }

            /// generate_key(bit_length) -> bytes
            ///
            /// A new random key of ``bit_length`` bits (see the class).
            #[classmethod]
            fn generate_key<'py>(
                cls: &Bound<'py, PyType>,
                bit_length: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                generate_key(cls.py(), bit_length, key_bits($py_name))
            }

            /// encrypt(tweak_n, tweak_i, block) -> bytes
            ///
            /// The 16-byte ``block`` enciphered under the tweak
            /// (``tweak_n``: 16 bytes, ``tweak_i``: an int >= 1).
            fn encrypt<'py>(
                &self,
                py: Python<'py>,
                tweak_n: Buf,
                tweak_i: &Bound<'_, PyAny>,
                block: Buf,
            ) -> PyResult<Bound<'py, PyBytes>> {
                tbc(
                    py,
                    &*self.inner,
                    tweak_n.as_slice(),
                    tweak_i,
                    block.as_slice(),
                    true,
                )
            }

            /// decrypt(tweak_n, tweak_i, block) -> bytes
            ///
            /// The 16-byte ``block`` deciphered under the tweak.
            fn decrypt<'py>(
                &self,
                py: Python<'py>,
                tweak_n: Buf,
                tweak_i: &Bound<'_, PyAny>,
                block: Buf,
            ) -> PyResult<Bound<'py, PyBytes>> {
                tbc(
                    py,
                    &*self.inner,
                    tweak_n.as_slice(),
                    tweak_i,
                    block.as_slice(),
                    false,
                )
            }

            fn __repr__(&self) -> &'static str {
                concat!($py_name, "(<key>)")
            }
        }
    };
}

fn xex_keyed(key: &[u8]) -> PyResult<Box<dyn Tbc>> {
    fn make<C: BlockCipher128Dec + KeyInit + Clone + Send + Sync + 'static>(
        key: &[u8],
    ) -> LibResult<Box<dyn Tbc>> {
        Ok(Box::new(Xex::<C>::new_from_slice(key)?))
    }
    by_aes_key!(key.len(), C => make::<C>(key), _ => return Err(key_error("16, 24 or 32", key.len())))
        .map_err(|e| to_py(e, Auth::None))
}

fn ste_keyed(key: &[u8]) -> PyResult<Box<dyn Tbc>> {
    if key.len() != 16 {
        return Err(key_error("16 (AES-128 only)", key.len()));
    }
    SteXexAes128::new_from_slice(key)
        .map(|s| Box::new(s) as Box<dyn Tbc>)
        .map_err(|e| to_py(e, Auth::None))
}

tbc_class!(
    "XEX",
    PyXex,
    xex_keyed,
    "XEX (Rogaway 2004) over AES: a tweakable block cipher,
``E(K, (N, i), M) = E_K(M ⊕ Δ) ⊕ Δ`` with ``Δ = 2^i · E_K(N)``.

``XEX(key)``: key 16, 24 or 32 bytes. ``encrypt(tweak_n, tweak_i, block)``
/ ``decrypt(...)``: ``tweak_n`` 16 bytes, ``tweak_i`` an int >= 1, ``block``
16 bytes.

Example::

    >>> import blockmodes
    >>> xex = blockmodes.XEX(bytes(16))
    >>> c = xex.encrypt(bytes(16), 1, b\"sixteen byte msg\")
    >>> xex.decrypt(bytes(16), 1, c)
    b'sixteen byte msg'
"
);

tbc_class!(
    "StE",
    PySte,
    ste_keyed,
    "StE[XEX-AES-128] (Bellare, Cash, Keelveedhi 2011): XEX made key-safe
(secure even when a block equals the key); AES-128 only. The tweak
``(0^120 ‖ 0x01, 1)`` is reserved by the construction (``ValueError``).

``StE(key)``: key 16 bytes. Methods as ``XEX``.

Example::

    >>> import blockmodes
    >>> key = bytes(range(16))
    >>> ste = blockmodes.StE(key)
    >>> c = ste.encrypt(bytes(16), 1, key)
    >>> ste.decrypt(bytes(16), 1, c) == key
    True
"
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDisk>()?;
    m.add_class::<PyEme>()?;
    m.add_class::<PyEte>()?;
    m.add_class::<PyEme2>()?;
    m.add_class::<PyXex>()?;
    m.add_class::<PySte>()?;
    Ok(())
}
