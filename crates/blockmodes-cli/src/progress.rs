//! The progress bar: on standard error, only when it is a terminal, the size
//! is known, `--quiet` / `--no-progress` was not given, and the command's
//! data does not go to that same terminal on standard output (a bar drawn
//! between the lines of output would mix with them).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar for `size` bytes, or a hidden one. `data_to_stdout`: the
/// command writes its (binary or decrypted) data to standard output; then
/// there is no bar if standard output is a terminal too.
pub fn bar(size: Option<u64>, quiet: bool, data_to_stdout: bool) -> ProgressBar {
    let shown = !quiet
        && std::io::stderr().is_terminal()
        && !(data_to_stdout && std::io::stdout().is_terminal());
    match size {
        Some(n) if shown => {
            let style = ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            ProgressBar::new(n).with_style(style)
        }
        _ => ProgressBar::hidden(),
    }
}
