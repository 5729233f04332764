//! Wide-block (tweakable enciphering) modes: a length-preserving
//! permutation of a whole data unit of several blocks under a tweak, such
//! that changing any bit of the input changes the whole output.
//!
//! The StE/EtE paper (section 4) defines a *wideblock mode of operation*
//! `WB = (WB, WB^-1)` as a pair of oracle algorithms that see their key only
//! through a block cipher `g` and its inverse: `WB(T, X : g)`. In Rust:
//! * [`WideBlockCipher`]: a keyed wide-block cipher (encipher, decipher,
//!   and the bulk call over consecutive numbered data units);
//! * [`WideBlockMode<C>`]: a wide-block cipher built from *any* block cipher
//!   `C` — the oracle `g` — and nothing else ([`WideBlockMode::from_cipher`]).
//!   EME is one ([`crate::eme::Eme`]); EtE takes any.

use crate::arith::gf128::Block;
use crate::disk::units::check_unit_numbers;
use crate::error::{Error, Result};

/// A keyed tweakable wide-block cipher with 16-byte tweaks.
///
/// ```
/// use blockmodes::wide::WideBlockCipher;
/// let eme = blockmodes::eme::Eme::<blockmodes::Aes128>::new_from_slice(&[1; 16])?;
/// let mut unit = [0u8; 512];
/// eme.encrypt(&[0; 16], &mut unit)?;
/// eme.decrypt(&[0; 16], &mut unit)?;
/// assert_eq!(unit, [0u8; 512]);
/// assert!(eme.check_len(4096).is_err()); // EME: at most 128 blocks
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait WideBlockCipher {
    /// The largest data unit in bytes.
    const MAX_LEN: usize;

    /// `Ok` if the cipher takes data units of `len` bytes, else the typed
    /// error its calls would return.
    ///
    /// ```
    /// use blockmodes::wide::WideBlockCipher;
    /// let eme = blockmodes::eme::Eme::<blockmodes::Aes128>::new_from_slice(&[1; 16])?;
    /// let eme2 = blockmodes::eme2::Eme2::<blockmodes::Aes128>::new_from_slice(&[1; 48])?;
    /// assert!(eme.check_len(512).is_ok());
    /// assert!(eme.check_len(24).is_err()); // EME: whole blocks
    /// assert!(eme2.check_len(24).is_ok()); // EME2: any length from 16 bytes
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn check_len(&self, len: usize) -> Result<()>;

    /// Encipher one data unit in place under `tweak`.
    ///
    /// ```
    /// use blockmodes::wide::WideBlockCipher;
    /// let j = blockmodes::ete::EteEmeAes128::new_from_slice(&[1; 16])?;
    /// let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
    /// b[63] = 1;
    /// WideBlockCipher::encrypt(&j, &[5; 16], &mut a)?;
    /// WideBlockCipher::encrypt(&j, &[5; 16], &mut b)?;
    /// assert_ne!(a[..16], b[..16]); // one bit of the last block changes the first
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn encrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()>;

    /// Decipher one data unit in place under `tweak`.
    ///
    /// ```
    /// use blockmodes::wide::WideBlockCipher;
    /// let j = blockmodes::ete::EteEmeAes128::new_from_slice(&[1; 16])?;
    /// let mut unit = [6u8; 128];
    /// WideBlockCipher::encrypt(&j, &[5; 16], &mut unit)?;
    /// WideBlockCipher::decrypt(&j, &[5; 16], &mut unit)?;
    /// assert_eq!(unit, [6u8; 128]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn decrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()>;

    /// Encipher consecutive data units of `unit_len` bytes numbered from
    /// `first_unit`, unit u under the tweak `u` as a 16-byte little-endian
    /// integer. Modes override it to interleave units; the default loops.
    ///
    /// ```
    /// use blockmodes::wide::WideBlockCipher;
    /// let eme = blockmodes::eme::Eme::<blockmodes::Aes128>::new_from_slice(&[1; 16])?;
    /// let mut units = [0u8; 96];
    /// WideBlockCipher::encrypt_units(&eme, 9, 48, &mut units)?; // units 9 and 10
    /// let mut ten = [0u8; 48];
    /// WideBlockCipher::encrypt(&eme, &10u128.to_le_bytes(), &mut ten)?;
    /// assert_eq!(&units[48..], &ten[..]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        check_units(self, first_unit, unit_len, data)?;
        for (k, unit) in data.chunks_exact_mut(unit_len).enumerate() {
            self.encrypt(&(first_unit + k as u128).to_le_bytes(), unit)?;
        }
        Ok(())
    }

    /// Decipher what [`Self::encrypt_units`] enciphered.
    ///
    /// ```
    /// use blockmodes::wide::WideBlockCipher;
    /// let eme = blockmodes::eme::Eme::<blockmodes::Aes128>::new_from_slice(&[1; 16])?;
    /// let mut units = [8u8; 96];
    /// WideBlockCipher::encrypt_units(&eme, 9, 48, &mut units)?;
    /// WideBlockCipher::decrypt_units(&eme, 9, 48, &mut units)?;
    /// assert_eq!(units, [8u8; 96]);
    /// assert!(WideBlockCipher::decrypt_units(&eme, u128::MAX, 48, &mut units).is_err()); // numbers overflow
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        check_units(self, first_unit, unit_len, data)?;
        for (k, unit) in data.chunks_exact_mut(unit_len).enumerate() {
            self.decrypt(&(first_unit + k as u128).to_le_bytes(), unit)?;
        }
        Ok(())
    }
}

/// A wide-block mode of operation: a [`WideBlockCipher`] that uses its key
/// only through the block cipher `C` (the paper's oracle `g`).
///
/// ```
/// use blockmodes::wide::{WideBlockCipher, WideBlockMode};
/// use blockmodes::eme::Eme;
/// use cipher::KeyInit;
/// let eme = Eme::from_cipher(blockmodes::Aes128::new(&[0; 16].into()));
/// let mut unit = [0u8; 32];
/// WideBlockCipher::encrypt(&eme, &[0; 16], &mut unit)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait WideBlockMode<C>: WideBlockCipher + Sized {
    /// The mode over the block cipher `cipher`.
    ///
    /// ```
    /// use blockmodes::wide::{WideBlockCipher, WideBlockMode};
    /// use blockmodes::{Aes128, eme::Eme};
    /// use cipher::KeyInit;
    /// let eme: Eme<Aes128> = WideBlockMode::from_cipher(Aes128::new(&[4; 16].into()));
    /// assert!(eme.check_len(2048).is_ok());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn from_cipher(cipher: C) -> Self;
}

/// Validate a bulk call up front, so that a bad call changes nothing.
pub(crate) fn check_units<W: WideBlockCipher + ?Sized>(
    w: &W,
    first_unit: u128,
    unit_len: usize,
    data: &[u8],
) -> Result<()> {
    w.check_len(unit_len)?;
    if data.is_empty() || !data.len().is_multiple_of(unit_len) {
        return Err(Error::InvalidLength(
            "data must be a non-empty whole number of data units",
        ));
    }
    check_unit_numbers(first_unit, data.len() / unit_len)
}
