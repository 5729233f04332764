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
//! ## Layout
//! * [`gf128`], [`modular`]: the shared arithmetic (GF(2^128) doubling and
//!   halving in both byte conventions, Gray-code offsets, mod 2^128 and
//!   mod 2^127 - 1), written once.
//! * [`oracle`]: the block cipher as an oracle, batched through its parallel backend.
//! * one module per mode, named after its paper.
//!
//! **Unsafe code:** denied crate-wide (`#![deny(unsafe_code)]`), with one
//! documented exception: the AVX-512 IFMA kernel of CWC-HASH
//! (`cwc/hash/ifma.rs`, x86-64 only, chosen at key setup after a CPU
//! check, with the portable code as the fallback); its module docs give the
//! benchmark that justified it. The disk ciphers have a second one, their
//! AVX-512 kernels (`sector/simd.rs`: StE's constant-time swap and the
//! XEX/EME powers of x, same CPU check and fallback), justified the same way,
//! and the XCBC family a third (`xcbc/simd.rs`: the big-endian offsets
//! `i·r0`, XCBC decryption's xor-and-sum, pXCBC's strided gathers and
//! scatters). Each keyed type checks the CPU once; `portable()` (or the
//! tests' forced path) runs the safe fallback, and the tests compare both
//! paths with the papers' definitions.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod cwc;
pub mod error;
pub mod gf128;
pub mod modular;
pub mod ocb1;
pub mod oracle;
pub mod pmac;
mod scratch;
pub mod tag;

pub mod eme;
pub mod eme2;
pub mod ete;
pub mod sector;
pub mod ste;
pub mod tweakable;
pub mod wide;
pub mod xex;

pub use error::{Error, Result};
pub use gf128::Block;

/// Re-exports of the crates whose traits the modes implement.
pub use aead;
pub use cipher;
pub use digest;

/// AES block ciphers from the `aes` crate, for the type aliases of each mode.
pub use aes::{Aes128, Aes192, Aes256};
pub mod pxcbc;
pub mod xcbc;
pub mod xecb;

/// The README's Rust examples, compiled and run as doc tests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
