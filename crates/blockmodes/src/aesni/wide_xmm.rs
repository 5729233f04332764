//! The wide-block passes (`wide.rs`) on AES-NI: one block per xmm register,
//! eight per batch, the remainder as one batch of its exact size. The
//! powers `M x^j` are one LE doubling per block (a chain, beside the
//! rounds).

use core::arch::x86_64::*;

use super::Dir;
use super::schedule::{load, store};
use super::wide::{Pass, WideJob, pass_arms};
use crate::arith::gf128::Block;

/// Run a plain (E_K) pass with `NR` rounds.
///
/// # Safety
/// The CPU must have AES-NI and SSE2; pointers as in
/// [`super::wide_vaes::dispatch`].
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn dispatch<const NR: usize>(dir: Dir, pass: Pass, job: &WideJob<'_>) -> Block {
    // SAFETY (every arm): the caller's guarantees, passed on (`FirstMid`:
    // in place, PCLMULQDQ present).
    unsafe { pass_arms!(dir, pass, job, NR, false) }
}

/// Run an EtE pass (StE over XEX-AES-128: 10 rounds).
///
/// # Safety
/// As [`dispatch`]; the key has 10 rounds.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn dispatch_ste(dir: Dir, pass: Pass, job: &WideJob<'_>) -> Block {
    // SAFETY (every arm): the caller's guarantees, passed on (`FirstMid`:
    // in place, PCLMULQDQ present).
    unsafe { pass_arms!(dir, pass, job, 10, true) }
}

/// Blocks per full batch.
const BATCH: usize = 8;

struct Consts {
    k0: __m128i,
    kl: __m128i,
    k0_ecb: __m128i,
    kl_ecb: __m128i,
    swap: Swap,
}

/// StE's swap of K and H, SSE2 only: the block equals K when its four
/// 32-bit words do (a compare, then the mask and-ed with itself rotated by
/// one and two words); the selected blocks get `K xor H`. No branch, no
/// table index.
struct Swap {
    k: __m128i,
    h: __m128i,
    kh: __m128i,
}

impl Swap {
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn apply(&self, v: __m128i) -> __m128i {
        let all = |e: __m128i| {
            let e = _mm_and_si128(e, _mm_shuffle_epi32::<0x4e>(e));
            _mm_and_si128(e, _mm_shuffle_epi32::<0xb1>(e))
        };
        let hit = _mm_or_si128(
            all(_mm_cmpeq_epi32(v, self.k)),
            all(_mm_cmpeq_epi32(v, self.h)),
        );
        _mm_xor_si128(v, _mm_and_si128(hit, self.kh))
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
#[inline]
#[target_feature(enable = "aes,sse2,pclmulqdq")]
pub(super) unsafe fn middle<const NR: usize, const DEC: bool, const STE: bool>(
    sp: __m128i,
    job: &WideJob<'_>,
) -> Block {
    let t = load(job.tweak);
    let mp = _mm_xor_si128(sp, t);
    let swap = Swap {
        k: load(job.sk),
        h: load(job.sh),
        kh: _mm_xor_si128(load(job.sk), load(job.sh)),
    };
    let mut x = if STE && !DEC { swap.apply(mp) } else { mp };
    x = _mm_xor_si128(x, load(job.k0));
    for kr in &job.keys[1..NR] {
        x = if DEC {
            _mm_aesdec_si128(x, load(kr))
        } else {
            _mm_aesenc_si128(x, load(kr))
        };
    }
    let mut mc = last_round::<DEC>(x, load(job.kl));
    if STE && DEC {
        mc = swap.apply(mc);
    }
    let m = _mm_xor_si128(mp, mc);
    let rest = mul_le(m, load(job.s_m));
    // SAFETY: the caller's: block 1 of the unit is valid.
    let ppp1 = unsafe { _mm_loadu_si128(job.dst.cast_const().cast()) };
    let ccc1 = _mm_xor_si128(
        _mm_xor_si128(_mm_xor_si128(mc, t), _mm_xor_si128(sp, ppp1)),
        rest,
    );
    // SAFETY: as above.
    unsafe { _mm_storeu_si128(job.dst.cast(), _mm_xor_si128(ccc1, m)) };
    store(m)
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

/// `v x` in GF(2^128), LE: a 128-bit shift left by one and the bit shifted
/// out folded back as `x^7 + x^2 + x + 1` (selected by a mask, not a branch).
#[inline]
#[target_feature(enable = "aes,sse2")]
fn double_le(v: __m128i) -> __m128i {
    let carries = _mm_srli_epi64::<63>(v); // the top bit of each half
    let shifted = _mm_or_si128(_mm_slli_epi64::<1>(v), _mm_slli_si128::<8>(carries));
    let top = _mm_srli_si128::<8>(carries); // bit 127, in the low half
    let red = _mm_and_si128(
        _mm_sub_epi64(_mm_setzero_si128(), top),
        _mm_set_epi64x(0, 0x87),
    );
    _mm_xor_si128(shifted, red)
}

/// The loop over batches (see `wide_vaes::kernel`).
///
/// # Safety
/// As [`dispatch`].
#[target_feature(enable = "aes,sse2")]
unsafe fn kernel<const NR: usize, const DEC: bool, const LAST: bool, const STE: bool>(
    job: &WideJob<'_>,
) -> __m128i {
    let mut k = [_mm_setzero_si128(); 15];
    // A counted loop: an iterator chain here was left as calls (`Skip`,
    // `Take`) in the kernel.
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        k[r] = load(&job.keys[r]);
    }
    let c = Consts {
        k0: load(job.k0),
        kl: load(job.kl),
        k0_ecb: load(job.k0_ecb),
        kl_ecb: load(job.kl_ecb),
        swap: Swap {
            k: load(job.sk),
            h: load(job.sh),
            kh: _mm_xor_si128(load(job.sk), load(job.sh)),
        },
    };
    let mut z = load(job.m); // M x^j of the next block
    let mut acc = _mm_setzero_si128();
    let n = job.n;
    let mut i = 0;
    macro_rules! go {
        ($v:literal) => {
            // SAFETY: blocks i .. i + $v are below n.
            unsafe {
                batch::<$v, NR, DEC, LAST, STE>(
                    &k,
                    &c,
                    &mut z,
                    job.src.add(i),
                    job.dst.add(i),
                    job.l.add(i),
                    &mut acc,
                )
            }
        };
    }
    while n - i >= BATCH {
        go!(8);
        i += BATCH;
    }
    match n - i {
        0 => {}
        1 => go!(1),
        2 => go!(2),
        3 => go!(3),
        4 => go!(4),
        5 => go!(5),
        6 => go!(6),
        _ => go!(7),
    }
    z = _mm_setzero_si128();
    core::hint::black_box(&z);
    acc
}

/// Full AES rounds 1 .. NR - 1 on every block.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn rounds<const V: usize, const NR: usize, const DEC: bool>(
    x: &mut [__m128i; V],
    k: &[__m128i; 15],
) {
    // A counted loop (an iterator chain was left as a call per round in
    // `xmm.rs`).
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        let kr = k[r];
        for xv in x.iter_mut() {
            *xv = if DEC {
                _mm_aesdec_si128(*xv, kr)
            } else {
                _mm_aesenc_si128(*xv, kr)
            };
        }
    }
}

#[inline]
#[target_feature(enable = "aes,sse2")]
fn last_round<const DEC: bool>(x: __m128i, kl: __m128i) -> __m128i {
    if DEC {
        _mm_aesdeclast_si128(x, kl)
    } else {
        _mm_aesenclast_si128(x, kl)
    }
}

/// One batch of `V` blocks (see `wide_vaes::batch`).
///
/// # Safety
/// `src`, `dst` and `l` valid for `V` blocks.
#[inline]
#[target_feature(enable = "aes,sse2")]
unsafe fn batch<
    const V: usize,
    const NR: usize,
    const DEC: bool,
    const LAST: bool,
    const STE: bool,
>(
    k: &[__m128i; 15],
    c: &Consts,
    z: &mut __m128i,
    src: *const Block,
    dst: *mut Block,
    l: *const Block,
    acc: &mut __m128i,
) {
    let layer_before = STE && !DEC && !LAST;
    let layer_after = STE && DEC && LAST;
    // SAFETY (the loads below): the caller's, block v < V.
    let ld = |p: *const Block, v: usize| unsafe { _mm_loadu_si128(p.add(v).cast()) };
    let mut x = [_mm_setzero_si128(); V];
    for (v, xv) in x.iter_mut().enumerate() {
        let m = ld(src, v);
        *xv = if layer_before {
            _mm_xor_si128(c.swap.apply(m), c.k0_ecb)
        } else {
            let pre = if LAST {
                let p = *z;
                *z = double_le(p);
                p
            } else {
                ld(l, v)
            };
            if STE && !DEC {
                _mm_xor_si128(c.swap.apply(_mm_xor_si128(m, pre)), c.k0)
            } else {
                _mm_xor_si128(_mm_xor_si128(m, pre), c.k0)
            }
        };
    }
    if layer_before {
        rounds::<V, NR, false>(&mut x, k);
        for (v, xv) in x.iter_mut().enumerate() {
            let u = last_round::<false>(*xv, _mm_xor_si128(c.kl_ecb, ld(l, v)));
            *xv = _mm_xor_si128(c.swap.apply(u), c.k0);
        }
    }
    rounds::<V, NR, DEC>(&mut x, k);
    let mut y = [_mm_setzero_si128(); V];
    for (v, (yv, xv)) in y.iter_mut().zip(x.iter()).enumerate() {
        let post = if LAST { Some(ld(l, v)) } else { None };
        *yv = if STE && DEC {
            let s = c.swap.apply(last_round::<true>(*xv, c.kl));
            match post {
                Some(p) if layer_after => _mm_xor_si128(_mm_xor_si128(s, p), c.k0_ecb),
                Some(p) => _mm_xor_si128(s, p),
                None => s,
            }
        } else {
            let kl = match post {
                Some(p) => _mm_xor_si128(c.kl, p),
                None => c.kl,
            };
            last_round::<DEC>(*xv, kl)
        };
    }
    if layer_after {
        rounds::<V, NR, true>(&mut y, k);
        for yv in y.iter_mut() {
            *yv = c.swap.apply(last_round::<true>(*yv, c.kl_ecb));
        }
    }
    for (v, yv) in y.iter().enumerate() {
        if !LAST {
            *acc = _mm_xor_si128(*acc, *yv);
        }
        // SAFETY: the caller's: block v is valid.
        unsafe { _mm_storeu_si128(dst.add(v).cast(), *yv) };
    }
}
