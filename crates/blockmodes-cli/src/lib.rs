//! The `blockmodes` command's library, kept in a library so `cargo test` runs
//! the same code as the command:
//! * [`kat`] and [`bench`](mod@bench): the known-answer-test runner and the
//!   benchmark (with the cargo feature `peers`, also OpenSSL's, ring's and
//!   RustCrypto's OCB3, GCM, XTS and EME in the same table);
//! * [`keyfile`], [`header`], [`seal`]: `keygen`, and `seal` / `open` (the
//!   file format of `docs/file-format.md`: header, keys, STREAM chunks);
//! * [`macsum`]: `mac` / `verify`;
//! * [`disk`]: `disk encrypt` / `disk decrypt`;
//! * [`serve`]: `disk serve` (nbdkit with the plugin of `crates/blockmodes-nbdkit`);
//! * [`pipeline`], [`output`], [`progress`], [`failure`], [`signals`]: the
//!   parallel read-transform-write pipeline, outputs that appear only when
//!   complete (or device nodes and FIFOs written in place), the progress
//!   bar, the errors with their exit statuses, and the temporary files
//!   removed on SIGINT, SIGTERM and SIGHUP.

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

/// Run `$body` with `$T` bound to the typenum tag size `len` (1..=16 bytes);
/// `None` for any other length.
#[macro_export]
macro_rules! with_tag_size {
    ($len:expr, $T:ident => $body:expr) => {
        $crate::with_tag_size!(@ $len, $T, $body; U1 1, U2 2, U3 3, U4 4, U5 5, U6 6, U7 7, U8 8,
            U9 9, U10 10, U11 11, U12 12, U13 13, U14 14, U15 15, U16 16)
    };
    (@ $len:expr, $T:ident, $body:expr; $($u:ident $n:literal),*) => {
        match $len {
            $($n => {
                type $T = ::blockmodes::cipher::consts::$u;
                Some($body)
            })*
            _ => None,
        }
    };
}

/// `msg` on one line: a newline, carriage return or other control
/// character (from a file name) is escaped as `\n`, `\r` or `\xNN`, as in
/// check files, so that an error message is one line (sha256sum quotes
/// such names).
///
/// ```
/// assert_eq!(blockmodes_cli::one_line("cannot open a\nb: gone"), "cannot open a\\nb: gone");
/// ```
pub fn one_line(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    for c in msg.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() && c != '\t' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

pub mod disk;
pub mod macsum;
pub mod pipeline;
// The file formats (key file, header, STREAM chunks) and the output files
// live in `blockmodes-file`, shared with the Python package.
pub use blockmodes_file::{failure, header, keyfile, output, signals};
pub mod progress;
pub mod seal;
pub mod serve;
