//! The passes of the wide-block modes on the ARMv8 Crypto Extensions: EME,
//! EME2 and EtE (`disk/eme/fused.rs`, `disk/eme2/fused.rs`), the aarch64
//! counterpart of `aesni::wide` with the same names and contracts.
//!
//! EME over a block cipher G enciphers a data unit in two ECB passes with a
//! serial block between them (`docs/spec/disk.md`):
//! * the first pass, [`AesKey::wide_first`]: `out[j] = G(in[j] xor l[j])`,
//!   returning the xor of the outputs (EME's `PPP_j` and their sum `SP`);
//! * the last pass, [`AesKey::wide_last`]: `out[j] = G(in[j] xor M x^j) xor
//!   l[j]`, with `M x^j` in the LE convention (EME's `CCC_j` mixing and the
//!   post-whitening `L_j`).
//!
//! `l` is the caller's per-key table (EME's `L_j = 2^(j-1) L`, EME2's
//! `2^j K_ECB`). As in the whitened loop (`kernel.rs`), the whitening
//! folds into the first and last round keys: `AESE` xors its key operand
//! *before* SubBytes, so the first pass's first round is `AESE(in[j],
//! l[j] xor K0)`, the last pass's `AESE(in[j], M x^j xor K0)`, and the
//! last pass ends with one xor of `l[j] xor K[Nr]`. Per block, on top of
//! ECB's rounds: the first pass one load and one xor for the key operand
//! and one xor into the sum; the last pass one LE doubling in registers
//! (`M x^(j+1)` from `M x^j`: shift, sign mask, and, lane swap, xor: a
//! chain beside the rounds), one xor for the key operand, and the table's
//! load and one xor for the last key. Eight blocks in flight per batch, the
//! remainder as one batch of as many blocks as it has (nothing past the
//! blocks read or written).
//!
//! The middle (`MC = G(MP)`, one block, and `M (x + ... + x^(m-1))`, one
//! carry-less multiplication on `PMULL`: `disk::simd::Clmul`) runs in the
//! driver between the two calls: [`AesKey::wide_first_mid`] and
//! [`AesKey::wide_units`], the x86 tier's fused forms, answer "not here".
//! The units are still pipelined by the driver (unit s's first pass and
//! middle before unit s - 1's last pass).
//!
//! For EtE, G is StE over XEX-AES-128 ([`SteXex`], `backend::SteXex` on every architecture):
//! `F_i(x) = E(sw(x) xor Δ_i) xor Δ_i`, `F_i^-1(c) = sw(E^-1(c xor Δ_i)
//! xor Δ_i)`, Δ_i folded into the first and last round keys, `sw` seven
//! vector operations a block (no branch, no table index); EtE's ECB layer
//! `F_1` rides in the first pass when enciphering (two ciphers a block in
//! one batch) and `F_1^-1` in the last when deciphering.

use core::arch::aarch64::*;

use super::kernel::{last, load_keys, middle, round};
use super::{AesKey, Dir, Io};
use crate::arith::gf128::Block;
use crate::engine::SteKey;
use crate::engine::dispatch::by_rounds;

/// Blocks per full batch.
const BATCH: usize = 8;

/// One pass's parameters, for the kernels.
struct WideJob<'a> {
    /// Round keys of the direction.
    keys: &'a [Block; 15],
    src: *const Block,
    dst: *mut Block,
    /// Blocks: `src`, `dst` and `l` hold at least this many.
    n: usize,
    /// The caller's table `l[j]`.
    l: *const Block,
    /// The last pass's base `M` of the powers `M x^j` (LE).
    m: &'a Block,
}

/// A zero block, the first pass's (unused) `M`.
static ZERO: Block = [0; 16];

impl AesKey {
    /// EME's first pass over one unit (or run) with G = E_K (`Dir::Encrypt`)
    /// or E_K^-1: `out[j] = G(in[j] xor l[j])`; returns the xor of the
    /// outputs. Processes `min(io's blocks, l.len())` blocks.
    pub(crate) fn wide_first(&self, dir: Dir, l: &[Block], io: Io<'_, '_>) -> Block {
        let job = self.wide_job(dir, io, l, &ZERO);
        self.wide_run(dir, false, &job)
    }

    /// EME's last pass over one unit (or run) with G = E_K or E_K^-1:
    /// `out[j] = G(in[j] xor m x^j) xor l[j]` (LE powers of `m`).
    pub(crate) fn wide_last(&self, dir: Dir, m: &Block, l: &[Block], io: Io<'_, '_>) {
        let job = self.wide_job(dir, io, l, m);
        self.wide_run(dir, true, &job);
    }

    /// The first pass and the middle in one call: not on this tier (`None`,
    /// nothing done: the driver runs [`wide_first`](Self::wide_first) and
    /// the middle itself).
    pub(crate) fn wide_first_mid(
        &self,
        _dir: Dir,
        _l: &[Block],
        _tweak: &Block,
        _s_m: &Block,
        _unit: &mut [Block],
    ) -> Option<Block> {
        None
    }

    /// Whole EME units in one call: not on this tier (false, nothing done:
    /// the driver pipelines [`wide_first`](Self::wide_first), the middle and
    /// [`wide_last`](Self::wide_last) unit by unit).
    pub(crate) fn wide_units(
        &self,
        _dir: Dir,
        _l: &[Block],
        _s_m: &Block,
        _m: usize,
        _blocks: &mut [Block],
        _tweaks: &[Block],
    ) -> bool {
        false
    }

    fn wide_job<'a>(&'a self, dir: Dir, io: Io<'_, '_>, l: &[Block], m: &'a Block) -> WideJob<'a> {
        let (src, dst, n) = io.raw();
        WideJob {
            keys: self.keys(dir),
            src,
            dst,
            n: n.min(l.len()),
            l: l.as_ptr(),
            m,
        }
    }

    /// Dispatch a pass to the round count (`last`: the last pass, else the
    /// first).
    fn wide_run(&self, dir: Dir, last: bool, job: &WideJob<'_>) -> Block {
        if job.n == 0 {
            return [0; 16];
        }
        macro_rules! go {
            ($nr:literal) => {
                // SAFETY: an `AesKey` exists only where `detect` found the
                // AES instructions; the job's pointers cover `job.n` blocks
                // (`Io::raw`, `n <= l.len()`).
                unsafe {
                    match (dir, last) {
                        (Dir::Encrypt, false) => pass::<$nr, false, false>(job),
                        (Dir::Decrypt, false) => pass::<$nr, true, false>(job),
                        (Dir::Encrypt, true) => pass::<$nr, false, true>(job),
                        (Dir::Decrypt, true) => pass::<$nr, true, true>(job),
                    }
                }
            };
        }
        by_rounds!(self.rounds, go)
    }
}

/// `p x` in GF(2^128), LE convention (`p` the block as a little-endian
/// integer): a shift and the reduction `0x87` under a mask, in general
/// registers (the vector pipes are the rounds'; the value then moves into
/// a vector register as the first key operand).
#[inline(always)]
fn double(p: u128) -> u128 {
    let carry = ((p >> 127) as u64).wrapping_neg() & 0x87;
    (p << 1) ^ u128::from(carry)
}

/// The last pass's powers `M x^j`, made in general registers (`double`)
/// and handed to the vector side through memory, a batch at a time;
/// wiped on drop.
struct Powers {
    /// The next power, as a little-endian integer.
    p: u128,
    /// The batch's powers as blocks.
    pw: [Block; BATCH],
}

impl Powers {
    fn new(m: &Block) -> Self {
        Self {
            p: u128::from_le_bytes(*m),
            pw: [[0; 16]; BATCH],
        }
    }

    /// The next `V` powers in vector registers.
    #[inline(always)]
    fn next<const V: usize>(&mut self) -> [uint8x16_t; V] {
        for w in self.pw.iter_mut().take(V) {
            *w = self.p.to_le_bytes();
            self.p = double(self.p);
        }
        // SAFETY: an empty `asm!` (a comment naming the array): it may
        // read and write memory, which keeps the compiler from forwarding
        // the values register to register (a general-to-vector move per
        // half would take a slot of the vector pipes, which the rounds
        // fill): stored from the general registers, loaded as vectors.
        // The loads read the array's first V <= 8 blocks; NEON is part of
        // every aarch64 target Rust builds for.
        unsafe {
            core::arch::asm!("/* {0} */", in(reg) self.pw.as_ptr(), options(nostack, preserves_flags));
            core::array::from_fn(|v| vld1q_u8(self.pw[v].as_ptr()))
        }
    }
}

impl Drop for Powers {
    fn drop(&mut self) {
        self.p = 0;
        self.pw = [[0; 16]; BATCH];
        core::hint::black_box(&mut *self);
    }
}

/// The loop over a pass's `$n` blocks: full batches of eight (each the
/// model-only build's region, `tools/mca/armv8.sh`), then the remainder as
/// one batch of as many blocks as it has; `$go!(V, i)` runs the batch of
/// `V` blocks from block `i`.
macro_rules! batches {
    ($n:expr, $go:ident) => {{
        let n = $n;
        let mut i = 0;
        while n - i >= BATCH {
            #[cfg(blockmodes_mca)]
            super::mca_begin();
            $go!(8, i);
            i += BATCH;
            #[cfg(blockmodes_mca)]
            super::mca_end();
        }
        match n - i {
            0 => {}
            1 => $go!(1, i),
            2 => $go!(2, i),
            3 => $go!(3, i),
            4 => $go!(4, i),
            5 => $go!(5, i),
            6 => $go!(6, i),
            _ => $go!(7, i),
        }
    }};
}

/// One pass: the first (`LAST` false: the table before the rounds, the
/// sum of the outputs returned) or the last (the powers `M x^j` before,
/// the table after; zero returned), of `G = E_K` or, with `DEC`, `E_K^-1`.
///
/// # Safety
/// The CPU must have AES (and NEON); `job.src`, `job.dst` and `job.l`
/// valid for `job.n` blocks, `src` and `dst` equal or disjoint.
#[target_feature(enable = "aes,neon")]
unsafe fn pass<const NR: usize, const DEC: bool, const LAST: bool>(job: &WideJob<'_>) -> Block {
    // SAFETY: the caller's: the features; every batch's blocks are below
    // `job.n`.
    unsafe {
        let k = load_keys::<NR>(job.keys);
        let mut powers = Powers::new(job.m);
        let mut acc = vdupq_n_u8(0);
        macro_rules! go {
            ($v:literal, $i:expr) => {
                batch::<$v, NR, DEC, LAST>(
                    &k,
                    job.src.add($i),
                    job.dst.add($i),
                    job.l.add($i),
                    &mut powers,
                    &mut acc,
                )
            };
        }
        batches!(job.n, go);
        let mut out = [0u8; 16];
        vst1q_u8(out.as_mut_ptr(), acc);
        out
    }
}

/// One batch of `V` blocks of [`pass`]: loads, the first key operand
/// (`l[j] xor K0`, or `M x^j xor K0` with `p` stepping one doubling per
/// block), the rounds, the last xor (`K[Nr]`, or `l[j] xor K[Nr]`), the
/// sum (first pass), stores.
///
/// # Safety
/// From a function with the AES features; `src`, `l` valid for `V`
/// blocks, `dst` for `V` (equal to `src` or disjoint).
#[inline]
#[target_feature(enable = "aes,neon")]
unsafe fn batch<const V: usize, const NR: usize, const DEC: bool, const LAST: bool>(
    k: &[uint8x16_t; 15],
    src: *const Block,
    dst: *mut Block,
    l: *const Block,
    powers: &mut Powers,
    acc: &mut uint8x16_t,
) {
    // SAFETY: the caller's: the features; `src`, `l` and `dst` valid for
    // V blocks (every load before the first store).
    unsafe {
        let pv: [uint8x16_t; V] = if LAST {
            powers.next::<V>()
        } else {
            [vdupq_n_u8(0); V]
        };
        let mut x = [vdupq_n_u8(0); V];
        for (v, xv) in x.iter_mut().enumerate() {
            let b = vld1q_u8(src.add(v).cast());
            let k0 = if LAST {
                veorq_u8(pv[v], k[0])
            } else {
                veorq_u8(vld1q_u8(l.add(v).cast()), k[0])
            };
            *xv = round!(DEC, b, k0);
        }
        middle!(DEC, NR, k, x);
        for (v, xv) in x.into_iter().enumerate() {
            let s = last!(DEC, xv, k[NR - 1]);
            let y = if LAST {
                veorq_u8(s, veorq_u8(vld1q_u8(l.add(v).cast()), k[NR]))
            } else {
                let y = veorq_u8(s, k[NR]);
                *acc = veorq_u8(*acc, y);
                y
            };
            vst1q_u8(dst.add(v).cast(), y);
        }
    }
}

/// EtE's StE-over-XEX pair on this key, as on x86-64
/// ([`crate::engine::SteXex`]; its passes: [`SteKey`] below). StE's swap
/// `sw` is vector compares and masks here: no branch, no table index.
pub(crate) type SteXex = crate::engine::SteXex<AesKey>;

impl SteKey for AesKey {
    fn rounds(&self) -> usize {
        self.rounds
    }

    fn round_keys(&self, dir: Dir) -> &[Block; 15] {
        self.keys(dir)
    }

    fn ste_pass(
        ste: &SteXex,
        dir: Dir,
        last: bool,
        l: &[Block],
        m: &Block,
        io: Io<'_, '_>,
    ) -> Block {
        let job = ste.key.wide_job(dir, io, l, m);
        if job.n == 0 {
            return [0; 16];
        }
        let ste = SteJob {
            job,
            folded: ste.folded(dir),
            k: &ste.k,
            h: &ste.h,
        };
        // SAFETY: an `AesKey` exists only where `detect` found the AES
        // instructions; the job's pointers cover `job.n` blocks (`Io::raw`,
        // `n <= l.len()`); AES-128 (`SteXex::new`), so 10 rounds.
        unsafe {
            match (dir, last) {
                (Dir::Encrypt, false) => ste_pass::<false, false>(&ste),
                (Dir::Decrypt, false) => ste_pass::<true, false>(&ste),
                (Dir::Encrypt, true) => ste_pass::<false, true>(&ste),
                (Dir::Decrypt, true) => ste_pass::<true, true>(&ste),
            }
        }
    }

    /// The first pass and the middle in one call: not on this tier.
    fn ste_first_mid(
        _ste: &SteXex,
        _dir: Dir,
        _l: &[Block],
        _tweak: &Block,
        _s_m: &Block,
        _unit: &mut [Block],
    ) -> Option<Block> {
        None
    }

    /// Whole EtE units in one call: not on this tier.
    fn ste_units(
        _ste: &SteXex,
        _dir: Dir,
        _l: &[Block],
        _s_m: &Block,
        _m: usize,
        _blocks: &mut [Block],
        _tweaks: &[Block],
    ) -> bool {
        false
    }
}

/// An EtE pass: the plain pass's job, the folded keys of its direction
/// (`SteXex::folded`) and StE's K and H.
struct SteJob<'a> {
    job: WideJob<'a>,
    folded: &'a [Block; 4],
    k: &'a Block,
    h: &'a Block,
}

/// The constants of an EtE pass in registers.
struct SteConsts {
    /// Folded first and last keys: F_wide's, F_ecb's.
    k0w: uint8x16_t,
    klw: uint8x16_t,
    k0e: uint8x16_t,
    kle: uint8x16_t,
    /// K, H (as 64-bit lanes) and `K xor H`.
    sk: uint64x2_t,
    sh: uint64x2_t,
    skh: uint8x16_t,
    /// `-2` in both lanes: a block's two lane matches added.
    minus2: uint64x2_t,
}

/// StE's swap: `H` if `x = K`, `K` if `x = H`, else `x`, in seven vector
/// operations and no branch: the 64-bit lane compares with K and with H
/// added pairwise (`-2` in a lane when the whole block matches), compared
/// with `-2`, added pairwise again (all ones in both lanes when either
/// matched; K and H equal leave `K xor H` zero), one masked xor of `K xor
/// H`.
#[inline(always)]
fn swap(x: uint8x16_t, c: &SteConsts) -> uint8x16_t {
    // SAFETY: NEON is part of every aarch64 target Rust builds for.
    unsafe {
        let x64 = vreinterpretq_u64_u8(x);
        let e = vpaddq_u64(vceqq_u64(x64, c.sk), vceqq_u64(x64, c.sh));
        let m = vceqq_u64(e, c.minus2);
        let m = vreinterpretq_u8_u64(vpaddq_u64(m, m));
        veorq_u8(x, vandq_u8(m, c.skh))
    }
}

/// AES-128 (`E_K` or, with `$dec`, `E_K^-1`) on every block of the array
/// `$x`, with per-block first key operands `$k0` and last xors `$kl`
/// (arrays: the folded keys, whitening folded in); rounds 1 .. 9 from
/// `$k`. A macro, as `round!`: a `#[target_feature]` helper was left a
/// call (the batch's registers through the stack).
macro_rules! aes_each {
    ($dec:expr, $k:expr, $x:expr, $k0:expr, $kl:expr) => {{
        for (xv, k0v) in $x.iter_mut().zip($k0.iter()) {
            *xv = round!($dec, *xv, *k0v);
        }
        middle!($dec, 10, $k, $x);
        for (xv, klv) in $x.iter_mut().zip($kl.iter()) {
            *xv = veorq_u8(last!($dec, *xv, $k[9]), *klv);
        }
    }};
}

/// One EtE pass (AES-128): the first (`LAST` false, the outputs' sum
/// returned) or the last, enciphering or (`DEC`) deciphering, as
/// [`SteXex::first`] and [`SteXex::last`] define them.
///
/// # Safety
/// The CPU must have AES (and NEON); `ste.job.src`, `dst` and `l` valid
/// for `ste.job.n` blocks, `src` and `dst` equal or disjoint.
#[target_feature(enable = "aes,neon")]
unsafe fn ste_pass<const DEC: bool, const LAST: bool>(ste: &SteJob<'_>) -> Block {
    // SAFETY: the caller's: the features; every batch's blocks are below
    // `job.n`.
    unsafe {
        let job = &ste.job;
        let k = load_keys::<10>(job.keys);
        let ld = |b: &Block| vld1q_u8(b.as_ptr());
        let (sk, sh) = (ld(ste.k), ld(ste.h));
        let c = SteConsts {
            k0w: ld(&ste.folded[0]),
            klw: ld(&ste.folded[1]),
            k0e: ld(&ste.folded[2]),
            kle: ld(&ste.folded[3]),
            sk: vreinterpretq_u64_u8(sk),
            sh: vreinterpretq_u64_u8(sh),
            skh: veorq_u8(sk, sh),
            minus2: vdupq_n_u64(u64::MAX - 1),
        };
        let mut powers = Powers::new(job.m);
        let mut acc = vdupq_n_u8(0);
        macro_rules! go {
            ($v:literal, $i:expr) => {
                ste_batch::<$v, DEC, LAST>(
                    &k,
                    &c,
                    job.src.add($i),
                    job.dst.add($i),
                    job.l.add($i),
                    &mut powers,
                    &mut acc,
                )
            };
        }
        batches!(job.n, go);
        let mut out = [0u8; 16];
        vst1q_u8(out.as_mut_ptr(), acc);
        out
    }
}

/// One batch of `V` blocks of [`ste_pass`].
///
/// # Safety
/// As [`batch`].
#[inline]
#[target_feature(enable = "aes,neon")]
unsafe fn ste_batch<const V: usize, const DEC: bool, const LAST: bool>(
    k: &[uint8x16_t; 15],
    c: &SteConsts,
    src: *const Block,
    dst: *mut Block,
    l: *const Block,
    powers: &mut Powers,
    acc: &mut uint8x16_t,
) {
    // SAFETY: the caller's: the features; `src`, `l` and `dst` valid for
    // V blocks (every load before the first store).
    unsafe {
        let mut x = [vdupq_n_u8(0); V];
        let mut lv = [vdupq_n_u8(0); V];
        for v in 0..V {
            x[v] = vld1q_u8(src.add(v).cast());
            lv[v] = vld1q_u8(l.add(v).cast());
        }
        // The powers `M x^j` (last pass).
        let pv: [uint8x16_t; V] = if LAST {
            powers.next::<V>()
        } else {
            [vdupq_n_u8(0); V]
        };
        let each = |a: uint8x16_t| [a; V];
        let mut k0 = [vdupq_n_u8(0); V];
        let mut kl = [vdupq_n_u8(0); V];
        match (DEC, LAST) {
            // F_wide(F_ecb(x) xor l).
            (false, false) => {
                for xv in x.iter_mut() {
                    *xv = swap(*xv, c);
                }
                aes_each!(false, k, x, &each(c.k0e), &each(c.kle));
                for (xv, lvv) in x.iter_mut().zip(&lv) {
                    *xv = swap(veorq_u8(*xv, *lvv), c);
                }
                aes_each!(false, k, x, &each(c.k0w), &each(c.klw));
            }
            // F_wide^-1(x xor l) = sw(E^-1(x xor (l xor Δ)) xor Δ).
            (true, false) => {
                for (k0v, lvv) in k0.iter_mut().zip(&lv) {
                    *k0v = veorq_u8(*lvv, c.k0w);
                }
                aes_each!(true, k, x, &k0, &each(c.klw));
                for xv in x.iter_mut() {
                    *xv = swap(*xv, c);
                }
            }
            // F_wide(x xor p) xor l.
            (false, true) => {
                for (v, xv) in x.iter_mut().enumerate() {
                    *xv = swap(veorq_u8(*xv, pv[v]), c);
                    kl[v] = veorq_u8(lv[v], c.klw);
                }
                aes_each!(false, k, x, &each(c.k0w), &kl);
            }
            // F_ecb^-1(F_wide^-1(x xor p) xor l).
            (true, true) => {
                for (k0v, pvv) in k0.iter_mut().zip(&pv) {
                    *k0v = veorq_u8(*pvv, c.k0w);
                }
                aes_each!(true, k, x, &k0, &each(c.klw));
                for (xv, lvv) in x.iter_mut().zip(&lv) {
                    *xv = veorq_u8(swap(*xv, c), *lvv);
                }
                aes_each!(true, k, x, &each(c.k0e), &each(c.kle));
                for xv in x.iter_mut() {
                    *xv = swap(*xv, c);
                }
            }
        }
        for (v, xv) in x.into_iter().enumerate() {
            if !LAST {
                *acc = veorq_u8(*acc, xv);
            }
            vst1q_u8(dst.add(v).cast(), xv);
        }
    }
}
