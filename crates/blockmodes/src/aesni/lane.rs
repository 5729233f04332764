//! The lane types: one vector register of AES blocks per tier, with the
//! operations the lane-generic kernels (`kernel.rs`) need, each tier
//! implementing them with the instructions it has.
//!
//! | lane | tier | blocks per register | a partial register | 3-way xor |
//! | --- | --- | --- | --- | --- |
//! | [`Xmm`] | AES-NI | 1 | (none) | two `pxor` |
//! | [`Ymm`] | VAES-256 (AVX2) | 2 | its low xmm half | two `vpxor` |
//! | [`Zmm`] | VAES-512 (AVX-512F/BW) | 4 | masked loads and stores | `vpternlogq` |
//!
//! A partial register (the last one of a message whose block count is not
//! a multiple of the lane's) touches only the blocks below the count: on
//! AVX-512 through masked loads and stores (masked-out lanes are not
//! accessed); on AVX2 the one block of a partial ymm register goes through
//! its low xmm half (a 16-byte load, zero-extended; a 16-byte store), so no
//! byte past the message is read or written and nothing is padded.
//!
//! The other kernel families' own operations and `#[target_feature]`
//! entries are traits beside each family, implemented for the three lanes
//! there: `gd::GdLane` (the Gligor–Donescu offsets), `chains::ChainLane`
//! (pXCBC's gathers and scatters), `ctr::CtrLane` (CTR32's counter
//! blocks), `wide_kernel::WideLane` (the wide-block passes' powers and
//! StE's swap); the lanes know none of them (no import cycle).
//!
//! Every method is `unsafe` and `#[inline(always)]`, without
//! `#[target_feature]` (which would forbid `inline(always)`): each is called
//! only from its tier's `#[target_feature]` entries (`kernel::Entry`),
//! into which it is inlined; so the CPU has the tier's features wherever
//! one runs. Pointer arguments: as each method says.

use core::arch::x86_64::*;

use crate::arith::gf128::Block;

/// A vector register of `BLOCKS` AES blocks.
///
/// # Safety
/// Every method may be called only where the CPU has the tier's features
/// (from its `#[target_feature]` entries).
pub(super) trait Lane: Copy {
    /// Blocks per register.
    const BLOCKS: usize;
    /// Whether a Gray-code batch inside one group carries its base in the
    /// first and last round keys (`kernel::offsets`): one vector xor less
    /// per register, for the lane whose rounds share their vector ports
    /// with the xors (VAES-256: ports 0 and 1 of three).
    const BASE_IN_KEYS: bool = true;
    /// The sums of cipher outputs (PMAC's Σ in `kernel::batch`, a full
    /// batch; XECB's in `gd::last`): summed through the last round's key,
    /// `acc = aesenclast(x, acc)`, no xor of its own per register, in this
    /// many interleaved chains (1, 2, 4 or 8; for PMAC 0 is a vector xor
    /// per register, XECB takes at least one). Two on every lane
    /// (2026-11-28-ymm-sum, paired against the xor: PMAC 16 KiB on ymm
    /// 1.06x per round, median of 42 rounds; one chain mixed, four as two).
    const SUM_CHAINS: usize = 2;

    unsafe fn zero() -> Self;
    /// `b` in every block.
    unsafe fn broadcast(b: __m128i) -> Self;
    /// The round keys `K_0 .. K_NR` of `keys`, each in every block (the
    /// entries past `NR` zero): every kernel family's prologue.
    #[inline(always)]
    unsafe fn round_keys<const NR: usize>(keys: &[Block; 15]) -> [Self; 15] {
        // SAFETY: the caller's: the CPU has the tier's features.
        unsafe {
            let mut k = [Self::zero(); 15];
            for (kr, b) in k.iter_mut().zip(keys.iter()).take(NR + 1) {
                *kr = Self::broadcast(super::schedule::load(b));
            }
            k
        }
    }
    /// `BLOCKS` blocks from `p` (valid for them).
    unsafe fn load(p: *const Block) -> Self;
    /// The `n` blocks (`1 ..= BLOCKS`) from `p`, zero above; `p` valid for
    /// `n` blocks, nothing past them read.
    unsafe fn load_n(p: *const Block, n: usize) -> Self;
    /// `BLOCKS` blocks to `p` (valid for them).
    unsafe fn store(p: *mut Block, v: Self);
    /// The first `n` blocks (`1 ..= BLOCKS`) of `v` to `p`, nothing past
    /// them written.
    unsafe fn store_n(p: *mut Block, v: Self, n: usize);
    /// `v` with the blocks from `n` on zeroed.
    unsafe fn keep_n(v: Self, n: usize) -> Self;
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// `a xor b xor c`.
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self;
    unsafe fn aesenc(a: Self, k: Self) -> Self;
    unsafe fn aesenclast(a: Self, k: Self) -> Self;
    unsafe fn aesdec(a: Self, k: Self) -> Self;
    unsafe fn aesdeclast(a: Self, k: Self) -> Self;
    /// Blocks below `c` from `lo`, the others from `hi`.
    unsafe fn blend_low(c: usize, lo: Self, hi: Self) -> Self;
    /// The xor of the register's blocks.
    unsafe fn fold(v: Self) -> __m128i;
    /// A scheduling fence: an empty `asm!` that takes and returns a whole
    /// batch's registers (`V == 8`; other `V` pass through), so the
    /// compiler cannot move one register's next round above another's
    /// present one. Without it, LLVM schedules a batch register by register
    /// (all rounds of one, then the next) where the round keys and offsets
    /// do not fit beside the eight states in the 16 xmm/ymm registers:
    /// the rounds then overlap only as far as the out-of-order window
    /// reaches (2026-11-28-zen3-vaes256). The zmm lane keeps this no-op
    /// default: its 32 registers hold the batch, keys and offsets.
    #[inline(always)]
    unsafe fn fence<const V: usize>(_x: &mut [Self; V]) {}

    // The operations of XEX's deltas (`xex_units.rs`), wide lanes only: the
    // AES-NI lane never runs them.

    /// The bytes of each block of `a` shuffled by those of `idx` (`pshufb`).
    #[inline(always)]
    unsafe fn shuffle(_a: Self, _idx: Self) -> Self {
        unreachable!("XEX units run on the wide lanes only")
    }
    /// The carry-less products per block of the qwords `IMM` picks.
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(_a: Self, _b: Self) -> Self {
        unreachable!("XEX units run on the wide lanes only")
    }
    /// Every block shifted up by `N` bytes (towards the high end).
    #[inline(always)]
    unsafe fn bslli<const N: i32>(_a: Self) -> Self {
        unreachable!("XEX units run on the wide lanes only")
    }
    /// Every block shifted down by `N` bytes.
    #[inline(always)]
    unsafe fn bsrli<const N: i32>(_a: Self) -> Self {
        unreachable!("XEX units run on the wide lanes only")
    }
    /// Block `l` (`< BLOCKS`) of `v` in every block.
    #[inline(always)]
    unsafe fn splat_block(_v: Self, _l: usize) -> Self {
        unreachable!("XEX units run on the wide lanes only")
    }
    /// Block l the 128-bit integer `base + first + l` (mod 2^128), its
    /// low qword first.
    #[inline(always)]
    unsafe fn counters(_base: u128, _first: usize) -> Self {
        unreachable!("XEX units run on the wide lanes only")
    }

    // ---- Operations the other kernel families (`gd.rs`, `chains.rs`)
    // share; each family's own are its trait (`gd::GdLane`, ...).

    /// `[prev's last block, cur's blocks 0 .. BLOCKS - 1]`: each block's
    /// predecessor.
    unsafe fn shift_in(prev: Self, cur: Self) -> Self;
    /// `v` with block `i` (`< BLOCKS`, public) replaced by `b`.
    unsafe fn insert(v: Self, i: usize, b: __m128i) -> Self;
    /// Block `i` (`< BLOCKS`, public) of `v`.
    unsafe fn pick(v: Self, i: usize) -> __m128i;
}

/// The operations that are one intrinsic each: `$t` the lane's type, then
/// its zero, unaligned load and store, xor, and the four AES rounds.
macro_rules! one_to_one {
    ($t:ident, $zero:ident, $load:ident, $store:ident, $xor:ident,
     $enc:ident, $enclast:ident, $dec:ident, $declast:ident) => {
        #[inline(always)]
        unsafe fn zero() -> Self {
            unsafe { $t($zero()) }
        }
        #[inline(always)]
        unsafe fn load(p: *const Block) -> Self {
            unsafe { $t($load(p.cast())) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut Block, v: Self) {
            unsafe { $store(p.cast(), v.0) }
        }
        #[inline(always)]
        unsafe fn xor(a: Self, b: Self) -> Self {
            unsafe { $t($xor(a.0, b.0)) }
        }
        #[inline(always)]
        unsafe fn aesenc(a: Self, k: Self) -> Self {
            unsafe { $t($enc(a.0, k.0)) }
        }
        #[inline(always)]
        unsafe fn aesenclast(a: Self, k: Self) -> Self {
            unsafe { $t($enclast(a.0, k.0)) }
        }
        #[inline(always)]
        unsafe fn aesdec(a: Self, k: Self) -> Self {
            unsafe { $t($dec(a.0, k.0)) }
        }
        #[inline(always)]
        unsafe fn aesdeclast(a: Self, k: Self) -> Self {
            unsafe { $t($declast(a.0, k.0)) }
        }
    };
}

/// The empty `asm!` of [`Lane::fence`] over eight registers of one class.
macro_rules! fence8 {
    ($class:ident, $x:ident) => {
        core::arch::asm!(
            "/* fence {0} {1} {2} {3} {4} {5} {6} {7} */",
            inout($class) $x[0].0,
            inout($class) $x[1].0,
            inout($class) $x[2].0,
            inout($class) $x[3].0,
            inout($class) $x[4].0,
            inout($class) $x[5].0,
            inout($class) $x[6].0,
            inout($class) $x[7].0,
            options(pure, nomem, nostack, preserves_flags),
        )
    };
}

/// [`Lane::fence`] on ymm registers: compiled with AVX (an `asm!` operand
/// of class `ymm_reg` needs it), inlined into the `vaes256` entries.
#[inline]
#[target_feature(enable = "avx")]
fn fence_ymm(x: &mut [Ymm; 8]) {
    // SAFETY: an empty template: the registers pass unchanged.
    unsafe { fence8!(ymm_reg, x) }
}

/// One block per xmm register (AES-NI).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(super) struct Xmm(pub(super) __m128i);

/// Two blocks per ymm register (VAES-256: VAES, AVX2).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(super) struct Ymm(pub(super) __m256i);

/// Four blocks per zmm register (VAES-512: VAES, AVX-512F/BW).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(super) struct Zmm(pub(super) __m512i);

// SAFETY (every `unsafe` block of the three impls): the caller's guarantees
// (the module docs: the tier's features; pointers valid as each method
// says).
impl Lane for Xmm {
    const BLOCKS: usize = 1;
    // Measured mixed on this lane (2026-11-27-ymm-scheduling: OCB 1.0
    // faster, PMAC slower in one paired run): off until a quiet run.
    const BASE_IN_KEYS: bool = false;
    one_to_one!(
        Xmm,
        _mm_setzero_si128,
        _mm_loadu_si128,
        _mm_storeu_si128,
        _mm_xor_si128,
        _mm_aesenc_si128,
        _mm_aesenclast_si128,
        _mm_aesdec_si128,
        _mm_aesdeclast_si128
    );

    #[inline(always)]
    unsafe fn broadcast(b: __m128i) -> Self {
        Xmm(b)
    }
    #[inline(always)]
    unsafe fn load_n(p: *const Block, _n: usize) -> Self {
        unsafe { Self::load(p) }
    }
    #[inline(always)]
    unsafe fn store_n(p: *mut Block, v: Self, _n: usize) {
        unsafe { Self::store(p, v) }
    }
    #[inline(always)]
    unsafe fn keep_n(v: Self, _n: usize) -> Self {
        v
    }
    #[inline(always)]
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self {
        unsafe { Xmm(_mm_xor_si128(_mm_xor_si128(a.0, b.0), c.0)) }
    }
    #[inline(always)]
    unsafe fn blend_low(c: usize, lo: Self, hi: Self) -> Self {
        if c >= 1 { lo } else { hi }
    }
    #[inline(always)]
    unsafe fn fold(v: Self) -> __m128i {
        v.0
    }
    #[inline(always)]
    unsafe fn fence<const V: usize>(x: &mut [Self; V]) {
        if let Ok(x) = <&mut [Self; 8]>::try_from(&mut x[..]) {
            // SAFETY: an empty template: the registers pass unchanged.
            unsafe { fence8!(xmm_reg, x) }
        }
    }

    // ---- The other kernel families.
    #[inline(always)]
    unsafe fn shift_in(prev: Self, _cur: Self) -> Self {
        prev
    }
    #[inline(always)]
    unsafe fn insert(_v: Self, _i: usize, b: __m128i) -> Self {
        Xmm(b)
    }
    #[inline(always)]
    unsafe fn pick(v: Self, _i: usize) -> __m128i {
        v.0
    }
}

impl Lane for Ymm {
    const BLOCKS: usize = 2;
    one_to_one!(
        Ymm,
        _mm256_setzero_si256,
        _mm256_loadu_si256,
        _mm256_storeu_si256,
        _mm256_xor_si256,
        _mm256_aesenc_epi128,
        _mm256_aesenclast_epi128,
        _mm256_aesdec_epi128,
        _mm256_aesdeclast_epi128
    );

    #[inline(always)]
    unsafe fn broadcast(b: __m128i) -> Self {
        unsafe { Ymm(_mm256_broadcastsi128_si256(b)) }
    }
    #[inline(always)]
    unsafe fn load_n(p: *const Block, n: usize) -> Self {
        // The one block of a partial register: a 16-byte load into the low
        // half, the high half zero (nothing past the block read).
        unsafe {
            if n >= 2 {
                Self::load(p)
            } else {
                Ymm(_mm256_zextsi128_si256(_mm_loadu_si128(p.cast())))
            }
        }
    }
    #[inline(always)]
    unsafe fn store_n(p: *mut Block, v: Self, n: usize) {
        // A partial register stores its low half only (16 bytes).
        unsafe {
            if n >= 2 {
                Self::store(p, v)
            } else {
                _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(v.0))
            }
        }
    }
    #[inline(always)]
    unsafe fn keep_n(v: Self, n: usize) -> Self {
        unsafe {
            if n >= 2 {
                v
            } else {
                Ymm(_mm256_zextsi128_si256(_mm256_castsi256_si128(v.0)))
            }
        }
    }
    #[inline(always)]
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self {
        unsafe { Ymm(_mm256_xor_si256(_mm256_xor_si256(a.0, b.0), c.0)) }
    }
    #[inline(always)]
    unsafe fn blend_low(c: usize, lo: Self, hi: Self) -> Self {
        unsafe {
            match c {
                0 => hi,
                1 => Ymm(_mm256_blend_epi32::<0xf0>(lo.0, hi.0)),
                _ => lo,
            }
        }
    }
    #[inline(always)]
    unsafe fn fold(v: Self) -> __m128i {
        unsafe {
            _mm_xor_si128(
                _mm256_castsi256_si128(v.0),
                _mm256_extracti128_si256::<1>(v.0),
            )
        }
    }
    #[inline(always)]
    unsafe fn fence<const V: usize>(x: &mut [Self; V]) {
        if let Ok(x) = <&mut [Self; 8]>::try_from(&mut x[..]) {
            // SAFETY: the caller's (the CPU has AVX); the template is empty.
            unsafe { fence_ymm(x) }
        }
    }

    // ---- The other kernel families.
    #[inline(always)]
    unsafe fn shift_in(prev: Self, cur: Self) -> Self {
        // [prev's high block, cur's low block].
        unsafe { Ymm(_mm256_permute2x128_si256::<0x21>(prev.0, cur.0)) }
    }
    #[inline(always)]
    unsafe fn insert(v: Self, i: usize, b: __m128i) -> Self {
        unsafe {
            if i == 0 {
                Ymm(_mm256_blend_epi32::<0x0f>(v.0, _mm256_castsi128_si256(b)))
            } else {
                Ymm(_mm256_inserti128_si256::<1>(v.0, b))
            }
        }
    }
    #[inline(always)]
    unsafe fn pick(v: Self, i: usize) -> __m128i {
        unsafe {
            if i == 0 {
                _mm256_castsi256_si128(v.0)
            } else {
                _mm256_extracti128_si256::<1>(v.0)
            }
        }
    }
    #[inline(always)]
    unsafe fn shuffle(a: Self, idx: Self) -> Self {
        unsafe { Ymm(_mm256_shuffle_epi8(a.0, idx.0)) }
    }
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(a: Self, b: Self) -> Self {
        unsafe { Ymm(_mm256_clmulepi64_epi128::<IMM>(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn bslli<const N: i32>(a: Self) -> Self {
        unsafe { Ymm(_mm256_bslli_epi128::<N>(a.0)) }
    }
    #[inline(always)]
    unsafe fn bsrli<const N: i32>(a: Self) -> Self {
        unsafe { Ymm(_mm256_bsrli_epi128::<N>(a.0)) }
    }
    #[inline(always)]
    unsafe fn splat_block(v: Self, l: usize) -> Self {
        unsafe {
            let idx = _mm256_add_epi32(
                _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3),
                _mm256_set1_epi32(4 * l as i32),
            );
            Ymm(_mm256_permutevar8x32_epi32(v.0, idx))
        }
    }
    #[inline(always)]
    unsafe fn counters(base: u128, first: usize) -> Self {
        let a = base.wrapping_add(first as u128);
        let b = a.wrapping_add(1);
        let q = |x: u128, h: u32| (x >> h) as u64 as i64;
        unsafe { Ymm(_mm256_set_epi64x(q(b, 64), q(b, 0), q(a, 64), q(a, 0))) }
    }
}

impl Lane for Zmm {
    const BLOCKS: usize = 4;
    // (The rounds take port 0 alone; as measured before, 2026-11-27.)
    const BASE_IN_KEYS: bool = false;
    one_to_one!(
        Zmm,
        _mm512_setzero_si512,
        _mm512_loadu_si512,
        _mm512_storeu_si512,
        _mm512_xor_si512,
        _mm512_aesenc_epi128,
        _mm512_aesenclast_epi128,
        _mm512_aesdec_epi128,
        _mm512_aesdeclast_epi128
    );

    #[inline(always)]
    unsafe fn broadcast(b: __m128i) -> Self {
        unsafe { Zmm(_mm512_broadcast_i32x4(b)) }
    }
    #[inline(always)]
    unsafe fn load_n(p: *const Block, n: usize) -> Self {
        // Masked: the lanes of blocks from n on are not accessed.
        unsafe { Zmm(_mm512_maskz_loadu_epi64(zmask(n), p.cast())) }
    }
    #[inline(always)]
    unsafe fn store_n(p: *mut Block, v: Self, n: usize) {
        unsafe { _mm512_mask_storeu_epi64(p.cast(), zmask(n), v.0) }
    }
    #[inline(always)]
    unsafe fn keep_n(v: Self, n: usize) -> Self {
        unsafe { Zmm(_mm512_maskz_mov_epi64(zmask(n), v.0)) }
    }
    #[inline(always)]
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self {
        unsafe { Zmm(_mm512_ternarylogic_epi64::<0x96>(a.0, b.0, c.0)) }
    }
    #[inline(always)]
    unsafe fn blend_low(c: usize, lo: Self, hi: Self) -> Self {
        // Mask bits set: from `hi` (blocks c.. : qwords 2c..).
        let m = (0xffu32 << (2 * c)) as u8;
        unsafe { Zmm(_mm512_mask_blend_epi64(m, lo.0, hi.0)) }
    }
    #[inline(always)]
    unsafe fn fold(v: Self) -> __m128i {
        unsafe { xor_lanes(v.0) }
    }
    #[inline(always)]
    unsafe fn shuffle(a: Self, idx: Self) -> Self {
        unsafe { Zmm(_mm512_shuffle_epi8(a.0, idx.0)) }
    }
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(a: Self, b: Self) -> Self {
        unsafe { Zmm(_mm512_clmulepi64_epi128::<IMM>(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn bslli<const N: i32>(a: Self) -> Self {
        unsafe { Zmm(_mm512_bslli_epi128::<N>(a.0)) }
    }
    #[inline(always)]
    unsafe fn bsrli<const N: i32>(a: Self) -> Self {
        unsafe { Zmm(_mm512_bsrli_epi128::<N>(a.0)) }
    }
    #[inline(always)]
    unsafe fn splat_block(v: Self, l: usize) -> Self {
        unsafe {
            let idx = _mm512_add_epi64(
                _mm512_set_epi64(1, 0, 1, 0, 1, 0, 1, 0),
                _mm512_set1_epi64(2 * l as i64),
            );
            Zmm(_mm512_permutexvar_epi64(idx, v.0))
        }
    }
    #[inline(always)]
    unsafe fn counters(base: u128, first: usize) -> Self {
        // The low qwords summed, a carry into the high one where they wrapped.
        unsafe {
            let (lo, hi) = (base as u64 as i64, (base >> 64) as u64 as i64);
            let b = _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo);
            let lanes = _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0);
            let low = _mm512_add_epi64(lanes, _mm512_maskz_set1_epi64(0x55, first as i64));
            let sum = _mm512_add_epi64(b, low);
            let wrapped = _mm512_cmplt_epu64_mask(sum, b) & 0x55;
            Zmm(_mm512_mask_add_epi64(
                sum,
                wrapped << 1,
                sum,
                _mm512_set1_epi64(1),
            ))
        }
    }

    // ---- The other kernel families.
    #[inline(always)]
    unsafe fn shift_in(prev: Self, cur: Self) -> Self {
        // [prev's block 3, cur's blocks 0..2].
        unsafe { Zmm(_mm512_alignr_epi64::<6>(cur.0, prev.0)) }
    }
    #[inline(always)]
    unsafe fn insert(v: Self, i: usize, b: __m128i) -> Self {
        unsafe {
            Zmm(_mm512_mask_broadcast_i32x4(
                v.0,
                (0xfu32 << (4 * i)) as u16,
                b,
            ))
        }
    }
    #[inline(always)]
    unsafe fn pick(v: Self, i: usize) -> __m128i {
        let m = (0b11u32 << (2 * i)) as u8;
        unsafe { _mm512_castsi512_si128(_mm512_maskz_compress_epi64(m, v.0)) }
    }
}

/// The qword mask of a zmm register's first `n` blocks (`n <= 4`).
#[inline(always)]
fn zmask(n: usize) -> __mmask8 {
    (0xffu32 >> (8 - 2 * n.min(4))) as u8
}

/// The xor of a register's four blocks (an accumulator's lanes folded into
/// one sum).
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn xor_lanes(v: __m512i) -> __m128i {
    _mm_xor_si128(
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<0>(v),
            _mm512_extracti32x4_epi32::<1>(v),
        ),
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(v),
            _mm512_extracti32x4_epi32::<3>(v),
        ),
    )
}
