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
//!
//! XCBC$-XOR encryption's one chain (`AesKey::xcbc_chain`, [`xcbc_chain`])
//! is the same round for a single chain, its inputs from a closure (the
//! message, its padded last block, then the check block): serial like
//! CBC's, so what the engine saves over the generic path is everything
//! around the rounds (keys in registers for the message, no call per
//! block, the chain's xor folded into the first `AESE`).

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

/// Rounds 1 .. Nr of every chain after the first (`$s`), the state into
/// `$st`, and `y = ($st xor K[Nr]) + off` to block `$t` of each chain's
/// output, chain v's offset `i (r0 + v)` being `$base + v i` (`$base` =
/// `i r0`, chain 0's); then `$base += r0`, `$i += 1`. A macro: both call
/// sites inline it (as a function LLVM kept it out of line, a call and the
/// chains' registers spilled around it every round).
macro_rules! finish {
    ($nr:expr, $v:expr, $k:expr, $kn:expr, $st:expr, $s:expr, $base:expr, $i:expr, $r0:expr, $dst:expr, $t:expr) => {{
        let mut s = $s;
        middle!(false, $nr, $k, s);
        let mut o = $base;
        for v in 0..$v {
            $st[v] = vaeseq_u8(s[v], $k[$nr - 1]);
            // z's big-endian halves as integers: the state's two lanes,
            // K[Nr]'s halves xored in and the bytes reversed in general
            // registers (the vector pipes are the rounds').
            let h = vreinterpretq_u64_u8($st[v]);
            let hi = (vgetq_lane_u64::<0>(h) ^ $kn[0]).swap_bytes();
            let lo = (vgetq_lane_u64::<1>(h) ^ $kn[1]).swap_bytes();
            let z = (u128::from(hi) << 64) | u128::from(lo);
            // SAFETY: the caller's: block t of chain v's output.
            *$dst[v].add($t) = z.wrapping_add(o).to_be_bytes();
            o = o.wrapping_add($i);
        }
        $base = $base.wrapping_add($r0);
        $i = $i.wrapping_add(1);
    }};
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
        // state lacks its K[Nr]); K[Nr]'s halves as integers for y.
        let kx = veorq_u8(k[0], k[NR]);
        let kr = job.keys[NR];
        let kn = [
            u64::from_le_bytes(kr[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(kr[8..].try_into().expect("8 bytes")),
        ];
        let zero = vdupq_n_u8(0);
        let mut st = [zero; V];
        let mut sum = [zero; V];
        for v in 0..V {
            st[v] = veorq_u8(vld1q_u8(job.z[v].as_ptr()), k[NR]);
            sum[v] = vld1q_u8(job.sums[v].as_ptr());
        }
        // Chain 0's offset i r0 and i (chain v's is i (r0 + v)).
        let (r0, mut i) = (job.r0, job.first);
        let mut base = i.wrapping_mul(r0);
        for t in 0..job.n {
            #[cfg(blockmodes_mca)]
            super::kernel::mca_begin();
            let mut s = [zero; V];
            for v in 0..V {
                let x = vld1q_u8(job.src[v].add(t).cast());
                sum[v] = veorq_u8(sum[v], x);
                s[v] = round!(false, st[v], veorq_u8(x, kx));
            }
            finish!(NR, V, k, kn, st, s, base, i, r0, job.dst, t);
            #[cfg(blockmodes_mca)]
            super::kernel::mca_end();
        }
        if job.check {
            let mut s = [zero; V];
            for v in 0..V {
                s[v] = round!(false, st[v], veorq_u8(sum[v], kx));
            }
            finish!(NR, V, k, kn, st, s, base, i, r0, job.dst, job.n);
        }
        for v in 0..V {
            vst1q_u8(job.z[v].as_mut_ptr(), veorq_u8(st[v], k[NR]));
            vst1q_u8(job.sums[v].as_mut_ptr(), sum[v]);
        }
        // The offsets give r0 away.
        let mut spent = (base, i, kn);
        spent.0 = 0;
        spent.1 = 0;
        spent.2 = [0; 2];
        core::hint::black_box(&spent);
    }
}

/// XCBC's encryption chain (Gligor–Donescu, section 3) over `n` blocks
/// `x(0) .. x(n - 1)` (`x_1 .. x_n`) from `z0`, then, if `CHECK`, the
/// check block `z0 xor x_1 xor ... xor x_n`: `out[i - 1] = y_i = z_i + i
/// r0`, as many blocks as `out` holds (`n + CHECK` in the contract of
/// `aesni::AesKey::xcbc_chain`). One chain, serial like CBC's: the round
/// keys in registers for the whole message, the carried state and the
/// first key operand as in [`chains`] (the chain's xor folded into the
/// first `AESE`, so its critical path is the rounds alone), `y` made in
/// general registers beside the next block's rounds.
///
/// # Safety
/// The CPU must have AES (and NEON).
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) unsafe fn xcbc_chain<const NR: usize, const CHECK: bool>(
    keys: &[Block; 15],
    r0: u128,
    z0: &Block,
    n: usize,
    x: impl Fn(usize) -> Block,
    out: &mut [Block],
) {
    // SAFETY: the caller's: the features; the one pointer written is
    // block t < out.len() of `out`.
    unsafe {
        let k = load_keys::<NR>(keys);
        let kx = veorq_u8(k[0], k[NR]);
        let kr = keys[NR];
        let kn = [
            u64::from_le_bytes(kr[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(kr[8..].try_into().expect("8 bytes")),
        ];
        let z = vld1q_u8(z0.as_ptr());
        // The carried state z_{i-1} xor K[Nr], and the check block's sum.
        let mut st = [veorq_u8(z, k[NR])];
        let mut sum = z;
        // y_1's offset 1 r0, and i = 1.
        let (mut base, mut i) = (r0, 1u128);
        let dst = [out.as_mut_ptr()];
        for t in 0..out.len() {
            let xi = if t < n { vld1q_u8(x(t).as_ptr()) } else { sum };
            if CHECK {
                sum = veorq_u8(sum, xi);
            }
            let s = [round!(false, st[0], veorq_u8(xi, kx))];
            finish!(NR, 1, k, kn, st, s, base, i, r0, dst, t);
        }
        // The offsets give r0 away.
        let mut spent = (base, i, kn);
        spent.0 = 0;
        spent.1 = 0;
        spent.2 = [0; 2];
        core::hint::black_box(&spent);
    }
}
