//! What went wrong, and which exit status it gets.
//!
//! Every command of the CLI returns `Result<_, Failure>`; `main` prints the
//! one-line message and exits with [`Failure::exit_code`]:
//! 0 success, 1 authentication or verification failure (the input was
//! rejected), 2 usage or I/O error.

use std::fmt;
use std::path::Path;

/// A failure with its one-line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The input did not authenticate or verify, or is not a valid file of
    /// ours (exit status 1).
    Rejected(String),
    /// Wrong usage or an I/O error (exit status 2).
    Usage(String),
}

impl Failure {
    /// A rejected input (exit status 1).
    pub fn rejected(msg: impl Into<String>) -> Self {
        Failure::Rejected(msg.into())
    }

    /// A usage or I/O error (exit status 2).
    pub fn usage(msg: impl Into<String>) -> Self {
        Failure::Usage(msg.into())
    }

    /// An I/O error on `path`, with what we were doing.
    pub fn io(what: &str, path: &Path, e: &std::io::Error) -> Self {
        Failure::Usage(format!("cannot {what} {}: {e}", path.display()))
    }

    /// The process exit status for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Rejected(_) => 1,
            Failure::Usage(_) => 2,
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Failure::Rejected(m) | Failure::Usage(m) => m,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Failure {}

/// `Result` with a [`Failure`].
pub type CliResult<T> = Result<T, Failure>;
