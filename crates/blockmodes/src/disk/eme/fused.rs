//! EME on the fused AES kernels (x86-64 with AES-NI, aarch64 with the ARMv8
//! AES instructions; see `crate::backend`), for EME-AES and for EtE (EME
//! over StE[XEX-AES-128], the ECB layer inside the same kernels).
//!
//! Per data unit of m blocks under the tweak T:
//! * the first pass, one kernel call: `PPP_j = G(P_j xor L_j)` and their
//!   sum `SP`, the whitening in the first round;
//! * the middle, on one block: `MP = SP xor T`, `MC = G(MP)`, `M = MP xor
//!   MC`, and `CCC_1 = MC xor T xor CCC_2 xor ... xor CCC_m`, where the sum
//!   of the other `CCC_j = PPP_j xor 2^(j-1) M` is `(SP xor PPP_1) xor
//!   M (x + ... + x^(m-1))` (one carry-less multiplication);
//! * the last pass, one kernel call: `C_j = G(CCC_j) xor L_j`, the
//!   `CCC_j` made in the kernel from `PPP_j` and the powers `M x^(j-1)`
//!   (block 1 holds `CCC_1 xor M`, so it fits the same rule) and `L_j`
//!   folded into the last round's key.
//!
//! Units are pipelined: unit s's first pass and middle run before unit
//! s - 1's last pass, so the middle's serial block (a cipher call's
//! latency) overlaps the rounds of a pass instead of waiting for them.
//! On x86-64 two or more units run inside one kernel call per 32 units
//! (`AesKey::wide_units`, `SteXex::units`): the round keys, the swap's
//! constants and the pass set-up once per call, not twice per unit, and
//! the middle inlined (no call that saves the vector registers). The
//! armv8 tier (`armv8/wide.rs`) has the two passes only: the middle runs
//! here, its product on `PMULL` (`Clmul`).
//!
//! Everything secret (SP, MP, MC, M, CCC_1) is wiped after use.

use crate::arith::gf128::{Block, double_le, xor};
use crate::backend::{AesKey, SteXex};
use crate::disk::simd::Clmul;
use crate::disk::units::wipe;
use crate::engine::{Dir, Io};

use super::x_sums;

/// EME's block cipher G on the fused kernels.
#[derive(Clone, Copy)]
pub(super) enum Cipher<'a> {
    /// EME-AES: G = E_K.
    Aes(&'a AesKey),
    /// EtE: G = `StE[XEX]`'s `F(K, γ2, .)`, with the ECB layer
    /// `F(K, γ1, .)` in the first pass (enciphering) or the last
    /// (deciphering).
    Ete(&'a SteXex),
}

impl Cipher<'_> {
    fn first(self, dir: Dir, l: &[Block], unit: &mut [Block]) -> Block {
        match self {
            Cipher::Aes(k) => k.wide_first(dir, l, Io::InPlace(unit)),
            Cipher::Ete(s) => s.first(dir, l, Io::InPlace(unit)),
        }
    }

    fn last(self, dir: Dir, m: &Block, l: &[Block], unit: &mut [Block]) {
        match self {
            Cipher::Aes(k) => k.wide_last(dir, m, l, Io::InPlace(unit)),
            Cipher::Ete(s) => s.last(dir, m, l, Io::InPlace(unit)),
        }
    }

    /// The first pass and the middle in one kernel call (`None` where the
    /// CPU has no carry-less multiplication).
    fn first_mid(
        self,
        dir: Dir,
        l: &[Block],
        tweak: &Block,
        s_m: &Block,
        unit: &mut [Block],
    ) -> Option<Block> {
        match self {
            Cipher::Aes(k) => k.wide_first_mid(dir, l, tweak, s_m, unit),
            Cipher::Ete(s) => s.first_mid(dir, l, tweak, s_m, unit),
        }
    }

    /// Whole units of `m` blocks, unit s under `tweaks[s]`, in one kernel
    /// call (`false`, doing nothing, where the kernels cannot: then
    /// [`first_and_middle`] and [`Cipher::last`]).
    fn units(
        self,
        dir: Dir,
        l: &[Block],
        m: usize,
        blocks: &mut [Block],
        tweaks: &[Block],
    ) -> bool {
        let s_m = &x_sums()[m - 1];
        match self {
            Cipher::Aes(k) => k.wide_units(dir, l, s_m, m, blocks, tweaks),
            Cipher::Ete(s) => s.units(dir, l, s_m, m, blocks, tweaks),
        }
    }

    /// G (or G^-1) on one block: the middle's MC.
    fn block(self, dir: Dir, b: &Block) -> Block {
        match (self, dir) {
            (Cipher::Aes(k), Dir::Encrypt) => k.encrypt_block(b),
            (Cipher::Aes(k), Dir::Decrypt) => k.decrypt_block(b),
            (Cipher::Ete(s), _) => s.wide_block(dir, b),
        }
    }
}

/// `m (x + x^2 + ... + x^(count - 1))` (LE): one carry-less multiplication
/// by the precomputed sum where the CPU has PCLMULQDQ (`clmul`), else by
/// Horner's rule (count - 1 doublings, 3-5x slower for EME2).
pub(in crate::disk) fn times_sum(clmul: Option<Clmul>, m: &Block, count: usize) -> Block {
    if let Some(clmul) = clmul {
        return clmul.mul_le(m, &x_sums()[count - 1]);
    }
    let mut acc = [0u8; 16];
    for _ in 1..count {
        acc = double_le(&xor(&acc, m));
    }
    acc
}

/// The first pass and the middle of one unit under `tweak`: afterwards
/// `unit` holds `CCC_1 xor M, PPP_2, ..., PPP_m`, ready for the last pass
/// with the powers of the returned M. In one kernel call where the CPU
/// has carry-less multiplication (the middle in registers), else the
/// middle here.
#[inline(always)]
fn first_and_middle(
    g: Cipher<'_>,
    l: &[Block],
    (clmul, in_kernel): (Option<Clmul>, bool),
    dir: Dir,
    tweak: &Block,
    unit: &mut [Block],
) -> Block {
    if in_kernel && let Some(big_m) = g.first_mid(dir, l, tweak, &x_sums()[unit.len() - 1], unit) {
        return big_m;
    }
    // The secrets of the middle, wiped together (whole-block stores).
    let mut s = [[0u8; 16]; 5];
    let [sp, mp, mc, rest, ccc1] = &mut s;
    *sp = g.first(dir, l, unit);
    *mp = xor(sp, tweak);
    *mc = g.block(dir, mp);
    let big_m = xor(mp, mc);
    // CCC_2 xor ... xor CCC_m = (SP xor PPP_1) xor M (x + ... + x^(m-1)).
    *rest = times_sum(clmul, &big_m, unit.len());
    *ccc1 = xor(&xor(mc, tweak), &xor(&xor(sp, &unit[0]), rest));
    unit[0] = xor(ccc1, &big_m);
    wipe(&mut s);
    big_m
}

/// EME over `blocks`, whole units of `m` blocks (1 ..= 128), unit s under
/// the tweak `tweak(s)`, in the direction `dir`; `l` is the key's table
/// `L_j` (at least m entries).
pub(super) fn units(
    g: Cipher<'_>,
    l: &[Block],
    dir: Dir,
    m: usize,
    blocks: &mut [Block],
    tweak: impl Fn(usize) -> Block,
) {
    units_with(g, l, (Clmul::detect(), true), dir, m, blocks, tweak)
}

/// As [`units`]; `in_kernel: false` makes the middle here even where the
/// kernel could (the tests' way to check this path on any CPU).
fn units_with(
    g: Cipher<'_>,
    l: &[Block],
    (clmul, in_kernel): (Option<Clmul>, bool),
    dir: Dir,
    m: usize,
    blocks: &mut [Block],
    tweak: impl Fn(usize) -> Block,
) {
    let l = &l[..m.min(l.len())];
    if in_kernel && kernel_units(g, l, dir, m, blocks, &tweak) {
        return;
    }
    let mut pending: Option<(&mut [Block], Block)> = None;
    for (s, unit) in blocks.chunks_exact_mut(m).enumerate() {
        let big_m = first_and_middle(g, l, (clmul, in_kernel), dir, &tweak(s), unit);
        if let Some((prev, mut pm)) = pending.take() {
            g.last(dir, &pm, l, prev);
            wipe(core::slice::from_mut(&mut pm));
        }
        pending = Some((unit, big_m));
    }
    if let Some((prev, mut pm)) = pending {
        g.last(dir, &pm, l, prev);
        wipe(core::slice::from_mut(&mut pm));
    }
}

/// Units per kernel call of [`kernel_units`] (their tweaks on the stack).
const UNITS_PER_CALL: usize = 32;

/// Two or more units through [`Cipher::units`], [`UNITS_PER_CALL`] per
/// kernel call; `false`, doing nothing, for a single unit (no pipelining to
/// gain: [`first_and_middle`] and the last pass) or where the kernels
/// cannot run them.
fn kernel_units(
    g: Cipher<'_>,
    l: &[Block],
    dir: Dir,
    m: usize,
    blocks: &mut [Block],
    tweak: &impl Fn(usize) -> Block,
) -> bool {
    let count = blocks.len() / m;
    if count < 2 {
        return false;
    }
    let mut tweaks = [[0u8; 16]; UNITS_PER_CALL];
    for (c, chunk) in blocks[..count * m]
        .chunks_mut(UNITS_PER_CALL * m)
        .enumerate()
    {
        let units = chunk.len() / m;
        for (i, t) in tweaks[..units].iter_mut().enumerate() {
            *t = tweak(c * UNITS_PER_CALL + i);
        }
        // The conditions are the same for every chunk: only the first can
        // refuse, before anything was touched.
        if !g.units(dir, l, m, chunk, &tweaks[..units]) {
            return false;
        }
    }
    true
}

/// EtE[EME, StE[XEX-AES-128]] on the fused kernels: StE over XEX with
/// its two tweaks ([`SteXex`]: K, H, the deltas of γ1 and γ2 and the AES
/// key) and EME's table `L_j` over `F(K, γ2, .)`, a copy kept per key (it
/// is secret: wiped on drop). Built only by `EteEmeAes128::new_from_slice`
/// (`crate::ete`) from a StE whose XEX runs on the fused kernels.
#[derive(Clone)]
pub(in crate::disk) struct Ete {
    ste: SteXex,
    l: [Block; 128],
}

impl Ete {
    /// The fused EtE of the StE `f` (whose inner XEX has the fused key `key`),
    /// with `Δ_1`, `Δ_2` of the tweaks γ1 and γ2 and EME's table `l`; `None`
    /// where the kernels cannot run it.
    pub(in crate::disk) fn new(
        key: &AesKey,
        (k, h): (&Block, &Block),
        (d1, d2): (&Block, &Block),
        l: &[Block; 128],
    ) -> Option<Self> {
        Some(Self {
            ste: SteXex::new(key, k, h, d1, d2)?,
            l: *l,
        })
    }

    /// Whole units of `m` blocks (1 ..= 128), unit s under `tweak(s)`.
    pub(in crate::disk) fn units(
        &self,
        dir: Dir,
        m: usize,
        blocks: &mut [Block],
        tweak: impl Fn(usize) -> Block,
    ) {
        units(Cipher::Ete(&self.ste), &self.l, dir, m, blocks, tweak)
    }
}

impl Drop for Ete {
    fn drop(&mut self) {
        wipe(&mut self.l);
    }
}

// The kernels exist on the engine's architectures only.
#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use super::*;
    use crate::arith::gf128::powers_x_le;

    /// The middle made here (either product: the carry-less one and
    /// Horner's rule) gives what the kernel's does, for EME-AES and EtE,
    /// every unit length, both directions.
    #[test]
    fn the_middle_here_matches_the_kernels() {
        let Some(key) = AesKey::new(&[0x3c; 16]) else {
            return;
        };
        let b = |i: u8| [i.wrapping_mul(37) ^ 0x5a; 16];
        let ste = SteXex::new(&key, &b(1), &b(2), &b(3), &b(4)).expect("AES-128");
        let mut l = [[0u8; 16]; 128];
        powers_x_le(&b(5), &mut l);
        for g in [Cipher::Aes(&key), Cipher::Ete(&ste)] {
            for m in 1..=128usize {
                let data: Vec<Block> = (0..3 * m).map(|i| b(i as u8 ^ 0x11)).collect();
                for dir in [Dir::Encrypt, Dir::Decrypt] {
                    let tweak = |s: usize| b(s as u8 + 7);
                    let mut want = data.clone();
                    units_with(g, &l, (Clmul::detect(), true), dir, m, &mut want, tweak);
                    for clmul in [Clmul::detect(), None] {
                        let mut got = data.clone();
                        units_with(g, &l, (clmul, false), dir, m, &mut got, tweak);
                        assert_eq!(got, want, "m {m} {dir:?} clmul {}", clmul.is_some());
                    }
                }
            }
        }
    }
}
