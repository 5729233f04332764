//! The wide-block passes (`wide.rs`), written once for every lane width
//! (`lane.rs`) and instantiated per tier by [`WideLane::wide`]: eight registers
//! per batch, the remainder as one batch of as many registers as it needs,
//! the last one partial (`Lane::load_n`/`store_n`: nothing padded, nothing
//! past the blocks touched).
//!
//! What differs per tier is behind two lane types:
//!
//! | lane | the powers `M x^j` ([`WideLane::Pow`]) | StE's swap ([`WideLane::Swap`]) |
//! | --- | --- | --- |
//! | Xmm | one LE doubling per block (a chain beside the rounds) | a 32-bit compare, the mask and-ed with itself rotated |
//! | Ymm | four bases (`M x^(16c + 2q + l)`), register v a base times `x^(8 (v / 4))`: a byte shift and one carry-less multiply | a 64-bit compare and-ed with itself swapped |
//! | Zmm | two bases (`M x^(32c + l)`, `M x^(32c + 4 + l)`), register v a base times `x^(8 (v / 2))` | two compares into a mask, the second under the first; one masked xor |
//!
//! The swap is no branch and no table index; the powers' bases step once
//! per batch. EME's middle block after a first pass ([`middle`]) is one
//! block on the AES-NI instructions whatever the tier.

use core::arch::x86_64::*;

use super::Dir;
use super::lane::{Lane, Xmm, Ymm, Zmm};
use super::schedule::{load, store};
use super::vaes::{times_x, times_x_lanes, times_x8};
use crate::arith::gf128::Block;
use crate::engine::dispatch::by_count8;
use zeroize::Zeroize;

/// One pass's parameters, for the kernels. Blocks are passed by
/// reference, not copied: a kernel's 16-byte loads of a block just copied
/// field by field (in 8-byte moves) would wait for the stores to retire.
pub(super) struct WideJob<'a> {
    /// Round keys of the direction (entries 1 .. rounds - 1 are used; the
    /// first and last are `k0`, `kl`).
    pub(super) keys: &'a [Block; 15],
    pub(super) src: *const Block,
    pub(super) dst: *mut Block,
    /// Blocks: `src`, `dst` and `l` hold at least this many.
    pub(super) n: usize,
    /// The caller's table `l[j]`.
    pub(super) l: *const Block,
    /// The last pass's base `M` of the powers `M x^j` (LE).
    pub(super) m: &'a Block,
    /// The main cipher's first and last round keys (EtE: Δ_wide folded in).
    pub(super) k0: &'a Block,
    pub(super) kl: &'a Block,
    /// EtE's ECB layer's first and last round keys (Δ_ecb folded in).
    pub(super) k0_ecb: &'a Block,
    pub(super) kl_ecb: &'a Block,
    /// EtE's swap: K and H.
    pub(super) sk: &'a Block,
    pub(super) sh: &'a Block,
    /// The middle ([`Pass::FirstMid`]): the tweak T and `x + ... +
    /// x^(n-1)`.
    pub(super) tweak: &'a Block,
    pub(super) s_m: &'a Block,
}

/// Which pass a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pass {
    /// The first pass; the sum of its outputs is returned.
    First,
    /// The first pass and the middle (in place); M is returned.
    FirstMid,
    /// The last pass.
    Last,
}

/// Registers per full batch.
const REGS: usize = 8;

/// `$body` for each register index `$v` in `0 .. $n` (`$n <= 8`), written
/// out: LLVM left the EtE batches' per-register loops rolled (a runtime
/// index into the powers, the registers through the stack).
macro_rules! each_reg {
    ($n:expr, |$v:ident| $body:block) => {
        each_reg!(@ $n, $v, $body, 0 1 2 3 4 5 6 7)
    };
    (@ $n:expr, $v:ident, $body:block, $($i:literal)*) => {
        $(
            if $i < $n {
                let $v: usize = $i;
                $body
            }
        )*
    };
}

/// Run a pass with `NR` rounds on lane `L` (`STE`: EtE's, 10 rounds); the
/// middle after the first pass for [`Pass::FirstMid`]. Returns the block
/// the pass returns (the sum of the outputs, M, or zero).
///
/// # Safety
/// The CPU must have `L`'s tier's features, and PCLMULQDQ for
/// [`Pass::FirstMid`] (then in place); `job.src`, `job.dst` and `job.l`
/// valid for `job.n >= 1` blocks, `src` and `dst` equal or disjoint.
pub(super) unsafe fn dispatch<L: WideLane, const NR: usize, const STE: bool>(
    dir: Dir,
    pass: Pass,
    job: &WideJob<'_>,
) -> Block {
    // SAFETY (every arm): the caller's guarantees, passed on.
    unsafe {
        match (dir, pass) {
            (Dir::Encrypt, Pass::First) => store(L::wide::<NR, false, false, STE>(job)),
            (Dir::Decrypt, Pass::First) => store(L::wide::<NR, true, false, STE>(job)),
            (Dir::Encrypt, Pass::FirstMid) => {
                let sp = L::wide::<NR, false, false, STE>(job);
                middle::<NR, false, STE>(sp, job)
            }
            (Dir::Decrypt, Pass::FirstMid) => {
                let sp = L::wide::<NR, true, false, STE>(job);
                middle::<NR, true, STE>(sp, job)
            }
            (Dir::Encrypt, Pass::Last) => store(L::wide::<NR, false, true, STE>(job)),
            (Dir::Decrypt, Pass::Last) => store(L::wide::<NR, true, true, STE>(job)),
        }
    }
}

/// Run [`units`] with `NR` rounds on lane `L` in the direction `dir`.
///
/// # Safety
/// As [`units`].
pub(super) unsafe fn dispatch_units<L: WideLane, const NR: usize, const STE: bool>(
    dir: Dir,
    job: &WideJob<'_>,
    tweaks: &[Block],
) {
    // SAFETY (both arms): the caller's guarantees, passed on.
    unsafe {
        match dir {
            Dir::Encrypt => L::wide_units::<NR, false, STE>(job, tweaks),
            Dir::Decrypt => L::wide_units::<NR, true, STE>(job, tweaks),
        }
    }
}

/// The constants of a pass, broadcast to every block of a register.
struct Consts<L: WideLane> {
    k0: L,
    kl: L,
    k0_ecb: L,
    kl_ecb: L,
    /// `kl_ecb xor k0`: enciphering, F_ecb's last round key with F_wide's
    /// first folded in (the L_j of the first pass xored in per block).
    kl_ecb_k0: L,
    /// StE's swap on plain values (K and H).
    swap: L::Swap,
    /// The swap on values that carry `k0` already (K xor k0 and H xor k0):
    /// enciphering, F_wide's input after its first round key (one xor
    /// less per swap).
    swap_k0: L::Swap,
}

/// The loop over batches (instantiated by [`WideLane::wide`]). `LAST`: the
/// last pass (powers of M before, the table after) or the first (the
/// table before, the sum of the outputs); `STE`: EtE's ciphers (with the
/// ECB layer in the first pass when enciphering, in the last when
/// deciphering). Returns the sum of the outputs (first pass).
///
/// # Safety
/// As [`dispatch`] (without the PCLMULQDQ).
#[inline(always)]
pub(super) unsafe fn kernel<
    L: WideLane,
    const NR: usize,
    const DEC: bool,
    const LAST: bool,
    const STE: bool,
>(
    job: &WideJob<'_>,
) -> __m128i {
    // SAFETY: the caller's: the CPU has `L`'s features; the job's blocks
    // are valid.
    unsafe {
        let (k, c) = setup::<L, NR>(job);
        pass::<L, NR, DEC, LAST, STE>(&k, &c, job, job.src, job.dst, load(job.m))
    }
}

/// EME (or EtE) over `tweaks.len()` consecutive units of `job.n` blocks
/// each, in place from `job.dst`, unit s under `tweaks[s]`, in one call:
/// the round keys and constants set up once, then per unit its first pass
/// and middle, then the previous unit's last pass (so the middle's serial
/// block overlaps a pass's rounds). Instantiated by [`WideLane::wide_units`].
///
/// # Safety
/// The CPU must have `L`'s tier's features and PCLMULQDQ; `job.dst` (equal
/// to `job.src`) valid for `tweaks.len() * job.n` blocks, `job.l` for
/// `job.n >= 1`; `job.s_m` the sum for `job.n` blocks.
#[inline(always)]
pub(super) unsafe fn units<L: WideLane, const NR: usize, const DEC: bool, const STE: bool>(
    job: &WideJob<'_>,
    tweaks: &[Block],
) {
    // SAFETY: the caller's: the CPU has the features; unit s's blocks
    // `s n .. (s + 1) n` are within the valid `tweaks.len() * n`.
    unsafe {
        let (k, c) = setup::<L, NR>(job);
        let n = job.n;
        let mut prev: Option<(*mut Block, __m128i)> = None;
        for (s, tweak) in tweaks.iter().enumerate() {
            let unit = job.dst.add(s * n);
            let sp = pass::<L, NR, DEC, false, STE>(&k, &c, job, unit, unit, _mm_setzero_si128());
            let unit_job = WideJob {
                src: unit,
                dst: unit,
                tweak,
                ..*job
            };
            let mut m = middle_inline::<NR, DEC, STE>(sp, &unit_job);
            let m_reg = load(&m);
            m.zeroize();
            if let Some((p, pm)) = prev {
                pass::<L, NR, DEC, true, STE>(&k, &c, job, p, p, pm);
            }
            prev = Some((unit, m_reg));
        }
        if let Some((p, pm)) = prev {
            pass::<L, NR, DEC, true, STE>(&k, &c, job, p, p, pm);
        }
    }
}

/// The round keys `1 .. NR - 1` and the constants of a job, broadcast.
///
/// # Safety
/// As [`kernel`].
#[inline(always)]
unsafe fn setup<L: WideLane, const NR: usize>(job: &WideJob<'_>) -> ([L; 15], Consts<L>) {
    // SAFETY: the caller's: the CPU has `L`'s features.
    unsafe {
        let mut k = [L::zero(); 15];
        // A counted loop: an iterator chain here was left as calls (`Skip`,
        // `Take`) in the kernel.
        #[allow(clippy::needless_range_loop)]
        for r in 1..NR {
            k[r] = L::broadcast(load(&job.keys[r]));
        }
        let k0 = L::broadcast(load(job.k0));
        let kl_ecb = L::broadcast(load(job.kl_ecb));
        let (sk, sh) = (load(job.sk), load(job.sh));
        let c = Consts {
            k0,
            kl: L::broadcast(load(job.kl)),
            k0_ecb: L::broadcast(load(job.k0_ecb)),
            kl_ecb,
            kl_ecb_k0: L::xor(kl_ecb, k0),
            swap: L::swap_new(sk, sh, L::zero()),
            swap_k0: L::swap_new(sk, sh, k0),
        };
        (k, c)
    }
}

/// One pass over `job.n` blocks from `src` to `dst` with the table
/// `job.l` and the powers of `m` (the last pass).
///
/// # Safety
/// As [`kernel`], with `src` and `dst` in place of the job's.
#[inline(always)]
unsafe fn pass<L: WideLane, const NR: usize, const DEC: bool, const LAST: bool, const STE: bool>(
    k: &[L; 15],
    c: &Consts<L>,
    job: &WideJob<'_>,
    src: *const Block,
    dst: *mut Block,
    m: __m128i,
) -> __m128i {
    // SAFETY: the caller's: the CPU has `L`'s features; pointer accesses
    // are justified where they are.
    unsafe {
        let mut pw = L::pow_start(m);
        let mut acc = L::zero();
        let n = job.n;
        let batch_blocks = REGS * L::BLOCKS;
        let mut i = 0;
        while n - i >= batch_blocks {
            // SAFETY: blocks i .. i + 8 BLOCKS are below n.
            batch::<L, REGS, NR, DEC, LAST, STE>(
                k,
                c,
                &mut pw,
                src.add(i),
                dst.add(i),
                job.l.add(i),
                L::BLOCKS,
                &mut acc,
            );
            if LAST {
                L::pow_step(&mut pw);
            }
            i += batch_blocks;
        }
        let rem = n - i;
        if rem > 0 {
            let nv = rem.div_ceil(L::BLOCKS);
            let part = rem - L::BLOCKS * (nv - 1); // 1 ..= BLOCKS in the last register
            macro_rules! tail {
                ($v:literal) => {
                    // SAFETY: the first `rem` blocks from i are below n; the
                    // last register touches its `part` blocks only.
                    batch::<L, $v, NR, DEC, LAST, STE>(
                        k,
                        c,
                        &mut pw,
                        src.add(i),
                        dst.add(i),
                        job.l.add(i),
                        part,
                        &mut acc,
                    )
                };
            }
            by_count8!(nv, tail)
        }
        if L::BLOCKS == 1 {
            // The next power (M x^n) on the AES-NI lane, as it always was.
            pw = L::pow_start(_mm_setzero_si128());
            core::hint::black_box(&pw);
        }
        L::fold(acc)
    }
}

/// Register `v` of `V` at `p`: a full load, or the last register's `part`
/// blocks.
///
/// # Safety
/// As [`kernel`]; `p` valid for the register's blocks (the last: `part`).
#[inline(always)]
unsafe fn load_reg<L: WideLane, const V: usize>(p: *const Block, v: usize, part: usize) -> L {
    let p = p.wrapping_add(L::BLOCKS * v);
    // SAFETY: the caller's.
    unsafe {
        if v + 1 == V && part < L::BLOCKS {
            L::load_n(p, part)
        } else {
            L::load(p)
        }
    }
}

/// Full AES rounds 1 .. NR - 1 on every register.
///
/// # Safety
/// As [`kernel`].
#[inline(always)]
unsafe fn rounds<L: WideLane, const V: usize, const NR: usize, const DEC: bool>(
    x: &mut [L; V],
    k: &[L; 15],
) {
    // SAFETY: the caller's.
    unsafe {
        // A counted loop (an iterator chain was left as a call per round).
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
            L::fence(x);
        }
    }
}

/// The last round with the key `kl`.
///
/// # Safety
/// As [`kernel`].
#[inline(always)]
unsafe fn last_round<L: WideLane, const DEC: bool>(x: L, kl: L) -> L {
    // SAFETY: the caller's.
    unsafe {
        if DEC {
            L::aesdeclast(x, kl)
        } else {
            L::aesenclast(x, kl)
        }
    }
}

/// One batch of `V` registers, the last holding `part` blocks.
///
/// # Safety
/// As [`kernel`]; `src`, `dst` and `l` valid for `BLOCKS (V - 1) + part`
/// blocks.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn batch<
    L: WideLane,
    const V: usize,
    const NR: usize,
    const DEC: bool,
    const LAST: bool,
    const STE: bool,
>(
    k: &[L; 15],
    c: &Consts<L>,
    pw: &mut L::Pow,
    src: *const Block,
    dst: *mut Block,
    l: *const Block,
    part: usize,
    acc: &mut L,
) {
    // SAFETY: the caller's: the CPU has the features; every load and store
    // touches the valid blocks only (`load_reg`, the last register's
    // `part`).
    unsafe {
        // EtE's ECB layer: before the first pass (enciphering), after the
        // last (deciphering).
        let layer_before = STE && !DEC && !LAST;
        let layer_after = STE && DEC && LAST;
        let mut x = [L::zero(); V];
        each_reg!(V, |v| {
            let m = load_reg::<L, V>(src, v, part);
            x[v] = if layer_before {
                // F_ecb's input: sw(P) xor Δ_ecb xor K0.
                L::swap_apply(&c.swap, m, L::xor(m, c.k0_ecb))
            } else {
                let pre = if LAST {
                    L::pow_reg(pw, v)
                } else {
                    load_reg::<L, V>(l, v, part)
                };
                let x0 = L::xor3(m, pre, c.k0);
                if STE && !DEC {
                    // F_wide's input sw(m xor pre) xor K0 (Δ_wide in K0):
                    // the swap on x0 = m xor pre xor K0 against K, H xor K0.
                    L::swap_apply(&c.swap_k0, x0, x0)
                } else {
                    x0
                }
            };
        });
        if layer_before {
            rounds::<L, V, NR, false>(&mut x, k);
            each_reg!(V, |v| {
                let lj = load_reg::<L, V>(l, v, part);
                // u = F_ecb(P) xor L_j xor K0 (Δ_ecb, L_j and F_wide's K0 in
                // the last round's key), then F_wide's input sw(.) xor K0:
                // the swap on u against K, H xor K0.
                let u = last_round::<L, false>(x[v], L::xor(c.kl_ecb_k0, lj));
                x[v] = L::swap_apply(&c.swap_k0, u, u);
            });
        }
        rounds::<L, V, NR, DEC>(&mut x, k);
        let mut y = [L::zero(); V];
        each_reg!(V, |v| {
            let post = if LAST {
                Some(load_reg::<L, V>(l, v, part))
            } else {
                None
            };
            y[v] = if STE && DEC {
                // F_wide^-1: sw(E^-1(c xor Δ) xor Δ) (Δ in the last round's
                // key), then the post-whitening.
                let s0 = last_round::<L, true>(x[v], c.kl);
                let out = match post {
                    // F_ecb^-1's input: sw(s0) xor L_j xor Δ_ecb xor K0.
                    Some(p) if layer_after => L::xor3(s0, p, c.k0_ecb),
                    Some(p) => L::xor(s0, p),
                    None => s0,
                };
                L::swap_apply(&c.swap, s0, out)
            } else {
                let kl = match post {
                    Some(p) => L::xor(c.kl, p),
                    None => c.kl,
                };
                last_round::<L, DEC>(x[v], kl)
            };
        });
        if layer_after {
            rounds::<L, V, NR, true>(&mut y, k);
            each_reg!(V, |v| {
                let s0 = last_round::<L, true>(y[v], c.kl_ecb);
                y[v] = L::swap_apply(&c.swap, s0, s0);
            });
        }
        each_reg!(V, |v| {
            let partial = v + 1 == V && part < L::BLOCKS;
            if !LAST {
                *acc = L::xor(*acc, if partial { L::keep_n(y[v], part) } else { y[v] });
            }
            let p = dst.wrapping_add(L::BLOCKS * v);
            if partial {
                L::store_n(p, y[v], part);
            } else {
                L::store(p, y[v]);
            }
        });
    }
}

/// EME's middle after a first pass whose outputs xor to `sp` (in place:
/// `job.dst` holds `PPP_1 .. PPP_n`): `MP = SP xor T`, `MC = G(MP)` (the
/// pass's main cipher on one block: E_K, E_K^-1, F_wide or F_wide^-1),
/// `M = MP xor MC`, `CCC_1 = MC xor T xor (SP xor PPP_1) xor M s_m`; block
/// 1 becomes `CCC_1 xor M` and M is returned. All in registers: no value
/// goes through memory between the pass and the store of block 1.
///
/// # Safety
/// The CPU must have AES-NI, SSE2 and PCLMULQDQ; `job.dst` valid for one
/// block at least (`job.n >= 1`).
#[target_feature(enable = "aes,sse2,pclmulqdq")]
unsafe fn middle<const NR: usize, const DEC: bool, const STE: bool>(
    sp: __m128i,
    job: &WideJob<'_>,
) -> Block {
    // SAFETY: this function has the features; the job is the caller's.
    unsafe { middle_inline::<NR, DEC, STE>(sp, job) }
}

/// [`middle`], inlined into its caller (the units kernel of a tier, which
/// has the features: no call, no vector registers saved around one).
///
/// # Safety
/// As [`middle`].
#[inline(always)]
unsafe fn middle_inline<const NR: usize, const DEC: bool, const STE: bool>(
    sp: __m128i,
    job: &WideJob<'_>,
) -> Block {
    // SAFETY: the CPU has AES-NI, SSE2 and PCLMULQDQ (the caller's), the
    // lane operations' on `Xmm`; block 1 of the unit is valid (the
    // caller's).
    unsafe {
        use super::lane::Xmm;
        let t = load(job.tweak);
        let mp = _mm_xor_si128(sp, t);
        let swap = Xmm::swap_new(load(job.sk), load(job.sh), Xmm::zero());
        let mp_x = Xmm::broadcast(mp);
        let mut x = if STE && !DEC {
            Xmm::swap_apply(&swap, mp_x, mp_x)
        } else {
            mp_x
        };
        x = Xmm::xor(x, Xmm::broadcast(load(job.k0)));
        for kr in &job.keys[1..NR] {
            let kr = Xmm::broadcast(load(kr));
            x = if DEC {
                Xmm::aesdec(x, kr)
            } else {
                Xmm::aesenc(x, kr)
            };
        }
        let mut mc = last_round::<Xmm, DEC>(x, Xmm::broadcast(load(job.kl)));
        if STE && DEC {
            mc = Xmm::swap_apply(&swap, mc, mc);
        }
        let mc = Xmm::fold(mc);
        let m = _mm_xor_si128(mp, mc);
        let rest = mul_le(m, load(job.s_m));
        let ppp1 = _mm_loadu_si128(job.dst.cast_const().cast());
        let ccc1 = _mm_xor_si128(
            _mm_xor_si128(_mm_xor_si128(mc, t), _mm_xor_si128(sp, ppp1)),
            rest,
        );
        _mm_storeu_si128(job.dst.cast(), _mm_xor_si128(ccc1, m));
        store(m)
    }
}

/// `a b` mod `x^128 + x^7 + x^2 + x + 1`, LE (the blocks' little-endian
/// words are the polynomial's halves): four carry-less products and two
/// folding steps (the algorithm of `disk::simd`'s `mul_le`).
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
fn mul_le(a: __m128i, b: __m128i) -> __m128i {
    let mid = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x01>(a, b),
        _mm_clmulepi64_si128::<0x10>(a, b),
    );
    let lo = _mm_xor_si128(_mm_clmulepi64_si128::<0x00>(a, b), _mm_slli_si128::<8>(mid));
    let hi = _mm_xor_si128(_mm_clmulepi64_si128::<0x11>(a, b), _mm_srli_si128::<8>(mid));
    // hi = h0 + h1 x^64 stands at x^128: h1 x^192 = (h1 0x87) x^64 = t0 x^64
    // + t1 x^128, and h0 x^128 + t1 x^128 = (h0 xor t1) 0x87.
    let poly = _mm_set_epi64x(0, 0x87);
    let t = _mm_clmulepi64_si128::<0x01>(hi, poly);
    let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(t));
    let u = _mm_clmulepi64_si128::<0x00>(_mm_xor_si128(hi, _mm_srli_si128::<8>(t)), poly);
    _mm_xor_si128(lo, u)
}

// ---- The powers and the swap in each lane's form (`WideLane::Pow`,
// `WideLane::Swap`).
// Every `unsafe` method below needs its lane's tier's features (the
// caller's: each is called from that tier's entries, inlined).

/// `v x` in GF(2^128), LE: a 128-bit shift left by one and the bit shifted
/// out folded back as `x^7 + x^2 + x + 1` (selected by a mask, not a
/// branch).
#[inline(always)]
unsafe fn double_le(v: __m128i) -> __m128i {
    // SAFETY: SSE2.
    unsafe {
        let carries = _mm_srli_epi64::<63>(v); // the top bit of each half
        let shifted = _mm_or_si128(_mm_slli_epi64::<1>(v), _mm_slli_si128::<8>(carries));
        let top = _mm_srli_si128::<8>(carries); // bit 127, in the low half
        let red = _mm_and_si128(
            _mm_sub_epi64(_mm_setzero_si128(), top),
            _mm_set_epi64x(0, 0x87),
        );
        _mm_xor_si128(shifted, red)
    }
}

/// AES-NI: the power of the next block (one doubling per block).
#[derive(Clone, Copy)]
pub(super) struct XmmPow(__m128i);

impl XmmPow {
    #[inline(always)]
    pub(super) unsafe fn new(m: __m128i) -> Self {
        XmmPow(m)
    }

    /// The next block's power (block `v` of the batch, the registers taken
    /// in order), and on to the one after.
    #[inline(always)]
    pub(super) unsafe fn reg(&mut self, _v: usize) -> __m128i {
        let p = self.0;
        // SAFETY: the caller's.
        self.0 = unsafe { double_le(p) };
        p
    }

    /// (The powers advanced block by block.)
    #[inline(always)]
    pub(super) unsafe fn step(&mut self) {}
}

/// VAES-256: `b[q]` holds `M x^(16c + 2q + l)` in lane l for the current
/// stretch c of 16 blocks (one batch).
#[derive(Clone, Copy)]
pub(super) struct YmmPow {
    b: [__m256i; 4],
    poly: __m256i,
}

/// `d x^k` per 128-bit lane (LE 128-bit values), `0 < k < 64`: a 128-bit
/// shift by k and the k carried-out bits times `x^7 + x^2 + x + 1`.
#[inline(always)]
unsafe fn ymm_times_x<const K: i32>(d: __m256i, poly: __m256i) -> __m256i {
    // SAFETY: the caller's.
    unsafe {
        let (kl, kr) = (_mm_cvtsi32_si128(K), _mm_cvtsi32_si128(64 - K));
        let up = _mm256_bslli_epi128::<8>(d); // lo qword moved up, 0 below
        let shifted = _mm256_or_si256(_mm256_sll_epi64(d, kl), _mm256_srl_epi64(up, kr));
        let top = _mm256_srl_epi64(_mm256_bsrli_epi128::<8>(d), kr); // hi >> (64 - k)
        _mm256_xor_si256(shifted, _mm256_clmulepi64_epi128::<0x00>(top, poly))
    }
}

/// `v x^(8A)` per 128-bit lane (`R = 16 - A`, `A <= 4`): a byte shift and
/// the bytes shifted out times `x^7 + x^2 + x + 1`.
#[inline(always)]
unsafe fn ymm_times_x8<const A: i32, const R: i32>(v: __m256i, poly: __m256i) -> __m256i {
    // SAFETY: the caller's.
    unsafe {
        let shifted = _mm256_bslli_epi128::<A>(v);
        let out = _mm256_bsrli_epi128::<R>(v);
        _mm256_xor_si256(shifted, _mm256_clmulepi64_epi128::<0x00>(out, poly))
    }
}

impl YmmPow {
    #[inline(always)]
    pub(super) unsafe fn new(m: __m128i) -> Self {
        // SAFETY: the caller's.
        unsafe {
            let poly = _mm256_set1_epi64x(0x87);
            let b0 = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(m), double_le(m));
            YmmPow {
                b: [
                    b0,
                    ymm_times_x::<2>(b0, poly),
                    ymm_times_x::<4>(b0, poly),
                    ymm_times_x::<6>(b0, poly),
                ],
                poly,
            }
        }
    }

    /// Register `v` of the batch: `M x^(16c + 2v + l)`.
    #[inline(always)]
    pub(super) unsafe fn reg(&self, v: usize) -> __m256i {
        let base = self.b[v % 4];
        if v < 4 {
            base
        } else {
            // SAFETY: the caller's.
            unsafe { ymm_times_x8::<1, 15>(base, self.poly) }
        }
    }

    /// On to the next stretch of 16 blocks.
    #[inline(always)]
    pub(super) unsafe fn step(&mut self) {
        for b in &mut self.b {
            // SAFETY: the caller's.
            *b = unsafe { ymm_times_x8::<2, 14>(*b, self.poly) };
        }
    }
}

/// VAES-512: `b` holds `M x^(32c + l)` and `b4` `M x^(32c + 4 + l)` in
/// lane l for the current stretch c of 32 blocks (one batch).
#[derive(Clone, Copy)]
pub(super) struct ZmmPow {
    b: __m512i,
    b4: __m512i,
    poly: __m512i,
}

impl ZmmPow {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    pub(super) fn new(m: __m128i) -> Self {
        let poly = _mm512_set1_epi64(0x87);
        let b = times_x_lanes::<0>(_mm512_broadcast_i32x4(m), poly);
        Self {
            b,
            b4: times_x(b, 4, poly),
            poly,
        }
    }

    /// The offsets of register `v` of the batch: `M x^(32c + 4v + l)`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    pub(super) fn reg(&self, v: usize) -> __m512i {
        let base = if v.is_multiple_of(2) { self.b } else { self.b4 };
        match v / 2 {
            0 => base,
            1 => times_x8::<1, 15>(base, self.poly),
            2 => times_x8::<2, 14>(base, self.poly),
            _ => times_x8::<3, 13>(base, self.poly),
        }
    }

    /// On to the next stretch of 32 blocks.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    pub(super) fn step(&mut self) {
        self.b = times_x8::<4, 12>(self.b, self.poly);
        self.b4 = times_x8::<4, 12>(self.b4, self.poly);
    }
}

/// StE's swap of K and H, SSE2 only, on values that carry a known constant
/// c (the targets `K xor c`, `H xor c`): a block equals a target when its
/// four 32-bit words do (a compare, then the mask and-ed with itself
/// rotated by one and two words); the selected blocks get `K xor H`.
#[derive(Clone, Copy)]
pub(super) struct XmmSwap {
    k: __m128i,
    h: __m128i,
    d: __m128i,
}

impl XmmSwap {
    #[inline(always)]
    pub(super) unsafe fn new(k: __m128i, h: __m128i, c: __m128i) -> Self {
        // SAFETY: the caller's.
        unsafe {
            XmmSwap {
                k: _mm_xor_si128(k, c),
                h: _mm_xor_si128(h, c),
                d: _mm_xor_si128(k, h),
            }
        }
    }

    /// `out xor D` where `probe` is a target, `out` elsewhere.
    #[inline(always)]
    pub(super) unsafe fn apply(&self, probe: __m128i, out: __m128i) -> __m128i {
        // SAFETY: the caller's.
        unsafe {
            let all = |e: __m128i| {
                let e = _mm_and_si128(e, _mm_shuffle_epi32::<0x4e>(e));
                _mm_and_si128(e, _mm_shuffle_epi32::<0xb1>(e))
            };
            let hit = _mm_or_si128(
                all(_mm_cmpeq_epi32(probe, self.k)),
                all(_mm_cmpeq_epi32(probe, self.h)),
            );
            _mm_xor_si128(out, _mm_and_si128(hit, self.d))
        }
    }
}

/// StE's swap on VAES-256: a lane equals a target when both its 64-bit
/// halves do (`vpcmpeqq`, and-ed with itself halves swapped).
#[derive(Clone, Copy)]
pub(super) struct YmmSwap {
    k: __m256i,
    h: __m256i,
    d: __m256i,
}

impl YmmSwap {
    #[inline(always)]
    pub(super) unsafe fn new(k: __m128i, h: __m128i, c: __m256i) -> Self {
        // SAFETY: the caller's.
        unsafe {
            let (k, h) = (
                _mm256_broadcastsi128_si256(k),
                _mm256_broadcastsi128_si256(h),
            );
            YmmSwap {
                k: _mm256_xor_si256(k, c),
                h: _mm256_xor_si256(h, c),
                d: _mm256_xor_si256(k, h),
            }
        }
    }

    /// `out xor D` in the lanes where `probe` is a target, `out` elsewhere.
    #[inline(always)]
    pub(super) unsafe fn apply(&self, probe: __m256i, out: __m256i) -> __m256i {
        // SAFETY: the caller's.
        unsafe {
            let all = |e: __m256i| _mm256_and_si256(e, _mm256_shuffle_epi32::<0x4e>(e));
            let hit = _mm256_or_si256(
                all(_mm256_cmpeq_epi64(probe, self.k)),
                all(_mm256_cmpeq_epi64(probe, self.h)),
            );
            _mm256_xor_si256(out, _mm256_and_si256(hit, self.d))
        }
    }
}

/// StE's swap on VAES-512, on a value that may carry a known constant c
/// (`probe = x xor c`, the targets `K xor c` and `H xor c`): a lane equals
/// a target when both 64-bit halves do, i.e. when `v = T` and `v' = T'` in
/// both halves (`v'` the lane with its halves swapped): one compare into a
/// mask, and a second compare under that mask; the same for H. The lanes
/// of either mask get `D = K xor H` by one masked xor. (Two masked xors
/// instead of `kor`, off the AES port: LLVM made them a zero-masked move
/// and two xors, and deciphering was slower: EtE-2048 2854 -> 3087 ns;
/// `kadd`, p5: no.)
#[derive(Clone, Copy)]
pub(super) struct ZmmSwap {
    k: __m512i,
    h: __m512i,
    ks: __m512i,
    hs: __m512i,
    d: __m512i,
}

impl ZmmSwap {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    pub(super) fn new(k: __m128i, h: __m128i, c: __m512i) -> Self {
        let (k, h) = (_mm512_broadcast_i32x4(k), _mm512_broadcast_i32x4(h));
        let (kc, hc) = (_mm512_xor_si512(k, c), _mm512_xor_si512(h, c));
        Self {
            k: kc,
            h: hc,
            ks: _mm512_shuffle_epi32::<_MM_PERM_BADC>(kc),
            hs: _mm512_shuffle_epi32::<_MM_PERM_BADC>(hc),
            d: _mm512_xor_si512(k, h),
        }
    }

    /// `out xor D` in the lanes where `probe` is a target, `out` elsewhere.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    pub(super) fn apply(&self, probe: __m512i, out: __m512i) -> __m512i {
        let vs = _mm512_shuffle_epi32::<_MM_PERM_BADC>(probe);
        let mk = _mm512_mask_cmpeq_epi64_mask(_mm512_cmpeq_epi64_mask(probe, self.k), vs, self.ks);
        let mh = _mm512_mask_cmpeq_epi64_mask(_mm512_cmpeq_epi64_mask(probe, self.h), vs, self.hs);
        _mm512_mask_xor_epi64(out, mk | mh, out, self.d)
    }
}

/// The wide-block passes on a lane: the powers `M x^j` (LE) of a batch,
/// StE's swap, and the tier's `#[target_feature]` entries to [`kernel`]
/// and [`units`].
pub(super) trait WideLane: Lane {
    /// The powers' state.
    type Pow: Copy;
    /// The powers from `M x^0` on.
    unsafe fn pow_start(m: __m128i) -> Self::Pow;
    /// Register `v`'s powers in the current batch; called once per
    /// register, in order.
    unsafe fn pow_reg(p: &mut Self::Pow, v: usize) -> Self;
    /// On to the next batch (after a full one).
    unsafe fn pow_step(p: &mut Self::Pow);
    /// StE's swap of K and H on values carrying a constant (EtE).
    type Swap: Copy;
    /// The swap of `K` and `H` on values that carry `c`.
    unsafe fn swap_new(k: __m128i, h: __m128i, c: Self) -> Self::Swap;
    /// `out xor K xor H` in the blocks where `probe` is `K xor c` or `H
    /// xor c`, `out` elsewhere (no branch, no table index).
    unsafe fn swap_apply(s: &Self::Swap, probe: Self, out: Self) -> Self;
    /// The tier's entry to one wide-block pass ([`kernel`]).
    ///
    /// # Safety
    /// The CPU has the tier's features; `job` as [`dispatch`] says.
    unsafe fn wide<const NR: usize, const DEC: bool, const LAST: bool, const STE: bool>(
        job: &WideJob<'_>,
    ) -> __m128i;
    /// The tier's entry to the passes over consecutive units ([`units`]).
    ///
    /// # Safety
    /// The CPU has the tier's features; `job` and `tweaks` as [`units`]
    /// says.
    unsafe fn wide_units<const NR: usize, const DEC: bool, const STE: bool>(
        job: &WideJob<'_>,
        tweaks: &[Block],
    );
}

/// [`WideLane`] for the lane `$t` (powers `$pow`, swap `$swap`, features
/// `$f`).
macro_rules! wide_lane {
    ($t:ident, $pow:ty, $swap:ty, $f:literal) => {
        // SAFETY (every `unsafe` block): the caller's guarantees (the
        // tier's features; `job` as `dispatch` and `units` say).
        impl WideLane for $t {
            type Pow = $pow;
            #[inline(always)]
            unsafe fn pow_start(m: __m128i) -> $pow {
                unsafe { <$pow>::new(m) }
            }
            #[inline(always)]
            unsafe fn pow_reg(p: &mut $pow, v: usize) -> Self {
                unsafe { $t(p.reg(v)) }
            }
            #[inline(always)]
            unsafe fn pow_step(p: &mut $pow) {
                unsafe { p.step() }
            }
            type Swap = $swap;
            #[inline(always)]
            unsafe fn swap_new(k: __m128i, h: __m128i, c: Self) -> $swap {
                unsafe { <$swap>::new(k, h, c.0) }
            }
            #[inline(always)]
            unsafe fn swap_apply(s: &$swap, probe: Self, out: Self) -> Self {
                unsafe { $t(s.apply(probe.0, out.0)) }
            }
            #[target_feature(enable = $f)]
            unsafe fn wide<const NR: usize, const DEC: bool, const LAST: bool, const STE: bool>(
                job: &WideJob<'_>,
            ) -> __m128i {
                unsafe { kernel::<Self, NR, DEC, LAST, STE>(job) }
            }
            #[target_feature(enable = $f)]
            unsafe fn wide_units<const NR: usize, const DEC: bool, const STE: bool>(
                job: &WideJob<'_>,
                tweaks: &[Block],
            ) {
                unsafe { units::<Self, NR, DEC, STE>(job, tweaks) }
            }
        }
    };
}
wide_lane!(Xmm, XmmPow, XmmSwap, "aes,sse2");
wide_lane!(
    Ymm,
    YmmPow,
    YmmSwap,
    "avx,avx2,aes,vaes,pclmulqdq,vpclmulqdq"
);
wide_lane!(Zmm, ZmmPow, ZmmSwap, "avx512f,avx512bw,vaes,vpclmulqdq");
