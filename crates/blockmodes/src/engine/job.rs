//! One call of the whitened loop, shared by both architectures' engines
//! (`aesni`: `kernel.rs`, `xex_units.rs`; `armv8`: `kernel.rs`):
//! what the kernel computes around the rounds ([`Shape`]), where its
//! offsets come from (`SRC_*`) and which sum it keeps (`SUM_*`), the
//! call's parameters ([`Job`], built from [`Offsets`] by [`Job::new`],
//! with room for an architecture's own fields), and the one table from a
//! call's direction, shape and offsets to a kernel's const parameters
//! ([`by_shape`]). No intrinsics and no `unsafe`: the kernels that read a
//! [`Job`] are each architecture's.

// Off the engine's architectures (i686, ...) no engine expands them.
#![cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_macros, unused_imports)
)]

use super::{GrayTable, Offsets};
use crate::arith::gf128::{Block, xor};

/// What a kernel computes around the rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `out = E(in)`.
    Ecb,
    /// `out = E(in xor Z) xor Z`.
    Whiten,
    /// As `Whiten`, plus the xor of the plaintext side.
    WhitenSum,
    /// The xor of `E(in xor Z)`, encryption only, nothing stored.
    Sigma,
}

/// Offsets: none (ECB), a slice, Gray code (an architecture may add its
/// own kinds from 3 on: `aesni`'s XEX units).
pub(crate) const SRC_NONE: u8 = 0;
pub(crate) const SRC_SLICE: u8 = 1;
pub(crate) const SRC_GRAY: u8 = 2;

/// Sum: none, the inputs, the cipher outputs.
pub(crate) const SUM_NONE: u8 = 0;
pub(crate) const SUM_IN: u8 = 1;
pub(crate) const SUM_OUT: u8 = 2;

/// One call's parameters, for the kernels; `X` holds an architecture's
/// own (`aesni`'s extra block and XEX units; none on `armv8`).
pub(crate) struct Job<'a, X = ()> {
    /// Round keys of the direction.
    pub(crate) keys: &'a [Block; 15],
    pub(crate) src: *const Block,
    /// Null when nothing is stored ([`Shape::Sigma`]).
    pub(crate) dst: *mut Block,
    /// Blocks: `src`, `dst` (unless null) and `z` (for a slice) hold at
    /// least this many.
    pub(crate) n: usize,
    pub(crate) src_kind: u8,
    pub(crate) z: *const Block,
    pub(crate) gray: Option<&'a GrayTable>,
    /// Index of the first block (Gray code).
    pub(crate) first: u64,
    /// `W_q` for `q = first >> 6` (Gray code).
    pub(crate) w: Block,
    /// The architecture's own parameters (none read on aarch64).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) x: X,
}

impl<'a, X> Job<'a, X> {
    /// The call over `n` blocks from `src` to `dst` with the round keys
    /// `keys` and the offsets `offsets` (none for ECB; a slice cuts `n` to
    /// its length; Gray code gets the first block's group base `W_q`).
    pub(crate) fn new(
        keys: &'a [Block; 15],
        src: *const Block,
        dst: *mut Block,
        mut n: usize,
        offsets: Option<&Offsets<'a>>,
        x: X,
    ) -> Self {
        let mut job = Job {
            keys,
            src,
            dst,
            n: 0,
            src_kind: SRC_NONE,
            z: core::ptr::null(),
            gray: None,
            first: 0,
            w: [0; 16],
            x,
        };
        match offsets {
            None => {}
            Some(Offsets::Slice(z)) => {
                n = n.min(z.len());
                job.src_kind = SRC_SLICE;
                job.z = z.as_ptr();
            }
            Some(Offsets::Gray { table, first, r }) => {
                job.src_kind = SRC_GRAY;
                job.gray = Some(table);
                job.first = *first;
                // W_q = Z[64q] = gamma_{64q} L xor R for the first block's group.
                let q = first >> 6;
                job.w = if q == 0 {
                    **r
                } else {
                    xor(r, &table.gamma(q << 6))
                };
            }
        }
        job.n = n;
        job
    }
}

impl<X> Drop for Job<'_, X> {
    fn drop(&mut self) {
        self.w = [0; 16];
        core::hint::black_box(&self.w);
    }
}

/// `$go!(DEC, SRC, POST, SUM, STORE)` (a kernel's const parameters, each
/// one token) for a call's direction `$dir`, [`Shape`] `$shape` and
/// offsets' kind `$src` ([`SRC_SLICE`], else Gray code): the one table
/// from a call to its kernel, for `aesni::kernel::dispatch` and
/// `armv8::AesKey::run_on`. `by_shape!(@whiten ...)` is its whitened
/// half alone (`Whiten`, or else `WhitenSum`: `armv8`'s `EOR3` kernels).
macro_rules! by_shape {
    ($dir:expr, $shape:expr, $src:expr, $go:ident) => {{
        use $crate::engine::Dir;
        use $crate::engine::job::{SRC_GRAY, SRC_NONE, SRC_SLICE, SUM_NONE, SUM_OUT, Shape};
        match ($dir, $shape) {
            (Dir::Encrypt, Shape::Ecb) => $go!(false, { SRC_NONE }, false, { SUM_NONE }, true),
            (Dir::Decrypt, Shape::Ecb) => $go!(true, { SRC_NONE }, false, { SUM_NONE }, true),
            (_, Shape::Sigma) if $src == SRC_SLICE => {
                $go!(false, { SRC_SLICE }, false, { SUM_OUT }, false)
            }
            (_, Shape::Sigma) => $go!(false, { SRC_GRAY }, false, { SUM_OUT }, false),
            (dir, shape) => $crate::engine::job::by_shape!(@whiten dir, shape, $src, $go),
        }
    }};
    (@whiten $dir:expr, $shape:expr, $src:expr, $go:ident) => {{
        use $crate::engine::Dir;
        use $crate::engine::job::{SRC_GRAY, SRC_SLICE, SUM_IN, SUM_NONE, SUM_OUT, Shape};
        match ($dir, $shape == Shape::WhitenSum, $src == SRC_SLICE) {
            (Dir::Encrypt, false, true) => $go!(false, { SRC_SLICE }, true, { SUM_NONE }, true),
            (Dir::Encrypt, false, false) => $go!(false, { SRC_GRAY }, true, { SUM_NONE }, true),
            (Dir::Decrypt, false, true) => $go!(true, { SRC_SLICE }, true, { SUM_NONE }, true),
            (Dir::Decrypt, false, false) => $go!(true, { SRC_GRAY }, true, { SUM_NONE }, true),
            (Dir::Encrypt, true, true) => $go!(false, { SRC_SLICE }, true, { SUM_IN }, true),
            (Dir::Encrypt, true, false) => $go!(false, { SRC_GRAY }, true, { SUM_IN }, true),
            (Dir::Decrypt, true, true) => $go!(true, { SRC_SLICE }, true, { SUM_OUT }, true),
            (Dir::Decrypt, true, false) => $go!(true, { SRC_GRAY }, true, { SUM_OUT }, true),
        }
    }};
}
pub(crate) use by_shape;
