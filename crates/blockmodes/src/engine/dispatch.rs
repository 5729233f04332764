//! The match tables every engine's dispatch writes, shared by both
//! architectures (`aesni`, `armv8`): a key's round count ([`by_rounds`])
//! and a batch's register or block count ([`by_count8`]) turned into a
//! const generic. Macros only: each expands to the same `match` the
//! kernels had written out, so the instantiated code is unchanged.

// Off the engine's architectures (i686, ...) no engine expands them.
#![cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_macros, unused_imports)
)]

/// `$go!(NR)` for a key's round count `$rounds` (10, 12, else 14).
macro_rules! by_rounds {
    ($rounds:expr, $go:ident) => {
        match $rounds {
            10 => $go!(10),
            12 => $go!(12),
            _ => $go!(14),
        }
    };
}
pub(crate) use by_rounds;

/// `$go!(V, args..)` for a count `$n` of 1 ..= 8 (anything else: 8), the
/// `args` passed on as they are (one token each: parenthesise an
/// expression).
macro_rules! by_count8 {
    ($n:expr, $go:ident $(, $arg:tt)*) => {
        match $n {
            1 => $go!(1 $(, $arg)*),
            2 => $go!(2 $(, $arg)*),
            3 => $go!(3 $(, $arg)*),
            4 => $go!(4 $(, $arg)*),
            5 => $go!(5 $(, $arg)*),
            6 => $go!(6 $(, $arg)*),
            7 => $go!(7 $(, $arg)*),
            _ => $go!(8 $(, $arg)*),
        }
    };
}
pub(crate) use by_count8;
