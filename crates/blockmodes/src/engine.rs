//! What every tier of the engine shares, whatever the architecture (the
//! x86-64 tiers in `aesni`, the ARMv8 one in `armv8`): the direction
//! ([`Dir`]), where blocks come from and go to ([`Io`]), the offsets of a
//! whitened loop ([`Offsets`]), the per-key Gray-code tables
//! ([`GrayTable`]) that OCB 1.0 and PMAC hand to the kernels, and pXCBC$
//! encryption's lock-step chains' state and strided I/O ([`Chains`],
//! [`ChainIo`], [`CHAIN_BATCH`]) for `AesKey::xcbc_strided`, and EtE's
//! StE-over-XEX pair ([`SteXex`], its passes per architecture through
//! [`SteKey`]); and what the drivers and key set-up share: the borrowed
//! view of an engine key with its Gray-code table ([`GrayView`]), the
//! fused key's self-check ([`agrees`]) and the second key of XCBC and
//! pXCBC ([`companion_key`]). One whitened-loop call's shape and
//! parameters, the same on both architectures, are in [`job`], the
//! dispatch's match tables in [`dispatch`]; the AES
//! key expansion's word loop in [`schedule`]; the engines' tests'
//! reference (the `aes` crate) in `testkit`.
//!
//! `unsafe`: [`append_with`] only (a `Vec`'s length set after the kernel
//! wrote its spare capacity; see there). [`SpareOut`], the pointer to that
//! capacity, is made there only, so every [`Io`] is valid whoever builds it.
#![allow(unsafe_code)]
// Off the engine's architectures (i686, thumbv7em, ...) only the generic
// path runs and nothing uses these.
#![cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]

use cipher::array::Array;
use cipher::consts::U16;
use cipher::inout::InOutBuf;
use zeroize::Zeroize;

use crate::arith::gf128::{Block, GrayBatch, ntz, xor, xor_in_place};

pub(crate) mod dispatch;
pub(crate) mod job;
pub(crate) mod schedule;
#[cfg(test)]
pub(crate) mod testkit;

/// Most units of one `AesKey::xex_units` call.
pub(crate) const XEX_UNITS: usize = 64;

/// Encipher or decipher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    /// `E_K`.
    Encrypt,
    /// `E_K^-1`.
    Decrypt,
}

/// Where the blocks come from and go to. Every operation processes
/// `min` of the lengths involved.
pub(crate) enum Io<'i, 'o> {
    /// One buffer, overwritten.
    InPlace(&'o mut [Block]),
    /// Input and output buffers (distinct: the borrow rules guarantee it).
    /// Used by the tests only so far.
    #[cfg_attr(not(test), allow(dead_code))]
    B2b(&'i [Block], &'o mut [Block]),
    /// An `inout` buffer: one buffer in place, or two disjoint ones.
    InOut(InOutBuf<'i, 'o, Array<u8, U16>>),
    /// Input blocks and a `Vec`'s spare capacity (uninitialised, written
    /// only), as [`append_with`] hands it out: as many blocks as both hold.
    #[cfg(feature = "alloc")]
    Spare(&'i [Block], SpareOut<'o, Block>),
}

/// Room past the end of a `Vec` that [`append_with`] reserved: a pointer
/// to `bytes` uninitialised bytes, writable, borrowed from the `Vec` for
/// `'o`. Its fields are private and [`append_with`] is its only maker, so
/// code outside this module cannot build one that points anywhere else
/// (an [`Io::Spare`] from safe code is always valid); it is not `Copy` and
/// cannot outlive the `kernel` call it is handed to.
#[cfg(feature = "alloc")]
pub(crate) struct SpareOut<'o, T = u8> {
    ptr: *mut T,
    bytes: usize,
    _vec: core::marker::PhantomData<&'o mut [core::mem::MaybeUninit<u8>]>,
}

#[cfg(feature = "alloc")]
impl<'o, T> SpareOut<'o, T> {
    /// The same room, seen as `U`s (the length stays counted in bytes).
    pub(crate) fn cast<U>(self) -> SpareOut<'o, U> {
        SpareOut {
            ptr: self.ptr.cast::<U>(),
            bytes: self.bytes,
            _vec: core::marker::PhantomData,
        }
    }

    /// The start of the room (writable for [`len_bytes`](Self::len_bytes)
    /// bytes, uninitialised: store before any load).
    pub(crate) fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }

    /// How many bytes the room holds.
    pub(crate) fn len_bytes(&self) -> usize {
        self.bytes
    }
}

impl Io<'_, '_> {
    /// `(input, output, blocks)`: pointers valid for `blocks` blocks each,
    /// equal or pointing to disjoint memory.
    pub(crate) fn raw(self) -> (*const Block, *mut Block, usize) {
        match self {
            Io::InPlace(buf) => {
                let n = buf.len();
                let p = buf.as_mut_ptr();
                (p.cast_const(), p, n)
            }
            Io::B2b(input, out) => {
                let n = input.len().min(out.len());
                (input.as_ptr(), out.as_mut_ptr(), n)
            }
            Io::InOut(buf) => {
                let n = buf.len();
                let (i, o) = buf.into_raw();
                // `Array<u8, U16>` is `repr(transparent)` over `[u8; 16]`.
                (i.cast::<Block>(), o.cast::<Block>(), n)
            }
            #[cfg(feature = "alloc")]
            Io::Spare(input, dst) => {
                let n = input.len().min(dst.len_bytes() / 16);
                (input.as_ptr(), dst.as_mut_ptr(), n)
            }
        }
    }
}

/// Run `kernel` into `len` bytes of `out`'s spare capacity ([`SpareOut`]:
/// into an `Io::Spare`, or as a raw byte pointer) and append the bytes it
/// reports written: the `Vec`-returning calls of OCB 1.0 and CWC write
/// their output once, with no zero fill before it and no copy after it.
///
/// The callers are the engines' `*_append` methods (`aesni`, `armv8`,
/// through [`append_blocks`] and [`append_bytes`]); each
/// hands the room to a kernel that reads only its input pointer and stores
/// every byte of its output (loads from `src`, stores to `dst`, never a
/// load from `dst`), and reports as written exactly what that kernel
/// stored. So the spare capacity is never read before it is written and no
/// reference to it is made; the bytes become part of `out` only after
/// `kernel` returns, and only as many as it reports written.
#[cfg(feature = "alloc")]
pub(crate) fn append_with<R>(
    out: &mut alloc::vec::Vec<u8>,
    len: usize,
    kernel: impl FnOnce(SpareOut<'_>) -> (R, usize),
) -> R {
    out.reserve(len);
    let dst = SpareOut {
        ptr: out.spare_capacity_mut().as_mut_ptr().cast::<u8>(),
        bytes: len,
        _vec: core::marker::PhantomData,
    };
    let (r, written) = kernel(dst);
    let written = written.min(len);
    // SAFETY: `reserve` made room for `len >= written` bytes past
    // `out.len()`; `kernel` hands `dst` only to the engines' kernels, which
    // store each of the `written` bytes it reports (see above).
    unsafe { out.set_len(out.len() + written) };
    r
}

/// [`append_with`] for a kernel over whole blocks (OCB 1.0's
/// `ocb_blocks_append` on each architecture): `kernel` gets `input` and
/// room for as many blocks, an [`Io::Spare`], and stores every one of
/// them; `16 * input.len()` bytes are appended.
#[cfg(feature = "alloc")]
pub(crate) fn append_blocks(
    input: &[Block],
    out: &mut alloc::vec::Vec<u8>,
    kernel: impl FnOnce(Io<'_, '_>) -> Block,
) -> Block {
    let len = 16 * input.len();
    append_with(out, len, |dst| {
        (kernel(Io::Spare(input, dst.cast::<Block>())), len)
    })
}

/// [`append_with`] for a kernel over bytes (CWC's `ctr32_append` on each
/// architecture): `kernel(src, dst, len)` reads `input` and stores every
/// one of the `len = input.len()` bytes at `dst`, which are appended.
#[cfg(feature = "alloc")]
pub(crate) fn append_bytes(
    input: &[u8],
    out: &mut alloc::vec::Vec<u8>,
    kernel: impl FnOnce(*const u8, *mut u8, usize) -> Block,
) -> Block {
    let len = input.len();
    append_with(out, len, |dst| {
        (kernel(input.as_ptr(), dst.as_mut_ptr(), len), len)
    })
}

/// The per-key tables of Gray-code offsets `Z[i] = gamma_i L xor R`
/// (OCB 1.0, PMAC), laid out for the kernels; built from a [`GrayBatch`]
/// and zeroized on drop.
///
/// For `i = 64q + j` (`j < 64`), `Z[i] = W_q xor gamma_j L` with
/// `W_q = Z[64q]`, and `W_{q+1} = W_q xor gamma_63 L xor L(6 + ntz(q + 1))`.
#[derive(Clone)]
pub(crate) struct GrayTable {
    /// `gamma_{j mod 64} L` for `j < 96`: a batch's registers (at most 32
    /// blocks) from any `j < 64` are loads at constant offsets from `j`
    /// (the ones past 63 wrap into the next group, whose base the kernel
    /// blends in).
    pub(crate) low: Aligned<[Block; 96]>,
    /// `gamma_63 L xor L(6 + k)`: `W_{q+1} xor W_q` when `ntz(q + 1) = k`.
    step: [Block; 58],
    /// `L(b) = L x^b` for `b < 64`, to compute a group base from scratch.
    batch_l: [Block; 64],
}

impl GrayTable {
    /// The tables of `batch` (`L` and `gamma_j L`).
    pub(crate) fn new(batch: &GrayBatch) -> Self {
        let mut low = Aligned([[0u8; 16]; 96]);
        for (j, g) in low.0.iter_mut().enumerate() {
            *g = batch.low()[j % 64];
        }
        let mut step = [[0u8; 16]; 58];
        for (k, s) in step.iter_mut().enumerate() {
            *s = xor(&batch.low()[63], batch.offsets().l(6 + k as u32));
        }
        let mut batch_l = [[0u8; 16]; 64];
        for (i, l) in batch_l.iter_mut().enumerate() {
            *l = *batch.offsets().l(i as u32);
        }
        Self { low, step, batch_l }
    }

    /// `gamma_i L` (xor of `L(b)` for the bits `b` of the Gray code of `i`),
    /// one xor per set bit (the loop runs on the index, which is public).
    pub(crate) fn gamma(&self, i: u64) -> Block {
        let mut g = i ^ (i >> 1);
        let mut acc = [0u8; 16];
        while g != 0 {
            xor_in_place(&mut acc, &self.batch_l[g.trailing_zeros() as usize]);
            g &= g - 1;
        }
        acc
    }

    /// The offset `Z[i] = gamma_i L xor r`.
    pub(crate) fn offset(&self, r: &Block, i: u64) -> Block {
        let base = if i >> 6 == 0 {
            *r
        } else {
            xor(r, &self.gamma(i & !63))
        };
        xor(&base, &self.low.0[(i & 63) as usize])
    }

    /// The step from `W_{q-1}` to `W_q`.
    #[inline(always)]
    pub(crate) fn step(&self, q: u64) -> &Block {
        &self.step[(ntz(q) as usize).min(57)]
    }
}

impl Drop for GrayTable {
    fn drop(&mut self) {
        self.low.0.zeroize();
        self.step.zeroize();
        self.batch_l.zeroize();
    }
}

/// An engine key `K` (the architecture's `AesKey`) and, beside it, the
/// key's [`GrayTable`]: the borrowed view that OCB 1.0's and PMAC's fused
/// drivers run on (`backend::GrayView` names it over the engine's key; each
/// mode's `fused.rs` adds its own steps to it).
pub(crate) struct GrayView<'a, K> {
    pub(crate) key: &'a K,
    pub(crate) table: &'a GrayTable,
}

impl<K> Clone for GrayView<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for GrayView<'_, K> {}

impl<'a, K> GrayView<'a, K> {
    /// The fused path of a key whose engine key is `key` and whose
    /// offsets' table is `table`, if it has both.
    #[inline(always)]
    pub(crate) fn of(key: Option<&'a K>, table: Option<&'a GrayTable>) -> Option<Self> {
        Some(Self {
            key: key?,
            table: table?,
        })
    }
}

/// Where the offsets `Z[t]` of the blocks come from.
pub(crate) enum Offsets<'a> {
    /// `Z[t] = z[t]` (the block count is at most `z.len()`).
    Slice(&'a [Block]),
    /// `Z[t] = gamma_{first + t} L xor r`.
    Gray {
        /// The tables of `L`.
        table: &'a GrayTable,
        /// The index `i` of the first block.
        first: u64,
        /// `R` (OCB 1.0: `E_K(N xor L)`; PMAC: zero).
        r: &'a Block,
    },
}

/// The block counts of XCBC$-XOR / pXCBC decryption's kernel call
/// (`AesKey::xcbc_decrypt` on each tier): `n_out` ciphertext blocks
/// decrypted into `out` (as many as both slices hold) and `n` read from
/// `input`, one more with `check` (the check block, decrypted into it, not
/// into `out`); the check block's pointer, null without one.
pub(crate) fn xcbc_counts(
    input: &[Block],
    out: &[Block],
    check: Option<&mut Block>,
) -> (usize, usize, *mut Block) {
    let n_out = out.len().min(input.len());
    match check {
        Some(c) => (input.len().min(out.len() + 1), n_out, c as *mut Block),
        None => (n_out, n_out, core::ptr::null_mut()),
    }
}

/// Cache-line alignment.
#[derive(Clone)]
#[repr(C, align(64))]
pub(crate) struct Aligned<T>(pub(crate) T);

/// The key length of `C` if it is one of the `aes` crate's
/// [`crate::Aes128`], [`crate::Aes192`], [`crate::Aes256`] (recognised by
/// [`TypeId`](core::any::TypeId): a wrapper such as `oracle::Counting` is
/// not one, and keeps its calls), else `None`.
pub(crate) fn aes_key_len<C: 'static>() -> Option<usize> {
    use core::any::TypeId;
    let id = TypeId::of::<C>();
    if id == TypeId::of::<aes::Aes128>() {
        Some(16)
    } else if id == TypeId::of::<aes::Aes192>() {
        Some(24)
    } else if id == TypeId::of::<aes::Aes256>() {
        Some(32)
    } else {
        None
    }
}

/// The fused key's self-check: the engine key `k`, if the caller's
/// `cipher` (built from the same key bytes) gives `ours`, the engine's
/// `E_K(0^128)` (compared in constant time; counted in [`FUSED_KEYS`] if
/// `count`). The one branch on the comparison is here, for every caller
/// (`aesni::key_for`, `armv8::key_for`, [`companion_key`]): it is true for
/// every key, so it reveals nothing about K (`ct/declassify.txt`).
pub(crate) fn agrees<C: crate::oracle::BlockCipher128, K>(
    cipher: &C,
    k: K,
    mut ours: Block,
    count: bool,
) -> Option<K> {
    use subtle::ConstantTimeEq;
    let mut theirs = crate::oracle::encrypt_block(cipher, &[0; 16]);
    let same = bool::from(theirs.ct_eq(&ours));
    theirs.zeroize();
    ours.zeroize();
    #[cfg(feature = "std")]
    if same && count {
        FUSED_KEYS.with(|c| c.set(c.get().wrapping_add(1)));
    }
    #[cfg(not(feature = "std"))]
    let _ = count;
    same.then_some(k)
}

/// A second key for a mode whose first key, of `rounds` rounds, is on the
/// engine (XCBC's f' beside f; `aesni::companion_key`,
/// `armv8::companion_key`): the key bytes `key` of the same cipher `C`,
/// expanded by `build` (the architecture's constructor, on the first key's
/// back end), if `key` has the first key's length and `C` and the expanded
/// key (its block encryption `encrypt`) agree on `E_K(0^128)`
/// ([`agrees`]). Not counted apart by [`crate::backend::fused_keys`]: it
/// rides with the first key.
pub(crate) fn companion_key<C: crate::oracle::BlockCipher128, K>(
    rounds: usize,
    key: &[u8],
    cipher: &C,
    build: impl FnOnce(&[u8]) -> Option<K>,
    encrypt: impl FnOnce(&K, &Block) -> Block,
) -> Option<K> {
    if key.len() != 4 * (rounds - 6) {
        return None;
    }
    let k = build(key)?;
    let e0 = encrypt(&k, &[0; 16]);
    agrees(cipher, k, e0, false)
}

#[cfg(feature = "std")]
std::thread_local! {
    /// How many keys set up on this thread took the engine
    /// ([`crate::backend::fused_keys`] reads it).
    pub(crate) static FUSED_KEYS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// The most chains one `AesKey::xcbc_strided` call runs (pXCBC$
/// encryption's lock-step segments; each tier runs them in groups of its
/// own size: 16 on VAES, 8 on ARMv8).
pub(crate) const CHAIN_BATCH: usize = 64;

/// The chains' shape and state for `AesKey::xcbc_strided` (`aesni`, `armv8`;
/// `K` that architecture's `AesKey`).
pub(crate) struct Chains<'a, K> {
    /// r0^(s) of chain 0; chain l's is `r0 + l`.
    pub(crate) r0: u128,
    /// The index i of round 0 (its offset `i r0^(s)`).
    pub(crate) first: u128,
    /// Rounds taking x from the inputs.
    pub(crate) n: usize,
    /// One more round with `x = Σ` (the check block).
    pub(crate) check: bool,
    /// Each chain's z before the first round, and after the last.
    pub(crate) z: &'a mut [Block; CHAIN_BATCH],
    /// Each chain's Σ before the first round, and after the last.
    pub(crate) sums: &'a mut [Block; CHAIN_BATCH],
    /// Start every chain afresh, `z` and `sums` ignored: chain l's z =
    /// Σ = `E(c + l)` under the key (z0^(s): c + l as a big-endian block),
    /// enciphered in the kernel before its first round.
    pub(crate) z0: Option<(&'a K, u128)>,
}

/// Where `AesKey::xcbc_strided`'s chains (`aesni`, `armv8`) read and
/// write: chain l < `lanes` takes its x of round t from `head[t]` (chain 0, with a head),
/// `tail[t]` (the last chain, l > 0, with a tail) or else
/// `src[(l - lo) src_stride + t]` (lo = 1 with a head, else 0), and
/// writes its y of round t to `dst[l dst_stride + t]`.
pub(crate) struct ChainIo<'s, 'd> {
    pub(crate) src: &'s [Block],
    pub(crate) src_stride: usize,
    pub(crate) head: Option<&'s [Block]>,
    pub(crate) tail: Option<&'s [Block]>,
    pub(crate) dst: &'d mut [Block],
    pub(crate) dst_stride: usize,
    pub(crate) lanes: usize,
}

impl ChainIo<'_, '_> {
    /// Check that every chain l < `lanes` (at most [`CHAIN_BATCH`]) has
    /// its input (`n` blocks) and its output (`out` blocks, disjoint from
    /// the other chains' and from every input); returns the chains
    /// `lo .. hi` that read from `src` (the others from `head`, `tail`).
    ///
    /// # Panics
    /// If a chain's blocks are not all there or two chains' outputs overlap.
    pub(crate) fn check(&self, n: usize, out: usize, lanes: usize) -> (usize, usize) {
        let lo = usize::from(self.head.is_some());
        let hi = if self.tail.is_some() && lanes > lo {
            lanes - 1
        } else {
            lanes
        };
        assert!(lanes == 1 || out <= self.dst_stride, "outputs overlap");
        assert!((lanes - 1) * self.dst_stride + out <= self.dst.len());
        if n > 0 && hi > lo {
            assert!((hi - 1 - lo) * self.src_stride + n <= self.src.len());
        }
        assert!(self.head.is_none_or(|h| h.len() >= n));
        assert!(self.tail.is_none_or(|t| hi == lanes || t.len() >= n));
        (lo, hi)
    }

    /// Where chain l's x of round 0 is read from (`lo .. hi` from
    /// [`check`](Self::check)): `head`, `tail` or its row of `src` (a
    /// pointer only: valid for the `n` blocks `check` found there).
    #[inline(always)]
    pub(crate) fn chain_src(&self, l: usize, (lo, hi): (usize, usize)) -> *const Block {
        match (self.head, self.tail) {
            (Some(h), _) if l == 0 => h.as_ptr(),
            (_, Some(t)) if l == hi => t.as_ptr(),
            _ => self.src.as_ptr().wrapping_add((l - lo) * self.src_stride),
        }
    }
}

/// StE over XEX-AES-128 with its two fixed tweaks, EtE's block ciphers
/// (Bellare, Cash and Keelveedhi, 2011): `F_ecb(x) = E(sw(x) xor Δ_ecb)
/// xor Δ_ecb` (EtE's ECB layer, γ1) and `F_wide` the same with
/// `Δ_wide` (EME's block cipher, γ2), `F^-1(c) = sw(E^-1(c xor Δ) xor
/// Δ)`; `sw` exchanges K and H. Holds its own copy of the AES-128 key and,
/// per direction, the first and last round keys with the deltas folded
/// in; zeroized on drop. Written once for both architectures: each
/// architecture's key type runs the passes ([`SteKey`]; `backend::SteXex`
/// names this type over the architecture's `AesKey`).
#[derive(Clone)]
pub(crate) struct SteXex<K> {
    pub(crate) key: K,
    /// StE's K and H.
    pub(crate) k: Block,
    pub(crate) h: Block,
    /// `[K0 xor Δ_wide, K_last xor Δ_wide, K0 xor Δ_ecb, K_last xor
    /// Δ_ecb]` of the encryption keys, then of the decryption keys.
    folded: [[Block; 4]; 2],
}

/// An architecture's side of [`SteXex`]: its AES key's round keys and the
/// passes with StE's layer on its kernels.
pub(crate) trait SteKey: Clone + Sized {
    /// 10, 12 or 14.
    fn rounds(&self) -> usize;
    /// The round keys of `dir` (the inverse cipher's for decryption).
    fn round_keys(&self, dir: Dir) -> &[Block; 15];
    /// [`SteXex::first`] (`last` false) or [`SteXex::last`] (with `m`)
    /// over one unit; returns the first pass's sum.
    fn ste_pass(
        ste: &SteXex<Self>,
        dir: Dir,
        last: bool,
        l: &[Block],
        m: &Block,
        io: Io<'_, '_>,
    ) -> Block;
    /// [`SteXex::first_mid`]: `None` where the tier has no such kernel.
    fn ste_first_mid(
        ste: &SteXex<Self>,
        dir: Dir,
        l: &[Block],
        tweak: &Block,
        s_m: &Block,
        unit: &mut [Block],
    ) -> Option<Block>;
    /// [`SteXex::units`]: false (nothing done) where the tier has no such
    /// kernel.
    fn ste_units(
        ste: &SteXex<Self>,
        dir: Dir,
        l: &[Block],
        s_m: &Block,
        m: usize,
        blocks: &mut [Block],
        tweaks: &[Block],
    ) -> bool;
}

impl<K: SteKey> SteXex<K> {
    /// The pair for the AES key `key` (AES-128 only: StE's key is one
    /// block; `None` for another size), StE's K and H and the two XEX
    /// deltas.
    pub(crate) fn new(
        key: &K,
        k: &Block,
        h: &Block,
        d_ecb: &Block,
        d_wide: &Block,
    ) -> Option<Self> {
        if key.rounds() != 10 {
            return None;
        }
        let fold = |keys: &[Block; 15]| {
            [
                xor(&keys[0], d_wide),
                xor(&keys[10], d_wide),
                xor(&keys[0], d_ecb),
                xor(&keys[10], d_ecb),
            ]
        };
        Some(Self {
            key: key.clone(),
            k: *k,
            h: *h,
            folded: [
                fold(key.round_keys(Dir::Encrypt)),
                fold(key.round_keys(Dir::Decrypt)),
            ],
        })
    }

    /// The folded first and last keys of `dir` (see the field).
    pub(crate) fn folded(&self, dir: Dir) -> &[Block; 4] {
        &self.folded[usize::from(dir == Dir::Decrypt)]
    }

    /// EtE's first pass over one unit: enciphering, `out[j] =
    /// F_wide(F_ecb(in[j]) xor l[j])` (the ECB layer and EME's first
    /// pass); deciphering, `out[j] = F_wide^-1(in[j] xor l[j])`. Returns
    /// the xor of the outputs.
    pub(crate) fn first(&self, dir: Dir, l: &[Block], io: Io<'_, '_>) -> Block {
        K::ste_pass(self, dir, false, l, &[0; 16], io)
    }

    /// EtE's first pass and EME's middle over one unit, as the key's
    /// `wide_first_mid` with G the first pass's cipher above and `MC =
    /// F_wide(MP)` (or `F_wide^-1(MP)`); `None` (nothing done) where the
    /// tier has no such kernel.
    pub(crate) fn first_mid(
        &self,
        dir: Dir,
        l: &[Block],
        tweak: &Block,
        s_m: &Block,
        unit: &mut [Block],
    ) -> Option<Block> {
        K::ste_first_mid(self, dir, l, tweak, s_m, unit)
    }

    /// EtE over consecutive units in one kernel call, as the key's
    /// `wide_units` with the passes of [`first_mid`](Self::first_mid) and
    /// [`last`](Self::last); false (nothing done) where the tier has no
    /// such kernel.
    pub(crate) fn units(
        &self,
        dir: Dir,
        l: &[Block],
        s_m: &Block,
        m: usize,
        blocks: &mut [Block],
        tweaks: &[Block],
    ) -> bool {
        K::ste_units(self, dir, l, s_m, m, blocks, tweaks)
    }

    /// EtE's last pass over one unit: enciphering, `out[j] =
    /// F_wide(in[j] xor m x^j) xor l[j]`; deciphering, `out[j] =
    /// F_ecb^-1(F_wide^-1(in[j] xor m x^j) xor l[j])` (EME's last pass and
    /// the ECB layer).
    pub(crate) fn last(&self, dir: Dir, m: &Block, l: &[Block], io: Io<'_, '_>) {
        K::ste_pass(self, dir, true, l, m, io);
    }

    /// `F_wide(block)` (`Dir::Encrypt`) or `F_wide^-1(block)`: one block
    /// through the pass without the ECB layer (the last when enciphering,
    /// the first when deciphering) with a zero table and `m = 0`.
    pub(crate) fn wide_block(&self, dir: Dir, block: &Block) -> Block {
        let zero = [[0u8; 16]];
        let mut b = [*block];
        match dir {
            Dir::Encrypt => self.last(dir, &[0; 16], &zero, Io::InPlace(&mut b)),
            Dir::Decrypt => {
                self.first(dir, &zero, Io::InPlace(&mut b));
            }
        }
        b[0]
    }
}

impl<K> Drop for SteXex<K> {
    fn drop(&mut self) {
        self.k.zeroize();
        self.h.zeroize();
        self.folded.as_flattened_mut().as_flattened_mut().zeroize();
    }
}

impl<K> core::fmt::Debug for SteXex<K> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SteXex").finish_non_exhaustive()
    }
}
