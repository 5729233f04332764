//! The arithmetic the modes share, written once: GF(2^128) doubling and
//! halving in both byte conventions, Gray-code offsets and powers of x
//! ([`gf128`]), and addition mod 2^128 and the mod 2^127 - 1 polynomial
//! field of CWC ([`modular`]).

pub mod gf128;
pub mod modular;
