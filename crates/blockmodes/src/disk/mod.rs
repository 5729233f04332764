//! Bellare, Cash and Keelveedhi, "Ciphers that securely encipher their own
//! keys" (CCS 2011): the key-safe disk ciphers StE and EtE, over the
//! tweakable cipher XEX and the wide-block cipher EME that the paper cites,
//! plus EME2; and the sector interface that puts them on a disk image.
//!
//! The layers, from the bottom:
//! * [`tweakable`] and [`wide`]: the two abstractions the paper's transforms
//!   take (a tweakable block cipher, a wide-block tweakable cipher);
//! * `units`: the data-unit engine the ciphers share (batched passes,
//!   grouping of units), and `simd`, the kernels StE's swap and the
//!   engine's XEX and EME drivers use (carry-less products, AVX-512);
//! * the ciphers: [`xex`], [`eme`], [`eme2`], and the transforms [`ste`]
//!   (StE, of any tweakable block cipher) and [`ete`] (EtE, of a wide-block
//!   mode and a tweakable block cipher);
//! * [`sector`]: the sector interface above them.

pub mod eme;
pub mod eme2;
pub mod ete;
pub(crate) mod fixed;
pub mod sector;
pub(crate) mod simd;
pub mod ste;
pub mod tweakable;
pub(crate) mod units;
pub mod wide;
pub mod xex;
