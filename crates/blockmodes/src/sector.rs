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
//! ## Sector numbers and tweaks (`shared/spec/disk.md`)
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

use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use rayon::prelude::*;

use crate::eme::Eme;
use crate::eme2::Eme2;
use crate::error::{Error, Result};
use crate::ete::EteEmeAes128;
use crate::gf128::Block;
use crate::oracle::{BlockCipher128, BlockCipher128Dec, ParWork, decrypt_par, encrypt_par};
pub(crate) use crate::scratch::{wipe, with_scratch};
use crate::xex::Xex;
use crate::{Aes128, Aes192, Aes256};

pub(crate) mod simd;

/// A cipher of numbered data units (sectors or halves of 4096-byte sectors).
///
/// Both calls run on the calling thread; [`Sectors`] spreads work over
/// threads.
///
/// ```
/// use blockmodes::sector::DataUnitCipher;
/// let eme = blockmodes::eme::Eme::<blockmodes::Aes128>::new_from_slice(&[3; 16])?;
/// let mut image = vec![0u8; 4 * 512];
/// eme.encrypt_units(10, 512, &mut image)?; // units 10, 11, 12, 13
/// eme.decrypt_units(10, 512, &mut image)?;
/// assert_eq!(image, vec![0u8; 4 * 512]);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait DataUnitCipher: Sync {
    /// The largest data unit in bytes.
    const MAX_UNIT_LEN: usize;

    /// Encipher `data.len() / unit_len` consecutive data units of `unit_len`
    /// bytes, numbered from `first_unit`, in place.
    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()>;

    /// Decipher data units enciphered by [`Self::encrypt_units`].
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()>;
}

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
    fn sector_size(&self) -> usize;
    /// Encipher sector `sector` in place; `data` is exactly one sector.
    fn encrypt_sector(&self, sector: u64, data: &mut [u8]) -> Result<()>;
    /// Decipher sector `sector` in place; `data` is exactly one sector.
    fn decrypt_sector(&self, sector: u64, data: &mut [u8]) -> Result<()>;
    /// Encipher consecutive sectors `first_sector, first_sector + 1, ...` in
    /// place (`data` a whole number of sectors), on several threads when
    /// `data` is at least the parallel threshold.
    fn encrypt_sectors(&self, first_sector: u64, data: &mut [u8]) -> Result<()>;
    /// Decipher consecutive sectors, as [`Self::encrypt_sectors`].
    fn decrypt_sectors(&self, first_sector: u64, data: &mut [u8]) -> Result<()>;
    /// [`Self::encrypt_sectors`] on the calling thread only.
    fn encrypt_sectors_serial(&self, first_sector: u64, data: &mut [u8]) -> Result<()>;
    /// [`Self::decrypt_sectors`] on the calling thread only.
    fn decrypt_sectors_serial(&self, first_sector: u64, data: &mut [u8]) -> Result<()>;
}

/// Smallest piece of a parallel bulk call handed to one rayon task.
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
pub struct Sectors<D> {
    cipher: D,
    sector_size: usize,
    unit_len: usize,
    units_per_sector: usize,
    parallel_threshold: usize,
}

impl<D: DataUnitCipher> Sectors<D> {
    /// `cipher` over sectors of `sector_size` bytes: 16 to 2048 in
    /// multiples of 16, or 4096 (two 2048-byte data units). EME2, which takes
    /// longer data units, takes any multiple of 16 up to 64 KiB as one unit.
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
    pub fn with_parallel_threshold(mut self, bytes: usize) -> Self {
        self.parallel_threshold = bytes;
        self
    }

    /// The data-unit cipher.
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
        let threads = rayon::current_num_threads();
        if data.len() < self.parallel_threshold || threads < 2 {
            return self.serial(first, data, enc);
        }
        // Four chunks per thread (so a busy core does not hold up the
        // rest), each a whole number of sectors and at least 32 KiB (a rayon
        // task costs a few microseconds).
        let sectors = data.len() / self.sector_size;
        let min_chunk = (MIN_PARALLEL_CHUNK / self.sector_size).max(1);
        let per_chunk = sectors.div_ceil(4 * threads).max(min_chunk);
        data.par_chunks_mut(per_chunk * self.sector_size)
            .enumerate()
            .try_for_each(|(k, chunk)| self.serial(first + (k * per_chunk) as u64, chunk, enc))
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
    /// The key lengths the cipher accepts, in words.
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
    fn boxed<D: DataUnitCipher + Send + 'static>(
        d: D,
        size: usize,
    ) -> Result<Box<dyn SectorCipher>> {
        Ok(Box::new(Sectors::new(d, size)?))
    }
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
        (DiskCipher::Eme2, _) => boxed(Eme2::<Aes128>::new_from_slice(key)?, sector_size),
        (_, 16) => by_len::<Aes128>(kind, key, sector_size),
        (_, 24) => by_len::<Aes192>(kind, key, sector_size),
        (_, 32) => by_len::<Aes256>(kind, key, sector_size),
        (_, got) => Err(Error::InvalidKeyLength {
            expected: "16, 24 or 32",
            got,
        }),
    }
}

// ---------------------------------------------------------------------------
// Shared machinery of the disk ciphers (crate-internal).

/// Most data units interleaved in one group (one batched call for their
/// serial blocks).
pub(crate) const MAX_GROUP: usize = 64;

/// Units per group for units of `m` blocks: about 512 blocks (8 KiB, well
/// inside L1) per group.
pub(crate) fn group_units(m: usize) -> usize {
    (512 / m.max(1)).clamp(1, MAX_GROUP)
}

/// One direction of the block cipher, as a batched pass over blocks (static
/// dispatch, so the mode's whitening inlines into the backend's call).
pub(crate) trait Pass {
    /// Run `n` blocks of `work` through the cipher in this direction.
    fn run<W: ParWork>(&self, n: usize, work: &mut W);
    /// The cipher in this direction on a few blocks in place (fewer than the
    /// backend's width go through pipelined one-block calls, not a padded
    /// wide call).
    fn blocks(&self, blocks: &mut [Block]);
}

/// The forward cipher as a [`Pass`].
pub(crate) struct Enc<'a, C>(pub &'a C);
/// The inverse cipher as a [`Pass`].
pub(crate) struct Dec<'a, C>(pub &'a C);

impl<C: BlockCipher128> Pass for Enc<'_, C> {
    #[inline(always)]
    fn run<W: ParWork>(&self, n: usize, work: &mut W) {
        encrypt_par(self.0, n, work)
    }
    #[inline(always)]
    fn blocks(&self, blocks: &mut [Block]) {
        ecb_encrypt(self.0, blocks)
    }
}

impl<C: BlockCipher128Dec> Pass for Dec<'_, C> {
    #[inline(always)]
    fn run<W: ParWork>(&self, n: usize, work: &mut W) {
        decrypt_par(self.0, n, work)
    }
    #[inline(always)]
    fn blocks(&self, blocks: &mut [Block]) {
        ecb_decrypt(self.0, blocks)
    }
}

/// Encipher (or decipher) a few blocks in place: a [`ParWork`] that copies in
/// and out.
pub(crate) struct InPlace<'a>(pub &'a mut [Block]);

impl ParWork for InPlace<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        copy_blocks(blocks, &self.0[start..start + blocks.len()]);
    }
    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        copy_blocks(&mut self.0[start..start + blocks.len()], blocks);
    }
}

/// ECB over `blocks` in place with the forward cipher.
pub(crate) fn ecb_encrypt<
    C: BlockCipherEncrypt + cipher::BlockSizeUser<BlockSize = cipher::consts::U16>,
>(
    cipher: &C,
    blocks: &mut [Block],
) {
    cipher.encrypt_blocks(cipher::array::Array::cast_slice_from_core_mut(blocks));
}

/// ECB over `blocks` in place with the inverse cipher.
pub(crate) fn ecb_decrypt<
    C: BlockCipherDecrypt + cipher::BlockSizeUser<BlockSize = cipher::consts::U16>,
>(
    cipher: &C,
    blocks: &mut [Block],
) {
    cipher.decrypt_blocks(cipher::array::Array::cast_slice_from_core_mut(blocks));
}

/// `data` as blocks, checking that the data units are valid: `unit_len` a
/// multiple of 16 in `16..=max`, `data` a non-empty whole number of units.
pub(crate) fn unit_blocks(unit_len: usize, max: usize, data: &mut [u8]) -> Result<&mut [Block]> {
    if !(16..=max).contains(&unit_len) || !unit_len.is_multiple_of(16) {
        return Err(Error::InvalidLength(
            "data unit must be 16..=2048 bytes in multiples of 16",
        ));
    }
    if data.is_empty() || !data.len().is_multiple_of(unit_len) {
        return Err(Error::InvalidLength(
            "data must be a non-empty whole number of data units",
        ));
    }
    Ok(data.as_chunks_mut::<16>().0)
}

/// Check that `count` data units numbered from `first` fit in a `u128`.
pub(crate) fn check_unit_numbers(first: u128, count: usize) -> Result<()> {
    first
        .checked_add(count as u128 - 1)
        .map(|_| ())
        .ok_or(Error::InvalidParameter("data unit numbers overflow a u128"))
}

/// `dst[k] = a[k] ^ b[k]`, vectorized.
#[inline(always)]
pub(crate) fn xor_blocks_to(dst: &mut [Block], a: &[Block], b: &[Block]) {
    let (a, b) = (a.as_flattened(), b.as_flattened());
    for ((x, y), z) in dst.as_flattened_mut().iter_mut().zip(a).zip(b) {
        *x = *y ^ *z;
    }
}

/// `dst[k] ^= d` for every block, 64 bytes at a time: the stores must be as
/// wide as the cipher's loads that follow (a 512-bit load of data written by
/// 128-bit stores stalls).
#[inline(always)]
pub(crate) fn xor_each(dst: &mut [Block], d: &Block) {
    let four = [*d; 4];
    let pattern = four.as_flattened();
    let mut chunks = dst.as_flattened_mut().chunks_exact_mut(64);
    for c in &mut chunks {
        for (x, p) in c.iter_mut().zip(pattern) {
            *x ^= *p;
        }
    }
    for (x, p) in chunks.into_remainder().iter_mut().zip(pattern) {
        *x ^= *p;
    }
}

/// Fold a 64-byte accumulator (four blocks) to one block (indexing only, so
/// the accumulator stays in a register).
#[inline(always)]
pub(crate) fn fold4(acc: &[u8; 64]) -> Block {
    let mut r = [0u8; 16];
    for i in 0..16 {
        r[i] = acc[i] ^ acc[16 + i] ^ acc[32 + i] ^ acc[48 + i];
    }
    r
}

/// `dst.copy_from_slice(src)`, xoring the blocks copied into `acc` (four
/// blocks wide: fold it with [`fold4`] when the sum is needed), in one pass.
#[inline(always)]
pub(crate) fn copy_fold(dst: &mut [Block], src: &[Block], acc: &mut [u8; 64]) {
    let mut a = *acc;
    let mut d_chunks = dst.as_flattened_mut().chunks_exact_mut(64);
    let mut s_chunks = src.as_flattened().chunks_exact(64);
    for (d, s) in (&mut d_chunks).zip(&mut s_chunks) {
        if let (Ok(d), Ok(s)) = (<&mut [u8; 64]>::try_from(d), <&[u8; 64]>::try_from(s)) {
            *d = *s;
            for i in 0..64 {
                a[i] ^= s[i];
            }
        }
    }
    for ((x, d), s) in a
        .iter_mut()
        .zip(d_chunks.into_remainder())
        .zip(s_chunks.remainder())
    {
        *d = *s;
        *x ^= *s;
    }
    *acc = a;
}

/// `dst.copy_from_slice(src)` for blocks, as a loop the compiler inlines and
/// vectorizes (not a `memmove` call).
#[inline(always)]
pub(crate) fn copy_blocks(dst: &mut [Block], src: &[Block]) {
    // Byte by byte, so the stores come out as wide as the loads that follow
    // (a 512-bit load of data written by 128-bit stores stalls).
    for (d, s) in dst.as_flattened_mut().iter_mut().zip(src.as_flattened()) {
        *d = *s;
    }
}
