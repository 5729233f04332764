//! Gligor and Donescu, "Fast encryption and authentication: XCBC encryption
//! and XECB authentication modes" (FSE 2001): the XCBC family ([`xcbc`]),
//! its parallel form pXCBC ([`pxcbc`]) and the XECB MACs ([`xecb`]).
//!
//! The three share their keys and r0 handling (`keys`, `counter`), the
//! padding of the last block (`padding`), the offsets `i·r0` mod 2^128
//! (`offsets`) and the XCBC chaining core (`chain`). The fast path for AES
//! keys is the engine's (`crate::aesni`); the generic path, for every other
//! cipher, is portable Rust (no `unsafe`).

pub(crate) mod chain;
pub(crate) mod counter;
pub(crate) mod keys;
pub(crate) mod offsets;
pub(crate) mod padding;

pub mod pxcbc;
pub mod xcbc;
pub mod xecb;
