//! # XECB$-MAC and XECB-MAC (Gligor & Donescu, 2000, sections 5 and 6)
//!
//! The eXtended ECB MACs: every padded block is randomized by its position,
//! enciphered independently, and the results are xored:
//!
//! `y_i = f(x_i + i * r0)` (mod 2^128), `w = r0 xor y_1 xor ... xor y_n`.
//!
//! * XECB$-MAC ([`XecbMac`]): r0 random per message (by default from the
//!   thread's OS-seeded generator, `blockmodes::rng`; see [`crate::xcbc`]); the
//!   tag is `y0 || w` (32 bytes) with `y0 = f(r0)`; the verifier recovers
//!   `r0 = f^-1(y0)`.
//! * XECB-MAC ([`XecbMacStatefulSigner`] signs, [`XecbMacStateful`] verifies):
//!   `r0 = f(ctr)` with the signer's message counter; the tag is `ctr || w`.
//!   The signer owns its [`CounterState`] with the same rules and the same
//!   **persistence duty** as the stateful XCBC senders (see [`crate::xcbc`]).
//!
//! These are **MACs: integrity only, no privacy** (the message is not
//! encrypted). Messages are always 10*-padded (n >= 1), so the empty message
//! is one padding block (with n = 0 the stateless tag would be `w = r0`,
//! which allows a forgery). One key K (f = E_K); `new_from_slice` takes K.
//!
//! The paper's properties (section 6) are all here:
//!
//! * **parallel**: every block-cipher call is independent; one-shot calls
//!   batch them through the cipher's multi-block backend (for the `aes`
//!   crate's AES keyed from bytes on a CPU with AES-NI, one call of the
//!   fused AES kernels: `x_i + i r0` in registers, w summed while the
//!   rounds run; `crate::aesni`), and
//!   [`XecbMac::mac_par`] / [`XecbMac::verify_tag_par`] / `update_par` spread a
//!   large input over the rayon thread pool (w is a xor of per-block terms at
//!   absolute positions: each range is computed apart and the parts xored);
//! * **streaming**: [`XecbSigner::update`] / [`XecbSigner::finalize`] and
//!   [`XecbVerifier`] give the same tag for any split of the input;
//! * **incremental replace** (the paper's
//!   `w' = w xor f(x_i + i r0) xor f(x'_i + i r0)`, two cipher calls) is
//!   **only** in [`hazmat::ReplaceBlock`]: it keeps r0 (or the counter), and
//!   tags that share r0 combine by xor into forgeries (shown there). The
//!   safe way to update a tag is to MAC the new message under a fresh r0;
//! * **out-of-order verification**: [`XecbOutOfOrder`] accepts blocks with
//!   their index in any order (duplicates refused) and checks once all are in.
//!
//! Tags are compared in constant time; a failed verification is
//! [`Error::Authentication`], whatever differed.
//!
//! ```
//! use blockmodes::xecb::XecbMac;
//! use blockmodes::Aes128;
//! let mac = XecbMac::<Aes128>::new_from_slice(&[0x11u8; 16])?;
//! let tag = mac.mac(b"pay 100 to bob")?;
//! mac.verify_tag(b"pay 100 to bob", &tag)?;
//! assert!(mac.verify_tag(b"pay 900 to bob", &tag).is_err());
//! # Ok::<(), blockmodes::Error>(())
//! ```

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use cipher::KeyInit;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::arith::gf128::{Block, xor, xor_in_place};
use crate::arith::modular::{to_block, to_int};
use crate::error::{Error, Result};
use crate::gligor_donescu::keys::r0_from_rng;
#[cfg(feature = "rayon")]
use crate::gligor_donescu::offsets::BATCH;
use crate::gligor_donescu::offsets::{Offsets, wipe, xor_into};
use crate::gligor_donescu::padding::last_block;
use crate::gligor_donescu::xcbc::CounterState;
use crate::oracle::{BlockCipher128, BlockCipher128Dec, ParWork, encrypt_par};

mod incremental;
mod kernel;
#[cfg(feature = "alloc")]
pub use incremental::XecbOutOfOrder;
#[allow(unused_imports)]
use incremental::*;
pub use incremental::{XecbSigner, XecbVerifier};
#[allow(unused_imports)]
use kernel::*;
pub use kernel::{PARALLEL_THRESHOLD, TAG_LEN, Tag};

/// XECB$-MAC: the stateless MAC (r0 random per message). Signs and verifies.
/// **Integrity only.**
///
/// ```
/// use blockmodes::xecb::XecbMac;
/// use blockmodes::Aes256;
/// let mac = XecbMac::<Aes256>::new_from_slice(&[3u8; 32])?;
/// let t1 = mac.mac(b"m")?;
/// let t2 = mac.mac(b"m")?;
/// assert_ne!(t1, t2); // fresh r0 each time
/// mac.verify_tag(b"m", &t1)?;
/// mac.verify_tag(b"m", &t2)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
///
/// The in-place tag update keeps r0 and is therefore not here: it is
/// [`hazmat::ReplaceBlock`], which must be imported on purpose.
///
/// ```compile_fail
/// use blockmodes::xecb::XecbMac;
/// let mac = XecbMac::<blockmodes::Aes128>::new_from_slice(&[3u8; 16]).unwrap();
/// let tag = mac.mac(&[0u8; 32]).unwrap();
/// let _ = mac.replace_block(&tag, 32, 1, &[0; 16], &[1; 16]); // no such safe method
/// ```
#[derive(Clone)]
pub struct XecbMac<C> {
    f: Prf<C>,
}

impl<C> core::fmt::Debug for XecbMac<C> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("XecbMac").finish_non_exhaustive()
    }
}

/// XECB-MAC, verifier side (and key holder): verification of the stateful
/// MAC (`ctr || w`, `r0 = f(ctr)`) needs no state. The signer is
/// [`XecbMacStatefulSigner`]. **Integrity only.**
///
/// ```
/// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
/// use blockmodes::Aes128;
/// let key = [5u8; 16];
/// let mut signer = XecbMacStatefulSigner::<Aes128>::new_from_slice(&key)?;
/// let tag = signer.mac(b"msg")?;
/// assert_eq!(tag[..16], [0xff; 16]); // ctr = -1
/// XecbMacStateful::<Aes128>::new_from_slice(&key)?.verify_tag(b"msg", &tag)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct XecbMacStateful<C> {
    f: Prf<C>,
}

impl<C> core::fmt::Debug for XecbMacStateful<C> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("XecbMacStateful").finish_non_exhaustive()
    }
}

/// XECB-MAC, signer side: owns its message counter (one value per
/// message), is not `Clone`, exports and imports its [`CounterState`] and
/// refuses to wrap. See [`crate::xcbc`] for the persistence duty.
///
/// ```
/// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
/// use blockmodes::xcbc::CounterState;
/// use blockmodes::Aes128;
/// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[5u8; 16])?;
/// let mut s = XecbMacStatefulSigner::from_state(keys.clone(), CounterState::starting_at(&[0; 16]));
/// let tag = s.mac(b"x")?;
/// assert_eq!(tag[..16], [0; 16]);
/// keys.verify_tag(b"x", &tag)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
///
/// It cannot be cloned (a copy would reuse counter values):
///
/// ```compile_fail
/// fn clone_me<T: Clone>() {}
/// clone_me::<blockmodes::xecb::XecbMacStatefulSigner<blockmodes::Aes128>>();
/// ```
pub struct XecbMacStatefulSigner<C> {
    keys: XecbMacStateful<C>,
    counter: CounterState,
}

impl<C> core::fmt::Debug for XecbMacStatefulSigner<C> {
    /// Prints no key material: only the fields shown.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("XecbMacStatefulSigner")
            .field("counter", &self.counter)
            .finish_non_exhaustive()
    }
}

/// `w' = w xor f(x_i + i r0) xor f(x'_i + i r0)` for a whole message block.
fn replace<C: BlockCipher128>(
    f: &Prf<C>,
    r0: u128,
    tag: &Tag,
    msg_len: usize,
    index: u64,
    old: &Block,
    new: &Block,
) -> Result<Tag> {
    let full = (msg_len / 16) as u64;
    if index == 0 || index > full {
        return Err(Error::InvalidParameter(
            "replace_block: index must name a whole message block (1 ..= msg_len / 16)",
        ));
    }
    let mut w = [0u8; 16];
    w.copy_from_slice(&tag[16..]);
    let mut offsets = Offsets::new(r0);
    absorb(
        f,
        &mut offsets,
        index as u128,
        core::slice::from_ref(old),
        &mut w,
    );
    absorb(
        f,
        &mut offsets,
        index as u128,
        core::slice::from_ref(new),
        &mut w,
    );
    let mut out = *tag;
    out[16..].copy_from_slice(&w);
    w.zeroize();
    Ok(out)
}

// ---------------------------------------------------------------------------
// XECB$-MAC

impl<C: BlockCipher128> XecbMac<C> {
    /// From the keyed cipher f = E_K.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use cipher::KeyInit;
    /// let mac = XecbMac::from_cipher(aes::Aes128::new(&[0u8; 16].into()));
    /// assert_eq!(mac.mac(b"")?.len(), 32);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_cipher(f: C) -> Self {
        Self {
            f: Prf::from_cipher(f),
        }
    }

    /// From the key K ([`Error::InvalidKeyLength`] if the cipher rejects its length).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// assert!(XecbMac::<Aes128>::new_from_slice(&[0u8; 15]).is_err());
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        let f = crate::oracle::cipher_from_key(key)?;
        Ok(Self {
            f: Prf::from_key(f, key),
        })
    }

    /// MAC `msg` under a fresh random r0: the tag `y0 || w`.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[1u8; 1000])?;
    /// mac.verify_tag(&[1u8; 1000], &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    #[cfg(feature = "getrandom")]
    pub fn mac(&self, msg: &[u8]) -> Result<Tag> {
        self.mac_with_rng(&mut crate::gligor_donescu::keys::DefaultRng::default(), msg)
    }

    /// [`mac`](Self::mac) with r0 drawn from the caller's cryptographic `rng`.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac_with_rng(&mut getrandom::SysRng, b"m")?;
    /// mac.verify_tag(b"m", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Tag> {
        let mut r0 = r0_from_rng(rng)?;
        let tag = sign_with_r0(&self.f, r0, msg);
        r0.zeroize();
        Ok(tag)
    }

    /// A streaming signer under a fresh random r0.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut s = mac.signer()?;
    /// for chunk in [&b"a"[..], b"bc", b""] {
    ///     s.update(chunk);
    /// }
    /// mac.verify_tag(b"abc", &s.finalize())?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    #[cfg(feature = "getrandom")]
    pub fn signer(&self) -> Result<XecbSigner<'_, C>> {
        self.signer_with_rng(&mut crate::gligor_donescu::keys::DefaultRng::default())
    }

    /// [`signer`](Self::signer) with r0 drawn from the caller's `rng`.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut s = mac.signer_with_rng(&mut getrandom::SysRng)?;
    /// s.update(b"abc");
    /// mac.verify_tag(b"abc", &s.finalize())?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn signer_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<XecbSigner<'_, C>> {
        let mut r0 = r0_from_rng(rng)?;
        let s = self.signer_with_r0(r0);
        r0.zeroize();
        Ok(s)
    }

    fn signer_with_r0(&self, r0: u128) -> XecbSigner<'_, C> {
        let y0 = self.f.encrypt_int(r0);
        XecbSigner {
            acc: Accumulator::new(&self.f, y0, r0),
        }
    }

    #[cfg(all(feature = "rayon", feature = "getrandom"))]
    /// [`mac`](Self::mac) spread over the rayon thread pool for inputs of
    /// [`PARALLEL_THRESHOLD`] bytes or more.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let big = vec![3u8; 1 << 20];
    /// let tag = mac.mac_par(&big)?;
    /// mac.verify_tag(&big, &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac_par(&self, msg: &[u8]) -> Result<Tag>
    where
        C: Sync,
    {
        let mut s = self.signer()?;
        s.update_par(msg);
        Ok(s.finalize())
    }
}

/// What XECB$-MAC and XECB-MAC share once a tag is in hand: both recover
/// r0 from the tag's header (`r0 = f^-1(y0)`, or `r0 = f(ctr)`) and then
/// verify, update or replace alike.
trait TagHeader<C: BlockCipher128> {
    /// The keyed cipher f.
    fn f(&self) -> &Prf<C>;
    /// r0 from the tag's header.
    fn r0_of(&self, tag: &Tag) -> u128;

    /// Parse `tag`, recover r0, run `then` with f, r0 and the tag; r0 is
    /// wiped after.
    fn with_r0<'a, T>(
        &'a self,
        tag: &[u8],
        then: impl FnOnce(&'a Prf<C>, u128, &Tag) -> Result<T>,
    ) -> Result<T>
    where
        C: 'a,
    {
        let tag = parse_tag(tag)?;
        let mut r0 = self.r0_of(&tag);
        let res = then(self.f(), r0, &tag);
        r0.zeroize();
        res
    }
}

impl<C: BlockCipher128Dec> TagHeader<C> for XecbMac<C> {
    fn f(&self) -> &Prf<C> {
        &self.f
    }
    /// r0 = f^-1(y0).
    fn r0_of(&self, tag: &Tag) -> u128 {
        to_int(&self.f.decrypt(&header(tag)))
    }
}

impl<C: BlockCipher128> TagHeader<C> for XecbMacStateful<C> {
    fn f(&self) -> &Prf<C> {
        &self.f
    }
    /// r0 = f(ctr).
    fn r0_of(&self, tag: &Tag) -> u128 {
        to_int(&self.f.encrypt(&header(tag)))
    }
}

impl<C: BlockCipher128Dec> XecbMac<C> {
    /// Verify `tag` (32 bytes: `y0 || w`) for `msg`.
    /// [`Error::InvalidTagLength`] or [`Error::Authentication`].
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut tag = mac.mac(b"data")?;
    /// tag[31] ^= 1;
    /// assert_eq!(mac.verify_tag(b"data", &tag), Err(blockmodes::Error::Authentication));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify_tag(&self, msg: &[u8], tag: &[u8]) -> Result<()> {
        self.with_r0(tag, |f, r0, tag| verify_one_shot(f, r0, msg, tag))
    }

    #[cfg(feature = "rayon")]
    /// [`verify_tag`](Self::verify_tag) spread over the rayon thread pool for inputs
    /// of [`PARALLEL_THRESHOLD`] bytes or more.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(b"small")?;
    /// mac.verify_tag_par(b"small", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify_tag_par(&self, msg: &[u8], tag: &[u8]) -> Result<()>
    where
        C: Sync,
    {
        let mut v = self.verifier(tag)?;
        v.update_par(msg);
        v.verify()
    }

    /// A streaming verifier for `tag`.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// assert!(mac.verifier(&[0u8; 31]).is_err()); // tags are 32 bytes
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verifier(&self, tag: &[u8]) -> Result<XecbVerifier<'_, C>> {
        self.with_r0(tag, |f, r0, expected| {
            Ok(XecbVerifier {
                acc: Accumulator::new(f, header(expected), r0),
                expected: *expected,
            })
        })
    }

    #[cfg(feature = "alloc")]
    /// Out-of-order verification of `tag` for a message of `msg_len` bytes.
    /// [`Error::InputTooLong`] if the bookkeeping (one bit per block) cannot
    /// be allocated.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[9u8; 32])?;
    /// let mut v = mac.out_of_order(&tag, 32)?;
    /// v.add_range(2, &[9u8; 16])?; // block 2, and the padding block 3
    /// v.add_block(1, &[9u8; 16])?;
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn out_of_order(&self, tag: &[u8], msg_len: usize) -> Result<XecbOutOfOrder<'_, C>> {
        self.with_r0(tag, |f, r0, expected| {
            XecbOutOfOrder::new(f, *expected, r0, msg_len)
        })
    }
}

// ---------------------------------------------------------------------------
// XECB-MAC

impl<C: BlockCipher128> XecbMacStateful<C> {
    /// From the keyed cipher f = E_K.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStateful;
    /// use cipher::KeyInit;
    /// let keys = XecbMacStateful::from_cipher(aes::Aes128::new(&[0u8; 16].into()));
    /// assert!(keys.verify_tag(b"", &[0u8; 32]).is_err());
    /// ```
    pub fn from_cipher(f: C) -> Self {
        Self {
            f: Prf::from_cipher(f),
        }
    }

    /// From the key K.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStateful;
    /// use blockmodes::Aes192;
    /// assert!(XecbMacStateful::<Aes192>::new_from_slice(&[0u8; 24]).is_ok());
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        let f = crate::oracle::cipher_from_key(key)?;
        Ok(Self {
            f: Prf::from_key(f, key),
        })
    }

    fn signer_with_counter(&self, ctr: u128) -> XecbSigner<'_, C> {
        let ctr = to_block(ctr);
        let mut r0 = to_int(&self.f.encrypt(&ctr));
        let acc = Accumulator::new(&self.f, ctr, r0);
        r0.zeroize();
        XecbSigner { acc }
    }

    /// Verify `tag` (32 bytes: `ctr || w`) for `msg`.
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac(b"m")?;
    /// keys.verify_tag(b"m", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify_tag(&self, msg: &[u8], tag: &[u8]) -> Result<()> {
        self.with_r0(tag, |f, r0, tag| verify_one_shot(f, r0, msg, tag))
    }

    #[cfg(feature = "rayon")]
    /// [`verify_tag`](Self::verify_tag) spread over the rayon thread pool for large inputs.
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let big = vec![1u8; 300_000];
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac_par(&big)?;
    /// keys.verify_tag_par(&big, &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify_tag_par(&self, msg: &[u8], tag: &[u8]) -> Result<()>
    where
        C: Sync,
    {
        let mut v = self.verifier(tag)?;
        v.update_par(msg);
        v.verify()
    }

    /// A streaming verifier for `tag`.
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac(b"abcdef")?;
    /// let mut v = keys.verifier(&tag)?;
    /// v.update(b"abc");
    /// v.update(b"def");
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verifier(&self, tag: &[u8]) -> Result<XecbVerifier<'_, C>> {
        self.with_r0(tag, |f, r0, expected| {
            Ok(XecbVerifier {
                acc: Accumulator::new(f, header(expected), r0),
                expected: *expected,
            })
        })
    }

    #[cfg(feature = "alloc")]
    /// Out-of-order verification of `tag` for a message of `msg_len` bytes;
    /// see [`XecbOutOfOrder`].
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = XecbMacStatefulSigner::new(keys.clone()).mac(&[2u8; 20])?;
    /// let mut v = keys.out_of_order(&tag, 20)?;
    /// v.add_block(2, &[2u8; 4])?;
    /// v.add_block(1, &[2u8; 16])?;
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn out_of_order(&self, tag: &[u8], msg_len: usize) -> Result<XecbOutOfOrder<'_, C>> {
        self.with_r0(tag, |f, r0, expected| {
            XecbOutOfOrder::new(f, *expected, r0, msg_len)
        })
    }
}

impl<C: BlockCipher128> XecbMacStatefulSigner<C> {
    /// A signer for a **fresh** key, its counter at 2^128 - 1.
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::Aes128;
    /// let s = XecbMacStatefulSigner::new(XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?);
    /// assert_eq!(s.counter_state().next_counter(), Some([0xff; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(keys: XecbMacStateful<C>) -> Self {
        Self::from_state(keys, CounterState::new())
    }

    /// A signer resuming from a saved [`CounterState`].
    ///
    /// ```
    /// use blockmodes::xecb::{XecbMacStateful, XecbMacStatefulSigner};
    /// use blockmodes::xcbc::CounterState;
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let s = XecbMacStatefulSigner::from_state(keys, CounterState::starting_at(&[0; 16]));
    /// assert_eq!(s.counter_state().next_counter(), Some([0; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_state(keys: XecbMacStateful<C>, counter: CounterState) -> Self {
        Self { keys, counter }
    }

    /// A signer for a **fresh** key K, its counter at 2^128 - 1.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// assert!(XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16]).is_ok());
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        XecbMacStateful::new_from_slice(key).map(Self::new)
    }

    /// The counter state to persist (see [`crate::xcbc`]).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// s.mac(b"")?;
    /// assert_eq!(s.counter_state().next_counter(), Some([0; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn counter_state(&self) -> CounterState {
        self.counter
    }

    /// The verifier side of this signer's key.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = s.mac(b"m")?;
    /// s.receiver().verify_tag(b"m", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn receiver(&self) -> &XecbMacStateful<C> {
        &self.keys
    }

    /// A streaming signer under the next counter value (taken now: the
    /// counter advances even if the signer is dropped unfinished).
    /// [`Error::CounterExhausted`] once every value has been used.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut st = s.signer()?;
    /// st.update(b"part 1, ");
    /// st.update(b"part 2");
    /// let tag = st.finalize();
    /// s.receiver().verify_tag(b"part 1, part 2", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn signer(&mut self) -> Result<XecbSigner<'_, C>> {
        let ctr = self.counter.take(1)?;
        Ok(self.keys.signer_with_counter(ctr))
    }

    /// MAC `msg` under the next counter value: the tag `ctr || w`.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// assert_ne!(s.mac(b"m")?, s.mac(b"m")?);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac(&mut self, msg: &[u8]) -> Result<Tag> {
        let ctr = self.counter.take(1)?;
        Ok(sign_with_counter(&self.keys.f, ctr, msg))
    }

    #[cfg(feature = "rayon")]
    /// [`mac`](Self::mac) spread over the rayon thread pool for large inputs.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMacStatefulSigner;
    /// use blockmodes::Aes128;
    /// let mut s = XecbMacStatefulSigner::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = s.mac_par(&[0u8; 100])?;
    /// s.receiver().verify_tag(&[0u8; 100], &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac_par(&mut self, msg: &[u8]) -> Result<Tag>
    where
        C: Sync,
    {
        let mut s = self.signer()?;
        s.update_par(msg);
        Ok(s.finalize())
    }
}

/// **Hazardous:** signing with a caller-chosen r0 or counter value, for test
/// vectors and protocols that manage the counter themselves. The caller
/// must never use an r0, or a counter value, twice under one key (and a
/// stateless r0 must be uniformly random and secret); see
/// [`crate::xcbc::hazmat`].
///
/// ```
/// use blockmodes::xecb::hazmat::{SignWithCounter, SignWithR0};
/// use blockmodes::xecb::{XecbMac, XecbMacStateful};
/// use blockmodes::Aes128;
/// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
/// let tag = mac.sign_with_r0(&[1; 16], b"v");
/// mac.verify_tag(b"v", &tag)?;
/// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
/// let tag = keys.sign_with_counter(&[0; 16], b"v");
/// keys.verify_tag(b"v", &tag)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub mod hazmat {
    use super::*;

    /// **Hazardous:** XECB$-MAC with a caller-chosen r0.
    ///
    /// ```
    /// use blockmodes::xecb::hazmat::SignWithR0;
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// assert_eq!(mac.sign_with_r0(&[1; 16], b"a"), mac.sign_with_r0(&[1; 16], b"a"));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub trait SignWithR0 {
        /// The tag `y0 || w` of `msg` with the given r0.
        fn sign_with_r0(&self, r0: &Block, msg: &[u8]) -> Tag;
    }

    /// **Hazardous:** XECB-MAC with an explicit counter value, without a
    /// signer object that tracks it.
    ///
    /// ```
    /// use blockmodes::xecb::hazmat::SignWithCounter;
    /// use blockmodes::xecb::XecbMacStateful;
    /// use blockmodes::Aes128;
    /// let keys = XecbMacStateful::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// assert_eq!(keys.sign_with_counter(&[3; 16], b"a")[..16], [3; 16]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub trait SignWithCounter {
        /// The tag `ctr || w` of `msg` under counter value `ctr`.
        fn sign_with_counter(&self, ctr: &Block, msg: &[u8]) -> Tag;
    }

    /// **Hazardous:** the paper's incremental replacement (section 6,
    /// property 3): from the tag of a message, the tag of the message whose
    /// whole block `index` (1-based, `1 ..= msg_len / 16`: not the padded
    /// last block) changes from `old` to `new`:
    /// `w' = w xor f(x_i + i r0) xor f(x'_i + i r0)`, same header (y0 or
    /// ctr). Two block-cipher calls, whatever the message length. The old
    /// tag is not verified.
    ///
    /// **Why it is hazardous:** the new tag keeps r0 (for XECB-MAC, it
    /// reuses the counter value), and `w` is sent in clear. XECB's w is a
    /// xor of per-block terms, so tags that share r0 combine: from the tags
    /// of (a, b), (a', b) and (a', b') — one signed, two updated — anyone
    /// gets `w(a, b') = w(a, b) xor w(a', b) xor w(a', b')`, a valid tag of
    /// (a, b') that nobody signed:
    ///
    /// ```
    /// use blockmodes::xecb::hazmat::ReplaceBlock;
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[7u8; 16])?;
    /// let (a, a2, b, b2) = ([1u8; 16], [2u8; 16], [3u8; 16], [4u8; 16]);
    /// let msg = |x: &[u8; 16], y: &[u8; 16]| [&x[..], &y[..]].concat();
    /// let t_ab = mac.mac(&msg(&a, &b))?;
    /// let t_a2b = mac.replace_block(&t_ab, 32, 1, &a, &a2)?; // (a', b)
    /// let t_a2b2 = mac.replace_block(&t_a2b, 32, 2, &b, &b2)?; // (a', b')
    /// // The attacker, from the three tags alone:
    /// let mut forged = t_ab;
    /// for k in 16..32 {
    ///     forged[k] ^= t_a2b[k] ^ t_a2b2[k];
    /// }
    /// mac.verify_tag(&msg(&a, &b2), &forged)?; // (a, b') was never signed
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    ///
    /// Use it only where the versions of one tag are never all seen by one
    /// party, or where that forgery does not matter.
    pub trait ReplaceBlock {
        /// The tag of the message with block `index` changed from `old` to
        /// `new`, under the same r0 (or counter) as `tag`.
        fn replace_block(
            &self,
            tag: &[u8],
            msg_len: usize,
            index: u64,
            old: &Block,
            new: &Block,
        ) -> Result<Tag>;
    }

    impl<C: BlockCipher128Dec> ReplaceBlock for XecbMac<C> {
        fn replace_block(
            &self,
            tag: &[u8],
            msg_len: usize,
            index: u64,
            old: &Block,
            new: &Block,
        ) -> Result<Tag> {
            self.with_r0(tag, |f, r0, tag| {
                replace(f, r0, tag, msg_len, index, old, new)
            })
        }
    }

    impl<C: BlockCipher128> ReplaceBlock for XecbMacStateful<C> {
        fn replace_block(
            &self,
            tag: &[u8],
            msg_len: usize,
            index: u64,
            old: &Block,
            new: &Block,
        ) -> Result<Tag> {
            self.with_r0(tag, |f, r0, tag| {
                replace(f, r0, tag, msg_len, index, old, new)
            })
        }
    }

    impl<C: BlockCipher128> SignWithR0 for XecbMac<C> {
        fn sign_with_r0(&self, r0: &Block, msg: &[u8]) -> Tag {
            super::sign_with_r0(&self.f, to_int(r0), msg)
        }
    }

    impl<C: BlockCipher128> SignWithCounter for XecbMacStateful<C> {
        fn sign_with_counter(&self, ctr: &Block, msg: &[u8]) -> Tag {
            super::sign_with_counter(&self.f, to_int(ctr), msg)
        }
    }
}
