//! The progress bar: on standard error, only when it is a terminal, the size
//! is known and `--quiet` was not given.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar for `size` bytes, or a hidden one.
pub fn bar(size: Option<u64>, quiet: bool) -> ProgressBar {
    match size {
        Some(n) if !quiet && std::io::stderr().is_terminal() => {
            let style = ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            ProgressBar::new(n).with_style(style)
        }
        _ => ProgressBar::hidden(),
    }
}
