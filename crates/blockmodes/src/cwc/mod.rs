//! CWC: Carter-Wegman + CTR authenticated encryption with associated data
//! (Kohno, Viega, Whiting, FSE 2004), section 3 of the paper, exactly.
//!
//! ```text
//! CWC-ENC_K(N, A, M):  sigma <- CWC-CTR_K(N, M); tau <- CWC-MAC_K(N, A, sigma); return sigma || tau
//! CWC-CTR_K(N, M):     s_i = E_K(10^7 || N || tostr(i, 32)), i = 1..ceil(|M|/128); sigma = M xor s_1 s_2 ...
//! CWC-MAC_K(N, A, sigma): tau = first tl bits of E_K(CWC-HASH_K(A, sigma)) xor E_K(10^7 || N || 0^32)
//! ```
//!
//! CWC-HASH ([`hash::CwcHash`]) evaluates a polynomial in the hash key
//! `K_h = toint(last 127 bits of E_K(110^126))` mod 2^127 - 1; K_h and its
//! powers are computed once per key.
//!
//! * Nonce N: 11 bytes. Tag: `T` bytes, 8..=16 (type parameter, default
//!   16; a forgery succeeds with probability 2^-8t per try); the paper's
//!   shorter tags (1 to 7 bytes) only in [`hazmat::Cwc`].
//! * A and M: at most 16 (2^32 - 1) bytes each, else [`Error::InputTooLong`].
//! * Block-cipher calls per message: ceil(|M| / 16) + 2 (key setup: 1 more,
//!   for K_h).
//! * Decryption computes and checks the tag (in constant time) **before** it
//!   decrypts anything; when the tag is wrong nothing is decrypted, the
//!   buffer is wiped and [`Error::Authentication`] is returned.
//!
//! Speed: keyed from AES key bytes on an x86-64 CPU with AES-NI (or an
//! aarch64 CPU with the ARMv8 Crypto Extensions: CWC-CTR on the `armv8`
//! tier, `armv8/ctr.rs`, the hash portable), CWC runs on this crate's own
//! AES kernels (`crate::backend`): counter blocks made
//! in registers, and with VAES-512 and AVX-512 IFMA one pass that enciphers
//! the message and hashes its ciphertext from the registers, the AES rounds
//! interleaved with the hash's multiply-adds (`fused.rs`, `cwc/ctr_hash.rs`).
//! Otherwise encryption enciphers the CTR blocks in batches of the cipher's
//! parallel width (`encrypt_par`), in segments of 16 KiB, and hashes each
//! segment of ciphertext right after it is written, while it is still in
//! the first-level cache. The hash runs on AVX-512 IFMA where the CPU has
//! it, else on AVX2 where it has that ([`hash`]); decryption hashes all of sigma first (the tag is checked
//! before anything is decrypted), then deciphers.
//!
//! ```
//! use blockmodes::cwc::CwcAes128;
//!
//! let cwc = CwcAes128::new_from_slice(&[7; 16])?;
//! let nonce = [1u8; 11];
//! let ct = cwc.encrypt_to_vec(&nonce, b"header", b"secret message")?;
//! assert_eq!(ct.len(), 14 + 16);
//! assert_eq!(cwc.decrypt_to_vec(&nonce, b"header", &ct)?, b"secret message");
//! assert!(cwc.decrypt_to_vec(&nonce, b"other header", &ct).is_err());
//! # Ok::<(), blockmodes::Error>(())
//! ```
//!
//! Through the `aead` traits, as `aes-gcm` is used: no inherent method of
//! [`Cwc`] shadows a trait method (the inherent calls that take the nonce
//! as a slice and return this crate's [`Error`] are `encrypt_to_vec`,
//! `decrypt_to_vec`, `encrypt_detached`, `decrypt_detached`,
//! `encrypt_inout`, `decrypt_inout`), so the `aes-gcm` idioms compile and
//! work as written there:
//!
//! ```
//! use blockmodes::cwc::CwcAes256;
//! use aead::{Aead, AeadInOut, KeyInit, Nonce, Payload};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let key = [9u8; 32];
//! let cipher = CwcAes256::new(&key.into());
//! let nonce = Nonce::<CwcAes256>::from([3u8; 11]); // unique per message
//! let msg = b"plaintext message";
//!
//! let ciphertext = cipher.encrypt(&nonce, msg.as_ref())?;
//! let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref())?;
//! assert_eq!(&plaintext, msg);
//!
//! let aad = b"header";
//! let ct = cipher.encrypt(&nonce, Payload { msg, aad })?;
//! assert_eq!(cipher.decrypt(&nonce, Payload { msg: &ct, aad })?, msg);
//! assert!(cipher.decrypt(&nonce, Payload { msg: &ct, aad: b"other" }).is_err());
//!
//! let cipher = CwcAes256::new_from_slice(&key)?;
//! let mut buffer: Vec<u8> = msg.to_vec();
//! cipher.encrypt_in_place(&nonce, b"", &mut buffer)?;
//! cipher.decrypt_in_place(&nonce, b"", &mut buffer)?;
//! assert_eq!(&buffer, msg);
//!
//! let mut buf = *b"in place";
//! let tag = cipher.encrypt_inout_detached(&nonce, b"ad", (&mut buf[..]).into())?;
//! cipher.decrypt_inout_detached(&nonce, b"ad", (&mut buf[..]).into(), &tag)?;
//! assert_eq!(&buf, b"in place");
//! # Ok(())
//! # }
//! ```

#[cfg(all(test, target_arch = "x86_64", feature = "std"))]
mod bench;
#[cfg(target_arch = "x86_64")]
mod ctr_hash;
mod fused;
pub mod hash;
#[cfg(feature = "alloc")]
mod online;
#[cfg(feature = "alloc")]
pub use online::CwcEncryptor;

/// Interfaces that give up a property of the safe API, documented on each.
pub mod hazmat {
    #[cfg(feature = "alloc")]
    pub use super::online::CwcDecryptor;

    /// CWC with the paper's tags of any length, 1 to 16 bytes (`U1`..=
    /// `U16`): the safe [`Cwc`](super::Cwc) with the [`Hazmat`] tag policy,
    /// the same type and code. For the paper's vectors and research: a tag
    /// of `t` bytes is forged with probability 2^-8t per try (a 1-byte tag
    /// after about 256 tries), so below 8 bytes it authenticates next to
    /// nothing.
    ///
    /// ```
    /// use blockmodes::{Aes128, cwc::hazmat::Cwc};
    /// use cipher::consts::U1;
    /// let cwc = Cwc::<Aes128, U1>::new_from_slice(&[0; 16])?;
    /// let ct = cwc.encrypt_to_vec(&[0; 11], b"ad", b"msg")?;
    /// assert_eq!(ct.len(), 3 + 1);
    /// assert_eq!(cwc.decrypt_to_vec(&[0; 11], b"ad", &ct)?, b"msg");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub type Cwc<C, T = super::U16> = super::Cwc<C, T, Hazmat>;

    pub use crate::tag::Hazmat;
}

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::marker::PhantomData;

use aead::{AeadCore, AeadInOut, Nonce, Tag, TagPosition, inout::InOutBuf};
use cipher::{
    KeyInit, KeySizeUser,
    array::Array,
    consts::{U11, U16},
};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::arith::gf128::{Block, xor};
use crate::backend::Engine;
use crate::error::{Error, Result};
use crate::oracle::{self, BlockCipher128, ParWork, encrypt_par};
use crate::{Aes128, Aes192, Aes256};
use hash::{CwcHash, HashState, STRIDE_BYTES, check_len};

/// Length of the CWC nonce N in bytes (88 bits).
pub const NONCE_BYTES: usize = 11;

use crate::tag::Safe;
pub use crate::tag::{TagPolicy, TagSize};

/// CWC over the block cipher `C` with tags of `T` bytes: 8 to 16
/// (`U8`..=`U16`, default 16); shorter ones only in [`hazmat::Cwc`].
///
/// Holds the keyed cipher and the CWC-HASH key schedule (K_h and its
/// powers, wiped on drop).
///
/// ```
/// use blockmodes::cwc::Cwc;
/// use blockmodes::Aes192;
/// use cipher::consts::U8;
///
/// let cwc = Cwc::<Aes192, U8>::new_from_slice(&[1; 24])?;
/// let ct = cwc.encrypt_to_vec(&[0; 11], &[], b"abc")?;
/// assert_eq!(ct.len(), 3 + 8);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct Cwc<C, T = U16, P = Safe>
where
    T: TagSize<P>,
    P: TagPolicy,
{
    /// The block cipher, and the engine's AES key (the fused kernels) when
    /// keyed from AES key bytes on a CPU with AES-NI or the ARMv8 AES
    /// instructions (`crate::backend`).
    engine: Engine<C>,
    hash: CwcHash,
    _tag: PhantomData<(T, P)>,
}

/// CWC-AES-128 with 16-byte tags (`Cwc<Aes128, U8>` for 8-byte tags, ...).
pub type CwcAes128 = Cwc<Aes128>;
/// CWC-AES-192 with 16-byte tags.
pub type CwcAes192 = Cwc<Aes192>;
/// CWC-AES-256 with 16-byte tags.
pub type CwcAes256 = Cwc<Aes256>;

impl<C: Clone, T: TagSize<P>, P: TagPolicy> Clone for Cwc<C, T, P> {
    fn clone(&self) -> Self {
        Self {
            engine: self.engine.clone(),
            hash: self.hash.clone(),
            _tag: PhantomData,
        }
    }
}

impl<C, T: TagSize<P>, P: TagPolicy> core::fmt::Debug for Cwc<C, T, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Cwc {{ tag_bytes: {}, .. }}", T::USIZE)
    }
}

/// The intermediate values of one CWC-MAC computation, named as in the
/// paper's appendix D (a hazmat view for checking an implementation against
/// the published vectors; see [`Cwc::mac_trace`]). Wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct MacTrace {
    /// "HASH KEY": `tostr(K_h, 128)`. Secret.
    pub hash_key: Block,
    /// "HASH VALUE": `CWC-HASH_K(A, sigma)`.
    pub hash_value: Block,
    /// "AES(HVAL)": `E_K(CWC-HASH_K(A, sigma))`.
    pub aes_hval: Block,
    /// "MAC CTR PT": `10^7 || N || 0^32`.
    pub mac_ctr_pt: Block,
    /// "AES(MCPT)": `E_K(10^7 || N || 0^32)`.
    pub aes_mcpt: Block,
    /// The full 16-byte tag `aes_hval xor aes_mcpt` (the tag is its first T bytes).
    pub tag: Block,
}

impl core::fmt::Debug for MacTrace {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MacTrace").finish_non_exhaustive()
    }
}

/// `10^7 || N || 0^32` as a big-endian integer: add `i` for counter block i.
fn counter_base(nonce: &[u8]) -> Result<u128> {
    if nonce.len() != NONCE_BYTES {
        return Err(Error::InvalidNonceLength {
            expected: NONCE_BYTES,
            got: nonce.len(),
        });
    }
    // From the nonce's bytes in place, with no block assembled on the stack
    // (a 16-byte load of a block just written piecewise waits for the
    // stores: the fused path takes the integer straight into registers).
    let mut head = [0u8; 8];
    head.copy_from_slice(&nonce[..8]); // N[0..8]
    let tail =
        u128::from(nonce[8]) << 48 | u128::from(nonce[9]) << 40 | u128::from(nonce[10]) << 32;
    Ok(0x80 << 120 | u128::from(u64::from_be_bytes(head)) << 56 | tail)
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> Cwc<C, T, P> {
    /// CWC over an already keyed block cipher; derives K_h (one block-cipher
    /// call) and its powers.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// use cipher::KeyInit;
    /// let cwc = CwcAes128::from_cipher(blockmodes::Aes128::new(&[0; 16].into()));
    /// # let _ = cwc;
    /// ```
    pub fn from_cipher(cipher: C) -> Self {
        let hash = CwcHash::from_cipher(&cipher);
        Self {
            engine: Engine::from_cipher(cipher),
            hash,
            _tag: PhantomData,
        }
    }

    /// Key setup from key bytes and the cipher keyed with them: as
    /// [`from_cipher`](Self::from_cipher), plus the fused path where the
    /// cipher is AES and the CPU runs it (`crate::backend`); K_h then comes
    /// from the fused key's `E_K(110^126)`.
    fn from_key(cipher: C, key: &[u8]) -> Self {
        let engine = Engine::from_key(cipher, key);
        let mut z = engine.encrypt_be(u128::from_be_bytes(hash::HASH_KEY_INPUT));
        let hash = CwcHash::from_key_block(&z);
        z.zeroize();
        Self {
            engine,
            hash,
            _tag: PhantomData,
        }
    }

    /// The fused kernels, if the engine has the AES key.
    #[inline(always)]
    fn fused(&self) -> Option<fused::Fused<'_>> {
        self.engine.aes().map(fused::Fused::new)
    }

    /// CWC keyed from a byte slice: [`Error::InvalidKeyLength`] when the
    /// cipher does not take a key of that length.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// assert!(CwcAes128::new_from_slice(&[0; 16]).is_ok());
    /// assert!(CwcAes128::new_from_slice(&[0; 15]).is_err());
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        Ok(Self::from_key(oracle::cipher_from_key(key)?, key))
    }

    #[cfg(feature = "alloc")]
    /// `CWC-ENC_K(N, A, M)`: returns `sigma || tau` (|M| + T bytes).
    ///
    /// Errors: nonce not 11 bytes, A or M too long.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let key: [u8; 16] = core::array::from_fn(|i| i as u8);
    /// let cwc = CwcAes128::new_from_slice(&key)?;
    /// let nonce = hex::decode("ffeeddccbbaa9988776655").unwrap();
    /// let ct = cwc.encrypt_to_vec(&nonce, &[], &[0, 1, 2, 3, 4, 5, 6, 7])?;
    /// // the paper's vector #1
    /// assert_eq!(hex::encode(ct), "88b8df0628fd51cc5755dba5099f3f1d60044497de8933a9");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_to_vec(&self, nonce: &[u8], ad: &[u8], msg: &[u8]) -> Result<Vec<u8>> {
        let base = self.check(nonce, ad, msg)?;
        // The fused kernels write sigma straight into the new `Vec`'s
        // capacity (no zero fill first); other ciphers fill a zeroed `Vec`.
        if let Some(f) = self.fused() {
            let mut out = Vec::with_capacity(msg.len() + T::USIZE);
            let mut tag = f.seal_append(&self.hash, base, ad, msg, &mut out);
            out.extend_from_slice(&tag[..T::USIZE]);
            tag.zeroize();
            return Ok(out);
        }
        let mut out = alloc::vec![0u8; msg.len() + T::USIZE];
        let (ct, tag_out) = out.split_at_mut(msg.len());
        let io = InOutBuf::new(msg, ct).map_err(|_| Error::InvalidLength("output buffer"))?;
        let mut tag = self.seal_io(base, ad, io);
        tag_out.copy_from_slice(&tag[..T::USIZE]);
        tag.zeroize();
        Ok(out)
    }

    #[cfg(feature = "alloc")]
    /// `CWC-DEC_K(N, A, C)` on `sigma || tau`: the tag is checked first; only
    /// then is sigma decrypted.
    ///
    /// Errors: [`Error::CiphertextTooShort`] (shorter than the tag),
    /// [`Error::InvalidNonceLength`], [`Error::InputTooLong`],
    /// [`Error::Authentication`] (no plaintext is returned).
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[5; 16])?;
    /// let mut ct = cwc.encrypt_to_vec(&[0; 11], b"ad", b"hello")?;
    /// assert_eq!(cwc.decrypt_to_vec(&[0; 11], b"ad", &ct)?, b"hello");
    /// ct[0] ^= 1;
    /// assert_eq!(cwc.decrypt_to_vec(&[0; 11], b"ad", &ct), Err(blockmodes::Error::Authentication));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_to_vec(&self, nonce: &[u8], ad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        let t = T::USIZE;
        let body_len = ct_and_tag
            .len()
            .checked_sub(t)
            .ok_or(Error::CiphertextTooShort {
                min: t,
                got: ct_and_tag.len(),
            })?;
        let (sigma, tag) = ct_and_tag.split_at(body_len);
        let base = self.check(nonce, ad, sigma)?;
        if let Some(f) = self.fused() {
            // The tag first (over sigma; nothing is decrypted before it
            // verifies), then the plaintext straight into the new `Vec`.
            let mut full = self.mac(base, ad, sigma);
            let ok = crate::tag::tag_matches(&full, tag);
            full.zeroize();
            if !bool::from(ok) {
                return Err(Error::Authentication);
            }
            let mut out = Vec::with_capacity(body_len);
            f.ctr_append(base, 1, sigma, &mut out);
            return Ok(out);
        }
        let _ = base;
        let mut out = alloc::vec![0u8; body_len];
        let io =
            InOutBuf::new(sigma, &mut out).map_err(|_| Error::InvalidLength("output buffer"))?;
        self.decrypt_inout(nonce, ad, io, tag)?;
        Ok(out)
    }

    /// Encrypt `buf` in place (M becomes sigma) and return the tag tau.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[5; 16])?;
    /// let mut buf = *b"some data";
    /// let tag = cwc.encrypt_detached(&[1; 11], b"", &mut buf)?;
    /// cwc.decrypt_detached(&[1; 11], b"", &mut buf, &tag)?;
    /// assert_eq!(&buf, b"some data");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_detached(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<Tag<Self>> {
        self.encrypt_inout(nonce, ad, buf.into())
    }

    /// Check `tag` over sigma in `buf`, then decrypt `buf` in place. When the
    /// tag is wrong `buf` is wiped (all zero) and [`Error::Authentication`]
    /// returned; [`Error::InvalidTagLength`] when `tag` is not T bytes.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[5; 16])?;
    /// let mut buf = *b"some data";
    /// let mut tag = cwc.encrypt_detached(&[1; 11], b"", &mut buf)?;
    /// tag[3] ^= 0x10;
    /// assert!(cwc.decrypt_detached(&[1; 11], b"", &mut buf, &tag).is_err());
    /// assert_eq!(buf, [0; 9]); // wiped
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_detached(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        self.decrypt_inout(nonce, ad, buf.into(), tag)
    }

    /// As [`Cwc::encrypt_detached`], from the input half of
    /// `buf` to its output half (which may be the same memory; if not, the
    /// input is first copied to the output and processed there).
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// use aead::inout::InOutBuf;
    /// let cwc = CwcAes128::new_from_slice(&[5; 16])?;
    /// let msg = *b"some data";
    /// let mut ct = [0u8; 9];
    /// let tag = cwc.encrypt_inout(&[1; 11], b"", InOutBuf::new(&msg, &mut ct).unwrap())?;
    /// let mut pt = [0u8; 9];
    /// cwc.decrypt_inout(&[1; 11], b"", InOutBuf::new(&ct, &mut pt).unwrap(), &tag)?;
    /// assert_eq!(pt, msg);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_inout(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
    ) -> Result<Tag<Self>> {
        let base = self.check(nonce, ad, buf.get_in())?;
        let mut full = self.seal_io(base, ad, buf);
        let tag = Array::try_from(&full[..T::USIZE]).map_err(|_| Error::InvalidParameter("tag"))?;
        full.zeroize();
        Ok(tag)
    }

    /// As [`Cwc::decrypt_detached`], from the input half of `buf`
    /// to its output half (sigma is first copied there if they differ; it is
    /// hashed and checked before anything is decrypted); on a wrong tag the
    /// output half is wiped.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// use aead::inout::InOutBuf;
    /// let cwc = CwcAes128::new_from_slice(&[5; 16])?;
    /// let mut ct = *b"some data";
    /// let tag = cwc.encrypt_detached(&[1; 11], b"", &mut ct)?;
    /// let mut out = [0xaa; 9];
    /// let bad = cwc.decrypt_inout(&[1; 11], b"!", InOutBuf::new(&ct, &mut out).unwrap(), &tag);
    /// assert!(bad.is_err());
    /// assert_eq!(out, [0; 9]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_inout(
        &self,
        nonce: &[u8],
        ad: &[u8],
        mut buf: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> Result<()> {
        if tag.len() != T::USIZE {
            return Err(Error::InvalidTagLength {
                min: T::USIZE,
                max: T::USIZE,
                got: tag.len(),
            });
        }
        let base = self.check(nonce, ad, buf.get_in())?;
        // The tag first: sigma hashed and tau compared before any keystream
        // touches the output.
        let mut full = self.mac(base, ad, buf.get_in());
        let ok = crate::tag::tag_matches(&full, tag);
        full.zeroize();
        if !bool::from(ok) {
            buf.get_out().zeroize();
            return Err(Error::Authentication);
        }
        self.ctr_io(base, 1, buf);
        Ok(())
    }

    /// Hazmat: `tostr(K_h, 128)`, the secret hash key (the vectors' "HASH KEY").
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let key: [u8; 16] = core::array::from_fn(|i| i as u8);
    /// let cwc = CwcAes128::new_from_slice(&key)?;
    /// assert_eq!(hex::encode(cwc.hash_key()), "34ae6a6fe9517894acccbb9ebae7208c");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn hash_key(&self) -> Block {
        self.hash.key_block()
    }

    /// The same CWC with its hash forced onto the portable path
    /// ([`CwcHash::portable`]): for tests and benchmark comparisons; the
    /// output is the same.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[3; 16])?;
    /// let ct = cwc.encrypt_to_vec(&[0; 11], b"A", b"message")?;
    /// let portable = cwc.with_portable_hash();
    /// assert!(!portable.hasher().uses_ifma());
    /// assert_eq!(portable.encrypt_to_vec(&[0; 11], b"A", b"message")?, ct);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn with_portable_hash(self) -> Self {
        Self {
            engine: self.engine,
            hash: self.hash.portable(),
            _tag: PhantomData,
        }
    }

    /// Hazmat: the CWC-HASH instance under this key's K_h.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[0; 16])?;
    /// let h = cwc.hasher().hash(b"A", b"sigma")?;
    /// assert_eq!(h, cwc.mac_trace(&[0; 11], b"A", b"sigma")?.hash_value);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn hasher(&self) -> &CwcHash {
        &self.hash
    }

    /// Hazmat: every intermediate value of `CWC-MAC_K(N, A, sigma)` (the
    /// paper's appendix D prints them), for checking against the vectors.
    /// Two block-cipher calls.
    ///
    /// ```
    /// use blockmodes::cwc::CwcAes128;
    /// let cwc = CwcAes128::new_from_slice(&[0; 16])?;
    /// let ct = cwc.encrypt_to_vec(&[2; 11], b"A", b"M")?;
    /// let t = cwc.mac_trace(&[2; 11], b"A", &ct[..1])?;
    /// assert_eq!(&t.tag[..], &ct[1..]);
    /// assert_eq!(t.mac_ctr_pt[0], 0x80);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac_trace(&self, nonce: &[u8], ad: &[u8], sigma: &[u8]) -> Result<MacTrace> {
        let base = self.check(nonce, ad, sigma)?;
        let hash_value = self.hash.hash(ad, sigma)?;
        let mac_ctr_pt = base.to_be_bytes();
        let aes_hval = self.encrypt_block(&hash_value);
        let aes_mcpt = self.encrypt_block(&mac_ctr_pt);
        Ok(MacTrace {
            hash_key: self.hash_key(),
            hash_value,
            aes_hval,
            mac_ctr_pt,
            aes_mcpt,
            tag: xor(&aes_hval, &aes_mcpt),
        })
    }

    /// Check the nonce and the lengths of A and M (or sigma); return the
    /// counter base `10^7 || N || 0^32`.
    fn check(&self, nonce: &[u8], ad: &[u8], msg: &[u8]) -> Result<u128> {
        let base = counter_base(nonce)?;
        check_len(ad)?;
        check_len(msg)?;
        Ok(base)
    }

    /// `E_K(block)`, on the fused kernels where the key has them.
    fn encrypt_block(&self, block: &Block) -> Block {
        self.engine.encrypt_be(u128::from_be_bytes(*block))
    }

    /// `E_K` of both blocks (one cipher call on the generic path).
    #[cfg(feature = "alloc")]
    fn encrypt_pair(&self, pair: &mut [Block; 2]) {
        self.engine.ecb_encrypt(pair);
    }

    /// CWC-CTR and CWC-MAC together: `io`'s output becomes sigma (M from its
    /// input); returns the full 16-byte tau. Lengths already checked.
    fn seal_io(&self, base: u128, ad: &[u8], io: InOutBuf<'_, '_, u8>) -> Block {
        if let Some(f) = self.fused() {
            return f.seal(&self.hash, base, ad, io);
        }
        self.seal(base, ad, io.into_out_with_copied_in())
    }

    /// CWC-CTR from counter `first` (at least 1): `io`'s output = its input
    /// xor the keystream.
    fn ctr_io(&self, base: u128, first: usize, io: InOutBuf<'_, '_, u8>) {
        if let Some(f) = self.fused() {
            return f.ctr(base, first as u64, io);
        }
        self.ctr(base, first, io.into_out_with_copied_in());
    }

    /// CWC-CTR and CWC-MAC together, in place: `buf` goes from M to sigma;
    /// returns the full 16-byte tau. Lengths already checked. (The generic
    /// path.)
    fn seal(&self, base: u128, ad: &[u8], buf: &mut [u8]) -> Block {
        let mut st = HashState::default();
        self.hash.absorb_padded(&mut st, ad);
        // Counters 0 (the MAC block) ..= alpha in segments of SEGMENT_BLOCKS
        // counters; after each segment, the whole hash strides of sigma
        // written so far are hashed while they are in the first-level cache.
        let mut mac_pad = [0u8; 16];
        let (mut counter, mut done, mut hashed) = (0usize, 0usize, 0usize);
        loop {
            let data_blocks = SEGMENT_BLOCKS - usize::from(counter == 0);
            let end = buf.len().min(done + 16 * data_blocks);
            let pad = self.ctr(base, counter, &mut buf[done..end]);
            if counter == 0 {
                mac_pad = pad;
            }
            (counter, done) = (counter + SEGMENT_BLOCKS, end);
            let stride_end = hashed + (done - hashed) / STRIDE_BYTES * STRIDE_BYTES;
            self.hash.absorb_chunks(&mut st, &buf[hashed..stride_end]);
            hashed = stride_end;
            if done == buf.len() {
                break;
            }
        }
        self.hash.absorb_padded(&mut st, &buf[hashed..]);
        let mut hv = self.hash.finish(st, ad.len(), buf.len());
        let mut r = self.engine.encrypt_block(&hv);
        let tau = xor(&r, &mac_pad);
        hv.zeroize();
        r.zeroize();
        mac_pad.zeroize();
        tau
    }

    /// CWC-MAC over sigma: the full 16-byte tau, with `E_K(CWC-HASH)` and
    /// `E_K(10^7 || N || 0^32)` in one cipher call. Lengths already checked.
    fn mac(&self, base: u128, ad: &[u8], sigma: &[u8]) -> Block {
        if let Some(f) = self.fused() {
            return f.mac(&self.hash, base, ad, sigma);
        }
        let mut st = HashState::default();
        self.hash.absorb_padded(&mut st, ad);
        self.hash.absorb_padded(&mut st, sigma);
        let mut hv = self.hash.finish(st, ad.len(), sigma.len());
        let mut pair = [hv, base.to_be_bytes()];
        self.engine.ecb_encrypt(&mut pair);
        let tau = xor(&pair[0], &pair[1]);
        hv.zeroize();
        pair.zeroize();
        tau
    }

    /// `buf ^= keystream` of counters `first, first + 1, ...`; with
    /// `first == 0` block 0's output is the MAC pad (returned), not
    /// keystream (else the returned block is all zero).
    fn ctr(&self, base: u128, first: usize, buf: &mut [u8]) -> Block {
        let blocks = buf.len().div_ceil(16) + usize::from(first == 0);
        let mut work = CtrWork {
            prefix: base,
            first,
            mac_block: first == 0,
            data: buf,
            mac_pad: [0; 16],
        };
        encrypt_par(self.engine.cipher(), blocks, &mut work);
        work.mac_pad
    }
}

/// Counters per CTR segment of `Cwc::seal` (16 KiB of keystream): a
/// multiple of the parallel backend's batch (64 blocks), small enough that
/// the segment's ciphertext is still in the first-level cache when it is
/// hashed right after.
///
/// Measured on the AVX-512 machine (AES-128, 16 KiB messages, best of
/// several runs): hashing inside the cipher's batches, as each batch is
/// written, 0.33 cycles/byte (the hash call in the middle of the cipher's
/// code costs it its registers); segments of 128 / 256 / 512 / 1024
/// counters: 0.34 / 0.31 / 0.30 / 0.28 (each segment costs the cipher's and
/// the hash's set-up once).
const SEGMENT_BLOCKS: usize = 1024;

/// The CTR batches of one run of counters: counter blocks in, keystream
/// XORed into the data out.
struct CtrWork<'a> {
    /// `10^7 || N || 0^32` as a big-endian integer.
    prefix: u128,
    /// The counter of block 0 of the run.
    first: usize,
    /// Block 0 of the run is counter 0, the MAC pad, not keystream.
    mac_block: bool,
    data: &'a mut [u8],
    mac_pad: Block,
}

impl ParWork for CtrWork<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        // Counter c = aligned + i with aligned a multiple of 64 and i < 64:
        // 10^7 || N || tostr(c, 32) = (10^7 || N || tostr(aligned, 32)) xor
        // (0^96 || tostr(i, 32)): a constant first half and one 64-bit XOR
        // from the table per block (vectorized by the compiler).
        let c0 = self.first + start;
        let aligned = c0 & !(COUNTER_TABLE - 1);
        let offset = c0 - aligned;
        let head = blocks.len().min(COUNTER_TABLE - offset);
        let pc = (self.prefix | aligned as u128).to_be_bytes();
        let (pc_hi, pc_lo) = pc.split_at(8);
        let pc_lo = u64::from_ne_bytes(pc_lo.try_into().unwrap_or_default());
        for (b, i) in blocks[..head].iter_mut().zip(&COUNTERS[offset..]) {
            // the first 8 bytes are the same for every block of the batch
            let (hi, lo) = b.split_at_mut(8);
            hi.copy_from_slice(pc_hi);
            lo.copy_from_slice(&(pc_lo ^ i).to_ne_bytes());
        }
        for (j, b) in blocks.iter_mut().enumerate().skip(head) {
            *b = (self.prefix + (c0 + j) as u128).to_be_bytes();
        }
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        let (keystream, first_block) = match (self.mac_block, start, blocks.split_first()) {
            (true, 0, Some((pad, rest))) => {
                self.mac_pad = *pad;
                (rest, 0)
            }
            (true, _, _) => (blocks, start - 1),
            (false, _, _) => (blocks, start),
        };
        let from = first_block * 16;
        let to = self.data.len().min(from + keystream.len() * 16);
        xor_keystream(&mut self.data[from..to], keystream);
    }
}

/// Entries of [`COUNTERS`].
const COUNTER_TABLE: usize = 64;

/// The last 8 bytes of `0^96 || tostr(i, 32)`, in native byte order.
static COUNTERS: [u64; COUNTER_TABLE] = {
    let mut t = [0u64; COUNTER_TABLE];
    let mut i = 0;
    while i < COUNTER_TABLE {
        t[i] = u64::from_ne_bytes((i as u64).to_be_bytes());
        i += 1;
    }
    t
};

/// `data ^= keystream` (the keystream at least as long as the data): a
/// plain byte loop the compiler vectorizes to the widest registers the
/// cipher backend's code is compiled for (this runs inlined in it).
#[inline(always)]
fn xor_keystream(data: &mut [u8], keystream: &[Block]) {
    for (x, k) in data.iter_mut().zip(keystream.as_flattened()) {
        *x ^= k;
    }
}

impl<C: KeySizeUser, T: TagSize<P>, P: TagPolicy> KeySizeUser for Cwc<C, T, P> {
    type KeySize = C::KeySize;
}

impl<C: BlockCipher128 + KeyInit, T: TagSize<P>, P: TagPolicy> KeyInit for Cwc<C, T, P> {
    fn new(key: &cipher::Key<Self>) -> Self {
        Self::from_key(C::new(key), key)
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> AeadCore for Cwc<C, T, P> {
    type NonceSize = U11;
    type TagSize = T;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

/// The `aead` 0.6 interface ([`Cwc::encrypt_inout`], [`Cwc::decrypt_inout`]
/// behind it): input and output buffers may be distinct or the same. Decryption
/// checks the tag before decrypting and wipes the output buffer on failure.
/// Every error is `aead::Error` (the inherent methods give typed errors).
impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> AeadInOut for Cwc<C, T, P> {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        self.encrypt_inout(nonce, associated_data, buffer)
            .map_err(|_| aead::Error)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        self.decrypt_inout(nonce, associated_data, buffer, tag)
            .map_err(|_| aead::Error)
    }
}
