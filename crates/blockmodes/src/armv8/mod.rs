//! blockmodes' own AES on aarch64 (the ARMv8 Crypto Extensions): the key
//! schedule, ECB and the modes' offset-whitened loops with the whitening
//! folded into the first and last rounds — the `armv8` tier of
//! `crate::backend`, the aarch64 counterpart of `crate::aesni`.
//!
//! # The rounds, and where the whitening folds
//!
//! `AESE(s, k)` is `ShiftRows(SubBytes(s xor k))`: the round key is xored
//! *before* the S-boxes, unlike x86's `aesenc` (after MixColumns). A round
//! is `AESMC(AESE(s, K[r]))` (a pair the big cores fuse), and a block is
//!
//! ```text
//! s = AESE(x, K0); s = AESMC(s); ...; s = AESE(s, K[Nr-1]); y = s xor K[Nr]
//! ```
//!
//! so for `C = E_K(M xor Z) xor Z` (XEX, OCB 1.0, PMAC's terms) the first
//! `AESE`'s key operand is `Z xor K0` (the state is `M` as loaded) and the
//! last step is one xor with `K[Nr] xor Z`: two vector xors per block on
//! top of ECB's rounds (one where the CPU has FEAT_SHA3: `EOR3(s, Z xor
//! K0, K0 xor K[Nr])` makes the last xor and its operand one instruction;
//! `kernel.rs` is compiled both ways and the choice made at run time).
//! Decryption is the same shape with `AESD`/`AESIMC`
//! and the equivalent inverse cipher's keys (FIPS-197 section 5.3.5:
//! `InvMixColumns` of round keys 1 .. Nr-1, in reverse order), as
//! `aesni`'s. A sum of inputs (OCB's Checksum) or outputs (its Checksum
//! when decrypting, PMAC's Σ) is one xor per block; Σ's `K[Nr]` is folded
//! once per call (the xor of n copies is `K[Nr]` or zero).
//!
//! # Interface
//!
//! [`AesKey`] (AES-128/192/256 round keys, zeroized on drop) offers the
//! subset of `aesni::AesKey` the modes on this tier call, with the same
//! names and contracts: [`AesKey::ecb`], [`AesKey::whiten`],
//! [`AesKey::sigma`], [`AesKey::ocb_blocks`] (and `_append`),
//! [`AesKey::encrypt_block`], [`AesKey::decrypt_block`],
//! [`AesKey::encrypt_be`], [`AesKey::xecb_sum`] (XECB-MAC),
//! [`AesKey::xcbc_decrypt`] (XCBC$-XOR and pXCBC decryption),
//! [`AesKey::has_chains`] (true) and [`AesKey::xcbc_strided`] (pXCBC$
//! encryption's lock-step chains, `chains.rs`), [`AesKey::xcbc_chain`]
//! (XCBC$-XOR encryption's serial chain, `chains.rs`),
//! `AesKey::wide_first` and `AesKey::wide_last` (EME's and EME2's two
//! passes, `wide.rs`) and `SteXex` (EtE's, with StE over XEX inside);
//! the x86-only shapes answer "not here"
//! ([`AesKey::xex_units`] false, [`AesKey::sigma_tag`] `None`,
//! `AesKey::wide_first_mid` `None`, `AesKey::wide_units` false) and the
//! caller takes the general one.
//! The loop is eight blocks in flight (eight independent `AESE`/`AESMC`
//! chains hide the instructions' latency), a remainder as one batch of as
//! many blocks as it has; the offsets come from a slice (XEX) or the
//! Gray-code tables ([`GrayTable`]: `Z[64q + j] = W_q xor gamma_j L`, one
//! load and one xor per block).
//!
//! EME's passes fold their whitening the same way: the first pass's
//! `G(P_j xor L_j)` is `AESE(P_j, L_j xor K0)` first, the last pass's
//! `G(CCC_j) xor L_j` with `CCC_j = PPP_j xor M x^(j-1)` is `AESE(PPP_j,
//! M x^(j-1) xor K0)` first and one xor of `L_j xor K[Nr]` last; the
//! powers of M are doubled in general registers and reach the vector
//! side through memory (the vector pipes are the rounds'). EtE's passes
//! add StE's swap of K and H (vector compares, no branch) and, in the
//! pass that has it, the ECB layer's cipher in the same batch.
//!
//! The CPU is checked once, at key setup ([`detect`], `cpufeatures`:
//! Linux's `getauxval`, macOS's `sysctl`, no `std` needed).
//!
//! # CWC's counter mode
//!
//! [`AesKey::ctr32`] and [`AesKey::ctr32_append`] (`ctr.rs`, CWC-CTR with
//! its 32-bit big-endian counter, as `aesni::AesKey::ctr32`): the counter
//! blocks made in registers, eight blocks in flight; from the first
//! counter that is a multiple of 8, one counter block per batch and the
//! blocks' low bits in the first key operand (`AESE(cb + v, K0) = AESE(cb,
//! K0 xor v)`), the data and `K[Nr]` xored into the last round's output in
//! one `EOR3` where the CPU has FEAT_SHA3 (checked at run time), else two
//! `EOR`s. `cwc/fused.rs` runs CWC on it; CWC-HASH stays portable.
//!
//! # pXCBC$ encryption's chains
//!
//! [`AesKey::xcbc_strided`] (`chains.rs`, the contract of
//! `aesni::AesKey::xcbc_strided`, its types `Chains`, `ChainIo` and
//! `CHAIN_BATCH` in `crate::engine`): up to 64 segment chains per call,
//! eight in lock step, one register each (each chain is serial: the eight
//! hide the `AESE`/`AESMC` latency). The chain's xor folds into the first
//! `AESE` like the whitening: the state carried between rounds is the
//! last `AESE`'s output (`z xor K[Nr]`, its key xor left out), and the
//! first `AESE`'s key operand is `x xor K0 xor K[Nr]`, made from the load
//! off the chain; `y = z + i r0^(s)` is an add with carry in general
//! registers (z's halves byte-reversed out of the vector register). z0^(s)
//! is one ECB call before the rounds (the two-key form's from f''s
//! companion key, [`companion_key`]). `gligor_donescu/pxcbc/encrypt.rs`
//! runs pXCBC$ encryption on it. XCBC$-XOR encryption's single serial
//! chain is [`AesKey::xcbc_chain`] (`chains.rs`).
//!
//! # Why `unsafe`
//!
//! * The kernels are compiled with `#[target_feature(enable =
//!   "aes,neon")]`; calling them is `unsafe` because the CPU must have
//!   AES: an [`AesKey`] exists only after [`detect`] found it.
//! * Vector loads and stores take raw pointers: the safe methods compute
//!   the block count as the minimum of every slice's length ([`Io::raw`],
//!   the offsets' slice), and the kernels touch only blocks below it.
//!
//! No branch or memory index depends on a key, a block or an offset: only
//! on lengths and block indices (which are public).
#![allow(unsafe_code)]
// Shapes used by the tests only so far (ECB's decryption, `Io::B2b`).
#![cfg_attr(not(test), allow(dead_code))]

mod kernel;
mod schedule;
#[cfg(test)]
mod tests;

// CWC's counter mode (`ctr.rs`: `AesKey::ctr32`, `AesKey::ctr32_append`).
mod ctr;

// pXCBC$ encryption's lock-step chains (`chains.rs`: `AesKey::xcbc_strided`).
mod chains;
pub(crate) use crate::engine::{CHAIN_BATCH, ChainIo};
/// The chains' shape and state for [`AesKey::xcbc_strided`].
pub(crate) type Chains<'a> = crate::engine::Chains<'a, AesKey>;

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::arith::gf128::Block;
#[cfg(feature = "alloc")]
use crate::engine::append_blocks;
pub(crate) use crate::engine::{Aligned, Dir, GrayTable, Io, Offsets};

use crate::engine::dispatch::by_rounds;
use crate::engine::job::{Shape, by_shape};
use kernel::Job;
#[cfg(blockmodes_mca)]
pub(crate) use kernel::{mca_begin, mca_end};

cpufeatures::new!(cpu_aes, "aes");

/// Whether this CPU has the ARMv8 AES instructions (checked once, cached
/// by `cpufeatures`; NEON is part of every aarch64 target Rust builds for).
pub(crate) fn detect() -> bool {
    cpu_aes::get()
}

// FEAT_SHA3 (`EOR3`, a three-way xor), checked at run time: the kernels
// compiled with it (CWC's counter mode, the whitened loop's `POST`
// shapes) run where the CPU has it, the plain ones elsewhere.
cpufeatures::new!(cpu_sha3, "sha3");

/// The engine's one level on aarch64 (the tier `armv8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// `AESE`/`AESMC` on NEON registers, one block each.
    Armv8,
}

/// The fused kernels' key for a mode keyed with the cipher `C` and the key
/// bytes `key`: as `aesni::key_for` (one of the `aes` crate's AES types,
/// its key length, and the engine and `C` agreeing on `E_K(0^128)`;
/// `backend::key_for` has checked that the cap and `backend::force` allow
/// `armv8`).
pub(crate) fn key_for<C: crate::oracle::BlockCipher128>(key: &[u8], cipher: &C) -> Option<AesKey> {
    if crate::engine::aes_key_len::<C>()? != key.len() {
        return None;
    }
    let k = AesKey::new(key)?;
    let e0 = k.encrypt_block(&[0; 16]);
    crate::engine::agrees(cipher, k, e0, true)
}

/// A second key for a mode whose first key `first` is on the fused path
/// (XCBC's f' beside f), as `aesni::companion_key`: the key bytes `key` of
/// the same cipher `C` ([`crate::engine::companion_key`] checks the length
/// and that `C` and the expanded key agree).
pub(crate) fn companion_key<C: crate::oracle::BlockCipher128>(
    first: &AesKey,
    key: &[u8],
    cipher: &C,
) -> Option<AesKey> {
    crate::engine::companion_key(
        first.rounds,
        key,
        cipher,
        AesKey::new,
        AesKey::encrypt_block,
    )
}

/// Round keys (entry 0 the first `AESE`'s, entry `rounds` the last xor's),
/// cache-line aligned.
#[derive(Clone)]
struct RoundKeys(Aligned<[Block; 15]>);

/// An AES-128, -192 or -256 key expanded for the ARMv8 kernels, on a CPU
/// that runs them. Zeroized on drop.
#[derive(Clone)]
pub(crate) struct AesKey {
    enc: RoundKeys,
    dec: RoundKeys,
    /// 10, 12 or 14.
    rounds: usize,
}

impl AesKey {
    /// Expand a 16-, 24- or 32-byte key; `None` for any other length or if
    /// this CPU has no AES instructions.
    pub(crate) fn new(key: &[u8]) -> Option<Self> {
        if !detect() {
            return None;
        }
        let rounds = match key.len() {
            16 => 10,
            24 => 12,
            32 => 14,
            _ => return None,
        };
        let mut k = Self {
            enc: RoundKeys(Aligned([[0; 16]; 15])),
            dec: RoundKeys(Aligned([[0; 16]; 15])),
            rounds,
        };
        // SAFETY: `detect` found the AES instructions (NEON is baseline).
        unsafe { schedule::expand(key, &mut k.enc.0.0, &mut k.dec.0.0) };
        Some(k)
    }

    /// Whether this CPU has FEAT_SHA3, so that the `EOR3` kernels run.
    pub(super) fn has_eor3() -> bool {
        cpu_sha3::get()
    }

    /// The level this key runs on.
    pub(crate) fn level(&self) -> Level {
        Level::Armv8
    }

    /// The round keys of `dir` (the inverse cipher's for decryption).
    fn keys(&self, dir: Dir) -> &[Block; 15] {
        match dir {
            Dir::Encrypt => &self.enc.0.0,
            Dir::Decrypt => &self.dec.0.0,
        }
    }

    /// `E_K(block)`.
    pub(crate) fn encrypt_block(&self, block: &Block) -> Block {
        let mut b = *block;
        self.ecb(Dir::Encrypt, Io::InPlace(core::slice::from_mut(&mut b)));
        b
    }

    /// `E_K^-1(block)`.
    pub(crate) fn decrypt_block(&self, block: &Block) -> Block {
        let mut b = *block;
        self.ecb(Dir::Decrypt, Io::InPlace(core::slice::from_mut(&mut b)));
        b
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
        self.whiten_on(Self::has_eor3(), dir, offsets, sum, io)
    }

    /// [`whiten`](Self::whiten) on the `EOR3` kernel if `eor3` (the CPU
    /// must have SHA-3: [`has_eor3`](Self::has_eor3)), else on the plain
    /// one (the tests take both).
    pub(super) fn whiten_on(
        &self,
        eor3: bool,
        dir: Dir,
        offsets: Offsets<'_>,
        sum: bool,
        io: Io<'_, '_>,
    ) -> Block {
        let (src, dst, n) = io.raw();
        let shape = if sum { Shape::WhitenSum } else { Shape::Whiten };
        let job = self.job(dir, src, dst, n, Some(&offsets));
        self.run_on(eor3 && Self::has_eor3(), dir, shape, &job)
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

    /// `E_K` of the big-endian block of the integer `x`.
    pub(crate) fn encrypt_be(&self, x: u128) -> Block {
        self.encrypt_block(&x.to_be_bytes())
    }

    /// XECB-MAC's sum (Gligor–Donescu, section 5), as
    /// `aesni::AesKey::xecb_sum`: the xor of `E_K(x_t + (first + t) r0)`
    /// over the blocks `x_t` of `blocks` and then, if given, `last` (`+`
    /// mod 2^128 on big-endian blocks); nothing stored.
    pub(crate) fn xecb_sum(
        &self,
        r0: u128,
        first: u128,
        blocks: &[Block],
        last: Option<&Block>,
    ) -> Block {
        let keys = self.keys(Dir::Encrypt);
        let (src, n) = (blocks.as_ptr(), blocks.len());
        let last = last.map_or(core::ptr::null(), |b| b as *const Block);
        // SAFETY: an `AesKey` exists only where `detect` found the AES
        // instructions; `src` holds `n` blocks, `last` is null or one block.
        unsafe {
            match self.rounds {
                10 => kernel::xecb_sum::<10>(keys, r0, first, src, n, last),
                12 => kernel::xecb_sum::<12>(keys, r0, first, src, n, last),
                _ => kernel::xecb_sum::<14>(keys, r0, first, src, n, last),
            }
        }
    }

    /// XCBC decryption (Gligor–Donescu, section 3), as
    /// `aesni::AesKey::xcbc_decrypt`: of `input` = `y_first, y_first+1,
    /// ...`, `z_t = y_t - (first + t) r0` (mod 2^128, big-endian), `x_t =
    /// E_K^-1(z_t) xor z_{t-1}` with `z_{-1} = prev`; `out[t] = x_t`.
    /// Returns the xor of the `x_t` written to `out`. With `check`, `input`
    /// holds one block more than `out` (the check block), whose `x` goes to
    /// `check` and not into the sum; without, the shorter of `input` and
    /// `out` counts.
    pub(crate) fn xcbc_decrypt(
        &self,
        r0: u128,
        first: u128,
        prev: &Block,
        input: &[Block],
        out: &mut [Block],
        check: Option<&mut Block>,
    ) -> Block {
        self.xcbc_decrypt_on(Self::has_eor3(), r0, first, prev, input, out, check)
    }

    /// [`xcbc_decrypt`](Self::xcbc_decrypt) on the `EOR3` kernel if `eor3`
    /// and the CPU has SHA-3, else on the plain one (the tests take both).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn xcbc_decrypt_on(
        &self,
        eor3: bool,
        r0: u128,
        first: u128,
        prev: &Block,
        input: &[Block],
        out: &mut [Block],
        check: Option<&mut Block>,
    ) -> Block {
        let (n, n_out, check) = crate::engine::xcbc_counts(input, out, check);
        let keys = self.keys(Dir::Decrypt);
        let (src, dst) = (input.as_ptr(), out.as_mut_ptr());
        let eor3 = eor3 && Self::has_eor3();
        macro_rules! go {
            ($k:ident, $nr:literal) => {
                kernel::$k::xcbc_decrypt::<$nr>(keys, r0, first, prev, src, n, dst, n_out, check)
            };
        }
        // SAFETY: an `AesKey` exists only where `detect` found the AES
        // instructions, and `eor3` only where SHA-3 is present; `src` holds
        // `n` blocks, `dst` `n_out <= n` (a distinct borrow), `check` is a
        // block whenever `n > n_out`.
        unsafe {
            match (self.rounds, eor3) {
                (10, false) => go!(plain, 10),
                (12, false) => go!(plain, 12),
                (_, false) => go!(plain, 14),
                (10, true) => go!(sha3, 10),
                (12, true) => go!(sha3, 12),
                (_, true) => go!(sha3, 14),
            }
        }
    }

    /// XCBC's encryption chain over `n` blocks `x(0) .. x(n - 1)` from
    /// `z0`, then, if `CHECK`, the check block (the contract of
    /// `gligor_donescu::chain::encrypt_blocks` and of
    /// `aesni::AesKey::xcbc_chain`): `out[i - 1] = y_i`, `n + CHECK`
    /// blocks. One function, the keys in registers (`chains.rs`).
    pub(crate) fn xcbc_chain<const CHECK: bool>(
        &self,
        r0: u128,
        z0: &Block,
        n: usize,
        x: impl Fn(usize) -> Block,
        out: &mut [Block],
    ) {
        debug_assert_eq!(out.len(), n + CHECK as usize);
        let keys = self.keys(Dir::Encrypt);
        // SAFETY: an `AesKey` exists only where `detect` found the AES
        // instructions (NEON is baseline).
        unsafe {
            match self.rounds {
                10 => chains::xcbc_chain::<10, CHECK>(keys, r0, z0, n, x, out),
                12 => chains::xcbc_chain::<12, CHECK>(keys, r0, z0, n, x, out),
                _ => chains::xcbc_chain::<14, CHECK>(keys, r0, z0, n, x, out),
            }
        }
    }

    /// Whether [`xcbc_strided`](Self::xcbc_strided) runs on this key:
    /// always on this tier.
    pub(crate) fn has_chains(&self) -> bool {
        true
    }

    /// XCBC encryption of up to [`CHAIN_BATCH`] independent chains
    /// (pXCBC's segments, Gligor–Donescu section 4), eight at a time in
    /// lock step (`chains.rs`), as `aesni::AesKey::xcbc_strided`: for each
    /// chain l < `io.lanes` and round t < `n`, `x` = its block t,
    /// `sums[l] ^= x`, `z[l] = E_K(z[l] xor x)`,
    /// `y = z[l] + (first + t) (r0 + l)` (mod 2^128, big-endian blocks)
    /// into its output t; with `check`, one more round with `x = sums[l]`
    /// (the check block) into its output n. `z` and `sums` carry the
    /// chains from one call to the next (or `z0` starts them: one ECB
    /// call under its key). Returns true (the shape is always here).
    ///
    /// # Panics
    /// If `io` does not hold n blocks for every chain's input and
    /// `n + check` (at most its stride) for every chain's output.
    pub(crate) fn xcbc_strided(&self, chains: &mut Chains<'_>, io: ChainIo<'_, '_>) -> bool {
        let (n, check, lanes) = (chains.n, chains.check, io.lanes.min(CHAIN_BATCH));
        if lanes == 0 || n + usize::from(check) == 0 {
            return true;
        }
        let bounds = io.check(n, n + usize::from(check), lanes);
        if let Some((k, c)) = chains.z0 {
            for (l, z) in chains.z[..lanes].iter_mut().enumerate() {
                *z = c.wrapping_add(l as u128).to_be_bytes();
            }
            k.ecb(Dir::Encrypt, Io::InPlace(&mut chains.z[..lanes]));
            chains.sums[..lanes].copy_from_slice(&chains.z[..lanes]);
        }
        let dst = io.dst.as_mut_ptr();
        let mut g = 0;
        while g < lanes {
            let end = lanes.min(g + chains::CHAINS);
            let mut job = chains::ChainsJob {
                keys: self.keys(Dir::Encrypt),
                src: [core::ptr::null(); chains::CHAINS],
                dst: [core::ptr::null_mut(); chains::CHAINS],
                n,
                check,
                r0: chains.r0.wrapping_add(g as u128),
                first: chains.first,
                z: &mut chains.z[g..end],
                sums: &mut chains.sums[g..end],
            };
            for l in g..end {
                job.src[l - g] = io.chain_src(l, bounds);
                job.dst[l - g] = dst.wrapping_add(l * io.dst_stride);
            }
            macro_rules! go {
                ($nr:literal) => {
                    // SAFETY: an `AesKey` exists only where `detect` found
                    // the AES instructions; every chain's input pointer
                    // covers n blocks and its output pointer n + check,
                    // the outputs disjoint from each other (`ChainIo::check`)
                    // and from the inputs (a distinct borrow); `z`, `sums`
                    // hold the group's chains.
                    unsafe {
                        match end - g {
                            1 => chains::chains::<$nr, 1>(&mut job),
                            2 => chains::chains::<$nr, 2>(&mut job),
                            3 => chains::chains::<$nr, 3>(&mut job),
                            4 => chains::chains::<$nr, 4>(&mut job),
                            5 => chains::chains::<$nr, 5>(&mut job),
                            6 => chains::chains::<$nr, 6>(&mut job),
                            7 => chains::chains::<$nr, 7>(&mut job),
                            _ => chains::chains::<$nr, 8>(&mut job),
                        }
                    }
                };
            }
            by_rounds!(self.rounds, go);
            g = end;
        }
        true
    }

    /// PMAC's short-message tag in one function: not on this tier (`None`:
    /// the caller takes [`sigma`](Self::sigma)).
    pub(crate) fn sigma_tag(&self, _table: &GrayTable, _in: &[Block], _x: &Block) -> Option<Block> {
        None
    }

    /// XEX over whole data units with the deltas made in registers: not on
    /// this tier (false, nothing done: the caller uses [`Offsets::Slice`]).
    pub(crate) fn xex_units(&self, _dir: Dir, _first: u128, _m: usize, _io: Io<'_, '_>) -> bool {
        false
    }

    /// OCB 1.0's full blocks from index 1 (`ocb1/fused.rs`), as
    /// `aesni::AesKey::ocb_blocks`: `out[t] = E_K(in[t] xor Z[1 + t]) xor
    /// Z[1 + t]` (or `E_K^-1`), returning the xor of the plaintext blocks,
    /// and `*y = E_K(*y)`.
    pub(crate) fn ocb_blocks(
        &self,
        dir: Dir,
        table: &GrayTable,
        r: &Block,
        io: Io<'_, '_>,
        y: &mut Block,
    ) -> Block {
        let off = Offsets::Gray { table, first: 1, r };
        let sum = self.whiten(dir, off, true, io);
        *y = self.encrypt_block(y);
        sum
    }

    /// As [`ocb_blocks`](Self::ocb_blocks) from `input` onto the end of
    /// `out` (`16 * input.len()` bytes appended, written once).
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

    fn job<'a>(
        &'a self,
        dir: Dir,
        src: *const Block,
        dst: *mut Block,
        n: usize,
        offsets: Option<&Offsets<'a>>,
    ) -> Job<'a> {
        Job::new(self.keys(dir), src, dst, n, offsets, ())
    }

    /// Dispatch to the round count and the shape (the plain kernels).
    fn run(&self, dir: Dir, shape: Shape, job: &Job<'_>) -> Block {
        self.run_on(false, dir, shape, job)
    }

    /// Dispatch to the round count and the shape; the whitened shapes on
    /// the `EOR3` kernel if `eor3` (checked by the caller: SHA-3).
    fn run_on(&self, eor3: bool, dir: Dir, shape: Shape, job: &Job<'_>) -> Block {
        if job.n == 0 {
            return [0; 16];
        }
        macro_rules! plain {
            ($dec:tt, $src:tt, $post:tt, $sum:tt, $store:tt) => {
                kernel::plain::entry::<NR, $dec, $src, $post, $sum, $store>(job)
            };
        }
        macro_rules! sha3 {
            ($dec:tt, $src:tt, $post:tt, $sum:tt, $store:tt) => {
                kernel::sha3::entry::<NR, $dec, $src, $post, $sum, $store>(job)
            };
        }
        macro_rules! go {
            ($nr:literal) => {{
                const NR: usize = $nr;
                // SAFETY: an `AesKey` exists only where `detect` found the
                // AES instructions, and `eor3` only where the caller found
                // SHA-3; `job`'s pointers cover `job.n` blocks (`Io::raw`,
                // `job`), `dst` unless the shape is `Sigma`.
                unsafe {
                    match shape {
                        Shape::Whiten | Shape::WhitenSum if eor3 => {
                            by_shape!(@whiten dir, shape, job.src_kind, sha3)
                        }
                        _ => by_shape!(dir, shape, job.src_kind, plain),
                    }
                }
            }};
        }
        by_rounds!(self.rounds, go)
    }
}

impl Drop for AesKey {
    fn drop(&mut self) {
        self.enc.0.0.zeroize();
        self.dec.0.0.zeroize();
    }
}

impl ZeroizeOnDrop for AesKey {}

impl core::fmt::Debug for AesKey {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AesKey")
            .field("rounds", &self.rounds)
            .finish_non_exhaustive()
    }
}

// EME's, EME2's and EtE's passes (`wide.rs`: `AesKey::wide_first`,
// `wide_last`, `SteXex`).
mod wide;
// (The modes name it `crate::backend::SteXex`.)
#[cfg(test)]
use wide::SteXex;
