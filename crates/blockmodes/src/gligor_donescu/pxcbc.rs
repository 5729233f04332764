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
//! round i enciphers block i of every segment in one parallel call. With
//! AVX-512, rounds go four at a time: the segments' message blocks of
//! four rounds (one 64-byte run per segment) are transposed into
//! round-major rows once, so each round's input is one contiguous xor,
//! and `y_i = z_i + i r0^(s)` is computed for two rounds at once and
//! stored as a 32-byte run per segment (see [`crate::xcbc`]'s SIMD
//! module); the check round, S mod 4 rounds and a short last segment go
//! block by block (gathers and scatters), as does everything on other
//! CPUs. (Round i + 1 needs round i's outputs, so the cipher's work and
//! the transpositions and offset arithmetic around it add up instead of
//! overlapping: about 0.35x raw ECB with S = 16 on a VAES machine, 0.30x
//! for pXCBC$, whose OS CSPRNG call costs a tenth of the message.)
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

use cipher::KeyInit;
use rayon::prelude::*;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::arith::gf128::{Block, xor, xor_in_place};
use crate::arith::modular::{to_block, to_int};
use crate::error::{Error, Result};
use crate::gligor_donescu::chain;
use crate::gligor_donescu::keys::{self, Keys};
use crate::gligor_donescu::offsets::{LaneOffsets, wipe};
use crate::gligor_donescu::padding::{last_block, padded_blocks, too_long, unpad};
use crate::gligor_donescu::simd::{Avx512, PairSteps, Rows, TILE_LANES};
use crate::gligor_donescu::xcbc::CounterState;
use crate::gligor_donescu::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
use crate::oracle::{
    BlockCipher128, BlockCipher128Dec, ChainWork, ParWork, decrypt_block, decrypt_par,
    encrypt_block, encrypt_chains, par_width,
};

/// The default segment length S, in blocks (`docs/spec/xcbc-xecb.md`).
pub const DEFAULT_SEGMENT_BLOCKS: usize = 1024;

/// The largest segment length accepted (2^32 - 1 blocks).
pub const MAX_SEGMENT_BLOCKS: usize = u32::MAX as usize;

/// Messages (and ciphertexts) of at least this many bytes are processed on
/// several threads (rayon), in ranges of whole segments. Below it, waking
/// another thread (tens of microseconds) costs more than it saves: measured
/// on a 2-core VAES machine, two threads never won below 256 KiB.
pub const PARALLEL_THRESHOLD: usize = 256 * 1024;

/// The most segments one thread interleaves in lock step.
const MAX_LANES: usize = 64;

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

/// Shared constructors and sizes of the two key holders.
macro_rules! pxcbc_common {
    ($ty:ident) => {
        impl<C: BlockCipher128> $ty<C> {
            /// Two-key form from the keyed ciphers f = E_K and f' = E_K'
            /// (independent keys), with S = [`DEFAULT_SEGMENT_BLOCKS`].
            pub fn from_ciphers(f: C, f_prime: C) -> Self {
                Self {
                    keys: Keys::two(f, f_prime),
                    segment_blocks: DEFAULT_SEGMENT_BLOCKS,
                }
            }

            /// One-key form (z0^(s) = f(r0^(s) + 1)) from the keyed cipher f.
            pub fn from_cipher_one_key(f: C) -> Self {
                Self {
                    keys: Keys::one(f),
                    segment_blocks: DEFAULT_SEGMENT_BLOCKS,
                }
            }

            /// Two-key form from **K || K'** (two keys of the cipher's key
            /// size: 32, 48 or 64 bytes for AES), S = [`DEFAULT_SEGMENT_BLOCKS`].
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
            pub fn segment_blocks(&self) -> usize {
                self.segment_blocks
            }

            /// `true` for the two-key form.
            pub fn is_two_key(&self) -> bool {
                self.keys.is_two_key()
            }

            /// The ciphertext length for a `msg_len`-byte message:
            /// `16 * (1 + N + L)` with N = `msg_len / 16 + 2` plaintext blocks
            /// (length block and padded message) and L = ceil(N / S) segments.
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
    pub fn encrypt_into(&self, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        let layout = Layout::for_message(msg.len(), self.segment_blocks)?;
        crate::gligor_donescu::xcbc::check_out(out, layout.ct_len())?;
        let mut r0 = keys::random_r0()?;
        let n = self.encrypt_with_r0_unchecked(r0, msg, &layout, out);
        r0.zeroize();
        Ok(n)
    }

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
    pub fn encrypt(&self, msg: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.ciphertext_len(msg.len())?];
        self.encrypt_into(msg, &mut out)?;
        Ok(out)
    }

    fn encrypt_with_r0_unchecked(&self, r0: u128, msg: &[u8], l: &Layout, out: &mut [u8]) -> usize {
        let y0 = encrypt_block(&self.keys.f, &to_block(r0));
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
            to_int(&decrypt_block(&self.keys.f, y0))
        })
    }

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
        let mut r0 = to_int(&encrypt_block(&self.keys.f, &ctr));
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
            to_int(&encrypt_block(&self.keys.f, ctr))
        })
    }

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

    fn encrypt_with_counter(&self, ctr: &Block, msg: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.ciphertext_len(msg.len())?];
        self.encrypt_with_counter_into(ctr, msg, &mut out)?;
        Ok(out)
    }
}

/// The shape of one message: N plaintext blocks (length block + padded
/// message) in L segments of S blocks.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// S
    s: usize,
    /// N = 1 + padded blocks.
    blocks: usize,
    /// L = ceil(N / S)
    segments: usize,
}

impl Layout {
    fn for_message(msg_len: usize, s: usize) -> Result<Self> {
        let blocks = padded_blocks(msg_len)
            .checked_add(1)
            .ok_or_else(|| too_long(msg_len))?;
        let l = Self {
            s,
            blocks,
            segments: blocks.div_ceil(s),
        };
        // 16 (1 + N + L) must fit comfortably.
        (1 + l.blocks)
            .checked_add(l.segments)
            .and_then(|b| b.checked_mul(16))
            .filter(|&b| b <= usize::MAX / 2)
            .ok_or_else(|| too_long(msg_len))?;
        Ok(l)
    }

    /// Parse the shape of a ciphertext of `ct_len` bytes.
    fn for_ciphertext(ct_len: usize, s: usize) -> Result<Self> {
        if !ct_len.is_multiple_of(16) {
            return Err(Error::InvalidLength(
                "ciphertext is not a whole number of blocks",
            ));
        }
        // y0, then at least one segment holding the length block, one
        // padded block and a check block (S = 1: two segments of two).
        let min = if s == 1 { 80 } else { 64 };
        if ct_len < min {
            return Err(Error::CiphertextTooShort { min, got: ct_len });
        }
        let body = ct_len / 16 - 1;
        let segments = body.div_ceil(s + 1);
        let last = body - (segments - 1) * (s + 1);
        if last < 2 || body - segments < 2 {
            // A segment of only a check block, or no room for the length
            // block and one padded block: no encryption produces it.
            return Err(Error::Authentication);
        }
        Ok(Self {
            s,
            blocks: body - segments,
            segments,
        })
    }

    fn ct_len(&self) -> usize {
        16 * (1 + self.blocks + self.segments)
    }

    /// Room the decrypted (padded) message needs: N - 1 blocks.
    fn pt_capacity(&self) -> usize {
        16 * (self.blocks - 1)
    }

    /// n_s of segment `seg` (0-based).
    fn seg_len(&self, seg: usize) -> usize {
        self.s.min(self.blocks - seg * self.s)
    }

    /// Ciphertext blocks (after the header) before segment `seg`.
    fn seg_offset(&self, seg: usize) -> usize {
        seg * (self.s + 1)
    }
}

/// The plaintext blocks of a message: the length block, then the padded message.
struct Stream<'a> {
    msg: &'a [u8],
    full: usize,
    last: Block,
}

impl<'a> Stream<'a> {
    fn new(msg: &'a [u8]) -> Self {
        Self {
            msg,
            full: msg.len() / 16,
            last: last_block(msg),
        }
    }

    /// Plaintext block `j` (0-based): the length block, a message block or the padded last block.
    #[inline(always)]
    fn block(&self, j: usize) -> Block {
        if j == 0 {
            to_block(self.msg.len() as u128)
        } else if j <= self.full {
            let mut b = [0u8; 16];
            b.copy_from_slice(&self.msg[16 * (j - 1)..16 * j]);
            b
        } else {
            self.last
        }
    }
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        self.last.zeroize();
    }
}

/// How many threads to use for `bytes` of work.
fn threads_for(bytes: usize, segments: usize) -> usize {
    if bytes < PARALLEL_THRESHOLD {
        return 1;
    }
    rayon::current_num_threads().min(segments).max(1)
}

/// Split `segments` into `parts` contiguous ranges of nearly equal size.
fn split_segments(segments: usize, parts: usize) -> Vec<(usize, usize)> {
    let per = segments / parts;
    let extra = segments % parts;
    let mut ranges = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 0..parts {
        let n = per + usize::from(p < extra);
        ranges.push((start, start + n));
        start += n;
    }
    ranges
}

/// Write `header || seg_1 || ... || seg_L` to `out`; returns its length.
fn seal<C: BlockCipher128 + Sync>(
    keys: &Keys<C>,
    header: &Block,
    r0: u128,
    msg: &[u8],
    layout: &Layout,
    out: &mut [u8],
) -> usize {
    let len = layout.ct_len();
    let (head, body) = out[..len].split_at_mut(16);
    head.copy_from_slice(header);
    let stream = Stream::new(msg);
    let threads = threads_for(msg.len(), layout.segments);
    if threads <= 1 {
        let simd = Avx512::detect();
        encrypt_segments(simd, keys, r0, &stream, layout, 0, layout.segments, body);
        return len;
    }
    let mut parts = Vec::with_capacity(threads);
    let mut rest = body;
    for (a, b) in split_segments(layout.segments, threads) {
        let end = if b == layout.segments {
            rest.len()
        } else {
            16 * (layout.seg_offset(b) - layout.seg_offset(a))
        };
        let (part, tail) = rest.split_at_mut(end);
        parts.push((a, b, part));
        rest = tail;
    }
    parts.into_par_iter().for_each(|(a, b, part)| {
        encrypt_segments(Avx512::detect(), keys, r0, &stream, layout, a, b, part);
    });
    len
}

/// Encrypt segments `first..end` (0-based) into `body`, which starts at
/// segment `first`: groups of up to one backend width in lock step, all
/// lanes of a group with the same number of rounds (only the message's last
/// segment may be shorter; it goes in a group of its own).
#[allow(clippy::too_many_arguments)]
fn encrypt_segments<C: BlockCipher128>(
    simd: Option<Avx512>,
    keys: &Keys<C>,
    r0: u128,
    stream: &Stream,
    layout: &Layout,
    first: usize,
    end: usize,
    body: &mut [u8],
) {
    let (body, _) = body.as_chunks_mut::<16>();
    let width = par_width(&keys.f).clamp(1, MAX_LANES);
    let mut tiles = Tiles::default();
    let mut work = EncGroup::new(simd, stream, layout, body, first, &mut tiles);
    let mut g = first;
    while g < end {
        let same = if layout.seg_len(end - 1) == layout.s {
            end
        } else {
            end - 1
        };
        let lanes = if g < same { width.min(same - g) } else { 1 };
        if lanes == 1 {
            // One chain: no lock step to set up.
            let at = layout.seg_offset(g) - layout.seg_offset(first);
            let seg = &mut work.body[at..at + layout.seg_len(g) + 1];
            encrypt_one_segment(keys, r0, stream, layout, g, seg);
            g += 1;
            continue;
        }
        work.start_group(keys, r0, g, lanes);
        // n_s data rounds, then the check block.
        encrypt_chains(&keys.f, lanes, layout.seg_len(g) + 1, &mut work);
        g += lanes;
    }
    work.wipe();
}

/// Segment `seg` (0-based) as one serial XCBC-XOR chain into `out` (its
/// n_s + 1 ciphertext blocks) through XCBC's chaining core, with
/// r0^(s) = r0 + s and z0^(s): a group of one lane (the message's short
/// last segment, or a message of one segment) needs no lock step.
fn encrypt_one_segment<C: BlockCipher128>(
    keys: &Keys<C>,
    r0: u128,
    stream: &Stream,
    layout: &Layout,
    seg: usize,
    out: &mut [Block],
) {
    let mut r0s = r0.wrapping_add(seg as u128 + 1);
    let mut z0 = keys.z0(r0s);
    let first = seg * layout.s;
    let x = |i: usize| stream.block(first + i);
    chain::encrypt_blocks::<C, true>(&keys.f, r0s, &z0, layout.seg_len(seg), x, out);
    z0.zeroize();
    r0s.zeroize();
}

/// Four rounds of a group, round-major (row k: round j + k of every lane),
/// for the AVX-512 tile path: the message blocks x (transposed from the
/// segments' 4-block runs) and the outputs y (transposed back into them).
#[repr(align(64))]
struct Tiles {
    x: Rows,
    /// Offsets of the next pair of rounds.
    steps: PairSteps,
}

impl Default for Tiles {
    fn default() -> Self {
        Self {
            x: [[[0; 16]; TILE_LANES]; 4],
            steps: PairSteps::default(),
        }
    }
}

impl Drop for Tiles {
    fn drop(&mut self) {
        for row in self.x.iter_mut() {
            wipe(row);
        }
    }
}

/// Up to [`MAX_LANES`] segment chains in lock step (round r = block r + 1 of
/// every segment, the last round the check block). The chaining values
/// z_{i-1} stay in [`encrypt_chains`]' batch; here: z0^(s), the check
/// block's running xor, and i * r0^(s) per lane.
struct EncGroup<'a, 'b> {
    stream: &'a Stream<'b>,
    layout: Layout,
    /// Message blocks x_1 .. (whole blocks only).
    msg: &'a [Block],
    body: &'a mut [Block],
    /// The segment `body` starts at.
    body_first: usize,
    /// The group's first segment, and its segment length n_s.
    group_first: usize,
    seg_len: usize,
    /// z0^(s) per lane.
    z0: [Block; MAX_LANES],
    /// z0^(s) xor the lane's x_i so far: the check block at the last round.
    sums: [Block; MAX_LANES],
    /// i * r0^(s) of every lane (r0^(s) = r0 + g + 1 + lane).
    offsets: Option<LaneOffsets>,
    /// The round's y_i, before they are stored into the segments.
    y: Option<[Block; MAX_LANES]>,
    /// The AVX-512 gathers and scatters (`None`: the portable loops).
    simd: Option<Avx512>,
    /// r0^(s) of lane 0 (r0 + g + 1).
    lane_first: u128,
    /// Rounds `0 .. tile_rounds` of the group go four at a time through
    /// [`Tiles`] (AVX-512 only; a multiple of 4, at most n_s).
    tile_rounds: usize,
    tiles: &'a mut Tiles,
}

impl<'a, 'b> EncGroup<'a, 'b> {
    fn new(
        simd: Option<Avx512>,
        stream: &'a Stream<'b>,
        layout: &Layout,
        body: &'a mut [Block],
        first: usize,
        tiles: &'a mut Tiles,
    ) -> Self {
        Self {
            simd,
            tile_rounds: 0,
            tiles,
            lane_first: 0,
            stream,
            layout: *layout,
            msg: stream.msg.as_chunks::<16>().0,
            body,
            body_first: first,
            group_first: first,
            seg_len: 0,
            z0: [[0; 16]; MAX_LANES],
            sums: [[0; 16]; MAX_LANES],
            // Only the portable path uses the table (the AVX-512 path
            // computes the offsets in `add_scatter`): no 2 KiB to clear and
            // wipe per message otherwise.
            offsets: simd.is_none().then(LaneOffsets::new),
            y: simd.is_none().then_some([[0; 16]; MAX_LANES]),
        }
    }

    /// Set up segments `g .. g + lanes`: r0^(s) = r0 + s and z0^(s) (one
    /// parallel call), with s = g + lane + 1 the paper's 1-based index.
    fn start_group<C: BlockCipher128>(&mut self, keys: &Keys<C>, r0: u128, g: usize, lanes: usize) {
        self.group_first = g;
        self.seg_len = self.layout.seg_len(g);
        self.tile_rounds = if self.simd.is_some() {
            self.seg_len / 4 * 4
        } else {
            0
        };
        let first = r0.wrapping_add(g as u128 + 1);
        keys.z0_run(first, &mut self.z0[..lanes]);
        self.sums = self.z0;
        self.lane_first = first;
        if let Some(offsets) = self.offsets.as_mut() {
            offsets.start(first);
        }
        if self.tile_rounds > 0 {
            self.tiles.steps.start(first);
        }
    }

    fn wipe(&mut self) {
        wipe(&mut self.z0);
        wipe(&mut self.sums);
        if let Some(y) = self.y.as_mut() {
            wipe(y);
        }
        self.lane_first = 0;
        zeroize::optimization_barrier(&self.lane_first);
    }

    /// Transpose the message blocks of rounds `j .. j + 4` of every lane
    /// into `tiles.x` (one 64-byte run per lane), their xor into the check
    /// sums. Runs that hold the length block or the padded last block are
    /// built block by block.
    fn load_tiles(&mut self, simd: Avx512, j: usize, lanes: usize) {
        let (s, g, full) = (self.layout.s, self.group_first, self.stream.full);
        // Plaintext block index of lane l's round-j block: lane l's run
        // is message blocks q(l) - 1 .. q(l) + 3 unless it starts at the
        // length block (lane 0 of segment 1) or ends at the padded block
        // (then it is the message's last lane).
        let q = |l: usize| (g + l) * s + j;
        let mut edges = [[[0u8; 16]; 4]; 2];
        let ends = [0, lanes - 1];
        let odd = [q(0) == 0, q(lanes - 1) + 3 > full];
        for ((e, l), _) in edges.iter_mut().zip(ends).zip(odd).filter(|(_, o)| *o) {
            for (k, b) in e.iter_mut().enumerate() {
                *b = self.stream.block(q(l) + k);
            }
        }
        let skip = usize::from(odd[0]);
        let runs = self.msg.get(q(skip).saturating_sub(1)..).unwrap_or(&[]);
        let [first, last] = &edges;
        let (first, last) = (odd[0].then_some(first), odd[1].then_some(last));
        simd.transpose_in(
            runs,
            s,
            lanes,
            first,
            last,
            &mut self.tiles.x,
            &mut self.sums,
        );
        for e in edges.iter_mut() {
            wipe(e);
        }
    }

    /// The lanes `lo .. hi` whose block at round `round` (< n_s) is a
    /// whole message block (not the length block, not the padded last
    /// block): the gathered fast path; the others go one at a time.
    #[inline(always)]
    fn ordinary_lanes(&self, round: usize, lanes: usize) -> (usize, usize) {
        let s = self.layout.s;
        // Plaintext block of lane l: (g + l) S + round, increasing in l.
        let j = |l: usize| (self.group_first + l) * s + round;
        let lo = usize::from(j(0) == 0).min(lanes);
        let mut hi = lanes;
        while hi > lo && j(hi - 1) > self.stream.full {
            hi -= 1;
        }
        (lo, hi)
    }

    /// `blocks[l] = prev[l] xor x` for lanes `lo .. hi` (whole message
    /// blocks only, see [`ordinary_lanes`](Self::ordinary_lanes)), x
    /// gathered from the message with a stride of S blocks, four lanes
    /// (one 512-bit vector) at a time.
    #[inline(always)]
    fn gather(&self, round: usize, lo: usize, hi: usize, prev: &[Block], blocks: &mut [Block]) {
        if lo >= hi {
            return;
        }
        let s = self.layout.s;
        let first = (self.group_first + lo) * s + round - 1;
        let span = &self.msg[first..=first + (hi - 1 - lo) * s];
        let (b4, rest) = blocks[lo..hi].as_chunks_mut::<4>();
        let (p4, p_rest) = prev[lo..hi].as_chunks::<4>();
        for (c, (b, p)) in b4.iter_mut().zip(p4).enumerate() {
            // Four loads combined in a register (a partly filled array
            // would go through the stack and stall the 512-bit reload).
            let l = 4 * c;
            let x = [
                span[l * s],
                span[(l + 1) * s],
                span[(l + 2) * s],
                span[(l + 3) * s],
            ];
            *b = *p;
            for (b, x) in b.as_flattened_mut().iter_mut().zip(x.as_flattened()) {
                *b ^= x;
            }
        }
        for (l, (b, p)) in rest.iter_mut().zip(p_rest).enumerate() {
            *b = xor(p, &span[(4 * b4.len() + l) * s]);
        }
    }
}

impl ChainWork for EncGroup<'_, '_> {
    /// `inputs = z_{round} xor x_{round+1}` for every lane, with z_{round}
    /// in `prev` (round 0: z0^(s)).
    #[inline(always)]
    fn before(&mut self, round: usize, prev: &[Block], blocks: &mut [Block]) {
        let lanes = blocks.len();
        if let Some(simd) = self.simd.filter(|_| round < self.tile_rounds) {
            if round.is_multiple_of(4) {
                self.load_tiles(simd, round, lanes);
            }
            let prev = if round == 0 { &self.z0[..lanes] } else { prev };
            simd.xor_blocks(&self.tiles.x[round % 4][..lanes], prev, blocks);
            return;
        }
        let prev = if round == 0 {
            &self.z0[..lanes]
        } else {
            &prev[..lanes]
        };
        let s = self.layout.s;
        if round >= self.seg_len {
            // x_{n_s+1}: the check block of every lane.
            let rows = blocks.iter_mut().zip(prev).zip(&self.sums[..lanes]);
            for ((b, p), sum) in rows {
                *b = xor(p, sum);
            }
            return;
        }
        let (lo, hi) = self.ordinary_lanes(round, lanes);
        if let Some(simd) = self.simd {
            if lo < hi {
                let first = (self.group_first + lo) * s + round - 1;
                let span = &self.msg[first..=first + (hi - 1 - lo) * s];
                let sums = &mut self.sums[lo..hi];
                simd.gather_xor_sum(span, s, &prev[lo..hi], &mut blocks[lo..hi], sums);
            }
            for lane in (0..lo).chain(hi..lanes) {
                let x = self.stream.block((self.group_first + lane) * s + round);
                blocks[lane] = xor(&prev[lane], &x);
                xor_in_place(&mut self.sums[lane], &x);
            }
            return;
        }
        self.gather(round, lo, hi, prev, blocks);
        for lane in (0..lo).chain(hi..lanes) {
            let x = self.stream.block((self.group_first + lane) * s + round);
            blocks[lane] = xor(&prev[lane], &x);
        }
        // The check blocks' running xor: x = input xor z, in a pass of its
        // own (so x need not be kept).
        let sums = self.sums[..lanes].as_flattened_mut();
        let rows = sums.iter_mut().zip(prev.as_flattened());
        for ((sum, p), b) in rows.zip(blocks.as_flattened()) {
            *sum ^= p ^ b;
        }
    }

    /// Only through [`after_with_previous`](Self::after_with_previous),
    /// which [`encrypt_chains`] calls.
    #[inline(always)]
    fn after(&mut self, round: usize, blocks: &[Block]) {
        self.after_with_previous(round, blocks, &[]);
    }

    /// y_{round+1} = z_{round+1} + (round + 1) r0^(s) for every lane at
    /// once (vectorized), then stored into each lane's segment; on the
    /// AVX-512 tile path, two rounds at a time (z_{round} is `previous`).
    #[inline(always)]
    fn after_with_previous(&mut self, round: usize, blocks: &[Block], previous: &[Block]) {
        let lanes = blocks.len().min(MAX_LANES);
        let stride = self.layout.s + 1;
        let base = (self.group_first - self.body_first) * stride + round;
        if let Some(simd) = self.simd.filter(|_| round < self.tile_rounds) {
            // Rounds in pairs: y_i = z_i + i r0^(s) of rounds i - 1 and i,
            // stored as 32-byte runs into the segments.
            if round % 2 == 1 {
                let dst = &mut self.body[base - 1..];
                let z = &blocks[..lanes];
                simd.add_pairs(previous, z, &mut self.tiles.steps, dst, stride);
            }
            return;
        }
        if let Some(simd) = self.simd {
            // y_i = z_i + i r0^(s), stored straight into each segment.
            let (i, first) = (round as u128 + 1, self.lane_first);
            simd.add_scatter(i, first, &blocks[..lanes], &mut self.body[base..], stride);
            return;
        }
        let (Some(offsets), Some(y)) = (self.offsets.as_mut(), self.y.as_mut()) else {
            return;
        };
        offsets.seek(round as u128 + 1);
        let y = &mut y[..lanes];
        offsets.add(0, &blocks[..lanes], y);
        let dst = self.body[base..].chunks_mut(stride).map(|c| &mut c[0]);
        for (d, y) in dst.zip(y.iter()) {
            *d = *y;
        }
    }
}

/// Decrypt `body` (the ciphertext after its header) with r0 into `out`;
/// check every segment, the length block and the padding; wipe `out` on failure.
fn open<C: BlockCipher128Dec + Sync>(
    keys: &Keys<C>,
    r0: u128,
    body: &[u8],
    layout: &Layout,
    out: &mut [u8],
) -> Result<usize> {
    let out = &mut out[..layout.pt_capacity()];
    let threads = threads_for(body.len(), layout.segments);
    let mut verdict = if threads <= 1 {
        decrypt_segments(keys, r0, layout, 0, layout.segments, body, out)
    } else {
        let mut parts = Vec::with_capacity(threads);
        let (mut body_rest, mut out_rest) = (body, &mut *out);
        for (a, b) in split_segments(layout.segments, threads) {
            let (body_part, tail) = if b == layout.segments {
                (body_rest, &[][..])
            } else {
                body_rest.split_at(16 * (layout.seg_offset(b) - layout.seg_offset(a)))
            };
            body_rest = tail;
            // Plaintext blocks a*S .. b*S; block 0 (the length block) is not in `out`.
            let out_len = if b == layout.segments {
                out_rest.len()
            } else {
                16 * (b * layout.s - (a * layout.s).max(1))
            };
            let (out_part, tail) = out_rest.split_at_mut(out_len);
            out_rest = tail;
            parts.push((a, b, body_part, out_part));
        }
        parts
            .into_par_iter()
            .map(|(a, b, body_part, out_part)| {
                decrypt_segments(keys, r0, layout, a, b, body_part, out_part)
            })
            .reduce(Verdict::default, Verdict::merge)
    };
    // The length block must equal the length of the unpadded message.
    let n = layout.blocks - 1; // padded message blocks
    let mut last = [0u8; 16];
    last.copy_from_slice(&out[16 * (n - 1)..]);
    let (pos, valid) = unpad(&last);
    last.zeroize();
    let len = 16 * (n - 1) + pos;
    let ok = verdict.diff.ct_eq(&0) & valid & to_int(&verdict.len_block).ct_eq(&(len as u128));
    verdict.len_block.zeroize();
    if !bool::from(ok) {
        out.zeroize();
        return Err(Error::Authentication);
    }
    out[len..].zeroize();
    Ok(len)
}

/// What the segments of one thread found: any check-block difference, and
/// the decrypted length block (from the thread holding segment 1).
#[derive(Default)]
struct Verdict {
    diff: u128,
    len_block: Block,
}

impl Verdict {
    fn merge(a: Self, b: Self) -> Self {
        Self {
            diff: a.diff | b.diff,
            len_block: xor(&a.len_block, &b.len_block), // only one is non-zero
        }
    }
}

/// Decrypt segments `first..end` from `body` (starting at segment `first`)
/// into `out` (plaintext blocks `first * S ..`, minus the length block).
fn decrypt_segments<C: BlockCipher128Dec>(
    keys: &Keys<C>,
    r0: u128,
    layout: &Layout,
    first: usize,
    end: usize,
    body: &[u8],
    out: &mut [u8],
) -> Verdict {
    let (body, _) = body.as_chunks::<16>();
    let (out, _) = out.as_chunks_mut::<16>();
    let mut work = DecGroup {
        body,
        out,
        layout: *layout,
        body_first: first,
        group_first: first,
        before: Cursor::default(),
        after: Cursor::default(),
        z0: [[0; 16]; MAX_LANES],
        sum: [[0; 16]; MAX_LANES],
        r0,
        verdict: Verdict::default(),
    };
    let mut g = first;
    while g < end {
        let lanes = MAX_LANES.min(end - g);
        work.group_first = g;
        keys.z0_run(r0.wrapping_add(g as u128 + 1), &mut work.z0[..lanes]);
        work.sum[..lanes].copy_from_slice(&work.z0[..lanes]);
        let from = layout.seg_offset(g) - layout.seg_offset(first);
        let to = if g + lanes == layout.segments {
            body.len()
        } else {
            layout.seg_offset(g + lanes) - layout.seg_offset(first)
        };
        work.before = Cursor {
            t: from,
            lane: 0,
            i: 1,
        };
        work.after = work.before;
        let mut range = GroupRange {
            work: &mut work,
            from,
        };
        decrypt_par(&keys.f, to - from, &mut range);
        g += lanes;
    }
    let verdict = core::mem::take(&mut work.verdict);
    wipe(&mut work.z0);
    wipe(&mut work.sum);
    verdict
}

/// Position of a ciphertext block: body index t, lane (segment in the
/// group), i (1-based index within the segment; n_s + 1 is the check block).
#[derive(Default, Clone, Copy)]
struct Cursor {
    t: usize,
    lane: usize,
    i: usize,
}

struct DecGroup<'a> {
    body: &'a [Block],
    out: &'a mut [Block],
    layout: Layout,
    body_first: usize,
    group_first: usize,
    /// The next block `before`, and `after`, will see.
    before: Cursor,
    after: Cursor,
    z0: [Block; MAX_LANES],
    sum: [Block; MAX_LANES],
    r0: u128,
    verdict: Verdict,
}

/// A group's blocks as one run for [`decrypt_par`] (indices from 0).
struct GroupRange<'w, 'a> {
    work: &'w mut DecGroup<'a>,
    from: usize,
}

impl DecGroup<'_> {
    /// r0^(s) of a lane of the current group.
    #[inline(always)]
    fn r0s(&self, lane: usize) -> u128 {
        self.r0.wrapping_add((self.group_first + lane) as u128 + 1)
    }

    /// z_i = y_i - i * r0^(s) at a position.
    #[inline(always)]
    fn z(&self, c: &Cursor) -> Block {
        let offset = self.r0s(c.lane).wrapping_mul(c.i as u128);
        to_block(to_int(&self.body[c.t]).wrapping_sub(offset))
    }

    /// Advance a cursor by one block.
    #[inline(always)]
    fn step(&self, c: &mut Cursor) {
        c.t += 1;
        let n_s = self.layout.seg_len(self.group_first + c.lane);
        if c.i == n_s + 1 {
            c.lane += 1;
            c.i = 1;
        } else {
            c.i += 1;
        }
    }
}

impl ParWork for GroupRange<'_, '_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let w = &mut *self.work;
        let mut c = w.before;
        debug_assert_eq!(c.t, self.from + start);
        for b in blocks.iter_mut() {
            *b = w.z(&c);
            w.step(&mut c);
        }
        w.before = c;
    }

    #[inline(always)]
    fn after(&mut self, _start: usize, blocks: &[Block]) {
        let w = &mut *self.work;
        let s = w.layout.s;
        let first_p = (w.body_first * s).max(1);
        let mut c = w.after;
        for d in blocks {
            // x_i = f^-1(z_i) xor z_{i-1}
            let z_prev = if c.i == 1 {
                w.z0[c.lane]
            } else {
                w.z(&Cursor {
                    t: c.t - 1,
                    lane: c.lane,
                    i: c.i - 1,
                })
            };
            let x = xor(d, &z_prev);
            let seg = w.group_first + c.lane;
            if c.i <= w.layout.seg_len(seg) {
                xor_in_place(&mut w.sum[c.lane], &x);
                let p = seg * s + c.i - 1; // plaintext block index
                if p == 0 {
                    w.verdict.len_block = x;
                } else {
                    w.out[p - first_p] = x;
                }
            } else {
                // the check block: x_{n_s+1} must equal z0^(s) xor x_1 .. x_{n_s}
                w.verdict.diff |= to_int(&xor(&x, &w.sum[c.lane]));
            }
            w.step(&mut c);
        }
        w.after = c;
    }
}

/// Allocate room for the plaintext, decrypt into it, truncate.
fn open_to_vec(
    ct: &[u8],
    s: usize,
    decrypt_into: impl FnOnce(&[u8], &mut [u8]) -> Result<usize>,
) -> Result<Vec<u8>> {
    let cap = Layout::for_ciphertext(ct.len(), s)?.pt_capacity();
    let mut out = vec![0u8; cap];
    let n = decrypt_into(ct, &mut out)?;
    out.truncate(n);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let z0 = encrypt_block(f_prime, &r0s.to_be_bytes());
            let (mut z, mut check) = (z0, z0);
            for xi in xs {
                check = xor(&check, xi);
            }
            for (i, xi) in xs.iter().chain([&check]).enumerate() {
                z = encrypt_block(&keys.f, &xor(&z, xi));
                let y = u128::from_be_bytes(z).wrapping_add((i as u128 + 1).wrapping_mul(r0s));
                body.extend_from_slice(&y.to_be_bytes());
            }
        }
        body
    }

    /// Both paths (AVX-512 tiles and gathers where the CPU has them, and
    /// the portable loops) against the definition, around the tile edges:
    /// S = 1 ..= 9 (rounds not a multiple of 4, one or two tiles), 1 ..= 70
    /// segments (partial groups of four lanes, groups wider than one
    /// backend width), the message's last segment full or short.
    #[test]
    fn tiles_match_the_definition_at_every_lane_count() {
        let keys = Keys::two(
            aes::Aes128::new(&[0x31; 16].into()),
            aes::Aes128::new(&[0x42; 16].into()),
        );
        let r0 = u128::MAX - 37; // r0 + s wraps
        let msg: Vec<u8> = (0..16 * 9 * 70).map(|j| (j * 29 + 7) as u8).collect();
        let paths = [Avx512::detect(), None];
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
                        for path in paths {
                            let mut body = vec![0u8; layout.ct_len() - 16];
                            let l = layout.segments;
                            encrypt_segments(path, &keys, r0, &stream, &layout, 0, l, &mut body);
                            assert_eq!(body, want, "S {s} len {len} simd {}", path.is_some());
                        }
                    }
                }
            }
        }
    }

    /// The AVX-512 gathers and scatters against the portable loops, for
    /// segment lengths that do and do not fill whole vectors, groups wider
    /// and narrower than one backend width, and messages with and without
    /// a short last segment.
    #[test]
    fn simd_and_portable_segments_agree() {
        let Some(simd) = Avx512::detect() else {
            return;
        };
        let keys = Keys::two(
            aes::Aes128::new(&[0x11; 16].into()),
            aes::Aes128::new(&[0x22; 16].into()),
        );
        let r0 = 0x8899_aabb_ccdd_eeff_0011_2233_4455_6677u128;
        let msg: Vec<u8> = (0..70 * 16 * 5).map(|j| (j * 13 + 1) as u8).collect();
        for s in [1usize, 2, 3, 4, 5, 7, 8, 16, 17] {
            for len in [
                0usize,
                15,
                16,
                100,
                16 * 64,
                16 * 65 + 3,
                16 * 67 * s.min(5),
            ] {
                let m = &msg[..len.min(msg.len())];
                let layout = Layout::for_message(m.len(), s).expect("layout");
                let stream = Stream::new(m);
                let mut bodies = Vec::new();
                for path in [Some(simd), None] {
                    let mut body = vec![0u8; layout.ct_len() - 16];
                    let l = layout.segments;
                    encrypt_segments(path, &keys, r0, &stream, &layout, 0, l, &mut body);
                    bodies.push(body);
                }
                assert_eq!(bodies[0], bodies[1], "S {s} len {len}");
            }
        }
    }
}
