//! The VAES-512 back end: four blocks per zmm register, eight registers in
//! flight (32 blocks per batch); the remainder (1 to 31 blocks) as one batch
//! of `ceil(rem / 4)` registers, the last one masked.
//!
//! Per register of four blocks, on top of the rounds: one `vpternlogq`
//! (`M xor Z xor K0`), one xor for the last round's key (`Z xor K_last`),
//! one load of the Gray-code table, and one xor into the sum if any.

use core::arch::x86_64::*;

use super::schedule::{load, store};
use super::{Dir, Job, SRC_GRAY, SRC_NONE, SRC_SLICE, SRC_XEX, SUM_IN, SUM_NONE, SUM_OUT, Shape};
use crate::arith::gf128::Block;

/// Run `job` with `NR` rounds.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW, VAES and VPCLMULQDQ. `job.src`, `job.dst` (unless the
/// shape is [`Shape::Sigma`]) and `job.z` (for a slice of offsets) must be
/// valid for `job.n` blocks; `src` and `dst` equal or disjoint.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) unsafe fn dispatch<const NR: usize>(dir: Dir, shape: Shape, job: &Job<'_>) -> Block {
    // SAFETY (every arm): the caller's guarantees, passed on; each arm's
    // shape stores only if `job.dst` is valid (not for `Sigma`).
    unsafe {
        match (dir, shape, job.src_kind) {
            (Dir::Encrypt, Shape::Ecb, _) => {
                kernel::<NR, false, SRC_NONE, false, SUM_NONE, true>(job)
            }
            (Dir::Decrypt, Shape::Ecb, _) => {
                kernel::<NR, true, SRC_NONE, false, SUM_NONE, true>(job)
            }
            (Dir::Encrypt, Shape::Whiten, SRC_XEX) => {
                kernel::<NR, false, SRC_XEX, true, SUM_NONE, true>(job)
            }
            (Dir::Decrypt, Shape::Whiten, SRC_XEX) => {
                kernel::<NR, true, SRC_XEX, true, SUM_NONE, true>(job)
            }
            (Dir::Encrypt, Shape::Whiten, SRC_SLICE) => {
                kernel::<NR, false, SRC_SLICE, true, SUM_NONE, true>(job)
            }
            (Dir::Encrypt, Shape::Whiten, _) => {
                kernel::<NR, false, SRC_GRAY, true, SUM_NONE, true>(job)
            }
            (Dir::Decrypt, Shape::Whiten, SRC_SLICE) => {
                kernel::<NR, true, SRC_SLICE, true, SUM_NONE, true>(job)
            }
            (Dir::Decrypt, Shape::Whiten, _) => {
                kernel::<NR, true, SRC_GRAY, true, SUM_NONE, true>(job)
            }
            (Dir::Encrypt, Shape::WhitenSum, SRC_SLICE) => {
                kernel::<NR, false, SRC_SLICE, true, SUM_IN, true>(job)
            }
            (Dir::Encrypt, Shape::WhitenSum, _) => {
                kernel::<NR, false, SRC_GRAY, true, SUM_IN, true>(job)
            }
            (Dir::Decrypt, Shape::WhitenSum, SRC_SLICE) => {
                kernel::<NR, true, SRC_SLICE, true, SUM_OUT, true>(job)
            }
            (Dir::Decrypt, Shape::WhitenSum, _) => {
                kernel::<NR, true, SRC_GRAY, true, SUM_OUT, true>(job)
            }
            (_, Shape::Sigma, SRC_SLICE) => {
                kernel::<NR, false, SRC_SLICE, false, SUM_OUT, false>(job)
            }
            (_, Shape::Sigma, _) => kernel::<NR, false, SRC_GRAY, false, SUM_OUT, false>(job),
        }
    }
}

/// The Gray-code walk: `w` is `W_q`, the offset of block `64q`.
struct GrayState {
    w: __m128i,
    q: u64,
    /// XEX units: four deltas of the current unit's current stretch of 32
    /// blocks, as 128-bit integers (bytes reversed), the blocks left in
    /// the unit and the next unit.
    xd: __m512i,
    x_left: usize,
    x_unit: usize,
    /// Blocks into the current stretch of 32.
    x_k: usize,
}

/// Blocks per full batch.
const BATCH: usize = 32;

/// The loop over batches.
///
/// # Safety
/// As [`dispatch`]; `SRC`, `POST`, `SUM`, `STORE` as the shape of `job`.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
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
    let mut k = [_mm512_setzero_si512(); 15];
    for (kr, b) in k.iter_mut().zip(job.keys.iter()).take(NR + 1) {
        *kr = _mm512_broadcast_i32x4(load(b));
    }
    let mut st = GrayState {
        w: load(&job.w),
        q: job.first >> 6,
        xd: _mm512_setzero_si512(),
        x_left: 0,
        x_unit: 0,
        x_k: 0,
    };
    let mut acc = _mm512_setzero_si512();
    let n = job.n;
    let mut i = 0;
    while n - i >= BATCH {
        let (z, bk0, bkl) = offsets::<8, NR, SRC, POST>(job, &k, &mut st, i, BATCH, 0xff);
        // SAFETY: blocks i .. i + 32 are below n; `dst` is only written
        // when STORE (then valid), `wrapping_add` keeps a null one harmless.
        unsafe {
            batch::<8, NR, DEC, POST, SUM, STORE>(
                &k,
                job.src.add(i),
                job.dst.wrapping_add(i),
                0xff,
                (&z, &bk0, &bkl),
                &mut acc,
            )
        };
        i += BATCH;
    }
    let rem = n - i;
    if rem > 0 {
        let nv = rem.div_ceil(4);
        let last = rem - 4 * (nv - 1); // 1 ..= 4 blocks in the last register
        let mask = (0xffu32 >> (8 - 2 * last)) as u8;
        macro_rules! tail {
            ($v:literal) => {{
                let (z, bk0, bkl) = offsets::<$v, NR, SRC, POST>(job, &k, &mut st, i, rem, mask);
                // SAFETY: the first `rem` blocks from i are below n; the
                // last register's masked-out lanes (blocks past n) are
                // neither loaded nor stored.
                unsafe {
                    batch::<$v, NR, DEC, POST, SUM, STORE>(
                        &k,
                        job.src.add(i),
                        job.dst.wrapping_add(i),
                        mask,
                        (&z, &bk0, &bkl),
                        &mut acc,
                    )
                }
            }};
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
    let a = _mm_xor_si128(
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<0>(acc),
            _mm512_extracti32x4_epi32::<1>(acc),
        ),
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(acc),
            _mm512_extracti32x4_epi32::<3>(acc),
        ),
    );
    store(a)
}

/// Per register `v` of a batch at block `i` (`blocks` blocks, the last
/// register's lanes in `mask`): `(z, bk0, bkl)` with the offsets
/// `Z = z xor base`, `bk0 = base xor K0` and `bkl = base xor K_last` (or
/// `K_last` without post-whitening). Without offsets `z` is zero and the
/// base zero.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
#[allow(clippy::type_complexity)]
fn offsets<const V: usize, const NR: usize, const SRC: u8, const POST: bool>(
    job: &Job<'_>,
    k: &[__m512i; 15],
    st: &mut GrayState,
    i: usize,
    blocks: usize,
    mask: u8,
) -> ([__m512i; V], [__m512i; V], [__m512i; V]) {
    let k0 = k[0];
    let kl = k[NR];
    let mut z = [_mm512_setzero_si512(); V];
    let bk0 = [k0; V];
    let bkl = [kl; V];
    if SRC == SRC_SLICE {
        for (v, zv) in z.iter_mut().enumerate() {
            let p = job.z.wrapping_add(i + 4 * v);
            *zv = if v + 1 == V {
                // SAFETY: `job.z` holds `job.n` blocks; the lanes in `mask`
                // are below it, the others are not accessed.
                unsafe { _mm512_maskz_loadu_epi64(mask, p.cast()) }
            } else {
                // SAFETY: a full register of the batch: four blocks below n.
                unsafe { _mm512_loadu_si512(p.cast()) }
            };
        }
    } else if SRC == SRC_XEX {
        // Z of block j of unit s is Δ_s x^j (BE). `xd` holds
        // Δ_s x^(32c .. 32c + 3) for the unit's current 32-block stretch c;
        // a register k blocks into the stretch takes xd x^k (a 128-bit shift
        // by k and the k carried-out bits times x^7+x^2+x+1 folded back in):
        // the registers of a batch are independent, and the only chain is
        // one step of x^32 per stretch. Registers never straddle units (m is
        // a multiple of 4).
        let rev = _mm512_broadcast_i32x4(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ));
        let poly = _mm512_set1_epi64(0x87);
        for zv in z.iter_mut() {
            if st.x_left == 0 {
                // SAFETY: the caller's: `job.z` holds one block per unit
                // for the `job.n / job.m` units, and this register's block
                // is below n, so its unit is one of them. (A 16-byte load:
                // `z` was written by 16-byte stores, which forward to it.)
                let d = unsafe { _mm_loadu_si128(job.z.add(st.x_unit).cast()) };
                let d = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(d), rev);
                // Δ x^0, Δ x^1, Δ x^2, Δ x^3 in the four lanes.
                st.xd = times_x_lanes(d, poly);
                st.x_unit += 1;
                st.x_left = job.m;
                st.x_k = 0;
            } else if st.x_k == 32 {
                st.xd = times_x(st.xd, 32, poly);
                st.x_k = 0;
            }
            *zv = _mm512_shuffle_epi8(times_x(st.xd, st.x_k, poly), rev);
            st.x_k += 4;
            st.x_left = st.x_left.saturating_sub(4);
        }
    } else if SRC == SRC_GRAY {
        let Some(t) = job.gray else {
            return (z, bk0, bkl);
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
            // `low` has 68 entries: four from any index below 64.
            let p = t.low.0.as_ptr().wrapping_add((j + 4 * v) & 63);
            // SAFETY: `p` .. `p + 4` lies inside `low` (index at most 63 + 3).
            *zv = unsafe { _mm512_loadu_si512(p.cast()) };
        }
        // The base goes into `z` (so `z` is the whole offset Z and the
        // first and last round keys stay the plain K0 and K_last): a varying
        // `bk0`/`bkl` per register would be 16 more live registers across
        // the rounds, more than the 32 zmm registers hold with the state,
        // `z` and the round keys.
        let b0 = _mm512_broadcast_i32x4(st.w);
        let before = 64 - j; // blocks of the batch in group g
        if before >= blocks {
            for zv in z.iter_mut() {
                *zv = _mm512_xor_si512(*zv, b0);
            }
        } else {
            // The batch runs into group g + 1: its lanes take W_{g+1}.
            let w1 = _mm_xor_si128(st.w, load(t.step(g.wrapping_add(1))));
            let b1 = _mm512_broadcast_i32x4(w1);
            for (v, zv) in z.iter_mut().enumerate() {
                let c = before.saturating_sub(4 * v).min(4); // lanes still in g
                let m = (0xffu32 << (2 * c)) as u8;
                *zv = _mm512_xor_si512(*zv, _mm512_mask_blend_epi64(m, b0, b1));
            }
        }
    }
    (z, bk0, bkl)
}

/// `d x^k` per 128-bit lane (BE, lanes as 128-bit integers), `k < 64`: a
/// 128-bit shift by k and the k carried-out bits times `poly` =
/// x^7+x^2+x+1 folded back in.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x(d: __m512i, k: usize, poly: __m512i) -> __m512i {
    let (kl, kr) = (
        _mm_cvtsi64_si128(k as i64),
        _mm_cvtsi64_si128(64 - k as i64),
    );
    let up = _mm512_bslli_epi128::<8>(d); // lo qword moved up, 0 below
    let shifted = _mm512_or_si512(_mm512_sll_epi64(d, kl), _mm512_srl_epi64(up, kr));
    let top = _mm512_srl_epi64(_mm512_bsrli_epi128::<8>(d), kr); // hi >> (64 - k)
    _mm512_xor_si512(shifted, _mm512_clmulepi64_epi128::<0x00>(top, poly))
}

/// `d x^l` in lane `l` (0..=3), as [`times_x`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x_lanes(d: __m512i, poly: __m512i) -> __m512i {
    let kl = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
    let kr = _mm512_sub_epi64(_mm512_set1_epi64(64), kl);
    let up = _mm512_bslli_epi128::<8>(d);
    let shifted = _mm512_or_si512(_mm512_sllv_epi64(d, kl), _mm512_srlv_epi64(up, kr));
    let top = _mm512_srlv_epi64(_mm512_bsrli_epi128::<8>(d), kr);
    _mm512_xor_si512(shifted, _mm512_clmulepi64_epi128::<0x00>(top, poly))
}

/// One batch of `V` registers: loads, whitening in the first and last
/// round keys, rounds, sum, stores.
///
/// # Safety
/// `src` (and `dst` if STORE) valid for `4 V` blocks except the last
/// register's lanes outside `mask`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
unsafe fn batch<
    const V: usize,
    const NR: usize,
    const DEC: bool,
    const POST: bool,
    const SUM: u8,
    const STORE: bool,
>(
    k: &[__m512i; 15],
    src: *const Block,
    dst: *mut Block,
    mask: u8,
    (z, bk0, bkl): (&[__m512i; V], &[__m512i; V], &[__m512i; V]),
    acc: &mut __m512i,
) {
    let mut x = [_mm512_setzero_si512(); V];
    for v in 0..V {
        let p = src.wrapping_add(4 * v);
        let m = if v + 1 == V {
            // SAFETY: the caller's: the lanes in `mask` are valid.
            unsafe { _mm512_maskz_loadu_epi64(mask, p.cast()) }
        } else {
            // SAFETY: the caller's: a full register.
            unsafe { _mm512_loadu_si512(p.cast()) }
        };
        if SUM == SUM_IN {
            *acc = _mm512_xor_si512(*acc, m);
        }
        x[v] = _mm512_ternarylogic_epi64::<0x96>(m, z[v], bk0[v]); // M xor Z xor K0
    }
    for kr in &k[1..NR] {
        for xv in x.iter_mut() {
            *xv = if DEC {
                _mm512_aesdec_epi128(*xv, *kr)
            } else {
                _mm512_aesenc_epi128(*xv, *kr)
            };
        }
    }
    for v in 0..V {
        // Z xor K_last (bkl = base xor K_last, z the rest of Z), or K_last.
        let kl = if POST {
            _mm512_xor_si512(z[v], bkl[v])
        } else {
            bkl[v]
        };
        let y = if DEC {
            _mm512_aesdeclast_epi128(x[v], kl)
        } else {
            _mm512_aesenclast_epi128(x[v], kl)
        };
        if SUM == SUM_OUT {
            let y = if v + 1 == V {
                _mm512_maskz_mov_epi64(mask, y)
            } else {
                y
            };
            *acc = _mm512_xor_si512(*acc, y);
        }
        if STORE {
            let p = dst.wrapping_add(4 * v);
            if v + 1 == V {
                // SAFETY: the caller's: the lanes in `mask` are valid.
                unsafe { _mm512_mask_storeu_epi64(p.cast(), mask, y) }
            } else {
                // SAFETY: the caller's: a full register.
                unsafe { _mm512_storeu_si512(p.cast(), y) }
            }
        }
    }
}
