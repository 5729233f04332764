//! The passes of the wide-block modes on the fused kernels: EME, EME2, and
//! EtE (EME over `StE[XEX]`, with EtE's ECB layer inside the same kernel).
//!
//! EME over a block cipher G enciphers a data unit in two ECB passes with a
//! serial block between them (`docs/spec/disk.md`):
//! * the first pass, [`AesKey::wide_first`]: `out[j] = G(in[j] xor l[j])`,
//!   returning the xor of the outputs (EME's `PPP_j` and their sum);
//! * the last pass, [`AesKey::wide_last`]: `out[j] = G(in[j] xor M x^j) xor
//!   l[j]`, with `M x^j` in the LE convention (EME's `CCC_j` mixing and the
//!   post-whitening `L_j`).
//!
//! `l` is the caller's per-key table (EME's `L_j = 2^(j-1) L`, EME2's
//! `2^j K_ECB`): one load per register, the pre-whitening folded into the
//! first round (a 3-way xor with K0: `vpternlogq` on VAES-512) and the
//! post-whitening into the last round's key. The powers `M x^j` are made
//! in registers (`wide_kernel.rs`: on the vector lanes a few bases per
//! batch, register v a base times `x^(8a)`, a byte shift and one
//! carry-less multiply for the bytes shifted out, port-5 work beside the
//! rounds; on AES-NI one doubling per block).
//!
//! For EtE, G is StE over XEX-AES-128 ([`SteXex`]):
//! `F_i(x) = E(sw(x) xor Δ_i) xor Δ_i` and `F_i^-1(c) = sw(E^-1(c xor Δ_i)
//! xor Δ_i)`, `sw` the constant-time swap of K and H; Δ_i is folded into the
//! first and last round keys, the swap is four compares' worth of vector
//! logic per register (no branch, no table index). EtE's ECB layer `F_1`
//! rides in the first pass when enciphering (`PPP_j = F_2(F_1(P_j) xor
//! L_j)`: two ciphers per block in one round loop) and `F_1^-1` in the last
//! pass when deciphering.
//!
//! One call is one data unit (EME) or one run of up to 128 blocks (EME2):
//! the block index j of the table and of the powers starts at 0 with the
//! call. [`AesKey::wide_units`] and [`SteXex::units`] run whole EME (EtE)
//! units, several per call: the keys and constants set up once, each
//! unit's first pass and middle, then the previous unit's last pass. Any number of blocks, no padding (a partial last register touches
//! its blocks only). The kernel is written once for every lane width
//! (`wide_kernel.rs`) and runs on the key's tier (the AES-NI lane under
//! [`XMM_BELOW`] blocks).

use super::lane::{Xmm, Ymm, Zmm};
use super::wide_kernel::{self, Pass, WideJob};
use super::{AesKey, Dir, Io, Level, XMM_BELOW};
use crate::arith::gf128::Block;
use crate::engine::SteKey;

/// A zero block, for the keys and swap points of a plain pass.
static ZERO: Block = [0; 16];

impl AesKey {
    /// EME's first pass over one unit (or run) with G = E_K (`Dir::Encrypt`)
    /// or E_K^-1: `out[j] = G(in[j] xor l[j])`; returns the xor of the
    /// outputs. Processes `min(io's blocks, l.len())` blocks.
    pub(crate) fn wide_first(&self, dir: Dir, l: &[Block], io: Io<'_, '_>) -> Block {
        let job = self.wide_job(dir, io, l, &ZERO);
        self.wide_run(dir, Pass::First, &job)
    }

    /// EME's first pass and middle over one unit of `n = unit.len()`
    /// blocks (1 ..= `l.len()`) under `tweak`, G = E_K or E_K^-1: `PPP_j =
    /// G(P_j xor l[j])`, `MP = PPP_1 xor ... xor PPP_n xor T`, `MC =
    /// G(MP)`, `M = MP xor MC`, `CCC_1 = MC xor T xor PPP_2 xor ... xor
    /// PPP_n xor M s_m` (`s_m = x + ... + x^(n-1)`: the powers of M that
    /// the last pass adds to blocks 2..n); `unit` then holds `CCC_1 xor M,
    /// PPP_2, ..., PPP_n` (the last pass adds `M x^0` to block 1 too) and M
    /// is returned, all in registers after the pass. `None`, doing
    /// nothing, if the unit is empty or longer than `l`, or the CPU has no
    /// carry-less multiplication.
    pub(crate) fn wide_first_mid(
        &self,
        dir: Dir,
        l: &[Block],
        tweak: &Block,
        s_m: &Block,
        unit: &mut [Block],
    ) -> Option<Block> {
        let n = unit.len();
        if n == 0 || n > l.len() || !self.has_clmul() {
            return None;
        }
        let mut job = self.wide_job(dir, Io::InPlace(unit), l, &ZERO);
        (job.tweak, job.s_m) = (tweak, s_m);
        Some(self.wide_run(dir, Pass::FirstMid, &job))
    }

    /// EME over `tweaks.len()` consecutive units of `m` blocks in `blocks`
    /// (in place), unit s under `tweaks[s]`, G = E_K or E_K^-1: each
    /// unit's first pass and middle as [`AesKey::wide_first_mid`], then its
    /// last pass as [`AesKey::wide_last`] with the M returned, all in one
    /// kernel call (the keys set up once; a unit's middle runs before the
    /// previous unit's last pass). `s_m = x + ... + x^(m-1)`. `false`,
    /// doing nothing, if `m` is 0 or longer than `l`, `blocks` is not
    /// `tweaks.len()` units, or the CPU has no carry-less multiplication.
    pub(crate) fn wide_units(
        &self,
        dir: Dir,
        l: &[Block],
        s_m: &Block,
        m: usize,
        blocks: &mut [Block],
        tweaks: &[Block],
    ) -> bool {
        if !self.units_fit(l, m, blocks, tweaks) {
            return false;
        }
        let mut job = self.wide_job(dir, Io::InPlace(blocks), l, &ZERO);
        (job.n, job.s_m) = (m, s_m);
        match self.rounds {
            10 => self.wide_units_on::<10, false>(dir, &job, tweaks),
            12 => self.wide_units_on::<12, false>(dir, &job, tweaks),
            _ => self.wide_units_on::<14, false>(dir, &job, tweaks),
        }
        true
    }

    /// Whether the units kernel takes `blocks` as `tweaks.len()` units of
    /// `m` blocks under the table `l` ([`AesKey::wide_units`]'s
    /// conditions).
    fn units_fit(&self, l: &[Block], m: usize, blocks: &[Block], tweaks: &[Block]) -> bool {
        m != 0 && m <= l.len() && blocks.len() == m * tweaks.len() && self.has_clmul()
    }

    /// The units kernel on `job` (`job.n = m` blocks a unit, in place over
    /// `tweaks.len()` units, [`units_fit`](Self::units_fit) checked), on
    /// the lane of this key's level for `m`; `NR` is the key's round count
    /// (`STE`: EtE's passes, 10 rounds).
    fn wide_units_on<const NR: usize, const STE: bool>(
        &self,
        dir: Dir,
        job: &WideJob<'_>,
        tweaks: &[Block],
    ) {
        debug_assert_eq!(NR, self.rounds);
        match self.wide_level(job.n) {
            // SAFETY: the level is at most what `detect` found; PCLMULQDQ
            // (`has_clmul`, by `units_fit`); in place, the job's blocks are
            // `tweaks.len()` units of `job.n >= 1` blocks and its table at
            // least `job.n` (`units_fit`); `NR` is the key's round count.
            Level::Vaes512 => unsafe {
                wide_kernel::dispatch_units::<Zmm, NR, STE>(dir, job, tweaks)
            },
            // SAFETY: as above.
            Level::Vaes256 => unsafe {
                wide_kernel::dispatch_units::<Ymm, NR, STE>(dir, job, tweaks)
            },
            // SAFETY: as above.
            Level::AesNi => unsafe {
                wide_kernel::dispatch_units::<Xmm, NR, STE>(dir, job, tweaks)
            },
        }
    }

    /// Whether the middle's carry-less multiplication runs here.
    fn has_clmul(&self) -> bool {
        self.level >= Level::Vaes256 || super::cpu_clmul::get()
    }

    /// EME's last pass over one unit (or run) with G = E_K or E_K^-1:
    /// `out[j] = G(in[j] xor m x^j) xor l[j]` (LE powers of `m`).
    pub(crate) fn wide_last(&self, dir: Dir, m: &Block, l: &[Block], io: Io<'_, '_>) {
        let job = self.wide_job(dir, io, l, m);
        self.wide_run(dir, Pass::Last, &job);
    }

    fn wide_job<'a>(&'a self, dir: Dir, io: Io<'_, '_>, l: &[Block], m: &'a Block) -> WideJob<'a> {
        let (src, dst, n) = io.raw();
        let keys = match dir {
            Dir::Encrypt => &self.enc.k.0,
            Dir::Decrypt => &self.dec.k.0,
        };
        WideJob {
            keys,
            src,
            dst,
            n: n.min(l.len()),
            l: l.as_ptr(),
            m,
            k0: &keys[0],
            kl: &keys[self.rounds],
            k0_ecb: &keys[0],
            kl_ecb: &keys[self.rounds],
            sk: &ZERO,
            sh: &ZERO,
            tweak: &ZERO,
            s_m: &ZERO,
        }
    }

    /// The level for a run of `n` blocks: the AES-NI lane below
    /// [`XMM_BELOW`] blocks, else the key's.
    fn wide_level(&self, n: usize) -> Level {
        if n < XMM_BELOW {
            Level::AesNi
        } else {
            self.level
        }
    }

    /// Dispatch a plain (E_K) pass to the lane and the round count.
    fn wide_run(&self, dir: Dir, pass: Pass, job: &WideJob<'_>) -> Block {
        if job.n == 0 {
            return [0; 16];
        }
        match self.rounds {
            10 => self.wide_run_on::<10, false>(dir, pass, job),
            12 => self.wide_run_on::<12, false>(dir, pass, job),
            _ => self.wide_run_on::<14, false>(dir, pass, job),
        }
    }

    /// The pass's kernel on `job` (`job.n >= 1`), on the lane of this
    /// key's level for `job.n`; `NR` is the key's round count (`STE`:
    /// EtE's passes, 10 rounds).
    fn wide_run_on<const NR: usize, const STE: bool>(
        &self,
        dir: Dir,
        pass: Pass,
        job: &WideJob<'_>,
    ) -> Block {
        debug_assert_eq!(NR, self.rounds);
        match self.wide_level(job.n) {
            // SAFETY: the level is at most what `detect` found (each lane's
            // entry needs no more than its detection checked); the job's
            // pointers cover `job.n >= 1` blocks (`Io::raw`, `n <=
            // l.len()`). For `FirstMid` also PCLMULQDQ (`has_clmul`, checked
            // by the callers), in place; `NR` is the key's round count.
            Level::Vaes512 => unsafe { wide_kernel::dispatch::<Zmm, NR, STE>(dir, pass, job) },
            // SAFETY: as above.
            Level::Vaes256 => unsafe { wide_kernel::dispatch::<Ymm, NR, STE>(dir, pass, job) },
            // SAFETY: as above.
            Level::AesNi => unsafe { wide_kernel::dispatch::<Xmm, NR, STE>(dir, pass, job) },
        }
    }
}

/// EtE's StE-over-XEX pair on this key ([`crate::engine::SteXex`]; its
/// passes: [`SteKey`] below).
pub(crate) type SteXex = crate::engine::SteXex<AesKey>;

impl SteKey for AesKey {
    fn rounds(&self) -> usize {
        self.rounds
    }

    fn round_keys(&self, dir: Dir) -> &[Block; 15] {
        match dir {
            Dir::Encrypt => &self.enc.k.0,
            Dir::Decrypt => &self.dec.k.0,
        }
    }

    fn ste_pass(
        ste: &SteXex,
        dir: Dir,
        last: bool,
        l: &[Block],
        m: &Block,
        io: Io<'_, '_>,
    ) -> Block {
        let job = ste_job(ste, dir, io, l, m);
        if job.n == 0 {
            return [0; 16];
        }
        let pass = if last { Pass::Last } else { Pass::First };
        // AES-128 only (`SteXex::new`): the kernels are instantiated for
        // 10 rounds.
        ste.key.wide_run_on::<10, true>(dir, pass, &job)
    }

    fn ste_first_mid(
        ste: &SteXex,
        dir: Dir,
        l: &[Block],
        tweak: &Block,
        s_m: &Block,
        unit: &mut [Block],
    ) -> Option<Block> {
        let n = unit.len();
        if n == 0 || n > l.len() || !ste.key.has_clmul() {
            return None;
        }
        let mut job = ste_job(ste, dir, Io::InPlace(unit), l, &ZERO);
        (job.tweak, job.s_m) = (tweak, s_m);
        Some(ste.key.wide_run_on::<10, true>(dir, Pass::FirstMid, &job))
    }

    fn ste_units(
        ste: &SteXex,
        dir: Dir,
        l: &[Block],
        s_m: &Block,
        m: usize,
        blocks: &mut [Block],
        tweaks: &[Block],
    ) -> bool {
        if !ste.key.units_fit(l, m, blocks, tweaks) {
            return false;
        }
        let mut job = ste_job(ste, dir, Io::InPlace(blocks), l, &ZERO);
        (job.n, job.s_m) = (m, s_m);
        // AES-128 only (`SteXex::new`): 10 rounds.
        ste.key.wide_units_on::<10, true>(dir, &job, tweaks);
        true
    }
}

/// An EtE pass's job: the key's, with the folded keys of `dir` and StE's
/// K and H.
fn ste_job<'a>(
    ste: &'a SteXex,
    dir: Dir,
    io: Io<'_, '_>,
    l: &[Block],
    m: &'a Block,
) -> WideJob<'a> {
    let mut job = ste.key.wide_job(dir, io, l, m);
    let f = ste.folded(dir);
    (job.k0, job.kl, job.k0_ecb, job.kl_ecb) = (&f[0], &f[1], &f[2], &f[3]);
    (job.sk, job.sh) = (&ste.k, &ste.h);
    job
}
