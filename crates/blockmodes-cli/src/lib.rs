//! The `blockmodes` command's library: the known-answer-test runner ([`kat`])
//! and the benchmark ([`mod@bench`]), kept in a library so `cargo test` runs the
//! same code as the command.

pub mod bench;
pub mod kat;

/// Run `$body` with `$C` bound to the AES type that fits a key of `$len` bytes
/// (16, 24 or 32); evaluates to `None` for any other length.
#[macro_export]
macro_rules! with_aes {
    ($len:expr, $C:ident => $body:expr) => {
        match $len {
            16 => {
                type $C = ::aes::Aes128;
                Some($body)
            }
            24 => {
                type $C = ::aes::Aes192;
                Some($body)
            }
            32 => {
                type $C = ::aes::Aes256;
                Some($body)
            }
            _ => None,
        }
    };
}
