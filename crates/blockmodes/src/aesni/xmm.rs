//! The AES-NI back end: one block per xmm register, eight in flight; the
//! remainder (1 to 7 blocks) as one batch of its exact size.

use core::arch::x86_64::*;

use super::schedule::{load, store};
use super::{Dir, Job, SRC_GRAY, SRC_NONE, SRC_SLICE, SUM_IN, SUM_NONE, SUM_OUT, Shape};
use crate::arith::gf128::Block;

/// Run `job` with `NR` rounds.
///
/// # Safety
/// The CPU must have AES-NI and SSE2. Pointers as in
/// [`super::vaes::dispatch`].
#[target_feature(enable = "aes,sse2")]
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

/// Blocks per full batch.
const BATCH: usize = 8;

/// `E_K(block)` for one block, `keys` the encryption round keys of `NR`
/// rounds (no job, no dispatch: the latency of the rounds and the loads).
#[inline]
#[target_feature(enable = "aes,sse2")]
pub(super) fn encrypt_one<const NR: usize>(keys: &[Block; 15], block: &Block) -> Block {
    let mut x = _mm_xor_si128(load(block), load(&keys[0]));
    for k in &keys[1..NR] {
        x = _mm_aesenc_si128(x, load(k));
    }
    store(_mm_aesenclast_si128(x, load(&keys[NR])))
}

/// PMAC's tag of a short message in one function: `E_K(Σ xor x)` with
/// `Σ = E_K(in[0] xor Z[0]) xor ... xor E_K(in[V-1] xor Z[V-1])`, the `V`
/// blocks interleaved, the keys read from `keys` (no copy, no job), the
/// tag's rounds right after. (`Σ`'s last round key and the tag's first are
/// folded: `x xor K0` is xored with the `aesenclast` outputs.)
///
/// # Safety
/// `src` and `z` valid for `V` blocks.
#[inline]
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn sigma_tag<const NR: usize, const V: usize>(
    keys: &[Block; 15],
    src: *const Block,
    z: *const Block,
    x: &Block,
) -> Block {
    let k0 = load(&keys[0]);
    let mut s = [_mm_setzero_si128(); V];
    for (v, sv) in s.iter_mut().enumerate() {
        // SAFETY: the caller's: blocks v of `src` and `z` are valid.
        let (m, zv) = unsafe {
            (
                _mm_loadu_si128(src.wrapping_add(v).cast()),
                _mm_loadu_si128(z.wrapping_add(v).cast()),
            )
        };
        *sv = _mm_xor_si128(_mm_xor_si128(m, zv), k0);
    }
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        let kr = load(&keys[r]);
        for sv in s.iter_mut() {
            *sv = _mm_aesenc_si128(*sv, kr);
        }
    }
    let kl = load(&keys[NR]);
    let mut acc = _mm_xor_si128(load(x), k0);
    for sv in s.iter_mut() {
        acc = _mm_xor_si128(acc, _mm_aesenclast_si128(*sv, kl));
        *sv = _mm_setzero_si128();
    }
    core::hint::black_box(&s);
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        acc = _mm_aesenc_si128(acc, load(&keys[r]));
    }
    store(_mm_aesenclast_si128(acc, kl))
}

/// OCB 1.0's blocks of a short message in one function:
/// `C[i] = E_K(M[i] xor Z[i]) xor Z[i]` (or, with `DEC`,
/// `M[i] = E_K^-1(C[i] xor Z[i]) xor Z[i]`) for `V` blocks with
/// `Z[i] = gamma_i L xor R` from `low` (the table's entries `1..`), the
/// sum of the `M[i]` (the Checksum's blocks: the inputs, or with `DEC` the
/// outputs) returned, and `extra = E_K(extra)` (Y[m], under the encryption
/// keys `enc` whatever the direction) in the same round loop; the keys
/// read in place (no copy, no job). `keys` are the direction's round keys.
///
/// # Safety
/// `src`, `dst` and `low` valid for `V` blocks (`src` may equal `dst`).
#[inline]
#[target_feature(enable = "aes,sse2")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn whiten_sum_short<const NR: usize, const DEC: bool, const V: usize>(
    keys: &[Block; 15],
    enc: &[Block; 15],
    src: *const Block,
    dst: *mut Block,
    low: *const Block,
    r: &Block,
    extra: &mut Block,
) -> Block {
    let k0 = load(&keys[0]);
    let rr = load(r);
    let mut z = [_mm_setzero_si128(); V];
    let mut s = [_mm_setzero_si128(); V];
    let mut sum = _mm_setzero_si128();
    for v in 0..V {
        // SAFETY: the caller's: block v of `src` and of `low` is valid.
        let (m, g) = unsafe {
            (
                _mm_loadu_si128(src.wrapping_add(v).cast()),
                _mm_loadu_si128(low.wrapping_add(v).cast()),
            )
        };
        z[v] = _mm_xor_si128(g, rr);
        if !DEC {
            sum = _mm_xor_si128(sum, m);
        }
        s[v] = _mm_xor_si128(_mm_xor_si128(m, z[v]), k0);
    }
    let mut e = _mm_xor_si128(load(extra), load(&enc[0]));
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        let kr = load(&keys[r]);
        for sv in s.iter_mut() {
            *sv = if DEC {
                _mm_aesdec_si128(*sv, kr)
            } else {
                _mm_aesenc_si128(*sv, kr)
            };
        }
        e = _mm_aesenc_si128(e, if DEC { load(&enc[r]) } else { kr });
    }
    let kl = load(&keys[NR]);
    for v in 0..V {
        let y = if DEC {
            _mm_aesdeclast_si128(s[v], _mm_xor_si128(z[v], kl))
        } else {
            _mm_aesenclast_si128(s[v], _mm_xor_si128(z[v], kl))
        };
        if DEC {
            sum = _mm_xor_si128(sum, y);
        }
        // SAFETY: the caller's: block v of `dst` is valid.
        unsafe { _mm_storeu_si128(dst.wrapping_add(v).cast(), y) };
        s[v] = _mm_setzero_si128();
        z[v] = _mm_setzero_si128();
    }
    core::hint::black_box((&s, &z));
    *extra = store(_mm_aesenclast_si128(e, load(&enc[NR])));
    store(sum)
}

/// The loop over batches.
///
/// # Safety
/// As [`dispatch`]; `SRC`, `POST`, `SUM`, `STORE` as the shape of `job`.
#[target_feature(enable = "aes,sse2")]
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
    let mut k = [_mm_setzero_si128(); 15];
    for (kr, b) in k.iter_mut().zip(job.keys.iter()).take(NR + 1) {
        *kr = load(b);
    }
    // The Gray-code walk: `w` = W_q, the offset of block 64q.
    let mut w = load(&job.w);
    let mut q = job.first >> 6;
    let mut acc = _mm_setzero_si128();
    let n = job.n;
    let mut i = 0;
    // The extra block (`E_K` of it, whatever the direction) rides along
    // with the first batch.
    let mut ek = [_mm_setzero_si128(); 15];
    let mut ex = _mm_setzero_si128();
    let mut ex_pending = !job.extra.is_null();
    if ex_pending {
        for (kr, b) in ek.iter_mut().zip(job.enc.iter()).take(NR + 1) {
            *kr = load(b);
        }
        // SAFETY: `job.extra`, when not null, is valid for one block.
        ex = unsafe { _mm_loadu_si128(job.extra.cast_const().cast()) };
    }
    macro_rules! go {
        ($v:literal) => {{
            let mut z = [_mm_setzero_si128(); $v];
            for (t, zt) in z.iter_mut().enumerate() {
                if SRC == SRC_SLICE {
                    // SAFETY: block i + t is below n, and `job.z` holds n blocks.
                    *zt = unsafe { _mm_loadu_si128(job.z.add(i + t).cast()) };
                } else if let (SRC_GRAY, Some(table)) = (SRC, job.gray) {
                    let abs = job.first.wrapping_add((i + t) as u64);
                    if abs >> 6 != q {
                        q = abs >> 6; // the next group: W_q = W_{q-1} xor step
                        w = _mm_xor_si128(w, load(table.step(q)));
                    }
                    *zt = _mm_xor_si128(w, load(&table.low.0[(abs & 63) as usize]));
                }
            }
            // SAFETY: blocks i .. i + $v are below n; `dst` is only
            // written when STORE (then valid).
            unsafe {
                if ex_pending {
                    ex_pending = false;
                    batch::<$v, NR, DEC, POST, SUM, STORE, true>(
                        &k,
                        job.src.add(i),
                        job.dst.wrapping_add(i),
                        &z,
                        &mut acc,
                        (&mut ex, &ek),
                    )
                } else {
                    batch::<$v, NR, DEC, POST, SUM, STORE, false>(
                        &k,
                        job.src.add(i),
                        job.dst.wrapping_add(i),
                        &z,
                        &mut acc,
                        (&mut ex, &ek),
                    )
                }
            };
        }};
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
    debug_assert!(!ex_pending, "the extra block rode along");
    if !job.extra.is_null() {
        // SAFETY: as above.
        unsafe { _mm_storeu_si128(job.extra.cast(), ex) };
        ek = [_mm_setzero_si128(); 15];
        core::hint::black_box(&ek);
    }
    w = _mm_setzero_si128();
    core::hint::black_box(&w);
    store(acc)
}

/// One batch of `V` blocks with offsets `z` (zero without offsets); with
/// `EX`, also `ex = E_K(ex)` under the encryption keys `ek`, interleaved.
///
/// # Safety
/// `src` (and `dst` if STORE) valid for `V` blocks.
#[inline]
#[target_feature(enable = "aes,sse2")]
#[allow(clippy::too_many_arguments)]
unsafe fn batch<
    const V: usize,
    const NR: usize,
    const DEC: bool,
    const POST: bool,
    const SUM: u8,
    const STORE: bool,
    const EX: bool,
>(
    k: &[__m128i; 15],
    src: *const Block,
    dst: *mut Block,
    z: &[__m128i; V],
    acc: &mut __m128i,
    (ex, ek): (&mut __m128i, &[__m128i; 15]),
) {
    if EX {
        *ex = _mm_xor_si128(*ex, ek[0]);
    }
    let mut x = [_mm_setzero_si128(); V];
    for v in 0..V {
        // SAFETY: the caller's: block v is valid.
        let m = unsafe { _mm_loadu_si128(src.wrapping_add(v).cast()) };
        if SUM == SUM_IN {
            *acc = _mm_xor_si128(*acc, m);
        }
        x[v] = _mm_xor_si128(_mm_xor_si128(m, z[v]), k[0]);
    }
    // A counted loop (an iterator chain here was left as a call per round).
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
        if EX {
            *ex = _mm_aesenc_si128(*ex, ek[r]);
        }
    }
    if EX {
        *ex = _mm_aesenclast_si128(*ex, ek[NR]);
    }
    for v in 0..V {
        let kl = if POST {
            _mm_xor_si128(z[v], k[NR])
        } else {
            k[NR]
        };
        let y = if DEC {
            _mm_aesdeclast_si128(x[v], kl)
        } else {
            _mm_aesenclast_si128(x[v], kl)
        };
        if SUM == SUM_OUT {
            *acc = _mm_xor_si128(*acc, y);
        }
        if STORE {
            // SAFETY: the caller's: block v is valid.
            unsafe { _mm_storeu_si128(dst.wrapping_add(v).cast(), y) }
        }
    }
}

/// `E_K^-1(block)` for one block, `keys` the inverse cipher's round keys
/// of `NR` rounds.
#[inline]
#[target_feature(enable = "aes,sse2")]
pub(super) fn decrypt_one<const NR: usize>(keys: &[Block; 15], block: &Block) -> Block {
    let mut x = _mm_xor_si128(load(block), load(&keys[0]));
    for k in &keys[1..NR] {
        x = _mm_aesdec_si128(x, load(k));
    }
    store(_mm_aesdeclast_si128(x, load(&keys[NR])))
}
