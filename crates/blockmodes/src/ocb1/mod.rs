//! OCB 1.0: the authenticated-encryption mode of Rogaway, Bellare, Black and
//! Krovetz, "OCB: A Block-Cipher Mode of Operation for Efficient
//! Authenticated Encryption" (ACM CCS 2001), exactly as its figure 2 defines
//! it (see `docs/spec/ocb-pmac.md`).
//!
//! Notation of the paper, used in the comments below:
//! * `L = E_K(0^n)`, `L(i) = L * x^i`, `L(-1) = L * x^-1` (per key);
//! * `R = E_K(N xor L)`, offsets `Z[i] = gamma_i * L xor R`;
//! * `C[i] = E_K(M[i] xor Z[i]) xor Z[i]` for `i < m`;
//! * `X[m] = len(M[m]) xor L(-1) xor Z[m]`, `Y[m] = E_K(X[m])`,
//!   `C[m] = M[m] xor Y[m]` (first `|M[m]|` bits);
//! * `Checksum = M[1] xor ... xor M[m-1] xor C[m]0* xor Y[m]`,
//!   `T = E_K(Checksum xor Z[m])` (first tau bits).
//!
//! OCB 1.0 has **no associated data**: the [`aead::AeadInOut`] methods return
//! [`aead::Error`] when given non-empty associated data, and never ignore it.
//!
//! Cost: `ceil(|M| / 16) + 2` block-cipher calls per message (the empty message
//! is one empty block: 3 calls), plus one at key setup. The `m - 1` full
//! blocks go to the cipher in batches of its parallel width
//! (`oracle::encrypt_par` / `oracle::decrypt_par`); their offsets come from
//! [`GrayBatch`] without a serial chain.
//!
//! ```
//! use blockmodes::ocb1::Ocb1Aes128;
//!
//! let ocb = Ocb1Aes128::new_from_slice(&[0x42; 16])?;
//! let nonce = [7u8; 16]; // never reuse a nonce under one key
//! let sealed = ocb.encrypt_to_vec(&nonce, b"attack at dawn")?;
//! assert_eq!(sealed.len(), 14 + 16); // C || T
//! assert_eq!(ocb.decrypt_to_vec(&nonce, &sealed)?, b"attack at dawn");
//! # Ok::<(), blockmodes::Error>(())
//! ```

#[cfg(feature = "alloc")]
use alloc::{vec, vec::Vec};
use core::marker::PhantomData;

use aead::array::Array;
use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, TagPosition};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::arith::gf128::{Block, GrayBatch, GrayCursor, GrayOffsets, half_be, xor, xor_in_place};
use crate::backend::{Engine, GrayView};
use crate::engine::GrayTable;
use crate::error::{Error, Result};
use crate::oracle::{self, BlockCipher128, BlockCipher128Dec, ParWork};

mod fused;
#[cfg(feature = "alloc")]
mod online;
#[cfg(feature = "alloc")]
pub use online::Ocb1Encryptor;

/// Interfaces that give up a property of the safe API, documented on each.
pub mod hazmat {
    #[cfg(feature = "alloc")]
    pub use super::online::Ocb1Decryptor;

    /// OCB 1.0 with the paper's tags of any length, 1 to 16 bytes (`U1`..=
    /// `U16`): the safe [`Ocb1`](super::Ocb1) with the [`Hazmat`] tag
    /// policy, the same type and code. For the paper's vectors and
    /// research: a tag of `t` bytes is forged with probability 2^-8t per
    /// try (a 1-byte tag after about 256 tries), so below 8 bytes it
    /// authenticates next to nothing.
    ///
    /// ```
    /// use blockmodes::{Aes128, ocb1::hazmat::Ocb1};
    /// use aead::consts::U2;
    /// let ocb = Ocb1::<Aes128, U2>::new_from_slice(&[0; 16])?;
    /// let sealed = ocb.encrypt_to_vec(&[1; 16], b"abc")?;
    /// assert_eq!(sealed.len(), 3 + 2);
    /// assert_eq!(ocb.decrypt_to_vec(&[1; 16], &sealed)?, b"abc");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub type Ocb1<C, T = super::U16> = super::Ocb1<C, T, Hazmat>;

    pub use crate::tag::Hazmat;
}

/// The nonce length of OCB 1.0 in bytes (n = 128 bits).
pub const NONCE_LEN: usize = 16;

use crate::tag::Safe;
pub use crate::tag::{Tag, TagPolicy, TagSize};

/// OCB 1.0 over the 128-bit block cipher `C`, with tags of `T` bytes: 8 to
/// 16 (`U8`..=`U16`, default 16). A forgery succeeds with probability
/// 2^-8t per try; the paper's shorter tags (1 to 7 bytes) are only in
/// [`hazmat::Ocb1`].
///
/// Key setup computes `L = E_K(0^n)`, `L(-1)` and the offset tables once.
/// All key material (the tables; the cipher's round keys for `aes`) is
/// zeroized on drop.
///
/// Three equivalent interfaces:
/// * one-shot [`encrypt_to_vec`](Self::encrypt_to_vec) /
///   [`decrypt_to_vec`](Self::decrypt_to_vec) on `C || T`;
/// * detached in place [`encrypt_detached`](Self::encrypt_detached) /
///   [`decrypt_detached`](Self::decrypt_detached);
/// * the `aead` 0.6 traits [`AeadCore`], [`AeadInOut`] (and through it
///   `aead::Aead`) and [`KeyInit`]. OCB 1.0 has no associated data: passing
///   non-empty associated data to a trait method returns [`aead::Error`].
///
/// The inherent methods take the nonce as `&[u8]` and return this crate's
/// [`Error`]; none of them shadows a trait method, so the `aes-gcm` idioms
/// of the `aead` traits compile and work as written there:
///
/// ```
/// use aead::{Aead, AeadInOut, KeyInit, Nonce, Payload};
/// use blockmodes::ocb1::Ocb1Aes128;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let cipher = Ocb1Aes128::new(&[0x11; 16].into());
/// let nonce = Nonce::<Ocb1Aes128>::from([0x22; 16]); // unique per message
/// let msg = b"plaintext message";
///
/// let ciphertext = cipher.encrypt(&nonce, msg.as_ref())?;
/// let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref())?;
/// assert_eq!(&plaintext, msg);
///
/// let ct = cipher.encrypt(&nonce, Payload { msg, aad: b"" })?;
/// assert_eq!(cipher.decrypt(&nonce, Payload { msg: &ct, aad: b"" })?, msg);
/// // OCB 1.0 authenticates no associated data: refused, never ignored.
/// assert!(cipher.encrypt(&nonce, Payload { msg, aad: b"header" }).is_err());
///
/// let cipher = Ocb1Aes128::new_from_slice(&[0x11; 16])?;
/// let mut buffer: Vec<u8> = msg.to_vec();
/// cipher.encrypt_in_place(&nonce, b"", &mut buffer)?;
/// cipher.decrypt_in_place(&nonce, b"", &mut buffer)?;
/// assert_eq!(&buffer, msg);
/// # Ok(())
/// # }
/// ```
///
/// A failed decryption, whatever the interface, zeroes the buffer that held
/// the plaintext and returns [`Error::Authentication`] (or [`aead::Error`]):
/// no unauthenticated plaintext is released.
///
/// ```
/// use aead::{AeadInOut, KeyInit, consts::U8};
/// use blockmodes::{Aes256, ocb1::Ocb1};
///
/// // 8-byte tags, through the aead traits.
/// let ocb = Ocb1::<Aes256, U8>::new(&[1u8; 32].into());
/// let nonce = [2u8; 16].into();
/// let mut buf = b"chunk of a file".to_vec();
/// ocb.encrypt_in_place(&nonce, b"", &mut buf).unwrap();
/// assert_eq!(buf.len(), 15 + 8);
/// ocb.decrypt_in_place(&nonce, b"", &mut buf).unwrap();
/// assert_eq!(buf, b"chunk of a file");
/// // Associated data is not part of OCB 1.0: refused, not ignored.
/// assert!(ocb.encrypt_in_place(&nonce, b"header", &mut buf).is_err());
/// ```
pub struct Ocb1<C, T = U16, P = Safe>
where
    T: TagSize<P>,
    P: TagPolicy,
{
    /// The block cipher, and the engine's AES key when keyed from AES key
    /// bytes on a CPU the engine runs on (`crate::backend`).
    engine: Engine<C>,
    /// `L(-1) = L * x^-1`.
    l_inv: Block,
    /// `L(0..64)` and `gamma_j * L` for `j < 64`.
    batch: GrayBatch,
    /// The offsets laid out for the engine's kernels, made only where the
    /// engine has the AES key (the fused path, `fused.rs`).
    table: Option<GrayTable>,
    _tag: PhantomData<(T, P)>,
}

/// OCB 1.0 with AES-128 and 16-byte tags (other tag sizes: `Ocb1<Aes128, U8>`, ...;
/// below 8 bytes, [`hazmat::Ocb1`]).
pub type Ocb1Aes128 = Ocb1<crate::Aes128>;
/// OCB 1.0 with AES-192 and 16-byte tags.
pub type Ocb1Aes192 = Ocb1<crate::Aes192>;
/// OCB 1.0 with AES-256 and 16-byte tags.
pub type Ocb1Aes256 = Ocb1<crate::Aes256>;

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> Ocb1<C, T, P> {
    /// Key setup from a keyed block cipher: `L = E_K(0^n)`, `L(-1)`, `L(i)`.
    ///
    /// ```
    /// use cipher::KeyInit;
    /// use blockmodes::{Aes128, ocb1::Ocb1};
    /// let ocb = Ocb1::<Aes128, aead::consts::U12>::from_cipher(Aes128::new(&[0u8; 16].into()));
    /// assert_eq!(ocb.encrypt_to_vec(&[0u8; 16], b"")?.len(), 12);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_cipher(cipher: C) -> Self {
        Self::with_engine(Engine::from_cipher(cipher))
    }

    /// Key setup from key bytes and the cipher keyed with them: as
    /// [`from_cipher`](Self::from_cipher), plus the fused path where the
    /// cipher is AES and the CPU runs it (`crate::backend`).
    fn from_key(cipher: C, key: &[u8]) -> Self {
        Self::with_engine(Engine::from_key(cipher, key))
    }

    /// Key setup on `engine` (the fused path's table only if it has the
    /// engine's key).
    fn with_engine(engine: Engine<C>) -> Self {
        let mut l = engine.encrypt_block(&[0u8; 16]); // L = E_K(0^n)
        let l_inv = half_be(&l); // L(-1) = L * x^-1
        let batch = GrayBatch::new(GrayOffsets::new(&l));
        l.zeroize();
        Self {
            table: engine.aes().map(|_| GrayTable::new(&batch)),
            engine,
            l_inv,
            batch,
            _tag: PhantomData,
        }
    }

    /// The fused path, if this key has it.
    #[inline(always)]
    fn fused(&self) -> Option<GrayView<'_>> {
        GrayView::of(self.engine.aes(), self.table.as_ref())
    }

    #[cfg(feature = "alloc")]
    /// Encrypt `msg` under the 16-byte `nonce`; returns `C || T`
    /// (`|msg| + T` bytes).
    ///
    /// Errors: [`Error::InvalidNonceLength`] unless the nonce is 16 bytes.
    ///
    /// ```
    /// use blockmodes::ocb1::Ocb1Aes128;
    /// let key = hex::decode("000102030405060708090a0b0c0d0e0f").unwrap();
    /// let nonce = hex::decode("00000000000000000000000000000001").unwrap();
    /// let ocb = Ocb1Aes128::new_from_slice(&key)?;
    /// let sealed = ocb.encrypt_to_vec(&nonce, &[0, 1, 2])?;
    /// // OCB-AES-128-3B of vectors/ocb1-aes.json
    /// assert_eq!(hex::encode(sealed), "fcd37d02254739a5e3565ae2dcd62c659746ba");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_to_vec(&self, nonce: &[u8], msg: &[u8]) -> Result<Vec<u8>> {
        let nonce = check_nonce(nonce)?;
        let total = msg.len().checked_add(T::USIZE).ok_or(Error::InputTooLong {
            max: (usize::MAX - T::USIZE) as u64,
            got: msg.len() as u64,
        })?;
        // The fused kernels write `C` straight into the new `Vec`'s
        // capacity (no zero fill first: the Vec call runs at the in-place
        // call's speed); other ciphers fill a zeroed `Vec`.
        if let Some(f) = self.fused() {
            let mut out = Vec::with_capacity(total);
            let keys = (self.batch.offsets().l(0), &self.l_inv, &nonce);
            let full = f.append(crate::engine::Dir::Encrypt, keys, msg, &mut out);
            out.extend_from_slice(&full[..T::USIZE]);
            return Ok(out);
        }
        let mut out = vec![0u8; total];
        let (ct, tag) = out.split_at_mut(msg.len());
        let buf = InOutBuf::new(msg, ct).map_err(|_| Error::InvalidLength("output buffer"))?;
        let full = self.seal(&nonce, &mut Io::new(buf));
        copy_prefix(tag, &full);
        Ok(out)
    }

    /// Encrypt `buf` in place under the 16-byte `nonce` (the ciphertext core
    /// `C` has the length of `M`); returns the tag `T`.
    ///
    /// Errors: [`Error::InvalidNonceLength`] unless the nonce is 16 bytes
    /// (`buf` is then left unchanged).
    ///
    /// ```
    /// use blockmodes::ocb1::Ocb1Aes128;
    /// let ocb = Ocb1Aes128::new_from_slice(&[9; 16])?;
    /// let mut buf = *b"in place";
    /// let tag = ocb.encrypt_detached(&[1; 16], &mut buf)?;
    /// ocb.decrypt_detached(&[1; 16], &mut buf, &tag)?;
    /// assert_eq!(&buf, b"in place");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_detached(&self, nonce: &[u8], buf: &mut [u8]) -> Result<Tag<T>> {
        let nonce = check_nonce(nonce)?;
        let full = self.seal(&nonce, &mut Io::new(buf.into()));
        Ok(truncate_tag(&full))
    }

    /// OCB.Enc of figure 2 on `io`; returns the full 16-byte tag
    /// `E_K(Checksum xor Z[m])`.
    fn seal(&self, nonce: &Block, io: &mut impl BlockBuf) -> Block {
        if let Some(f) = self.fused() {
            return f.seal(self.batch.offsets().l(0), &self.l_inv, nonce, io);
        }
        let n_full = io.blocks_in().len(); // m - 1
        let mut z = self.start_offsets(nonce);
        // C[i] = E_K(M[i] xor Z[i]) xor Z[i] for i = 1 .. m-1;
        // Checksum = M[1] xor ... xor M[m-1].
        let mut checksum = BlockWork::<_, false>::run(&self.batch, io, &mut z, |n, w| {
            oracle::encrypt_par(self.engine.cipher(), n, w)
        });
        let mut z_m = z.offset(&self.batch, n_full as u64 + 1); // Z[m]
        let mut last = [0u8; 16];
        let len = copy_tail(&mut last, io.tail_in()); // M[m]
        let mut y_m = self.y_m(&z_m, len); // Y[m]
        xor_in_place(&mut last, &y_m); // C[m] = M[m] xor Y[m] (first |M[m]| bytes)
        copy_prefix(io.tail_out(), &last);
        zero_after(&mut last, len); // C[m]0*
        xor_in_place(&mut checksum, &last);
        xor_in_place(&mut checksum, &y_m); // Checksum ^= C[m]0* xor Y[m]
        let tag = self.tag(&checksum, &z_m);
        for secret in [&mut last, &mut checksum, &mut z_m, &mut y_m] {
            wipe(secret);
        }
        tag
    }

    /// `R = E_K(N xor L)`: the cursor on `Z[i] = gamma_i * L xor R`.
    fn start_offsets(&self, nonce: &Block) -> GrayCursor {
        let mut n_xor_l = xor(nonce, self.batch.offsets().l(0));
        let mut r = self.engine.encrypt_block(&n_xor_l);
        let cursor = GrayCursor::new(&r);
        wipe(&mut n_xor_l);
        wipe(&mut r);
        cursor
    }

    /// `Y[m] = E_K(len(M[m]) xor L(-1) xor Z[m])`, with `len(M[m])` the bit
    /// length of the final block as a 128-bit big-endian number.
    fn y_m(&self, z_m: &Block, len_bytes: usize) -> Block {
        let bits = (8 * len_bytes as u128).to_be_bytes(); // len(M[m])
        let x_m = xor(&xor(&bits, &self.l_inv), z_m); // X[m]
        self.engine.encrypt_block(&x_m)
    }

    /// The full tag `E_K(Checksum xor Z[m])`.
    fn tag(&self, checksum: &Block, z_m: &Block) -> Block {
        self.engine.encrypt_block(&xor(checksum, z_m))
    }
}

impl<C: BlockCipher128 + KeyInit, T: TagSize<P>, P: TagPolicy> Ocb1<C, T, P> {
    /// Key setup from key bytes.
    ///
    /// Errors: [`Error::InvalidKeyLength`] unless `key` has the cipher's key
    /// length (16 bytes for AES-128, 24 for AES-192, 32 for AES-256).
    ///
    /// ```
    /// use blockmodes::{Error, ocb1::Ocb1Aes256};
    /// assert!(Ocb1Aes256::new_from_slice(&[0; 32]).is_ok());
    /// assert!(matches!(
    ///     Ocb1Aes256::new_from_slice(&[0; 16]),
    ///     Err(Error::InvalidKeyLength { got: 16, .. })
    /// ));
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self> {
        Ok(Self::from_key(oracle::cipher_from_key(key)?, key))
    }
}

impl<C: BlockCipher128Dec, T: TagSize<P>, P: TagPolicy> Ocb1<C, T, P> {
    #[cfg(feature = "alloc")]
    /// Decrypt `C || T` (as returned by [`encrypt_to_vec`](Self::encrypt_to_vec)) under the
    /// 16-byte `nonce`; returns `M` only if the tag verifies.
    ///
    /// Errors: [`Error::InvalidNonceLength`]; [`Error::CiphertextTooShort`]
    /// when the input is shorter than the tag; [`Error::Authentication`] when
    /// the tag does not verify (the plaintext computed on the way is wiped).
    ///
    /// ```
    /// use blockmodes::{Error, ocb1::Ocb1Aes128};
    /// let ocb = Ocb1Aes128::new_from_slice(&[3; 16])?;
    /// let mut sealed = ocb.encrypt_to_vec(&[0; 16], b"hello")?;
    /// assert_eq!(ocb.decrypt_to_vec(&[0; 16], &sealed)?, b"hello");
    /// sealed[0] ^= 1;
    /// assert_eq!(ocb.decrypt_to_vec(&[0; 16], &sealed), Err(Error::Authentication));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_to_vec(&self, nonce: &[u8], ciphertext_and_tag: &[u8]) -> Result<Vec<u8>> {
        let nonce = check_nonce(nonce)?;
        let ct_len =
            ciphertext_and_tag
                .len()
                .checked_sub(T::USIZE)
                .ok_or(Error::CiphertextTooShort {
                    min: T::USIZE,
                    got: ciphertext_and_tag.len(),
                })?;
        let (ct, tag) = ciphertext_and_tag.split_at(ct_len);
        if let Some(f) = self.fused() {
            // `M` written straight into the new `Vec` (as in
            // `encrypt_to_vec`), wiped if the tag does not verify.
            let mut out = Vec::with_capacity(ct_len);
            let keys = (self.batch.offsets().l(0), &self.l_inv, &nonce);
            let mut full = f.append(crate::engine::Dir::Decrypt, keys, ct, &mut out);
            let ok = bool::from(crate::tag::tag_matches(&full, tag));
            wipe(&mut full);
            if ok {
                return Ok(out);
            }
            wipe(&mut out);
            return Err(Error::Authentication);
        }
        let mut out = vec![0u8; ct_len];
        let buf = InOutBuf::new(ct, &mut out).map_err(|_| Error::InvalidLength("output buffer"))?;
        self.open_verify(&nonce, &mut Io::new(buf), tag)?;
        Ok(out)
    }

    /// Decrypt `buf` (the ciphertext core `C`) in place under the 16-byte
    /// `nonce` and check it against `tag`.
    ///
    /// Errors: [`Error::InvalidNonceLength`] and [`Error::InvalidTagLength`]
    /// (unless `tag` has exactly `T` bytes) with `buf` unchanged;
    /// [`Error::Authentication`] when the tag does not verify, with `buf`
    /// zeroed (OCB computes the checksum over the plaintext, so the plaintext
    /// exists in `buf` before the tag is checked; it is wiped before
    /// returning).
    ///
    /// Unauthenticated plaintext: `&mut [u8]` is exclusive, so no other
    /// thread of a safe program can read `buf` during the call. That
    /// guarantee stops at the process: if `buf` lies in memory another
    /// process can read (a `MAP_SHARED` mapping of a file or shared-memory
    /// object, memory handed to a device or hypervisor), that process can
    /// see the plaintext of a forged ciphertext between its decryption and
    /// the wipe. Decrypt into private memory and copy after `Ok` in that
    /// case ([`Ocb1::decrypt_to_vec`] does: its `Vec` is the caller's alone until
    /// it returns). The same holds for the [`aead::AeadInOut`] methods,
    /// which write the plaintext to their output buffer the same way.
    ///
    /// ```
    /// use blockmodes::{Error, ocb1::Ocb1Aes128};
    /// let ocb = Ocb1Aes128::new_from_slice(&[3; 16])?;
    /// let mut buf = *b"secret";
    /// let tag = ocb.encrypt_detached(&[5; 16], &mut buf)?;
    /// let mut bad = tag;
    /// bad[15] ^= 0x80;
    /// assert_eq!(ocb.decrypt_detached(&[5; 16], &mut buf, &bad), Err(Error::Authentication));
    /// assert_eq!(buf, [0; 6]); // wiped
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_detached(&self, nonce: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<()> {
        let nonce = check_nonce(nonce)?;
        if tag.len() != T::USIZE {
            return Err(Error::InvalidTagLength {
                min: T::USIZE,
                max: T::USIZE,
                got: tag.len(),
            });
        }
        self.open_verify(&nonce, &mut Io::new(buf.into()), tag)
    }

    /// OCB.Dec and the tag check: on a mismatch the plaintext written to
    /// `io` is zeroed and the result is [`Error::Authentication`].
    fn open_verify(&self, nonce: &Block, io: &mut impl BlockBuf, tag: &[u8]) -> Result<()> {
        let mut full = self.open(nonce, io); // T' in full
        let ok = bool::from(crate::tag::tag_matches(&full, tag));
        // The recomputed tag is the valid tag of this ciphertext: never
        // left behind (it would let whoever reads the stack forge).
        wipe(&mut full);
        if ok {
            Ok(())
        } else {
            wipe(io.blocks_out().as_flattened_mut());
            wipe(io.tail_out());
            Err(Error::Authentication)
        }
    }

    /// OCB.Dec of figure 2 on `io`, up to the tag: writes `M` and returns the
    /// full 16-byte tag `T'` it recomputes. The caller compares and wipes.
    fn open(&self, nonce: &Block, io: &mut impl BlockBuf) -> Block {
        if let Some(f) = self.fused() {
            return f.open(self.batch.offsets().l(0), &self.l_inv, nonce, io);
        }
        let n_full = io.blocks_in().len(); // m - 1
        let mut z = self.start_offsets(nonce);
        // M[i] = E_K^-1(C[i] xor Z[i]) xor Z[i] for i = 1 .. m-1;
        // Checksum = M[1] xor ... xor M[m-1].
        let mut checksum = BlockWork::<_, true>::run(&self.batch, io, &mut z, |n, w| {
            oracle::decrypt_par(self.engine.cipher(), n, w)
        });
        let mut z_m = z.offset(&self.batch, n_full as u64 + 1); // Z[m]
        let mut last = [0u8; 16];
        let len = copy_tail(&mut last, io.tail_in()); // C[m]0*
        let mut y_m = self.y_m(&z_m, len); // Y[m]
        xor_in_place(&mut checksum, &last);
        xor_in_place(&mut checksum, &y_m); // Checksum ^= C[m]0* xor Y[m]
        xor_in_place(&mut last, &y_m); // M[m] = C[m] xor Y[m] (first |C[m]| bytes)
        copy_prefix(io.tail_out(), &last);
        let tag = self.tag(&checksum, &z_m);
        for secret in [&mut last, &mut checksum, &mut z_m, &mut y_m] {
            wipe(secret);
        }
        tag
    }
}

impl<C: Clone, T: TagSize<P>, P: TagPolicy> Clone for Ocb1<C, T, P> {
    fn clone(&self) -> Self {
        Self {
            engine: self.engine.clone(),
            l_inv: self.l_inv,
            batch: self.batch.clone(),
            table: self.table.clone(),
            _tag: PhantomData,
        }
    }
}

impl<C, T: TagSize<P>, P: TagPolicy> Drop for Ocb1<C, T, P> {
    fn drop(&mut self) {
        // `batch` (L(i), gamma_j L) zeroizes itself; `aes` zeroizes its round keys.
        self.l_inv.zeroize();
    }
}

impl<C: ZeroizeOnDrop, T: TagSize<P>, P: TagPolicy> ZeroizeOnDrop for Ocb1<C, T, P> {}

impl<C, T: TagSize<P>, P: TagPolicy> core::fmt::Debug for Ocb1<C, T, P> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ocb1").finish_non_exhaustive()
    }
}

impl<C: KeySizeUser, T: TagSize<P>, P: TagPolicy> KeySizeUser for Ocb1<C, T, P> {
    type KeySize = C::KeySize;
}

/// `KeyInit` (the same trait as `cipher::KeyInit`): key setup from a key array.
impl<C: BlockCipher128 + KeyInit, T: TagSize<P>, P: TagPolicy> KeyInit for Ocb1<C, T, P> {
    fn new(key: &Key<Self>) -> Self {
        Self::from_key(C::new(key), key)
    }
}

/// Nonce: 16 bytes; tag: `T` bytes, after the ciphertext core.
impl<C, T: TagSize<P>, P: TagPolicy> AeadCore for Ocb1<C, T, P> {
    type NonceSize = U16;
    type TagSize = T;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

/// The `aead` 0.6 interface; `aead::Aead` (one-shot `Vec` methods) and the
/// in-place `encrypt_in_place` / `decrypt_in_place` come with it.
///
/// OCB 1.0 authenticates no associated data: every method returns
/// [`aead::Error`] when `associated_data` is not empty (it is never silently
/// ignored). In-place buffers and separate input and output buffers are both
/// processed without a copy. When the
/// tag does not verify, the output buffer is zeroed and [`aead::Error`] is
/// returned.
///
/// ```
/// use aead::{Aead, AeadInOut, KeyInit};
/// use blockmodes::ocb1::Ocb1Aes128;
///
/// let ocb = Ocb1Aes128::new(&[0x11; 16].into());
/// let nonce = [0x22; 16].into();
/// let sealed = Aead::encrypt(&ocb, &nonce, &b"message"[..]).unwrap();
/// assert_eq!(Aead::decrypt(&ocb, &nonce, &sealed[..]).unwrap(), b"message");
///
/// let mut buf = *b"detached";
/// let tag = ocb.encrypt_inout_detached(&nonce, b"", (&mut buf[..]).into()).unwrap();
/// ocb.decrypt_inout_detached(&nonce, b"", (&mut buf[..]).into(), &tag).unwrap();
/// assert_eq!(&buf, b"detached");
/// ```
impl<C: BlockCipher128Dec, T: TagSize<P>, P: TagPolicy> AeadInOut for Ocb1<C, T, P> {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        if !associated_data.is_empty() {
            return Err(aead::Error);
        }
        let full = self.seal(&(*nonce).into(), &mut Io::new(buffer));
        Ok(truncate_tag(&full))
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        if !associated_data.is_empty() {
            return Err(aead::Error);
        }
        self.open_verify(&(*nonce).into(), &mut Io::new(buffer), tag)
            .map_err(|_| aead::Error)
    }
}

/// The 16-byte nonce, or [`Error::InvalidNonceLength`].
fn check_nonce(nonce: &[u8]) -> Result<Block> {
    nonce.try_into().map_err(|_| Error::InvalidNonceLength {
        expected: NONCE_LEN,
        got: nonce.len(),
    })
}

/// Zero memory that held secret or unauthenticated data: plain stores kept
/// by a black box, as final as `zeroize` and as fast as memset (`zeroize`
/// writes byte by byte, which shows in the cost of every message).
fn wipe(buf: &mut [u8]) {
    buf.fill(0);
    core::hint::black_box(&*buf);
}

/// The first `T` bytes of a full tag.
fn truncate_tag<T: cipher::array::ArraySize>(full: &Block) -> Tag<T> {
    Tag::<T>::from_fn(|i| full.get(i).copied().unwrap_or(0))
}

/// `dst = src[..dst.len()]` (`dst` at most 16 bytes).
fn copy_prefix(dst: &mut [u8], src: &Block) {
    match <&mut Block>::try_from(&mut *dst) {
        Ok(full) => *full = *src, // a full final block: one 16-byte store
        Err(_) => {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = *s;
            }
        }
    }
}

/// Copy the final block (0..=16 bytes) into a zeroed block; returns its length.
fn copy_tail(block: &mut Block, tail: &[u8]) -> usize {
    match <&Block>::try_from(tail) {
        Ok(full) => *block = *full, // a full final block: one 16-byte load
        Err(_) => {
            for (d, s) in block.iter_mut().zip(tail) {
                *d = *s;
            }
        }
    }
    tail.len()
}

/// Zero the bytes from `len` on (`C[m]0*`; `len` at most 16): one and with a
/// 16-byte mask read from a constant, so the block stays in one vector
/// register (a byte loop here, or a `u128` mask, left the block in pieces
/// whose next 16-byte load stalled on store forwarding: OCB.Dec of 1 KiB
/// lost a quarter of its speed).
fn zero_after(block: &mut Block, len: usize) {
    /// Sixteen 0xff then sixteen zeros: bytes `16 - len ..` are the mask.
    const ONES_THEN_ZEROS: [u8; 32] = {
        let mut m = [0u8; 32];
        let mut i = 0;
        while i < 16 {
            m[i] = 0xff;
            i += 1;
        }
        m
    };
    let start = 16 - len.min(16);
    let mask: &Block = ONES_THEN_ZEROS[start..start + 16]
        .try_into()
        .unwrap_or(&[0xff; 16]);
    for (b, m) in block.iter_mut().zip(mask) {
        *b &= m;
    }
}

/// Where the blocks come from and go to: `m - 1` full blocks and the final
/// block `M[m]` / `C[m]` (0 to 16 bytes). Input and output are never borrowed
/// at the same time, so one buffer can serve as both.
trait BlockBuf {
    /// Input blocks 1 .. m-1.
    fn blocks_in(&self) -> &[Block];
    /// Output blocks 1 .. m-1.
    fn blocks_out(&mut self) -> &mut [Block];
    /// Input final block.
    fn tail_in(&self) -> &[u8];
    /// Output final block.
    fn tail_out(&mut self) -> &mut [u8];
    /// Blocks 1 .. m-1, input and output.
    fn blocks_inout(&mut self) -> InOutBuf<'_, '_, Array<u8, U16>>;
}

/// Number of bytes in blocks 1 .. m-1 of an `n`-byte message: every full
/// block except a full final one (`m = max(1, ceil(n / 16))`).
fn head_len(n: usize) -> usize {
    n.saturating_sub(1) / 16 * 16
}

/// The blocks of an [`InOutBuf`] (one buffer in place, or separate input
/// and output buffers: neither is copied).
struct Io<'i, 'o> {
    blocks: InOutBuf<'i, 'o, Array<u8, U16>>,
    tail: InOutBuf<'i, 'o, u8>,
}

impl<'i, 'o> Io<'i, 'o> {
    fn new(buf: InOutBuf<'i, 'o, u8>) -> Self {
        let mid = head_len(buf.len());
        let (head, tail) = buf.split_at(mid);
        let (blocks, _) = head.into_chunks::<U16>();
        Self { blocks, tail }
    }
}

impl BlockBuf for Io<'_, '_> {
    #[inline(always)]
    fn blocks_in(&self) -> &[Block] {
        Array::cast_slice_to_core(self.blocks.get_in())
    }
    #[inline(always)]
    fn blocks_out(&mut self) -> &mut [Block] {
        Array::cast_slice_to_core_mut(self.blocks.get_out())
    }
    fn tail_in(&self) -> &[u8] {
        self.tail.get_in()
    }
    fn tail_out(&mut self) -> &mut [u8] {
        self.tail.get_out()
    }
    fn blocks_inout(&mut self) -> InOutBuf<'_, '_, Array<u8, U16>> {
        self.blocks.reborrow()
    }
}

/// The most blocks whose offsets are computed at once (the widest backend,
/// VAES-512, enciphers 64 blocks per call).
const BATCH: usize = 64;

/// Cache-line alignment for the tables the whitening reads and writes with
/// 64-byte vector operations (a misaligned one touches two lines).
#[repr(align(64))]
struct Aligned<T>(T);

/// Blocks 1 .. m-1 around the cipher's parallel calls. Block `start` of a
/// batch is block `i = base + skip + start + 1` (see [`BlockWork::run`] for
/// `skip`; `base` is 0 except for the on-line interface, which runs the
/// blocks of a message piece by piece).
///
/// * encryption (`DECRYPT = false`): `before`: input `M[i] xor Z[i]`,
///   `Checksum ^= M[i]`; `after`: `C[i] = E_K(..) xor Z[i]`;
/// * decryption: `before`: input `C[i] xor Z[i]`; `after`:
///   `M[i] = E_K^-1(..) xor Z[i]`, `Checksum ^= M[i]`.
///
/// The offsets `Z[i]` of a batch are computed once into a table and used by
/// both passes; every pass is then a plain loop over bytes that the compiler
/// vectorizes (512-bit operations when the AVX-512 backend inlines it).
struct BlockWork<'a, B, const DECRYPT: bool> {
    batch: &'a GrayBatch,
    io: &'a mut B,
    /// Blocks of the message before `io`'s first (`io`'s block 0 is block
    /// `base + 1` of the message).
    base: u64,
    /// Index (0-based, in `io`) of the block the cipher calls `start = 0`.
    skip: usize,
    cursor: GrayCursor,
    /// `Z[i]` of blocks `z_start + 1 ..= z_start + z_len`.
    z: Aligned<[Block; BATCH]>,
    z_start: usize,
    z_len: usize,
    /// The Checksum, spread over `BATCH` lanes: block `start + t` goes to
    /// lane `t`, so adding a batch is one vectorized loop.
    sum: Aligned<[Block; BATCH]>,
    /// Lanes used so far.
    sum_len: usize,
}

impl<'a, B: BlockBuf, const DECRYPT: bool> BlockWork<'a, B, DECRYPT> {
    /// Run blocks 1 .. m-1 of `io` (all its full blocks) through `par` (the
    /// cipher's batched calls) and return their Checksum
    /// `M[1] xor ... xor M[m-1]`; `cursor` walks their offsets and ends on
    /// the group of the last one.
    ///
    /// The blocks go in two parts: blocks 1..63, then the rest from block
    /// 64 on. With a 64-block backend every batch of the second part is then
    /// exactly one group of offsets `Z[64q .. 64q + 63]`, computed by one
    /// uniform loop.
    #[inline(always)]
    fn run(
        batch: &'a GrayBatch,
        io: &'a mut B,
        cursor: &mut GrayCursor,
        par: impl FnMut(usize, &mut Self),
    ) -> Block {
        Self::run_from(batch, io, 0, cursor, par)
    }

    /// As [`run`](Self::run) for the blocks `base + 1 ..= base + n` of a
    /// message (`n` the full blocks of `io`): the first part runs up to the
    /// end of the 64-block group of block `base + 1`.
    #[inline(always)]
    fn run_from(
        batch: &'a GrayBatch,
        io: &'a mut B,
        base: u64,
        cursor: &mut GrayCursor,
        mut par: impl FnMut(usize, &mut Self),
    ) -> Block {
        let n_full = io.blocks_in().len();
        if n_full == 0 {
            return [0; 16];
        }
        let mut work = Self {
            batch,
            io,
            base,
            skip: 0,
            cursor: cursor.clone(),
            z: Aligned([[0; 16]; BATCH]),
            z_start: 0,
            z_len: 0,
            sum: Aligned([[0; 16]; BATCH]),
            sum_len: 0,
        };
        let head = n_full.min(BATCH - 1 - (base % BATCH as u64) as usize);
        par(head, &mut work);
        work.skip = head;
        par(n_full - head, &mut work);
        core::mem::swap(cursor, &mut work.cursor);
        work.checksum()
    }

    /// The offsets `Z[start + 1 ..= start + len]` (`len <= BATCH`), computed
    /// run by run (one run per 64-block group) or taken from the table if
    /// `before` just computed them.
    #[inline(always)]
    fn offsets(&mut self, start: usize, len: usize) -> &[Block] {
        if (self.z_start, self.z_len) != (start, len) {
            let len = len.min(BATCH);
            let mut t = 0;
            while t < len {
                let i = self.base + (start + 1 + t) as u64;
                let (w4, low) = self.cursor.run(self.batch, i, len - t);
                let end = t + low.len();
                xor_base(&mut self.z.0[t..end], low, w4); // Z = gamma_j L xor W_q
                t = end;
            }
            (self.z_start, self.z_len) = (start, len);
        }
        &self.z.0[..self.z_len]
    }

    /// Fold the lanes into the Checksum `M[1] xor ... xor M[m-1]`.
    fn checksum(&self) -> Block {
        let mut acc = [0u8; 16];
        for lane in &self.sum.0[..self.sum_len] {
            xor_in_place(&mut acc, lane);
        }
        acc
    }
}

impl<B: BlockBuf, const DECRYPT: bool> ParWork for BlockWork<'_, B, DECRYPT> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        for (c, chunk) in blocks.chunks_mut(BATCH).enumerate() {
            let first = self.skip + start + c * BATCH;
            let len = chunk.len();
            self.offsets(first, len);
            let src = &self.io.blocks_in()[first..first + len];
            let z = &self.z.0[..len];
            if DECRYPT {
                xor2(chunk, src, z); // C[i] xor Z[i]
            } else {
                // M[i] xor Z[i]; Checksum ^= M[i]
                self.sum_len = self.sum_len.max(len);
                xor2_sum(chunk, src, z, &mut self.sum.0[..len], false);
            }
        }
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        for (c, chunk) in blocks.chunks(BATCH).enumerate() {
            let first = self.skip + start + c * BATCH;
            let len = chunk.len();
            self.offsets(first, len);
            let out = &mut self.io.blocks_out()[first..first + len];
            let z = &self.z.0[..len];
            if DECRYPT {
                // M[i] = E_K^-1(..) xor Z[i]; Checksum ^= M[i]
                self.sum_len = self.sum_len.max(len);
                xor2_sum(out, chunk, z, &mut self.sum.0[..len], true);
            } else {
                xor2(out, chunk, z); // C[i] = E_K(..) xor Z[i]
            }
        }
    }
}

impl<B, const DECRYPT: bool> Drop for BlockWork<'_, B, DECRYPT> {
    fn drop(&mut self) {
        wipe(self.z.0.as_flattened_mut());
        wipe(self.sum.0.as_flattened_mut());
    }
}

/// `dst = a xor b` over whole slices of blocks, as one flat byte loop (the
/// loop vectorizer's favourite shape).
#[inline(always)]
pub(crate) fn xor2(dst: &mut [Block], a: &[Block], b: &[Block]) {
    let (dst, a, b) = (dst.as_flattened_mut(), a.as_flattened(), b.as_flattened());
    for ((d, x), y) in dst.iter_mut().zip(a).zip(b) {
        *d = x ^ y;
    }
}

/// `dst = a xor b` and `sum ^= a` (or `sum ^= dst` with `sum_dst`) in one
/// flat byte loop: each input is read once and the lanes of the Checksum
/// take the blocks of the batch in order.
#[inline(always)]
pub(crate) fn xor2_sum(
    dst: &mut [Block],
    a: &[Block],
    b: &[Block],
    sum: &mut [Block],
    sum_dst: bool,
) {
    let (dst, a, b) = (dst.as_flattened_mut(), a.as_flattened(), b.as_flattened());
    for (((d, x), y), s) in dst.iter_mut().zip(a).zip(b).zip(sum.as_flattened_mut()) {
        let out = x ^ y;
        *d = out;
        *s ^= if sum_dst { out } else { *x };
    }
}

/// `dst[k] = low[k] xor W`: one run of offsets `Z = gamma_j L xor W_q`, with
/// `w4` four copies of the base `W_q`. Byte loops over groups of four blocks,
/// which the SLP vectorizer turns into one 512-bit xor per group.
///
/// `w4` is read in place: a local copy measured 20% slower on the whole mode
/// (the copy is assembled from narrower stores, and the 64-byte load of it
/// that follows cannot be forwarded from them).
#[inline(always)]
pub(crate) fn xor_base(dst: &mut [Block], low: &[Block], w4: &[Block; 4]) {
    let w64 = w4.as_flattened();
    let (d_quads, d_rest) = dst.as_chunks_mut::<4>();
    let (l_quads, l_rest) = low.as_chunks::<4>();
    for (d, l) in d_quads.iter_mut().zip(l_quads) {
        let (d, l) = (d.as_flattened_mut(), l.as_flattened());
        for k in 0..64 {
            d[k] = l[k] ^ w64[k];
        }
    }
    for (d, l) in d_rest.iter_mut().zip(l_rest) {
        *d = xor(l, &w4[0]);
    }
}
