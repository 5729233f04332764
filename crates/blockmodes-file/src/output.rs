//! Where a command writes: standard output, or a file that appears under its
//! name only once everything is written and checked.
//!
//! A file output is written to a temporary file in the same directory and
//! renamed over the output name by [`Output::commit`]; dropping an
//! uncommitted output removes the temporary file. The rename refuses to
//! replace an existing file unless `force` was given.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::failure::{CliResult, Failure};

/// The suffix of our temporary files.
pub const TMP_SUFFIX: &str = ".blockmodes-tmp";

/// A destination for a command's output.
pub enum Output {
    /// Standard output: whatever is written is released at once.
    Stdout(io::Stdout),
    /// A temporary file that becomes `dest` on commit.
    File {
        /// The temporary file, in the directory of `dest`.
        tmp: NamedTempFile,
        /// The output name.
        dest: PathBuf,
        /// Replace `dest` if it exists.
        force: bool,
        /// Sync the data to disk before the rename.
        sync: bool,
    },
}

/// Refuse early when `dest` exists and `force` is not set.
pub fn check_absent(dest: &Path, force: bool) -> CliResult<()> {
    if !force && std::fs::symlink_metadata(dest).is_ok() {
        return Err(exists(dest));
    }
    Ok(())
}

fn exists(dest: &Path) -> Failure {
    Failure::usage(format!(
        "output {} exists: choose another name or use --force to replace it",
        dest.display()
    ))
}

impl Output {
    /// Standard output.
    pub fn stdout() -> Self {
        Output::Stdout(io::stdout())
    }

    /// A file output: a fresh temporary file beside `dest` (mode 0600).
    pub fn file(dest: &Path, force: bool) -> CliResult<Self> {
        check_absent(dest, force)?;
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .ok_or_else(|| Failure::usage(format!("{} is not a file name", dest.display())))?;
        let prefix = format!(".{}.", name.to_string_lossy());
        let tmp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(TMP_SUFFIX)
            .tempfile_in(dir)
            .map_err(|e| Failure::io("create a temporary file in", dir, &e))?;
        Ok(Output::File {
            tmp,
            dest: dest.to_owned(),
            force,
            sync: false,
        })
    }

    /// Sync a file output to disk before renaming it (`--sync`): the output
    /// then survives a power failure right after the command returns.
    pub fn with_sync(mut self, on: bool) -> Self {
        if let Output::File { sync, .. } = &mut self {
            *sync = on;
        }
        self
    }

    /// `-o FILE` if given, standard output otherwise.
    pub fn to(dest: Option<&Path>, force: bool) -> CliResult<Self> {
        match dest {
            Some(p) if p != Path::new("-") => Self::file(p, force),
            _ => Ok(Self::stdout()),
        }
    }

    /// The file being written, for `set_len` and the like (`None` for stdout).
    pub fn as_file(&self) -> Option<&File> {
        match self {
            Output::Stdout(_) => None,
            Output::File { tmp, .. } => Some(tmp.as_file()),
        }
    }

    /// A name for messages.
    pub fn name(&self) -> String {
        match self {
            Output::Stdout(_) => "standard output".into(),
            Output::File { dest, .. } => dest.display().to_string(),
        }
    }

    /// Finish: flush, and for a file, sync it to disk if asked and rename it
    /// to its output name (refusing to replace an existing file unless forced).
    pub fn commit(self) -> CliResult<()> {
        match self {
            Output::Stdout(mut s) => s
                .flush()
                .map_err(|e| Failure::usage(format!("cannot write standard output: {e}"))),
            Output::File {
                tmp,
                dest,
                force,
                sync,
            } => {
                if sync {
                    tmp.as_file()
                        .sync_all()
                        .map_err(|e| Failure::io("write", &dest, &e))?;
                }
                let persisted = if force {
                    tmp.persist(&dest)
                } else {
                    tmp.persist_noclobber(&dest)
                };
                match persisted {
                    Ok(_) => Ok(()),
                    Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Err(exists(&dest)),
                    Err(e) => Err(Failure::io("create", &dest, &e.error)),
                }
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(s) => s.write(buf),
            Output::File { tmp, .. } => tmp.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.write_all(buf),
            Output::File { tmp, .. } => tmp.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.flush(),
            Output::File { tmp, .. } => tmp.flush(),
        }
    }
}
