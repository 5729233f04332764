//! Gligor and Donescu, "Fast encryption and authentication: XCBC encryption
//! and XECB authentication modes" (FSE 2001): the XCBC family ([`xcbc`]),
//! its parallel form pXCBC ([`pxcbc`]) and the XECB MACs ([`xecb`]).
//!
//! The three share their keys and r0 handling (`keys`, `counter`), the
//! padding of the last block (`padding`), the offsets `i·r0` mod 2^128
//! (`offsets`), the XCBC chaining core (`chain`) and one AVX-512 module
//! (`simd`).

pub(crate) mod chain;
pub(crate) mod counter;
pub(crate) mod keys;
pub(crate) mod offsets;
pub(crate) mod padding;
pub(crate) mod simd;

pub mod pxcbc;
pub mod xcbc;
pub mod xecb;
