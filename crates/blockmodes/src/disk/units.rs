//! The data-unit engine under the disk ciphers: the [`DataUnitCipher`]
//! trait that XEX, EME, EME2 and EtE implement, and the batched passes,
//! groupings and block helpers they share. It sits below the ciphers; the
//! sector interface ([`crate::sector`]) sits above them.

use cipher::{BlockCipherDecrypt, BlockCipherEncrypt};

use crate::arith::gf128::Block;
use crate::error::{Error, Result};
pub(crate) use crate::oracle::scratch::{wipe, with_scratch};
use crate::oracle::{BlockCipher128, BlockCipher128Dec, ParWork, decrypt_par, encrypt_par};

/// A cipher of numbered data units (sectors or halves of 4096-byte sectors).
///
/// Both calls run on the calling thread; [`Sectors`](crate::sector::Sectors) spreads work over
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
    ///
    /// ```
    /// use blockmodes::{Aes128, eme::Eme, sector::DataUnitCipher};
    /// let eme = Eme::<Aes128>::new_from_slice(&[3; 16])?;
    /// let mut two = [0u8; 1024];
    /// eme.encrypt_units(5, 512, &mut two)?; // units 5 and 6
    /// let mut six = [0u8; 512];
    /// eme.encrypt(&6u128.to_le_bytes(), &mut six)?; // EME: unit u's tweak is u, little-endian
    /// assert_eq!(&two[512..], &six[..]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()>;

    /// Decipher data units enciphered by [`Self::encrypt_units`].
    ///
    /// ```
    /// use blockmodes::{Aes128, sector::DataUnitCipher, xex::Xex};
    /// let xex = Xex::<Aes128>::new_from_slice(&[3; 16])?;
    /// let mut units = [1u8; 1024];
    /// xex.encrypt_units(u128::from(u64::MAX), 512, &mut units)?;
    /// xex.decrypt_units(u128::from(u64::MAX), 512, &mut units)?;
    /// assert_eq!(units, [1u8; 1024]);
    /// assert!(xex.decrypt_units(0, 512, &mut units[..600]).is_err()); // whole units only
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()>;
}

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
    /// Whether this is the inverse cipher (the fused XEX path's direction).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    const DECRYPT: bool;
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
    const DECRYPT: bool = false;
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
    const DECRYPT: bool = true;
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
