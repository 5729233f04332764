//! Counter mode with a 32-bit big-endian block counter (CWC-CTR, section 3
//! of the CWC paper), on the ARMv8 Crypto Extensions: the aarch64
//! counterpart of `aesni/ctr.rs`, with the same contract.
//!
//! Block `t` of a run is xored with `E_K(cb + t)`, where `cb + t` is the
//! counter block `cb` with its last four bytes, read as a big-endian
//! integer, increased by `t` modulo 2^32 (the first twelve bytes never
//! change: CWC's `10^7 || N || tostr(i, 32)`). Any number of bytes: a
//! partial last block uses as many bytes of its keystream block as it has.
//!
//! The counter blocks are made in registers, never in memory: the counter
//! block is held with each 4-byte word byte-reversed (`REV32`), so that
//! its last word is the counter as a native 32-bit lane; per block one
//! `ADD` of `(0, 0, 0, 1)` to that vector (lane 3 alone, wrapping mod
//! 2^32, no carry into the nonce) and one `REV32` back to big-endian. The
//! first round's key operand is `K0` itself (`AESE` xors it in), so a
//! counter block costs two vector operations on top of ECB's rounds, and
//! the data one xor more than ECB's last key xor (`y = s xor (K[Nr] xor
//! M)`). Eight blocks in flight per batch, the remainder as one batch of
//! as many blocks as it has (a partial last block through a keystream
//! block on the stack, wiped after); nothing past the end read or written.
//!
//! `cb` comes in as a `u128` (the block read as a big-endian integer, as
//! CWC computes it) and is made into a vector from general registers.

use core::arch::aarch64::*;

use cipher::inout::InOutBuf;

use super::AesKey;
use crate::arith::gf128::Block;
#[cfg(feature = "alloc")]
use crate::engine::append_bytes;

/// Blocks per full batch.
const BATCH: usize = 8;

impl AesKey {
    /// `out = in xor` the keystream `E_K(cb), E_K(cb + 1), ...`, the
    /// counter blocks given as big-endian integers (the last four bytes a
    /// big-endian counter, increased modulo 2^32), for every byte of `io`
    /// (in place or from one buffer into another). Returns `E_K(extra)`
    /// (all zero without `extra`), as `aesni::AesKey::ctr32`.
    pub(crate) fn ctr32(&self, cb: u128, io: InOutBuf<'_, '_, u8>, extra: Option<u128>) -> Block {
        let len = io.len();
        let (src, dst) = io.into_raw();
        self.ctr32_raw(cb, src, dst, len, extra)
    }

    /// As [`ctr32`](Self::ctr32) from `input` onto the end of `out`
    /// (`input.len()` bytes appended, written once: see [`append_bytes`]).
    #[cfg(feature = "alloc")]
    pub(crate) fn ctr32_append(
        &self,
        cb: u128,
        input: &[u8],
        out: &mut alloc::vec::Vec<u8>,
        extra: Option<u128>,
    ) -> Block {
        append_bytes(input, out, |src, dst, len| {
            self.ctr32_raw(cb, src, dst, len, extra)
        })
    }

    /// [`ctr32`](Self::ctr32) on `len` bytes at `src` into `dst` (equal,
    /// or disjoint; `dst` may be uninitialised: only stored to).
    fn ctr32_raw(
        &self,
        cb: u128,
        src: *const u8,
        dst: *mut u8,
        len: usize,
        extra: Option<u128>,
    ) -> Block {
        let out = extra.map_or([0; 16], |e| self.encrypt_be(e));
        // (SHA-3 checked here, cached by `cpufeatures`: one load per call.)
        // SAFETY: `src` and `dst` hold `len` bytes (equal or disjoint: from
        // one `InOutBuf`, or input and spare capacity).
        unsafe { self.ctr32_on(Self::has_eor3(), cb, src, dst, len) };
        out
    }

    /// The kernel: `sha3::ctr32` if `eor3` (the caller found SHA-3), else
    /// `plain::ctr32` (the tests take both).
    ///
    /// # Safety
    /// `src` and `dst` valid for `len` bytes, equal or disjoint; `eor3`
    /// only on a CPU with SHA-3.
    pub(super) unsafe fn ctr32_on(
        &self,
        eor3: bool,
        cb: u128,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        if len == 0 {
            return;
        }
        let keys = &self.enc.0.0;
        // SAFETY: an `AesKey` exists only where `detect` found the AES
        // instructions; SHA-3 for `sha3::ctr32` and the pointers are the
        // caller's.
        unsafe {
            match (self.rounds, eor3) {
                (10, false) => plain::ctr32::<10>(keys, cb, src, dst, len),
                (12, false) => plain::ctr32::<12>(keys, cb, src, dst, len),
                (_, false) => plain::ctr32::<14>(keys, cb, src, dst, len),
                (10, true) => sha3::ctr32::<10>(keys, cb, src, dst, len),
                (12, true) => sha3::ctr32::<12>(keys, cb, src, dst, len),
                (_, true) => sha3::ctr32::<14>(keys, cb, src, dst, len),
            }
        }
    }
}

/// The counter block `cb` as the kernels hold it: each 4-byte word
/// byte-reversed (lane `i` of the `u32` vector is bytes `4i .. 4i + 4` as a
/// big-endian integer), from general registers.
#[inline(always)]
fn ctr_vector(cb: u128) -> uint32x4_t {
    // Lane 0 (low half of the first u64) is the top word of `cb`.
    let hi = ((cb >> 64) as u64).rotate_left(32);
    let lo = (cb as u64).rotate_left(32);
    // SAFETY: NEON is part of every aarch64 target Rust builds for.
    unsafe { vcombine_u32(vcreate_u32(hi), vcreate_u32(lo)) }
}

/// `a xor b xor c` in two `EOR`s (the kernels without SHA-3).
#[inline(always)]
fn xor3_neon(a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON is part of every aarch64 target Rust builds for.
    unsafe { veorq_u8(a, veorq_u8(b, c)) }
}

/// Rounds 1 .. Nr-2 of encryption on every block of the array `x`, round
/// by round (the batch's blocks interleaved), written out as
/// `kernel.rs`'s `middle!` (a counted loop can stay a loop).
macro_rules! middle {
    ($nr:expr, $k:expr, $x:expr) => {
        middle!(@ $nr, $k, $x; 1 2 3 4 5 6 7 8 9 10 11 12)
    };
    (@ $nr:expr, $k:expr, $x:expr; $($r:literal)*) => {$(
        if $r < $nr - 1 {
            let kr = $k[$r];
            for xv in $x.iter_mut() {
                *xv = vaesmcq_u8(vaeseq_u8(*xv, kr));
            }
        }
    )*};
}

/// The kernels, once per feature set: the module `$m` compiled with
/// `$features`, its three-way xor `$xor3` (`EOR3` where the features have
/// SHA-3, else two `EOR`s). (`$d` is `$`, for the macros inside.)
macro_rules! kernels {
    ($d:tt $m:ident, $features:literal, $xor3:path) => {
        mod $m {
            use core::arch::aarch64::*;

            use super::{BATCH, ctr_vector};
            use crate::arith::gf128::Block;

            /// The CTR loop over `len >= 1` bytes with the encryption keys
            /// of `NR` rounds.
            ///
            /// # Safety
            /// The CPU must have the features; `src` and `dst` valid for
            /// `len >= 1` bytes, equal or disjoint.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn ctr32<const NR: usize>(
                keys: &[Block; 15],
                cb: u128,
                src: *const u8,
                dst: *mut u8,
                len: usize,
            ) {
                // SAFETY: the caller's: the features; every batch touches
                // bytes below `len` only (as noted at each).
                unsafe {
                    let mut k = [vdupq_n_u8(0); 15];
                    for (kr, b) in k.iter_mut().zip(keys.iter()).take(NR + 1) {
                        *kr = vld1q_u8(b.as_ptr());
                    }
                    // K0 xor (0^120 || v), v < 8: the first key operands of
                    // an aligned batch (see `batch`).
                    let kv: [uint8x16_t; BATCH] = core::array::from_fn(|v| {
                        let lo = vcombine_u64(vcreate_u64(0), vcreate_u64((v as u64) << 56));
                        veorq_u8(k[0], vreinterpretq_u8_u64(lo))
                    });
                    let mut c = ctr_vector(cb);
                    let mut i = 0;
                    macro_rules! go {
                        ($d v:literal, $d aligned:literal, $d full:literal, $d last:expr) => {
                            // SAFETY: bytes i .. i + 16 ($v - 1) + $last are
                            // below len.
                            batch::<$d v, NR, $d aligned, $d full>(
                                &k,
                                &kv,
                                &mut c,
                                src.add(i),
                                dst.add(i),
                                $d last,
                            )
                        };
                    }
                    macro_rules! rest {
                        ($d aligned:literal, $d bytes:expr) => {{
                            let bytes = $d bytes;
                            let nv = bytes.div_ceil(16);
                            // 1 ..= 16 bytes in the last block
                            let last = bytes - 16 * (nv - 1);
                            crate::engine::dispatch::by_count8!(nv, go, $d aligned, false, last)
                        }};
                    }
                    // Up to the first counter that is a multiple of 8 (the
                    // counter is public: a branch on it leaks nothing),
                    // block by block.
                    let head = (8 - (cb as usize & 7)) & 7;
                    if head != 0 {
                        let bytes = len.min(16 * head);
                        rest!(false, bytes);
                        i = bytes;
                    }
                    while len - i >= 16 * BATCH {
                        // The model-only build (`--cfg blockmodes_mca`,
                        // `tools/mca/armv8.sh`) marks the steady-state loop.
                        #[cfg(blockmodes_mca)]
                        crate::armv8::mca_begin();
                        // (An instance of its own, whole blocks only: one
                        // call site, inlined into the loop.)
                        go!(8, true, true, 16);
                        i += 16 * BATCH;
                        #[cfg(blockmodes_mca)]
                        crate::armv8::mca_end();
                    }
                    if len > i {
                        rest!(true, len - i);
                    }
                }
            }

            /// One batch of `V` counter blocks; the last block has `last`
            /// (1 ..= 16) bytes of data (16 if `FULL`). `c` is the next
            /// counter block (see [`ctr_vector`]), advanced by `V`.
            ///
            /// `ALIGNED`: the first counter is a multiple of 8 and `V <=
            /// 8`, so that block `v`'s counter block is the first one xor
            /// `v` in its last byte: `AESE(cb + v, K0) = AESE(cb, K0 xor
            /// v)`, with `kv[v] = K0 xor (0^120 || v)` made once per call.
            /// A batch then makes one big-endian counter block (`REV32`)
            /// and one `ADD` for the next batch. Otherwise each block has
            /// its `REV32` and `ADD`. The data and `K[Nr]` go into the last
            /// round's output in one three-way xor.
            ///
            /// # Safety
            /// From a function with the features; `src` and `dst` valid
            /// for `16 (V - 1) + last` bytes, equal or disjoint.
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn batch<const V: usize, const NR: usize, const ALIGNED: bool, const FULL: bool>(
                k: &[uint8x16_t; 15],
                kv: &[uint8x16_t; BATCH],
                c: &mut uint32x4_t,
                src: *const u8,
                dst: *mut u8,
                last: usize,
            ) {
                // SAFETY: the caller's: the features; the loads and stores
                // as noted.
                unsafe {
                    let one = vcombine_u32(vcreate_u32(0), vcreate_u32(1 << 32));
                    let mut x = [vdupq_n_u8(0); V];
                    if ALIGNED {
                        let cbv = vrev32q_u8(vreinterpretq_u8_u32(*c));
                        *c = vaddq_u32(*c, vshlq_n_u32::<3>(one));
                        for (xv, kvv) in x.iter_mut().zip(kv) {
                            *xv = vaesmcq_u8(vaeseq_u8(cbv, *kvv));
                        }
                    } else {
                        for xv in x.iter_mut() {
                            // The counter block, big-endian; the next one
                            // (lane 3 + 1, mod 2^32).
                            let cbv = vrev32q_u8(vreinterpretq_u8_u32(*c));
                            *c = vaddq_u32(*c, one);
                            *xv = vaesmcq_u8(vaeseq_u8(cbv, k[0]));
                        }
                    }
                    middle!(NR, k, x);
                    for (v, xv) in x.iter().enumerate() {
                        let s = vaeseq_u8(*xv, k[NR - 1]);
                        let (p, q) = (src.add(16 * v), dst.add(16 * v));
                        if FULL || v + 1 < V || last == 16 {
                            // SAFETY: a whole block of valid bytes at `p`
                            // and `q`.
                            vst1q_u8(q, $xor3(s, vld1q_u8(p), k[NR]));
                        } else {
                            // SAFETY: `last` valid bytes at `p` and `q`,
                            // nothing past them touched; each byte read
                            // before it is written.
                            let mut ks = [0u8; 16];
                            vst1q_u8(ks.as_mut_ptr(), veorq_u8(s, k[NR]));
                            for (j, kb) in ks.iter().enumerate().take(last) {
                                *q.add(j) = *p.add(j) ^ kb;
                            }
                            ks.fill(0);
                            core::hint::black_box(&ks);
                        }
                    }
                }
            }
        }
    };
}

// The kernels on AES and NEON ...
kernels!($ plain, "aes,neon", super::xor3_neon);
// ... and with FEAT_SHA3's `EOR3` (checked at run time: `AesKey::has_eor3`).
kernels!($ sha3, "aes,neon,sha3", veor3q_u8);
