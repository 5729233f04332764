//! EME2 on the fused AES kernels (x86-64 with AES-NI, aarch64 with the
//! ARMv8 AES instructions; see `crate::backend`), with EME's kernels
//! (`aesni::wide`, `armv8::wide`) run by runs of up to 128 blocks:
//!
//! * `T*`: the associated data's blocks through one `sigma` call per 64
//!   blocks (`E(A_j xor Δ_j)` summed in registers, the Δs xored in after);
//! * the first pass, one kernel call per run k: `PPP_i = E(P_i xor L_i)`
//!   (`L_i = 2^i K_ECB` from the per-key table for the first 256 blocks,
//!   made per call for runs beyond) and the run's sum `SP_k`;
//! * the middle on single blocks (`MP`, `MM`, `MC`, `M`), then per run
//!   k >= 1 its fresh mixing value (`MC_k = E(PPP_{128k} xor M_1)`, `M_k`,
//!   `CCC_{128k}`) and the sum of the run's `CCC_i` as `CCC_{128k} xor
//!   (SP_k xor PPP_{128k}) xor M_k (x + ... + x^(len - 1))`, one carry-less
//!   multiplication: the run's last pass follows at once;
//! * the last pass of run 0 once `CCC_0` is known, one kernel call: `C_i =
//!   E(CCC_i) xor L_i`, the `CCC_i = PPP_i xor M_k x^j` made in the kernel
//!   (block 0 of run k holds `CCC_{128k} xor M_k`, so it fits the rule).
//!
//! Everything secret (the Δs, sums, MP, MM, MC, the M_k, the CCC sums) is
//! wiped after use.

use crate::arith::gf128::{Block, double_le, powers_x_le, xor};
use crate::backend::AesKey;
use crate::disk::simd::Clmul;
use crate::disk::units::wipe;
use crate::engine::{Dir, Io, Offsets};

use crate::disk::eme::fused::times_sum;

/// Blocks per run (a fresh mixing value every 128 blocks).
const RUN: usize = 128;

/// Runs whose first-pass sums are kept (64 KiB, the sector interface's
/// largest unit); the sum of a run past these is recomputed from its
/// blocks.
const KEPT: usize = 32;

/// `L_i = 2^i K_ECB` for the first two runs, per key.
pub(super) type Table = [Block; 2 * RUN];

/// The per-key table of `k_ecb`.
pub(super) fn table(k_ecb: &Block) -> Table {
    let mut t = [[0u8; 16]; 2 * RUN];
    powers_x_le(k_ecb, &mut t);
    t
}

/// `T*` of the associated data `ad` (forward cipher whatever the
/// direction): `E(K_AD)` if `ad` is empty, else `xor_j E(A_j xor Δ_j) xor
/// Δ_j` with `Δ_j = 2^j K_AD` (one more doubling for a padded last block).
pub(super) fn t_star(key: &AesKey, k_ad: &Block, ad: &[u8]) -> Block {
    if ad.is_empty() {
        return key.encrypt_block(k_ad);
    }
    // Inputs and deltas of up to 64 blocks at a time: secrets, wiped.
    let mut buf = [[0u8; 16]; 128];
    let (a, d) = buf.split_at_mut(64);
    let mut next = double_le(k_ad);
    let mut t = [0u8; 16];
    for chunk in ad.chunks(64 * 16) {
        let n = chunk.len().div_ceil(16);
        powers_x_le(&next, &mut d[..n]);
        next = double_le(&d[n - 1]);
        for ((ab, db), c) in a.iter_mut().zip(d.iter_mut()).zip(chunk.chunks(16)) {
            if c.len() < 16 {
                // A padded last block takes one more doubling.
                *db = double_le(db);
                *ab = super::pad(c);
            } else {
                ab.copy_from_slice(c);
            }
            t = xor(&t, db);
        }
        t = xor(&t, &key.sigma(Offsets::Slice(&d[..n]), &a[..n]));
    }
    wipe(&mut buf);
    wipe(core::slice::from_mut(&mut next));
    t
}

/// G (`E_K` or `E_K^-1`) on one block.
fn g(key: &AesKey, dir: Dir, b: &Block) -> Block {
    match dir {
        Dir::Encrypt => key.encrypt_block(b),
        Dir::Decrypt => key.decrypt_block(b),
    }
}

/// Run k's table `2^(128k + j) K_ECB`: the per-key one for k < 2, else
/// made in `scratch`, which must hold run k - 1's (runs are visited in
/// order).
fn run_table<'a>(l: &'a Table, k: usize, scratch: &'a mut [Block; RUN]) -> &'a [Block] {
    if k < 2 {
        return &l[k * RUN..(k + 1) * RUN];
    }
    let prev = if k == 2 {
        l[2 * RUN - 1]
    } else {
        scratch[RUN - 1]
    };
    powers_x_le(&double_le(&prev), scratch);
    scratch
}

/// EME2 on `data` (at least 16 bytes) in the direction `dir`, with `T*`
/// already computed: as `eme2::eme2`.
pub(super) fn eme2(key: &AesKey, l: &Table, dir: Dir, t_star: &Block, data: &mut [u8]) {
    let (blocks, tail) = data.as_chunks_mut::<16>();
    let long = blocks.len() > 2 * RUN;
    let clmul = Clmul::detect();
    let mut scratch = [[0u8; 16]; RUN];
    // The secrets of the middle, wiped together.
    let mut s = [[0u8; 16]; 11];
    let [sp, mp, mm, mc, m1, ccc_sum, rest, mk, mp_k, mc_k, ccc_k] = &mut s;
    let mut sums = [[0u8; 16]; KEPT];
    // First pass, run by run.
    for (k, run) in blocks.chunks_mut(RUN).enumerate() {
        let sk = key.wide_first(dir, run_table(l, k, &mut scratch), Io::InPlace(run));
        if let Some(slot) = sums.get_mut(k) {
            *slot = sk;
        }
        *sp = xor(sp, &sk);
    }
    *mp = xor(sp, t_star);
    if tail.is_empty() {
        *mc = g(key, dir, mp);
    } else {
        *mp = xor(mp, &super::pad(tail));
        *mm = g(key, dir, mp);
        *mc = g(key, dir, mm);
    }
    *m1 = xor(mp, mc);
    *ccc_sum = *mc;
    // The runs' mixing values and sums; every run's last pass but run 0's.
    let mut run0: Option<&mut [Block]> = None;
    for (k, run) in blocks.chunks_mut(RUN).enumerate() {
        let len = run.len();
        // SP_k xor PPP_{128k}: the run's sum without its first block.
        let sk = match sums.get(k) {
            Some(x) => *x,
            None => run.iter().fold([0u8; 16], |a, b| xor(&a, b)),
        };
        *rest = xor(&sk, &run[0]);
        if k == 0 {
            *ccc_sum = xor(ccc_sum, &xor(rest, &times_sum(clmul, m1, len)));
            run0 = Some(run);
            continue;
        }
        // A fresh mixing value: MP_k = PPP_{128k} xor M_1, MC_k = G(MP_k),
        // M_k = MP_k xor MC_k, CCC_{128k} = MC_k xor M_1.
        *mp_k = xor(&run[0], m1);
        *mc_k = g(key, dir, mp_k);
        *mk = xor(mp_k, mc_k);
        *ccc_k = xor(mc_k, m1);
        *rest = xor(rest, &times_sum(clmul, mk, len));
        *ccc_sum = xor(ccc_sum, &xor(ccc_k, rest));
        run[0] = xor(ccc_k, mk);
        key.wide_last(dir, mk, run_table(l, k, &mut scratch), Io::InPlace(run));
    }
    // C* = P* xor MM[..r]; CCC_0 = (the sum) xor pad(C*) xor T*.
    if !tail.is_empty() {
        for (c, k) in tail.iter_mut().zip(mm.iter()) {
            *c ^= k;
        }
        *ccc_sum = xor(ccc_sum, &super::pad(tail));
    }
    if let Some(run) = run0 {
        run[0] = xor(&xor(ccc_sum, t_star), m1);
        key.wide_last(dir, m1, &l[..RUN], Io::InPlace(run));
    }
    wipe(&mut s);
    wipe(&mut sums);
    if long {
        wipe(&mut scratch);
    }
}
