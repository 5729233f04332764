//! Where a command writes: standard output, a regular file that appears
//! under its name only once everything is written and checked, or an
//! existing device node, FIFO or socket written in place.
//!
//! A regular-file output is written to a temporary file in the same
//! directory and renamed over the output name by [`Output::commit`];
//! dropping an uncommitted output removes the temporary file, and so does a
//! SIGINT, SIGTERM or SIGHUP ([`crate::signals`]). The rename refuses to
//! replace an existing file unless `force` was given.
//!
//! An output name that exists and is not a regular file or a directory (a
//! character or block device, a FIFO, a socket, or a symbolic link to one)
//! is opened and written in place, as `cat > NAME` would: such an output is
//! not atomic (what was written before a failure stays written). A block
//! device holds data, so it is written only with `force`; a FIFO or a
//! character device (`/dev/null`, a pipe from `>(...)`) needs no `force`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::failure::{CliResult, Failure};
use crate::signals;

/// The suffix of our temporary files.
pub const TMP_SUFFIX: &str = ".blockmodes-tmp";

/// The most bytes of the output name kept in its temporary file's name
/// (the rest of that name takes 23 bytes; file names have at most 255).
const NAME_IN_TMP: usize = 200;

/// A destination for a command's output.
pub enum Output {
    /// Standard output: whatever is written is released at once.
    Stdout(io::Stdout),
    /// An existing device node, FIFO or socket, written in place (not atomic).
    InPlace {
        /// The open output.
        file: File,
        /// Its name.
        dest: PathBuf,
        /// Sync the data before returning.
        sync: bool,
    },
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

/// Who may read a new output file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Mode 0600: keys and decrypted data.
    Private,
    /// Mode 0666 less the umask, as `cp` or `openssl enc` create files:
    /// encrypted data.
    Umask,
}

/// What kind of output a name is.
enum Kind {
    /// A new regular file (or one to replace): temporary file and rename.
    Regular,
    /// An existing non-regular file: written in place.
    InPlace,
}

/// Whether `dest` is a name of one of this process's file descriptors
/// (`/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
/// `/proc/self/fd/N`, `/proc/thread-self/fd/N`; not a path below a
/// directory's descriptor, `/dev/fd/3/x`).
fn names_a_descriptor(dest: &Path) -> bool {
    let Some(s) = dest.to_str() else {
        return false;
    };
    matches!(s, "/dev/stdin" | "/dev/stdout" | "/dev/stderr")
        || ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"]
            .iter()
            .filter_map(|p| s.strip_prefix(p))
            .any(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Tell how `dest` is written, refusing what cannot be: an existing regular
/// file (or dangling link) without `force`, a directory, a block device
/// without `force`.
fn kind(dest: &Path, force: bool) -> CliResult<Kind> {
    if std::fs::symlink_metadata(dest).is_err() {
        return Ok(Kind::Regular);
    }
    // A descriptor's name open on a regular file, or on nothing (a closed
    // descriptor: a dangling link): renaming a temporary file over it would
    // replace that link (in `/dev`, as root) or fail, never write the
    // descriptor's file; writing it in place would clobber what a `2>>log`
    // appends to.
    if names_a_descriptor(dest) && std::fs::metadata(dest).ok().is_none_or(|m| m.is_file()) {
        return Err(Failure::usage(format!(
            "output {} names a file descriptor that is closed or open on a regular file: give the file's own name",
            dest.display()
        )));
    }
    let Ok(meta) = std::fs::metadata(dest) else {
        // A dangling symbolic link: replaced like a file.
        return if force {
            Ok(Kind::Regular)
        } else {
            Err(exists(dest))
        };
    };
    let ft = meta.file_type();
    if ft.is_dir() {
        return Err(Failure::usage(format!(
            "output {} is a directory",
            dest.display()
        )));
    }
    if ft.is_file() {
        return if force {
            Ok(Kind::Regular)
        } else {
            Err(exists(dest))
        };
    }
    if ft.is_block_device() && !force {
        return Err(Failure::usage(format!(
            "output {} is a block device: its contents would be overwritten in place; use --force to write into it",
            dest.display()
        )));
    }
    Ok(Kind::InPlace)
}

/// Refuse early when `dest` cannot be written (see [`Output::file`]).
pub fn check_absent(dest: &Path, force: bool) -> CliResult<()> {
    kind(dest, force).map(|_| ())
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

    /// A file output: a fresh temporary file beside `dest` (mode 0600 or
    /// 0666 less the umask, by `access`), or `dest` itself opened in place if
    /// it is an existing device node, FIFO or socket.
    pub fn file(dest: &Path, force: bool, access: Access) -> CliResult<Self> {
        if let Kind::InPlace = kind(dest, force)? {
            // No O_CREAT, no O_TRUNC: the node exists; a FIFO waits for its reader.
            let file = OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NOCTTY)
                .open(dest)
                .map_err(|e| Failure::io("open", dest, &e))?;
            return Ok(Output::InPlace {
                file,
                dest: dest.to_owned(),
                sync: false,
            });
        }
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .ok_or_else(|| Failure::usage(format!("{} is not a file name", dest.display())))?;
        // `.NAME.XXXXXX.blockmodes-tmp` with NAME cut to NAME_IN_TMP bytes,
        // so that the temporary name fits where NAME (up to 255 bytes) does.
        let name = name.to_string_lossy();
        let mut cut = name.len().min(NAME_IN_TMP);
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        let prefix = format!(".{}.", &name[..cut]);
        let mode = match access {
            Access::Private => 0o600,
            Access::Umask => 0o666, // less the umask, applied by open(2)
        };
        let tmp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(TMP_SUFFIX)
            .make_in(dir, |p| {
                signals::create_temp(p, || {
                    OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .mode(mode)
                        .open(p)
                })
            })
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
        if let Output::File { sync, .. } | Output::InPlace { sync, .. } = &mut self {
            *sync = on;
        }
        self
    }

    /// `-o FILE` if given, standard output otherwise.
    pub fn to(dest: Option<&Path>, force: bool, access: Access) -> CliResult<Self> {
        match dest {
            Some(p) if p != Path::new("-") => Self::file(p, force, access),
            _ => Ok(Self::stdout()),
        }
    }

    /// The file being written, for `set_len` and the like (`None` for stdout).
    pub fn as_file(&self) -> Option<&File> {
        match self {
            Output::Stdout(_) => None,
            Output::InPlace { file, .. } => Some(file),
            Output::File { tmp, .. } => Some(tmp.as_file()),
        }
    }

    /// A name for messages.
    pub fn name(&self) -> String {
        match self {
            Output::Stdout(_) => "standard output".into(),
            Output::File { dest, .. } | Output::InPlace { dest, .. } => dest.display().to_string(),
        }
    }

    /// Finish: flush, and for a file, sync it to disk if asked and rename it
    /// to its output name (refusing to replace an existing file unless forced).
    pub fn commit(self) -> CliResult<()> {
        match self {
            Output::Stdout(mut s) => s
                .flush()
                .map_err(|e| Failure::usage(format!("cannot write standard output: {e}"))),
            Output::InPlace {
                mut file,
                dest,
                sync,
            } => {
                file.flush().map_err(|e| Failure::io("write", &dest, &e))?;
                if sync {
                    // A FIFO or a character device cannot be synced: only
                    // a real failure of a block device is reported.
                    match file.sync_all() {
                        Err(e) if e.raw_os_error() != Some(libc::EINVAL) => {
                            return Err(Failure::io("write", &dest, &e));
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
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
                let tmp_path = tmp.path().to_owned();
                let persisted = signals::with_temp_lock(&tmp_path, || {
                    if force {
                        tmp.persist(&dest)
                    } else {
                        tmp.persist_noclobber(&dest)
                    }
                });
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
            Output::InPlace { file, .. } => file.write(buf),
            // Through the `File`: `NamedTempFile`'s own `Write` wraps every
            // error with its path, which loses the OS error number.
            Output::File { tmp, .. } => tmp.as_file_mut().write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.write_all(buf),
            Output::InPlace { file, .. } => file.write_all(buf),
            Output::File { tmp, .. } => tmp.as_file_mut().write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.flush(),
            Output::InPlace { file, .. } => file.flush(),
            Output::File { tmp, .. } => tmp.as_file_mut().flush(),
        }
    }
}
