//! # XCBC$, XCBC and their XOR-check forms (Gligor & Donescu, 2000, section 3)
//!
//! The eXtended CBC modes hide CBC's chaining value: `z_i = f(x_i xor z_{i-1})`
//! is never sent; the ciphertext is `y_i = z_i + i * r0` (mod 2^128) with a
//! secret per-message r0, and the initial chaining value is the secret
//! `z0 = f'(r0)`. Appending the check block `x_{n+1} = z0 xor x_1 xor ... xor x_n`
//! (the paper's g(x), "-XOR") turns encryption into an integrity mode with
//! one block-cipher call per block. Blocks are big-endian 128-bit integers;
//! the arithmetic comes from [`crate::arith::modular`].
//!
//! ## Which mode gives what
//!
//! | paper | sender | receiver | `kat` scheme | gives |
//! |---|---|---|---|---|
//! | XCBC$-XOR | [`XcbcXor`] | [`XcbcXor`] | `xcbc-xor-aes` | **privacy and integrity** |
//! | XCBC-XOR | [`XcbcXorStatefulEncryptor`] | [`XcbcXorStateful`] | `xcbc-xor-ctr-aes` | **privacy and integrity** |
//! | pXCBC$ | [`PxcbcXor`](crate::pxcbc::PxcbcXor) | same | `pxcbc-xor-aes` | **privacy and integrity** |
//! | pXCBC | [`PxcbcXorStatefulEncryptor`](crate::pxcbc::PxcbcXorStatefulEncryptor) | [`PxcbcXorStateful`](crate::pxcbc::PxcbcXorStateful) | `pxcbc-xor-ctr-aes` | **privacy and integrity** |
//! | XECB$-MAC | [`XecbMac`](crate::xecb::XecbMac) | same | `xecb-mac-aes` | **integrity only** (a MAC: no privacy) |
//! | XECB-MAC | [`XecbMacStatefulSigner`](crate::xecb::XecbMacStatefulSigner) | [`XecbMacStateful`](crate::xecb::XecbMacStateful) | `xecb-mac-ctr-aes` | **integrity only** (a MAC: no privacy) |
//! | XCBC$ | [`Xcbc`] | [`Xcbc`] | `xcbc-aes` | **privacy only: no integrity** |
//! | XCBC | [`XcbcStatefulEncryptor`] | [`XcbcStateful`] | `xcbc-ctr-aes` | **privacy only: no integrity** |
//!
//! * The -XOR modes reject modified ciphertexts (flipped bits, swapped,
//!   dropped, duplicated or added blocks or segments) except with the small
//!   probability bounded in the paper (section 7); decryption returns
//!   [`Error::Authentication`], wipes the output buffer and never releases
//!   plaintext of a rejected ciphertext. They protect the message only: there
//!   is no associated data, and nothing stops a valid ciphertext from being
//!   replayed (the stateful receiver is stateless by design).
//! * **XCBC$ and XCBC without the check block give no integrity at all**:
//!   every modified ciphertext whose last block happens to decrypt to valid
//!   padding decrypts to garbage without any error. They exist to reproduce
//!   the paper's measurements and as building blocks; do not use them where an
//!   attacker can modify ciphertexts.
//! * Like CBC, the security bounds are birthday-type in the number of blocks
//!   enciphered under one key: rekey long before 2^64 blocks.
//!
//! ## Stateless (XCBC$) and stateful (XCBC) senders
//!
//! The stateless modes draw a fresh r0 for every message and send
//! `y0 = f(r0)`. Their default calls (`encrypt`, `encrypt_into`, and XECB$'s
//! `mac`, `signer`) take it, with the `std` and `getrandom` features, from
//! `blockmodes::rng::ThreadRng`: a per-thread AES-256-CTR generator seeded from
//! the operating system, reseeded every 64 KiB of output and after every
//! fork (a child process never repeats its parent's r0), about 3.7 ns per r0
//! instead of a system call; with `getrandom` but without `std`, from the
//! operating system on every call. The `_with_rng` calls take any
//! `rand_core` cryptographic RNG. A failing source is [`Error::Rng`]. The stateful
//! modes send a counter `ctr` in clear and use `r0 = f(ctr)`; the sender
//! object ([`XcbcXorStatefulEncryptor`], ...) owns its [`CounterState`]: it
//! starts at 2^128 - 1, advances by one per message, refuses to wrap
//! ([`Error::CounterExhausted`]) and is not `Clone`. Decryption needs only the
//! key ([`XcbcXorStateful`]). The counter is sent in clear and authenticated only
//! as the source of r0: a protocol that gives counters a meaning (message
//! numbers, chunk indices) must check on receipt that the counter is the one
//! it expects; the library does not (see [`hazmat`] for chunked files).
//!
//! **The counter's persistence duty:** a counter value used twice under one
//! key repeats r0 and z0 and voids both privacy and integrity. A sender that
//! outlives its process must save [`XcbcXorStatefulEncryptor::counter_state`]
//! durably *before* its ciphertexts leave the machine, and resume from the
//! saved state ([`XcbcXorStatefulEncryptor::from_state`]) — never from a fresh
//! counter — for as long as the key lives. One key, one sender.
//!
//! ## Keys
//!
//! By default the paper's two-key form: f = E_K and f' = E_K' with
//! independent K and K'; `new_from_slice` takes **K || K'**, two keys of the
//! cipher's key size (32, 48 or 64 bytes for AES-128/192/256). The paper's
//! one-key form (z0 = f(r0 + 1), no K') is available through
//! `new_from_slice_one_key` / `from_cipher_one_key`; its ciphertexts differ.
//!
//! ## Padding
//!
//! Always 10* padding: a message of `len` bytes becomes `n = len / 16 + 1`
//! blocks. XCBC$-XOR ciphertexts are `y0 y1 .. y_{n+1}`, i.e. `(n + 2) * 16`
//! bytes; XCBC$ ones `(n + 1) * 16`.
//!
//! ## Speed
//!
//! Encryption is one serial chain, like CBC: one backend call for the whole
//! chain, one single-block encryption per block, the two additions off the
//! critical path. Decryption is parallel and goes through the cipher's
//! multi-block backend, in chunks of 256 blocks: one pass computes the
//! chunk's `z_i = y_i - i r0`, the cipher deciphers them, one pass xors in
//! `z_{i-1}` and sums the check (portable code). With
//! the `aes` crate's AES keyed from bytes on a CPU with AES-NI, decryption
//! is instead one call of the fused AES kernels (`crate::aesni`): the
//! offsets subtracted in registers, `z_{i-1}` folded into the last round
//! key, the sum taken while the rounds run. For parallel *encryption* use
//! pXCBC.
//!
//! ## Test-vector API
//!
//! Choosing r0 or the counter by hand is possible only through the traits of
//! [`hazmat`].
//!
//! ```
//! use blockmodes::xcbc::XcbcXor;
//! use blockmodes::Aes128;
//! let key = [0x42u8; 32]; // K || K'
//! let x = XcbcXor::<Aes128>::new_from_slice(&key)?;
//! let ct = x.encrypt(b"attack at dawn")?;
//! assert_eq!(ct.len(), 48);
//! assert_eq!(x.decrypt(&ct)?, b"attack at dawn");
//! let mut bad = ct.clone();
//! bad[20] ^= 1;
//! assert_eq!(x.decrypt(&bad), Err(blockmodes::Error::Authentication));
//! # Ok::<(), blockmodes::Error>(())
//! ```

#[cfg(feature = "alloc")]
use alloc::{vec, vec::Vec};
use cipher::KeyInit;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::arith::gf128::Block;
use crate::arith::modular::{to_block, to_int};
use crate::error::{Error, Result};
use crate::oracle::{BlockCipher128, BlockCipher128Dec};

pub mod hazmat;

pub use super::counter::CounterState;
use super::{chain, keys, offsets, padding};

use keys::Keys;
use padding::{encoded_len, padded_blocks, unpad};

/// XCBC$ or XCBC$-XOR (stateless: r0 random per message, `y0 = f(r0)` in
/// front of the ciphertext). Use the aliases [`XcbcXor`] (with the check
/// block: privacy and integrity) and [`Xcbc`] (privacy only).
///
/// ```
/// use blockmodes::xcbc::{StatelessXcbc, XcbcXor};
/// use blockmodes::Aes128;
/// let x: XcbcXor<Aes128> = StatelessXcbc::new_from_slice(&[1u8; 32])?;
/// assert_eq!(x.decrypt(&x.encrypt(b"")?)?, b"");
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct StatelessXcbc<C, const CHECK: bool> {
    keys: Keys<C>,
}

impl<C, const CHECK: bool> core::fmt::Debug for StatelessXcbc<C, CHECK> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(if CHECK { "XcbcXor" } else { "Xcbc" })
            .finish_non_exhaustive()
    }
}

/// XCBC$-XOR: stateless XCBC with the XOR check block. **Privacy and
/// integrity.** Ciphertext: `y0 || y_1 .. y_{n+1}`, `len / 16 * 16 + 48` bytes.
///
/// ```
/// use blockmodes::xcbc::XcbcXor;
/// use blockmodes::Aes128;
/// let x = XcbcXor::<Aes128>::new_from_slice(&[7u8; 32])?; // K || K'
/// let ct = x.encrypt(b"hello")?;
/// assert_eq!(x.decrypt(&ct)?, b"hello");
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub type XcbcXor<C> = StatelessXcbc<C, true>;

/// XCBC$: stateless XCBC without a check block. **Privacy only, no
/// integrity**: modified ciphertexts decrypt to garbage without an error
/// whenever the padding happens to be valid. Use [`XcbcXor`] instead unless
/// you reproduce the paper's measurements.
///
/// ```
/// use blockmodes::xcbc::Xcbc;
/// use blockmodes::Aes128;
/// let x = Xcbc::<Aes128>::new_from_slice(&[7u8; 32])?;
/// let ct = x.encrypt(b"hello")?;
/// assert_eq!(ct.len(), 32);
/// assert_eq!(x.decrypt(&ct)?, b"hello");
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub type Xcbc<C> = StatelessXcbc<C, false>;

/// The receiver of XCBC or XCBC-XOR (stateful sender, `ctr` in front of the
/// ciphertext, `r0 = f(ctr)`): decryption needs no state. Use the aliases
/// [`XcbcXorStateful`] and [`XcbcStateful`]; the sender is [`XcbcEncryptor`].
///
/// ```
/// use blockmodes::xcbc::{StatefulXcbc, XcbcXorStateful, XcbcXorStatefulEncryptor};
/// use blockmodes::Aes128;
/// let rx: XcbcXorStateful<Aes128> = StatefulXcbc::new_from_slice(&[3u8; 32])?;
/// let mut tx = XcbcXorStatefulEncryptor::new(rx.clone());
/// assert_eq!(rx.decrypt(&tx.encrypt(b"m")?)?, b"m");
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct StatefulXcbc<C, const CHECK: bool> {
    keys: Keys<C>,
}

impl<C, const CHECK: bool> core::fmt::Debug for StatefulXcbc<C, CHECK> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(if CHECK {
            "XcbcXorStateful"
        } else {
            "XcbcStateful"
        })
        .finish_non_exhaustive()
    }
}

/// The receiver (decryption) of XCBC-XOR, the stateful mode with the XOR
/// check. **Privacy and integrity.**
///
/// ```
/// use blockmodes::xcbc::{XcbcXorStateful, XcbcXorStatefulEncryptor, CounterState};
/// use blockmodes::Aes128;
/// let key = [9u8; 32];
/// let mut tx = XcbcXorStatefulEncryptor::<Aes128>::new_from_slice(&key)?;
/// let ct = tx.encrypt(b"first")?;
/// assert_eq!(ct[..16], [0xff; 16]); // ctr = -1 in clear
/// let rx = XcbcXorStateful::<Aes128>::new_from_slice(&key)?;
/// assert_eq!(rx.decrypt(&ct)?, b"first");
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub type XcbcXorStateful<C> = StatefulXcbc<C, true>;

/// The receiver (decryption) of XCBC, the stateful mode without a check
/// block. **Privacy only, no integrity.**
///
/// ```
/// use blockmodes::xcbc::{XcbcStateful, XcbcStatefulEncryptor};
/// use blockmodes::Aes128;
/// let mut tx = XcbcStatefulEncryptor::<Aes128>::new_from_slice(&[9u8; 32])?;
/// let rx = XcbcStateful::<Aes128>::new_from_slice(&[9u8; 32])?;
/// assert_eq!(rx.decrypt(&tx.encrypt(b"x")?)?, b"x");
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub type XcbcStateful<C> = StatefulXcbc<C, false>;

/// The sender of XCBC or XCBC-XOR: owns its message counter, is not `Clone`
/// (two copies would reuse counter values), can export and import its
/// [`CounterState`], and refuses to wrap. See the module docs for the
/// persistence duty. Use the aliases [`XcbcXorStatefulEncryptor`] and
/// [`XcbcStatefulEncryptor`].
///
/// ```
/// use blockmodes::xcbc::{XcbcEncryptor, XcbcXorStateful, CounterState};
/// use blockmodes::Aes128;
/// let rx = XcbcXorStateful::<Aes128>::new_from_slice(&[5u8; 32])?;
/// let mut tx: XcbcEncryptor<Aes128, true> = XcbcEncryptor::new(rx.clone());
/// tx.encrypt(b"one")?;
/// let saved = tx.counter_state().to_bytes(); // persist this
/// let mut tx = XcbcEncryptor::from_state(rx, CounterState::from_bytes(&saved)?);
/// assert_eq!(tx.encrypt(b"two")?[..16], [0; 16]); // -1, then 0
/// # Ok::<(), blockmodes::Error>(())
/// ```
///
/// It cannot be cloned (a copy would reuse counter values):
///
/// ```compile_fail
/// fn clone_me<T: Clone>() {}
/// clone_me::<blockmodes::xcbc::XcbcXorStatefulEncryptor<blockmodes::Aes128>>();
/// ```
pub struct XcbcEncryptor<C, const CHECK: bool> {
    keys: StatefulXcbc<C, CHECK>,
    counter: CounterState,
}

impl<C, const CHECK: bool> core::fmt::Debug for XcbcEncryptor<C, CHECK> {
    /// Prints no key material: only the fields shown.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("XcbcEncryptor")
            .field("counter", &self.counter)
            .finish_non_exhaustive()
    }
}

/// The sender of XCBC-XOR (stateful, with the XOR check): **privacy and
/// integrity**. Owns its counter; see the module docs for the persistence duty.
///
/// ```
/// use blockmodes::xcbc::XcbcXorStatefulEncryptor;
/// use blockmodes::Aes128;
/// let mut tx = XcbcXorStatefulEncryptor::<Aes128>::new_from_slice(&[1u8; 32])?;
/// let a = tx.encrypt(b"same")?;
/// let b = tx.encrypt(b"same")?;
/// assert_ne!(a, b);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub type XcbcXorStatefulEncryptor<C> = XcbcEncryptor<C, true>;

/// The sender of XCBC (stateful, no check block): **privacy only, no
/// integrity**. Owns its counter; see the module docs for the persistence duty.
///
/// ```
/// use blockmodes::xcbc::XcbcStatefulEncryptor;
/// use blockmodes::Aes128;
/// let mut tx = XcbcStatefulEncryptor::<Aes128>::new_from_slice(&[1u8; 32])?;
/// assert_eq!(tx.encrypt(&[0u8; 16])?.len(), 48);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub type XcbcStatefulEncryptor<C> = XcbcEncryptor<C, false>;

/// Shared constructors of the XCBC key holders.
macro_rules! xcbc_constructors {
    ($ty:ident) => {
        impl<C: BlockCipher128, const CHECK: bool> $ty<C, CHECK> {
            /// Two-key form from the keyed ciphers f = E_K and f' = E_K'
            /// (independent keys).
            ///
            /// ```
            #[doc = concat!("type X = blockmodes::xcbc::", stringify!($ty), "<blockmodes::Aes128, true>; // XCBC$-XOR / XCBC-XOR")]
            /// use cipher::KeyInit;
            /// let (k, k2) = (blockmodes::Aes128::new(&[1; 16].into()), blockmodes::Aes128::new(&[2; 16].into()));
            /// let x = X::from_ciphers(k, k2);
            /// assert!(x.is_two_key());
            /// assert!(x.decrypt(&[0u8; 64]).is_err()); // not a ciphertext under these keys
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn from_ciphers(f: C, f_prime: C) -> Self {
                Self {
                    keys: Keys::two(f, f_prime),
                }
            }

            /// One-key form (z0 = f(r0 + 1)) from the keyed cipher f = E_K.
            ///
            /// ```
            #[doc = concat!("type X = blockmodes::xcbc::", stringify!($ty), "<blockmodes::Aes128, true>; // XCBC$-XOR / XCBC-XOR")]
            /// use cipher::KeyInit;
            /// let x = X::from_cipher_one_key(blockmodes::Aes128::new(&[1; 16].into()));
            /// assert!(!x.is_two_key());
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn from_cipher_one_key(f: C) -> Self {
                Self { keys: Keys::one(f) }
            }

            /// Two-key form from **K || K'**: two keys of the cipher's key
            /// size (32, 48 or 64 bytes for AES-128/192/256).
            /// [`Error::InvalidKeyLength`] otherwise.
            ///
            /// ```
            #[doc = concat!("type X = blockmodes::xcbc::", stringify!($ty), "<blockmodes::Aes128, true>; // XCBC$-XOR / XCBC-XOR")]
            /// use blockmodes::Error;
            /// assert!(X::new_from_slice(&[7; 32])?.is_two_key()); // K || K', AES-128
            /// assert!(matches!(
            ///     X::new_from_slice(&[7; 16]),
            ///     Err(Error::InvalidKeyLength { expected: 32, got: 16 })
            /// ));
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn new_from_slice(key: &[u8]) -> Result<Self>
            where
                C: KeyInit,
            {
                Keys::from_slice_two(key).map(|keys| Self { keys })
            }

            /// One-key form (z0 = f(r0 + 1)) from K alone.
            /// [`Error::InvalidKeyLength`] for a bad key length.
            ///
            /// ```
            #[doc = concat!("type X = blockmodes::xcbc::", stringify!($ty), "<blockmodes::Aes128, true>; // XCBC$-XOR / XCBC-XOR")]
            /// assert!(!X::new_from_slice_one_key(&[7; 16])?.is_two_key());
            /// assert!(X::new_from_slice_one_key(&[7; 32]).is_err()); // one AES-128 key
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn new_from_slice_one_key(key: &[u8]) -> Result<Self>
            where
                C: KeyInit,
            {
                Keys::from_slice_one(key).map(|keys| Self { keys })
            }

            /// `true` for the two-key form (f, f'), `false` for the one-key form.
            ///
            /// ```
            #[doc = concat!("type X = blockmodes::xcbc::", stringify!($ty), "<blockmodes::Aes128, true>; // XCBC$-XOR / XCBC-XOR")]
            /// assert!(X::new_from_slice(&[7; 32])?.is_two_key());
            /// assert!(!X::new_from_slice_one_key(&[7; 16])?.is_two_key());
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn is_two_key(&self) -> bool {
                self.keys.is_two_key()
            }

            /// The ciphertext length for a `msg_len`-byte message:
            /// `(msg_len / 16 + 2) * 16`, plus 16 with the check block.
            /// [`Error::InputTooLong`] if that overflows.
            ///
            /// ```
            #[doc = concat!("type X = blockmodes::xcbc::", stringify!($ty), "<blockmodes::Aes128, true>; // XCBC$-XOR / XCBC-XOR")]
            /// let x = X::new_from_slice(&[7; 32])?;
            /// assert_eq!(x.ciphertext_len(0)?, 48); // (0 / 16 + 2) * 16, plus the check block
            /// assert_eq!(x.ciphertext_len(16)?, 64);
            /// assert!(x.ciphertext_len(usize::MAX).is_err());
            /// # Ok::<(), blockmodes::Error>(())
            /// ```
            pub fn ciphertext_len(&self, msg_len: usize) -> Result<usize> {
                encoded_len(msg_len, 1 + CHECK as usize)
            }
        }
    };
}
xcbc_constructors!(StatelessXcbc);
xcbc_constructors!(StatefulXcbc);

impl<C: BlockCipher128, const CHECK: bool> StatelessXcbc<C, CHECK> {
    /// Encrypt `msg` under a fresh random r0 into `out` (at least
    /// [`ciphertext_len`](Self::ciphertext_len) bytes); returns the
    /// ciphertext length.
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXor;
    /// use blockmodes::Aes128;
    /// let x = XcbcXor::<Aes128>::new_from_slice(&[2u8; 32])?;
    /// let mut buf = [0u8; 64];
    /// let n = x.encrypt_into(b"0123456789abcdef", &mut buf)?;
    /// assert_eq!(n, 64);
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

    /// [`encrypt_into`](Self::encrypt_into) with r0 drawn from `rng`, a
    /// cryptographic RNG of the caller's (for targets without an operating
    /// system RNG, or without the `getrandom` feature).
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXor;
    /// use blockmodes::Aes128;
    /// let x = XcbcXor::<Aes128>::new_from_slice(&[2u8; 32])?;
    /// let mut buf = [0u8; 64];
    /// let n = x.encrypt_into_with_rng(&mut getrandom::SysRng, b"0123456789abcdef", &mut buf)?;
    /// assert_eq!(x.decrypt_into(&buf[..n], &mut [0u8; 64])?, 16);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_into_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
        out: &mut [u8],
    ) -> Result<usize> {
        let len = self.ciphertext_len(msg.len())?;
        check_out(out, len)?;
        let mut r0 = keys::r0_from_rng(rng)?;
        let n = self.encrypt_with_r0_unchecked(r0, msg, out);
        r0.zeroize();
        Ok(n)
    }

    #[cfg(feature = "alloc")]
    /// Encrypt `msg` under a fresh random r0.
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXor;
    /// use blockmodes::Aes128;
    /// let x = XcbcXor::<Aes128>::new_from_slice(&[2u8; 32])?;
    /// assert_eq!(x.encrypt(&[0u8; 100])?.len(), 7 * 16 + 32);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    #[cfg(feature = "getrandom")]
    pub fn encrypt(&self, msg: &[u8]) -> Result<Vec<u8>> {
        self.encrypt_with_rng(&mut crate::gligor_donescu::keys::DefaultRng::default(), msg)
    }

    /// [`encrypt`](Self::encrypt) with r0 drawn from the caller's `rng`.
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXor;
    /// use blockmodes::Aes128;
    /// let x = XcbcXor::<Aes128>::new_from_slice(&[2u8; 32])?;
    /// let ct = x.encrypt_with_rng(&mut getrandom::SysRng, b"hi")?;
    /// assert_eq!(x.decrypt(&ct)?, b"hi");
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

    /// `y0 = f(r0)`, then the chain; `out` is known to be long enough.
    fn encrypt_with_r0_unchecked(&self, r0: u128, msg: &[u8], out: &mut [u8]) -> usize {
        let y0 = self.keys.f_encrypt_int(r0);
        seal::<C, CHECK>(&self.keys, &y0, r0, msg, out)
    }
}

impl<C: BlockCipher128Dec, const CHECK: bool> StatelessXcbc<C, CHECK> {
    /// Decrypt `ct` into `out` (at least `ct.len() - 16` bytes, or
    /// `ct.len() - 32` with the check block); returns the plaintext length.
    ///
    /// Errors: [`Error::InvalidLength`] (not whole blocks, `out` too short),
    /// [`Error::CiphertextTooShort`], and [`Error::Authentication`] when the
    /// check block or the padding is wrong, in which case `out` is wiped.
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXor;
    /// use blockmodes::Aes128;
    /// let x = XcbcXor::<Aes128>::new_from_slice(&[2u8; 32])?;
    /// let ct = x.encrypt(b"abc")?;
    /// let mut buf = [0u8; 16];
    /// let n = x.decrypt_into(&ct, &mut buf)?;
    /// assert_eq!(&buf[..n], b"abc");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_into(&self, ct: &[u8], out: &mut [u8]) -> Result<usize> {
        let (y0, body) = split_header::<CHECK>(ct, out)?;
        let mut r0 = to_int(&self.keys.f_decrypt(&y0));
        let res = open::<C, CHECK>(&self.keys, r0, body, out);
        r0.zeroize();
        res
    }

    #[cfg(feature = "alloc")]
    /// Decrypt `ct`; see [`decrypt_into`](Self::decrypt_into) for the errors.
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXor;
    /// use blockmodes::Aes128;
    /// let x = XcbcXor::<Aes128>::new_from_slice(&[2u8; 32])?;
    /// assert!(x.decrypt(&[0u8; 48]).is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt(&self, ct: &[u8]) -> Result<Vec<u8>> {
        decrypt_to_vec::<CHECK>(ct, |ct, out| self.decrypt_into(ct, out))
    }
}

impl<C: BlockCipher128, const CHECK: bool> StatefulXcbc<C, CHECK> {
    /// `r0 = f(ctr)`, then the chain; `out` is known to be long enough.
    fn encrypt_with_counter_unchecked(&self, ctr: u128, msg: &[u8], out: &mut [u8]) -> usize {
        let ctr = to_block(ctr);
        let mut r0 = to_int(&self.keys.f_encrypt(&ctr));
        let n = seal::<C, CHECK>(&self.keys, &ctr, r0, msg, out);
        r0.zeroize();
        n
    }
}

impl<C: BlockCipher128Dec, const CHECK: bool> StatefulXcbc<C, CHECK> {
    /// Decrypt `ct` = `ctr || y_1 ..` into `out` (at least `ct.len() - 16`
    /// bytes, or `ct.len() - 32` with the check block); returns the plaintext
    /// length. Errors as for [`StatelessXcbc::decrypt_into`].
    ///
    /// ```
    /// use blockmodes::xcbc::{XcbcXorStateful, XcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let rx = XcbcXorStateful::<Aes128>::new_from_slice(&[4u8; 32])?;
    /// let mut tx = XcbcXorStatefulEncryptor::new(rx.clone());
    /// let ct = tx.encrypt(b"abc")?;
    /// let mut buf = [0u8; 16];
    /// let n = rx.decrypt_into(&ct, &mut buf)?;
    /// assert_eq!(&buf[..n], b"abc");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_into(&self, ct: &[u8], out: &mut [u8]) -> Result<usize> {
        let (ctr, body) = split_header::<CHECK>(ct, out)?;
        let mut r0 = to_int(&self.keys.f_encrypt(&ctr));
        let res = open::<C, CHECK>(&self.keys, r0, body, out);
        r0.zeroize();
        res
    }

    #[cfg(feature = "alloc")]
    /// Decrypt `ct` = `ctr || y_1 ..`; see [`decrypt_into`](Self::decrypt_into).
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXorStateful;
    /// use blockmodes::Aes128;
    /// let rx = XcbcXorStateful::<Aes128>::new_from_slice(&[4u8; 32])?;
    /// assert_eq!(rx.decrypt(&[0u8; 47]), Err(blockmodes::Error::InvalidLength(
    ///     "ciphertext is not a whole number of blocks")));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt(&self, ct: &[u8]) -> Result<Vec<u8>> {
        decrypt_to_vec::<CHECK>(ct, |ct, out| self.decrypt_into(ct, out))
    }
}

impl<C: BlockCipher128, const CHECK: bool> XcbcEncryptor<C, CHECK> {
    /// A sender for a **fresh** key, its counter at 2^128 - 1. Use
    /// [`from_state`](Self::from_state) for a key that has sent before.
    ///
    /// ```
    /// use blockmodes::xcbc::{XcbcXorStateful, XcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let tx = XcbcXorStatefulEncryptor::new(XcbcXorStateful::<Aes128>::new_from_slice(&[0u8; 32])?);
    /// assert_eq!(tx.counter_state().next_counter(), Some([0xff; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(keys: StatefulXcbc<C, CHECK>) -> Self {
        Self::from_state(keys, CounterState::new())
    }

    /// A sender resuming from a saved [`CounterState`].
    ///
    /// ```
    /// use blockmodes::xcbc::{CounterState, XcbcXorStateful, XcbcXorStatefulEncryptor};
    /// use blockmodes::Aes128;
    /// let rx = XcbcXorStateful::<Aes128>::new_from_slice(&[0u8; 32])?;
    /// let tx = XcbcXorStatefulEncryptor::from_state(rx, CounterState::starting_at(&[0; 16]));
    /// assert_eq!(tx.counter_state().next_counter(), Some([0; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_state(keys: StatefulXcbc<C, CHECK>, counter: CounterState) -> Self {
        Self { keys, counter }
    }

    /// A sender for a **fresh** two-key K || K' (see [`StatefulXcbc::new_from_slice`]),
    /// its counter at 2^128 - 1.
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXorStatefulEncryptor;
    /// use blockmodes::Aes256;
    /// assert!(XcbcXorStatefulEncryptor::<Aes256>::new_from_slice(&[0u8; 64]).is_ok());
    /// assert!(XcbcXorStatefulEncryptor::<Aes256>::new_from_slice(&[0u8; 32]).is_err());
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        StatefulXcbc::new_from_slice(key).map(Self::new)
    }

    /// The counter state to persist (see the module docs).
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcStatefulEncryptor;
    /// use blockmodes::Aes128;
    /// let mut tx = XcbcStatefulEncryptor::<Aes128>::new_from_slice(&[0u8; 32])?;
    /// tx.encrypt(b"")?;
    /// assert_eq!(tx.counter_state().next_counter(), Some([0; 16]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn counter_state(&self) -> CounterState {
        self.counter
    }

    /// The stateless receiver side of this sender's key.
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXorStatefulEncryptor;
    /// use blockmodes::Aes128;
    /// let mut tx = XcbcXorStatefulEncryptor::<Aes128>::new_from_slice(&[0u8; 32])?;
    /// let ct = tx.encrypt(b"z")?;
    /// assert_eq!(tx.receiver().decrypt(&ct)?, b"z");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn receiver(&self) -> &StatefulXcbc<C, CHECK> {
        &self.keys
    }

    /// Encrypt `msg` under the next counter value into `out` (at least
    /// [`StatefulXcbc::ciphertext_len`] bytes) and advance the counter;
    /// returns the ciphertext length. [`Error::CounterExhausted`] once every
    /// counter value has been used (the counter is not advanced on any error).
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXorStatefulEncryptor;
    /// use blockmodes::Aes128;
    /// let mut tx = XcbcXorStatefulEncryptor::<Aes128>::new_from_slice(&[0u8; 32])?;
    /// let mut buf = [0u8; 48];
    /// assert_eq!(tx.encrypt_into(b"short", &mut buf)?, 48);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_into(&mut self, msg: &[u8], out: &mut [u8]) -> Result<usize> {
        let len = self.keys.ciphertext_len(msg.len())?;
        check_out(out, len)?;
        let ctr = self.counter.take(1)?;
        Ok(self.keys.encrypt_with_counter_unchecked(ctr, msg, out))
    }

    #[cfg(feature = "alloc")]
    /// Encrypt `msg` under the next counter value and advance the counter.
    ///
    /// ```
    /// use blockmodes::xcbc::XcbcXorStatefulEncryptor;
    /// use blockmodes::Aes128;
    /// let mut tx = XcbcXorStatefulEncryptor::<Aes128>::new_from_slice(&[0u8; 32])?;
    /// assert_eq!(tx.encrypt(b"x")?.len(), 48);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.keys.ciphertext_len(msg.len())?];
        self.encrypt_into(msg, &mut out)?;
        Ok(out)
    }
}

/// `InvalidLength` unless `out` holds `len` bytes.
pub(crate) fn check_out(out: &[u8], len: usize) -> Result<()> {
    if out.len() < len {
        return Err(Error::InvalidLength("output buffer too short"));
    }
    Ok(())
}

/// Header block (y0 or ctr), then the chain over the padded message (and
/// the check block): writes `header || y_1 ..` to `out` and returns its length.
fn seal<C: BlockCipher128, const CHECK: bool>(
    keys: &Keys<C>,
    header: &Block,
    r0: u128,
    msg: &[u8],
    out: &mut [u8],
) -> usize {
    let len = 16 * (padded_blocks(msg.len()) + 1 + CHECK as usize);
    let (head, body) = out[..len].split_at_mut(16);
    head.copy_from_slice(header);
    let mut z0 = keys.z0(r0);
    chain::encrypt::<C, CHECK>(keys, r0, &z0, msg, body);
    z0.zeroize();
    len
}

/// Validate a ciphertext's shape and the output length; split off the header.
fn split_header<'a, const CHECK: bool>(ct: &'a [u8], out: &[u8]) -> Result<(Block, &'a [u8])> {
    if !ct.len().is_multiple_of(16) {
        return Err(Error::InvalidLength(
            "ciphertext is not a whole number of blocks",
        ));
    }
    let min = 16 * (2 + CHECK as usize);
    if ct.len() < min {
        return Err(Error::CiphertextTooShort { min, got: ct.len() });
    }
    check_out(out, ct.len() - 16 * (1 + CHECK as usize))?;
    let (head, body) = ct.split_at(16);
    let mut h = [0u8; 16];
    h.copy_from_slice(head);
    Ok((h, body))
}

/// Decrypt `body` = `y_1 .. y_n (y_{n+1})` with r0; check the check block
/// (constant time), then the padding. On any failure `out` is wiped.
fn open<C: BlockCipher128Dec, const CHECK: bool>(
    keys: &Keys<C>,
    r0: u128,
    body: &[u8],
    out: &mut [u8],
) -> Result<usize> {
    let n = body.len() / 16 - CHECK as usize;
    let out = &mut out[..16 * n];
    let mut z0 = keys.z0(r0);
    // x_{n+1} = f^-1(y_{n+1} - (n + 1) r0) xor z_n must equal z0 xor x_1 .. x_n.
    let (mut sum, mut x_check) = decrypt_chain::<C, CHECK>(keys, r0, &z0, body, out);
    let mut ok = subtle::Choice::from(1);
    if CHECK {
        ok &= (to_int(&sum) ^ to_int(&x_check)).ct_eq(&0);
    }
    wipe_block(&mut z0);
    wipe_block(&mut sum);
    wipe_block(&mut x_check);
    let mut last = [0u8; 16];
    last.copy_from_slice(&out[16 * (n - 1)..]);
    let (pos, valid) = unpad(&last);
    wipe_block(&mut last);
    ok &= valid;
    if !bool::from(ok) {
        out.zeroize();
        return Err(Error::Authentication);
    }
    let len = 16 * (n - 1) + pos;
    out[len..].zeroize();
    Ok(len)
}

/// `chain::decrypt` (`z0 xor x_1 xor ... xor x_n` and `x_{n+1}`), on the
/// fused kernels where f has them: one call, `y_i - i r0` in registers,
/// `z_{i-1}` folded into the last round key, the sum taken while the rounds
/// run, the check block's `x` returned apart.
fn decrypt_chain<C: BlockCipher128Dec, const CHECK: bool>(
    keys: &Keys<C>,
    r0: u128,
    z0: &Block,
    body: &[u8],
    out: &mut [u8],
) -> (Block, Block) {
    if let Some(k) = keys.f.aes() {
        let (ct, _) = body.as_chunks::<16>();
        let (out, _) = out.as_chunks_mut::<16>();
        let mut check = [0u8; 16];
        let sum = k.xcbc_decrypt(r0, 1, z0, ct, out, CHECK.then_some(&mut check));
        return (crate::arith::gf128::xor(&sum, z0), check);
    }
    chain::decrypt::<C, CHECK>(keys.f.cipher(), r0, z0, body, out)
}

/// Wipe one block (a vectorized store, not sixteen single-byte ones).
#[inline(always)]
fn wipe_block(b: &mut Block) {
    offsets::wipe(core::slice::from_mut(b));
}

#[cfg(feature = "alloc")]
/// Allocate the largest possible plaintext, decrypt into it, truncate.
fn decrypt_to_vec<const CHECK: bool>(
    ct: &[u8],
    decrypt_into: impl FnOnce(&[u8], &mut [u8]) -> Result<usize>,
) -> Result<Vec<u8>> {
    let mut out = vec![0u8; ct.len().saturating_sub(16 * (1 + CHECK as usize))];
    let n = decrypt_into(ct, &mut out)?;
    out.truncate(n);
    Ok(out)
}
