//! pXCBC$ encryption's segment chains on the ARMv8 Crypto Extensions
//! (`AesKey::xcbc_strided`, the contract of `aesni::AesKey::xcbc_strided`):
//! up to [`CHAINS`] independent XCBC-XOR chains (Gligor–Donescu, section 4:
//! one per segment) in lock step, one NEON register each. Round t of every
//! chain:
//!
//! * `x` loaded from the chain's own run of blocks, `Σ ^= x` (the check
//!   block's sum, seeded with z0^(s));
//! * `z = E_K(z xor x)`. `AESE` xors its key operand before the S-boxes, so
//!   the chain's own xor folds into the first round: the state carried from
//!   round to round is the last `AESE`'s output `z xor K[Nr]` (its key xor
//!   left out), and the first `AESE` takes it with the key operand
//!   `x xor K0 xor K[Nr]` (made from the load, off the chain). The chain's
//!   critical path is the rounds' `AESE`/`AESMC` pairs alone;
//! * `y = z + i r0^(s)` (i = first + t, mod 2^128 on big-endian blocks):
//!   `z = state xor K[Nr]`, its halves byte-reversed into general
//!   registers, added to the chain's offset (which advances by its own
//!   r0^(s) per round), stored.
//!
//! With `check`, one more round takes `x = Σ` (the check block
//! `x_{n+1} = z0 xor x_1 xor ... xor x_n`).
//!
//! Why eight chains: a chain's round is the latency of Nr `AESE`/`AESMC`
//! pairs (about 2 to 3 cycles a pair on Neoverse cores, fused), eight
//! chains' rounds fill the AES pipes for that long (two pipes: 8 x 10 / 2 =
//! 40 cycles a round on Neoverse N1; the model row `pxcbc-chains` in
//! `tools/mca/armv8.sh`). Eight is also the whitened loop's batch.

use core::arch::aarch64::*;

use super::kernel::{load_keys, middle, round};
use crate::arith::gf128::Block;

/// The most chains one kernel call runs.
pub(super) const CHAINS: usize = 8;

/// One call of the kernel: chains `0 .. V`.
pub(super) struct ChainsJob<'a> {
    /// The encryption round keys.
    pub(super) keys: &'a [Block; 15],
    /// Chain l's x of rounds `0 .. n`.
    pub(super) src: [*const Block; CHAINS],
    /// Chain l's y of rounds `0 .. n` (and `n` with `check`).
    pub(super) dst: [*mut Block; CHAINS],
    /// Rounds taking x from `src`.
    pub(super) n: usize,
    /// One more round with `x = Σ`.
    pub(super) check: bool,
    /// r0^(s) of chain 0; chain l's is `r0 + l`.
    pub(super) r0: u128,
    /// The index i of round 0 (its offset `i r0^(s)`).
    pub(super) first: u128,
    /// Each chain's z before round 0, and after the last (`V` blocks).
    pub(super) z: &'a mut [Block],
    /// Each chain's Σ before round 0, and after the last (`V` blocks).
    pub(super) sums: &'a mut [Block],
}

/// Run `job`'s `V` chains (1 ..= [`CHAINS`]) with `NR` rounds.
///
/// # Safety
/// The CPU must have AES (and NEON). For every chain l < `V`,
/// `job.src[l]` valid for `job.n` blocks and `job.dst[l]` for `job.n +
/// job.check`, the outputs disjoint from each other and from the inputs;
/// `job.z`, `job.sums` hold at least `V` blocks.
#[target_feature(enable = "aes,neon")]
pub(super) unsafe fn chains<const NR: usize, const V: usize>(job: &mut ChainsJob<'_>) {
    // SAFETY: the caller's: the features; each pointer access below is
    // within the blocks the caller vouches for.
    unsafe {
        let k = load_keys::<NR>(job.keys);
        // The first key operand's fixed part: K0 xor K[Nr] (the carried
        // state lacks its K[Nr]).
        let kx = veorq_u8(k[0], k[NR]);
        let zero = vdupq_n_u8(0);
        let mut st = [zero; V];
        let mut sum = [zero; V];
        for v in 0..V {
            st[v] = veorq_u8(vld1q_u8(job.z[v].as_ptr()), k[NR]);
            sum[v] = vld1q_u8(job.sums[v].as_ptr());
        }
        // Chain l's offset i (r0 + l) and its step r0 + l.
        let step: [u128; V] = core::array::from_fn(|l| job.r0.wrapping_add(l as u128));
        let mut off: [u128; V] = core::array::from_fn(|l| job.first.wrapping_mul(step[l]));
        for t in 0..job.n {
            #[cfg(blockmodes_mca)]
            super::kernel::mca_begin();
            let mut s = [zero; V];
            for v in 0..V {
                let x = vld1q_u8(job.src[v].add(t).cast());
                sum[v] = veorq_u8(sum[v], x);
                s[v] = round!(false, st[v], veorq_u8(x, kx));
            }
            finish::<NR, V>(&k, &mut st, s, &mut off, &step, &job.dst, t);
            #[cfg(blockmodes_mca)]
            super::kernel::mca_end();
        }
        if job.check {
            let mut s = [zero; V];
            for v in 0..V {
                s[v] = round!(false, st[v], veorq_u8(sum[v], kx));
            }
            finish::<NR, V>(&k, &mut st, s, &mut off, &step, &job.dst, job.n);
        }
        for v in 0..V {
            vst1q_u8(job.z[v].as_mut_ptr(), veorq_u8(st[v], k[NR]));
            vst1q_u8(job.sums[v].as_mut_ptr(), sum[v]);
        }
        // The offsets give r0 away.
        let mut spent = (off, step);
        spent.0.fill(0);
        spent.1.fill(0);
        core::hint::black_box(&spent);
    }
}

/// Rounds 1 .. Nr of every chain after the first (`s`), the state into
/// `st`, and `y = (st xor K[Nr]) + off` to block `t` of each chain's
/// output; the offsets advance by their steps.
///
/// # Safety
/// From a function with the AES features; `dst[v]` valid for `t + 1`
/// blocks, v < `V`.
#[inline]
#[target_feature(enable = "aes,neon")]
unsafe fn finish<const NR: usize, const V: usize>(
    k: &[uint8x16_t; 15],
    st: &mut [uint8x16_t; V],
    mut s: [uint8x16_t; V],
    off: &mut [u128; V],
    step: &[u128; V],
    dst: &[*mut Block; CHAINS],
    t: usize,
) {
    // SAFETY: the caller's: the features; `dst[v] + t` is a block of
    // chain v's output.
    unsafe {
        middle!(false, NR, k, s);
        for v in 0..V {
            st[v] = vaeseq_u8(s[v], k[NR - 1]);
            // z's big-endian halves as integers: each 8-byte half
            // byte-reversed, then its two lanes.
            let h = vreinterpretq_u64_u8(vrev64q_u8(veorq_u8(st[v], k[NR])));
            let z = (u128::from(vgetq_lane_u64::<0>(h)) << 64) | u128::from(vgetq_lane_u64::<1>(h));
            *dst[v].add(t) = z.wrapping_add(off[v]).to_be_bytes();
            off[v] = off[v].wrapping_add(step[v]);
        }
    }
}
