//! blockmodes' own AES on x86-64 (AES-NI, VAES-256, VAES-512): the key schedule, ECB
//! and the modes' offset-whitened loops with the whitening folded into the
//! rounds.
//!
//! # Why this module exists
//!
//! The `aes` crate enciphers a batch of 64 blocks behind one opaque call;
//! a mode's whitening (`M[i] xor Z[i]` before, `xor Z[i]` after, the OCB
//! Checksum, PMAC's Σ) then runs as separate passes over the batch, on the
//! same two vector ports as the AES rounds, and caps XEX at about 0.6x and
//! OCB 1.0 at 0.39x of ECB. Here the whitening costs almost nothing:
//!
//! * `M xor Z xor K0` is one `vpternlogq` (the first round's key xor);
//! * the post-whitening is free: `aesenclast(s, Z xor K_last)` is
//!   `E(x) xor Z`, so the offset is folded into the last round key (one
//!   xor per four blocks);
//! * a sum of inputs (OCB's Checksum) or outputs (OCB's Checksum when
//!   decrypting) is one xor per four blocks while the rounds run; PMAC's Σ
//!   over a full batch has none: it rides in `aesenclast`'s key, with one
//!   xor per batch where the chains meet (`Lane::SUM_CHAINS`);
//! * the Gray-code offsets `Z[i] = gamma_i L xor R` of OCB and PMAC are
//!   generated in registers: `Z[64q + j] = W_q xor gamma_j L`, a 64-entry
//!   per-key table (one 64-byte load per four blocks) and a group base
//!   `W_q` that advances once per 64 blocks ([`GrayTable`]).
//!
//! # Interface
//!
//! [`AesKey`] (AES-128/192/256 round keys, zeroized on drop) offers
//! * [`AesKey::ecb`]: ECB of any number of blocks, no padding;
//! * [`AesKey::whiten`]: `out[t] = E(in[t] xor Z[t]) xor Z[t]` (or `E^-1`),
//!   optionally returning the xor of the plaintext side (the inputs when
//!   encrypting, the outputs when decrypting: OCB's Checksum), with the
//!   offsets [`Offsets::Slice`] (XEX: the caller's) or [`Offsets::Gray`]
//!   (OCB 1.0, PMAC);
//! * [`AesKey::sigma`]: `E(in[t] xor Z[t])` xored together, nothing stored
//!   (PMAC's Σ);
//! * [`AesKey::ocb_blocks`]: OCB 1.0's full blocks from index 1 with the
//!   Checksum's sum and `Y[m]`, in one function up to [`OCB_MID`] blocks
//!   (`xmm::whiten_sum_short` under [`XMM_BELOW`], above it
//!   `kernel::ocb_mid` on the key's tier);
//! * [`AesKey::xex_units`]: XEX over whole data units with everything in
//!   one kernel call (the nonces, their `E_K(N)`, the deltas `E_K(N)
//!   x^(j+1)` made in registers: `xex_units.rs`, lane-generic), VAES-256
//!   and VAES-512;
//! * the wide-block passes (`wide.rs`, the kernel `wide_kernel.rs`):
//!   EME's first pass with the sum of its outputs and, in registers after
//!   it, EME's middle block ([`AesKey::wide_first`],
//!   [`AesKey::wide_first_mid`]), and its last pass with the powers `M
//!   x^j` made in registers ([`AesKey::wide_last`]); the same for EtE
//!   ([`SteXex`](wide::SteXex): StE over XEX, the swap and the deltas in
//!   the kernels, the ECB layer in the first or last pass);
//! * the Gligor–Donescu shapes (`gd.rs`), whose offsets are `i·r0` mod
//!   2^128 on big-endian blocks (added, not xored): [`AesKey::xecb_sum`],
//!   the xor of `E(x_t + (first + t) r0)` (XECB-MAC), and
//!   [`AesKey::xcbc_decrypt`], `E^-1(y_t - (first + t) r0) xor z_{t-1}`
//!   with the sum of the outputs and the check block apart (XCBC, pXCBC
//!   decryption);
//!   [`AesKey::xcbc_strided`] (`chains.rs`, VAES-512 and VAES-256),
//!   pXCBC encryption's independent segment chains sixteen at a time in
//!   lock step, `y = E(z xor x) + i r0^(s)` with the check block's sum
//!   while the rounds run;
//!   [`AesKey::xcbc_chain`] (`xmm_chain.rs`, AES-NI on every tier: the
//!   chain is serial, one block in flight), XCBC encryption's one serial
//!   chain `z_i = E(x_i xor z_{i-1})`, `y_i = z_i + i r0`, the keys and
//!   `z_{i-1}` in registers for the whole message;
//! * [`AesKey::ctr32`] (`ctr.rs`): counter mode with a 32-bit big-endian
//!   counter in the last four bytes (CWC-CTR), any number of bytes, the
//!   counter blocks made in registers; [`AesKey::encrypt_be`], one block
//!   given as an integer (no store-to-load round trip);
//! * `AesKey::ctr32_hash_tag` (`cwc/ctr_hash.rs`, beside its mode; VAES-512 with AVX-512 IFMA): CWC-CTR
//!   and CWC-HASH in one pass, the hash's multiply-adds (`cwc::hash::ifma`)
//!   interleaved with the AES rounds, fed from the registers the rounds
//!   leave the ciphertext in, then the tag (both of its cipher calls).
//!
//! Blocks move through [`Io`]: in place, buffer to buffer, or an
//! `inout` buffer (equal or disjoint pointers).
//!
//! # The tiers and the lanes
//!
//! Three tiers ([`Level`], `crate::backend::Tier`), each a lane type
//! (`lane.rs`): AES-NI (AES + SSE2, one block per xmm register), VAES-256
//! (VAES + VPCLMULQDQ + AVX2 without AVX-512, two blocks per ymm register)
//! and VAES-512 (AVX-512F/BW + VAES, four blocks per zmm register). ECB and
//! the whitened loops ([`AesKey::ecb`], [`AesKey::whiten`],
//! [`AesKey::sigma`], XEX's units) are written once, generic over the lane
//! (`kernel.rs`), and instantiated in one `#[target_feature]` entry per
//! tier: eight registers in flight, a remainder as one batch of as many
//! registers as it needs, the last one partial (masked on AVX-512, its low
//! xmm half on AVX2; never padded to a batch, never a byte past the
//! blocks). Runs under [`XMM_BELOW`] blocks take the AES-NI lane on every
//! tier (lower latency). The other families are lane-generic the same
//! way, each loop once, the operations a tier does its own way in the
//! lane type (`GdLane::GdOff`, `CtrLane::Ctr`, `WideLane::Pow`, `WideLane::Swap`, ...)
//! and one `#[target_feature]` entry per tier and family (`GdLane::gd`,
//! `CtrLane::ctr`, `ChainLane::chains`, `WideLane::wide`): the Gligor–Donescu shapes
//! (`gd.rs`), the wide-block passes (`wide_kernel.rs`), counter mode
//! (`ctr.rs`) and pXCBC's lock-step chains (`chains.rs`, on the vector
//! lanes; AES-NI takes the generic path). Still one width each: XCBC's
//! serial chain
//! (`xmm_chain.rs`, one block in flight by nature), the one-pass CWC
//! (`cwc/ctr_hash.rs`, VAES-512 with IFMA). XEX's units
//! (`xex_units.rs`, VAES-256 and VAES-512) and OCB 1.0's mid-size
//! messages (`kernel::ocb_mid`, every tier) are lane-generic.
//!
//! The CPU is checked once, at key setup ([`detect`]); an
//! [`AesKey`] exists only if the CPU has AES-NI, and it records the widest
//! tier the CPU runs, lowered by the cap (`BLOCKMODES_CPU`) and the
//! tests' `backend::force`.
//!
//! # Why `unsafe`
//!
//! * The kernels are compiled with `#[target_feature(enable = ...)]`;
//!   calling them is `unsafe` because the CPU must have those features.
//!   An [`AesKey`] records a [`Level`] only after [`detect`] found its
//!   features (or a lower one), so its safe methods may call them.
//! * Vector loads and stores take raw pointers: the safe methods compute
//!   the block count as the minimum of every slice's length, and the
//!   kernels touch only blocks below that count (masked loads and stores
//!   for a partial register, which do not access the masked-out lanes).
//!   The counter-mode kernels (`ctr.rs`, `cwc/ctr_hash.rs`) take byte lengths and
//!   mask the last register to the bytes below them.
//! * The one-pass CWC kernel (`cwc/ctr_hash.rs`) is also compiled for AVX-512 IFMA
//!   and VBMI, which its argument `cwc::hash::ifma::Powers` proves (it is
//!   built only after that CPU check); it calls that module's safe
//!   `Stream` functions for the hash.
//! * `lane.rs`'s `Lane::fence` is an empty `asm!` over a batch's eight
//!   registers (values unchanged, no memory, no flags): a scheduling
//!   fence, and its ymm form is compiled with AVX, which every tier that
//!   builds ymm lanes has. `cpu_vaes256` executes CPUID (no side effect).
//!
//! No branch or memory index depends on a key, a block or an offset: only
//! on lengths and block indices (which are public).
#![allow(unsafe_code)]
// Entry points for the modes not yet on the fused path (ECB, XEX's slice
// offsets, PMAC's sigma) are used by the tests only so far.
#![cfg_attr(not(test), allow(dead_code))]

#[cfg(all(test, feature = "std"))]
mod bench;
mod chains;
pub(crate) mod ctr;
mod gd;
mod kernel;
mod lane;
pub(crate) mod schedule;
#[cfg(test)]
pub(crate) mod tests;
mod vaes;
mod wide;
mod wide_kernel;
mod xex_units;
mod xmm;
mod xmm_chain;

pub(crate) use chains::CHAINS;

pub(crate) use crate::engine::{CHAIN_BATCH, ChainIo};
/// The chains' shape and state for [`AesKey::xcbc_strided`].
pub(crate) type Chains<'a> = crate::engine::Chains<'a, AesKey>;
// A call's chains are whole groups of [`CHAINS`].
const _: () = assert!(CHAIN_BATCH == 4 * CHAINS);
// (The modes name it `crate::backend::SteXex`.)
#[cfg(test)]
use wide::SteXex;

use chains::ChainLane;
use gd::GdLane;

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::arith::gf128::Block;
use crate::engine::dispatch::{by_count8, by_rounds};
use crate::engine::job::{SRC_GRAY, SRC_NONE, SRC_SLICE, Shape};
pub(crate) use crate::engine::{Aligned, Dir, GrayTable, Io, Offsets, XEX_UNITS};
#[cfg(feature = "alloc")]
use crate::engine::{append_blocks, append_bytes};

/// Runs of fewer blocks than this go to the AES-NI back end even where the
/// key's is VAES-512: one block per xmm register has the lower latency.
/// Measured (Xeon Sapphire Rapids, ECB, `aesni::bench`): 4 blocks 10.7 ns
/// on xmm against 20.2 ns on zmm; 8 blocks 13.6 against 11.0; 32 blocks
/// 42.5 against 26.2.
pub(crate) const XMM_BELOW: usize = 8;

/// The widest AES back end a CPU runs, lowest first (the engine's tiers
/// above `generic`, [`crate::backend::Tier`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// AES-NI and SSE2: one block per xmm register.
    AesNi,
    /// VAES, VPCLMULQDQ and AVX2, no AVX-512: two blocks per ymm register
    /// (the families without a ymm kernel run their AES-NI one).
    Vaes256,
    /// AVX-512F and VAES: four blocks per zmm register.
    Vaes512,
}

cpufeatures::new!(cpu_aesni, "aes", "sse2");
cpufeatures::new!(
    cpu_vaes512,
    "aes",
    "sse2",
    "avx512f",
    "avx512bw",
    "vaes",
    "vpclmulqdq",
    "pclmulqdq"
);
// The `vaes256` tier's features other than VAES and VPCLMULQDQ: AVX2 with
// the OS saving the ymm registers (`cpufeatures` checks XCR0 for them).
cpufeatures::new!(cpu_avx2_aes, "aes", "sse2", "avx", "avx2", "pclmulqdq");

/// Whether the CPU has 256-bit VAES and VPCLMULQDQ beside AVX2: the
/// `vaes256` tier (AMD Zen 3, Intel client cores since Alder Lake).
///
/// Not asked of `cpufeatures`: its table (0.2 and 0.3) ties `vaes` and
/// `vpclmulqdq` to the OS saving the zmm registers, as if they were AVX-512
/// features, so on a CPU without AVX-512 it reports neither and the tier
/// never ran where it was meant to (RustCrypto/utils pull request 1528,
/// open). Their VEX-256 forms need only the ymm state that AVX2's check
/// already proves (Intel SDM vol. 1, 14.3.1); the two bits are CPUID leaf
/// 7's ECX bits 9 and 10, read once and cached (CPUID traps to the
/// hypervisor in a VM: thousands of cycles).
fn cpu_vaes256() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    // 0: not asked yet, 1: no, 2: yes
    static HAS: AtomicU8 = AtomicU8::new(0);
    match HAS.load(Ordering::Relaxed) {
        0 => {
            let has = cpu_avx2_aes::get() && leaf7_vaes_vpclmulqdq();
            HAS.store(if has { 2 } else { 1 }, Ordering::Relaxed);
            has
        }
        v => v == 2,
    }
}

/// CPUID leaf 7 (sub-leaf 0) reports VAES (ECX bit 9) and VPCLMULQDQ (ECX
/// bit 10); `false` where the CPU's highest basic leaf is below 7.
fn leaf7_vaes_vpclmulqdq() -> bool {
    // Where `cpufeatures` never runs CPUID (an SGX enclave, where it
    // faults; bare metal and UEFI) it answers from the compile-time target
    // features: so does this.
    #[cfg(any(target_env = "sgx", target_os = "none", target_os = "uefi"))]
    return cfg!(all(target_feature = "vaes", target_feature = "vpclmulqdq"));
    #[cfg(not(any(target_env = "sgx", target_os = "none", target_os = "uefi")))]
    cpuid_leaf7_vaes_vpclmulqdq()
}

/// [`leaf7_vaes_vpclmulqdq`] by the CPUID instruction.
#[cfg(not(any(target_env = "sgx", target_os = "none", target_os = "uefi")))]
fn cpuid_leaf7_vaes_vpclmulqdq() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: CPUID exists on every x86-64 CPU and has no side effect
    // (the intrinsics are safe functions on newer compilers, hence the allow).
    #[allow(unused_unsafe)]
    let (max, ecx) = unsafe {
        let max = __cpuid(0).eax;
        (max, if max >= 7 { __cpuid_count(7, 0).ecx } else { 0 })
    };
    const VAES: u32 = 1 << 9;
    const VPCLMULQDQ: u32 = 1 << 10;
    max >= 7 && ecx & (VAES | VPCLMULQDQ) == VAES | VPCLMULQDQ
}
// Carry-less multiplication beside AES-NI (the wide-block modes' middle
// block, `wide.rs`); every CPU with VAES-512 above has it.
cpufeatures::new!(cpu_clmul, "pclmulqdq");

/// The one place this crate asks the CPU which AES instructions it has:
/// `None` without AES-NI (or SSE2), else the widest [`Level`] (checked
/// once, cached by `cpufeatures` and [`cpu_vaes256`]: works without `std`).
pub(crate) fn detect() -> Option<Level> {
    if cpu_vaes512::get() {
        Some(Level::Vaes512)
    } else if cpu_vaes256() {
        Some(Level::Vaes256)
    } else if cpu_aesni::get() {
        Some(Level::AesNi)
    } else {
        None
    }
}

/// The fused kernels' key for a mode keyed with the cipher `C` and the
/// key bytes `key`, if the fused path may replace `C`: `C` is one of the
/// `aes` crate's [`crate::Aes128`], [`crate::Aes192`], [`crate::Aes256`]
/// (a wrapper such as `oracle::Counting` is not, and keeps its calls), the
/// key has its length, the CPU has AES-NI, and, as a last check that both
/// compute the same permutation, `C` and the expanded key agree on
/// `E_K(0^128)` (one block at key setup, compared in constant time). On
/// the highest level the CPU runs up to `max` (the tier the cap and
/// [`crate::backend::force`] allow: `backend::key_for` asks it).
///
/// The type is recognised by its [`TypeId`](core::any::TypeId) (every
/// mode's bound [`crate::oracle::BlockCipher128`] is `'static` for this);
/// the probe checks the key bytes and the cipher agree.
pub(crate) fn key_for<C: crate::oracle::BlockCipher128>(
    key: &[u8],
    cipher: &C,
    max: Level,
) -> Option<AesKey> {
    let len = crate::engine::aes_key_len::<C>()?;
    if key.len() != len {
        return None;
    }
    let k = AesKey::with_level(key, max)?;
    let e0 = k.encrypt_block(&[0; 16]);
    crate::engine::agrees(cipher, k, e0, true)
}

/// A second key for a mode whose first key `first` is on the fused path
/// (XCBC's f' beside f): the key bytes `key` of the same cipher `C`, on
/// `first`'s level ([`crate::engine::companion_key`] checks the length
/// and that `C` and the expanded key agree).
pub(crate) fn companion_key<C: crate::oracle::BlockCipher128>(
    first: &AesKey,
    key: &[u8],
    cipher: &C,
) -> Option<AesKey> {
    let build = |key: &[u8]| AesKey::with_level(key, first.level);
    crate::engine::companion_key(first.rounds, key, cipher, build, AesKey::encrypt_block)
}

impl ChainIo<'_, '_> {
    /// The pointers of chains `first .. first + CHAINS` into `job` (null
    /// from `lanes` on), `lo .. hi` from [`check`](Self::check). Written
    /// in place, per group of [`CHAINS`], in counted loops: a
    /// [`CHAIN_BATCH`]-wide array returned by value was copied twice
    /// (`memcpy`), a returned group copied by 16-byte loads of 8-byte
    /// stores (a store-forwarding stall that waits for the store buffer
    /// to drain), and iterator adaptors kept their state on the stack.
    fn group(
        &mut self,
        (lo, hi): (usize, usize),
        lanes: usize,
        first: usize,
        job: &mut chains::ChainsJob<'_>,
    ) {
        let (src, dst) = (&mut job.src, &mut job.dst);
        let end = lanes.min(first + CHAINS);
        let mut d = self.dst.as_mut_ptr().wrapping_add(first * self.dst_stride);
        for p in &mut dst[..end - first] {
            *p = d;
            d = d.wrapping_add(self.dst_stride);
        }
        for (l, p) in (first..end).zip(src.iter_mut()) {
            *p = self.chain_src(l, (lo, hi));
        }
    }
}

/// Round keys: 10, 12 or 14 rounds; entry 0 is xored before the first
/// round, entry `rounds` is the last round's key (for the inverse cipher,
/// in the order `aesdec` uses them: the "equivalent inverse cipher").
#[derive(Clone)]
struct RoundKeys {
    k: Aligned<[Block; 15]>,
}

/// An AES-128, -192 or -256 key expanded for this module's back ends, on a
/// CPU that runs them. Zeroized on drop.
#[derive(Clone)]
pub(crate) struct AesKey {
    enc: RoundKeys,
    dec: RoundKeys,
    /// 10, 12 or 14.
    rounds: usize,
    level: Level,
}

/// `match $n { k => $go!(pre.., k), .., _ => $other }` for the literals
/// `k` listed: a kernel's block or register count as a const generic.
macro_rules! count_match {
    ($n:expr, $go:ident!$pre:tt, [$($k:literal)*], $other:expr) => {
        match $n {
            $($k => count_match!(@call $go $pre $k),)*
            _ => $other,
        }
    };
    (@call $go:ident ($($pre:tt),*) $k:literal) => {
        $go!($($pre,)* $k)
    };
}

/// `$go!(NR, DEC)` for a key's round count (10, 12, else 14) and
/// direction (`$dec`: decryption).
macro_rules! by_rounds_dir {
    ($rounds:expr, $dec:expr, $go:ident) => {
        match ($rounds, $dec) {
            (10, false) => $go!(10, false),
            (10, true) => $go!(10, true),
            (12, false) => $go!(12, false),
            (12, true) => $go!(12, true),
            (_, false) => $go!(14, false),
            (_, true) => $go!(14, true),
        }
    };
}

/// Most full blocks of an OCB 1.0 message that [`AesKey::ocb_blocks`] runs
/// in one function on the key's tier (`kernel::ocb_mid`): blocks 1 ..= 63,
/// the first Gray-code group (no step of the group base).
pub(crate) const OCB_MID: usize = 63;

impl AesKey {
    /// Expand a 16-, 24- or 32-byte key; `None` for any other length or if
    /// this CPU has no AES-NI.
    pub(crate) fn new(key: &[u8]) -> Option<Self> {
        Self::with_level(key, Level::Vaes512)
    }

    /// As [`new`](Self::new), using at most the back end `max` (the tests
    /// force the AES-NI one with [`Level::AesNi`]).
    pub(crate) fn with_level(key: &[u8], max: Level) -> Option<Self> {
        let level = detect()?.min(max);
        let rounds = match key.len() {
            16 => 10,
            24 => 12,
            32 => 14,
            _ => return None,
        };
        let mut enc = RoundKeys {
            k: Aligned([[0u8; 16]; 15]),
        };
        let mut dec = RoundKeys {
            k: Aligned([[0u8; 16]; 15]),
        };
        // SAFETY: `detect` found AES-NI and SSE2, the features of `expand`.
        unsafe { schedule::expand(key, &mut enc.k.0, &mut dec.k.0) };
        Some(Self {
            enc,
            dec,
            rounds,
            level,
        })
    }

    /// The back end this key runs on.
    /// The encryption round keys (entry `i` for round `i`, `0..=rounds`)
    /// and the number of rounds, for a kernel that lives beside its mode
    /// (CWC's one-pass kernel, `cwc/ctr_hash.rs`).
    pub(crate) fn enc_round_keys(&self) -> (&[Block; 15], usize) {
        (&self.enc.k.0, self.rounds)
    }

    pub(crate) fn level(&self) -> Level {
        self.level
    }

    /// The round keys of `dir` (the inverse cipher's for decryption).
    fn keys(&self, dir: Dir) -> &[Block; 15] {
        match dir {
            Dir::Encrypt => &self.enc.k.0,
            Dir::Decrypt => &self.dec.k.0,
        }
    }

    /// XEX over data units of `m` blocks (`m` a multiple of 4) numbered
    /// from `first`, everything in the kernel: block j of unit s becomes
    /// `E(in xor Δ) xor Δ` (or with `E^-1`), `Δ = E_K(N_s) x^(j+1)` in the
    /// BE convention, `N_s = first + s` as a 16-byte big-endian integer
    /// (the caller checks that the unit numbers do not overflow). Whole
    /// units only, at most [`XEX_UNITS`] (`io`'s blocks are cut to that).
    /// Returns false, doing nothing, unless the key runs on VAES-256 or
    /// VAES-512 and `m`
    /// is a positive multiple of 4 (the caller then uses
    /// [`Offsets::Slice`]).
    pub(crate) fn xex_units(&self, dir: Dir, first: u128, m: usize, io: Io<'_, '_>) -> bool {
        if self.level < Level::Vaes256 || m == 0 || !m.is_multiple_of(4) {
            return false;
        }
        let (src, dst, n) = io.raw();
        let units = (n / m).min(XEX_UNITS);
        let mut job = self.job(dir, src, dst, units * m, None);
        job.src_kind = SRC_XEX;
        job.x.m = m;
        job.x.unit0 = first;
        self.run(dir, Shape::Whiten, &job);
        true
    }

    /// Benchmarks only: [`xex_units`](Self::xex_units) with the source kind
    /// `kind` ([`SRC_XEX_FREE`], [`SRC_XEX_BARE`]: wrong output, the cost
    /// bounds of the kernel).
    #[cfg(all(test, feature = "std"))]
    fn xex_units_bound(&self, kind: u8, first: u128, m: usize, io: Io<'_, '_>) {
        let (src, dst, n) = io.raw();
        let units = (n / m).min(XEX_UNITS);
        let mut job = self.job(Dir::Encrypt, src, dst, units * m, None);
        job.src_kind = kind;
        job.x.m = m;
        job.x.unit0 = first;
        self.run_on(Level::Vaes512, Dir::Encrypt, Shape::Whiten, &job);
    }

    /// `E_K(block)` for one block (AES-NI, one xmm register).
    pub(crate) fn encrypt_block(&self, block: &Block) -> Block {
        let keys = &self.enc.k.0;
        // SAFETY: an `AesKey` exists only where `detect` found AES-NI and
        // SSE2, the features of `encrypt_one`.
        unsafe {
            match self.rounds {
                10 => xmm::encrypt_one::<10>(keys, block),
                12 => xmm::encrypt_one::<12>(keys, block),
                _ => xmm::encrypt_one::<14>(keys, block),
            }
        }
    }

    /// XCBC's encryption chain over `n` blocks `x(0) .. x(n - 1)` from
    /// `z0`, then, if `CHECK`, the check block (the contract of
    /// `gligor_donescu::chain::encrypt_blocks`): `out[i - 1] = y_i`, `n +
    /// CHECK` blocks. One AES-NI function, the keys in registers.
    pub(crate) fn xcbc_chain<const CHECK: bool>(
        &self,
        r0: u128,
        z0: &Block,
        n: usize,
        x: impl Fn(usize) -> Block,
        out: &mut [Block],
    ) {
        let keys = &self.enc.k.0;
        // SAFETY: an `AesKey` exists only where `detect` found AES-NI and
        // SSE2, the features of `xcbc_chain`.
        unsafe {
            match self.rounds {
                10 => xmm_chain::xcbc_chain::<10, CHECK>(keys, r0, z0, n, x, out),
                12 => xmm_chain::xcbc_chain::<12, CHECK>(keys, r0, z0, n, x, out),
                _ => xmm_chain::xcbc_chain::<14, CHECK>(keys, r0, z0, n, x, out),
            }
        }
    }

    /// `E_K^-1(block)` for one block (AES-NI, one xmm register).
    pub(crate) fn decrypt_block(&self, block: &Block) -> Block {
        let keys = &self.dec.k.0;
        // SAFETY: an `AesKey` exists only where `detect` found AES-NI and
        // SSE2, the features of `decrypt_one`.
        unsafe {
            match self.rounds {
                10 => xmm::decrypt_one::<10>(keys, block),
                12 => xmm::decrypt_one::<12>(keys, block),
                _ => xmm::decrypt_one::<14>(keys, block),
            }
        }
    }

    /// XECB-MAC's sum (Gligor–Donescu, section 5): the xor of
    /// `E_K(x_t + (first + t) r0)` over the blocks `x_t` of `blocks` and
    /// then, if given, `last` (`+` mod 2^128 on big-endian blocks); nothing
    /// stored. The offsets are made in registers.
    pub(crate) fn xecb_sum(
        &self,
        r0: u128,
        first: u128,
        blocks: &[Block],
        last: Option<&Block>,
    ) -> Block {
        let job = GdJob {
            keys: &self.enc.k.0,
            src: blocks.as_ptr(),
            n_src: blocks.len(),
            last: last.map_or(core::ptr::null(), |b| b as *const Block),
            n: blocks.len() + usize::from(last.is_some()),
            dst: core::ptr::null_mut(),
            n_out: 0,
            check: core::ptr::null_mut(),
            prev: [0; 16],
            r0,
            first,
        };
        self.run_gd::<false>(&job)
    }

    /// XCBC decryption (Gligor–Donescu, section 3) of `input` =
    /// `y_first, y_first+1, ...`: `z_t = y_t - (first + t) r0` (mod 2^128,
    /// big-endian), `x_t = E_K^-1(z_t) xor z_{t-1}` with `z_{-1} = prev`;
    /// `out[t] = x_t`. Returns the xor of the `x_t` written to `out`.
    /// With `check`, `input` holds one block more than `out` (the check
    /// block), whose `x` goes to `check` and not into the sum; without, the
    /// shorter of `input` and `out` counts. The offsets are made in
    /// registers; `z_{t-1}` is folded into the last round key.
    pub(crate) fn xcbc_decrypt(
        &self,
        r0: u128,
        first: u128,
        prev: &Block,
        input: &[Block],
        out: &mut [Block],
        check: Option<&mut Block>,
    ) -> Block {
        let (n, n_out, check) = crate::engine::xcbc_counts(input, out, check);
        let job = GdJob {
            keys: &self.dec.k.0,
            src: input.as_ptr(),
            n_src: n,
            last: core::ptr::null(),
            n,
            dst: out.as_mut_ptr(),
            n_out,
            check,
            prev: *prev,
            r0,
            first,
        };
        self.run_gd::<true>(&job)
    }

    /// Whether [`xcbc_strided`](Self::xcbc_strided) runs on this key
    /// (VAES-512 or VAES-256, [`detect`]; AES-NI takes the generic path).
    pub(crate) fn has_chains(&self) -> bool {
        self.level >= Level::Vaes256
    }

    /// XCBC encryption of up to [`CHAIN_BATCH`] independent chains
    /// (pXCBC's segments, Gligor–Donescu section 4), [`CHAINS`] at a time
    /// in lock step, read and written with strides ([`ChainIo`]): for each
    /// chain l < `io.lanes` and round t < `n`, `x` = its block t,
    /// `sums[l] ^= x`, `z[l] = E_K(z[l] xor x)`,
    /// `y = z[l] + (first + t) (r0 + l)` (mod 2^128, big-endian blocks)
    /// into its output t; with `check`, one more round with `x = sums[l]`
    /// (the check block) into its output n. `z` and `sums` carry the
    /// chains from one call to the next (or `z0` starts them). Returns false, doing nothing,
    /// unless [`has_chains`](Self::has_chains).
    ///
    /// # Panics
    /// If `io` does not hold n blocks for every chain's input and
    /// `n + check` (at most its stride) for every chain's output.
    pub(crate) fn xcbc_strided(&self, chains: &mut Chains<'_>, io: ChainIo<'_, '_>) -> bool {
        if !self.has_chains() {
            return false;
        }
        let (n, check, lanes) = (chains.n, chains.check, io.lanes.min(CHAIN_BATCH));
        if lanes == 0 || n + usize::from(check) == 0 {
            return true;
        }
        let out = n + usize::from(check);
        let mut io = io;
        let bounds = io.check(n, out, lanes);
        let z0 = match chains.z0 {
            Some((k, c)) if k.rounds == self.rounds => Some((&k.enc.k.0, c)),
            Some((k, c)) => {
                // Another key size: z0 through its own ECB call.
                for (l, z) in chains.z[..lanes].iter_mut().enumerate() {
                    *z = c.wrapping_add(l as u128).to_be_bytes();
                }
                k.ecb(Dir::Encrypt, Io::InPlace(&mut chains.z[..lanes]));
                chains.sums[..lanes].copy_from_slice(&chains.z[..lanes]);
                None
            }
            None => None,
        };
        let state = chains
            .z
            .chunks_exact_mut(CHAINS)
            .zip(chains.sums.chunks_exact_mut(CHAINS));
        for (q, (z, sums)) in state.enumerate().take(lanes.div_ceil(CHAINS)) {
            let group = CHAINS * q..(CHAINS * q + CHAINS).min(lanes);
            let mut job = chains::ChainsJob {
                keys: &self.enc.k.0,
                src: [core::ptr::null(); CHAINS],
                dst: [core::ptr::null_mut(); CHAINS],
                lanes: group.len(),
                n,
                check,
                z0: z0.map(|(k, c)| (k, c.wrapping_add((CHAINS * q) as u128))),
                r0: chains.r0.wrapping_add((CHAINS * q) as u128),
                first: chains.first,
                z: z.try_into().expect("CHAINS blocks"),
                sums: sums.try_into().expect("CHAINS blocks"),
            };
            io.group(bounds, lanes, group.start, &mut job);
            macro_rules! ymm {
                ($v:literal, $nr:literal) => {
                    lane::Ymm::chains::<$nr, $v>(&mut job)
                };
            }
            macro_rules! go {
                ($nr:literal) => {
                    // SAFETY: `has_chains`: a VAES-512 or VAES-256 key, whose
                    // CPU has that tier's features (`detect`); every chain's
                    // input pointer covers n blocks and its output pointer
                    // n + check, the outputs disjoint (`ChainIo::check`,
                    // `group`); V registers hold the lanes.
                    unsafe {
                        if self.level == Level::Vaes512 {
                            match job.lanes.div_ceil(4) {
                                1 => lane::Zmm::chains::<$nr, 1>(&mut job),
                                2 => lane::Zmm::chains::<$nr, 2>(&mut job),
                                3 => lane::Zmm::chains::<$nr, 3>(&mut job),
                                _ => lane::Zmm::chains::<$nr, 4>(&mut job),
                            }
                        } else {
                            by_count8!(job.lanes.div_ceil(2), ymm, $nr)
                        }
                    }
                };
            }
            by_rounds!(self.rounds, go)
        }
        true
    }

    /// Dispatch a Gligor–Donescu job to the lane and the round count: the
    /// key's tier from [`XMM_BELOW`] blocks on, else AES-NI.
    fn run_gd<const DEC: bool>(&self, job: &GdJob<'_>) -> Block {
        if job.n == 0 {
            return [0; 16];
        }
        let level = if job.n < XMM_BELOW {
            Level::AesNi
        } else {
            self.level
        };
        macro_rules! go {
            ($nr:literal) => {
                match level {
                    // SAFETY: `level` is at most what `detect` found (each
                    // lane's entry needs no more than its detection
                    // checked); `job`'s pointers cover its counts
                    // (`xecb_sum`, `xcbc_decrypt`), `job.n >= 1`.
                    Level::Vaes512 => unsafe { lane::Zmm::gd::<$nr, DEC>(job) },
                    // SAFETY: as above.
                    Level::Vaes256 => unsafe { lane::Ymm::gd::<$nr, DEC>(job) },
                    // SAFETY: as above.
                    Level::AesNi => unsafe { lane::Xmm::gd::<$nr, DEC>(job) },
                }
            };
        }
        by_rounds!(self.rounds, go)
    }

    /// As [`whiten`](Self::whiten), and `*extra = E_K(*extra)` (encryption
    /// whatever `dir`) alongside: for a short run (under [`XMM_BELOW`]
    /// blocks) in the
    /// same round loop as its first batch (the AES-NI back end, whose
    /// latency is the VAES one's for so few blocks), so a mode's
    /// independent block (OCB's `Y[m]`) adds no latency of its own.
    pub(crate) fn whiten_extra(
        &self,
        dir: Dir,
        offsets: Offsets<'_>,
        sum: bool,
        io: Io<'_, '_>,
        extra: &mut Block,
    ) -> Block {
        let (src, dst, n) = io.raw();
        let shape = if sum { Shape::WhitenSum } else { Shape::Whiten };
        let mut job = self.job(dir, src, dst, n, Some(&offsets));
        if job.n == 0 || job.n >= XMM_BELOW {
            let s = self.run(dir, shape, &job);
            *extra = self.encrypt_block(extra);
            return s;
        }
        job.x.extra = extra;
        self.run_on(Level::AesNi, dir, shape, &job)
    }

    /// OCB 1.0's full blocks from index 1 (`ocb1/fused.rs`):
    /// `out[t] = E_K(in[t] xor Z[1 + t]) xor Z[1 + t]` (or `E_K^-1`),
    /// `Z[i] = gamma_i L xor R` from `table`, returning the xor of the
    /// plaintext blocks (the Checksum's), and `*y = E_K(*y)` (`Y[m]`,
    /// encryption whatever `dir`). A message of under [`XMM_BELOW`] blocks
    /// (`xmm::whiten_sum_short`), and one of at most [`OCB_MID`]
    /// (`kernel::ocb_mid` on the key's lane, one source for the three),
    /// runs in one function with the keys read in place: no job, no
    /// dispatch, no key copies.
    pub(crate) fn ocb_blocks(
        &self,
        dir: Dir,
        table: &GrayTable,
        r: &Block,
        io: Io<'_, '_>,
        y: &mut Block,
    ) -> Block {
        let (src, dst, n) = io.raw();
        let (keys, enc) = (self.keys(dir), &self.enc.k.0);
        let low = table.low.0[1..].as_ptr();
        let dec = dir == Dir::Decrypt;
        macro_rules! short {
            ($nr:literal, $dec:literal, $v:literal) => {
                // SAFETY: an `AesKey` exists only where `detect` found AES-NI
                // and SSE2; `src` and `dst` hold `n` = V blocks (`Io::raw`),
                // `low` 67.
                unsafe { xmm::whiten_sum_short::<$nr, $dec, $v>(keys, enc, src, dst, low, r, y) }
            };
        }
        macro_rules! mid {
            ($lane:ident, $nr:literal, $dec:literal, $v:literal) => {
                // SAFETY: the key's level is the lane's tier (matched
                // below), so `detect` found its features; `src` and `dst`
                // hold `n` blocks, 8 <= n <= OCB_MID, in `REGS f + V`
                // registers (`V` from `regs` below), and `low` 67 blocks
                // (at least `n` rounded up to whole registers).
                unsafe {
                    <lane::$lane as kernel::Entry>::ocb_mid::<$nr, $dec, $v>(
                        keys, enc, src, dst, n, low, r, y,
                    )
                }
            };
        }
        const _: () = assert!(XMM_BELOW == 8 && OCB_MID < 64);
        if n < XMM_BELOW {
            macro_rules! go {
                ($nr:literal, $dec:literal) => {
                    count_match!(n, short!($nr, $dec), [0 1 2 3 4 5 6 7], unreachable!())
                };
            }
            return by_rounds_dir!(self.rounds, dec, go);
        }
        if n <= OCB_MID {
            // Batches of eight registers, the last of `v` (1 ..= 8).
            const _: () = assert!(kernel::REGS == 8);
            let per = match self.level {
                Level::Vaes512 => 4,
                Level::Vaes256 => 2,
                Level::AesNi => 1,
            };
            let regs = n.div_ceil(per);
            let v = regs - 8 * ((regs - 1) / 8);
            macro_rules! go {
                ($nr:literal, $dec:literal) => {
                    match self.level {
                        Level::Vaes512 => {
                            count_match!(v, mid!(Zmm, $nr, $dec), [1 2 3 4 5 6 7 8], unreachable!())
                        }
                        Level::Vaes256 => {
                            count_match!(v, mid!(Ymm, $nr, $dec), [1 2 3 4 5 6 7 8], unreachable!())
                        }
                        Level::AesNi => {
                            count_match!(v, mid!(Xmm, $nr, $dec), [1 2 3 4 5 6 7 8], unreachable!())
                        }
                    }
                };
            }
            return by_rounds_dir!(self.rounds, dec, go);
        }
        let off = Offsets::Gray { table, first: 1, r };
        let job = self.job(dir, src, dst, n, Some(&off));
        let sum = self.run(dir, Shape::WhitenSum, &job);
        *y = self.encrypt_block(y);
        sum
    }

    /// As [`ocb_blocks`](Self::ocb_blocks) from `input` onto the end of
    /// `out` (`16 * input.len()` bytes appended, written once: see
    /// [`append_blocks`]).
    #[cfg(feature = "alloc")]
    pub(crate) fn ocb_blocks_append(
        &self,
        dir: Dir,
        table: &GrayTable,
        r: &Block,
        input: &[Block],
        out: &mut alloc::vec::Vec<u8>,
        y: &mut Block,
    ) -> Block {
        append_blocks(input, out, |io| self.ocb_blocks(dir, table, r, io, y))
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

    /// ECB: every block through `E_K` (or `E_K^-1`).
    pub(crate) fn ecb(&self, dir: Dir, io: Io<'_, '_>) {
        let (src, dst, n) = io.raw();
        let job = self.job(dir, src, dst, n, None);
        self.run(dir, Shape::Ecb, &job);
    }

    /// `out[t] = E_K(in[t] xor Z[t]) xor Z[t]` (or with `E_K^-1`) for every
    /// block; returns the xor of the plaintext side (the inputs when
    /// encrypting, the outputs when decrypting) if `sum`, else zero.
    pub(crate) fn whiten(
        &self,
        dir: Dir,
        offsets: Offsets<'_>,
        sum: bool,
        io: Io<'_, '_>,
    ) -> Block {
        let (src, dst, n) = io.raw();
        let shape = if sum { Shape::WhitenSum } else { Shape::Whiten };
        let job = self.job(dir, src, dst, n, Some(&offsets));
        self.run(dir, shape, &job)
    }

    /// PMAC's tag of a short message, `E_K(Σ xor x)` with `Σ` over `input`
    /// from block 1 on (`Z[t] = gamma_(1+t) L`, the table's first group),
    /// in one AES-NI function (a message's whole cost at 64 bytes is two
    /// dependent cipher calls; the job and dispatch of [`Self::sigma`] and a
    /// second call were a fifth of it). `None` from [`XMM_BELOW`] blocks on:
    /// the caller takes [`Self::sigma`].
    pub(crate) fn sigma_tag(&self, table: &GrayTable, input: &[Block], x: &Block) -> Option<Block> {
        let keys = &self.enc.k.0;
        let z = table.low.0[1..].as_ptr();
        let src = input.as_ptr();
        macro_rules! sigma_v {
            ($nr:literal, $v:literal) => {
                xmm::sigma_tag::<$nr, $v>(keys, src, z, x)
            };
        }
        macro_rules! go {
            ($nr:literal) => {
                // SAFETY: an `AesKey` exists only where `detect` found AES-NI
                // and SSE2; `src` holds V blocks and `z` (the table's
                // entries 1..) at least 67.
                unsafe {
                    count_match!(input.len(), sigma_v!($nr), [0 1 2 3 4 5 6 7], return None)
                }
            };
        }
        const _: () = assert!(XMM_BELOW == 8);
        Some(by_rounds!(self.rounds, go))
    }

    /// `E_K(in[0] xor Z[0]) xor E_K(in[1] xor Z[1]) xor ...` (PMAC's Σ);
    /// nothing is stored.
    pub(crate) fn sigma(&self, offsets: Offsets<'_>, input: &[Block]) -> Block {
        let job = self.job(
            Dir::Encrypt,
            input.as_ptr(),
            core::ptr::null_mut(),
            input.len(),
            Some(&offsets),
        );
        self.run(Dir::Encrypt, Shape::Sigma, &job)
    }

    fn job<'a>(
        &'a self,
        dir: Dir,
        src: *const Block,
        dst: *mut Block,
        n: usize,
        offsets: Option<&Offsets<'a>>,
    ) -> Job<'a> {
        let x = JobX {
            enc: &self.enc.k.0,
            extra: core::ptr::null_mut(),
            m: 0,
            unit0: 0,
        };
        Job::new(self.keys(dir), src, dst, n, offsets, x)
    }

    /// Dispatch to the back end, the round count and the shape.
    fn run(&self, dir: Dir, shape: Shape, job: &Job<'_>) -> Block {
        // (Only the shapes the AES-NI back end has: `SRC_XEX` and any
        // other VAES-only source stay on the key's level.)
        let xmm_has = matches!(job.src_kind, SRC_NONE | SRC_SLICE | SRC_GRAY);
        let level = if job.n < XMM_BELOW && xmm_has {
            Level::AesNi
        } else {
            self.level
        };
        self.run_on(level, dir, shape, job)
    }

    /// As [`run`](Self::run) on the back end `level` (at most the key's).
    fn run_on(&self, level: Level, dir: Dir, shape: Shape, job: &Job<'_>) -> Block {
        if job.n == 0 {
            return [0; 16];
        }
        macro_rules! go {
            ($nr:literal) => {
                match level.min(self.level) {
                    // SAFETY: `level` is at most what `detect` found (each
                    // level's lane needs no more than its detection
                    // checked); `job`'s pointers cover `job.n` blocks (see
                    // `Io::raw`, `job`); the XEX source kinds only on
                    // wide lanes (`xex_units`, `run`).
                    Level::Vaes512 => unsafe {
                        kernel::dispatch::<lane::Zmm, $nr>(dir, shape, job)
                    },
                    // SAFETY: as above.
                    Level::Vaes256 => unsafe {
                        kernel::dispatch::<lane::Ymm, $nr>(dir, shape, job)
                    },
                    // SAFETY: as above.
                    Level::AesNi => unsafe { kernel::dispatch::<lane::Xmm, $nr>(dir, shape, job) },
                }
            };
        }
        by_rounds!(self.rounds, go)
    }
}

impl Drop for AesKey {
    fn drop(&mut self) {
        self.enc.k.0.zeroize();
        self.dec.k.0.zeroize();
    }
}

impl ZeroizeOnDrop for AesKey {}

impl core::fmt::Debug for AesKey {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AesKey")
            .field("rounds", &self.rounds)
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

/// Offsets beside `crate::engine::job`'s `SRC_*`: XEX data units, deltas
/// made in registers (the wide lanes only).
const SRC_XEX: u8 = 3;
/// Benchmarks only (`bench.rs`, the bounds of XEX's kernel): as
/// [`SRC_XEX`] with every delta a constant (no cost), with the prologue of
/// the units' `E_K(N)` (`SRC_XEX_FREE`) and without (`SRC_XEX_BARE`).
const SRC_XEX_FREE: u8 = 4;
const SRC_XEX_BARE: u8 = 5;

/// One call's parameters, for the kernels (`crate::engine::job::Job`,
/// with this module's own in [`JobX`]).
type Job<'a> = crate::engine::job::Job<'a, JobX<'a>>;

/// The x86 kernels' parameters beside the shared ones.
struct JobX<'a> {
    /// The encryption round keys (for `extra`).
    enc: &'a [Block; 15],
    /// Null, or one block to encipher alongside (AES-NI back end only).
    extra: *mut Block,
    /// Blocks per XEX unit ([`SRC_XEX`]; `z` then holds `E_K(N_s)` per
    /// unit, 64-byte aligned, in whole registers: `xex_units::run`'s
    /// table).
    m: usize,
    /// The first XEX unit's number.
    unit0: u128,
}

/// One call of the Gligor–Donescu kernel (`gd.rs`).
struct GdJob<'a> {
    /// Round keys of the direction (encryption for XECB, the inverse
    /// cipher's for XCBC decryption).
    keys: &'a [Block; 15],
    /// The input blocks `0 .. n_src`.
    src: *const Block,
    n_src: usize,
    /// Null, or block `n_src` (XECB's padded last block).
    last: *const Block,
    /// Blocks processed: `n_src`, plus one with `last`.
    n: usize,
    /// XCBC decryption's outputs `0 .. n_out` (null for XECB).
    dst: *mut Block,
    n_out: usize,
    /// Null, or where the output of block `n - 1` goes when it is not one
    /// of the `n_out` (XCBC's check block).
    check: *mut Block,
    /// `z` before block 0 (XCBC decryption).
    prev: Block,
    r0: u128,
    /// The index i of block 0 (offset `i r0`).
    first: u128,
}

impl Drop for GdJob<'_> {
    fn drop(&mut self) {
        self.prev = [0; 16];
        self.r0 = 0;
        core::hint::black_box((&self.prev, &self.r0));
    }
}
