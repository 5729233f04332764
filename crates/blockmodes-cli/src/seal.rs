//! `blockmodes seal` / `blockmodes open`: authenticated chunked encryption of
//! files and pipes (`docs/file-format.md`, section 2).

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use crate::failure::{CliResult, Failure};
use crate::header::{HEADER_LEN, Header, KdfLimit, Mode, Secret};
use crate::keyfile::MasterKey;
use crate::output::{Access, Output, check_absent};
use crate::pipeline::{self, PipeError, Rejected, Transform};
use crate::progress;
pub use blockmodes_file::stream::{
    AeadChunks, ChunkCipher, XcbcXorChunks, aead_chunks, chunk_cipher, stream_nonce,
};

/// Bytes of plaintext per batch handed to the worker threads.
const BATCH_BYTES: usize = 8 << 20;

struct Sealer<'a> {
    cipher: &'a dyn ChunkCipher,
    chunk: usize,
}

impl Transform for Sealer<'_> {
    fn unit_len(&self) -> usize {
        self.chunk
    }
    fn max_out_len(&self, len: usize, _last: bool) -> Option<usize> {
        Some(self.cipher.sealed_len(len))
    }
    fn apply(
        &self,
        index: u64,
        last: bool,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, Rejected> {
        self.cipher.seal(index, last, input, output)?;
        Ok(output.len())
    }
}

struct Opener<'a> {
    cipher: &'a dyn ChunkCipher,
    sealed_chunk: usize,
}

impl Transform for Opener<'_> {
    fn unit_len(&self) -> usize {
        self.sealed_chunk
    }
    fn max_out_len(&self, len: usize, _last: bool) -> Option<usize> {
        self.cipher.max_opened_len(len)
    }
    fn apply(
        &self,
        index: u64,
        last: bool,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, Rejected> {
        self.cipher.open(index, last, input, output)
    }
}

/// How the user gives the secret.
#[derive(Debug, Clone)]
pub enum SecretSource {
    /// `--key-file F`.
    KeyFile(PathBuf),
    /// `--passphrase-file F`.
    PassphraseFile(PathBuf),
    /// `--passphrase-fd N`: the first line read from file descriptor N.
    PassphraseFd(u32),
    /// `--passphrase-env VAR`: the value of an environment variable.
    PassphraseEnv(String),
    /// Ask on the terminal.
    Prompt,
}

impl SecretSource {
    /// Read the key or passphrase (`confirm`: ask twice at the prompt).
    pub fn load(&self, confirm: bool) -> CliResult<Secret> {
        match self {
            SecretSource::KeyFile(p) => Ok(Secret::KeyFile(MasterKey::read(p)?)),
            SecretSource::PassphraseFile(p) => {
                // Only the first line is read (not a whole `/dev/zero`).
                let mut text = Zeroizing::new(Vec::new());
                std::fs::File::open(p)
                    .and_then(|mut f| read_first_line(&mut f, &mut text))
                    .map_err(|e| Failure::io("read passphrase file", p, &e))?;
                passphrase(first_line(&text), &p.display().to_string())
            }
            SecretSource::PassphraseFd(0) => {
                // A duplicate of descriptor 0, read a byte at a time with no
                // buffer: it shares the file offset, so the input read next
                // from standard input starts after the passphrase line (from
                // a file as from a pipe), and no buffer keeps a copy of the
                // line (standard input's own would, unwiped, until exit).
                use std::os::fd::AsFd;
                let cannot = |e: std::io::Error| {
                    Failure::usage(format!("--passphrase-fd 0: cannot read it: {e}"))
                };
                let mut fd0 = std::io::stdin()
                    .as_fd()
                    .try_clone_to_owned()
                    .map(std::fs::File::from)
                    .map_err(cannot)?;
                let mut text = Zeroizing::new(Vec::new());
                read_first_line(&mut fd0, &mut text).map_err(cannot)?;
                passphrase(first_line(&text), "file descriptor 0")
            }
            SecretSource::PassphraseFd(fd) => {
                // The descriptor is reopened through /dev/fd (no unsafe
                // adoption of a raw descriptor); a pipe or a here-document
                // reads from where the writer left it, a regular file from
                // its start.
                let path = PathBuf::from(format!("/dev/fd/{fd}"));
                let mut f = std::fs::File::open(&path).map_err(|e| {
                    Failure::usage(format!("--passphrase-fd {fd}: cannot open it: {e}"))
                })?;
                let mut text = Zeroizing::new(Vec::new());
                read_first_line(&mut f, &mut text).map_err(|e| {
                    Failure::usage(format!("--passphrase-fd {fd}: cannot read it: {e}"))
                })?;
                passphrase(first_line(&text), &format!("file descriptor {fd}"))
            }
            SecretSource::PassphraseEnv(var) => match std::env::var_os(var) {
                Some(v) => {
                    use std::os::unix::ffi::OsStringExt;
                    let bytes = Zeroizing::new(v.into_vec());
                    passphrase(bytes.to_vec(), &format!("${var}"))
                }
                None => Err(Failure::usage(format!(
                    "--passphrase-env {var}: the variable is not set"
                ))),
            },
            SecretSource::Prompt => {
                let ask = |prompt: &str| {
                    rpassword::prompt_password(prompt).map(Zeroizing::new).map_err(|e| {
                        Failure::usage(format!(
                            "cannot ask for a passphrase ({e}): give --key-file FILE or --passphrase-file FILE"
                        ))
                    })
                };
                let first = ask("Passphrase: ")?;
                if confirm {
                    let second = ask("Passphrase (again): ")?;
                    if *first != *second {
                        return Err(Failure::usage(
                            "the two passphrases differ: nothing was written",
                        ));
                    }
                }
                passphrase(first.as_bytes().to_vec(), "the prompt")
            }
        }
    }
}

/// The first line of `text`, without its line end.
fn first_line(text: &[u8]) -> Vec<u8> {
    let line = text.split(|&b| b == b'\n').next().unwrap_or_default();
    line.strip_suffix(b"\r").unwrap_or(line).to_vec()
}

/// The longest passphrase, in bytes.
const MAX_PASSPHRASE: usize = 1 << 16;

/// Read up to the first newline (or the end), byte by byte, so that nothing
/// after the passphrase line is consumed from a shared descriptor; at most
/// one byte more than [`MAX_PASSPHRASE`] (refused by [`passphrase`]).
fn read_first_line(r: &mut dyn Read, out: &mut Vec<u8>) -> std::io::Result<()> {
    let mut b = [0u8; 1];
    out.reserve_exact(MAX_PASSPHRASE + 1);
    while out.len() <= MAX_PASSPHRASE {
        match r.read(&mut b) {
            Ok(0) => break,
            Ok(_) if b[0] == b'\n' => break,
            Ok(_) => out.push(b[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn passphrase(bytes: Vec<u8>, from: &str) -> CliResult<Secret> {
    let bytes = Zeroizing::new(bytes);
    if bytes.is_empty() {
        return Err(Failure::usage(format!("empty passphrase from {from}")));
    }
    if bytes.len() > MAX_PASSPHRASE {
        return Err(Failure::usage(format!(
            "the passphrase from {from} is longer than {} KiB",
            MAX_PASSPHRASE / 1024
        )));
    }
    Ok(Secret::Passphrase(bytes))
}

/// An input: a file or standard input, with its length when known.
pub fn open_input(path: Option<&Path>) -> CliResult<(Box<dyn Read + Send>, Option<u64>, String)> {
    match path {
        Some(p) if p != Path::new("-") => {
            let f = std::fs::File::open(p).map_err(|e| Failure::io("open", p, &e))?;
            let meta = f.metadata().map_err(|e| Failure::io("read", p, &e))?;
            if meta.is_dir() {
                return Err(Failure::usage(format!("{} is a directory", p.display())));
            }
            let len = meta.is_file().then_some(meta.len());
            Ok((Box::new(f), len, p.display().to_string()))
        }
        _ => Ok((Box::new(std::io::stdin()), None, "standard input".into())),
    }
}

/// Refuse an input that is standard output's own regular file, not empty
/// (`seal F >> F`): the command would read back what it writes. `cat F >> F`
/// refuses it the same way; `> F` empties F first, and is allowed.
pub fn check_input_is_not_stdout(input: Option<&Path>) -> CliResult<()> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let stat = |fd: std::os::fd::BorrowedFd| {
        fd.try_clone_to_owned()
            .ok()
            .and_then(|fd| std::fs::File::from(fd).metadata().ok())
    };
    let Some(out) = stat(std::io::stdout().as_fd()).filter(|m| m.is_file()) else {
        return Ok(());
    };
    let (inp, name) = match input {
        Some(p) if p != Path::new("-") => (std::fs::metadata(p).ok(), p.display().to_string()),
        _ => (stat(std::io::stdin().as_fd()), "-".to_owned()),
    };
    match inp {
        Some(m) if m.dev() == out.dev() && m.ino() == out.ino() && m.len() > 0 => {
            Err(Failure::usage(format!(
                "{name}: input file is output file (standard output appends to it): write to another file"
            )))
        }
        _ => Ok(()),
    }
}

/// The options of `seal` and `open`.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where the secret comes from.
    pub secret: SecretSource,
    /// `-o`: the output file (standard output if `None` or `-`).
    pub output: Option<PathBuf>,
    /// The input file (standard input if `None` or `-`).
    pub input: Option<PathBuf>,
    /// Replace an existing output.
    pub force: bool,
    /// No progress bar.
    pub quiet: bool,
    /// Sync the output file to disk before renaming it.
    pub sync: bool,
    /// `open`: the most Argon2id work done before the header authenticates.
    pub kdf_limit: KdfLimit,
}

fn batch_units(unit: usize) -> usize {
    (BATCH_BYTES / unit.max(1)).max(2 * rayon::current_num_threads())
}

fn to_file(o: &Options) -> bool {
    o.output.as_deref().is_some_and(|p| p != Path::new("-"))
}

/// `blockmodes seal`.
pub fn seal(o: &Options, mode: Mode, chunk_log2: u8) -> CliResult<()> {
    let (input, size, _) = open_input(o.input.as_deref())?;
    if !to_file(o) && std::io::stdout().is_terminal() {
        return Err(Failure::usage(
            "refusing to write a sealed file to a terminal: use -o FILE or redirect the output",
        ));
    }
    if !to_file(o) {
        check_input_is_not_stdout(o.input.as_deref())?;
    }
    if let Some(p) = o.output.as_deref().filter(|_| to_file(o)) {
        check_absent(p, o.force)?;
    }
    let secret = o.secret.load(true)?;
    let header = Header::new(mode, chunk_log2, &secret)?;
    let keys = header.seal_keys(&secret)?;
    drop(secret);
    let cipher = chunk_cipher(mode, &keys.payload)?;
    // Sealed data follows the umask, as `openssl enc` and `age` outputs do.
    let mut out = Output::to(o.output.as_deref(), o.force, Access::Umask)?.with_sync(o.sync);
    std::io::Write::write_all(&mut out, &keys.header_bytes)
        .map_err(|e| Failure::usage(format!("cannot write {}: {e}", out.name())))?;
    let t = Sealer {
        cipher: cipher.as_ref(),
        chunk: header.chunk_len(),
    };
    let bar = progress::bar(size, o.quiet, !to_file(o));
    let name = out.name();
    let result = pipeline::run(&t, (input, 0), out, batch_units(t.chunk), &bar);
    bar.finish_and_clear();
    match result {
        Ok((out, _)) => out.commit(),
        Err(PipeError::Read(e)) => Err(Failure::usage(format!("cannot read the input: {e}"))),
        Err(PipeError::Write(e)) => Err(Failure::usage(format!("cannot write {name}: {e}"))),
        Err(PipeError::Unit { index, .. }) => Err(Failure::usage(format!(
            "internal error: chunk {index} could not be sealed"
        ))),
    }
}

/// Read the header of a sealed input (as much of it as there is).
fn read_header(input: &mut dyn Read) -> CliResult<Vec<u8>> {
    let mut h = Vec::with_capacity(HEADER_LEN);
    input
        .take(HEADER_LEN as u64)
        .read_to_end(&mut h)
        .map_err(|e| Failure::usage(format!("cannot read the input: {e}")))?;
    Ok(h)
}

/// `blockmodes open`.
pub fn open(o: &Options) -> CliResult<()> {
    // The header is read before the passphrase: the two cannot share
    // standard input in that order (`seal` reads the passphrase first).
    if matches!(o.secret, SecretSource::PassphraseFd(0))
        && o.input.as_deref().is_none_or(|p| p == Path::new("-"))
    {
        return Err(Failure::usage(
            "--passphrase-fd 0 with the sealed file on standard input: give the passphrase on another descriptor (--passphrase-fd 3 3< FILE) or the sealed file by name",
        ));
    }
    let (mut input, size, in_name) = open_input(o.input.as_deref())?;
    if !to_file(o) {
        check_input_is_not_stdout(o.input.as_deref())?;
    }
    let head = read_header(&mut input)?;
    let header = Header::parse(&head)
        .map_err(|f| Failure::rejected(format!("{in_name}: {}", f.message())))?;
    // The header's Argon2id costs are the file's: bound them before asking
    // for the passphrase or computing anything (a key file never runs Argon2id).
    if let (Some(k), false) = (header.kdf, matches!(o.secret, SecretSource::KeyFile(_))) {
        o.kdf_limit
            .check(&k)
            .map_err(|f| Failure::rejected(format!("{in_name}: {}", f.message())))?;
    }
    // A file sealed with a key file: say so before asking for a passphrase.
    if header.kdf.is_none() && !matches!(o.secret, SecretSource::KeyFile(_)) {
        return Err(Failure::rejected(format!(
            "{in_name}: this file was sealed with a key file, not a passphrase: use --key-file FILE (or the header is corrupted)"
        )));
    }
    if let Some(p) = o.output.as_deref().filter(|_| to_file(o)) {
        check_absent(p, o.force)?;
    }
    let secret = o.secret.load(false)?;
    let keys = header.open_keys(&head, &secret)?;
    drop(secret);
    let cipher = chunk_cipher(header.mode, &keys.payload)?;
    let t = Opener {
        cipher: cipher.as_ref(),
        sealed_chunk: cipher.sealed_len(header.chunk_len()),
    };
    // Decrypted data is private (0600).
    let out = Output::to(o.output.as_deref(), o.force, Access::Private)?.with_sync(o.sync);
    let name = out.name();
    let bar = progress::bar(
        size.map(|s| s.saturating_sub(HEADER_LEN as u64)),
        o.quiet,
        !to_file(o),
    );
    let start = head.len() as u64; // the header was read before
    let result = pipeline::run(&t, (input, start), out, batch_units(t.sealed_chunk), &bar);
    bar.finish_and_clear();
    match result {
        Ok((out, _)) => out.commit(),
        Err(PipeError::Read(e)) => Err(Failure::usage(format!("cannot read {in_name}: {e}"))),
        Err(PipeError::Write(e)) => Err(Failure::usage(format!("cannot write {name}: {e}"))),
        Err(PipeError::Unit { index, offset, .. }) => {
            let at = offset + HEADER_LEN as u64;
            let released = if to_file(o) {
                "no output file was written".to_owned()
            } else {
                format!(
                    "the first {} bytes written are authentic",
                    index * header.chunk_len() as u64
                )
            };
            Err(Failure::rejected(format!(
                "{in_name}: corrupted or truncated at byte {at} (chunk {index} does not authenticate); {released}"
            )))
        }
    }
}
