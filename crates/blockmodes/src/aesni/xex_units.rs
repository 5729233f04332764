//! XEX over whole data units with the deltas made in registers, written
//! once for the wide lanes (`lane.rs`: ymm on VAES-256, zmm on VAES-512):
//! the units' `E_K(N_s)` ([`run`]: a table, the first register of units
//! in the kernel's own registers), and the offsets of each batch
//! ([`offsets`]) that the whitened loop of `kernel.rs` folds into the
//! first and last round keys. The loop reaches this module, never the
//! other way ([`run`] takes the loop as a closure): no import cycle.
//!
//! Block j of unit s is whitened with `Δ = E_K(N_s) x^(j+1)` (BE), made
//! as 128-bit values (bytes reversed): `xd[b]` holds `E_K(N_s) x^(e + l)`
//! in block l for `e = 32 c + 1 + b B` (B blocks per register, b below
//! `8 / B`, c the unit's current stretch of 32 blocks), and a register k
//! blocks into the stretch takes `xd[(k / B) mod (8 / B)]` times `x^(8
//! floor(k / 8))`: a byte shift and one carry-less multiply for the bytes
//! shifted out (port-5 work, beside the rounds), xored with the reversed
//! `K_last` and reversed into blocks. So `z` is `Z xor K_last`, the last
//! round's key as it is, and the first round takes `K0 xor K_last`. The
//! registers of a batch are independent; the only chain is one step of
//! `x^32` per stretch. Registers never straddle units (`m` is a multiple
//! of 4).
//!
//! Cost on ymm (VAES-256, AVX2): the rounds of a ymm register take ports 0
//! and 1, and every vector xor, shuffle, byte shift and carry-less
//! multiply competes for port 5 (and 0, 1): about 4 such operations per
//! block here against 1 on zmm, where `vpternlogq` does a 3-way xor in one.

use core::arch::x86_64::*;

use super::lane::Lane;
use super::schedule::load;
use super::{Job, JobX, SRC_XEX, SRC_XEX_BARE, SRC_XEX_FREE, XEX_UNITS};
use crate::arith::gf128::Block;
use crate::engine::dispatch::by_count8;

/// Blocks per stretch: the deltas `xd` step by `x^32` (4 bytes).
const STRETCH: usize = 32;

/// The XEX state of a kernel, beside the whitened loop's.
#[derive(Clone, Copy)]
pub(super) struct XexState<L> {
    /// The current stretch's deltas (see the module docs; `8 / B` used).
    xd: [L; 4],
    /// `K_last` byte-reversed (the deltas are made as 128-bit values and
    /// reversed into blocks with `K_last` already in).
    rkl: L,
    /// Blocks left in the unit, the next unit, blocks into the stretch.
    x_left: usize,
    x_unit: usize,
    x_k: usize,
    /// `E_K(N_s)` of the first register's units, made in the kernel's
    /// registers: the first units' offsets wait for no store and reload
    /// of the table (at 512 bytes, the wait for `E_K(N)` through the
    /// table took 21 ns, 88 cycles, on zmm in `aesni::bench`).
    en0: L,
}

/// The byte reversal of every block (blocks to 128-bit values, BE).
#[inline(always)]
unsafe fn rev<L: Lane>() -> L {
    unsafe {
        L::broadcast(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ))
    }
}

/// `x^7 + x^2 + x + 1` in every qword.
#[inline(always)]
unsafe fn poly<L: Lane>() -> L {
    unsafe { L::broadcast(_mm_set1_epi64x(0x87)) }
}

/// The XEX state at the start of a kernel on the round keys `k` (the
/// direction's): `K_last` reversed, and for [`SRC_XEX`] the first
/// register's `E_K(N)` (under the encryption keys whatever the direction).
///
/// # Safety
/// The CPU has `L`'s tier's features (called from its kernels, inlined).
#[inline(always)]
pub(super) unsafe fn init<L: Lane, const NR: usize, const DEC: bool, const SRC: u8>(
    job: &Job<'_>,
    k: &[L; 15],
) -> XexState<L> {
    // SAFETY: the caller's: the CPU has the features.
    unsafe {
        let mut st = XexState {
            xd: [L::zero(); 4],
            rkl: L::zero(),
            x_left: 0,
            x_unit: 0,
            x_k: 0,
            en0: L::zero(),
        };
        if SRC == SRC_XEX || SRC == SRC_XEX_FREE {
            st.rkl = L::shuffle(k[NR], rev());
        }
        if SRC == SRC_XEX && job.n > 0 {
            let mut ek = *k;
            if DEC {
                for (kr, b) in ek.iter_mut().zip(job.x.enc.iter()).take(NR + 1) {
                    *kr = L::broadcast(load(b));
                }
            }
            st.en0 = nonce_regs::<L, 1, NR>(job.x.unit0, 0, &ek)[0];
        }
        st
    }
}

/// XEX's offsets `Z xor K_last` of a batch of `V` registers ([`SRC_XEX`];
/// [`SRC_XEX_FREE`], the benchmarks' bound: `K_last` alone).
///
/// # Safety
/// As [`init`]; `job.z` as [`run`] made it.
#[inline(always)]
pub(super) unsafe fn offsets<L: Lane, const V: usize, const SRC: u8>(
    job: &Job<'_>,
    st: &mut XexState<L>,
    z: &mut [L; V],
) {
    // SAFETY: the caller's.
    unsafe {
        if SRC == SRC_XEX_FREE {
            *z = [st.rkl; V];
        } else if V == 8 && job.x.m.is_multiple_of(STRETCH) {
            stretch(job, st, z);
        } else {
            registers(job, st, z);
        }
    }
}

/// XEX over whole units from unit `job.x.unit0` (at most [`XEX_UNITS`] of
/// them) on lane `L`: the units' `E_K(N_s)` first, the nonces `N_s =
/// (unit0 + s)` big-endian made in registers and enciphered into a local
/// table (no store of a nonce for the cipher to wait on) from the second
/// register of units on, then `kernel` (the whitened loop with
/// [`SRC_XEX`], or with the job's benchmark kind) on the units, which
/// makes the first register's `E_K(N)` itself ([`init`]); the table is
/// wiped before returning.
///
/// # Safety
/// As `kernel::dispatch` (a wide lane); `kernel` the loop for `L`.
#[inline(always)]
pub(super) unsafe fn run<L: Lane, const NR: usize>(
    job: &Job<'_>,
    kernel: impl FnOnce(&Job<'_>) -> Block,
) -> Block {
    // Not zeroed (a 1 KiB memset, a library call, at every call): the
    // kernel reads only the registers of units that `nonces` wrote.
    let mut en = super::Aligned([core::mem::MaybeUninit::<Block>::uninit(); XEX_UNITS]);
    let units = job.n.checked_div(job.x.m).unwrap_or(0).min(XEX_UNITS);
    // SAFETY: the caller's: the CPU has the features; the table's
    // accesses are justified where they are.
    unsafe {
        let mut ek = [L::zero(); 15];
        for (kr, b) in ek.iter_mut().zip(job.x.enc.iter()).take(NR + 1) {
            *kr = L::broadcast(load(b));
        }
        // Groups of up to eight registers of nonces, their rounds interleaved.
        let regs = units.div_ceil(L::BLOCKS);
        // Register 0 is made in the kernel's registers (`en0`).
        let mut r0 = if cfg!(test) && job.src_kind == SRC_XEX_BARE {
            regs
        } else {
            1
        };
        let t = en.0.as_mut_ptr().cast::<Block>();
        while r0 < regs {
            macro_rules! group {
                ($v:literal) => {
                    for (r, e) in nonce_regs::<L, $v, NR>(job.x.unit0, r0, &ek)
                        .iter()
                        .enumerate()
                    {
                        // SAFETY: register r0 + r holds units below XEX_UNITS.
                        L::store(t.add(L::BLOCKS * (r0 + r)), *e);
                    }
                };
            }
            by_count8!(regs - r0, group);
            r0 += 8;
        }
        let mut j = Job {
            keys: job.keys,
            src: job.src,
            dst: job.dst,
            n: units * job.x.m,
            src_kind: if cfg!(test) { job.src_kind } else { SRC_XEX },
            z: t.cast_const(),
            gray: None,
            first: 0,
            w: [0; 16],
            x: JobX {
                enc: job.x.enc,
                extra: core::ptr::null_mut(),
                m: job.x.m,
                unit0: job.x.unit0,
            },
        };
        let r = kernel(&j);
        j.z = core::ptr::null();
        for g in 0..regs {
            // SAFETY: register g of the table, inside it.
            L::store(t.add(L::BLOCKS * g), L::zero());
        }
        core::hint::black_box(&en);
        r
    }
}

/// `E_K(N_s)` for the units s of registers `r0 .. r0 + V` (`B` per
/// register, block l of register r the unit `B (r0 + r) + l`): `N_s =
/// unit0 + s` as a 16-byte big-endian integer, made in registers.
///
/// # Safety
/// As [`init`].
#[inline(always)]
unsafe fn nonce_regs<L: Lane, const V: usize, const NR: usize>(
    unit0: u128,
    r0: usize,
    ek: &[L; 15],
) -> [L; V] {
    // SAFETY: the caller's.
    unsafe {
        let rev = rev::<L>();
        let mut x = [L::zero(); V];
        for (r, xr) in x.iter_mut().enumerate() {
            let n = L::counters(unit0, L::BLOCKS * (r0 + r));
            *xr = L::xor(L::shuffle(n, rev), ek[0]);
        }
        for kr in &ek[1..NR] {
            for xr in x.iter_mut() {
                *xr = L::aesenc(*xr, *kr);
            }
            L::fence(&mut x);
        }
        for xr in x.iter_mut() {
            *xr = L::aesenclast(*xr, ek[NR]);
        }
        x
    }
}

/// `E_K(N_q)` of unit q as a 128-bit value (bytes reversed) in every
/// block: the register of `job.z` that holds it (as [`run`] stored it: a
/// load of the same size and place, which the store forwards to), or
/// `en0`, its block picked and reversed.
///
/// # Safety
/// As [`offsets`]; `job.z` valid for the register of unit q.
#[inline(always)]
unsafe fn unit_en<L: Lane>(job: &Job<'_>, en0: L, q: usize, rev: L) -> L {
    // SAFETY: the caller's.
    unsafe {
        let b = L::BLOCKS;
        let regs = if q < b {
            en0
        } else {
            L::load(job.z.add(q & !(b - 1)))
        };
        L::shuffle(L::splat_block(regs, q & (b - 1)), rev)
    }
}

/// `d x^(e + l)` in block `l` (blocks as 128-bit integers, BE), `e + B <=
/// 64`: by carry-less multiplies only, none of the bit shifts that share
/// the AES unit's port: with `d = hi x^64 + lo`, `lo x^k` is one product
/// (a 128-bit result), `H = hi x^k` another, and `H x^64 = H_lo x^64 +
/// H_hi (x^7 + x^2 + x + 1)` (a byte shift and a third product).
///
/// # Safety
/// As [`init`].
#[inline(always)]
pub(super) unsafe fn times_x_lanes<L: Lane>(d: L, e: usize, poly: L) -> L {
    // SAFETY: the caller's; `xk` holds 64 bytes, at least B blocks.
    unsafe {
        let xk: [u64; 8] = core::array::from_fn(|i| if i % 2 == 0 { 1 << (e + i / 2) } else { 0 });
        let xk = L::load(xk.as_ptr().cast());
        let low = L::clmul::<0x00>(d, xk); // lo x^k
        let high = L::clmul::<0x01>(d, xk); // H = hi x^k
        let folded = L::clmul::<0x01>(high, poly); // H_hi (x^7 + x^2 + x + 1)
        L::xor3(low, L::bslli::<8>(high), folded)
    }
}

/// The two parts of `v x^(8A)` per block (128-bit values, `A` <= 4 bytes,
/// `R = 16 - A`): `v` shifted up by `A` bytes, and the `A` bytes shifted
/// out times `x^7 + x^2 + x + 1`, to be xored together.
#[inline(always)]
unsafe fn times_x8_parts<L: Lane, const A: i32, const R: i32>(v: L, poly: L) -> (L, L) {
    // SAFETY: the caller's (as [`init`]).
    unsafe { (L::bslli::<A>(v), L::clmul::<0x00>(L::bsrli::<R>(v), poly)) }
}

/// A new unit's deltas (its first stretch) into `st.xd`.
#[inline(always)]
unsafe fn unit_start<L: Lane>(job: &Job<'_>, st: &mut XexState<L>, rev: L, poly: L) {
    // SAFETY: the caller's.
    unsafe {
        let e = unit_en(job, st.en0, st.x_unit, rev);
        // E x^1 .. x^B in the B blocks of xd[0], x^(B+1) .. of xd[1], ...
        for b in 0..8 / L::BLOCKS {
            st.xd[b] = times_x_lanes(e, 1 + b * L::BLOCKS, poly);
        }
        st.x_unit += 1;
        st.x_left = job.x.m;
        st.x_k = 0;
    }
}

/// The next stretch: `xd` times `x^32`.
#[inline(always)]
unsafe fn next_stretch<L: Lane>(st: &mut XexState<L>, poly: L) {
    // SAFETY: the caller's.
    unsafe {
        for b in 0..8 / L::BLOCKS {
            let (s, c) = times_x8_parts::<L, 4, 12>(st.xd[b], poly);
            st.xd[b] = L::xor(s, c);
        }
        st.x_k = 0;
    }
}

/// The register `Z xor K_last` from the base `base` times `x^(8A)`.
#[inline(always)]
unsafe fn delta<L: Lane>(st: &XexState<L>, base: L, a: usize, rev: L, poly: L) -> L {
    // SAFETY: the caller's.
    unsafe {
        let (s, c) = match a {
            0 => (base, L::zero()),
            1 => times_x8_parts::<L, 1, 15>(base, poly),
            2 => times_x8_parts::<L, 2, 14>(base, poly),
            _ => times_x8_parts::<L, 3, 13>(base, poly),
        };
        L::shuffle(L::xor3(s, c, st.rkl), rev)
    }
}

/// XEX's offsets of a batch of `V` registers, the general case (units
/// of a multiple of 4 blocks).
///
/// # Safety
/// As [`offsets`] (`inline(always)`: see `kernel::offsets`).
#[inline(always)]
unsafe fn registers<L: Lane, const V: usize>(job: &Job<'_>, st: &mut XexState<L>, z: &mut [L; V]) {
    // SAFETY: the caller's.
    unsafe {
        let (rev, poly) = (rev::<L>(), poly::<L>());
        for zv in z.iter_mut() {
            if st.x_left == 0 {
                unit_start(job, st, rev, poly);
            } else if st.x_k == STRETCH {
                next_stretch(st, poly);
            }
            let base = match (st.x_k / L::BLOCKS) % (8 / L::BLOCKS) {
                0 => st.xd[0],
                1 => st.xd[1],
                2 => st.xd[2],
                _ => st.xd[3],
            };
            *zv = delta(st, base, st.x_k / 8, rev, poly);
            st.x_k += L::BLOCKS;
            st.x_left = st.x_left.saturating_sub(L::BLOCKS);
        }
    }
}

/// XEX's offsets of a full batch when the units are a multiple of a
/// stretch ([`STRETCH`] blocks): a full batch is one stretch of one unit
/// (zmm) or its first or second half (ymm), each register's place in it
/// known when the loop is unrolled (no bookkeeping per register).
///
/// # Safety
/// As [`offsets`] (`inline(always)`: see `kernel::offsets`).
#[inline(always)]
unsafe fn stretch<L: Lane, const V: usize>(job: &Job<'_>, st: &mut XexState<L>, z: &mut [L; V]) {
    // SAFETY: the caller's.
    unsafe {
        let (rev, poly) = (rev::<L>(), poly::<L>());
        if st.x_left == 0 {
            unit_start(job, st, rev, poly);
        } else if st.x_k == STRETCH {
            next_stretch(st, poly);
        }
        let half = L::BLOCKS < 4 && st.x_k != 0;
        st.x_left -= 8 * L::BLOCKS;
        st.x_k += 8 * L::BLOCKS;
        let nb = 8 / L::BLOCKS;
        if half {
            // The stretch's second half (ymm): 16 blocks, 2 bytes, on.
            for (v, zv) in z.iter_mut().enumerate() {
                *zv = delta(st, st.xd[v % nb], 2 + v / nb, rev, poly);
            }
        } else {
            for (v, zv) in z.iter_mut().enumerate() {
                *zv = delta(st, st.xd[v % nb], v / nb, rev, poly);
            }
        }
    }
}
