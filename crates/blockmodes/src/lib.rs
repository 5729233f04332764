//! # blockmodes
//!
//! Exact, fast and safe implementations of the block-cipher modes of
//! operation defined in five classic papers: OCB 1.0, PMAC, CWC, the XCBC
//! family and XECB-MAC, and the disk-encryption ciphers XEX, EME, StE and EtE.
//!
//! Every mode is generic over any 128-bit block cipher through the `cipher`
//! crate's traits; type aliases name the AES instantiations.
//!
//! **Speed:** the `aes` crate reaches its VAES speed only when the crate that
//! links it is built with `codegen-units = 1` in its release profile:
//!
//! ```toml
//! [profile.release]
//! codegen-units = 1
//! ```
//!
//! ## Features
//!
//! `#![no_std]`: every mode's in-place and detached calls work with no
//! feature. `alloc`: the `Vec`-returning calls, `aead::Aead`, the boxed
//! sector facade. `std` (default; implies `alloc`): per-thread scratch
//! buffers instead of stack ones. `rayon` (default): the multi-core PMAC,
//! pXCBC, XECB-MAC and sector paths. `getrandom` (default): the stateless
//! calls that draw r0 themselves: with `std`, from `rng::ThreadRng` (a
//! per-thread AES-256-CTR generator seeded from the operating system,
//! fork-safe), without it from the operating system on every call; without
//! `getrandom`, the `_with_rng` calls take a [`rand_core`] cryptographic
//! RNG.
//!
//! ## The papers, and where each lives
//! | paper | modes | modules |
//! | --- | --- | --- |
//! | Rogaway, Bellare, Black, Krovetz, OCB (2001) | OCB 1.0 | [`ocb1`] |
//! | Black, Rogaway, PMAC (2002) | PMAC | [`pmac`] |
//! | Kohno, Viega, Whiting, CWC (2004) | CWC, CWC-HASH | [`cwc`] |
//! | Gligor, Donescu, XCBC and XECB (2000) | XCBC$, XCBC, -XOR; pXCBC$, pXCBC; XECB$-MAC, XECB-MAC | [`xcbc`], [`pxcbc`], [`xecb`] (source folder `gligor_donescu/`) |
//! | Bellare, Cash, Keelveedhi, key-safe ciphers (2011) | StE, EtE over XEX and EME; EME2; sectors | [`xex`], [`eme`], [`eme2`], [`ste`], [`ete`], [`tweakable`], [`wide`], [`sector`] (source folder `disk/`) |
//!
//! Below the modes: [`oracle`], the block cipher as an oracle batched through
//! its parallel backend, and the shared arithmetic (GF(2^128), mod 2^128,
//! mod 2^127 - 1), written once and exposed for research under [`hazmat`].
//! `docs/architecture.md` in the repository describes the layers.
//!
//! **Unsafe code:** denied crate-wide (`#![deny(unsafe_code)]`), with
//! documented exceptions in SIMD modules, each chosen at key setup after a
//! CPU check with the safe code as the fallback: CWC-HASH's AVX-512 IFMA
//! and AVX2 kernels (`cwc/hash/ifma.rs`, `cwc/hash/avx2.rs`), the disk ciphers' AVX-512 kernels
//! (`disk/simd.rs`: StE's constant-time swap, the XEX/EME powers of x), and
//! the XCBC family's (`gligor_donescu/simd/`: the offsets `i·r0`, XCBC
//! decryption's xor-and-sum, pXCBC's gathers and scatters); and one own
//! x86-64 AES backend (`aesni/`: AES-NI and VAES-512 rounds with the
//! modes' whitening inside them, taken by the `aes` crate's AES types keyed
//! from bytes on a CPU with AES-NI: OCB1, PMAC, XEX and what is built on
//! XEX, XECB-MAC, and XCBC and pXCBC decryption today; checked against
//! FIPS-197 and the `aes` crate). Each keyed type
//! checks the CPU once; `portable()` (or the tests' forced path) runs the
//! safe fallback, and the tests compare both paths with the papers'
//! definitions. Outside the SIMD code, one small module: fork detection
//! for the thread RNG and the multi-core paths (`fork.rs`:
//! `pthread_atfork`, and on Linux a `MADV_WIPEONFORK` page, set up once per
//! process).
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(all(feature = "std", not(test)))]
extern crate std;

#[cfg(all(feature = "alloc", feature = "internals"))]
#[doc(hidden)]
#[path = "fuzz_hooks.rs"]
pub mod __fuzz;
#[cfg(target_arch = "x86_64")]
pub(crate) mod aesni;
mod arith;
#[cfg(target_arch = "aarch64")]
pub(crate) mod armv8;
// The tiers, the cap and `force`: public for blockmodes' own crates with
// the `internals` feature (the cap for users is `BLOCKMODES_CPU`).
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod backend;
#[cfg(not(feature = "internals"))]
#[allow(dead_code)]
mod backend;
mod disk;
mod engine;
#[cfg(all(feature = "std", any(feature = "getrandom", feature = "rayon")))]
mod fork;
mod gligor_donescu;
#[cfg(all(blockmodes_mca, target_arch = "aarch64"))]
#[doc(hidden)]
pub mod mca;
// The ignored benchmark tests' timing loop (`aesni/bench.rs`,
// `cwc/bench.rs`: x86-64 only).
#[cfg(all(test, feature = "std", target_arch = "x86_64"))]
mod measure;

pub mod cwc;
pub mod error;
pub mod ocb1;
pub mod oracle;
#[cfg(feature = "rayon")]
mod par;
pub mod pmac;
#[cfg(all(feature = "std", feature = "getrandom"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "std", feature = "getrandom"))))]
pub mod rng;
pub mod tag;

pub use disk::{eme, eme2, ete, sector, ste, tweakable, wide, xex};
pub use gligor_donescu::{pxcbc, xcbc, xecb};

/// Building blocks for research and for checking the modes by hand: the
/// shared GF(2^128) and modular arithmetic. Not needed to use any mode;
/// their interfaces may change between minor versions.
pub mod hazmat {
    pub use crate::arith::{gf128, modular};
    pub use crate::disk::fixed::{FixedTweak, Whitening};

    /// Lane-wise batching of the block cipher: several independent chains
    /// in lock step ([`encrypt_chains`](lanes::encrypt_chains)) and
    /// back-to-back batches ([`decrypt_par_b2b`](lanes::decrypt_par_b2b)),
    /// the engine under pXCBC and XCBC decryption.
    pub mod lanes {
        pub use crate::oracle::lanes::{
            B2B_BATCH, ChainWork, ParWorkB2b, decrypt_par_b2b, encrypt_chains,
        };
    }
}

pub use arith::gf128::Block;
pub use error::{Error, Result};

/// Re-exports of the crates whose traits the modes implement.
pub use aead;
pub use cipher;
pub use digest;
pub use rand_core;

/// AES block ciphers from the `aes` crate, for the type aliases of each mode.
pub use aes::{Aes128, Aes192, Aes256};

/// The README's Rust examples, compiled and run as doc tests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
