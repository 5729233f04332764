//! The sector interface: encipher sector `s` of a disk image in place, one
//! sector at a time or many at once (in parallel above a measured size).
//!
//! * [`DataUnitCipher`]: a cipher that enciphers numbered data units
//!   (implemented by [`crate::xex::Xex`], [`crate::eme::Eme`],
//!   [`crate::ete::EtE`]). Its bulk call takes many consecutive units and
//!   interleaves them (one batched call for all their XEX `E_K(N)`s or EME
//!   middle blocks), on the calling thread.
//! * [`Sectors`]: a data-unit cipher with a sector size, implementing the
//!   object-safe [`SectorCipher`] (`encrypt_sector`, `encrypt_sectors`, ...).
//! * [`aes_sectors`]: the AES instantiations by name and key, for a
//!   disk-image tool.
//!
//! ## Sector numbers and tweaks (`docs/spec/disk.md`)
//! * Sector sizes 16 to 2048 bytes in multiples of 16: one data unit per
//!   sector, numbered as the sector.
//! * 4096-byte sectors: two 2048-byte data units numbered `2s` and `2s + 1`
//!   (EME cannot take more than 128 blocks; XEX and EtE follow the same rule
//!   so that all three ciphers lay out an image alike).
//! * EME and EtE: the tweak T of data unit u is u as a 16-byte
//!   **little-endian** integer (as in IEEE 1619).
//! * XEX: block j (0-based) of data unit u has tweak
//!   `(N = u as a 16-byte big-endian integer, i = j + 1)`.
//!
//! ## Key sizes
//! | cipher | key |
//! | --- | --- |
//! | `xex` | one AES key: 16, 24 or 32 bytes (XEX uses the same key for `E_K(N)` and the blocks, unlike XTS's two keys) |
//! | `eme` | one AES key: 16, 24 or 32 bytes |
//! | `ete` | 16 bytes only: StE compares message blocks with the key, so the key must be one block; EtE is AES-128 |
//! | `eme2` | `K_AD ‖ K_ECB ‖ K_AES`: 48 bytes (AES-128) or 64 (AES-256); any sector size from 16 bytes, 4096 as one data unit, the sector number little-endian as associated data |

#[cfg(feature = "rayon")]
use rayon::prelude::*;

use crate::error::{Error, Result};
#[cfg(feature = "alloc")]
use {
    crate::disk::{eme::Eme, eme2::Eme2, ete::EteEmeAes128, xex::Xex},
    crate::oracle::BlockCipher128Dec,
    crate::{Aes128, Aes192, Aes256},
    alloc::boxed::Box,
    cipher::KeyInit,
};

pub use crate::disk::units::DataUnitCipher;

/// The sector interface, object-safe so a tool can hold any of the ciphers
/// as `Box<dyn SectorCipher>` (see [`aes_sectors`]).
///
/// ```
/// use blockmodes::sector::{SectorCipher, DiskCipher, aes_sectors};
/// let disk = aes_sectors(DiskCipher::Ete, &[5; 16], 512)?;
/// let mut image = vec![0u8; 64 * 512];
/// disk.encrypt_sectors(1000, &mut image)?; // sectors 1000..1064
/// let mut one = image[512..1024].to_vec();
/// disk.decrypt_sector(1001, &mut one)?;
/// assert_eq!(one, vec![0u8; 512]);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait SectorCipher: Send + Sync {
    /// The sector size in bytes.
    ///
    /// ```
    /// use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
    /// assert_eq!(aes_sectors(DiskCipher::Xex, &[0; 16], 4096)?.sector_size(), 4096);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn sector_size(&self) -> usize;
    /// Encipher sector `sector` in place; `data` is exactly one sector.
    ///
    /// ```
    /// use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
    /// let disk = aes_sectors(DiskCipher::Eme, &[1; 16], 512)?;
    /// let mut sector = [0u8; 512];
    /// disk.encrypt_sector(42, &mut sector)?;
    /// assert!(disk.encrypt_sector(42, &mut [0u8; 511]).is_err()); // exactly one sector
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn encrypt_sector(&self, sector: u64, data: &mut [u8]) -> Result<()>;
    /// Decipher sector `sector` in place; `data` is exactly one sector.
    ///
    /// ```
    /// use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
    /// let disk = aes_sectors(DiskCipher::Eme, &[1; 16], 512)?;
    /// let mut sector = [3u8; 512];
    /// disk.encrypt_sector(42, &mut sector)?;
    /// let mut other = sector;
    /// disk.decrypt_sector(43, &mut other)?; // another sector number: other data, no error
    /// assert_ne!(other, [3u8; 512]);
    /// disk.decrypt_sector(42, &mut sector)?;
    /// assert_eq!(sector, [3u8; 512]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn decrypt_sector(&self, sector: u64, data: &mut [u8]) -> Result<()>;
    /// Encipher consecutive sectors `first_sector, first_sector + 1, ...` in
    /// place (`data` a whole number of sectors), on several threads when
    /// `data` is at least the parallel threshold.
    ///
    /// ```
    /// use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
    /// let disk = aes_sectors(DiskCipher::Xex, &[1; 32], 512)?;
    /// let mut image = vec![9u8; 3 * 512];
    /// let mut one = image[512..1024].to_vec();
    /// disk.encrypt_sectors(100, &mut image)?; // sectors 100, 101, 102
    /// disk.encrypt_sector(101, &mut one)?;
    /// assert_eq!(&image[512..1024], &one[..]);
    /// assert!(disk.encrypt_sectors(u64::MAX, &mut image).is_err()); // past u64::MAX
    /// assert!(disk.encrypt_sectors(0, &mut image[..700]).is_err()); // not whole sectors
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn encrypt_sectors(&self, first_sector: u64, data: &mut [u8]) -> Result<()>;
    /// Decipher consecutive sectors, as [`Self::encrypt_sectors`].
    ///
    /// ```
    /// use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
    /// let disk = aes_sectors(DiskCipher::Ete, &[1; 16], 4096)?;
    /// let mut image = vec![9u8; 2 * 4096];
    /// disk.encrypt_sectors(8, &mut image)?;
    /// disk.decrypt_sectors(8, &mut image)?;
    /// assert_eq!(image, vec![9u8; 2 * 4096]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn decrypt_sectors(&self, first_sector: u64, data: &mut [u8]) -> Result<()>;
    /// [`Self::encrypt_sectors`] on the calling thread only.
    ///
    /// ```
    /// use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
    /// let disk = aes_sectors(DiskCipher::Eme2, &[1; 48], 512)?;
    /// let (mut a, mut b) = (vec![2u8; 4 * 512], vec![2u8; 4 * 512]);
    /// disk.encrypt_sectors_serial(5, &mut a)?;
    /// disk.encrypt_sectors(5, &mut b)?;
    /// assert_eq!(a, b);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn encrypt_sectors_serial(&self, first_sector: u64, data: &mut [u8]) -> Result<()>;
    /// [`Self::decrypt_sectors`] on the calling thread only.
    ///
    /// ```
    /// use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
    /// let disk = aes_sectors(DiskCipher::Eme2, &[1; 48], 512)?;
    /// let mut image = vec![2u8; 4 * 512];
    /// disk.encrypt_sectors(5, &mut image)?;
    /// disk.decrypt_sectors_serial(5, &mut image)?;
    /// assert_eq!(image, vec![2u8; 4 * 512]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn decrypt_sectors_serial(&self, first_sector: u64, data: &mut [u8]) -> Result<()>;
}

/// Smallest piece of a parallel bulk call handed to one rayon task.
#[cfg(feature = "rayon")]
const MIN_PARALLEL_CHUNK: usize = 32 * 1024;

/// Bulk calls of at least this many bytes go parallel.
///
/// Measured on the 2-core development machine (serial against rayon, EME
/// and XEX over 512-byte sectors, wall clock, best of 15): below 256 KiB the
/// parallel call was slower (rayon's start-up and a second core that was
/// often busy), at 256 KiB even, at 1 MiB 1.2 to 1.5 times faster.
pub const DEFAULT_PARALLEL_THRESHOLD: usize = 256 * 1024;

/// A [`DataUnitCipher`] with a sector size: the sector interface.
///
/// ```
/// use blockmodes::sector::{Sectors, SectorCipher};
/// use blockmodes::xex::Xex;
/// let disk = Sectors::new(Xex::<blockmodes::Aes256>::new_from_slice(&[1; 32])?, 4096)?;
/// let mut image = vec![7u8; 3 * 4096];
/// disk.encrypt_sectors(0, &mut image)?;
/// disk.decrypt_sectors(0, &mut image)?;
/// assert_eq!(image, vec![7u8; 3 * 4096]);
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct Sectors<D> {
    cipher: D,
    sector_size: usize,
    unit_len: usize,
    units_per_sector: usize,
    parallel_threshold: usize,
}

impl<D> core::fmt::Debug for Sectors<D> {
    /// Prints no key material: only the fields shown.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sectors")
            .field("sector_size", &self.sector_size)
            .field("parallel_threshold", &self.parallel_threshold)
            .finish_non_exhaustive()
    }
}

impl<D: DataUnitCipher> Sectors<D> {
    /// `cipher` over sectors of `sector_size` bytes: 16 to 2048 in
    /// multiples of 16, or 4096 (two 2048-byte data units). EME2, which takes
    /// longer data units, takes any multiple of 16 up to 64 KiB as one unit.
    ///
    /// ```
    /// use blockmodes::{Aes128, sector::Sectors, xex::Xex};
    /// let xex = || Xex::<Aes128>::new_from_slice(&[1; 16]);
    /// assert!(Sectors::new(xex()?, 512).is_ok());
    /// assert!(Sectors::new(xex()?, 4096).is_ok()); // two 2048-byte data units
    /// assert!(Sectors::new(xex()?, 520).is_err()); // not a multiple of 16
    /// assert!(Sectors::new(xex()?, 0).is_err());
    /// assert!(Sectors::new(xex()?, 8192).is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(cipher: D, sector_size: usize) -> Result<Self> {
        let (unit_len, units_per_sector) = match sector_size {
            4096 if D::MAX_UNIT_LEN < 4096 => (2048, 2),
            n if (16..=D::MAX_UNIT_LEN).contains(&n) && n.is_multiple_of(16) => (n, 1),
            _ => {
                return Err(Error::InvalidLength(
                    "sector size must be 16..=2048 bytes in multiples of 16, or 4096 (EME2: a multiple of 16 up to 65536)",
                ));
            }
        };
        Ok(Self {
            cipher,
            sector_size,
            unit_len,
            units_per_sector,
            parallel_threshold: DEFAULT_PARALLEL_THRESHOLD,
        })
    }

    /// Set the size in bytes from which [`SectorCipher::encrypt_sectors`]
    /// goes parallel (`usize::MAX`: never).
    ///
    /// ```
    /// use blockmodes::sector::{SectorCipher, Sectors};
    /// use blockmodes::{Aes128, xex::Xex};
    /// let always = Sectors::new(Xex::<Aes128>::new_from_slice(&[1; 16])?, 512)?.with_parallel_threshold(0);
    /// let (mut a, mut b) = (vec![4u8; 16 * 512], vec![4u8; 16 * 512]);
    /// always.encrypt_sectors(3, &mut a)?;
    /// always.encrypt_sectors_serial(3, &mut b)?;
    /// assert_eq!(a, b); // the same bytes, on however many threads
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn with_parallel_threshold(mut self, bytes: usize) -> Self {
        self.parallel_threshold = bytes;
        self
    }

    /// The data-unit cipher.
    ///
    /// ```
    /// use blockmodes::sector::{DataUnitCipher, SectorCipher, Sectors};
    /// use blockmodes::{Aes128, xex::Xex};
    /// let disk = Sectors::new(Xex::<Aes128>::new_from_slice(&[1; 16])?, 512)?;
    /// let (mut a, mut b) = (vec![5u8; 1024], vec![5u8; 1024]);
    /// disk.encrypt_sectors(7, &mut a)?;
    /// disk.cipher().encrypt_units(7, 512, &mut b)?; // sector s is data unit s
    /// assert_eq!(a, b);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn cipher(&self) -> &D {
        &self.cipher
    }

    /// Check that `data` is a whole number of sectors numbered from `first`
    /// without overflowing a `u64`, and return the first data unit.
    fn units_of(&self, first: u64, data: &[u8]) -> Result<u128> {
        if data.is_empty() || !data.len().is_multiple_of(self.sector_size) {
            return Err(Error::InvalidLength(
                "data must be a non-empty whole number of sectors",
            ));
        }
        let last = (data.len() / self.sector_size - 1) as u64;
        first
            .checked_add(last)
            .ok_or(Error::InvalidParameter("sector numbers overflow a u64"))?;
        Ok(first as u128 * self.units_per_sector as u128)
    }

    fn one(&self, sector: u64, data: &mut [u8], enc: bool) -> Result<()> {
        if data.len() != self.sector_size {
            return Err(Error::InvalidLength("data must be exactly one sector"));
        }
        self.serial(sector, data, enc)
    }

    fn serial(&self, first: u64, data: &mut [u8], enc: bool) -> Result<()> {
        let unit = self.units_of(first, data)?;
        if enc {
            self.cipher.encrypt_units(unit, self.unit_len, data)
        } else {
            self.cipher.decrypt_units(unit, self.unit_len, data)
        }
    }

    fn bulk(&self, first: u64, data: &mut [u8], enc: bool) -> Result<()> {
        self.units_of(first, data)?;
        #[cfg(not(feature = "rayon"))]
        return self.serial(first, data, enc);
        #[cfg(feature = "rayon")]
        self.bulk_par(first, data, enc)
    }

    /// [`Self::bulk`] over the rayon pool, for data above the threshold.
    #[cfg(feature = "rayon")]
    fn bulk_par(&self, first: u64, data: &mut [u8], enc: bool) -> Result<()> {
        if data.len() < self.parallel_threshold {
            return self.serial(first, data, enc);
        }
        let threads = crate::par::threads();
        if threads < 2 {
            return self.serial(first, data, enc);
        }
        // Four chunks per thread (so a busy core does not hold up the
        // rest), each a whole number of sectors and at least 32 KiB (a rayon
        // task costs a few microseconds).
        let sectors = data.len() / self.sector_size;
        let min_chunk = (MIN_PARALLEL_CHUNK / self.sector_size).max(1);
        let per_chunk = sectors.div_ceil(4 * threads).max(min_chunk);
        crate::par::install(|| {
            data.par_chunks_mut(per_chunk * self.sector_size)
                .enumerate()
                .try_for_each(|(k, chunk)| self.serial(first + (k * per_chunk) as u64, chunk, enc))
        })
    }
}

impl<D: DataUnitCipher + Send> SectorCipher for Sectors<D> {
    fn sector_size(&self) -> usize {
        self.sector_size
    }
    fn encrypt_sector(&self, sector: u64, data: &mut [u8]) -> Result<()> {
        self.one(sector, data, true)
    }
    fn decrypt_sector(&self, sector: u64, data: &mut [u8]) -> Result<()> {
        self.one(sector, data, false)
    }
    fn encrypt_sectors(&self, first_sector: u64, data: &mut [u8]) -> Result<()> {
        self.bulk(first_sector, data, true)
    }
    fn decrypt_sectors(&self, first_sector: u64, data: &mut [u8]) -> Result<()> {
        self.bulk(first_sector, data, false)
    }
    fn encrypt_sectors_serial(&self, first_sector: u64, data: &mut [u8]) -> Result<()> {
        self.serial(first_sector, data, true)
    }
    fn decrypt_sectors_serial(&self, first_sector: u64, data: &mut [u8]) -> Result<()> {
        self.serial(first_sector, data, false)
    }
}

/// The disk ciphers by name, for [`aes_sectors`] (`"xex"`, `"eme"`, `"ete"`,
/// `"eme2"`).
///
/// ```
/// use blockmodes::sector::DiskCipher;
/// assert_eq!("ete".parse::<DiskCipher>()?, DiskCipher::Ete);
/// assert!("xts".parse::<DiskCipher>().is_err());
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskCipher {
    /// XEX-AES (key: 16, 24 or 32 bytes).
    Xex,
    /// EME-AES (key: 16, 24 or 32 bytes).
    Eme,
    /// EtE[EME, StE[XEX-AES-128]], the paper's J (key: 16 bytes only).
    Ete,
    /// EME2-AES (key `K_AD ‖ K_ECB ‖ K_AES`: 48 or 64 bytes); takes whole
    /// sectors of any size (4096 bytes: one data unit).
    Eme2,
}

impl DiskCipher {
    /// The key lengths the cipher accepts, in bytes.
    ///
    /// ```
    /// use blockmodes::sector::DiskCipher;
    /// assert_eq!(DiskCipher::Ete.key_lengths(), "16");
    /// assert_eq!(DiskCipher::Eme2.key_lengths(), "48 or 64");
    /// ```
    pub fn key_lengths(self) -> &'static str {
        match self {
            DiskCipher::Xex | DiskCipher::Eme => "16, 24 or 32",
            DiskCipher::Ete => "16",
            DiskCipher::Eme2 => "48 or 64",
        }
    }
}

impl core::str::FromStr for DiskCipher {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "xex" => Ok(DiskCipher::Xex),
            "eme" => Ok(DiskCipher::Eme),
            "ete" => Ok(DiskCipher::Ete),
            "eme2" => Ok(DiskCipher::Eme2),
            _ => Err(Error::InvalidParameter(
                "unknown disk cipher (expected xex, eme, ete or eme2)",
            )),
        }
    }
}

#[cfg(feature = "alloc")]
/// The AES instantiation of `kind` under `key`, over sectors of
/// `sector_size` bytes. Key lengths: see [`DiskCipher::key_lengths`] and the
/// module docs.
///
/// ```
/// use blockmodes::sector::{aes_sectors, DiskCipher, SectorCipher};
/// let xex = aes_sectors(DiskCipher::Xex, &[0; 24], 512)?; // AES-192
/// assert_eq!(xex.sector_size(), 512);
/// assert!(aes_sectors(DiskCipher::Ete, &[0; 32], 512).is_err()); // EtE: AES-128 only
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub fn aes_sectors(
    kind: DiskCipher,
    key: &[u8],
    sector_size: usize,
) -> Result<Box<dyn SectorCipher>> {
    #[cfg(feature = "alloc")]
    fn boxed<D: DataUnitCipher + Send + 'static>(
        d: D,
        size: usize,
    ) -> Result<Box<dyn SectorCipher>> {
        Ok(Box::new(Sectors::new(d, size)?))
    }
    #[cfg(feature = "alloc")]
    fn by_len<C: BlockCipher128Dec + KeyInit + Send + Sync + 'static>(
        kind: DiskCipher,
        key: &[u8],
        size: usize,
    ) -> Result<Box<dyn SectorCipher>> {
        match kind {
            DiskCipher::Xex => boxed(Xex::<C>::new_from_slice(key)?, size),
            _ => boxed(Eme::<C>::new_from_slice(key)?, size),
        }
    }
    match (kind, key.len()) {
        (DiskCipher::Ete, _) => boxed(EteEmeAes128::new_from_slice(key)?, sector_size),
        (DiskCipher::Eme2, 64) => boxed(Eme2::<Aes256>::new_from_slice(key)?, sector_size),
        (DiskCipher::Eme2, 48) => boxed(Eme2::<Aes128>::new_from_slice(key)?, sector_size),
        (DiskCipher::Eme2, got) => Err(Error::UnsupportedKeyLength {
            allowed: &[48, 64],
            got,
        }),
        (_, 16) => by_len::<Aes128>(kind, key, sector_size),
        (_, 24) => by_len::<Aes192>(kind, key, sector_size),
        (_, 32) => by_len::<Aes256>(kind, key, sector_size),
        (_, got) => Err(Error::UnsupportedKeyLength {
            allowed: &[16, 24, 32],
            got,
        }),
    }
}
