//! `blockmodes mac` / `blockmodes verify`: checksums of files under a secret
//! key, in the layout of `sha256sum` (`docs/file-format.md`, section 3), with
//! sha256sum's options (`--status`, `--quiet`, `--ignore-missing`,
//! `--strict`, `-z`).
//!
//! PMAC's Σ and XECB-MAC's w are xor-sums over blocks at absolute positions:
//! a large regular file is memory-mapped and its blocks summed on all cores
//! ([`SumMac::partial`] over ranges, combined); a stream is read in pieces by
//! one thread while the blocks of each piece are summed on all cores. The
//! final block is handled once at the end.
//!
//! A mapped file that another process truncates while it is read makes the
//! command die of SIGBUS (the pages past the new end no longer exist), as
//! b3sum does; one modified meanwhile gives a tag of neither version.
//! `--no-mmap` reads the file instead.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use subtle::ConstantTimeEq;

use crate::failure::{CliResult, Failure};
use crate::keyfile::MasterKey;
use crate::pipeline::spawn_reader;
use crate::progress;

/// Bytes read at a time from a large file.
const PIECE: usize = 8 << 20;
/// Files up to this size are read whole, without a reader thread.
const SMALL: u64 = 1 << 20;
/// Blocks per parallel range within a piece.
const RANGE_BLOCKS: usize = 16 * 1024;

/// A MAC whose state is an xor-sum over blocks at absolute (1-based)
/// positions, finished with the bytes after the last whole block.
pub trait SumMac: Sync {
    /// A partial sum.
    type Partial: Send + Default;
    /// The sum of whole blocks `first_block, first_block + 1, ...` (1-based).
    fn partial(&self, first_block: u64, blocks: &[u8]) -> blockmodes::Result<Self::Partial>;
    /// `a xor b`.
    fn combine(a: Self::Partial, b: Self::Partial) -> Self::Partial;
    /// How many final bytes of a message of `len` bytes are not summed as
    /// whole blocks but passed to [`finish`](Self::finish).
    fn tail_len(len: u64) -> usize;
    /// The tag from the sum of all whole blocks and the tail.
    fn finish(&self, sum: Self::Partial, tail: &[u8]) -> blockmodes::Result<Vec<u8>>;
}

/// The sum of `blocks` (whole blocks starting at block `first`), on all cores.
fn sum_par<M: SumMac>(mac: &M, first: u64, blocks: &[u8]) -> std::io::Result<M::Partial> {
    blocks
        .par_chunks(RANGE_BLOCKS * 16)
        .enumerate()
        .map(|(k, run)| mac.partial(first + (k * RANGE_BLOCKS) as u64, run))
        .try_reduce(M::Partial::default, |a, b| Ok(M::combine(a, b)))
        .map_err(lib_err)
}

/// The tag of `data` (a mapped file), on all cores, the progress bar moved
/// piece by piece.
pub fn mac_slice<M: SumMac>(
    mac: &M,
    data: &[u8],
    bar: &indicatif::ProgressBar,
) -> std::io::Result<Vec<u8>> {
    let cut = data.len() - M::tail_len(data.len() as u64).min(data.len());
    let mut sum = M::Partial::default();
    // Pieces for the progress bar only; each is summed on all cores.
    for (i, piece) in data[..cut].chunks(PIECE).enumerate() {
        let s = sum_par(mac, 1 + (i * PIECE / 16) as u64, piece)?;
        sum = M::combine(sum, s);
        bar.inc(piece.len() as u64);
    }
    bar.inc((data.len() - cut) as u64);
    mac.finish(sum, &data[cut..]).map_err(lib_err)
}

fn lib_err(e: blockmodes::Error) -> std::io::Error {
    std::io::Error::other(format!("internal error: {e}"))
}

/// The tag of everything `input` yields.
pub fn mac_stream<M: SumMac>(
    mac: &M,
    mut input: Box<dyn Read + Send>,
    size: Option<u64>,
    bar: &indicatif::ProgressBar,
) -> std::io::Result<Vec<u8>> {
    if size.is_some_and(|s| s <= SMALL) {
        let mut all = Vec::with_capacity(size.unwrap_or(0) as usize + 1);
        input.read_to_end(&mut all)?;
        bar.inc(all.len() as u64);
        let cut = all.len() - M::tail_len(all.len() as u64).min(all.len());
        let sum = sum_par(mac, 1, &all[..cut])?;
        return mac.finish(sum, &all[cut..]).map_err(lib_err);
    }
    let (batches, free) = spawn_reader(input, 0, PIECE);
    let mut sum = M::Partial::default();
    let mut done: u64 = 0; // bytes summed so far: whole blocks
    for batch in batches.iter() {
        let batch = batch?;
        let data = batch.data();
        bar.inc(data.len() as u64);
        if batch.is_last() {
            let total = done + data.len() as u64;
            let cut = data.len() - M::tail_len(total).min(data.len());
            let s = sum_par(mac, 1 + done / 16, &data[..cut])?;
            return mac
                .finish(M::combine(sum, s), &data[cut..])
                .map_err(lib_err);
        }
        // Not last: more input follows, and PIECE is a whole number of blocks.
        let s = sum_par(mac, 1 + done / 16, data)?;
        sum = M::combine(sum, s);
        done += data.len() as u64;
        batch.recycle(&free);
    }
    Err(std::io::Error::other("the reader stopped early"))
}

/// Feed everything `input` yields to `f`, piece by piece (a reader thread
/// fills the next piece meanwhile).
pub fn feed(
    input: Box<dyn Read + Send>,
    bar: &indicatif::ProgressBar,
    mut f: impl FnMut(&[u8]),
) -> std::io::Result<()> {
    let (batches, free) = spawn_reader(input, 0, PIECE);
    for batch in batches.iter() {
        let batch = batch?;
        f(batch.data());
        bar.inc(batch.data().len() as u64);
        if batch.is_last() {
            return Ok(());
        }
        batch.recycle(&free);
    }
    Err(std::io::Error::other("the reader stopped early"))
}

/// `blockmodes mac`'s modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacMode {
    /// PMAC (2001) with AES-256, 16-byte tags.
    Pmac,
    /// Stateless XECB$-MAC with AES-256, 32-byte tags.
    Xecb,
}

impl MacMode {
    /// The HKDF label of the mode's key.
    fn label(self) -> &'static str {
        match self {
            MacMode::Pmac => "blockmodes v1 mac pmac-aes256",
            MacMode::Xecb => "blockmodes v1 mac xecb-aes256",
        }
    }

    /// The tag length in bytes.
    pub fn tag_len(self) -> usize {
        match self {
            MacMode::Pmac => 16,
            MacMode::Xecb => 32,
        }
    }

    /// The mode whose tags have `hex_len` hex digits.
    pub fn from_hex_len(hex_len: usize) -> Option<Self> {
        [MacMode::Pmac, MacMode::Xecb]
            .into_iter()
            .find(|m| 2 * m.tag_len() == hex_len)
    }
}

/// What a checksum is computed over.
pub enum Source {
    /// A stream (standard input, a pipe, a device, a small or unmappable
    /// file), with its size when known.
    Stream(Box<dyn Read + Send>, Option<u64>),
    /// A regular file mapped into memory.
    Mapped(memmap2::Mmap),
}

/// A keyed checksum: computes and checks tags of whole inputs.
pub trait FileMac: Sync {
    /// The tag of `input`.
    fn tag(&self, input: Source, bar: &indicatif::ProgressBar) -> std::io::Result<Vec<u8>>;
    /// Whether `tag` is a valid tag of `input` (constant-time comparison).
    fn check(
        &self,
        input: Source,
        tag: &[u8],
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<bool>;
}

/// A deterministic [`SumMac`] as a [`FileMac`]: check = recompute and compare.
pub struct Deterministic<M>(pub M);

impl<M: SumMac> FileMac for Deterministic<M> {
    fn tag(&self, input: Source, bar: &indicatif::ProgressBar) -> std::io::Result<Vec<u8>> {
        match input {
            Source::Stream(r, size) => mac_stream(&self.0, r, size, bar),
            Source::Mapped(m) => mac_slice(&self.0, &m, bar),
        }
    }

    fn check(
        &self,
        input: Source,
        tag: &[u8],
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<bool> {
        let t = self.tag(input, bar)?;
        Ok(t.len() == tag.len() && bool::from(t.ct_eq(tag)))
    }
}

/// The keyed checksum of `mode` under the master key.
#[allow(unreachable_patterns)]
pub fn file_mac(mode: MacMode, key: &MasterKey) -> CliResult<Box<dyn FileMac>> {
    let mut k = zeroize::Zeroizing::new([0u8; 32]);
    key.derive(mode.label(), &mut k[..]);
    let internal = |e: blockmodes::Error| Failure::usage(format!("internal error: {e}"));
    match mode {
        MacMode::Pmac => Ok(Box::new(Deterministic(
            blockmodes::pmac::PmacAes256::new_from_slice(&k[..]).map_err(internal)?,
        ))),
        MacMode::Xecb => Ok(Box::new(XecbFile(
            blockmodes::xecb::XecbMac::new_from_slice(&k[..]).map_err(internal)?,
        ))),
        _ => Err(Failure::usage(format!(
            "MAC mode {mode:?} is not available in this build"
        ))),
    }
}

/// A file name as `sha256sum` writes it: `(escaped?, text)`; a name with a
/// newline or a backslash is escaped (`\n`, `\\`) and its line starts with `\`.
pub fn escape_name(name: &[u8]) -> (bool, Vec<u8>) {
    if !name.iter().any(|&b| b == b'\n' || b == b'\\' || b == b'\r') {
        return (false, name.to_vec());
    }
    let mut out = Vec::with_capacity(name.len() + 4);
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    (true, out)
}

/// The inverse of [`escape_name`] for an escaped name; `None` if malformed.
pub fn unescape_name(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut it = text.iter();
    while let Some(&b) = it.next() {
        if b == b'\\' {
            match it.next()? {
                b'\\' => out.push(b'\\'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                _ => return None,
            }
        } else {
            out.push(b);
        }
    }
    Some(out)
}

fn os_bytes(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

fn path_of(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

/// One `sha256sum` line: `<hex>  <name>\n`.
pub fn sum_line(tag: &[u8], name: &[u8]) -> Vec<u8> {
    sum_record(tag, name, false)
}

/// One line, or with `zero` one NUL-terminated record with the name as it
/// is (`sha256sum -z`).
pub fn sum_record(tag: &[u8], name: &[u8], zero: bool) -> Vec<u8> {
    if zero {
        let mut rec = hex::encode(tag).into_bytes();
        rec.extend_from_slice(b"  ");
        rec.extend_from_slice(name);
        rec.push(0);
        return rec;
    }
    let (escaped, text) = escape_name(name);
    let mut line = Vec::with_capacity(text.len() + 2 * tag.len() + 4);
    if escaped {
        line.push(b'\\');
    }
    line.extend_from_slice(hex::encode(tag).as_bytes());
    line.extend_from_slice(b"  ");
    line.extend_from_slice(&text);
    line.push(b'\n');
    line
}

/// Parse one line of a check file: `(tag, name)`.
pub fn parse_line(line: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    parse_record(line, false)
}

/// Parse one line, or with `zero` one NUL-terminated record whose name is
/// not escaped.
pub fn parse_record(line: &[u8], zero: bool) -> Option<(Vec<u8>, Vec<u8>)> {
    let line = if zero {
        line
    } else {
        line.strip_suffix(b"\r").unwrap_or(line)
    };
    let (escaped, line) = match line.strip_prefix(b"\\").filter(|_| !zero) {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let sp = line.iter().position(|&b| b == b' ')?;
    let (hex_part, rest) = line.split_at(sp);
    // "  name" (text mode) or " *name" (binary mode), as sha256sum writes.
    let name = rest
        .strip_prefix(b"  ")
        .or_else(|| rest.strip_prefix(b" *"))?;
    if name.is_empty() {
        return None;
    }
    let tag = hex::decode(hex_part).ok()?;
    let name = if escaped {
        unescape_name(name)?
    } else {
        name.to_vec()
    };
    Some((tag, name))
}

/// Open a named input (`-` is standard input): a regular file larger than
/// [`SMALL`] is memory-mapped unless `no_mmap`.
fn open_named(name: &Path, no_mmap: bool) -> std::io::Result<Source> {
    if name == Path::new("-") {
        return Ok(Source::Stream(Box::new(std::io::stdin()), None));
    }
    let f = std::fs::File::open(name)?;
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("is a directory"));
    }
    if meta.is_file() && meta.len() > SMALL && !no_mmap {
        // SAFETY: the mapping is read-only and private to this process. If
        // another process truncates the file meanwhile, reading the missing
        // pages raises SIGBUS and the process dies (documented in the module
        // and in `mac --help`, as b3sum does); if it writes to the file, the
        // bytes read may be of either version: the tag is then of neither
        // file, which `verify` reports as FAILED.
        if let Ok(m) = unsafe { memmap2::Mmap::map(&f) } {
            return Ok(Source::Mapped(m));
        }
    }
    Ok(Source::Stream(
        Box::new(f),
        meta.is_file().then_some(meta.len()),
    ))
}

/// Files processed in parallel at a time (results printed in order).
const FILES_AT_ONCE: usize = 64;

/// Cut `items` into groups of at most [`FILES_AT_ONCE`] processed in
/// parallel, with at most one standard input (`-`) in a group: the second
/// `-` reads what the first left (nothing), as in `sha256sum - -`, instead
/// of two threads reading pieces of one stream.
fn groups<T>(items: &[T], path: impl Fn(&T) -> &Path) -> Vec<&[T]> {
    let mut out = Vec::new();
    let (mut start, mut stdin) = (0, false);
    for (i, item) in items.iter().enumerate() {
        let dash = path(item) == Path::new("-");
        if i - start == FILES_AT_ONCE || (dash && stdin) {
            out.push(&items[start..i]);
            (start, stdin) = (i, false);
        }
        stdin |= dash;
    }
    if start < items.len() {
        out.push(&items[start..]);
    }
    out
}

fn total_size(paths: &[PathBuf]) -> Option<u64> {
    paths
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len())
        })
        .sum()
}

/// The options of `blockmodes mac`.
#[derive(Debug, Clone, Default)]
pub struct MacOptions {
    /// No progress bar.
    pub quiet: bool,
    /// NUL-terminated records, names not escaped (`-z`).
    pub zero: bool,
    /// Read files instead of mapping them (`--no-mmap`).
    pub no_mmap: bool,
}

fn write_out(out: &mut impl Write, bytes: &[u8]) -> CliResult<()> {
    out.write_all(bytes)
        .map_err(|e| Failure::usage(format!("cannot write standard output: {e}")))
}

/// `blockmodes mac`: one line per file on standard output.
pub fn mac(mode: MacMode, key_file: &Path, files: &[PathBuf], o: &MacOptions) -> CliResult<()> {
    let key = MasterKey::read(key_file)?;
    let mac = file_mac(mode, &key)?;
    drop(key);
    let files: Vec<PathBuf> = if files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        files.to_vec()
    };
    let bar = progress::bar(total_size(&files), o.quiet, false);
    let mut out = std::io::stdout().lock();
    let mut failed = 0usize;
    for group in groups(&files, |p| p) {
        let results: Vec<std::io::Result<Vec<u8>>> = group
            .par_iter()
            .map(|p| mac.tag(open_named(p, o.no_mmap)?, &bar))
            .collect();
        for (p, r) in group.iter().zip(results) {
            match r {
                // The bar (if any) is cleared around each line.
                Ok(tag) => bar.suspend(|| {
                    write_out(&mut out, &sum_record(&tag, &os_bytes(p), o.zero))?;
                    out.flush()
                        .map_err(|e| Failure::usage(format!("cannot write standard output: {e}")))
                })?,
                Err(e) => {
                    failed += 1;
                    let msg = crate::one_line(&format!("{}: {e}", p.display()));
                    bar.suspend(|| eprintln!("blockmodes mac: {msg}"));
                }
            }
        }
    }
    bar.finish_and_clear();
    out.flush()
        .map_err(|e| Failure::usage(format!("cannot write standard output: {e}")))?;
    if failed > 0 {
        return Err(Failure::usage(format!(
            "{failed} of {} files could not be read (see above)",
            files.len()
        )));
    }
    Ok(())
}

/// The options of `blockmodes verify`.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Force the mode instead of telling it from the tag length.
    pub mode: Option<MacMode>,
    /// `--status`: print nothing; the exit status tells.
    pub status: bool,
    /// `--quiet`: print only the failures.
    pub quiet: bool,
    /// No progress bar.
    pub no_progress: bool,
    /// `--ignore-missing`: files that do not exist are skipped.
    pub ignore_missing: bool,
    /// `--strict`: improperly formatted lines make the check fail.
    pub strict: bool,
    /// `-z`: NUL-terminated records, names not escaped.
    pub zero: bool,
    /// Read files instead of mapping them (`--no-mmap`).
    pub no_mmap: bool,
}

/// `count` `what`, with `what` in the singular or plural (`"line"`).
fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// What a line that is not ours looks like, if it is another tool's.
fn foreign_format(line: &[u8]) -> Option<&'static str> {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches('\r');
    for (tag, tool) in [
        ("SHA256 (", "sha256sum --tag"),
        ("SHA512 (", "sha512sum --tag"),
        ("SHA1 (", "sha1sum --tag"),
        ("MD5 (", "md5sum --tag"),
        ("BLAKE3 (", "b3sum --tag"),
        ("BLAKE2b (", "b2sum --tag"),
    ] {
        if text.starts_with(tag) && text.contains(") = ") {
            return Some(tool);
        }
    }
    let hex_len = text
        .trim_start_matches('\\')
        .split(' ')
        .next()
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::len)?;
    match hex_len {
        40 => Some("sha1sum"),
        56 => Some("sha224sum"),
        96 => Some("sha384sum"),
        128 => Some("sha512sum or b2sum"),
        _ => None,
    }
}

/// If `tag` is the SHA-256 of the file at `path`: a sha256sum line.
fn sha256_of(path: &Path) -> Option<[u8; 32]> {
    use sha2::Digest;
    let mut f = std::fs::File::open(path).ok()?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(h.finalize().into())
}

/// One check file's lines: `(mode, tag, name)`, the malformed count, and
/// the first foreign format seen.
type Parsed = (
    Vec<(MacMode, Vec<u8>, PathBuf)>,
    usize,
    Option<&'static str>,
);

fn parse_check_file(text: &[u8], o: &VerifyOptions) -> Parsed {
    let mut entries = Vec::new();
    let mut malformed = 0usize;
    let mut foreign = None;
    let sep = if o.zero { 0 } else { b'\n' };
    for line in text.split(|&b| b == sep) {
        // Blank lines, and comments: lines that begin with `#` (which `mac`
        // never writes: its lines begin with a hex digit or a backslash),
        // skipped as by sha256sum -c.
        if line.is_empty() || (!o.zero && line == b"\r") || line.starts_with(b"#") {
            continue;
        }
        let parsed = parse_record(line, o.zero).and_then(|(tag, name)| {
            match o.mode.or_else(|| MacMode::from_hex_len(2 * tag.len())) {
                Some(m) if m.tag_len() == tag.len() => Some((m, tag, path_of(name))),
                _ => None,
            }
        });
        match parsed {
            Some(e) => entries.push(e),
            None => {
                malformed += 1;
                foreign = foreign.or_else(|| foreign_format(line));
            }
        }
    }
    (entries, malformed, foreign)
}

/// `blockmodes verify`: check every line of each check file.
pub fn verify(key_file: &Path, sum_files: &[PathBuf], o: &VerifyOptions) -> CliResult<()> {
    let key = MasterKey::read(key_file)?;
    let macs: Vec<(MacMode, Box<dyn FileMac>)> = [MacMode::Pmac, MacMode::Xecb]
        .into_iter()
        .map(|m| file_mac(m, &key).map(|f| (m, f)))
        .collect::<CliResult<_>>()?;
    drop(key);
    let sum_files: Vec<PathBuf> = if sum_files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        sum_files.to_vec()
    };
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    // Check files that could not be read: the others are still checked, as
    // `sha256sum -c` does, and the status is then 2 (an I/O error).
    let mut unreadable = Vec::new();
    let mut out = std::io::stdout().lock();
    for sum_file in &sum_files {
        let read = if sum_file == Path::new("-") {
            let mut v = Vec::new();
            std::io::stdin()
                .read_to_end(&mut v)
                .map(|_| v)
                .map_err(|e| format!("cannot read standard input: {e}"))
        } else {
            std::fs::read(sum_file).map_err(|e| format!("cannot read {}: {e}", sum_file.display()))
        };
        let text = match read {
            Ok(t) => t,
            Err(e) => {
                unreadable.push(e);
                continue;
            }
        };
        let name = if sum_file == Path::new("-") {
            "standard input".to_owned()
        } else {
            sum_file.display().to_string()
        };
        match verify_one(&text, &macs, o, &mut out)? {
            Found::Problems(p) => problems.push(format!("{name}: {p}")),
            Found::Warning(w) => warnings.push(format!("{name}: {w}")),
            Found::Clean => {}
        }
    }
    let _ = out.flush();
    if !unreadable.is_empty() {
        unreadable.extend(problems);
        unreadable.extend(warnings);
        return Err(Failure::usage(unreadable.join("; ")));
    }
    if !problems.is_empty() {
        problems.extend(warnings);
        // --status: the exit status alone tells (no message).
        let msg = if o.status {
            String::new()
        } else {
            problems.join("; ")
        };
        return Err(Failure::rejected(msg));
    }
    if !warnings.is_empty() && !o.status {
        eprintln!(
            "blockmodes verify: warning: {}",
            crate::one_line(&warnings.join("; "))
        );
    }
    Ok(())
}

/// What one check file gave.
enum Found {
    /// Every listed file matched.
    Clean,
    /// Only malformed lines (without --strict).
    Warning(String),
    /// Failures (the message).
    Problems(String),
}

fn verify_one(
    text: &[u8],
    macs: &[(MacMode, Box<dyn FileMac>)],
    o: &VerifyOptions,
    out: &mut impl Write,
) -> CliResult<Found> {
    let (entries, malformed, foreign) = parse_check_file(text, o);
    if entries.is_empty() {
        let what = match foreign {
            Some(tool) => format!(
                "no checksum lines of `blockmodes mac` found: this looks like a file from {tool}"
            ),
            None => "no checksum lines found (expected `<hex tag>  <file name>` lines from `blockmodes mac`)".to_owned(),
        };
        return Ok(Found::Problems(what));
    }
    let mac_of = |m: MacMode| macs.iter().find(|(x, _)| *x == m).map(|(_, f)| f.as_ref());
    let bar = progress::bar(
        total_size(&entries.iter().map(|e| e.2.clone()).collect::<Vec<_>>()),
        o.no_progress,
        false,
    );
    let end: &[u8] = if o.zero { b"\0" } else { b"\n" };
    let (mut good, mut bad, mut unreadable, mut missing) = (0usize, 0usize, 0usize, 0usize);
    let mut first_bad: Option<usize> = None;
    let mut before = 0; // entries in the groups before this one
    for group in groups(&entries, |e| &e.2) {
        let results: Vec<std::io::Result<bool>> = group
            .par_iter()
            .map(|(m, tag, p)| {
                let mac = mac_of(*m).ok_or_else(|| std::io::Error::other("no MAC"))?;
                mac.check(open_named(p, o.no_mmap)?, tag, &bar)
            })
            .collect();
        for (j, ((_, _, p), r)) in group.iter().zip(results).enumerate() {
            let mut line = Vec::new();
            if o.zero {
                line.extend_from_slice(&os_bytes(p));
            } else {
                let (escaped, name) = escape_name(&os_bytes(p));
                if escaped {
                    line.push(b'\\');
                }
                line.extend_from_slice(&name);
            }
            let print = match r {
                Ok(true) => {
                    good += 1;
                    line.extend_from_slice(b": OK");
                    !o.quiet
                }
                Ok(false) => {
                    bad += 1;
                    first_bad.get_or_insert(before + j);
                    line.extend_from_slice(b": FAILED");
                    true
                }
                Err(e) if o.ignore_missing && e.kind() == std::io::ErrorKind::NotFound => {
                    missing += 1;
                    false
                }
                Err(e) => {
                    unreadable += 1;
                    line.extend_from_slice(b": FAILED open or read");
                    if !o.status {
                        let msg = crate::one_line(&format!("{}: {e}", p.display()));
                        bar.suspend(|| eprintln!("blockmodes verify: {msg}"));
                    }
                    true
                }
            };
            line.extend_from_slice(end);
            if print && !o.status {
                bar.suspend(|| write_out(out, &line))?;
            }
        }
        before += group.len();
    }
    bar.finish_and_clear();
    let checked = entries.len() - missing;
    let mut problems = Vec::new();
    if bad > 0 {
        problems.push(format!(
            "{bad} of {checked} computed checksums did NOT match"
        ));
        if good == 0 && unreadable == 0 {
            problems.push(every_failed(&entries, first_bad));
        }
    }
    if unreadable > 0 {
        problems.push(format!(
            "{} could not be read",
            plural(unreadable, "listed file", "listed files")
        ));
    }
    if o.ignore_missing && checked == 0 {
        problems.push("no file was verified".to_owned());
    }
    let malformed_msg = (malformed > 0).then(|| {
        let mut m = format!(
            "{} improperly formatted",
            plural(malformed, "line is", "lines are")
        );
        if let Some(tool) = foreign {
            m.push_str(&format!(" (one looks like a line from {tool})"));
        }
        m
    });
    if let Some(m) = &malformed_msg
        && (o.strict || !problems.is_empty())
    {
        problems.push(m.clone());
    }
    let found = if !problems.is_empty() {
        Found::Problems(problems.join("; "))
    } else if let Some(m) = malformed_msg {
        Found::Warning(m)
    } else {
        Found::Clean
    };
    Ok(found)
}

/// Every checksum failed: name a sha256sum file as such, or blame the key.
fn every_failed(entries: &[(MacMode, Vec<u8>, PathBuf)], first_bad: Option<usize>) -> String {
    if let Some((_, tag, p)) = first_bad.and_then(|i| entries.get(i))
        && tag.len() == 32
        && sha256_of(p).is_some_and(|h| bool::from(h[..].ct_eq(tag)))
    {
        return format!(
            "this is a sha256sum file ({} is listed with its SHA-256), not one from `blockmodes mac`: check it with `sha256sum -c`",
            p.display()
        );
    }
    "every checksum failed: the key is probably wrong (or the file is from another tool, such as sha256sum or b3sum)".to_owned()
}

impl SumMac for blockmodes::pmac::PmacAes256 {
    type Partial = blockmodes::pmac::PartialSigma;
    fn partial(&self, first_block: u64, blocks: &[u8]) -> blockmodes::Result<Self::Partial> {
        self.partial_sigma(first_block, blocks)
    }
    fn combine(a: Self::Partial, b: Self::Partial) -> Self::Partial {
        a.combine(b)
    }
    /// PMAC's final block `M[m]` holds the last 1 to 16 bytes (none for the
    /// empty message).
    fn tail_len(len: u64) -> usize {
        if len == 0 {
            0
        } else {
            ((len - 1) % 16 + 1) as usize
        }
    }
    fn finish(&self, sum: Self::Partial, tail: &[u8]) -> blockmodes::Result<Vec<u8>> {
        blockmodes::pmac::PmacAes256::finish(self, sum, tail).map(|t| t.to_vec())
    }
}

/// Stateless XECB$-MAC with AES-256 as a [`FileMac`]: the library's
/// streaming signer and verifier, fed piece by piece on all cores.
pub struct XecbFile(pub blockmodes::xecb::XecbMac<blockmodes::Aes256>);

/// Feed a source to `f` piece by piece.
fn feed_source(
    input: Source,
    bar: &indicatif::ProgressBar,
    mut f: impl FnMut(&[u8]),
) -> std::io::Result<()> {
    match input {
        Source::Stream(r, _) => feed(r, bar, f),
        Source::Mapped(m) => {
            for piece in m.chunks(PIECE) {
                f(piece);
                bar.inc(piece.len() as u64);
            }
            Ok(())
        }
    }
}

impl FileMac for XecbFile {
    fn tag(&self, input: Source, bar: &indicatif::ProgressBar) -> std::io::Result<Vec<u8>> {
        let mut signer = self.0.signer().map_err(lib_err)?;
        feed_source(input, bar, |piece| signer.update_par(piece))?;
        Ok(signer.finalize().to_vec())
    }

    fn check(
        &self,
        input: Source,
        tag: &[u8],
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<bool> {
        let Ok(mut verifier) = self.0.verifier(tag) else {
            return Ok(false);
        };
        feed_source(input, bar, |piece| verifier.update_par(piece))?;
        Ok(verifier.verify().is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_hold_one_standard_input_at_most() {
        let names: Vec<PathBuf> = ["a", "-", "b", "-", "-", "c"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let lens: Vec<usize> = groups(&names, |p| p).iter().map(|g| g.len()).collect();
        assert_eq!(lens, [3, 1, 2]);
        let many: Vec<PathBuf> = (0..130).map(|i| PathBuf::from(i.to_string())).collect();
        let lens: Vec<usize> = groups(&many, |p| p).iter().map(|g| g.len()).collect();
        assert_eq!(lens, [64, 64, 2]);
        assert!(groups(&Vec::<PathBuf>::new(), |p| p).is_empty());
    }

    #[test]
    fn lines_round_trip() {
        for name in [
            &b"plain.txt"[..],
            b"with space",
            b"new\nline",
            b"back\\slash",
            b"*star",
        ] {
            let line = sum_line(&[0xab; 16], name);
            let (tag, back) = parse_line(line.strip_suffix(b"\n").unwrap()).unwrap();
            assert_eq!(tag, [0xab; 16]);
            assert_eq!(back, name);
        }
        assert_eq!(sum_line(&[1, 2], b"f"), b"0102  f\n");
        assert!(parse_line(b"zz  f").is_none());
        assert!(parse_line(b"0102 f").is_none());
        assert!(parse_line(b"0102  ").is_none());
        assert_eq!(parse_line(b"0102 *f").unwrap().1, b"f");
    }
}
