//! # pXCBC$ and pXCBC: parallel XCBC-XOR (Gligor & Donescu, 2000, section 4, property 4)
//!
//! The message is cut into segments that are encrypted as independent
//! XCBC-XOR chains, so encryption (not only decryption) runs in parallel.
//! As settled in `docs/spec/xcbc-xecb.md`:
//!
//! * the plaintext blocks are a **length block** (the message length in
//!   bytes as a big-endian 128-bit integer) followed by the 10*-padded
//!   message, cut into segments of S blocks (the public parameter
//!   [`segment_blocks`](PxcbcXor::segment_blocks), default
//!   [`DEFAULT_SEGMENT_BLOCKS`] = 1024; the last segment may be shorter);
//! * segment s = 1..L is an XCBC-XOR chain with `r0^(s) = r0 + s`,
//!   `z0^(s) = f'(r0^(s))` (one-key form: `f(r0^(s) + 1)`), i restarting at 1
//!   and its own check block `z0^(s) xor x_1^(s) xor ... xor x_{n_s}^(s)`;
//! * the ciphertext is `y0 || seg_1 || ... || seg_L` with `y0 = f(r0)`
//!   (pXCBC$, [`PxcbcXor`]) or `ctr || seg_1 || ... || seg_L` with
//!   `r0 = f(ctr)` (pXCBC, [`PxcbcXorStatefulEncryptor`] / [`PxcbcXorStateful`]; the
//!   counter advances by L);
//! * decryption checks every segment's check block, then that the length
//!   block equals the length of the unpadded message: truncating, reordering,
//!   duplicating, dropping or adding segments is rejected with
//!   [`Error::Authentication`], and the output buffer is wiped.
//!
//! Both modes give **privacy and integrity** (see [`crate::xcbc`] for the
//! family's table, the key forms and the stateful counter's persistence duty).
//!
//! ## Parallelism
//!
//! Within one thread, up to one backend width of segments (64 with VAES-512)
//! are encrypted in lock step ([`oracle::encrypt_chains`](crate::oracle::encrypt_chains)):
//! round i enciphers block i of every segment in one parallel call: the
//! message blocks are gathered with a stride of S blocks, and
//! `y_i = z_i + i r0^(s)` is computed for every lane at once from a table
//! of the lanes' offsets (portable code). (Round i + 1 needs round i's
//! outputs, so the cipher's work and the whitening around it add up
//! instead of overlapping: about 0.22x raw ECB with S = 16 through the
//! `aes` crate on a VAES machine.) With AES keyed from bytes on a CPU with
//! VAES-512 the engine runs the chains instead (`crate::backend`: 0.5x
//! ECB there).
//! Messages of [`PARALLEL_THRESHOLD`] bytes or more are
//! also spread over the rayon thread pool, segment ranges per thread; so the
//! cipher must be `Sync`. Choose S with this in mind: with S = 1024 a 16 KiB
//! message has two segments, i.e. XCBC's serial speed; S = 16 gives 65.
//!
//! ```
//! use blockmodes::pxcbc::PxcbcXor;
//! use blockmodes::Aes128;
//! let p = PxcbcXor::<Aes128>::new_from_slice(&[0x42u8; 32])?.with_segment_blocks(16)?;
//! let msg = vec![7u8; 5000];
//! let ct = p.encrypt(&msg)?;
//! assert_eq!(ct.len(), p.ciphertext_len(msg.len())?);
//! assert_eq!(p.decrypt(&ct)?, msg);
//! # Ok::<(), blockmodes::Error>(())
//! ```

#[cfg(feature = "alloc")]
use alloc::{vec, vec::Vec};
use cipher::KeyInit;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::arith::gf128::{Block, xor, xor_in_place};
use crate::arith::modular::{to_block, to_int};
use crate::error::{Error, Result};
use crate::gligor_donescu::chain;
use crate::gligor_donescu::keys::{self, Keys};
use crate::gligor_donescu::offsets::{LaneOffsets, wipe};
use crate::gligor_donescu::padding::{last_block, padded_blocks, too_long, unpad};
use crate::gligor_donescu::xcbc::CounterState;
use crate::gligor_donescu::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
use crate::oracle::{
    BlockCipher128, BlockCipher128Dec, ChainWork, ParWork, decrypt_par, encrypt_chains, par_width,
};

mod decrypt;
mod encrypt;
#[cfg(feature = "alloc")]
pub mod hazmat;
mod layout;
#[allow(unused_imports)]
use decrypt::*;
#[allow(unused_imports)]
use encrypt::*;
pub use layout::PARALLEL_THRESHOLD;
#[allow(unused_imports)]
use layout::*;

/// The default segment length S, in blocks (`docs/spec/xcbc-xecb.md`).
pub const DEFAULT_SEGMENT_BLOCKS: usize = 1024;

/// The largest segment length accepted (2^32 - 1 blocks).
pub const MAX_SEGMENT_BLOCKS: usize = u32::MAX as usize;

/// pXCBC$: the stateless parallel mode (r0 random per message, `y0 = f(r0)`
/// in front). **Privacy and integrity.** Encrypts and decrypts.
///
/// ```
/// use blockmodes::pxcbc::PxcbcXor;
/// use blockmodes::Aes128;
/// let p = PxcbcXor::<Aes128>::new_from_slice(&[1u8; 32])?; // K || K', S = 1024
/// let ct = p.encrypt(b"parallel")?;
/// assert_eq!(ct.len(), 16 + 16 * (2 + 1)); // y0, length block, one padded block, check
/// assert_eq!(p.decrypt(&ct)?, b"parallel");
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct PxcbcXor<C> {
    keys: Keys<C>,
    segment_blocks: usize,
}

impl<C> core::fmt::Debug for PxcbcXor<C> {
    /// Prints no key material: only the fields shown.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PxcbcXor")
            .field("segment_blocks", &self.segment_blocks)
            .finish_non_exhaustive()
    }
}

/// pXCBC, receiver side: decryption of the stateful parallel mode
/// (`ctr || seg_1 || ...`, `r0 = f(ctr)`), which needs no state. The sender
/// is [`PxcbcXorStatefulEncryptor`]. **Privacy and integrity.**
///
/// ```
/// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
/// use blockmodes::Aes128;
/// let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&[1u8; 32])?.with_segment_blocks(4)?;
/// let mut tx = PxcbcXorStatefulEncryptor::new(rx.clone());
/// let ct = tx.encrypt(&[9u8; 100])?;
/// assert_eq!(rx.decrypt(&ct)?, [9u8; 100]);
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct PxcbcXorStateful<C> {
    keys: Keys<C>,
    segment_blocks: usize,
}

impl<C> core::fmt::Debug for PxcbcXorStateful<C> {
    /// Prints no key material: only the fields shown.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PxcbcXorStateful")
            .field("segment_blocks", &self.segment_blocks)
            .finish_non_exhaustive()
    }
}

/// pXCBC, sender side: owns its message counter (advanced by L, the number
/// of segments, per message), is not `Clone`, exports and imports its
/// [`CounterState`] and refuses to wrap. See [`crate::xcbc`] for the
/// counter's persistence duty. **Privacy and integrity.**
///
/// ```
/// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
/// use blockmodes::Aes128;
/// let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&[1u8; 32])?.with_segment_blocks(2)?;
/// let mut tx = PxcbcXorStatefulEncryptor::new(rx);
/// tx.encrypt(&[0u8; 40])?; // 1 length block + 3 padded blocks = 2 segments
/// let mut next = [0u8; 16];
/// next[15] = 1; // -1 + 2
/// assert_eq!(tx.counter_state().next_counter(), Some(next));
/// # Ok::<(), blockmodes::Error>(())
/// ```
///
/// It cannot be cloned (a copy would reuse counter values):
///
/// ```compile_fail
/// fn clone_me<T: Clone>() {}
/// clone_me::<blockmodes::pxcbc::PxcbcXorStatefulEncryptor<blockmodes::Aes128>>();
/// ```
pub struct PxcbcXorStatefulEncryptor<C> {
    keys: PxcbcXorStateful<C>,
    counter: CounterState,
}

impl<C> core::fmt::Debug for PxcbcXorStatefulEncryptor<C> {
    /// Prints no key material: only the fields shown.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PxcbcXorStatefulEncryptor")
            .field("counter", &self.counter)
            .finish_non_exhaustive()
    }
}

/// Shared constructors and sizes of the two key holders.
macro_rules! pxcbc_common {
    ($ty:ident) => {
        impl<C: BlockCipher128> $ty<C> {
            /// Two-key form from the keyed ciphers f = E_K and f' = E_K'
            /// (independent keys), with S = [`DEFAULT_SEGMENT_BLOCKS`].
            ///
            /// ```
            #[doc = concat!("type Y = blockmodes::pxcbc::", stringify!($ty), "<blockmodes::Aes128>;")]
            /// use cipher::KeyInit;
            /// let (k, k2) = (blockmodes::Aes128::new(&[1; 16].into()), blockmodes::Aes128::new(&[2; 16].into()));
            /// let p = Y::from_ciphers(k, k2);
            /// assert!(p.is_two_key());
            /// assert!(p.decrypt(&[0u8; 64]).is_err()); // not a ciphertext under these keys
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn from_ciphers(f: C, f_prime: C) -> Self {
                Self {
                    keys: Keys::two(f, f_prime),
                    segment_blocks: DEFAULT_SEGMENT_BLOCKS,
                }
            }

            /// One-key form (z0^(s) = f(r0^(s) + 1)) from the keyed cipher f.
            ///
            /// ```
            #[doc = concat!("type Y = blockmodes::pxcbc::", stringify!($ty), "<blockmodes::Aes128>;")]
            /// use cipher::KeyInit;
            /// let p = Y::from_cipher_one_key(blockmodes::Aes128::new(&[1; 16].into()));
            /// assert!(!p.is_two_key());
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn from_cipher_one_key(f: C) -> Self {
                Self {
                    keys: Keys::one(f),
                    segment_blocks: DEFAULT_SEGMENT_BLOCKS,
                }
            }

            /// Two-key form from **K || K'** (two keys of the cipher's key
            /// size: 32, 48 or 64 bytes for AES), S = [`DEFAULT_SEGMENT_BLOCKS`].
            ///
            /// ```
            #[doc = concat!("type Y = blockmodes::pxcbc::", stringify!($ty), "<blockmodes::Aes128>;")]
            /// let p = Y::new_from_slice(&[7; 32])?; // K || K', AES-128
            /// assert!(p.is_two_key());
            /// assert_eq!(p.segment_blocks(), blockmodes::pxcbc::DEFAULT_SEGMENT_BLOCKS);
            /// assert!(Y::new_from_slice(&[7; 16]).is_err());
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn new_from_slice(key: &[u8]) -> Result<Self>
            where
                C: KeyInit,
            {
                Keys::from_slice_two(key).map(|keys| Self {
                    keys,
                    segment_blocks: DEFAULT_SEGMENT_BLOCKS,
                })
            }
            /// One-key form from K alone, S = [`DEFAULT_SEGMENT_BLOCKS`].
            ///
            /// ```
            #[doc = concat!("type Y = blockmodes::pxcbc::", stringify!($ty), "<blockmodes::Aes128>;")]
            /// assert!(!Y::new_from_slice_one_key(&[7; 16])?.is_two_key());
            /// assert!(Y::new_from_slice_one_key(&[7; 32]).is_err()); // one AES-128 key
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn new_from_slice_one_key(key: &[u8]) -> Result<Self>
            where
                C: KeyInit,
            {
                Keys::from_slice_one(key).map(|keys| Self {
                    keys,
                    segment_blocks: DEFAULT_SEGMENT_BLOCKS,
                })
            }

            /// The same keys with segment length S = `segment_blocks`
            /// (1 ..= [`MAX_SEGMENT_BLOCKS`], else [`Error::InvalidParameter`]).
            /// S is part of the format: both ends must agree on it.
            ///
            /// ```
            #[doc = concat!("type Y = blockmodes::pxcbc::", stringify!($ty), "<blockmodes::Aes128>;")]
            /// let p = Y::new_from_slice(&[7; 32])?.with_segment_blocks(16)?;
            /// assert_eq!(p.segment_blocks(), 16);
            /// assert!(Y::new_from_slice(&[7; 32])?.with_segment_blocks(0).is_err());
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn with_segment_blocks(self, segment_blocks: usize) -> Result<Self> {
                if !(1..=MAX_SEGMENT_BLOCKS).contains(&segment_blocks) {
                    return Err(Error::InvalidParameter(
                        "pXCBC segment length must be 1 ..= 2^32 - 1 blocks",
                    ));
                }
                Ok(Self {
                    segment_blocks,
                    ..self
                })
            }

            /// S, the segment length in blocks.
            ///
            /// ```
            #[doc = concat!("type Y = blockmodes::pxcbc::", stringify!($ty), "<blockmodes::Aes128>;")]
            /// let p = Y::new_from_slice(&[7; 32])?.with_segment_blocks(4)?;
            /// assert_eq!(p.segment_blocks(), 4);
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn segment_blocks(&self) -> usize {
                self.segment_blocks
            }

            /// `true` for the two-key form.
            ///
            /// ```
            #[doc = concat!("type Y = blockmodes::pxcbc::", stringify!($ty), "<blockmodes::Aes128>;")]
            /// assert!(Y::new_from_slice(&[7; 32])?.is_two_key());
            /// assert!(!Y::new_from_slice_one_key(&[7; 16])?.is_two_key());
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn is_two_key(&self) -> bool {
                self.keys.is_two_key()
            }

            /// The ciphertext length for a `msg_len`-byte message:
            /// `16 * (1 + N + L)` with N = `msg_len / 16 + 2` plaintext blocks
            /// (length block and padded message) and L = ceil(N / S) segments.
            ///
            /// ```
            #[doc = concat!("type Y = blockmodes::pxcbc::", stringify!($ty), "<blockmodes::Aes128>;")]
            /// let p = Y::new_from_slice(&[7; 32])?.with_segment_blocks(4)?;
            /// assert_eq!(p.ciphertext_len(0)?, 64); // N = 2 blocks, L = 1 segment: 16 * (1 + 2 + 1)
            /// assert_eq!(p.ciphertext_len(100)?, 176); // N = 8, L = 2: 16 * (1 + 8 + 2)
            /// assert!(p.ciphertext_len(usize::MAX).is_err());
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn ciphertext_len(&self, msg_len: usize) -> Result<usize> {
                Layout::for_message(msg_len, self.segment_blocks).map(|l| l.ct_len())
            }
        }
    };
}
pxcbc_common!(PxcbcXor);
pxcbc_common!(PxcbcXorStateful);

impl<C: BlockCipher128 + Sync> PxcbcXor<C> {
    /// Encrypt `msg` under a fresh random r0 into `out` (at least
    /// [`ciphertext_len`](Self::ciphertext_len) bytes); returns the
    /// ciphertext length.
    ///
    /// ```
    /// use blockmodes::pxcbc::PxcbcXor;
    /// use blockmodes::Aes128;
    /// let p = PxcbcXor::<Aes128>::new_from_slice(&[1u8; 32])?;
    /// let mut out = vec![0u8; p.ciphertext_len(3)?];
    /// assert_eq!(p.encrypt_into(b"abc", &mut out)?, out.len());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    #[cfg(feature = "getrandom")]
    pub fn encrypt_into(&self, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        self.encrypt_into_with_rng(
            &mut crate::gligor_donescu::keys::DefaultRng::default(),
            msg,
            out,
        )
    }

    /// [`encrypt_into`](Self::encrypt_into) with r0 drawn from the caller's
    /// cryptographic `rng`.
    ///
    /// ```
    /// use blockmodes::pxcbc::PxcbcXor;
    /// use blockmodes::Aes128;
    /// let p = PxcbcXor::<Aes128>::new_from_slice(&[1u8; 32])?;
    /// let mut out = vec![0u8; p.ciphertext_len(3)?];
    /// assert_eq!(p.encrypt_into_with_rng(&mut getrandom::SysRng, b"abc", &mut out)?, out.len());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_into_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
        out: &mut [u8],
    ) -> Result<usize> {
        let layout = Layout::for_message(msg.len(), self.segment_blocks)?;
        crate::gligor_donescu::xcbc::check_out(out, layout.ct_len())?;
        let mut r0 = keys::r0_from_rng(rng)?;
        let n = self.encrypt_with_r0_unchecked(r0, msg, &layout, out);
        r0.zeroize();
        Ok(n)
    }

    #[cfg(feature = "alloc")]
    /// Encrypt `msg` under a fresh random r0.
    ///
    /// ```
    /// use blockmodes::pxcbc::PxcbcXor;
    /// use blockmodes::Aes128;
    /// let p = PxcbcXor::<Aes128>::new_from_slice(&[1u8; 32])?.with_segment_blocks(1)?;
    /// // S = 1: every block is its own segment with its own check block.
    /// assert_eq!(p.encrypt(b"")?.len(), 16 + 2 * 32);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    #[cfg(feature = "getrandom")]
    pub fn encrypt(&self, msg: &[u8]) -> Result<Vec<u8>> {
        self.encrypt_with_rng(&mut crate::gligor_donescu::keys::DefaultRng::default(), msg)
    }

    /// [`encrypt`](Self::encrypt) with r0 drawn from the caller's `rng`.
    ///
    /// ```
    /// use blockmodes::pxcbc::PxcbcXor;
    /// use blockmodes::Aes128;
    /// let p = PxcbcXor::<Aes128>::new_from_slice(&[1u8; 32])?;
    /// let ct = p.encrypt_with_rng(&mut getrandom::SysRng, b"abc")?;
    /// assert_eq!(p.decrypt(&ct)?, b"abc");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encrypt_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.ciphertext_len(msg.len())?];
        self.encrypt_into_with_rng(rng, msg, &mut out)?;
        Ok(out)
    }

    fn encrypt_with_r0_unchecked(&self, r0: u128, msg: &[u8], l: &Layout, out: &mut [u8]) -> usize {
        let y0 = self.keys.f_encrypt_int(r0);
        seal(&self.keys, &y0, r0, msg, l, out)
    }
}

impl<C: BlockCipher128Dec + Sync> PxcbcXor<C> {
    /// Decrypt `ct` into `out` (at least `ct.len()` bytes minus the
    /// overhead; `ct.len()` always suffices); returns the plaintext length.
    ///
    /// Errors: [`Error::InvalidLength`] (not whole blocks, `out` too short),
    /// [`Error::CiphertextTooShort`], and [`Error::Authentication`] for a
    /// bad check block, length block, padding or segment structure, in which
    /// case `out` is wiped.
    ///
    /// ```
    /// use blockmodes::pxcbc::PxcbcXor;
    /// use blockmodes::Aes128;
    /// let p = PxcbcXor::<Aes128>::new_from_slice(&[1u8; 32])?.with_segment_blocks(2)?;
    /// let ct = p.encrypt(&[5u8; 70])?;
    /// let mut out = vec![0u8; ct.len()];
    /// let n = p.decrypt_into(&ct, &mut out)?;
    /// assert_eq!(&out[..n], &[5u8; 70][..]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_into(&self, ct: &[u8], out: &mut [u8]) -> Result<usize> {
        // r0 = f^-1(y0)
        open_under_header(&self.keys, self.segment_blocks, ct, out, |y0| {
            to_int(&self.keys.f_decrypt(y0))
        })
    }

    #[cfg(feature = "alloc")]
    /// Decrypt `ct`; see [`decrypt_into`](Self::decrypt_into).
    ///
    /// ```
    /// use blockmodes::pxcbc::PxcbcXor;
    /// use blockmodes::Aes128;
    /// let p = PxcbcXor::<Aes128>::new_from_slice(&[1u8; 32])?;
    /// let mut ct = p.encrypt(b"integrity")?;
    /// ct[40] ^= 0x80;
    /// assert_eq!(p.decrypt(&ct), Err(blockmodes::Error::Authentication));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt(&self, ct: &[u8]) -> Result<Vec<u8>> {
        open_to_vec(ct, self.segment_blocks, |ct, out| {
            self.decrypt_into(ct, out)
        })
    }
}

impl<C: BlockCipher128 + Sync> PxcbcXorStateful<C> {
    fn encrypt_with_counter_unchecked(
        &self,
        ctr: u128,
        msg: &[u8],
        l: &Layout,
        out: &mut [u8],
    ) -> usize {
        let ctr = to_block(ctr);
        let mut r0 = to_int(&self.keys.f_encrypt(&ctr));
        let n = seal(&self.keys, &ctr, r0, msg, l, out);
        r0.zeroize();
        n
    }
}

impl<C: BlockCipher128Dec + Sync> PxcbcXorStateful<C> {
    /// Decrypt `ct` = `ctr || seg_1 || ...` into `out` (`ct.len()` bytes
    /// always suffice); returns the plaintext length. Errors as for
    /// [`PxcbcXor::decrypt_into`].
    ///
    /// ```
    /// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&[1u8; 32])?;
    /// let ct = PxcbcXorStatefulEncryptor::new(rx.clone()).encrypt(b"hi")?;
    /// let mut out = vec![0u8; ct.len()];
    /// let n = rx.decrypt_into(&ct, &mut out)?;
    /// assert_eq!(&out[..n], b"hi");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_into(&self, ct: &[u8], out: &mut [u8]) -> Result<usize> {
        // r0 = f(ctr)
        open_under_header(&self.keys, self.segment_blocks, ct, out, |ctr| {
            to_int(&self.keys.f_encrypt(ctr))
        })
    }

    #[cfg(feature = "alloc")]
    /// Decrypt `ct` = `ctr || seg_1 || ...`; see [`decrypt_into`](Self::decrypt_into).
    ///
    /// ```
    /// use blockmodes::pxcbc::PxcbcXorStateful;
    /// use blockmodes::Aes128;
    /// let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&[1u8; 32])?;
    /// assert!(rx.decrypt(&[0u8; 64]).is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt(&self, ct: &[u8]) -> Result<Vec<u8>> {
        open_to_vec(ct, self.segment_blocks, |ct, out| {
            self.decrypt_into(ct, out)
        })
    }
}

/// The decryption both pXCBC forms share: check the lengths, recover r0
/// from the header block (`y0` or `ctr`) with `r0_of`, open the segments,
/// wipe r0.
fn open_under_header<C: BlockCipher128Dec + Sync>(
    keys: &Keys<C>,
    segment_blocks: usize,
    ct: &[u8],
    out: &mut [u8],
    r0_of: impl FnOnce(&Block) -> u128,
) -> Result<usize> {
    let layout = Layout::for_ciphertext(ct.len(), segment_blocks)?;
    crate::gligor_donescu::xcbc::check_out(out, layout.pt_capacity())?;
    // `for_ciphertext` has checked there are at least 64 bytes.
    let (header, body) = ct
        .split_first_chunk::<16>()
        .ok_or(Error::CiphertextTooShort {
            min: 64,
            got: ct.len(),
        })?;
    let mut r0 = r0_of(header);
    let res = open(keys, r0, body, &layout, out);
    r0.zeroize();
    res
}

impl<C: BlockCipher128 + Sync> PxcbcXorStatefulEncryptor<C> {
    /// A sender for a **fresh** key, its counter at 2^128 - 1.
    ///
    /// ```
    /// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let tx = PxcbcXorStatefulEncryptor::new(PxcbcXorStateful::<Aes128>::new_from_slice(&[0u8; 32])?);
    /// assert_eq!(tx.counter_state().next_counter(), Some([0xff; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(keys: PxcbcXorStateful<C>) -> Self {
        Self::from_state(keys, CounterState::new())
    }

    /// A sender resuming from a saved [`CounterState`].
    ///
    /// ```
    /// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
    /// use blockmodes::xcbc::CounterState;
    /// use blockmodes::Aes128;
    /// let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&[0u8; 32])?;
    /// let tx = PxcbcXorStatefulEncryptor::from_state(rx, CounterState::starting_at(&[1; 16]));
    /// assert_eq!(tx.counter_state().next_counter(), Some([1; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_state(keys: PxcbcXorStateful<C>, counter: CounterState) -> Self {
        Self { keys, counter }
    }

    /// The counter state to persist (see [`crate::xcbc`]).
    ///
    /// ```
    /// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let tx = PxcbcXorStatefulEncryptor::new(PxcbcXorStateful::<Aes128>::new_from_slice(&[0u8; 32])?);
    /// assert!(!tx.counter_state().is_exhausted());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn counter_state(&self) -> CounterState {
        self.counter
    }

    /// The stateless receiver side of this sender's key.
    ///
    /// ```
    /// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let mut tx = PxcbcXorStatefulEncryptor::new(PxcbcXorStateful::<Aes128>::new_from_slice(&[0u8; 32])?);
    /// let ct = tx.encrypt(b"q")?;
    /// assert_eq!(tx.receiver().decrypt(&ct)?, b"q");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn receiver(&self) -> &PxcbcXorStateful<C> {
        &self.keys
    }

    /// Encrypt `msg` under the next counter value into `out` (at least
    /// [`PxcbcXorStateful::ciphertext_len`] bytes) and advance the counter by L;
    /// returns the ciphertext length. [`Error::CounterExhausted`] if fewer
    /// than L counter values remain (the counter is not advanced on any error).
    ///
    /// ```
    /// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&[0u8; 32])?;
    /// let mut tx = PxcbcXorStatefulEncryptor::new(rx.clone());
    /// let mut out = vec![0u8; rx.ciphertext_len(10)?];
    /// assert_eq!(tx.encrypt_into(&[1u8; 10], &mut out)?, out.len());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_into(&mut self, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        let layout = Layout::for_message(msg.len(), self.keys.segment_blocks)?;
        crate::gligor_donescu::xcbc::check_out(out, layout.ct_len())?;
        let ctr = self.counter.take(layout.segments as u128)?;
        Ok(self
            .keys
            .encrypt_with_counter_unchecked(ctr, msg, &layout, out))
    }

    #[cfg(feature = "alloc")]
    /// Encrypt `msg` under the next counter value and advance the counter by L.
    ///
    /// ```
    /// use blockmodes::pxcbc::{PxcbcXorStateful, PxcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let mut tx = PxcbcXorStatefulEncryptor::new(PxcbcXorStateful::<Aes128>::new_from_slice(&[0u8; 32])?);
    /// assert_ne!(tx.encrypt(b"same")?, tx.encrypt(b"same")?);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.keys.ciphertext_len(msg.len())?];
        self.encrypt_into(msg, &mut out)?;
        Ok(out)
    }
}

impl<C: BlockCipher128 + Sync> EncryptWithR0 for PxcbcXor<C> {
    fn encrypt_with_r0_into(&self, r0: &Block, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        let layout = Layout::for_message(msg.len(), self.segment_blocks)?;
        crate::gligor_donescu::xcbc::check_out(out, layout.ct_len())?;
        Ok(self.encrypt_with_r0_unchecked(to_int(r0), msg, &layout, out))
    }

    #[cfg(feature = "alloc")]
    fn encrypt_with_r0(&self, r0: &Block, msg: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.ciphertext_len(msg.len())?];
        self.encrypt_with_r0_into(r0, msg, &mut out)?;
        Ok(out)
    }
}

impl<C: BlockCipher128 + Sync> EncryptWithCounter for PxcbcXorStateful<C> {
    fn encrypt_with_counter_into(&self, ctr: &Block, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        let layout = Layout::for_message(msg.len(), self.segment_blocks)?;
        crate::gligor_donescu::xcbc::check_out(out, layout.ct_len())?;
        Ok(self.encrypt_with_counter_unchecked(to_int(ctr), msg, &layout, out))
    }

    #[cfg(feature = "alloc")]
    fn encrypt_with_counter(&self, ctr: &Block, msg: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.ciphertext_len(msg.len())?];
        self.encrypt_with_counter_into(ctr, msg, &mut out)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::encrypt_block;

    /// The segments `seg_1 || ... || seg_L` straight from the definition
    /// (`docs/spec/xcbc-xecb.md`), one block at a time: the length block
    /// and the 10*-padded message in segments of S blocks, z0^(s) =
    /// f'(r0 + s), z_i = f(z_{i-1} xor x_i), y_i = z_i + i (r0 + s), the
    /// check block x_{n_s+1} = z0^(s) xor x_1 xor ... xor x_{n_s}.
    fn definition(keys: &Keys<aes::Aes128>, r0: u128, msg: &[u8], s: usize) -> Vec<u8> {
        let mut x: Vec<Block> = vec![(msg.len() as u128).to_be_bytes()];
        let mut padded = msg.to_vec();
        padded.push(0x80);
        padded.resize(padded.len().div_ceil(16) * 16, 0);
        x.extend(padded.as_chunks::<16>().0.iter().copied());
        let f_prime = keys.f_prime.as_ref().expect("two keys");
        let mut body = Vec::new();
        for (seg, xs) in x.chunks(s).enumerate() {
            let r0s = r0.wrapping_add(seg as u128 + 1);
            let z0 = encrypt_block(f_prime.cipher(), &r0s.to_be_bytes());
            let (mut z, mut check) = (z0, z0);
            for xi in xs {
                check = xor(&check, xi);
            }
            for (i, xi) in xs.iter().chain([&check]).enumerate() {
                z = encrypt_block(keys.f.cipher(), &xor(&z, xi));
                let y = u128::from_be_bytes(z).wrapping_add((i as u128 + 1).wrapping_mul(r0s));
                body.extend_from_slice(&y.to_be_bytes());
            }
        }
        body
    }

    /// The lock-step path against the definition: S = 1 ..= 9, 1 ..= 70
    /// segments (partial groups of four lanes, groups wider than one
    /// backend width), the message's last segment full or short.
    #[test]
    fn segments_match_the_definition_at_every_lane_count() {
        let keys = Keys::two(
            aes::Aes128::new(&[0x31; 16].into()),
            aes::Aes128::new(&[0x42; 16].into()),
        );
        let r0 = u128::MAX - 37; // r0 + s wraps
        let msg: Vec<u8> = (0..16 * 9 * 70).map(|j| (j * 29 + 7) as u8).collect();
        for s in 1usize..=9 {
            for segments in 1usize..=70 {
                // N = 1 + msg blocks + 1 plaintext blocks: a full last
                // segment, then a short one (when S > 1), and a partial block.
                for n in [segments * s, segments * s - 1] {
                    for extra in [0usize, 5] {
                        let Some(len) = (n * 16).checked_sub(32 - extra) else {
                            continue;
                        };
                        let m = &msg[..len];
                        let layout = Layout::for_message(m.len(), s).expect("layout");
                        let want = definition(&keys, r0, m, s);
                        let stream = Stream::new(m);
                        let mut body = vec![0u8; layout.ct_len() - 16];
                        let l = layout.segments;
                        encrypt_segments(&keys, r0, &stream, &layout, 0, l, &mut body);
                        assert_eq!(body, want, "S {s} len {len}");
                    }
                }
            }
        }
    }
}
