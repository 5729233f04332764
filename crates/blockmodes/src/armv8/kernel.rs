//! The whitened loop on the ARMv8 Crypto Extensions: ECB, `E(in xor Z) xor
//! Z` with or without the sum of the plaintext side, and PMAC's Σ, with the
//! offsets from a slice (XEX) or the Gray-code tables (OCB 1.0, PMAC).
//! Eight blocks in flight per batch, the remainder as one batch of as many
//! as it has (never padded, nothing past the blocks read or written).
//!
//! Per block, on top of ECB's rounds: one xor for the first key operand
//! `Z xor K0` (with Gray code, `(W_q xor K0) xor gamma_j L`: the group's
//! base carries `K0`, and the table's load and this xor are the offset's
//! whole cost), one for the last xor's operand (`(Z xor K0) xor (K0 xor
//! K[Nr])`, the second term once per call) and the xor itself, which ECB
//! has too; and one xor into the sum if any. PMAC's Σ, with no output
//! whitening and `K[Nr]` folded once per call, has only the first and the
//! sum's.
//!
//! The loop is compiled twice from one source (`whitened!`): `plain`, and
//! `sha3` with FEAT_SHA3, whose `EOR3` makes the last xor and its operand
//! one instruction (`EOR3(s, Z xor K0, K0 xor K[Nr])`); the whitened
//! shapes take `sha3` where the CPU has it (`AesKey::has_eor3`, checked at
//! run time), everything else `plain`; XCBC decryption's loop, below, is
//! compiled the same way (its last xor `K[Nr] xor z_{t-1}` one `EOR3`).
//! On LLVM 16's neoverse-v1 model (two vector pipes for the AES and the
//! xors alike) that is 11.51 -> 11.01 cycles a block for XEX, 12.20 ->
//! 11.26 for OCB 1.0 encryption, 12.76 -> 11.89 for XCBC decryption
//! (`tools/mca/armv8.sh`).

use core::arch::aarch64::*;

use crate::arith::gf128::Block;
use crate::engine::job::{SRC_GRAY, SRC_NONE, SRC_SLICE, SUM_IN, SUM_OUT};

/// Blocks per full batch.
const BATCH: usize = 8;

/// One call's parameters, for the kernels (no fields of this
/// architecture's own).
pub(super) type Job<'a> = crate::engine::job::Job<'a>;

/// The model-only build's (`--cfg blockmodes_mca`, `tools/mca/armv8.sh`)
/// start-of-region marker for llvm-mca, for code outside this file (the
/// generic path's whitening passes, `src/mca.rs`): an assembler comment,
/// no instruction, but a compiler barrier for memory (no `nomem`), so the
/// marked pass's loads and stores stay inside the region.
#[cfg(blockmodes_mca)]
#[inline(always)]
pub(crate) fn mca_begin() {
    // SAFETY: a comment: nothing executed, no register or memory touched.
    unsafe { core::arch::asm!("# LLVM-MCA-BEGIN", options(nostack, preserves_flags)) }
}

/// The end-of-region marker matching [`mca_begin`].
#[cfg(blockmodes_mca)]
#[inline(always)]
pub(crate) fn mca_end() {
    // SAFETY: as `mca_begin`.
    unsafe { core::arch::asm!("# LLVM-MCA-END", options(nostack, preserves_flags)) }
}

/// Round keys 0 ..= `NR` into registers (NEON, baseline on aarch64).
#[inline(always)]
pub(super) fn load_keys<const NR: usize>(keys: &[Block; 15]) -> [uint8x16_t; 15] {
    // SAFETY: NEON is part of every aarch64 target Rust builds for; each
    // `b` is a 16-byte block.
    unsafe {
        let mut k = [vdupq_n_u8(0); 15];
        for (kr, b) in k.iter_mut().zip(keys.iter()).take(NR + 1) {
            *kr = vld1q_u8(b.as_ptr());
        }
        k
    }
}

/// The Gray-code walk: `w` is `W_q xor K0`, the offset of block `64q`
/// with the first round key folded in.
struct Walk {
    w: uint8x16_t,
    q: u64,
}

/// The offsets of the batch's `V` blocks from block `i` on, with the first
/// round key folded in: `Z xor K0` (zero without offsets).
///
/// # Safety
/// As [`kernel`]: `job.z` holds `job.n` blocks for a slice, `i + V <= n`.
#[inline(always)]
unsafe fn offsets<const V: usize, const SRC: u8>(
    job: &Job<'_>,
    walk: &mut Walk,
    i: usize,
    k0: uint8x16_t,
    z: &mut [uint8x16_t; V],
) {
    // SAFETY: the caller's; each access as noted.
    unsafe {
        if SRC == SRC_SLICE {
            for (v, zv) in z.iter_mut().enumerate() {
                // SAFETY: block i + v < n, which `job.z` holds.
                *zv = veorq_u8(vld1q_u8(job.z.add(i + v).cast()), k0);
            }
        } else if SRC == SRC_GRAY {
            // SAFETY: `kernel` returns before its loop when the table is
            // missing (against the contract), so no branch on it here: the
            // loop then writes every `z[v]` on every path, and the caller's
            // zero fill of `z` is dead code.
            let t = job.gray.unwrap_unchecked();
            let abs = job.first.wrapping_add(i as u64);
            let j = (abs & 63) as usize;
            // (The model-only build, never run, takes this branch always, so
            // that the marked loop is the steady state: the step below
            // comes once per 64 blocks.)
            if cfg!(blockmodes_mca) || (abs >> 6 == walk.q && j + V <= 64) {
                // The batch lies in the current group: no step, no branch.
                for (v, zv) in z.iter_mut().enumerate() {
                    let low = vld1q_u8(t.low.0[j + v].as_ptr());
                    *zv = veorq_u8(walk.w, low);
                }
                return;
            }
            // Into the next group (once per 64 blocks): block by block.
            for (v, zv) in z.iter_mut().enumerate() {
                let abs = job.first.wrapping_add((i + v) as u64);
                let g = abs >> 6;
                if g != walk.q {
                    // The next group (blocks run in order): W_g = W_{g-1} xor step.
                    walk.w = veorq_u8(walk.w, vld1q_u8(t.step(g).as_ptr()));
                    walk.q = g;
                }
                // Z xor K0 = (W_g xor K0) xor gamma_j L, j = abs mod 64
                // (`low` has 96 entries).
                let low = vld1q_u8(t.low.0[(abs & 63) as usize].as_ptr());
                *zv = veorq_u8(walk.w, low);
            }
        }
    }
}

/// One round of encryption (`AESMC(AESE(s, k))`) or decryption
/// (`AESIMC(AESD(s, k))`): a macro, not an `inline(always)` function (the
/// intrinsics inline only into a function with the `aes` feature, and a
/// helper with `#[target_feature]` could not be `inline(always)`).
macro_rules! round {
    ($dec:expr, $s:expr, $k:expr) => {
        if $dec {
            vaesimcq_u8(vaesdq_u8($s, $k))
        } else {
            vaesmcq_u8(vaeseq_u8($s, $k))
        }
    };
}

/// Rounds 1 .. Nr-2 (of `NR`) on every block of the array `x`, round by
/// round (the batch's blocks interleaved), written out: a counted loop
/// stayed a loop in some shapes (a branch and a counter per round, and no
/// region for the model's script).
macro_rules! middle {
    ($dec:expr, $nr:expr, $k:expr, $x:expr) => {
        middle!(@ $dec, $nr, $k, $x; 1 2 3 4 5 6 7 8 9 10 11 12)
    };
    (@ $dec:expr, $nr:expr, $k:expr, $x:expr; $($r:literal)*) => {$(
        if $r < $nr - 1 {
            let kr = $k[$r];
            for xv in $x.iter_mut() {
                *xv = round!($dec, *xv, kr);
            }
        }
    )*};
}

/// The last round without its key xor: `AESE(s, k)` (or `AESD`).
macro_rules! last {
    ($dec:expr, $s:expr, $k:expr) => {
        if $dec {
            vaesdq_u8($s, $k)
        } else {
            vaeseq_u8($s, $k)
        }
    };
}

/// The whitened loop, once per feature set: the module `$m` compiled with
/// `$features`, its three-way xor `$xor3` for the `POST` shapes' last xor
/// (`EOR3` where the features have SHA-3, else two `EOR`s), as CWC's
/// counter mode in `ctr.rs`. (`$d` is `$`, for the macros inside.)
macro_rules! whitened {
    ($d:tt $m:ident, $features:literal, $xor3:path) => {
        pub(super) mod $m {
            use core::arch::aarch64::*;

            use super::{
                BATCH, Job, SRC_GRAY, SRC_NONE, SUM_IN, SUM_OUT, Walk, load_keys, offsets,
            };
            use crate::arith::gf128::Block;

            /// The kernel for one shape, compiled with `$features`.
            ///
            /// # Safety
            /// The CPU must have `$features` (AES and NEON; SHA-3 for
            /// `sha3`). `job.src`, `job.dst` (if `STORE`) and `job.z` (for
            /// a slice of offsets) valid for `job.n` blocks; `src` and `dst`
            /// equal or disjoint; `job.gray` set for [`SRC_GRAY`].
            #[target_feature(enable = $features)]
            pub(in crate::armv8) unsafe fn entry<
                const NR: usize,
                const DEC: bool,
                const SRC: u8,
                const POST: bool,
                const SUM: u8,
                const STORE: bool,
            >(
                job: &Job<'_>,
            ) -> Block {
                // SAFETY: this function has the features; `job` is the caller's.
                unsafe { kernel::<NR, DEC, SRC, POST, SUM, STORE>(job) }
            }

            /// The loop over batches.
            ///
            /// # Safety
            /// As [`entry`], from a function with its features.
            #[inline]
            #[target_feature(enable = $features)]
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
                // SAFETY: the caller's: the CPU has the features; pointer accesses are
                // justified where they are.
                unsafe {
                    let k = load_keys::<NR>(job.keys);
                    if SRC == SRC_GRAY && job.gray.is_none() {
                        // Against the contract: nothing done (see `offsets`).
                        return [0; 16];
                    }
                    let mut walk = Walk {
                        w: veorq_u8(vld1q_u8(job.w.as_ptr()), k[0]),
                        q: job.first >> 6,
                    };
                    // `(Z xor K0) xor kx = Z xor K[Nr]`: the last xor's operand.
                    let kx = veorq_u8(k[0], k[NR]);
                    let mut acc = vdupq_n_u8(0);
                    let n = job.n;
                    let mut i = 0;
                    macro_rules! go {
                                ($d v:literal) => {{
                                    let mut z = [vdupq_n_u8(0); $d v];
                                    offsets::<$d v, SRC>(job, &mut walk, i, k[0], &mut z);
                                    // SAFETY: the batch's blocks i .. i + $d v are below n; `dst`
                                    // is only written when STORE (then valid), `wrapping_add`
                                    // keeps a null one harmless.
                                    let (src, dst) = (job.src.add(i), job.dst.wrapping_add(i));
                                    batch::<$d v, NR, DEC, SRC, POST, SUM, STORE>(
                                        &k, kx, src, dst, &z, &mut acc,
                                    );
                                }};
                            }
                    while n - i >= BATCH {
                        // A model-only build (`--cfg blockmodes_mca`,
                        // `tools/mca/armv8.sh`) marks the steady-state loop
                        // for llvm-mca (the assembly printer writes the
                        // markers as `//` comments, which the script turns
                        // into the `#` ones llvm-mca 16 reads on aarch64).
                        #[cfg(blockmodes_mca)]
                        core::arch::asm!(
                            "# LLVM-MCA-BEGIN",
                            options(nomem, nostack, preserves_flags)
                        );
                        go!(8);
                        i += BATCH;
                        #[cfg(blockmodes_mca)]
                        core::arch::asm!(
                            "# LLVM-MCA-END",
                            options(nomem, nostack, preserves_flags)
                        );
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
                    if SUM == SUM_OUT && !POST && !STORE && n % 2 == 1 {
                        // Σ's last xor, K[Nr] of every block, folded: n copies xor to
                        // K[Nr] for odd n, zero for even.
                        acc = veorq_u8(acc, k[NR]);
                    }
                    let mut out = [0u8; 16];
                    vst1q_u8(out.as_mut_ptr(), acc);
                    out
                }
            }

            /// One batch of `V` blocks: loads, whitening in the first key operand and
            /// the last xor, rounds, sum, stores. `z` holds `Z xor K0` (see
            /// [`offsets`]), `kx` is `K0 xor K[Nr]`.
            ///
            /// # Safety
            /// From a function with the AES features; `src` (and `dst` if STORE)
            /// valid for `V` blocks, equal or disjoint.
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn batch<
                const V: usize,
                const NR: usize,
                const DEC: bool,
                const SRC: u8,
                const POST: bool,
                const SUM: u8,
                const STORE: bool,
            >(
                k: &[uint8x16_t; 15],
                kx: uint8x16_t,
                src: *const Block,
                dst: *mut Block,
                z: &[uint8x16_t; V],
                acc: &mut uint8x16_t,
            ) {
                // SAFETY: the caller's: the features; `src` valid for V blocks
                // (loads), `dst` for V blocks when STORE (stores after every load).
                unsafe {
                    let mut x = [vdupq_n_u8(0); V];
                    for v in 0..V {
                        let m = vld1q_u8(src.add(v).cast());
                        if SUM == SUM_IN {
                            *acc = veorq_u8(*acc, m);
                        }
                        // The first round with key operand Z xor K0 (ECB: K0).
                        let k0 = if SRC != SRC_NONE { z[v] } else { k[0] };
                        x[v] = round!(DEC, m, k0);
                    }
                    middle!(DEC, NR, k, x);
                    for v in 0..V {
                        let s = last!(DEC, x[v], k[NR - 1]);
                        // K[Nr] xor Z = (Z xor K0) xor kx, or K[Nr] (Σ: folded once per
                        // call, `kernel`).
                        let y = if POST {
                            $xor3(s, z[v], kx)
                        } else if SUM == SUM_OUT && !STORE {
                            s
                        } else {
                            veorq_u8(s, k[NR])
                        };
                        if SUM == SUM_OUT {
                            *acc = veorq_u8(*acc, y);
                        }
                        if STORE {
                            vst1q_u8(dst.add(v).cast(), y);
                        }
                    }
                }
            }

            /// XCBC decryption (Gligor–Donescu, section 3) of the `n` blocks
            /// `y_first, y_first+1, ...` from `src`: `z_t = y_t - (first + t) r0`
            /// (mod 2^128, big-endian), `x_t = E_K^-1(z_t) xor z_{t-1}` with
            /// `z_{-1} = prev`. The first `n_out` blocks' `x_t` go to `dst` and into
            /// the returned sum; a block past them (`n = n_out + 1`, the check block)
            /// goes to `check`, not summed. Every `z_t` depends on its own `y_t` only,
            /// so eight blocks are in flight; `z_{t-1}` joins `K[Nr]` in the last xor.
            ///
            /// # Safety
            /// The CPU must have `$features`; `keys` the inverse cipher's; `src`
            /// valid for `n` blocks, `dst` for `n_out <= n` (disjoint from `src` or
            /// equal to it), `check` valid for one block if `n > n_out`.
            #[target_feature(enable = $features)]
            #[allow(clippy::too_many_arguments)]
            pub(in crate::armv8) unsafe fn xcbc_decrypt<const NR: usize>(
                keys: &[Block; 15],
                r0: u128,
                first: u128,
                prev: &Block,
                src: *const Block,
                n: usize,
                dst: *mut Block,
                n_out: usize,
                check: *mut Block,
            ) -> Block {
                // SAFETY: the caller's: the features; each batch reads blocks below
                // `n` from `src` (all of a batch's before any store) and writes blocks
                // below `n_out` to `dst`, or the one check block.
                unsafe {
                    let k = load_keys::<NR>(keys);
                    let mut off = first.wrapping_mul(r0);
                    let mut zp = vld1q_u8(prev.as_ptr());
                    let mut acc = vdupq_n_u8(0);
                    let mut i = 0;
                    macro_rules! go {
                        ($d v:literal, $d sum:literal, $d dst:expr) => {
                            dec_batch::<$d v, NR, $d sum>(
                                &k, src.add(i), $d dst, &mut off, r0, &mut zp, &mut acc,
                            )
                        };
                    }
                    while n_out - i >= BATCH {
                        #[cfg(blockmodes_mca)]
                        super::mca_begin();
                        go!(8, true, dst.add(i));
                        i += BATCH;
                        #[cfg(blockmodes_mca)]
                        super::mca_end();
                    }
                    match n_out - i {
                        0 => {}
                        1 => go!(1, true, dst.add(i)),
                        2 => go!(2, true, dst.add(i)),
                        3 => go!(3, true, dst.add(i)),
                        4 => go!(4, true, dst.add(i)),
                        5 => go!(5, true, dst.add(i)),
                        6 => go!(6, true, dst.add(i)),
                        _ => go!(7, true, dst.add(i)),
                    }
                    i = n_out;
                    if n > n_out {
                        go!(1, false, check);
                    }
                    let mut out = [0u8; 16];
                    vst1q_u8(out.as_mut_ptr(), acc);
                    out
                }
            }

            /// One batch of `V` blocks of [`xcbc_decrypt`]: loads, `z = y - off`
            /// (`off += r0` per block), the inverse rounds, `x = .. xor K[Nr] xor
            /// z_{t-1}`, stores (and the sum if `SUM`); `zp` carries the last `z`.
            ///
            /// # Safety
            /// From a function with the AES features; `src` valid for `V` blocks,
            /// `dst` for `V` (disjoint or equal).
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn dec_batch<const V: usize, const NR: usize, const SUM: bool>(
                k: &[uint8x16_t; 15],
                src: *const Block,
                dst: *mut Block,
                off: &mut u128,
                r0: u128,
                zp: &mut uint8x16_t,
                acc: &mut uint8x16_t,
            ) {
                // SAFETY: the caller's: the features; `src`, `dst` valid for V blocks
                // (every load before the first store).
                unsafe {
                    let mut z = [vdupq_n_u8(0); V];
                    let mut x = [vdupq_n_u8(0); V];
                    for v in 0..V {
                        let zi = u128::from_be_bytes(*src.add(v))
                            .wrapping_sub(*off)
                            .to_be_bytes();
                        *off = off.wrapping_add(r0);
                        z[v] = vld1q_u8(zi.as_ptr());
                        x[v] = round!(true, z[v], k[0]);
                    }
                    middle!(true, NR, k, x);
                    for v in 0..V {
                        let before = if v == 0 { *zp } else { z[v - 1] };
                        let y = $xor3(last!(true, x[v], k[NR - 1]), k[NR], before);
                        if SUM {
                            *acc = veorq_u8(*acc, y);
                        }
                        vst1q_u8(dst.add(v).cast(), y);
                    }
                    *zp = z[V - 1];
                }
            }
        }
    };
}

/// `a xor b xor c` with two `EOR`s (NEON, baseline on aarch64).
#[inline(always)]
fn xor3_neon(a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON is part of every aarch64 target Rust builds for.
    unsafe { veorq_u8(a, veorq_u8(b, c)) }
}

// The whitened loop on AES and NEON (every CPU with the tier) ...
whitened!($ plain, "aes,neon", super::xor3_neon);
// ... and with FEAT_SHA3's `EOR3` (checked at run time: `AesKey::has_eor3`).
whitened!($ sha3, "aes,neon,sha3", veor3q_u8);

/// XECB-MAC's sum (Gligor–Donescu, section 5): the xor of
/// `E_K(x_t + (first + t) r0)` over the `n` blocks from `src` and then,
/// if not null, the block at `last` (`+` mod 2^128 on big-endian blocks).
/// The offsets are integers in general registers (`first r0`, then `+ r0`
/// per block, an add with carry), the sums `x_t + offset` go into the
/// vector registers as the first round's state; eight blocks in flight,
/// `K[Nr]` folded once per call (the xor of its copies: itself or zero).
///
/// # Safety
/// The CPU must have AES (and NEON); `src` valid for `n` blocks, `last`
/// null or valid for one.
#[target_feature(enable = "aes,neon")]
pub(super) unsafe fn xecb_sum<const NR: usize>(
    keys: &[Block; 15],
    r0: u128,
    first: u128,
    src: *const Block,
    n: usize,
    last: *const Block,
) -> Block {
    // SAFETY: the caller's: the features; `src` valid for `n` blocks and
    // `last` null or valid for one (each read below is within those).
    unsafe {
        let k = load_keys::<NR>(keys);
        let mut off = first.wrapping_mul(r0);
        let mut acc = vdupq_n_u8(0);
        let mut i = 0;
        macro_rules! go {
            ($v:literal, $src:expr) => {
                int_batch::<$v, NR>(&k, $src, &mut off, r0, &mut acc)
            };
        }
        while n - i >= BATCH {
            #[cfg(blockmodes_mca)]
            mca_begin();
            go!(8, src.add(i));
            i += BATCH;
            #[cfg(blockmodes_mca)]
            mca_end();
        }
        match n - i {
            0 => {}
            1 => go!(1, src.add(i)),
            2 => go!(2, src.add(i)),
            3 => go!(3, src.add(i)),
            4 => go!(4, src.add(i)),
            5 => go!(5, src.add(i)),
            6 => go!(6, src.add(i)),
            _ => go!(7, src.add(i)),
        }
        let total = n + usize::from(!last.is_null());
        if !last.is_null() {
            go!(1, last);
        }
        if total % 2 == 1 {
            acc = veorq_u8(acc, k[NR]);
        }
        let mut out = [0u8; 16];
        vst1q_u8(out.as_mut_ptr(), acc);
        out
    }
}

/// One batch of `V` blocks of [`xecb_sum`]: `acc ^= E_K(x + off)` without
/// the last key xor, `off += r0` per block.
///
/// # Safety
/// From a function with the AES features; `src` valid for `V` blocks.
#[inline]
#[target_feature(enable = "aes,neon")]
unsafe fn int_batch<const V: usize, const NR: usize>(
    k: &[uint8x16_t; 15],
    src: *const Block,
    off: &mut u128,
    r0: u128,
    acc: &mut uint8x16_t,
) {
    // SAFETY: the caller's: the features; `src` valid for V blocks.
    unsafe {
        let mut x = [vdupq_n_u8(0); V];
        for (v, xv) in x.iter_mut().enumerate() {
            // x_t + (first + t) r0 as a big-endian block, made from the
            // integers (the bytes of a block are data, not secret-indexed).
            // (Kept in registers like every whitening value of the
            // kernels; nothing is written to memory.)
            let z = u128::from_be_bytes(*src.add(v))
                .wrapping_add(*off)
                .to_be_bytes();
            *off = off.wrapping_add(r0);
            *xv = round!(false, vld1q_u8(z.as_ptr()), k[0]);
        }
        middle!(false, NR, k, x);
        for xv in x {
            *acc = veorq_u8(*acc, last!(false, xv, k[NR - 1]));
        }
    }
}

// The rounds' macros for the wide-block passes (`wide.rs`).
pub(super) use {last, middle, round};
