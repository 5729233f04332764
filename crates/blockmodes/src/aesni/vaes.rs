//! The VAES-512 parts that only this tier has: XEX over whole data units
//! with the deltas made in registers (`kernel_xex`: its offsets and state,
//! plugged into the lane-generic loop of `kernel.rs` through
//! [`super::lane::Zmm`]), OCB 1.0's mid-size messages in one function
//! (`ocb_mid`), and the GF(2^128) helpers on four lanes the wide-block
//! kernels share.

use core::arch::x86_64::*;

use super::kernel::batch;
use super::lane::{Lane, Zmm};
use super::schedule::{load, store};
use super::{Job, SRC_XEX, SRC_XEX_BARE, SRC_XEX_FREE, SUM_IN, SUM_NONE, SUM_OUT};
use crate::arith::gf128::Block;

/// The XEX kernel's state (`SRC_XEX`), beside the lane-generic loop's.
#[derive(Clone, Copy)]
pub(super) struct XexState {
    /// Four deltas of the current unit's current stretch of 32
    /// blocks, as 128-bit integers (bytes reversed), the blocks left in
    /// the unit and the next unit.
    xd: __m512i,
    /// `xd x^4`: the deltas of the odd registers of a stretch.
    xd4: __m512i,
    /// `K_last` byte-reversed (the deltas are made as 128-bit values and
    /// reversed into blocks with `K_last` already in).
    rkl: __m512i,
    x_left: usize,
    x_unit: usize,
    /// Blocks into the current stretch of 32.
    x_k: usize,
    /// `E_K(N_s)` of the units 0..4 (their nonces' group), made in the
    /// kernel's registers: the first units' offsets wait for no store and
    /// reload of the table (at 512 bytes, the wait for `E_K(N)` through
    /// the table took 21 ns, 88 cycles, in `aesni::bench`).
    en0: __m512i,
}

/// The XEX state at the start of a kernel on the round keys `k` (the
/// direction's): `K_last` reversed, and for [`SRC_XEX`] units 0..4's
/// `E_K(N)` (under the encryption keys whatever the direction).
///
/// # Safety
/// The CPU must have the VAES-512 tier's features (called from its
/// kernels, inlined).
#[inline(always)]
pub(super) unsafe fn xex_init<const NR: usize, const DEC: bool, const SRC: u8>(
    job: &Job<'_>,
    k: &[Zmm; 15],
) -> XexState {
    // SAFETY: the caller's: the CPU has the features.
    unsafe {
        let mut st = XexState {
            xd: _mm512_setzero_si512(),
            xd4: _mm512_setzero_si512(),
            rkl: _mm512_setzero_si512(),
            x_left: 0,
            x_unit: 0,
            x_k: 0,
            en0: _mm512_setzero_si512(),
        };
        if SRC == SRC_XEX || SRC == SRC_XEX_FREE {
            st.rkl = _mm512_shuffle_epi8(k[NR].0, rev_bytes());
        }
        if SRC == SRC_XEX && job.n > 0 {
            let mut ek = k.map(|x| x.0);
            if DEC {
                for (kr, b) in ek.iter_mut().zip(job.enc.iter()).take(NR + 1) {
                    *kr = _mm512_broadcast_i32x4(load(b));
                }
            }
            st.en0 = xex_nonce_regs::<1, NR>(job.unit0, 0, &ek)[0];
        }
        st
    }
}

/// XEX's offsets `Z xor K_last` of a batch of `V` registers ([`SRC_XEX`];
/// [`SRC_XEX_FREE`], the benchmarks' bound: `K_last` alone).
///
/// # Safety
/// As [`xex_init`]; `job.z` as [`kernel_xex`] made it.
#[inline(always)]
pub(super) unsafe fn xex_offsets<const V: usize, const SRC: u8>(
    job: &Job<'_>,
    st: &mut XexState,
    z: &mut [Zmm; V],
) {
    // SAFETY: the caller's.
    unsafe {
        if SRC == SRC_XEX_FREE {
            *z = [Zmm(st.rkl); V];
        } else if V == 8 && job.m.is_multiple_of(BATCH) {
            xex_stretch(job, st, z);
        } else {
            xex_registers(job, st, z);
        }
    }
}

/// Blocks per full batch.
const BATCH: usize = 32;

/// XEX over whole units from unit `job.unit0` (at most [`super::XEX_UNITS`]
/// of them): the units' `E_K(N_s)` first, the nonces `N_s = (unit0 + s)`
/// big-endian made in registers (four per register) and enciphered into a
/// local table (no store of a nonce for the cipher to wait on) from unit 4
/// on, then the units with their deltas made in registers ([`SRC_XEX`]),
/// whose kernel makes units 0..4's `E_K(N)` itself, in registers (no
/// store and reload before the first round); the table is wiped before
/// returning.
///
/// # Safety
/// As `kernel::dispatch` (VAES-512).
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) unsafe fn kernel_xex<const NR: usize, const DEC: bool>(job: &Job<'_>) -> Block {
    // Not zeroed (a 1 KiB memset, a library call, at every call): the
    // kernel reads only the groups of four that `xex_nonces` wrote.
    let mut en = super::Aligned([core::mem::MaybeUninit::<Block>::uninit(); super::XEX_UNITS]);
    let units = job.n.checked_div(job.m).unwrap_or(0).min(super::XEX_UNITS);
    let mut ek = [_mm512_setzero_si512(); 15];
    for (kr, b) in ek.iter_mut().zip(job.enc.iter()).take(NR + 1) {
        *kr = _mm512_broadcast_i32x4(load(b));
    }
    // Groups of up to eight registers (32 nonces), their rounds interleaved.
    let regs = units.div_ceil(4);
    // Group 0 (units 0..4) is made in the kernel's registers (`en0`).
    let mut r0 = if cfg!(test) && job.src_kind == SRC_XEX_BARE {
        regs
    } else {
        1
    };
    while r0 < regs {
        macro_rules! group {
            ($v:literal) => {
                // SAFETY: registers r0 .. r0 + $v hold units below 64.
                unsafe { xex_nonces::<$v, NR>(job.unit0, r0, &ek, en.0.as_mut_ptr().cast()) }
            };
        }
        match regs - r0 {
            1 => group!(1),
            2 => group!(2),
            3 => group!(3),
            4 => group!(4),
            5 => group!(5),
            6 => group!(6),
            7 => group!(7),
            _ => group!(8),
        }
        r0 += 8;
    }
    let mut j = super::Job {
        keys: job.keys,
        src: job.src,
        dst: job.dst,
        n: units * job.m,
        src_kind: SRC_XEX,
        z: en.0.as_ptr().cast(),
        gray: None,
        first: 0,
        w: [0; 16],
        enc: job.enc,
        extra: core::ptr::null_mut(),
        m: job.m,
        unit0: job.unit0,
    };
    // SAFETY: the caller's; `j.z` holds `units` blocks, one per unit.
    let r = unsafe {
        if !cfg!(test) || job.src_kind == SRC_XEX {
            Zmm::kernel::<NR, DEC, SRC_XEX, true, SUM_NONE, true>(&j)
        } else {
            Zmm::kernel::<NR, DEC, SRC_XEX_FREE, true, SUM_NONE, true>(&j)
        }
    };
    j.z = core::ptr::null();
    for c in en.0.chunks_exact_mut(4).take(regs) {
        // SAFETY: four blocks of `en`, 64-byte aligned.
        unsafe { _mm512_store_si512(c.as_mut_ptr().cast(), _mm512_setzero_si512()) };
    }
    core::hint::black_box(&en);
    r
}

/// `E_K(N_s)` into `en[s]` for the units s of registers `r0 .. r0 + V`
/// (four per register), see [`xex_nonce_regs`].
///
/// # Safety
/// `en` valid for `4 (r0 + V)` blocks, 64-byte aligned.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
unsafe fn xex_nonces<const V: usize, const NR: usize>(
    unit0: u128,
    r0: usize,
    ek: &[__m512i; 15],
    en: *mut Block,
) {
    for (r, e) in xex_nonce_regs::<V, NR>(unit0, r0, ek).iter().enumerate() {
        // SAFETY: the caller's: register r0 + r, four blocks of `en`.
        unsafe { _mm512_store_si512(en.add(4 * (r0 + r)).cast(), *e) };
    }
}

/// `E_K(N_s)` for the units s of registers `r0 .. r0 + V` (four per
/// register, lane l of register r the unit `4 (r0 + r) + l`): `N_s =
/// unit0 + s` as a 16-byte big-endian integer, made in registers (a
/// 128-bit sum: the low halves, and a carry into the high half where the
/// low one wrapped).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
fn xex_nonce_regs<const V: usize, const NR: usize>(
    unit0: u128,
    r0: usize,
    ek: &[__m512i; 15],
) -> [__m512i; V] {
    let rev = rev_bytes();
    let (lo, hi) = (unit0 as u64 as i64, (unit0 >> 64) as u64 as i64);
    let base = _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo);
    let lanes = _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0);
    let one = _mm512_set1_epi64(1);
    let mut x = [_mm512_setzero_si512(); V];
    for (r, xr) in x.iter_mut().enumerate() {
        let step = (4 * (r0 + r)) as i64;
        let low = _mm512_add_epi64(lanes, _mm512_maskz_set1_epi64(0x55, step));
        let sum = _mm512_add_epi64(base, low);
        let wrapped = _mm512_cmplt_epu64_mask(sum, base) & 0x55;
        let sum = _mm512_mask_add_epi64(sum, wrapped << 1, sum, one);
        *xr = _mm512_xor_si512(_mm512_shuffle_epi8(sum, rev), ek[0]);
    }
    for kr in &ek[1..NR] {
        for xr in x.iter_mut() {
            *xr = _mm512_aesenc_epi128(*xr, *kr);
        }
    }
    for xr in x.iter_mut() {
        *xr = _mm512_aesenclast_epi128(*xr, ek[NR]);
    }
    x
}

/// `E_K(N_q)` of unit q as a 128-bit value (bytes reversed) in every
/// lane: the aligned 64-byte register of `job.z` that holds it (as
/// `kernel_xex` stored it: a load of the same size and place, which the
/// store forwards to), its lane picked and reversed.
///
/// # Safety
/// As [`xex_offsets`]; `job.z` 64-byte aligned and valid for the four blocks
/// from `4 floor(q / 4)` (`kernel_xex`'s table).
#[inline(always)]
unsafe fn xex_en(job: &Job<'_>, en0: __m512i, q: usize, rev: __m512i) -> __m512i {
    // SAFETY: the caller's.
    unsafe {
        let four = if q < 4 {
            en0
        } else {
            _mm512_load_si512(job.z.add(q & !3).cast())
        };
        let l = (2 * (q & 3)) as i64;
        let idx = _mm512_add_epi64(
            _mm512_set_epi64(1, 0, 1, 0, 1, 0, 1, 0),
            _mm512_set1_epi64(l),
        );
        _mm512_shuffle_epi8(_mm512_permutexvar_epi64(idx, four), rev)
    }
}

/// XEX's offsets `Z xor K_last` of a batch of `V` registers, the general
/// case (units of a multiple of 4 blocks).
///
/// # Safety
/// As [`xex_offsets`] (`inline(always)`: see `kernel::offsets`).
#[inline(always)]
unsafe fn xex_registers<const V: usize>(job: &Job<'_>, st: &mut XexState, z: &mut [Zmm; V]) {
    // SAFETY: the caller's: the CPU has the features; the load of `job.z`
    // is justified where it is.
    unsafe {
        // Z of block j of unit s is E_K(N_s) x^(j+1) (BE), made as 128-bit
        // values (bytes reversed). `xd` holds E_K(N_s) x^(32c + 1 .. 32c + 4)
        // for the unit's current 32-block stretch c and `xd4` the next four;
        // register v of the stretch (k = 4v blocks in) takes `xd` (v even) or
        // `xd4` (v odd) times x^(8 floor(v / 2)): a byte shift and one
        // carry-less multiply for the bytes shifted out (port-5 work, beside
        // the rounds), xored with the reversed K_last in one ternary op and
        // reversed into a block. So z is Z xor K_last, the last round's key
        // as it is, and the first round takes `K0 xor K_last`. The
        // registers of a batch are independent; the only chain is one step
        // of x^32 per stretch. Registers never straddle units (m is a
        // multiple of 4).
        let rev = rev_bytes();
        let poly = _mm512_set1_epi64(0x87);
        for zv in z.iter_mut() {
            if st.x_left == 0 {
                let e = xex_en(job, st.en0, st.x_unit, rev);
                // E x^1, E x^2, E x^3, E x^4 in the four lanes; then x^5..8.
                st.xd = times_x_lanes_clmul::<1>(e, poly);
                st.xd4 = times_x_lanes_clmul::<5>(e, poly);
                st.x_unit += 1;
                st.x_left = job.m;
                st.x_k = 0;
            } else if st.x_k == 32 {
                st.xd = times_x8::<4, 12>(st.xd, poly);
                st.xd4 = times_x8::<4, 12>(st.xd4, poly);
                st.x_k = 0;
            }
            let base = if (st.x_k / 4).is_multiple_of(2) {
                st.xd
            } else {
                st.xd4
            };
            let (s, c) = match st.x_k / 8 {
                0 => (base, _mm512_setzero_si512()),
                1 => times_x8_parts::<1, 15>(base, poly),
                2 => times_x8_parts::<2, 14>(base, poly),
                _ => times_x8_parts::<3, 13>(base, poly),
            };
            *zv = Zmm(_mm512_shuffle_epi8(
                _mm512_ternarylogic_epi64::<0x96>(s, c, st.rkl),
                rev,
            ));
            st.x_k += 4;
            st.x_left = st.x_left.saturating_sub(4);
        }
    }
}

/// XEX's offsets `Z xor K_last` of a full batch when the units are a
/// multiple of 32 blocks.
///
/// # Safety
/// As [`xex_offsets`] (`inline(always)`: see `kernel::offsets`).
#[inline(always)]
unsafe fn xex_stretch<const V: usize>(job: &Job<'_>, st: &mut XexState, z: &mut [Zmm; V]) {
    // SAFETY: the caller's: the CPU has the features; the load of `job.z`
    // is justified where it is.
    unsafe {
        // Units of a multiple of 32 blocks: a full batch is one stretch of
        // one unit (as in `xex_registers`, with the register's place in the
        // stretch known when the loop is unrolled: no bookkeeping per
        // register).
        let rev = rev_bytes();
        let poly = _mm512_set1_epi64(0x87);
        if st.x_left == 0 {
            let e = xex_en(job, st.en0, st.x_unit, rev);
            st.xd = times_x_lanes_clmul::<1>(e, poly);
            st.xd4 = times_x_lanes_clmul::<5>(e, poly);
            st.x_unit += 1;
            st.x_left = job.m;
        } else {
            st.xd = times_x8::<4, 12>(st.xd, poly);
            st.xd4 = times_x8::<4, 12>(st.xd4, poly);
        }
        st.x_left -= BATCH;
        for (v, zv) in z.iter_mut().enumerate() {
            let base = if v.is_multiple_of(2) { st.xd } else { st.xd4 };
            let (s, c) = match v / 2 {
                0 => (base, _mm512_setzero_si512()),
                1 => times_x8_parts::<1, 15>(base, poly),
                2 => times_x8_parts::<2, 14>(base, poly),
                _ => times_x8_parts::<3, 13>(base, poly),
            };
            *zv = Zmm(_mm512_shuffle_epi8(
                _mm512_ternarylogic_epi64::<0x96>(s, c, st.rkl),
                rev,
            ));
        }
    }
}

/// The byte reversal of every 128-bit lane (blocks to 128-bit values, BE).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
fn rev_bytes() -> __m512i {
    _mm512_broadcast_i32x4(_mm_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ))
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

/// `d x^(E + l)` in lane `l` (0..=3), `E + 3 < 64` (lanes as 128-bit
/// integers, BE): by carry-less multiplies only, none of the bit shifts
/// that share the 512-bit AES unit's port: with `d = hi x^64 + lo`,
/// `lo x^k` is one product (a 128-bit result), `H = hi x^k` another, and
/// `H x^64 = H_lo x^64 + H_hi (x^7 + x^2 + x + 1)` (a byte shift and a
/// third product).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x_lanes_clmul<const E: i64>(d: __m512i, poly: __m512i) -> __m512i {
    let xk = _mm512_set_epi64(0, 1 << (E + 3), 0, 1 << (E + 2), 0, 1 << (E + 1), 0, 1 << E);
    let low = _mm512_clmulepi64_epi128::<0x00>(d, xk); // lo x^k
    let high = _mm512_clmulepi64_epi128::<0x01>(d, xk); // H = hi x^k
    let folded = _mm512_clmulepi64_epi128::<0x01>(high, poly); // H_hi (x^7 + x^2 + x + 1)
    _mm512_ternarylogic_epi64::<0x96>(low, _mm512_bslli_epi128::<8>(high), folded)
}

/// `d x^(E + l)` in lane `l` (0..=3), `E + 3 < 64`, as [`times_x`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x_lanes<const E: i64>(d: __m512i, poly: __m512i) -> __m512i {
    let kl = _mm512_add_epi64(
        _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0),
        _mm512_set1_epi64(E),
    );
    let kr = _mm512_sub_epi64(_mm512_set1_epi64(64), kl);
    let up = _mm512_bslli_epi128::<8>(d);
    let shifted = _mm512_or_si512(_mm512_sllv_epi64(d, kl), _mm512_srlv_epi64(up, kr));
    let top = _mm512_srlv_epi64(_mm512_bsrli_epi128::<8>(d), kr);
    _mm512_xor_si512(shifted, _mm512_clmulepi64_epi128::<0x00>(top, poly))
}

/// The two parts of `v x^(8A)` per lane (128-bit values, `A` <= 4
/// bytes): `v` shifted up by `A` bytes, and the `A` bytes shifted out (at
/// most 32 bits) times `x^7 + x^2 + x + 1`, to be xored together (with
/// whatever else in the same ternary op). Byte shifts and the carry-less
/// multiply: port-5 work.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x8_parts<const A: i32, const R: i32>(
    v: __m512i,
    poly: __m512i,
) -> (__m512i, __m512i) {
    let shifted = _mm512_bslli_epi128::<A>(v);
    let out = _mm512_bsrli_epi128::<R>(v);
    (shifted, _mm512_clmulepi64_epi128::<0x00>(out, poly))
}

/// `v x^(8A)` per lane (see [`times_x8_parts`]; `R = 16 - A`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x8<const A: i32, const R: i32>(v: __m512i, poly: __m512i) -> __m512i {
    let (s, c) = times_x8_parts::<A, R>(v, poly);
    _mm512_xor_si512(s, c)
}

/// OCB 1.0's blocks of a mid-size message in one function: as
/// [`super::xmm::whiten_sum_short`] for `n` blocks, `4 (A + B - 1) < n <=
/// 4 (A + B)`, all in the first Gray-code group (`Z[i] = gamma_i L xor R`
/// for `i = 1 ..= n <= 63`, from `low`, the table's entries `1..`): a
/// batch of `A` registers, then one of `B` (the last register masked),
/// `Y[m] = E_K(extra)` under the encryption keys `enc` on an xmm register
/// beside them; the keys broadcast from `keys` in place (no job, no
/// dispatch, no group walk). Returns the sum of the `M[i]` (the inputs,
/// or with `DEC` the outputs).
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW and VAES; `src` and `dst` valid
/// for `n` blocks (equal or disjoint), `low` for `4 (A + B)`.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn ocb_mid<const NR: usize, const DEC: bool, const A: usize, const B: usize>(
    keys: &[Block; 15],
    enc: &[Block; 15],
    src: *const Block,
    dst: *mut Block,
    n: usize,
    low: *const Block,
    r: &Block,
    extra: &mut Block,
) -> Block {
    // SAFETY: this function has the VAES-512 tier's features (those of the
    // lane operations); pointer accesses are justified where they are.
    unsafe {
        let mut k = [Zmm::zero(); 15];
        for (kr, b) in k.iter_mut().zip(keys.iter()).take(NR + 1) {
            *kr = Zmm::broadcast(load(b));
        }
        let rb = Zmm::broadcast(load(r));
        let last = n - 4 * (A + B - 1); // 1 ..= 4 blocks in the last register
        let mut acc = Zmm::zero();
        // SAFETY: `low` holds 4 (A + B) blocks.
        let za: [Zmm; A] = core::array::from_fn(|v| Zmm::xor(Zmm::load(low.add(4 * v)), rb));
        let y_m = super::xmm::encrypt_one::<NR>(enc, extra);
        let (mut ex, ek) = (_mm_setzero_si128(), [_mm_setzero_si128(); 15]);
        // SAFETY: blocks 0 .. 4A are below n when B > 0; else the last
        // register holds `last` of them, the only ones it touches.
        let part_a = if B == 0 { last } else { 4 };
        let kk = (k[0], k[NR]);
        if DEC {
            batch::<Zmm, A, NR, true, true, SUM_OUT, true, false>(
                &k,
                src,
                dst,
                part_a,
                (&za, kk.0, kk.1),
                &mut acc,
                (&mut ex, &ek),
            );
        } else {
            batch::<Zmm, A, NR, false, true, SUM_IN, true, false>(
                &k,
                src,
                dst,
                part_a,
                (&za, kk.0, kk.1),
                &mut acc,
                (&mut ex, &ek),
            );
        }
        if B > 0 {
            // SAFETY: `low` holds 4 (A + B) blocks.
            let zb: [Zmm; B] =
                core::array::from_fn(|v| Zmm::xor(Zmm::load(low.add(4 * (A + v))), rb));
            let (s, d) = (src.wrapping_add(4 * A), dst.wrapping_add(4 * A));
            // SAFETY: blocks 4A .. n are valid; the last register holds
            // `last` of them, the only ones it touches.
            if DEC {
                batch::<Zmm, B, NR, true, true, SUM_OUT, true, false>(
                    &k,
                    s,
                    d,
                    last,
                    (&zb, kk.0, kk.1),
                    &mut acc,
                    (&mut ex, &ek),
                );
            } else {
                batch::<Zmm, B, NR, false, true, SUM_IN, true, false>(
                    &k,
                    s,
                    d,
                    last,
                    (&zb, kk.0, kk.1),
                    &mut acc,
                    (&mut ex, &ek),
                );
            }
        }
        *extra = y_m;
        store(Zmm::fold(acc))
    }
}

/// The xor of a register's four blocks (an accumulator's lanes folded into
/// one sum).
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn xor_lanes(v: __m512i) -> __m128i {
    _mm_xor_si128(
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<0>(v),
            _mm512_extracti32x4_epi32::<1>(v),
        ),
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(v),
            _mm512_extracti32x4_epi32::<3>(v),
        ),
    )
}
