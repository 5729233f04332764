//! PMAC, the parallelizable message authentication code of Rogaway and Black
//! (proposal to NIST, April 2001), exactly as its figure 1 defines it, with
//! the BE doubling of `docs/spec/conventions.md` (see also
//! `docs/spec/ocb-pmac.md`).
//!
//! ```text
//! L ← E_K(0^n)                                   (per key: Keys::new)
//! Partition M into M[1] ··· M[m]
//! for i ← 1 to m − 1:  Y[i] ← E_K(M[i] ⊕ γ_i·L)  (SigmaWork, in batches)
//! Σ ← Y[1] ⊕ ··· ⊕ Y[m−1] ⊕ pad(M[m])
//! X[m] ← Σ ⊕ L·x^−1 if |M[m]| = n, else Σ
//! Tag ← E_K(X[m]) [first τ bits]
//! ```
//!
//! What this module offers on top of the one-shot [`Pmac::mac`] /
//! [`Pmac::verify_tag`]:
//! * streaming ([`Pmac::update`] / [`Pmac::finalize`]) where any split of the
//!   input gives the same tag, and the `digest` [`Mac`](digest::Mac) traits;
//! * the incremental state of the paper's section 4.1 ([`PmacIncremental`]):
//!   replace a block, append, truncate, in time proportional to the change;
//! * a multi-threaded [`Pmac::mac_par`] for large inputs, and the
//!   partial Σ of a block range ([`Pmac::partial_sigma`], [`PartialSigma`],
//!   [`Pmac::finish`]) for callers that split a large input themselves.
//!
//! **Speed.** Offsets are never chained block by block in the hot loop. The
//! Gray code is linear over GF(2) (`γ_i = i ⊕ (i >> 1)`), so for a block index
//! `i = 64·g + j` (`j < 64`), `γ_i·L = γ_{64g}·L ⊕ γ_j·L`: a per-key table of
//! the 64 values `γ_j·L` plus one group base per 64 blocks gives every
//! offset, and the whitening `M[i] ⊕ γ_{64g}·L ⊕ γ_j·L` of a batch is one
//! plain loop the compiler vectorizes. Batches go to the cipher's widest
//! parallel call through `oracle::encrypt_par`.

use core::fmt;
use core::marker::PhantomData;

use digest::array::Array;
use digest::consts::U16;
use digest::{FixedOutput, FixedOutputReset, KeyInit, MacMarker, OutputSizeUser, Reset, Update};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::arith::gf128::{Block, GrayBatch, GrayOffsets, half_be, xor, xor_in_place};
use crate::backend::{Engine, GrayView};
use crate::engine::GrayTable;
use crate::error::{Error, Result};
use crate::oracle::{self, BlockCipher128, ParWork};

mod fused;

use crate::tag::Safe;
pub use crate::tag::{Tag, TagPolicy, TagSize};

mod incremental;
mod kernel;
mod traits;
#[allow(unused_imports)]
use incremental::*;
pub use incremental::{PartialSigma, PmacIncremental};

/// Interfaces that give up a property of the safe API, documented on each.
pub mod hazmat {
    /// PMAC with the paper's tags of any length, 1 to 16 bytes (`U1`..=
    /// `U16`): the safe [`Pmac`](super::Pmac) with the [`Hazmat`] tag
    /// policy, the same type and code. For the paper's vectors and
    /// research: a tag of `t` bytes is forged with probability 2^-8t per
    /// try (a 1-byte tag after about 256 tries), so below 8 bytes it
    /// authenticates next to nothing.
    ///
    /// ```
    /// use blockmodes::{Aes128, pmac::hazmat::Pmac};
    /// use cipher::consts::U4;
    /// let key: Vec<u8> = (0u8..16).collect();
    /// let pmac = Pmac::<Aes128, U4>::new_from_slice(&key)?;
    /// // the first 4 bytes of PMAC-AES-128-3B (vectors/pmac-aes.json)
    /// assert_eq!(hex::encode(pmac.mac(&[0, 1, 2])), "256ba519");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub type Pmac<C, T = super::U16> = super::Pmac<C, T, Hazmat>;

    pub use crate::tag::Hazmat;
}
#[allow(unused_imports)]
use kernel::*;
#[allow(unused_imports)]
use traits::*;

/// PMAC with AES-128 and 16-byte tags (other tag sizes: `Pmac<Aes128, U8>`, ...).
pub type PmacAes128 = Pmac<crate::Aes128>;
/// PMAC with AES-192 and 16-byte tags.
pub type PmacAes192 = Pmac<crate::Aes192>;
/// PMAC with AES-256 and 16-byte tags.
pub type PmacAes256 = Pmac<crate::Aes256>;

/// Inputs of at least this many bytes are spread over threads by
/// [`Pmac::mac_par`]; below it, threads cost more than they save.
///
/// Measured with `blockmodes bench --modes pmac,pmac-parallel` (threshold
/// set to 0) on the 2-core build machine while other builds ran: the
/// parallel path lost at 128 and 256 KiB (0.6x and 0.7x of one thread,
/// median of 5 runs) and won from 512 KiB on (1.1x; up to 2x when the
/// second core was free).
pub const PARALLEL_THRESHOLD: usize = 512 * 1024;

/// The shortest run of blocks a thread takes in [`Pmac::mac_par`] (8 KiB:
/// the runs start at `remaining / 4` and shrink to this where the threads
/// meet, `crate::par`), and the alignment of every run's start (64 blocks:
/// a group of the kernels).
#[cfg(feature = "rayon")]
const PARALLEL_MIN_BLOCKS: usize = 512;
#[cfg(feature = "rayon")]
const PARALLEL_ALIGN_BLOCKS: usize = 64;

/// PMAC over the 128-bit block cipher `C`, with tags of `T` bytes: 8 to
/// 16 (`U8`..=`U16`, default `U16`); a forgery succeeds with probability
/// 2^-8t per try, so shorter tags are only in [`hazmat::Pmac`].
///
/// One value holds the key (the cipher, `L`, `L(-1)` and the offset tables,
/// wiped on drop) and a streaming state. The one-shot methods
/// ([`mac`](Self::mac), [`verify_tag`](Self::verify_tag),
/// [`mac_par`](Self::mac_par), [`incremental`](Self::incremental))
/// take `&self` and never touch the streaming state, so one keyed value can
/// serve many threads.
///
/// ```
/// use blockmodes::pmac::PmacAes128;
///
/// let pmac = PmacAes128::new_from_slice(&[0u8; 16])?;
/// let tag = pmac.mac(b"attack at dawn");
/// pmac.verify_tag(b"attack at dawn", &tag)?;
/// assert!(pmac.verify_tag(b"attack at dusk", &tag).is_err());
///
/// // Streaming, any split:
/// let mut s = pmac.clone();
/// s.update(b"attack ");
/// s.update(b"at dawn");
/// assert_eq!(s.finalize().into_bytes(), tag);
/// # Ok::<(), blockmodes::Error>(())
/// ```
///
/// **As RustCrypto's `pmac` and `cmac` are used**: the `digest::Mac`
/// idioms compile and work as written there. No inherent method shadows a
/// trait method with another shape: the inherent `update`, `finalize` and
/// `reset` have the trait's signatures, and the one-shot check is
/// [`verify_tag`](Self::verify_tag) (`verify` and `verify_slice` are the
/// trait's, on the streaming state).
///
/// ```
/// use blockmodes::{Aes128, pmac::Pmac};
/// use digest::{KeyInit, Mac};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let key = [0x0fu8; 16];
/// let mut m = <Pmac<Aes128> as KeyInit>::new_from_slice(&key)?;
/// m.update(b"input message");
/// let tag = m.finalize().into_bytes();
///
/// let mut m = Pmac::<Aes128>::new_from_slice(&key)?;
/// m.update(b"input message");
/// m.verify_slice(&tag)?;
///
/// let mut m: Pmac<Aes128> = KeyInit::new_from_slice(&key)?;
/// m.update(b"input message");
/// m.verify(&tag.into())?;
///
/// // chain_update, finalize_reset, a wrong tag:
/// let mut m = Pmac::<Aes128>::new_from_slice(&key)?.chain_update(b"input ");
/// m.update(b"message");
/// assert_eq!(m.finalize_reset().into_bytes(), tag);
/// m.update(b"another message");
/// assert!(m.verify_slice(&tag).is_err());
/// # Ok(())
/// # }
/// ```
pub struct Pmac<C, T = U16, P = Safe>
where
    T: TagSize<P>,
    P: TagPolicy,
{
    /// The block cipher, and the engine's AES key when keyed from AES key
    /// bytes on a CPU the engine runs on (`crate::backend`).
    engine: Engine<C>,
    keys: Keys,
    state: State,
    _tag: PhantomData<(T, P)>,
}

impl<C: Clone, T: TagSize<P>, P: TagPolicy> Clone for Pmac<C, T, P> {
    fn clone(&self) -> Self {
        Self {
            engine: self.engine.clone(),
            keys: self.keys.clone(),
            state: self.state.clone(),
            _tag: PhantomData,
        }
    }
}

impl<C, T: TagSize<P>, P: TagPolicy> fmt::Debug for Pmac<C, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pmac").finish_non_exhaustive()
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> Pmac<C, T, P> {
    /// PMAC keyed by an already keyed block cipher. Key setup costs one
    /// block-cipher call (`L = E_K(0^n)`).
    ///
    /// ```
    /// use blockmodes::{Aes256, pmac::Pmac};
    /// use cipher::KeyInit;
    /// let pmac: Pmac<Aes256> = Pmac::from_cipher(Aes256::new(&[7u8; 32].into()));
    /// assert_eq!(pmac.mac(b"").len(), 16);
    /// ```
    pub fn from_cipher(cipher: C) -> Self {
        Self::with_engine(Engine::from_cipher(cipher))
    }

    /// PMAC keyed with the bytes `key` (and `cipher` keyed with them):
    /// the fused path where it applies (`crate::backend`).
    fn from_key(cipher: C, key: &[u8]) -> Self {
        Self::with_engine(Engine::from_key(cipher, key))
    }

    fn with_engine(engine: Engine<C>) -> Self {
        Self {
            keys: Keys::new(&engine),
            engine,
            state: State::default(),
            _tag: PhantomData,
        }
    }

    /// PMAC keyed by `key`, with [`Error::InvalidKeyLength`] if `key` does
    /// not have the cipher's key length.
    ///
    /// ```
    /// use blockmodes::{Error, pmac::PmacAes192};
    /// assert!(PmacAes192::new_from_slice(&[1u8; 24]).is_ok());
    /// assert!(matches!(
    ///     PmacAes192::new_from_slice(&[1u8; 16]),
    ///     Err(Error::InvalidKeyLength { got: 16, .. })
    /// ));
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        Ok(Self::from_key(oracle::cipher_from_key(key)?, key))
    }

    /// `PMAC_K(M)`: the tag of `msg`, with ⌈|M|/16⌉ block-cipher calls (one
    /// for the empty message).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let key: Vec<u8> = (0u8..16).collect();
    /// let tag = PmacAes128::new_from_slice(&key)?.mac(&[0, 1, 2]);
    /// // PMAC-AES-128-3B (vectors/pmac-aes.json)
    /// assert_eq!(hex::encode(tag), "256ba5193c1b991b4df0c51f388a9e27");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac(&self, msg: &[u8]) -> Tag<T> {
        let mut full = self.full_tag_of(msg);
        let tag = Self::truncate(&full);
        crate::oracle::scratch::wipe(core::slice::from_mut(&mut full));
        tag
    }

    /// Check `tag` against `msg` in constant time: `Ok(())`, or
    /// [`Error::Authentication`]; a tag whose length is not `T` is an
    /// [`Error::InvalidTagLength`].
    ///
    /// ```
    /// use blockmodes::{Aes128, Error, pmac::Pmac, cipher::consts::U8};
    /// let pmac = Pmac::<Aes128, U8>::new_from_slice(&[9u8; 16])?;
    /// let tag = pmac.mac(b"msg");
    /// assert_eq!(pmac.verify_tag(b"msg", &tag), Ok(()));
    /// assert_eq!(pmac.verify_tag(b"msh", &tag), Err(Error::Authentication));
    /// assert!(matches!(pmac.verify_tag(b"msg", &[0u8; 16]), Err(Error::InvalidTagLength { .. })));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    ///
    /// (Named `verify_tag`, not `verify`: `digest::Mac::verify` checks the
    /// streaming state against a tag, and a same-named inherent method of
    /// another shape would shadow it.)
    pub fn verify_tag(&self, msg: &[u8], tag: &[u8]) -> Result<()> {
        Self::check_tag_len(tag)?;
        let full = self.full_tag_of(msg);
        Self::compare(full, tag)
    }

    /// Absorb more of the message (streaming). Any split of the input gives
    /// the same tag: the last block, possibly full, is held back until
    /// [`finalize`](Self::finalize).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[3u8; 16])?;
    /// let msg = [0x42u8; 100];
    /// let mut s = pmac.clone();
    /// for piece in msg.chunks(7) {
    ///     s.update(piece);
    /// }
    /// assert_eq!(s.finalize().into_bytes(), pmac.mac(&msg));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, data: &[u8]) {
        let Self {
            engine,
            keys,
            state,
            ..
        } = self;
        absorb(engine, keys, state, data);
    }

    /// The tag of everything given to [`update`](Self::update), as
    /// `digest::Mac::finalize` gives it: a [`CtOutput`](digest::CtOutput)
    /// (compared in constant time; `.into_bytes()` for the tag).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let mut s = PmacAes128::new_from_slice(&[3u8; 16])?;
    /// s.update(b"abc");
    /// assert_eq!(s.clone().finalize().into_bytes(), s.mac(b"abc"));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finalize(mut self) -> digest::CtOutput<Self> {
        digest::CtOutput::new(self.finalize_and_reset())
    }

    /// Check `tag` against everything given to [`update`](Self::update), in
    /// constant time (errors as in [`verify_tag`](Self::verify_tag); the
    /// trait's `verify_slice` does the same with `digest::MacError`).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[3u8; 16])?;
    /// let tag = pmac.mac(b"abcdef");
    /// let mut s = pmac.clone();
    /// s.update(b"abc");
    /// s.update(b"def");
    /// s.finalize_verify(&tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finalize_verify(self, tag: &[u8]) -> Result<()> {
        Self::check_tag_len(tag)?;
        let full = self.full_tag_from_state(&self.state);
        Self::compare(full, tag)
    }

    /// Forget everything given to [`update`](Self::update) (the key stays).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let mut s = PmacAes128::new_from_slice(&[3u8; 16])?;
    /// s.update(b"junk");
    /// s.reset();
    /// assert_eq!(s.clone().finalize().into_bytes(), s.mac(b""));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn reset(&mut self) {
        self.state = State::default();
    }

    /// The state of section 4.1 for `msg` (its Σ and last block), ready for
    /// incremental [`replace`](PmacIncremental::replace),
    /// [`append`](PmacIncremental::append) and
    /// [`truncate`](PmacIncremental::truncate). Costs ⌈|M|/16⌉ − 1
    /// block-cipher calls; each tag then costs one.
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[5u8; 16])?;
    /// let mut doc = vec![0u8; 64];
    /// let mut inc = pmac.incremental(&doc);
    /// inc.replace(2, &doc[16..32], &[1u8; 16])?; // block 2 of 4
    /// doc[16..32].copy_from_slice(&[1u8; 16]);
    /// assert_eq!(inc.tag(), pmac.mac(&doc));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn incremental(&self, msg: &[u8]) -> PmacIncremental<'_, C, T, P> {
        let (body, last) = split_message(msg);
        let mut state = State {
            sigma: self.sigma_of(1, None, body),
            done: body.len() as u64,
            ..State::default()
        };
        state.set_last(last);
        PmacIncremental { pmac: self, state }
    }

    /// The partial Σ of a run of whole blocks: `Y[i] ⊕ ··· ⊕ Y[i+k-1]` with
    /// `Y[j] = E_K(M[j] ⊕ γ_j·L)`, where `first_block = i` is the 1-based
    /// index of the run's first block in the whole message and
    /// `blocks.len() = 16·k`.
    ///
    /// **Contract** (for a caller that splits a large message, for example a
    /// file read range by range or on several threads):
    /// * partition the message as the paper does: `M[1..m-1]` are the
    ///   16-byte blocks before the final block `M[m]`, which holds the last
    ///   1 to 16 bytes (no bytes for the empty message);
    /// * cover `M[1..m-1]` with runs in any order and on any thread, each run
    ///   a whole number of blocks at its absolute index, every block exactly
    ///   once (a full final block `M[m]` is never part of a run);
    /// * xor the runs' [`PartialSigma`]s together ([`PartialSigma::combine`]
    ///   or `^`) and pass the result and `M[m]` to [`finish`](Self::finish).
    ///
    /// Errors: [`Error::InvalidLength`] if `blocks` is not a whole number of
    /// blocks, [`Error::InvalidParameter`] if `first_block` is 0 or the run
    /// goes past block index 2^64 − 1.
    ///
    /// ```
    /// use blockmodes::pmac::{PartialSigma, PmacAes128};
    /// let pmac = PmacAes128::new_from_slice(&[8u8; 16])?;
    /// let msg = vec![0xabu8; 16 * 10 + 5]; // M[1..10] full, M[11] of 5 bytes
    /// let a = pmac.partial_sigma(1, &msg[..16 * 4])?; // blocks 1..4
    /// let b = pmac.partial_sigma(5, &msg[16 * 4..16 * 10])?; // blocks 5..10
    /// let tag = pmac.finish(a ^ b, &msg[16 * 10..])?;
    /// assert_eq!(tag, pmac.mac(&msg));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn partial_sigma(&self, first_block: u64, blocks: &[u8]) -> Result<PartialSigma> {
        let (body, rest) = blocks.as_chunks::<16>();
        if !rest.is_empty() {
            return Err(Error::InvalidLength(
                "a partial Σ covers whole 16-byte blocks",
            ));
        }
        if first_block == 0 {
            return Err(Error::InvalidParameter("PMAC block indices start at 1"));
        }
        let last_index = first_block.checked_add((body.len() as u64).saturating_sub(1));
        if last_index.is_none() {
            return Err(Error::InvalidParameter("block index past 2^64 - 1"));
        }
        Ok(PartialSigma(self.sigma_of(first_block, None, body)))
    }

    /// The tag from the xor of the partial Σs of `M[1..m-1]` and the final
    /// block `M[m]` (1 to 16 bytes; empty only for the empty message, whose
    /// Σ is [`PartialSigma::default`]): `E_K(Σ ⊕ pad(M[m]) [⊕ L(-1)])`, one
    /// block-cipher call. See [`partial_sigma`](Self::partial_sigma) for the
    /// contract.
    ///
    /// Errors: [`Error::InvalidLength`] if `last_block` is longer than 16
    /// bytes.
    ///
    /// ```
    /// use blockmodes::pmac::{PartialSigma, PmacAes128};
    /// let pmac = PmacAes128::new_from_slice(&[8u8; 16])?;
    /// assert_eq!(pmac.finish(PartialSigma::default(), b"")?, pmac.mac(b""));
    /// assert_eq!(pmac.finish(PartialSigma::default(), b"short")?, pmac.mac(b"short"));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finish(&self, sigma: PartialSigma, last_block: &[u8]) -> Result<Tag<T>> {
        if last_block.len() > 16 {
            return Err(Error::InvalidLength(
                "the final PMAC block has at most 16 bytes",
            ));
        }
        let mut full = full_tag(&self.engine, &self.keys, &sigma.0, last_block);
        let tag = Self::truncate(&full);
        full.zeroize();
        Ok(tag)
    }

    #[cfg(feature = "rayon")]
    /// `PMAC_K(M)` computed on several threads (rayon's global pool; in a
    /// forked child a pool of its own) when `data` has at least
    /// [`PARALLEL_THRESHOLD`] bytes, and by [`mac`](Self::mac) below it.
    /// Equal to [`mac`](Self::mac) in every case.
    /// (`mac_par`: the threaded form of a call, as XECB-MAC's `mac_par` and
    /// `verify_par`.) The first call in a process starts rayon's global
    /// pool, which took 0.15-0.25 ms on a 2-core VM, more than a 1 MiB
    /// MAC on one core: if the first message is short, start the pool
    /// earlier (for example `rayon::broadcast(|_| ())` while reading it).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[8u8; 16])?;
    /// let big = vec![7u8; 1 << 20];
    /// assert_eq!(pmac.mac_par(&big), pmac.mac(&big));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn mac_par(&self, data: &[u8]) -> Tag<T>
    where
        C: Sync,
    {
        if data.len() < PARALLEL_THRESHOLD {
            return self.mac(data);
        }
        let (body, last) = split_message(data);
        // Σ of the runs, xored (`crate::par`); a run from `body[start]`
        // starts at block 1 + start.
        let mut sigma = crate::par::xor_slices(
            body,
            PARALLEL_ALIGN_BLOCKS,
            PARALLEL_MIN_BLOCKS,
            |start, run| self.sigma_of(1 + start as u64, None, run),
        );
        let mut full = full_tag(&self.engine, &self.keys, &sigma, last);
        sigma.zeroize();
        let tag = Self::truncate(&full);
        full.zeroize();
        tag
    }

    // ---- internals ----

    /// The untruncated `E_K(X[m])` of a whole message.
    fn full_tag_of(&self, msg: &[u8]) -> Block {
        let (body, last) = split_message(msg);
        if let Some(f) = GrayView::of(self.engine.aes(), self.keys.table.as_ref()) {
            let mut tail = kernel::last_term(&self.keys, last);
            let tag = f.short_tag(body, &tail);
            crate::oracle::scratch::wipe(core::slice::from_mut(&mut tail));
            if let Some(tag) = tag {
                return tag;
            }
        }
        let mut sigma = self.sigma_of(1, None, body);
        let full = full_tag(&self.engine, &self.keys, &sigma, last);
        crate::oracle::scratch::wipe(core::slice::from_mut(&mut sigma));
        full
    }

    /// `E_K(X[m])` with `X[m] = Σ ⊕ pad(M[m])`, `⊕ L(-1)` if `M[m]` is full.
    fn full_tag_from_state(&self, state: &State) -> Block {
        let last = &state.last[..state.last_len];
        full_tag(&self.engine, &self.keys, &state.sigma, last)
    }

    /// `Y[first] ⊕ ··· ⊕ Y[first+k-1]` over `head` (if any) then `body`.
    fn sigma_of(&self, first: u64, head: Option<&Block>, body: &[Block]) -> Block {
        sigma_of(&self.engine, &self.keys, first, head, body)
    }

    fn finalize_and_reset(&mut self) -> Tag<T> {
        let mut full = self.full_tag_from_state(&self.state);
        let tag = Self::truncate(&full);
        full.zeroize();
        self.reset();
        tag
    }

    fn truncate(full: &Block) -> Tag<T> {
        Array::from_fn(|i| full[i])
    }

    fn check_tag_len(tag: &[u8]) -> Result<()> {
        if tag.len() == T::USIZE {
            Ok(())
        } else {
            Err(Error::InvalidTagLength {
                min: T::USIZE,
                max: T::USIZE,
                got: tag.len(),
            })
        }
    }

    /// Constant-time comparison of the first `T` bytes of `full` with `tag`
    /// (whose length has been checked).
    fn compare(mut full: Block, tag: &[u8]) -> Result<()> {
        let ok = crate::tag::tag_matches(&full, tag);
        full.zeroize();
        if bool::from(ok) {
            Ok(())
        } else {
            Err(Error::Authentication)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_low_is_the_gray_code_table() {
        let keys = Keys::new(&Engine::from_cipher(<crate::Aes128 as KeyInit>::new(
            &[1u8; 16].into(),
        )));
        for j in 0..64u64 {
            assert_eq!(
                keys.offsets.low()[j as usize],
                keys.offsets.offsets().gamma(j)
            );
        }
    }

    #[test]
    fn split_message_partitions_like_the_paper() {
        for len in 0..70usize {
            let msg = vec![0u8; len];
            let (body, last) = split_message(&msg);
            let m = len.div_ceil(16).max(1);
            assert_eq!(body.len(), m - 1, "len {len}");
            assert_eq!(last.len(), len - 16 * (m - 1));
        }
    }
}
