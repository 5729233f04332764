//! The Gligor–Donescu shapes on AES-NI: one block per xmm register, eight
//! in flight, the remainder as one batch of its exact size. The offsets
//! `i·r0` are 128-bit integers in general-purpose registers (one
//! add-with-carry per block to advance them, one to apply them, byte swaps
//! for the big-endian blocks); see `vaes_gd.rs` for the shapes.

use core::arch::x86_64::*;

use super::GdJob;
use super::schedule::{load, store};
use crate::arith::gf128::Block;

/// Blocks per full batch.
const BATCH: usize = 8;

/// A 128-bit integer as a big-endian block in a vector.
#[inline]
#[target_feature(enable = "sse2")]
fn be(v: u128) -> __m128i {
    // Bytes 0..7 of the block are the high half, most significant first:
    // as a little-endian u64 that is the high half byte-swapped.
    let h = ((v >> 64) as u64).swap_bytes();
    let l = (v as u64).swap_bytes();
    _mm_set_epi64x(l as i64, h as i64)
}

/// Run `job` with `NR` rounds: XECB's sum (`DEC = false`) or XCBC
/// decryption (`DEC = true`); returns the sum of the kept outputs.
///
/// # Safety
/// The CPU must have AES-NI and SSE2. Pointers as in
/// [`super::vaes_gd::run`].
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn run<const NR: usize, const DEC: bool>(job: &GdJob<'_>) -> Block {
    let mut k = [_mm_setzero_si128(); 15];
    for (kr, b) in k.iter_mut().zip(job.keys.iter()).take(NR + 1) {
        *kr = load(b);
    }
    let mut st = State {
        off: job.first.wrapping_mul(job.r0),
        r0: job.r0,
        prev: load(&job.prev),
        acc: _mm_setzero_si128(),
    };
    let n = job.n;
    let mut i = 0;
    macro_rules! go {
        ($v:literal) => {
            // SAFETY: blocks i .. i + $v are below n; each is read from
            // `src` below `n_src` or from `last` (block n_src), and written
            // to `dst` below `n_out` or to `check`, as `batch` checks.
            unsafe { batch::<$v, NR, DEC>(&k, job, i, &mut st) }
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
    let acc = store(st.acc);
    st.off = 0;
    st.r0 = 0;
    st.prev = _mm_setzero_si128();
    core::hint::black_box(&st);
    acc
}

/// The running state: the next block's offset, r0, the previous z, the sum.
struct State {
    off: u128,
    r0: u128,
    prev: __m128i,
    acc: __m128i,
}

/// Blocks `i .. i + V` of `job`.
///
/// # Safety
/// Those blocks are below `job.n`, and `job`'s pointers are valid as
/// [`run`] requires.
#[inline]
#[target_feature(enable = "aes,sse2")]
unsafe fn batch<const V: usize, const NR: usize, const DEC: bool>(
    k: &[__m128i; 15],
    job: &GdJob<'_>,
    i: usize,
    st: &mut State,
) {
    let mut x = [_mm_setzero_si128(); V];
    let mut kl = [k[NR]; V];
    for v in 0..V {
        let t = i + v;
        let p = if t < job.n_src {
            job.src.wrapping_add(t)
        } else {
            job.last
        };
        // SAFETY: the caller's: block t is `src[t]` below `n_src`, else
        // the `last` block (t = n_src < n).
        let y = u128::from_be_bytes(unsafe { p.read_unaligned() });
        let z = if DEC {
            y.wrapping_sub(st.off)
        } else {
            y.wrapping_add(st.off)
        };
        st.off = st.off.wrapping_add(st.r0);
        let zv = be(z);
        if DEC {
            kl[v] = _mm_xor_si128(st.prev, k[NR]);
            st.prev = zv;
        }
        x[v] = _mm_xor_si128(zv, k[0]);
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
    }
    for v in 0..V {
        let t = i + v;
        let o = if DEC {
            _mm_aesdeclast_si128(x[v], kl[v])
        } else {
            _mm_aesenclast_si128(x[v], kl[v])
        };
        if !DEC {
            st.acc = _mm_xor_si128(st.acc, o);
        } else if t < job.n_out {
            st.acc = _mm_xor_si128(st.acc, o);
            // SAFETY: the caller's: `dst` holds `n_out` blocks.
            unsafe { _mm_storeu_si128(job.dst.add(t).cast(), o) };
        } else if !job.check.is_null() {
            // SAFETY: the caller's: `check` is valid for one block.
            unsafe { _mm_storeu_si128(job.check.cast(), o) };
        }
    }
}
