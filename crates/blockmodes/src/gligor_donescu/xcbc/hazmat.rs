//! **Hazardous:** encryption with a caller-chosen r0 or counter value.
//!
//! These traits exist for test vectors and for protocols that manage the
//! counter themselves, for example a file format that encrypts chunk `k` of
//! a file under a counter made of the chunk index and a last-chunk flag.
//! Nothing here checks uniqueness, so the caller takes over two duties:
//!
//! * **Never use the same r0, or the same counter value, twice under one
//!   key**: not across messages, not across processes, not across files
//!   encrypted with the same key (give each file its own key, or put a
//!   per-file unique prefix into the counter). A repeated value repeats r0
//!   and z0, which lets an attacker compare plaintexts and forge
//!   ciphertexts. A pXCBC message under `ctr` with L segments occupies the
//!   counter values `ctr ..= ctr + L - 1` (the stateful sender advances by
//!   L, following the paper): keep such ranges disjoint. A stateless r0
//!   must moreover be uniformly random and secret; a predictable or chosen
//!   r0 voids the paper's security proof.
//! * **Check the counter on receipt.** The counter travels in clear as the
//!   ciphertext's first block, and decryption authenticates the message
//!   *under that counter*, not the counter's meaning in your format. A
//!   receiver of chunk `k` must compare the first 16 bytes with the counter
//!   it expects for chunk `k` (index and last-chunk flag) before trusting
//!   the plaintext; otherwise chunks can be reordered, dropped, or a file
//!   truncated at a chunk boundary without any error.
//!
//! Prefer the normal APIs: a random r0 per message, or a sender object that
//! owns its [`CounterState`](super::CounterState).
//!
//! ```
//! use blockmodes::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
//! use blockmodes::xcbc::{XcbcXor, XcbcXorStateful};
//! use blockmodes::Aes128;
//! let x = XcbcXor::<Aes128>::new_from_slice(&[1u8; 32])?;
//! let ct = x.encrypt_with_r0(&[9u8; 16], b"vector")?;
//! assert_eq!(x.decrypt(&ct)?, b"vector");
//!
//! let rx = XcbcXorStateful::<Aes128>::new_from_slice(&[1u8; 32])?;
//! let chunk7 = rx.encrypt_with_counter(&7u128.to_be_bytes(), b"chunk 7")?;
//! assert_eq!(chunk7[..16], 7u128.to_be_bytes());
//! assert_eq!(rx.decrypt(&chunk7)?, b"chunk 7");
//! # Ok::<(), blockmodes::Error>(())
//! ```

use crate::arith::gf128::Block;
use crate::arith::modular::to_int;
use crate::error::Result;
use crate::oracle::BlockCipher128;
#[cfg(feature = "alloc")]
use alloc::{vec, vec::Vec};

use super::{StatefulXcbc, StatelessXcbc, check_out};

/// **Hazardous:** stateless encryption (XCBC$, XCBC$-XOR, pXCBC$) with a
/// caller-chosen r0 instead of a fresh random one. Never reuse an r0 under
/// one key; see the module docs.
///
/// ```
/// use blockmodes::xcbc::hazmat::EncryptWithR0;
/// use blockmodes::xcbc::Xcbc;
/// use blockmodes::Aes128;
/// let x = Xcbc::<Aes128>::new_from_slice(&[1u8; 32])?;
/// assert_eq!(x.encrypt_with_r0(&[0; 16], b"")?, x.encrypt_with_r0(&[0; 16], b"")?);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait EncryptWithR0 {
    /// Encrypt `msg` with the given r0 into `out` (at least the mode's
    /// `ciphertext_len` bytes); returns the ciphertext length.
    fn encrypt_with_r0_into(&self, r0: &Block, msg: &[u8], out: &mut [u8]) -> Result<usize>;

    #[cfg(feature = "alloc")]
    /// Encrypt `msg` with the given r0.
    fn encrypt_with_r0(&self, r0: &Block, msg: &[u8]) -> Result<Vec<u8>>;
}

/// **Hazardous:** stateful encryption (XCBC, XCBC-XOR, pXCBC) with an
/// explicit counter value, without a sender object that tracks it. The
/// caller never uses a counter value twice under one key (for pXCBC:
/// `ctr ..= ctr + L - 1`) and checks the counter on receipt; see the
/// module docs.
///
/// ```
/// use blockmodes::xcbc::hazmat::EncryptWithCounter;
/// use blockmodes::xcbc::XcbcXorStateful;
/// use blockmodes::Aes128;
/// let rx = XcbcXorStateful::<Aes128>::new_from_slice(&[1u8; 32])?;
/// let mut buf = [0u8; 48];
/// rx.encrypt_with_counter_into(&[0; 16], b"x", &mut buf)?;
/// assert_eq!(rx.decrypt(&buf)?, b"x");
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait EncryptWithCounter {
    /// Encrypt `msg` under counter value `ctr` into `out` (at least the
    /// mode's `ciphertext_len` bytes); returns the ciphertext length.
    fn encrypt_with_counter_into(&self, ctr: &Block, msg: &[u8], out: &mut [u8]) -> Result<usize>;

    #[cfg(feature = "alloc")]
    /// Encrypt `msg` under counter value `ctr`.
    fn encrypt_with_counter(&self, ctr: &Block, msg: &[u8]) -> Result<Vec<u8>>;
}

impl<C: BlockCipher128, const CHECK: bool> EncryptWithR0 for StatelessXcbc<C, CHECK> {
    fn encrypt_with_r0_into(&self, r0: &Block, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        check_out(out, self.ciphertext_len(msg.len())?)?;
        Ok(self.encrypt_with_r0_unchecked(to_int(r0), msg, out))
    }

    #[cfg(feature = "alloc")]
    fn encrypt_with_r0(&self, r0: &Block, msg: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.ciphertext_len(msg.len())?];
        self.encrypt_with_r0_into(r0, msg, &mut out)?;
        Ok(out)
    }
}

impl<C: BlockCipher128, const CHECK: bool> EncryptWithCounter for StatefulXcbc<C, CHECK> {
    fn encrypt_with_counter_into(&self, ctr: &Block, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        check_out(out, self.ciphertext_len(msg.len())?)?;
        Ok(self.encrypt_with_counter_unchecked(to_int(ctr), msg, out))
    }

    #[cfg(feature = "alloc")]
    fn encrypt_with_counter(&self, ctr: &Block, msg: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.ciphertext_len(msg.len())?];
        self.encrypt_with_counter_into(ctr, msg, &mut out)?;
        Ok(out)
    }
}
