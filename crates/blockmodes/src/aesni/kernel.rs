//! The whitened loop, written once for every lane width (`lane.rs`): ECB,
//! `E(in xor Z) xor Z` with or without the sum of the plaintext side, and
//! PMAC's Σ, with the offsets from a slice (XEX), the Gray-code table (OCB
//! 1.0, PMAC) or, on VAES-512, XEX units made in registers; and the one
//! dispatch table from a job's shape to the instance. Each tier
//! instantiates it in its `#[target_feature]` entry ([`Entry::kernel`]), as
//! the Linux kernel's `aes-xts-avx-x86_64.S` assembles one macro body for
//! every vector length.
//!
//! A batch is eight registers in flight (8, 16 or 32 blocks); the remainder
//! goes as one batch of as many registers as it needs, the last one
//! partial (masked on AVX-512, its low half on AVX2; never padded).
//!
//! OCB 1.0's mid-size messages (8 ..= 63 blocks, all in the first
//! Gray-code group) take the same batches from one function without a job
//! ([`ocb_mid`], an entry per tier: [`Entry::ocb_mid`]).
//!
//! Per register, on top of the rounds: one 3-way xor (`M xor Z xor K0`:
//! `vpternlogq` on zmm, two xors on xmm and ymm), with post-whitening one
//! xor for the last round's key (`Z xor K_last`), one load of the
//! Gray-code table and, where the group base `W_q` is not in the round
//! keys (xmm and zmm; on ymm a batch crossing a 64-block group), one xor
//! of the base into `Z`; and one xor into the sum if any. PMAC's Σ (no
//! post-whitening, nothing stored) has no xor for its sum in a full batch:
//! the sum is the last round's key, `acc = aesenclast(x, acc)`, in
//! [`Lane::SUM_CHAINS`] chains; so a ymm register of Σ inside one group
//! costs two vector xors beside its rounds (three before).

use core::arch::x86_64::*;

#[cfg(test)]
use super::SRC_XEX_BARE;
use super::lane::{Lane, Xmm, Ymm, Zmm};
use super::schedule::{load, store};
use super::xex_units::{self, XexState};
use super::{Dir, Job, SRC_XEX, SRC_XEX_FREE};
use crate::arith::gf128::Block;
use crate::engine::dispatch::by_count8;
use crate::engine::job::{SRC_GRAY, SRC_SLICE, SUM_IN, SUM_NONE, SUM_OUT, Shape, by_shape};

/// Registers per full batch.
pub(super) const REGS: usize = 8;

/// A tier's `#[target_feature]` entries: the one lane-generic loop
/// [`kernel`] instantiated for the lane, and (wide lanes) XEX over whole
/// units ([`xex_units::run`]).
pub(super) trait Entry: Lane {
    /// The whitened loop for this lane, compiled with the tier's features.
    ///
    /// # Safety
    /// The CPU has the tier's features; `job` as [`dispatch`] says.
    unsafe fn kernel<
        const NR: usize,
        const DEC: bool,
        const SRC: u8,
        const POST: bool,
        const SUM: u8,
        const STORE: bool,
    >(
        job: &Job<'_>,
    ) -> Block;

    /// XEX over whole units with the deltas made in registers: the wide
    /// lanes only, never dispatched elsewhere (`AesKey::xex_units`).
    ///
    /// # Safety
    /// As [`kernel`](Self::kernel).
    unsafe fn xex<const NR: usize>(dec: bool, job: &Job<'_>) -> Block {
        let _ = (dec, job);
        unreachable!("XEX units run on the wide lanes only (`AesKey::xex_units`)")
    }

    /// OCB 1.0's blocks of a mid-size message in one function
    /// ([`ocb_mid`]) for this lane.
    ///
    /// # Safety
    /// The CPU has the tier's features; the rest as [`ocb_mid`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn ocb_mid<const NR: usize, const DEC: bool, const V: usize>(
        keys: &[Block; 15],
        enc: &[Block; 15],
        src: *const Block,
        dst: *mut Block,
        n: usize,
        low: *const Block,
        r: &Block,
        extra: &mut Block,
    ) -> Block;
}

/// The entries of a tier with the features `$f` (`xex`: with XEX units).
macro_rules! entries {
    ($f:literal) => {
        #[target_feature(enable = $f)]
        unsafe fn kernel<
            const NR: usize,
            const DEC: bool,
            const SRC: u8,
            const POST: bool,
            const SUM: u8,
            const STORE: bool,
        >(
            job: &Job<'_>,
        ) -> Block {
            // SAFETY: this function has the tier's features; `job` is the
            // caller's.
            unsafe { kernel::<Self, NR, DEC, SRC, POST, SUM, STORE>(job) }
        }
        #[target_feature(enable = $f)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn ocb_mid<const NR: usize, const DEC: bool, const V: usize>(
            keys: &[Block; 15],
            enc: &[Block; 15],
            src: *const Block,
            dst: *mut Block,
            n: usize,
            low: *const Block,
            r: &Block,
            extra: &mut Block,
        ) -> Block {
            // SAFETY: this function has the tier's features; the rest is
            // the caller's.
            unsafe { ocb_mid::<Self, NR, DEC, V>(keys, enc, src, dst, n, low, r, extra) }
        }
    };
    ($f:literal, xex) => {
        entries!($f);
        #[target_feature(enable = $f)]
        unsafe fn xex<const NR: usize>(dec: bool, job: &Job<'_>) -> Block {
            // SAFETY: this function has the tier's features; `job` is the
            // caller's; the closures run the loop for this lane.
            unsafe {
                if dec {
                    xex_units::run::<Self, NR>(job, |j| xex_loop::<Self, NR, true>(j))
                } else {
                    xex_units::run::<Self, NR>(job, |j| xex_loop::<Self, NR, false>(j))
                }
            }
        }
    };
}

/// The loop over XEX units (the job's source kind: the benchmarks' bounds
/// under test).
///
/// # Safety
/// As [`kernel`].
#[inline(always)]
unsafe fn xex_loop<L: Lane, const NR: usize, const DEC: bool>(j: &Job<'_>) -> Block {
    // SAFETY: the caller's.
    unsafe {
        if !cfg!(test) || j.src_kind == SRC_XEX {
            kernel::<L, NR, DEC, SRC_XEX, true, SUM_NONE, true>(j)
        } else {
            kernel::<L, NR, DEC, SRC_XEX_FREE, true, SUM_NONE, true>(j)
        }
    }
}

impl Entry for Xmm {
    entries!("aes,sse2");
}

impl Entry for Ymm {
    entries!("avx,avx2,aes,vaes,pclmulqdq,vpclmulqdq", xex);
}

impl Entry for Zmm {
    entries!("avx512f,avx512bw,vaes,vpclmulqdq", xex);
}

/// Run `job` with `NR` rounds on lane `L`: the one dispatch table.
///
/// # Safety
/// The CPU must have `L`'s tier's features. `job.src`, `job.dst` (unless
/// the shape is [`Shape::Sigma`]) and `job.z` (for a slice of offsets) must
/// be valid for `job.n` blocks; `src` and `dst` equal or disjoint; `job.x.extra`
/// null or valid for one block. The XEX source kinds only on a wide lane.
#[inline(always)]
pub(super) unsafe fn dispatch<L: Entry, const NR: usize>(
    dir: Dir,
    shape: Shape,
    job: &Job<'_>,
) -> Block {
    macro_rules! go {
        ($dec:tt, $src:tt, $post:tt, $sum:tt, $store:tt) => {
            L::kernel::<NR, $dec, $src, $post, $sum, $store>(job)
        };
    }
    // SAFETY (every arm): the caller's guarantees, passed on; each arm's
    // shape stores only if `job.dst` is valid (not for `Sigma`).
    unsafe {
        match (dir, shape, job.src_kind) {
            (_, Shape::Whiten, SRC_XEX) => L::xex::<NR>(dir == Dir::Decrypt, job),
            #[cfg(test)]
            (Dir::Encrypt, Shape::Whiten, SRC_XEX_FREE | SRC_XEX_BARE) => L::xex::<NR>(false, job),
            _ => by_shape!(dir, shape, job.src_kind, go),
        }
    }
}

/// The Gray-code walk: `w` is `W_q`, the offset of block `64q`; and the
/// XEX state (the wide lanes).
struct Walk<L: Lane> {
    w: __m128i,
    q: u64,
    x: XexState<L>,
}

/// The loop over batches (instantiated by [`Entry::kernel`]).
///
/// # Safety
/// As [`dispatch`]; `SRC`, `POST`, `SUM`, `STORE` as the shape of `job`.
#[inline(always)]
pub(super) unsafe fn kernel<
    L: Lane,
    const NR: usize,
    const DEC: bool,
    const SRC: u8,
    const POST: bool,
    const SUM: u8,
    const STORE: bool,
>(
    job: &Job<'_>,
) -> Block {
    // SAFETY: the caller's: the CPU has `L`'s features (those of every
    // intrinsic and lane operation here); pointer accesses are justified
    // where they are.
    unsafe {
        let k = L::round_keys::<NR>(job.keys);
        let mut st = Walk::<L> {
            w: load(&job.w),
            q: job.first >> 6,
            x: xex_units::init::<L, NR, DEC, SRC>(job, &k),
        };
        // The extra block (`E_K` of it, whatever the direction) rides along
        // with the first batch (used with one block per register: short
        // runs on the AES-NI lane).
        let mut ek = [_mm_setzero_si128(); 15];
        let mut ex = _mm_setzero_si128();
        let mut ex_pending = L::BLOCKS == 1 && !job.x.extra.is_null();
        if ex_pending {
            for (kr, b) in ek.iter_mut().zip(job.x.enc.iter()).take(NR + 1) {
                *kr = load(b);
            }
            // SAFETY: `job.x.extra`, when not null, is valid for one block.
            ex = _mm_loadu_si128(job.x.extra.cast_const().cast());
        }
        let mut acc = L::zero();
        let n = job.n;
        let batch_blocks = REGS * L::BLOCKS;
        let mut i = 0;
        macro_rules! go {
            ($v:literal, $blocks:expr, $part:expr) => {{
                let (z, b0, bl, zp) = offsets::<L, $v, NR, SRC, POST>(job, &k, &mut st, i, $blocks);
                // SAFETY: the batch's blocks i .. i + $blocks are below n (the
                // last register holds `$part` of them, the only ones it
                // touches); `dst` is only written when STORE (then valid),
                // `wrapping_add` keeps a null one harmless.
                let (src, dst) = (job.src.add(i), job.dst.wrapping_add(i));
                let offs = (&z, b0, bl, zp);
                macro_rules! call {
                    ($ex:literal, $re:literal) => {
                        batch::<L, $v, NR, DEC, POST, SUM, STORE, $ex, $re>(
                            &k,
                            src,
                            dst,
                            $part,
                            offs,
                            &mut acc,
                            (&mut ex, &ek),
                        )
                    };
                }
                if L::BLOCKS == 1 && ex_pending {
                    ex_pending = false;
                    call!(true, false)
                } else if POST && SRC == SRC_GRAY && !zp.is_null() {
                    call!(false, true) // the offsets re-read for the last round
                } else {
                    call!(false, false)
                }
            }};
        }
        while n - i >= batch_blocks {
            go!(8, batch_blocks, L::BLOCKS);
            i += batch_blocks;
        }
        let rem = n - i;
        if rem > 0 {
            let nv = rem.div_ceil(L::BLOCKS);
            let part = rem - L::BLOCKS * (nv - 1); // 1 ..= BLOCKS in the last register
            by_count8!(nv, go, rem, part)
        }
        debug_assert!(!ex_pending, "the extra block rode along");
        if L::BLOCKS == 1 && !job.x.extra.is_null() {
            // SAFETY: as above.
            _mm_storeu_si128(job.x.extra.cast(), ex);
            ek = [_mm_setzero_si128(); 15];
            core::hint::black_box(&ek);
        }
        if L::BLOCKS == 1 {
            // As the AES-NI kernel always did. (Not on the wider lanes: the
            // address taken would keep the whole walk, the XEX state with
            // it, in memory for the kernel's length.)
            st.w = _mm_setzero_si128();
            core::hint::black_box(&st.w);
        }
        store(L::fold(acc))
    }
}

/// Per register `v` of a batch at block `i` (`blocks` blocks):
/// `(z, bk0, bkl, zp)` with the offsets `Z = z xor base`, `bk0 = base xor
/// K0`, `bkl = base xor K_last` (or `K_last` without post-whitening), and
/// `zp` where `z` is the table as it is (else null); no offsets: all zero.
///
/// # Safety
/// As [`kernel`] (`inline(always)`: as an out-of-line call, LLVM's choice
/// for XEX once, its `z` went through memory, 0.70x -> 0.62x ECB).
#[inline(always)]
unsafe fn offsets<L: Lane, const V: usize, const NR: usize, const SRC: u8, const POST: bool>(
    job: &Job<'_>,
    k: &[L; 15],
    st: &mut Walk<L>,
    i: usize,
    blocks: usize,
) -> ([L; V], L, L, *const Block) {
    // SAFETY: the caller's: the CPU has the features; pointer accesses are
    // justified where they are.
    unsafe {
        let (k0, kl) = (k[0], k[NR]);
        let mut z = [L::zero(); V];
        if SRC == SRC_SLICE {
            let last = blocks - L::BLOCKS * (V - 1);
            for (v, zv) in z.iter_mut().enumerate() {
                let p = job.z.add(i + L::BLOCKS * v);
                // SAFETY: `job.z` holds `job.n` blocks: the batch's are below it
                // (the last register's `last`, the only ones it reads).
                *zv = if v + 1 == V && last < L::BLOCKS {
                    L::load_n(p, last)
                } else {
                    L::load(p)
                };
            }
        } else if SRC == SRC_XEX || SRC == SRC_XEX_FREE {
            xex_units::offsets::<L, V, SRC>(job, &mut st.x, &mut z);
            // z is Z xor K_last: the last round's key as it is, and the first
            // round takes `K0 xor K_last`.
            return (z, L::xor(k0, kl), L::zero(), core::ptr::null());
        } else if SRC == SRC_GRAY {
            let Some(t) = job.gray else {
                return (z, k0, kl, core::ptr::null());
            };
            let abs = job.first.wrapping_add(i as u64);
            let g = abs >> 6;
            if g != st.q {
                // Batches are at most 32 blocks: the next group, W_g = W_{g-1} xor step.
                st.w = _mm_xor_si128(st.w, load(t.step(g)));
                st.q = g;
            }
            let j = (abs & 63) as usize;
            for (v, zv) in z.iter_mut().enumerate() {
                const { assert!(64 + REGS * L::BLOCKS <= 96, "low: a batch from any j < 64") };
                let p = t.low.0.as_ptr().add(j + L::BLOCKS * v);
                // SAFETY: `p` .. `p + BLOCKS` lies inside `low` (index at most 63 + 31).
                *zv = L::load(p);
            }
            let b0 = L::broadcast(st.w);
            let before = 64 - j; // blocks of the batch in group g
            if before >= blocks && L::BASE_IN_KEYS {
                // The batch lies in group g: its base rides in the first and
                // last round keys (two xors per batch), `z` is the table's
                // `gamma_j L` as loaded: one vector xor less per register,
                // which on the VAES-256 lane competes with the rounds for
                // the same three vector ports.
                let bl = if POST { L::xor(kl, b0) } else { kl };
                return (z, L::xor(k0, b0), bl, t.low.0.as_ptr().add(j));
            }
            // The base goes into `z` (so `z` is the whole offset Z and the
            // first and last round keys stay the plain K0 and K_last): a
            // varying key per register would be 16 more live registers across
            // the rounds, more than the 32 zmm registers hold with the state,
            // `z` and the round keys.
            if before >= blocks {
                for zv in z.iter_mut() {
                    *zv = L::xor(*zv, b0);
                }
            } else {
                // The batch runs into group g + 1: its blocks take W_{g+1}.
                let b1 = L::broadcast(_mm_xor_si128(st.w, load(t.step(g.wrapping_add(1)))));
                for (v, zv) in z.iter_mut().enumerate() {
                    let c = before.saturating_sub(L::BLOCKS * v).min(L::BLOCKS); // still in g
                    *zv = L::xor(*zv, L::blend_low(c, b0, b1));
                }
            }
        }
        (z, k0, kl, core::ptr::null())
    }
}

/// One batch of `V` registers, the last holding `part` blocks (`1 ..=
/// BLOCKS`): loads, whitening in the first and last round keys, rounds,
/// sum, stores; with `EX`, also `ex = E_K(ex)` under the encryption keys
/// `ek`, interleaved; with `RELOAD`, the last round re-reads `z` from `zp`.
///
/// # Safety
/// The CPU must have `L`'s features; `src` (and `dst` if STORE) valid for
/// `BLOCKS (V - 1) + part` blocks (nothing past them is touched); `zp` too.
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn batch<
    L: Lane,
    const V: usize,
    const NR: usize,
    const DEC: bool,
    const POST: bool,
    const SUM: u8,
    const STORE: bool,
    const EX: bool,
    const RELOAD: bool,
>(
    k: &[L; 15],
    src: *const Block,
    dst: *mut Block,
    part: usize,
    (z, bk0, bkl, zp): (&[L; V], L, L, *const Block),
    acc: &mut L,
    (ex, ek): (&mut __m128i, &[__m128i; 15]),
) {
    // SAFETY: the caller's: the CPU has the features; loads and stores
    // touch the valid blocks only (the last register's `part`).
    unsafe {
        if EX {
            *ex = _mm_xor_si128(*ex, ek[0]);
        }
        let partial = part < L::BLOCKS;
        let mut x = [L::zero(); V];
        for v in 0..V {
            let p = src.wrapping_add(L::BLOCKS * v);
            let m = if v + 1 == V && partial {
                L::load_n(p, part)
            } else {
                L::load(p)
            };
            if SUM == SUM_IN {
                *acc = L::xor(*acc, m);
            }
            x[v] = L::xor3(m, z[v], bk0); // M xor Z xor K0
        }
        // A counted loop (an iterator chain here was left as a call per round).
        #[allow(clippy::needless_range_loop)]
        for r in 1..NR {
            let kr = k[r];
            for xv in x.iter_mut() {
                *xv = if DEC {
                    L::aesdec(*xv, kr)
                } else {
                    L::aesenc(*xv, kr)
                };
            }
            if EX {
                *ex = _mm_aesenc_si128(*ex, ek[r]);
            }
            L::fence(&mut x);
        }
        if EX {
            *ex = _mm_aesenclast_si128(*ex, ek[NR]);
        }
        let c = L::SUM_CHAINS;
        if SUM == SUM_OUT && !STORE && !POST && !DEC && !EX && V == REGS && !partial && c > 0 {
            // PMAC's Σ over a full batch: the sum through the last round's
            // key, no xor of its own per register (on ymm and xmm the xors
            // share the vector ports with the rounds: 2026-11-28-ymm-sum).
            // `aesenclast(x, s)` is `E(x) xor K_last xor s`; register v
            // joins chain `v mod c`, chain 0 starting from the sum, the
            // others from zero, so each of the 8 registers brings one
            // K_last and the eight cancel; the chains (two: one chain, 3-4
            // cycles of latency a register, measured mixed) meet in c - 1
            // xors. `bkl` is K_last here (no post-whitening). The partial
            // and remainder batches take the xor below.
            // At most one chain per register (`s[1..c]` below); the eight
            // K_last cancel whatever the split.
            const { assert!(L::SUM_CHAINS <= REGS) };
            let mut s = [L::zero(); REGS];
            s[0] = *acc;
            for (v, xv) in x.iter().enumerate() {
                s[v % c] = L::aesenclast(*xv, s[v % c]);
            }
            let mut t = s[0];
            for sv in &s[1..c] {
                t = L::xor(t, *sv);
            }
            *acc = t;
            return;
        }
        for v in 0..V {
            // Z xor K_last (bkl = base xor K_last, z the rest of Z), or K_last.
            let zv = if RELOAD {
                // SAFETY: `zp` holds the batch's `z` (`offsets`): re-read, not kept live.
                L::load(zp.wrapping_add(L::BLOCKS * v))
            } else {
                z[v]
            };
            let kl = if POST { L::xor(zv, bkl) } else { bkl };
            let y = if DEC {
                L::aesdeclast(x[v], kl)
            } else {
                L::aesenclast(x[v], kl)
            };
            let last = v + 1 == V && partial;
            if SUM == SUM_OUT {
                *acc = L::xor(*acc, if last { L::keep_n(y, part) } else { y });
            }
            if STORE {
                let p = dst.wrapping_add(L::BLOCKS * v);
                if last {
                    L::store_n(p, y, part);
                } else {
                    L::store(p, y);
                }
            }
        }
    }
}

/// OCB 1.0's blocks of a mid-size message in one function (instantiated
/// by [`Entry::ocb_mid`]): as the job path's whitened sum for `n` blocks,
/// `n <= 63` and `V` registers in the last batch, all in the first
/// Gray-code group (`Z[i] = gamma_i L xor R` for `i = 1 ..= n`, from
/// `low`, the table's entries `1..`): batches of [`REGS`] registers, then
/// one of `V` (the last register partial), `Y[m] = E_K(extra)` under the
/// encryption keys `enc` on an xmm register beside them; the keys
/// broadcast from `keys` in place (no job, no dispatch, no group walk).
/// `R` rides in the first and last round keys where the lane takes the
/// base there ([`Lane::BASE_IN_KEYS`]), else in every register's offset.
/// Returns the sum of the `M[i]` (the inputs, or with `DEC` the outputs).
///
/// # Safety
/// The CPU must have `L`'s features; `n >= 1` blocks fill `REGS f + V`
/// registers, `f = (n - 1) / (REGS BLOCKS)` (`V` from 1 to [`REGS`]);
/// `src` and `dst` valid for `n` blocks (equal or disjoint), `low` for
/// `n` rounded up to whole registers.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn ocb_mid<L: Lane, const NR: usize, const DEC: bool, const V: usize>(
    keys: &[Block; 15],
    enc: &[Block; 15],
    src: *const Block,
    dst: *mut Block,
    n: usize,
    low: *const Block,
    r: &Block,
    extra: &mut Block,
) -> Block {
    // SAFETY: the caller's: the CPU has `L`'s features (those of every
    // intrinsic and lane operation here); pointer accesses are justified
    // where they are.
    unsafe {
        let k = L::round_keys::<NR>(keys);
        let rb = L::broadcast(load(r));
        let (bk0, bkl) = if L::BASE_IN_KEYS {
            (L::xor(k[0], rb), L::xor(k[NR], rb))
        } else {
            (k[0], k[NR])
        };
        // SAFETY (`z`): `low` holds the message's registers' blocks.
        let z = |i: usize| {
            let t = L::load(low.add(i));
            if L::BASE_IN_KEYS { t } else { L::xor(t, rb) }
        };
        // `Y[m]` apart (riding along with the first batch, `batch`'s `EX`,
        // measured no faster on ymm: 0.91-1.02x).
        let y_m = super::xmm::encrypt_one::<NR>(enc, extra);
        let (mut ex, ek) = (_mm_setzero_si128(), [_mm_setzero_si128(); 15]);
        let mut acc = L::zero();
        let step = REGS * L::BLOCKS;
        let full = (n - 1) / step; // full batches before the last one
        debug_assert_eq!(n.div_ceil(L::BLOCKS), REGS * full + V);
        let mut i = 0;
        macro_rules! go {
            ($v:expr, $part:expr) => {{
                let zs: [L; $v] = core::array::from_fn(|v| z(i + L::BLOCKS * v));
                // SAFETY: blocks i .. n are valid, the batch's below them
                // (the last register's `$part`, the only ones it touches).
                let (s, d) = (src.add(i), dst.add(i));
                let (offs, ex) = ((&zs, bk0, bkl, core::ptr::null()), (&mut ex, &ek));
                if DEC {
                    batch::<L, $v, NR, true, true, SUM_OUT, true, false, false>(
                        &k, s, d, $part, offs, &mut acc, ex,
                    );
                } else {
                    batch::<L, $v, NR, false, true, SUM_IN, true, false, false>(
                        &k, s, d, $part, offs, &mut acc, ex,
                    );
                }
            }};
        }
        for _ in 0..full {
            go!(REGS, L::BLOCKS);
            i += step;
        }
        let part = n - i - L::BLOCKS * (V - 1); // 1 ..= BLOCKS in the last register
        go!(V, part);
        *extra = y_m;
        store(L::fold(acc))
    }
}
