//! The Gligor–Donescu shapes, written once for every lane width
//! (`lane.rs`): offsets `i·r0` added to (XECB) or subtracted from (XCBC
//! decryption) the blocks as 128-bit big-endian integers, made in
//! registers. Each tier instantiates [`run`] in its `#[target_feature]`
//! entry ([`GdLane::gd`]).
//!
//! * XECB: `E(x + i r0)`, the outputs xored into a sum, nothing stored.
//! * XCBC decryption: `z = y - i r0`, `E^-1(z) xor z_prev`, where `z_prev`
//!   (the previous block's `z`) is folded into the last round key;
//!   outputs stored and summed; optionally the last block is the check
//!   block, returned instead.
//!
//! The offsets live in the lane's own form ([`GdLane::GdOff`]) and are
//! applied to a pair of registers at a time ([`GdLane::gd_pair`]):
//!
//! | lane | a pair | the 128-bit addition |
//! | --- | --- | --- |
//! | Xmm | 2 blocks | general-purpose registers (add with carry), byte swaps |
//! | Ymm | 4 blocks | split into 64-bit halves (`vpshufb`, `vpunpck{l,h}qdq`), `vpaddq`, the carry by a biased `vpcmpgtq` |
//! | Zmm | 8 blocks | split as on Ymm, the carry an unsigned compare into a mask and a masked `vpsubq` |
//!
//! Eight registers per batch, the remainder as one batch of as many as it
//! needs, the last one partial (`Lane::load_n`/`store_n`: nothing padded,
//! nothing past the blocks touched). The full batches are software
//! pipelined: the next batch's pairs are whitened between this batch's
//! first rounds (the vector ALU work in program order between the AES
//! instructions: issued in one lump after the rounds it measured slower on
//! VAES-512, 0.78 against 0.85x of ECB for XECB).

use core::arch::x86_64::*;

use super::GdJob;
use super::lane::{Lane, Xmm, Ymm, Zmm};
use super::schedule::{load, store};
use crate::arith::gf128::Block;
use crate::engine::dispatch::by_count8;

/// Registers per full batch.
const REGS: usize = 8;

/// The last register of a batch: blocks loaded from `src` (`from_src`),
/// the block that takes the job's `last` (`insert`), blocks stored and
/// summed (`keep`); each at most `BLOCKS`, `BLOCKS` for a full register.
#[derive(Clone, Copy)]
struct Tail {
    from_src: usize,
    insert: Option<usize>,
    keep: usize,
    last: __m128i,
}

impl Tail {
    /// A full register.
    #[inline(always)]
    fn full<L: GdLane>() -> Self {
        Tail {
            from_src: L::BLOCKS,
            insert: None,
            keep: L::BLOCKS,
            // SAFETY: SSE2, every x86-64 CPU.
            last: unsafe { _mm_setzero_si128() },
        }
    }
}

/// Run `job` with `NR` rounds on lane `L`: XECB's sum (`DEC = false`) or
/// XCBC decryption (`DEC = true`); returns the sum of the kept outputs.
///
/// # Safety
/// The CPU must have `L`'s tier's features. `job.src` must be valid for
/// `job.n_src` blocks, `job.last` (unless null) for one, `job.dst` (with
/// `DEC`) for `job.n_out` blocks, `job.check` (unless null) for one; `src`
/// and `dst` equal or disjoint; `job.n >= 1`.
#[inline(always)]
pub(super) unsafe fn run<L: GdLane, const NR: usize, const DEC: bool>(job: &GdJob<'_>) -> Block {
    // SAFETY: the caller's: the CPU has `L`'s features; pointer accesses
    // are justified where they are.
    unsafe {
        let k = L::round_keys::<NR>(job.keys);
        let mut off = L::gd_start(job.first, job.r0);
        let last = if job.last.is_null() {
            _mm_setzero_si128()
        } else {
            // SAFETY: `job.last`, when not null, is valid for one block.
            _mm_loadu_si128(job.last.cast())
        };
        // z of the block before the batch (its last block), for XCBC's
        // `xor z_prev`.
        let mut prev = L::broadcast(load(&job.prev));
        let mut acc = L::zero();
        // An odd number of XECB registers summed through `aesenclast`'s key.
        let mut chained = false;
        let n = job.n;
        let mut i = 0;
        if n > REGS * L::BLOCKS {
            // SAFETY: the full batches end before block n - 1, so below
            // `n_src` (`last`, if any, is block n - 1) and below `n_out`
            // (a check block, if any, is block n - 1).
            i = if DEC {
                bulk_dec::<L, NR>(&k, job.src, job.dst, n - 1, &mut off, &mut prev, &mut acc)
            } else {
                bulk_sum::<L, NR>(&k, job.src, n - 1, &mut off, &mut acc, &mut chained)
            };
        }
        if n > i {
            let rem = n - i;
            let nv = rem.div_ceil(L::BLOCKS);
            let base = i + L::BLOCKS * (nv - 1); // the last register's first block
            let t = Tail {
                from_src: job.n_src.saturating_sub(base).min(L::BLOCKS),
                insert: (!job.last.is_null()).then(|| n - 1 - base),
                keep: if DEC {
                    job.n_out.min(n).saturating_sub(base).min(L::BLOCKS)
                } else {
                    rem - L::BLOCKS * (nv - 1)
                },
                last,
            };
            macro_rules! tail {
                ($v:literal) => {
                    // SAFETY: the blocks of the first `$v - 1` registers are
                    // below n - 1 (as in the loop); the last register loads
                    // only its blocks below `n_src` and stores only those
                    // below `n_out`.
                    batch::<L, $v, NR, DEC>(
                        &k,
                        job.src.add(i),
                        job.dst.wrapping_add(i),
                        &t,
                        &mut off,
                        &mut prev,
                        &mut acc,
                        &mut chained,
                    )
                };
            }
            let out = by_count8!(nv, tail);
            if DEC && !job.check.is_null() && job.n_out < n {
                // The check block is block n - 1 - base of the last register.
                // SAFETY: `job.check` is valid for one block.
                _mm_storeu_si128(job.check.cast(), L::pick(out, n - 1 - base));
            }
        }
        if chained {
            acc = L::xor(acc, k[NR]);
        }
        let sum = store(L::fold(acc));
        if L::BLOCKS == 1 {
            // The offsets and z give r0 away (with the ciphertext): wiped
            // on the AES-NI lane, as its kernel always did. (Not on the
            // wider lanes: the address taken would keep the state in
            // memory for the kernel's length.)
            L::gd_wipe(&mut off);
            prev = L::zero();
            core::hint::black_box((&off, &prev));
        }
        sum
    }
}

/// XECB's full batches of `8 BLOCKS` blocks that end before block `end`
/// (see [`bulk_dec`]). Returns the blocks done.
///
/// # Safety
/// As [`run`]; `src` valid for the blocks below `end` (rounded down to a
/// whole batch), at least one batch.
#[inline(always)]
unsafe fn bulk_sum<L: GdLane, const NR: usize>(
    k: &[L; 15],
    src: *const Block,
    end: usize,
    off: &mut L::GdOff,
    acc: &mut L,
    chained: &mut bool,
) -> usize {
    const DEC: bool = false;
    const _: () = assert!(REGS == 8, "four pairs, one per round 1..=4");
    let batch_blocks = REGS * L::BLOCKS;
    let batches = end / batch_blocks;
    // SAFETY: the caller's: the CPU has the features; batch 0 is below `end`.
    unsafe {
        let mut prev = L::zero();
        let full = Tail::full::<L>();
        let (mut z, kl) = whiten::<L, REGS, NR, DEC>(k, src, &full, off, &mut prev);
        for b in 0..batches {
            let mut x = [L::zero(); REGS];
            for (xv, zv) in x.iter_mut().zip(z.iter()) {
                *xv = L::xor(*zv, k[0]);
            }
            let more = b + 1 < batches;
            let next = src.wrapping_add(batch_blocks * (b + 1));
            // The rounds, with one pair of the next batch whitened after
            // each of the first four (a counted loop: `r` also picks the
            // pair).
            #[allow(clippy::needless_range_loop)]
            for r in 1..NR {
                for xv in x.iter_mut() {
                    *xv = L::aesenc(*xv, k[r]);
                }
                if more && r <= 4 {
                    let p = 2 * (r - 1);
                    // SAFETY: batch b + 1 is below `end`.
                    let (za, zb) = pair::<L, DEC, DEC>(next.add(L::BLOCKS * p), off);
                    z[p] = za;
                    z[p + 1] = zb;
                }
            }
            last::<L, REGS, NR, DEC>(x, kl, core::ptr::null_mut(), &full, acc, chained);
        }
        batches * batch_blocks
    }
}

/// XCBC decryption's full batches of `8 BLOCKS` blocks that end before
/// block `end`, software pipelined: the next batch's offsets and
/// whitening sit between this batch's rounds in program order, and the
/// next rounds start as soon as these are done. Returns the blocks done.
///
/// # Safety
/// As [`run`]; `src` and `dst` valid for the blocks below `end` (rounded
/// down to a whole batch), at least one batch.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn bulk_dec<L: GdLane, const NR: usize>(
    k: &[L; 15],
    src: *const Block,
    dst: *mut Block,
    end: usize,
    off: &mut L::GdOff,
    prev: &mut L,
    acc: &mut L,
) -> usize {
    const DEC: bool = true;
    const _: () = assert!(REGS == 8, "four pairs, one per round 1..=4");
    let batch_blocks = REGS * L::BLOCKS;
    let batches = end / batch_blocks;
    // SAFETY: the caller's: the CPU has the features; pointer accesses are
    // justified where they are.
    unsafe {
        let zero = L::zero();
        // `w = z xor K_last` of each batch, double-buffered: register 0
        // holds the batch before's last register (its last block: the z
        // before this batch), then the batch's eight. The last round's key
        // of register v, `z_prev xor K_last` of its blocks, is the
        // register-sized run of blocks one block before register v: an
        // unaligned load (no register held across the rounds, no lane
        // shuffle).
        // Filled with a value the compiler cannot know (every entry is
        // written before it is read): 18 registers of zeros became a
        // `memset` call, around which every live vector register was
        // spilled and reloaded (XCBC decryption of 1 KiB lost a tenth).
        // A zero through `black_box`, not a round key: no key bytes in a
        // buffer (the wipe below covers the z values only).
        let fill = core::hint::black_box(zero);
        let mut wb = [[fill; REGS + 1]; 2];
        let mut x = [zero; REGS];
        // The first batch.
        for q in 0..REGS / 2 {
            // SAFETY: batch 0 is below `end`.
            let (za, zb) = pair::<L, DEC, false>(src.add(2 * L::BLOCKS * q), off);
            x[2 * q] = za;
            x[2 * q + 1] = zb;
        }
        wb[0][0] = L::xor(*prev, k[NR]);
        for (w, z) in wb[0][1..].iter_mut().zip(x.iter()) {
            *w = L::xor(*z, k[NR]);
        }
        for b in 0..batches {
            for xv in x.iter_mut() {
                *xv = L::xor(*xv, k[0]);
            }
            let (cur, nxt) = (b & 1, (b + 1) & 1);
            let more = b + 1 < batches;
            let next = src.wrapping_add(batch_blocks * (b + 1));
            let mut z = [zero; REGS];
            if more {
                wb[nxt][0] = wb[cur][REGS];
            }
            // The rounds, with one pair of the next batch whitened after
            // each of the first four (a counted loop: `r` also picks the
            // pair).
            #[allow(clippy::needless_range_loop)]
            for r in 1..NR {
                for xv in x.iter_mut() {
                    *xv = L::aesdec(*xv, k[r]);
                }
                if more && r <= 4 {
                    let p = 2 * (r - 1);
                    // SAFETY: batch b + 1 is below `end`.
                    let (za, zb) = pair::<L, DEC, DEC>(next.add(L::BLOCKS * p), off);
                    z[p] = za;
                    z[p + 1] = zb;
                    wb[nxt][p + 1] = L::xor(za, k[NR]);
                    wb[nxt][p + 2] = L::xor(zb, k[NR]);
                }
            }
            // The lane types are `repr(transparent)` over their vector:
            // `wb[cur]` is `REGS + 1` registers of `BLOCKS` blocks each.
            let wbase = wb[cur].as_ptr().cast::<Block>();
            for (v, xv) in x.iter().enumerate() {
                // SAFETY: blocks BLOCKS v + BLOCKS - 1 .. BLOCKS (v + 2) - 1
                // of `wb[cur]`'s BLOCKS (REGS + 1).
                let kl = L::load(wbase.add(L::BLOCKS * v + L::BLOCKS - 1));
                let o = L::aesdeclast(*xv, kl);
                *acc = L::xor(*acc, o);
                // SAFETY: batch b is below `end`.
                L::store(dst.add(batch_blocks * b + L::BLOCKS * v), o);
            }
            if more {
                x = z;
            } else {
                // z of the last block for the blocks after these.
                *prev = L::xor(wb[cur][REGS], k[NR]);
            }
        }
        // Wipe the z values (with the ciphertext they give r0 away).
        wb = [[zero; REGS + 1]; 2];
        core::hint::black_box(&wb);
        batches * batch_blocks
    }
}

/// Two full registers at `src` whitened: `z = y -+ i r0`; the offsets
/// advanced ([`GdLane::gd_pair`] with `SEL`).
///
/// # Safety
/// As [`run`]; `src` valid for two registers.
#[inline(always)]
unsafe fn pair<L: GdLane, const DEC: bool, const SEL: bool>(
    src: *const Block,
    off: &mut L::GdOff,
) -> (L, L) {
    // SAFETY: the caller's.
    unsafe {
        let (a, b) = (L::load(src), L::load(src.add(L::BLOCKS)));
        L::gd_pair::<DEC, SEL>(a, b, off)
    }
}

/// A batch's whitening: loads (the last register's as `t` says, the
/// job's `last` block inserted), `z = y -+ i r0`, and the last round's
/// keys (`K_last`, or for XCBC `z_prev xor K_last`).
///
/// # Safety
/// As [`run`]; `src` valid for the first `V - 1` registers and the last
/// one's `t.from_src` blocks.
#[inline(always)]
unsafe fn whiten<L: GdLane, const V: usize, const NR: usize, const DEC: bool>(
    k: &[L; 15],
    src: *const Block,
    t: &Tail,
    off: &mut L::GdOff,
    prev: &mut L,
) -> ([L; V], [L; V]) {
    // SAFETY: the caller's: the CPU has the features; the loads as each
    // says.
    unsafe {
        let zero = L::zero();
        let mut y = [zero; V];
        for (v, yv) in y.iter_mut().enumerate() {
            let p = src.wrapping_add(L::BLOCKS * v);
            *yv = if v + 1 < V || t.from_src == L::BLOCKS {
                // SAFETY: the caller's: a full register.
                L::load(p)
            } else if t.from_src > 0 {
                // SAFETY: the caller's: `from_src` blocks, nothing past them read.
                L::load_n(p, t.from_src)
            } else {
                zero
            };
        }
        if let Some(j) = t.insert {
            y[V - 1] = L::insert(y[V - 1], j, t.last);
        }
        // z = y -+ i r0, a pair of registers at a time.
        let mut z = [zero; V];
        let mut v = 0;
        while v < V {
            let b = if v + 1 < V { y[v + 1] } else { zero };
            let (za, zb) = L::gd_pair::<DEC, false>(y[v], b, off);
            z[v] = za;
            if v + 1 < V {
                z[v + 1] = zb;
            }
            v += 2;
        }
        let mut kl = [k[NR]; V];
        if DEC {
            for v in 0..V {
                let before = if v == 0 { *prev } else { z[v - 1] };
                // z_{t-1} of the register's blocks: the last block of the
                // register before, then this one's blocks but its last.
                kl[v] = L::xor(L::shift_in(before, z[v]), k[NR]);
            }
            *prev = z[V - 1];
        }
        (z, kl)
    }
}

/// A batch's last round (keys `kl`), the sum of the outputs (the last
/// register's `t.keep` blocks) and, with `DEC`, their stores. Returns the
/// last register's outputs.
///
/// # Safety
/// As [`run`]; with `DEC`, `dst` valid for the first `V - 1` registers
/// and the last one's `t.keep` blocks.
#[inline(always)]
unsafe fn last<L: GdLane, const V: usize, const NR: usize, const DEC: bool>(
    x: [L; V],
    kl: [L; V],
    dst: *mut Block,
    t: &Tail,
    acc: &mut L,
    chained: &mut bool,
) -> L {
    // SAFETY: the caller's: the CPU has the features; the stores as each
    // says.
    unsafe {
        let mut out = L::zero();
        // XECB's sum in `c` interleaved chains (`Lane::SUM_CHAINS`, at
        // least one): chain 0 starts from the sum, the others from zero.
        let c = L::SUM_CHAINS.clamp(1, V);
        let mut s = [L::zero(); V];
        if !DEC {
            s[0] = *acc;
        }
        for v in 0..V {
            let full = v + 1 < V || t.keep == L::BLOCKS;
            if !DEC && full {
                // XECB's sum through the last round's key, no xor of its
                // own: `aesenclast(x, s)` is `E(x) xor K_last xor s`; each
                // register brings one K_last, whatever its chain: `run`
                // removes the K_last of an odd count at the end.
                s[v % c] = L::aesenclast(x[v], s[v % c]);
                *chained ^= true;
                continue;
            }
            if !DEC {
                // The last register, partial: its kept blocks xored into
                // chain 0 (the chains meet below).
                let o = L::aesenclast(x[v], kl[v]);
                if t.keep > 0 {
                    s[0] = L::xor(s[0], L::keep_n(o, t.keep));
                }
                out = o;
                continue;
            }
            // XCBC decryption (XECB's registers took the branches above):
            // the outputs summed and stored.
            let o = L::aesdeclast(x[v], kl[v]);
            let p = dst.wrapping_add(L::BLOCKS * v);
            if full {
                *acc = L::xor(*acc, o);
                // SAFETY: the caller's: a full register.
                L::store(p, o);
            } else if t.keep > 0 {
                *acc = L::xor(*acc, L::keep_n(o, t.keep));
                // SAFETY: the caller's: `keep` blocks, nothing past them written.
                L::store_n(p, o, t.keep);
            }
            out = o;
        }
        if !DEC {
            let mut a = s[0];
            for sv in &s[1..c] {
                a = L::xor(a, *sv);
            }
            *acc = a;
        }
        out
    }
}

/// One batch of `V` registers from `src` (to `dst` with `DEC`): offsets,
/// rounds, sum, stores. Returns the last register's outputs.
///
/// # Safety
/// As [`whiten`] and [`last`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn batch<L: GdLane, const V: usize, const NR: usize, const DEC: bool>(
    k: &[L; 15],
    src: *const Block,
    dst: *mut Block,
    t: &Tail,
    off: &mut L::GdOff,
    prev: &mut L,
    acc: &mut L,
    chained: &mut bool,
) -> L {
    // SAFETY: the caller's.
    unsafe {
        let (z, kl) = whiten::<L, V, NR, DEC>(k, src, t, off, prev);
        let mut x = [L::zero(); V];
        for (xv, zv) in x.iter_mut().zip(z.iter()) {
            *xv = L::xor(*zv, k[0]);
        }
        for kr in &k[1..NR] {
            for xv in x.iter_mut() {
                *xv = if DEC {
                    L::aesdec(*xv, *kr)
                } else {
                    L::aesenc(*xv, *kr)
                };
            }
        }
        last::<L, V, NR, DEC>(x, kl, dst, t, acc, chained)
    }
}

// ---- The offsets in each lane's form (`GdLane::GdOff`, `GdLane::gd_pair`).
// Every `unsafe` method below needs its lane's tier's features (the
// caller's: each is called from that tier's entries, inlined).

/// AES-NI: the offsets of a pair's two blocks and their steps as integers
/// (general-purpose registers: one add-with-carry per block to apply, one
/// to advance).
#[derive(Clone, Copy)]
pub(super) struct XmmOff {
    off: [u128; 2],
    step: [u128; 2],
}

impl XmmOff {
    /// The offsets `first r0`, `(first + 1) r0`, each stepping by `2 r0`.
    #[inline(always)]
    pub(super) unsafe fn new(first: u128, r0: u128) -> Self {
        let o = first.wrapping_mul(r0);
        Self::from([o, o.wrapping_add(r0)], [r0.wrapping_mul(2); 2])
    }

    /// Overwrite the offsets.
    #[inline(always)]
    pub(super) unsafe fn wipe(&mut self) {
        *self = Self::from([0; 2], [0; 2]);
    }

    /// The offsets `off` of the pair's two blocks, stepping by `step`.
    #[inline(always)]
    pub(super) fn from(off: [u128; 2], step: [u128; 2]) -> Self {
        XmmOff { off, step }
    }

    /// The block `y` (big-endian) plus (or with `SUB` minus) `off`.
    #[inline(always)]
    unsafe fn add<const SUB: bool>(y: __m128i, off: u128) -> __m128i {
        // SAFETY: SSE2 only.
        unsafe {
            // Bytes 0..7 are the high half, most significant first: as the
            // little-endian low qword, the high half byte-swapped.
            let q0 = _mm_cvtsi128_si64(y) as u64;
            let q1 = _mm_cvtsi128_si64(_mm_unpackhi_epi64(y, y)) as u64;
            let y = u128::from(q0.swap_bytes()) << 64 | u128::from(q1.swap_bytes());
            let z = if SUB {
                y.wrapping_sub(off)
            } else {
                y.wrapping_add(off)
            };
            let h = ((z >> 64) as u64).swap_bytes();
            let l = (z as u64).swap_bytes();
            _mm_set_epi64x(l as i64, h as i64)
        }
    }

    /// The pair `(a, b)` plus (minus) the offsets; the offsets advanced.
    #[inline(always)]
    pub(super) unsafe fn apply<const SUB: bool, const SEL: bool>(
        &mut self,
        a: __m128i,
        b: __m128i,
    ) -> (__m128i, __m128i) {
        // SAFETY: the caller's.
        let r = unsafe {
            (
                Self::add::<SUB>(a, self.off[0]),
                Self::add::<SUB>(b, self.off[1]),
            )
        };
        self.off[0] = self.off[0].wrapping_add(self.step[0]);
        self.off[1] = self.off[1].wrapping_add(self.step[1]);
        r
    }
}

/// VAES-256: the offsets of a pair's four blocks split into 64-bit halves
/// ([`split`]'s order: element e for block `e / 2 + 2 (e % 2)`)
/// and what a pair adds (`4 r0`).
#[derive(Clone, Copy)]
pub(super) struct YmmOff {
    lo: __m256i,
    hi: __m256i,
    step_lo: __m256i,
    step_hi: __m256i,
    bswap: __m256i,
}

impl YmmOff {
    /// The offsets of blocks `first ..= first + 3`, stepping by `4 r0`.
    #[inline(always)]
    pub(super) unsafe fn new(first: u128, r0: u128) -> Self {
        let o = first.wrapping_mul(r0);
        let off = core::array::from_fn(|b| o.wrapping_add(r0.wrapping_mul(b as u128)));
        // SAFETY: the caller's: AVX2.
        unsafe { Self::from(off, [r0.wrapping_mul(4); 4]) }
    }

    /// The offsets `off` of a pair's blocks 0..3, stepping by `step`.
    #[inline(always)]
    pub(super) unsafe fn from(off: [u128; 4], step: [u128; 4]) -> Self {
        // Element e: block e / 2 + 2 (e % 2): 0, 2, 1, 3.
        let lo = |v: [u128; 4]| [v[0], v[2], v[1], v[3]].map(|x| x as u64 as i64);
        let hi = |v: [u128; 4]| [v[0], v[2], v[1], v[3]].map(|x| (x >> 64) as u64 as i64);
        let (ol, oh, sl, sh) = (lo(off), hi(off), lo(step), hi(step));
        // SAFETY: the caller's: AVX2.
        unsafe {
            YmmOff {
                lo: _mm256_set_epi64x(ol[3], ol[2], ol[1], ol[0]),
                hi: _mm256_set_epi64x(oh[3], oh[2], oh[1], oh[0]),
                step_lo: _mm256_set_epi64x(sl[3], sl[2], sl[1], sl[0]),
                step_hi: _mm256_set_epi64x(sh[3], sh[2], sh[1], sh[0]),
                bswap: Self::bswap(),
            }
        }
    }

    /// `vpshufb` indices reversing the bytes of each 128-bit lane.
    #[inline(always)]
    unsafe fn bswap() -> __m256i {
        // SAFETY: the caller's.
        unsafe {
            _mm256_broadcastsi128_si256(_mm_set_epi8(
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
            ))
        }
    }

    /// `a +- b` mod 2^128 on split halves: the unsigned carry (borrow) of
    /// the low halves by a signed compare of values biased by 2^63.
    #[inline(always)]
    unsafe fn add<const SUB: bool>(
        alo: __m256i,
        ahi: __m256i,
        blo: __m256i,
        bhi: __m256i,
    ) -> (__m256i, __m256i) {
        // SAFETY: the caller's: AVX2.
        unsafe {
            let bias = _mm256_set1_epi64x(i64::MIN);
            let bb = _mm256_xor_si256(blo, bias);
            if SUB {
                // borrow: alo < blo (unsigned): -1 where set.
                let borrow = _mm256_cmpgt_epi64(bb, _mm256_xor_si256(alo, bias));
                let lo = _mm256_sub_epi64(alo, blo);
                let hi = _mm256_add_epi64(_mm256_sub_epi64(ahi, bhi), borrow);
                (lo, hi)
            } else {
                let lo = _mm256_add_epi64(alo, blo);
                // carry: lo < blo (unsigned).
                let carry = _mm256_cmpgt_epi64(bb, _mm256_xor_si256(lo, bias));
                let hi = _mm256_sub_epi64(_mm256_add_epi64(ahi, bhi), carry);
                (lo, hi)
            }
        }
    }

    /// The pair `(a, b)` (blocks 0, 1 in `a`, 2, 3 in `b`) plus (minus) the
    /// offsets; the offsets advanced by `4 r0`.
    #[inline(always)]
    pub(super) unsafe fn apply<const SUB: bool, const SEL: bool>(
        &mut self,
        a: __m256i,
        b: __m256i,
    ) -> (__m256i, __m256i) {
        // SAFETY: the caller's: AVX2.
        unsafe {
            let a = _mm256_shuffle_epi8(a, self.bswap);
            let b = _mm256_shuffle_epi8(b, self.bswap);
            let (lo, hi) = (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
            let (lo, hi) = Self::add::<SUB>(lo, hi, self.lo, self.hi);
            (self.lo, self.hi) = Self::add::<false>(self.lo, self.hi, self.step_lo, self.step_hi);
            (
                _mm256_shuffle_epi8(_mm256_unpacklo_epi64(lo, hi), self.bswap),
                _mm256_shuffle_epi8(_mm256_unpackhi_epi64(lo, hi), self.bswap),
            )
        }
    }

    /// Overwrite the offsets.
    #[inline(always)]
    pub(super) unsafe fn wipe(&mut self) {
        // SAFETY: the caller's: AVX.
        let z = unsafe { _mm256_setzero_si256() };
        (self.lo, self.hi, self.step_lo, self.step_hi) = (z, z, z, z);
    }
}

/// VAES-512: the offsets of a pair's eight blocks ([`split`]'s order:
/// element e for block `e / 2 + 4 (e % 2)`) split into low and high
/// halves, and what a pair adds (`8 r0`).
#[derive(Clone, Copy)]
pub(super) struct ZmmOff {
    lo: __m512i,
    hi: __m512i,
    step_lo: __m512i,
    step_hi: __m512i,
    /// `step_hi + 1` (the advance with a carry).
    step_hi1: __m512i,
    bswap: __m512i,
}

impl ZmmOff {
    /// The offsets of blocks `first ..= first + 7`: the base `first r0` in
    /// every element, then `r0`, `2 r0`, `4 r0` added to the elements
    /// whose block has that bit set (e's bit 1, 2, 0; in registers: eight
    /// 8-byte stores read back as one vector would wait for the stores to
    /// retire).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn new(first: u128, r0: u128) -> Self {
        let half = |v: u128| {
            (
                _mm512_set1_epi64(v as u64 as i64),
                _mm512_set1_epi64((v >> 64) as u64 as i64),
            )
        };
        let (mut lo, mut hi) = half(first.wrapping_mul(r0));
        for (bit, mask) in [(1u128, 0xccu8), (2, 0xf0), (4, 0xaa)] {
            let (tlo, thi) = half(r0.wrapping_mul(bit));
            lo = _mm512_mask_add_epi64(lo, mask, lo, tlo);
            let carry = _mm512_mask_cmplt_epu64_mask(mask, lo, tlo);
            hi = _mm512_mask_add_epi64(hi, mask, hi, thi);
            hi = _mm512_mask_sub_epi64(hi, carry, hi, _mm512_set1_epi64(-1));
        }
        let step = r0.wrapping_mul(8);
        let (step_lo, step_hi) = half(step);
        ZmmOff {
            lo,
            hi,
            step_lo,
            step_hi,
            step_hi1: half(step.wrapping_add(1 << 64)).1,
            bswap: idx(&BSWAP),
        }
    }

    /// The offsets `(lo, hi)` of a pair's blocks in [`split`]'s order,
    /// stepping by `(step_lo, step_hi)` (without the `SEL` advance).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn from_halves(
        (lo, hi): (__m512i, __m512i),
        (step_lo, step_hi): (__m512i, __m512i),
    ) -> Self {
        ZmmOff {
            lo,
            hi,
            step_lo,
            step_hi,
            step_hi1: step_hi,
            bswap: idx(&BSWAP),
        }
    }

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

    /// The pair `(a, b)` (blocks 0..3 in `a`, 4..7 in `b`) plus (minus)
    /// the offsets; the offsets advanced as [`advance`](Self::advance)
    /// with `SEL`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn apply<const SUB: bool, const SEL: bool>(
        &mut self,
        a: __m512i,
        b: __m512i,
    ) -> (__m512i, __m512i) {
        let (lo, hi) = split(self.bswap, a, b);
        let (lo, hi) = if SUB {
            sub128(lo, hi, self.lo, self.hi)
        } else {
            add128(lo, hi, self.lo, self.hi)
        };
        self.advance::<SEL>();
        join(self.bswap, lo, hi)
    }

    /// Overwrite the offsets.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn wipe(&mut self) {
        let z = _mm512_setzero_si512();
        (self.lo, self.hi, self.step_lo, self.step_hi, self.step_hi1) = (z, z, z, z, z);
    }
}

/// A 64-byte table of indices.
#[repr(C, align(64))]
pub(super) struct Idx([u8; 64]);

/// A table of indices as a vector.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn idx(t: &'static Idx) -> __m512i {
    // SAFETY: `t` is 64 bytes, aligned to 64.
    unsafe { _mm512_load_si512(t.0.as_ptr().cast()) }
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
/// `e` from block `e / 2 + 4 (e % 2)`. A byte reversal per register
/// (`vpshufb`) and `vpunpck{l,h}qdq`: single-uop shuffles that stay off
/// the AES port (a two-table `vpermt2b` is three uops, one of which may
/// take it).
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

/// The Gligor–Donescu offsets on a lane: the lane's form of them and the
/// tier's `#[target_feature]` entry to [`run`].
pub(super) trait GdLane: Lane {
    /// The offsets `i r0` of a pair of registers (`2 BLOCKS` blocks), in
    /// the lane's form.
    type GdOff: Copy;
    /// The offsets of blocks `first .. first + 2 BLOCKS`, advancing by
    /// `2 BLOCKS r0` per pair.
    unsafe fn gd_start(first: u128, r0: u128) -> Self::GdOff;
    /// The pair `(a, b)` (its blocks in order) plus the offsets (with `SUB`
    /// minus them), mod 2^128 on big-endian blocks; the offsets advanced
    /// to the next pair. `SEL`: the tier's advance for a loop whose
    /// whitening does not wait (VAES-512's merge-masked `vpermq`).
    unsafe fn gd_pair<const SUB: bool, const SEL: bool>(
        a: Self,
        b: Self,
        off: &mut Self::GdOff,
    ) -> (Self, Self);
    /// Overwrite the offsets (they give r0 away).
    unsafe fn gd_wipe(off: &mut Self::GdOff);
    /// The tier's entry to the Gligor–Donescu kernel ([`run`]).
    ///
    /// # Safety
    /// The CPU has the tier's features; `job` as [`run`] says.
    unsafe fn gd<const NR: usize, const DEC: bool>(job: &GdJob<'_>) -> Block;
}

/// [`GdLane`] for the lane `$t` (offsets `$off`, features `$f`).
macro_rules! gd_lane {
    ($t:ident, $off:ty, $f:literal) => {
        // SAFETY (every `unsafe` block): the caller's guarantees (the
        // tier's features; `job` as `run` says).
        impl GdLane for $t {
            type GdOff = $off;
            #[inline(always)]
            unsafe fn gd_start(first: u128, r0: u128) -> $off {
                unsafe { <$off>::new(first, r0) }
            }
            #[inline(always)]
            unsafe fn gd_pair<const SUB: bool, const SEL: bool>(
                a: Self,
                b: Self,
                off: &mut $off,
            ) -> (Self, Self) {
                let (x, y) = unsafe { off.apply::<SUB, SEL>(a.0, b.0) };
                ($t(x), $t(y))
            }
            #[inline(always)]
            unsafe fn gd_wipe(off: &mut $off) {
                unsafe { off.wipe() }
            }
            #[target_feature(enable = $f)]
            unsafe fn gd<const NR: usize, const DEC: bool>(job: &GdJob<'_>) -> Block {
                unsafe { run::<Self, NR, DEC>(job) }
            }
        }
    };
}
gd_lane!(Xmm, XmmOff, "aes,sse2");
gd_lane!(Ymm, YmmOff, "avx,avx2,aes,vaes,pclmulqdq,vpclmulqdq");
gd_lane!(Zmm, ZmmOff, "avx512f,avx512bw,vaes,vpclmulqdq");
