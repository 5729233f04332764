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
    /// Wrong usage (exit status 2).
    Usage(String),
    /// An I/O error (exit status 2), with the operating system's error
    /// number where it gave one (the Python package raises `OSError` with
    /// it, as `open()` does).
    Io {
        /// "cannot WHAT PATH: ERROR".
        message: String,
        /// `std::io::Error::raw_os_error`.
        errno: Option<i32>,
    },
}

impl Failure {
    /// A rejected input (exit status 1).
    pub fn rejected(msg: impl Into<String>) -> Self {
        Failure::Rejected(msg.into())
    }

    /// A usage error (exit status 2).
    pub fn usage(msg: impl Into<String>) -> Self {
        Failure::Usage(msg.into())
    }

    /// An I/O error on `path`, with what we were doing.
    ///
    /// ```
    /// use blockmodes_file::failure::Failure;
    /// let e = std::io::Error::from_raw_os_error(2);
    /// let f = Failure::io("read", std::path::Path::new("k.key"), &e);
    /// assert_eq!(f.exit_code(), 2);
    /// assert_eq!(f.errno(), Some(2));
    /// assert!(f.message().starts_with("cannot read k.key: "));
    /// ```
    pub fn io(what: &str, path: &Path, e: &std::io::Error) -> Self {
        Failure::Io {
            message: format!("cannot {what} {}: {e}", path.display()),
            errno: e.raw_os_error(),
        }
    }

    /// The operating system's error number of an I/O failure.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Failure::Io { errno, .. } => *errno,
            _ => None,
        }
    }

    /// The process exit status for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Rejected(_) => 1,
            Failure::Usage(_) | Failure::Io { .. } => 2,
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Failure::Rejected(m) | Failure::Usage(m) | Failure::Io { message: m, .. } => m,
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
