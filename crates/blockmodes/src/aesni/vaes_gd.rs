//! The Gligor–Donescu shapes on VAES-512 (with AVX-512BW): offsets
//! `i·r0` added to (XECB) or subtracted from (XCBC decryption) the blocks
//! as 128-bit big-endian integers, in registers.
//!
//! Two registers of four blocks (a pair: eight blocks) are split into the
//! eight blocks' low and high 64-bit halves as integers by a `vpshufb`
//! byte reversal of each and `vpunpck{l,h}qdq` (single-uop shuffles, off
//! the AES port); the 128-bit addition is `vpaddq` on both, the low
//! halves' carry an unsigned compare into a mask and a masked `vpsubq` of
//! -1 on the high halves; two unpacks and two `vpshufb` put the blocks
//! back. The offsets of the next pair live in the same split form and
//! advance by `8 r0` (one more 128-bit addition). Per four blocks on top
//! of the rounds: four shuffles, three or four additions, one compare,
//! the key xor and the sum.
//!
//! * XECB: `E(x + i r0)`, the outputs xored into a sum, nothing stored.
//! * XCBC decryption: `z = y - i r0`, `E^-1(z) xor z_prev`, where `z_prev`
//!   (the previous block's `z`, one `valignq` of this register and the one
//!   before) is folded into the last round key; outputs stored and summed;
//!   optionally the last block is the check block, returned instead.

use core::arch::x86_64::*;

use super::GdJob;
use super::schedule::{load, store};
use crate::arith::gf128::Block;

/// Blocks per full batch (eight registers).
const BATCH: usize = 32;

#[repr(C, align(64))]
pub(super) struct Idx([u8; 64]);

/// A table of indices as a vector.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn idx(t: &'static Idx) -> __m512i {
    // SAFETY: `t` is 64 bytes, aligned to 64.
    unsafe { _mm512_load_si512(t.0.as_ptr().cast()) }
}

/// The loop's constants: round keys (broadcast) and permutation indices.
struct Consts {
    k: [__m512i; 15],
    /// `vpshufb` indices reversing the bytes of each 128-bit lane.
    bswap: __m512i,
}

/// `vpshufb` indices: byte j of each 16-byte lane from byte 15 - j.
pub(super) static BSWAP: Idx = Idx({
    let mut idx = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        idx[j] = (15 - j % 16) as u8;
        j += 1;
    }
    idx
});

/// Two registers of big-endian blocks (blocks 0..3 in `a`, 4..7 in `b`)
/// as their low and high 64-bit halves, little-endian integers: element
/// `e` from block `e / 2 + 4 (e % 2)`. A byte reversal per
/// register (`vpshufb`) and `vpunpck{l,h}qdq`: single-uop shuffles that
/// stay off the AES port (a two-table `vpermt2b` is three uops, one of
/// which may take it).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn split(bswap: __m512i, a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    let a = _mm512_shuffle_epi8(a, bswap);
    let b = _mm512_shuffle_epi8(b, bswap);
    (_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b))
}

/// The inverse of [`split`]: the halves back to the two registers.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn join(bswap: __m512i, lo: __m512i, hi: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_shuffle_epi8(_mm512_unpacklo_epi64(lo, hi), bswap),
        _mm512_shuffle_epi8(_mm512_unpackhi_epi64(lo, hi), bswap),
    )
}

/// The offsets `i r0` of the next pair's eight blocks (in [`split`]'s
/// order: element e for block e / 2 + 4 (e % 2)) split into low and high
/// halves, and what a pair adds (`8 r0`).
struct Off {
    lo: __m512i,
    hi: __m512i,
    step_lo: __m512i,
    step_hi: __m512i,
    /// `step_hi + 1` (the advance with a carry).
    step_hi1: __m512i,
}

impl Off {
    /// The offsets of the pair after: `+ 8 r0`. With `SEL` (XCBC
    /// decryption's steady state) the low halves' carry picks `step_hi + 1`
    /// over `step_hi` by a merge-masked `vpermq` (a shuffle: off the AES
    /// port; in `asm!` because the compiler turns a masked identity shuffle
    /// into `vpblendmq`, which may take that port): 0.73 -> 0.75x ECB at
    /// 16 KiB in `aesni::bench`. It is two cycles longer on the offsets'
    /// chain, so batches whose whitening waits (the first, the tail) keep
    /// [`add128`]; XECB's loop ran 2.5% slower with it and keeps it too.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn advance<const SEL: bool>(&mut self) {
        if !SEL {
            (self.lo, self.hi) = add128(self.lo, self.hi, self.step_lo, self.step_hi);
            return;
        }
        self.lo = _mm512_add_epi64(self.lo, self.step_lo);
        let carry = _mm512_cmplt_epu64_mask(self.lo, self.step_lo);
        let mut step = self.step_hi;
        // SAFETY: register operands only; AVX-512F is enabled.
        unsafe {
            core::arch::asm!(
                "vpermq {s} {{{k}}}, {i}, {t}",
                s = inout(zmm_reg) step,
                k = in(kreg) carry,
                i = in(zmm_reg) _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                t = in(zmm_reg) self.step_hi1,
                options(pure, nomem, nostack),
            );
        }
        self.hi = _mm512_add_epi64(self.hi, step);
    }
}

/// `a + b` mod 2^128 on split halves.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn add128(alo: __m512i, ahi: __m512i, blo: __m512i, bhi: __m512i) -> (__m512i, __m512i) {
    let lo = _mm512_add_epi64(alo, blo);
    let carry = _mm512_cmplt_epu64_mask(lo, blo);
    let hi = _mm512_add_epi64(ahi, bhi);
    (
        lo,
        _mm512_mask_sub_epi64(hi, carry, hi, _mm512_set1_epi64(-1)),
    )
}

/// `a - b` mod 2^128 on split halves.
#[inline]
#[target_feature(enable = "avx512f")]
fn sub128(alo: __m512i, ahi: __m512i, blo: __m512i, bhi: __m512i) -> (__m512i, __m512i) {
    let borrow = _mm512_cmplt_epu64_mask(alo, blo);
    let lo = _mm512_sub_epi64(alo, blo);
    let hi = _mm512_sub_epi64(ahi, bhi);
    (
        lo,
        _mm512_mask_add_epi64(hi, borrow, hi, _mm512_set1_epi64(-1)),
    )
}

/// The masks of a batch's last register: lanes loaded from `src`
/// (`load`), lanes taking the job's `last` block (`insert`, four bits per
/// lane), lanes stored and summed (`keep`). Two bits per lane (64-bit
/// elements); `0xff` for a full register.
#[derive(Clone, Copy)]
struct Masks {
    load: u8,
    insert: u16,
    keep: u8,
}

const FULL: Masks = Masks {
    load: 0xff,
    insert: 0,
    keep: 0xff,
};

/// Run `job` with `NR` rounds: XECB's sum (`DEC = false`) or XCBC
/// decryption (`DEC = true`); returns the sum of the kept outputs.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW and VAES. `job.src`
/// must be valid for `job.n_src` blocks, `job.last` (unless null) for one,
/// `job.dst` (with `DEC`) for `job.n_out` blocks, `job.check` (unless
/// null) for one; `src` and `dst` equal or disjoint.
#[target_feature(enable = "avx512f,avx512bw,vaes")]
pub(super) unsafe fn run<const NR: usize, const DEC: bool>(job: &GdJob<'_>) -> Block {
    let mut k = [_mm512_setzero_si512(); 15];
    for (kr, b) in k.iter_mut().zip(job.keys.iter()).take(NR + 1) {
        *kr = _mm512_broadcast_i32x4(load(b));
    }
    let c = Consts {
        k,
        bswap: idx(&BSWAP),
    };
    // Offsets of blocks first .. first + 7, as (low, high) halves in
    // [`split`]'s order (element e: block e / 2 + 4 (e % 2)): the base
    // `first r0` in every element, then `r0`, `2 r0`, `4 r0` added to the
    // elements whose block has that bit set (e's bit 1, 2, 0; in
    // registers: eight 8-byte stores read back as one vector would wait
    // for the stores to retire).
    let half = |v: u128| {
        (
            _mm512_set1_epi64(v as u64 as i64),
            _mm512_set1_epi64((v >> 64) as u64 as i64),
        )
    };
    let (mut lo, mut hi) = half(job.first.wrapping_mul(job.r0));
    for (bit, mask) in [(1u128, 0xccu8), (2, 0xf0), (4, 0xaa)] {
        let (tlo, thi) = half(job.r0.wrapping_mul(bit));
        lo = _mm512_mask_add_epi64(lo, mask, lo, tlo);
        let carry = _mm512_mask_cmplt_epu64_mask(mask, lo, tlo);
        hi = _mm512_mask_add_epi64(hi, mask, hi, thi);
        hi = _mm512_mask_sub_epi64(hi, carry, hi, _mm512_set1_epi64(-1));
    }
    let step = job.r0.wrapping_mul(8);
    let (step_lo, step_hi) = half(step);
    let mut off = Off {
        lo,
        hi,
        step_lo,
        step_hi,
        step_hi1: half(step.wrapping_add(1 << 64)).1,
    };
    let last = if job.last.is_null() {
        _mm_setzero_si128()
    } else {
        // SAFETY: `job.last`, when not null, is valid for one block.
        unsafe { _mm_loadu_si128(job.last.cast()) }
    };
    // z of the block before the batch (lane 3), for XCBC's `xor z_prev`.
    let mut prev = _mm512_broadcast_i32x4(load(&job.prev));
    let mut acc = _mm512_setzero_si512();
    // An odd number of XECB registers summed through `aesenclast`'s key.
    let mut chained = false;
    let n = job.n;
    let mut i = 0;
    if n > BATCH {
        // SAFETY: the full batches end before block n - 1, so below
        // `n_src` (`last`, if any, is block n - 1) and below `n_out` (a
        // check block, if any, is block n - 1).
        i = unsafe {
            if DEC {
                bulk_dec::<NR>(&c, job.src, job.dst, n - 1, &mut off, &mut prev, &mut acc)
            } else {
                bulk_sum::<NR>(&c, job.src, n - 1, &mut off, &mut acc, &mut chained)
            }
        };
    }
    if n > i {
        let rem = n - i;
        let nv = rem.div_ceil(4);
        let base = i + 4 * (nv - 1); // the last register's first block
        let lanes = |count: usize| (0xffffu32 >> (16 - 2 * count.min(4))) as u8;
        let from_src = job.n_src.saturating_sub(base);
        let insert = if job.last.is_null() {
            0
        } else {
            (0xfu32 << (4 * (n - 1 - base))) as u16
        };
        let kept = job.n_out.min(n).saturating_sub(base);
        let m = Masks {
            load: lanes(from_src),
            insert,
            keep: if DEC {
                lanes(kept)
            } else {
                lanes(rem - 4 * (nv - 1))
            },
        };
        macro_rules! tail {
            ($v:literal) => {
                // SAFETY: the blocks of the first `$v - 1` registers are
                // below n - 1 (as in the loop); the last register loads
                // only the lanes below `n_src` and stores only the lanes
                // below `n_out` (masked-out lanes are not accessed).
                unsafe {
                    batch::<$v, NR, DEC>(
                        &c,
                        job.src.add(i),
                        job.dst.wrapping_add(i),
                        m,
                        last,
                        &mut off,
                        &mut prev,
                        &mut acc,
                        &mut chained,
                    )
                }
            };
        }
        let out = match nv {
            1 => tail!(1),
            2 => tail!(2),
            3 => tail!(3),
            4 => tail!(4),
            5 => tail!(5),
            6 => tail!(6),
            7 => tail!(7),
            _ => tail!(8),
        };
        if DEC && !job.check.is_null() && job.n_out < n {
            // The check block is lane n - 1 - base of the last register.
            let lane = (n - 1 - base) as u32;
            let c = _mm512_maskz_compress_epi64((0b11u32 << (2 * lane)) as u8, out);
            // SAFETY: `job.check` is valid for one block.
            unsafe { _mm_storeu_si128(job.check.cast(), _mm512_castsi512_si128(c)) };
        }
    }
    if chained {
        acc = _mm512_xor_si512(acc, c.k[NR]);
    }
    let a = super::vaes::xor_lanes(acc);
    store(a)
}

/// XECB's full batches of 32 blocks that end before block `end` (see
/// [`bulk_dec`]).
///
/// # Safety
/// `src` valid for the blocks below `end` (rounded down to a multiple
/// of 32).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
unsafe fn bulk_sum<const NR: usize>(
    c: &Consts,
    src: *const Block,
    end: usize,
    off: &mut Off,
    acc: &mut __m512i,
    chained: &mut bool,
) -> usize {
    const DEC: bool = false;
    let mut prev = _mm512_setzero_si512();
    let batches = end / BATCH;
    let k = &c.k;
    // SAFETY: batch 0 is below `end` (the caller has at least one).
    let (mut z, kl) =
        unsafe { whiten::<8, NR, DEC>(c, src, FULL, _mm_setzero_si128(), off, &mut prev) };
    for b in 0..batches {
        let mut x = [_mm512_setzero_si512(); 8];
        for (xv, zv) in x.iter_mut().zip(z.iter()) {
            *xv = _mm512_xor_si512(*zv, k[0]);
        }
        let kl_now = kl;
        let more = b + 1 < batches;
        let next = src.wrapping_add(BATCH * (b + 1));
        // The rounds, with one pair of the next batch whitened after each
        // of the first four: the vector ALU work sits between the AES
        // instructions in program order (issued in one lump it measured
        // slower: 0.78 against 0.8x of ECB). (A counted loop: `r` also
        // picks the pair.)
        #[allow(clippy::needless_range_loop)]
        for r in 1..NR {
            for xv in x.iter_mut() {
                *xv = _mm512_aesenc_epi128(*xv, k[r]);
            }
            if more && r <= 4 {
                let p = 2 * (r - 1);
                // SAFETY: batch b + 1 is below `end`.
                let (za, zb) = unsafe { pair::<DEC, DEC>(c, next.add(4 * p), off) };
                z[p] = za;
                z[p + 1] = zb;
            }
        }
        // SAFETY: batch b is below `end`.
        unsafe { last::<8, NR, DEC>(x, kl_now, core::ptr::null_mut(), FULL, acc, chained) };
    }
    batches * BATCH
}

/// XCBC decryption's full batches of 32 blocks that end before block
/// `end`, software pipelined: the next batch's offsets and whitening sit
/// between this batch's rounds in program order, so that they run on the
/// vector ALU port while the rounds occupy the AES port (issued in one
/// lump after the rounds they measured slower: 0.78 against 0.85x of ECB
/// for XECB), and the next rounds start as soon as these are done.
/// Returns the blocks done.
///
/// # Safety
/// `src` and `dst` valid for the blocks below `end` (rounded down to a
/// multiple of 32).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
#[allow(clippy::too_many_arguments)]
unsafe fn bulk_dec<const NR: usize>(
    c: &Consts,
    src: *const Block,
    dst: *mut Block,
    end: usize,
    off: &mut Off,
    prev: &mut __m512i,
    acc: &mut __m512i,
) -> usize {
    const DEC: bool = true;
    let batches = end / BATCH;
    let k = &c.k;
    let zero = _mm512_setzero_si512();
    // XCBC: `w = z xor K_last` of each batch, double-buffered: register 0
    // holds the batch before's last four (lane 3: its last block), then
    // the batch's eight. The last round's key of register v, `z_prev xor
    // K_last` of its four blocks, is the 64 bytes one block before
    // register v: an unaligned load, used as `aesdeclast`'s memory operand
    // (no register held across the rounds, no lane shuffle).
    let mut wb = [[zero; 9]; 2];
    let mut x = [zero; 8];
    // The first batch.
    for q in 0..4 {
        // SAFETY: batch 0 is below `end` (the caller has at least one).
        let (za, zb) = unsafe { pair::<DEC, false>(c, src.add(8 * q), off) };
        x[2 * q] = za;
        x[2 * q + 1] = zb;
    }
    wb[0][0] = _mm512_xor_si512(*prev, k[NR]);
    for (w, z) in wb[0][1..].iter_mut().zip(x.iter()) {
        *w = _mm512_xor_si512(*z, k[NR]);
    }
    for b in 0..batches {
        for xv in x.iter_mut() {
            *xv = _mm512_xor_si512(*xv, k[0]);
        }
        let (cur, nxt) = (b & 1, (b + 1) & 1);
        let more = b + 1 < batches;
        let next = src.wrapping_add(BATCH * (b + 1));
        let mut z = [zero; 8];
        if more {
            wb[nxt][0] = wb[cur][8];
        }
        // The rounds, with one pair of the next batch whitened after each
        // of the first four: the vector ALU work sits between the AES
        // instructions in program order (issued in one lump it measured
        // slower: 0.78 against 0.8x of ECB). (A counted loop: `r` also
        // picks the pair.)
        #[allow(clippy::needless_range_loop)]
        for r in 1..NR {
            for xv in x.iter_mut() {
                *xv = _mm512_aesdec_epi128(*xv, k[r]);
            }
            if more && r <= 4 {
                let p = 2 * (r - 1);
                // SAFETY: batch b + 1 is below `end`.
                let (za, zb) = unsafe { pair::<DEC, DEC>(c, next.add(4 * p), off) };
                z[p] = za;
                z[p + 1] = zb;
                wb[nxt][p + 1] = _mm512_xor_si512(za, k[NR]);
                wb[nxt][p + 2] = _mm512_xor_si512(zb, k[NR]);
            }
        }
        let wbase = wb[cur].as_ptr().cast::<u8>();
        for (v, xv) in x.iter().enumerate() {
            // SAFETY: bytes 48 + 64 v .. 112 + 64 v of the nine
            // registers of `wb[cur]` (576 bytes).
            let kl = unsafe { _mm512_loadu_si512(wbase.add(48 + 64 * v).cast()) };
            let o = _mm512_aesdeclast_epi128(*xv, kl);
            *acc = _mm512_xor_si512(*acc, o);
            // SAFETY: batch b is below `end`.
            unsafe { _mm512_storeu_si512(dst.add(BATCH * b + 4 * v).cast(), o) };
        }
        if more {
            x = z;
        } else {
            // z of the last block (lane 3) for the batches after these.
            *prev = _mm512_xor_si512(wb[cur][8], k[NR]);
        }
    }
    // Wipe the z values (with the ciphertext they give r0 away).
    wb = [[zero; 9]; 2];
    core::hint::black_box(&wb);
    batches * BATCH
}

/// Two full registers (eight blocks) at `src` whitened: `z = y -+ i r0`;
/// the offsets advanced as [`Off::advance`] with `SEL`.
///
/// # Safety
/// `src` valid for eight blocks.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
unsafe fn pair<const DEC: bool, const SEL: bool>(
    c: &Consts,
    src: *const Block,
    off: &mut Off,
) -> (__m512i, __m512i) {
    // SAFETY: the caller's.
    let (a, b) = unsafe {
        (
            _mm512_loadu_si512(src.cast()),
            _mm512_loadu_si512(src.add(4).cast()),
        )
    };
    let (lo, hi) = split(c.bswap, a, b);
    let (lo, hi) = if DEC {
        sub128(lo, hi, off.lo, off.hi)
    } else {
        add128(lo, hi, off.lo, off.hi)
    };
    off.advance::<SEL>();
    join(c.bswap, lo, hi)
}

/// A batch's whitening: loads (the lanes of the last register in
/// `m.load`, `last` into the lanes of `m.insert`), `z = y -+ i r0`, and the
/// last round's keys (`K_last`, or for XCBC `z_prev xor K_last`).
///
/// # Safety
/// `src` valid for the first `V - 1` registers and the lanes of the last
/// in `m.load`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
unsafe fn whiten<const V: usize, const NR: usize, const DEC: bool>(
    c: &Consts,
    src: *const Block,
    m: Masks,
    last: __m128i,
    off: &mut Off,
    prev: &mut __m512i,
) -> ([__m512i; V], [__m512i; V]) {
    let zero = _mm512_setzero_si512();
    let mut y = [zero; V];
    for (v, yv) in y.iter_mut().enumerate() {
        let p = src.wrapping_add(4 * v);
        *yv = if v + 1 == V && m.load != 0xff {
            // SAFETY: the caller's: the lanes in `m.load` are valid.
            unsafe { _mm512_maskz_loadu_epi64(m.load, p.cast()) }
        } else {
            // SAFETY: the caller's: a full register.
            unsafe { _mm512_loadu_si512(p.cast()) }
        };
    }
    if m.insert != 0 {
        y[V - 1] = _mm512_mask_broadcast_i32x4(y[V - 1], m.insert, last);
    }
    // z = y -+ i r0, a pair of registers at a time.
    let mut z = [zero; V];
    let mut v = 0;
    while v < V {
        let a = y[v];
        let b = if v + 1 < V { y[v + 1] } else { zero };
        let (lo, hi) = split(c.bswap, a, b);
        let (lo, hi) = if DEC {
            sub128(lo, hi, off.lo, off.hi)
        } else {
            add128(lo, hi, off.lo, off.hi)
        };
        let (za, zb) = join(c.bswap, lo, hi);
        z[v] = za;
        if v + 1 < V {
            z[v + 1] = zb;
        }
        off.advance::<false>();
        v += 2;
    }
    let k = &c.k;
    let mut kl = [k[NR]; V];
    if DEC {
        for v in 0..V {
            let before = if v == 0 { *prev } else { z[v - 1] };
            // (z_{t-1} of the register's four blocks: lane 3 of the
            // register before, then lanes 0..2 of this one.)
            kl[v] = _mm512_xor_si512(_mm512_alignr_epi64::<6>(z[v], before), k[NR]);
        }
        *prev = z[V - 1];
    }
    (z, kl)
}

/// A batch's rounds from the whitened states `x` (`z xor K0`) with the
/// last round's keys `kl`; the outputs (lanes of the last register in
/// `m.keep`) summed and, with `DEC`, stored. Returns the last register's
/// outputs.
///
/// # Safety
/// With `DEC`, `dst` valid for the first `V - 1` registers and the lanes
/// of the last in `m.keep`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
unsafe fn rounds<const V: usize, const NR: usize, const DEC: bool>(
    c: &Consts,
    mut x: [__m512i; V],
    kl: [__m512i; V],
    dst: *mut Block,
    m: Masks,
    acc: &mut __m512i,
    chained: &mut bool,
) -> __m512i {
    let k = &c.k;
    for kr in &k[1..NR] {
        for xv in x.iter_mut() {
            *xv = if DEC {
                _mm512_aesdec_epi128(*xv, *kr)
            } else {
                _mm512_aesenc_epi128(*xv, *kr)
            };
        }
    }
    // SAFETY: the caller's.
    unsafe { last::<V, NR, DEC>(x, kl, dst, m, acc, chained) }
}

/// A batch's last round (keys `kl`), the sum of the outputs (lanes of the
/// last register in `m.keep`) and, with `DEC`, their stores. Returns the
/// last register's outputs.
///
/// # Safety
/// As [`rounds`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
unsafe fn last<const V: usize, const NR: usize, const DEC: bool>(
    x: [__m512i; V],
    kl: [__m512i; V],
    dst: *mut Block,
    m: Masks,
    acc: &mut __m512i,
    chained: &mut bool,
) -> __m512i {
    let mut out = _mm512_setzero_si512();
    for v in 0..V {
        let full = v + 1 < V || m.keep == 0xff;
        if !DEC && full {
            // XECB's sum through the last round's key, no xor of its own:
            // `aesenclast(x, acc)` is `E(x) xor K_last xor acc`; `run`
            // removes the K_last of an odd count at the end.
            *acc = _mm512_aesenclast_epi128(x[v], *acc);
            *chained ^= true;
            continue;
        }
        let o = if DEC {
            _mm512_aesdeclast_epi128(x[v], kl[v])
        } else {
            _mm512_aesenclast_epi128(x[v], kl[v])
        };
        *acc = if full {
            _mm512_xor_si512(*acc, o)
        } else {
            _mm512_xor_si512(*acc, _mm512_maskz_mov_epi64(m.keep, o))
        };
        if DEC {
            let p = dst.wrapping_add(4 * v);
            if full {
                // SAFETY: the caller's: a full register.
                unsafe { _mm512_storeu_si512(p.cast(), o) }
            } else {
                // SAFETY: the caller's: the lanes in `m.keep` are valid.
                unsafe { _mm512_mask_storeu_epi64(p.cast(), m.keep, o) }
            }
        }
        out = o;
    }
    out
}

/// One batch of `V` registers from `src` (to `dst` with `DEC`): offsets,
/// rounds, sum, stores. Returns the last register's outputs.
///
/// # Safety
/// `src` valid for the first `V - 1` registers and the lanes of the last
/// in `m.load`; with `DEC`, `dst` likewise for `m.keep`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
#[allow(clippy::too_many_arguments)]
unsafe fn batch<const V: usize, const NR: usize, const DEC: bool>(
    c: &Consts,
    src: *const Block,
    dst: *mut Block,
    m: Masks,
    last: __m128i,
    off: &mut Off,
    prev: &mut __m512i,
    acc: &mut __m512i,
    chained: &mut bool,
) -> __m512i {
    // SAFETY: the caller's.
    let (z, kl) = unsafe { whiten::<V, NR, DEC>(c, src, m, last, off, prev) };
    let mut x = [_mm512_setzero_si512(); V];
    for (xv, zv) in x.iter_mut().zip(z.iter()) {
        *xv = _mm512_xor_si512(*zv, c.k[0]);
    }
    // SAFETY: the caller's.
    unsafe { rounds::<V, NR, DEC>(c, x, kl, dst, m, acc, chained) }
}
