//! The wide-block passes (`wide.rs`) on VAES-512: four blocks per zmm
//! register, eight registers per batch (32 blocks), the remainder as one
//! batch of as many registers as it needs, the last one masked.

use core::arch::x86_64::*;

use super::Dir;
use super::schedule::{load, store};
use super::vaes::{times_x, times_x_lanes, times_x8};
use super::wide::{Pass, WideJob, pass_arms};
use crate::arith::gf128::Block;

/// Run a plain (E_K) pass with `NR` rounds.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW, VAES and VPCLMULQDQ; `job.src`,
/// `job.dst` and `job.l` valid for `job.n` blocks, `src` and `dst` equal or
/// disjoint.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,aes,pclmulqdq")]
pub(super) unsafe fn dispatch<const NR: usize>(dir: Dir, pass: Pass, job: &WideJob<'_>) -> Block {
    // SAFETY (every arm): the caller's guarantees, passed on (`FirstMid`:
    // in place, PCLMULQDQ present).
    unsafe { pass_arms!(dir, pass, job, NR, false) }
}

/// Run an EtE pass (StE over XEX-AES-128: 10 rounds).
///
/// # Safety
/// As [`dispatch`]; the key has 10 rounds.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,aes,pclmulqdq")]
pub(super) unsafe fn dispatch_ste(dir: Dir, pass: Pass, job: &WideJob<'_>) -> Block {
    // SAFETY (every arm): the caller's guarantees, passed on (`FirstMid`:
    // in place, PCLMULQDQ present).
    unsafe { pass_arms!(dir, pass, job, 10, true) }
}

/// `$body` for each register index `$v` in `0 .. $n` (`$n <= 8`), written
/// out: LLVM left the EtE batches' per-register loops rolled (a runtime
/// index into `Powers::reg`, the registers through the stack).
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

/// Blocks per full batch.
const BATCH: usize = 32;

/// The constants of a pass, broadcast to every lane.
struct Consts {
    k0: __m512i,
    kl: __m512i,
    k0_ecb: __m512i,
    kl_ecb: __m512i,
    /// `kl_ecb xor k0`: enciphering, F_ecb's last round key with F_wide's
    /// first folded in (the L_j of the first pass xored in per block).
    kl_ecb_k0: __m512i,
    /// StE's swap on plain values (K and H).
    swap: Swap,
    /// The swap on values that carry `k0` already (K xor k0 and H xor k0):
    /// enciphering, F_wide's input after its first round key.
    swap_k0: Swap,
    poly: __m512i,
}

/// StE's swap of K and H, on a value that may carry a known constant c
/// (`probe = x xor c`, the targets `K xor c` and `H xor c`): a lane equals
/// a target when both 64-bit halves do, i.e. when `v = T` and `v' = T'`
/// in both halves (`v'` the lane with its halves swapped): one compare
/// into a mask, and a second compare under that mask; the same for H. The
/// lanes of either mask get `D = K xor H` by one masked xor. No branch, no
/// table index. The constant lets the first round key ride in the value
/// compared (one xor less per swap). (Two masked xors instead of `kor`,
/// off the AES port: LLVM made them a zero-masked move and two xors, and
/// deciphering was slower: EtE-2048 2854 -> 3087 ns; `kadd`, p5: no.)
struct Swap {
    k: __m512i,
    h: __m512i,
    ks: __m512i,
    hs: __m512i,
    d: __m512i,
}

impl Swap {
    /// The swap on values carrying `c`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn new(k: &Block, h: &Block, c: __m512i) -> Self {
        let (k, h) = (
            _mm512_broadcast_i32x4(load(k)),
            _mm512_broadcast_i32x4(load(h)),
        );
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
    fn apply(&self, probe: __m512i, out: __m512i) -> __m512i {
        let vs = _mm512_shuffle_epi32::<_MM_PERM_BADC>(probe);
        let mk = _mm512_mask_cmpeq_epi64_mask(_mm512_cmpeq_epi64_mask(probe, self.k), vs, self.ks);
        let mh = _mm512_mask_cmpeq_epi64_mask(_mm512_cmpeq_epi64_mask(probe, self.h), vs, self.hs);
        _mm512_mask_xor_epi64(out, mk | mh, out, self.d)
    }
}

/// The powers `M x^j` (LE) of the last pass: `b` holds `M x^(32c + l)` and
/// `b4` `M x^(32c + 4 + l)` in lane l for the current stretch c of 32
/// blocks (one batch).
struct Powers {
    b: __m512i,
    b4: __m512i,
}

impl Powers {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn new(m: &Block, poly: __m512i) -> Self {
        let b = times_x_lanes::<0>(_mm512_broadcast_i32x4(load(m)), poly);
        Self {
            b,
            b4: times_x(b, 4, poly),
        }
    }

    /// The offsets of register `v` of the batch: `M x^(32c + 4v + l)`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn reg(&self, v: usize, poly: __m512i) -> __m512i {
        let base = if v.is_multiple_of(2) { self.b } else { self.b4 };
        match v / 2 {
            0 => base,
            1 => times_x8::<1, 15>(base, poly),
            2 => times_x8::<2, 14>(base, poly),
            _ => times_x8::<3, 13>(base, poly),
        }
    }

    /// On to the next stretch of 32 blocks.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn step(&mut self, poly: __m512i) {
        self.b = times_x8::<4, 12>(self.b, poly);
        self.b4 = times_x8::<4, 12>(self.b4, poly);
    }
}

/// The loop over batches. `LAST`: the last pass (powers of M before, the
/// table after) or the first (the table before, the sum of the outputs);
/// `STE`: EtE's ciphers (with the ECB layer in the first pass when
/// enciphering, in the last when deciphering).
///
/// # Safety
/// As [`dispatch`].
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
unsafe fn kernel<const NR: usize, const DEC: bool, const LAST: bool, const STE: bool>(
    job: &WideJob<'_>,
) -> __m128i {
    let mut k = [_mm512_setzero_si512(); 15];
    // A counted loop: an iterator chain here was left as calls (`Skip`,
    // `Take`) in the kernel.
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        k[r] = _mm512_broadcast_i32x4(load(&job.keys[r]));
    }
    let poly = _mm512_set1_epi64(0x87);
    let k0 = _mm512_broadcast_i32x4(load(job.k0));
    let kl_ecb = _mm512_broadcast_i32x4(load(job.kl_ecb));
    let c = Consts {
        k0,
        kl: _mm512_broadcast_i32x4(load(job.kl)),
        k0_ecb: _mm512_broadcast_i32x4(load(job.k0_ecb)),
        kl_ecb,
        kl_ecb_k0: _mm512_xor_si512(kl_ecb, k0),
        swap: Swap::new(job.sk, job.sh, _mm512_setzero_si512()),
        swap_k0: Swap::new(job.sk, job.sh, k0),
        poly,
    };
    let mut pw = Powers::new(job.m, poly);
    let mut acc = _mm512_setzero_si512();
    let n = job.n;
    let mut i = 0;
    while n - i >= BATCH {
        // SAFETY: blocks i .. i + 32 are below n.
        unsafe {
            batch::<8, NR, DEC, LAST, STE>(
                &k,
                &c,
                &pw,
                job.src.add(i),
                job.dst.add(i),
                job.l.add(i),
                0xff,
                &mut acc,
            )
        };
        if LAST {
            pw.step(poly);
        }
        i += BATCH;
    }
    let rem = n - i;
    if rem > 0 {
        let nv = rem.div_ceil(4);
        let last = rem - 4 * (nv - 1); // 1 ..= 4 blocks in the last register
        let mask = (0xffu32 >> (8 - 2 * last)) as u8;
        macro_rules! tail {
            ($v:literal) => {
                // SAFETY: the first `rem` blocks from i are below n; the
                // last register's masked-out lanes are neither loaded nor
                // stored.
                unsafe {
                    batch::<$v, NR, DEC, LAST, STE>(
                        &k,
                        &c,
                        &pw,
                        job.src.add(i),
                        job.dst.add(i),
                        job.l.add(i),
                        mask,
                        &mut acc,
                    )
                }
            };
        }
        match nv {
            1 => tail!(1),
            2 => tail!(2),
            3 => tail!(3),
            4 => tail!(4),
            5 => tail!(5),
            6 => tail!(6),
            7 => tail!(7),
            _ => tail!(8),
        }
    }
    super::vaes::xor_lanes(acc)
}

/// Register `v` of `V` at `p`: a full load, or the lanes in `mask` for the
/// last register.
///
/// # Safety
/// `p` valid for the four blocks (the last register: the lanes in `mask`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
unsafe fn load_reg<const V: usize>(p: *const Block, v: usize, mask: u8) -> __m512i {
    let p = p.wrapping_add(4 * v);
    if v + 1 == V {
        // SAFETY: the caller's: the lanes in `mask` are valid.
        unsafe { _mm512_maskz_loadu_epi64(mask, p.cast()) }
    } else {
        // SAFETY: the caller's: a full register.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
}

/// Full AES rounds 1 .. NR - 1 on every register.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
fn rounds<const V: usize, const NR: usize, const DEC: bool>(
    x: &mut [__m512i; V],
    k: &[__m512i; 15],
) {
    for kr in &k[1..NR] {
        for xv in x.iter_mut() {
            *xv = if DEC {
                _mm512_aesdec_epi128(*xv, *kr)
            } else {
                _mm512_aesenc_epi128(*xv, *kr)
            };
        }
    }
}

/// The last round with the key `kl`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
fn last_round<const DEC: bool>(x: __m512i, kl: __m512i) -> __m512i {
    if DEC {
        _mm512_aesdeclast_epi128(x, kl)
    } else {
        _mm512_aesenclast_epi128(x, kl)
    }
}

/// One batch of `V` registers.
///
/// # Safety
/// `src`, `dst` and `l` valid for `4 V` blocks except the last register's
/// lanes outside `mask`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
#[allow(clippy::too_many_arguments)]
unsafe fn batch<
    const V: usize,
    const NR: usize,
    const DEC: bool,
    const LAST: bool,
    const STE: bool,
>(
    k: &[__m512i; 15],
    c: &Consts,
    pw: &Powers,
    src: *const Block,
    dst: *mut Block,
    l: *const Block,
    mask: u8,
    acc: &mut __m512i,
) {
    // EtE's ECB layer: before the first pass (enciphering), after the last
    // (deciphering).
    let layer_before = STE && !DEC && !LAST;
    let layer_after = STE && DEC && LAST;
    let mut x = [_mm512_setzero_si512(); V];
    each_reg!(V, |v| {
        // SAFETY: the caller's.
        let m = unsafe { load_reg::<V>(src, v, mask) };
        x[v] = if layer_before {
            // F_ecb's input: sw(P) xor Δ_ecb xor K0.
            c.swap.apply(m, _mm512_xor_si512(m, c.k0_ecb))
        } else {
            let pre = if LAST {
                pw.reg(v, c.poly)
            } else {
                // SAFETY: the caller's.
                unsafe { load_reg::<V>(l, v, mask) }
            };
            let x0 = _mm512_ternarylogic_epi64::<0x96>(m, pre, c.k0);
            if STE && !DEC {
                // F_wide's input sw(m xor pre) xor K0 (Δ_wide in K0): the
                // swap on x0 = m xor pre xor K0 against K, H xor K0.
                c.swap_k0.apply(x0, x0)
            } else {
                x0
            }
        };
    });
    if layer_before {
        rounds::<V, NR, false>(&mut x, k);
        each_reg!(V, |v| {
            // SAFETY: the caller's.
            let lj = unsafe { load_reg::<V>(l, v, mask) };
            // u = F_ecb(P) xor L_j xor K0 (Δ_ecb, L_j and F_wide's K0 in
            // the last round's key), then F_wide's input sw(.) xor K0:
            // the swap on u against K, H xor K0.
            let u = last_round::<false>(x[v], _mm512_xor_si512(c.kl_ecb_k0, lj));
            x[v] = c.swap_k0.apply(u, u);
        });
    }
    rounds::<V, NR, DEC>(&mut x, k);
    let mut y = [_mm512_setzero_si512(); V];
    each_reg!(V, |v| {
        let post = if LAST {
            // SAFETY: the caller's.
            Some(unsafe { load_reg::<V>(l, v, mask) })
        } else {
            None
        };
        y[v] = if STE && DEC {
            // F_wide^-1: sw(E^-1(c xor Δ) xor Δ) (Δ in the last round's
            // key), then the post-whitening.
            let s0 = last_round::<true>(x[v], c.kl);
            let out = match post {
                Some(p) if layer_after => {
                    // F_ecb^-1's input: sw(s0) xor L_j xor Δ_ecb xor K0.
                    _mm512_ternarylogic_epi64::<0x96>(s0, p, c.k0_ecb)
                }
                Some(p) => _mm512_xor_si512(s0, p),
                None => s0,
            };
            c.swap.apply(s0, out)
        } else {
            let kl = match post {
                Some(p) => _mm512_xor_si512(c.kl, p),
                None => c.kl,
            };
            last_round::<DEC>(x[v], kl)
        };
    });
    if layer_after {
        rounds::<V, NR, true>(&mut y, k);
        each_reg!(V, |v| {
            let s0 = last_round::<true>(y[v], c.kl_ecb);
            y[v] = c.swap.apply(s0, s0);
        });
    }
    each_reg!(V, |v| {
        if !LAST {
            let s = if v + 1 == V {
                _mm512_maskz_mov_epi64(mask, y[v])
            } else {
                y[v]
            };
            *acc = _mm512_xor_si512(*acc, s);
        }
        let p = dst.wrapping_add(4 * v);
        if v + 1 == V {
            // SAFETY: the caller's: the lanes in `mask` are valid.
            unsafe { _mm512_mask_storeu_epi64(p.cast(), mask, y[v]) }
        } else {
            // SAFETY: the caller's: a full register.
            unsafe { _mm512_storeu_si512(p.cast(), y[v]) }
        }
    });
}
