//! `blockmodes mac` / `blockmodes verify`: checksums of files under a secret
//! key, in the layout of `sha256sum` (`docs/file-format.md`, section 3).
//!
//! PMAC's Σ and XECB-MAC's w are xor-sums over blocks at absolute positions:
//! a large file is read in pieces by one thread while the blocks of each piece
//! are summed on all cores ([`SumMac::partial`] over ranges, combined), and
//! the final block is handled once at the end.

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
    let (batches, free) = spawn_reader(input, PIECE);
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
    let (batches, free) = spawn_reader(input, PIECE);
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

/// A keyed checksum: computes and checks tags of whole inputs.
pub trait FileMac: Sync {
    /// The tag of `input`.
    fn tag(
        &self,
        input: Box<dyn Read + Send>,
        size: Option<u64>,
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<Vec<u8>>;
    /// Whether `tag` is a valid tag of `input` (constant-time comparison).
    fn check(
        &self,
        input: Box<dyn Read + Send>,
        size: Option<u64>,
        tag: &[u8],
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<bool>;
}

/// A deterministic [`SumMac`] as a [`FileMac`]: check = recompute and compare.
pub struct Deterministic<M>(pub M);

impl<M: SumMac> FileMac for Deterministic<M> {
    fn tag(
        &self,
        input: Box<dyn Read + Send>,
        size: Option<u64>,
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<Vec<u8>> {
        mac_stream(&self.0, input, size, bar)
    }

    fn check(
        &self,
        input: Box<dyn Read + Send>,
        size: Option<u64>,
        tag: &[u8],
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<bool> {
        let t = mac_stream(&self.0, input, size, bar)?;
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
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (escaped, line) = match line.strip_prefix(b"\\") {
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

/// Open a named input (`-` is standard input) with its size.
fn open_named(name: &Path) -> std::io::Result<(Box<dyn Read + Send>, Option<u64>)> {
    if name == Path::new("-") {
        return Ok((Box::new(std::io::stdin()), None));
    }
    let f = std::fs::File::open(name)?;
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("is a directory"));
    }
    Ok((Box::new(f), meta.is_file().then_some(meta.len())))
}

/// Files processed in parallel at a time (results printed in order).
const FILES_AT_ONCE: usize = 64;

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

/// `blockmodes mac`: one line per file on standard output.
pub fn mac(mode: MacMode, key_file: &Path, files: &[PathBuf], quiet: bool) -> CliResult<()> {
    let key = MasterKey::read(key_file)?;
    let mac = file_mac(mode, &key)?;
    drop(key);
    let files: Vec<PathBuf> = if files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        files.to_vec()
    };
    let bar = progress::bar(total_size(&files), quiet);
    let mut out = std::io::stdout().lock();
    let mut failed = 0usize;
    for group in files.chunks(FILES_AT_ONCE) {
        let results: Vec<std::io::Result<Vec<u8>>> = group
            .par_iter()
            .map(|p| {
                let (input, size) = open_named(p)?;
                mac.tag(input, size, &bar)
            })
            .collect();
        for (p, r) in group.iter().zip(results) {
            match r {
                Ok(tag) => out
                    .write_all(&sum_line(&tag, &os_bytes(p)))
                    .map_err(|e| Failure::usage(format!("cannot write standard output: {e}")))?,
                Err(e) => {
                    failed += 1;
                    bar.suspend(|| eprintln!("blockmodes mac: {}: {e}", p.display()));
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

/// `blockmodes verify`: check every line of a check file.
pub fn verify(
    mode: Option<MacMode>,
    key_file: &Path,
    sum_file: &Path,
    quiet: bool,
) -> CliResult<()> {
    let key = MasterKey::read(key_file)?;
    let text = if sum_file == Path::new("-") {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| Failure::usage(format!("cannot read standard input: {e}")))?;
        v
    } else {
        std::fs::read(sum_file).map_err(|e| Failure::io("read", sum_file, &e))?
    };
    let mut entries = Vec::new();
    let mut malformed = 0usize;
    for line in text.split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        match parse_line(line) {
            Some((tag, name)) => match mode.or_else(|| MacMode::from_hex_len(2 * tag.len())) {
                Some(m) if m.tag_len() == tag.len() => entries.push((m, tag, path_of(name))),
                _ => malformed += 1,
            },
            None => malformed += 1,
        }
    }
    if entries.is_empty() {
        return Err(Failure::rejected(format!(
            "{}: no checksum lines found (expected `<hex tag>  <file name>` lines from `blockmodes mac`)",
            sum_file.display()
        )));
    }
    let mut macs: Vec<(MacMode, Box<dyn FileMac>)> = Vec::new();
    for m in [MacMode::Pmac, MacMode::Xecb] {
        if entries.iter().any(|(e, _, _)| *e == m) {
            macs.push((m, file_mac(m, &key)?));
        }
    }
    drop(key);
    let mac_of = |m: MacMode| macs.iter().find(|(x, _)| *x == m).map(|(_, f)| f.as_ref());
    let bar = progress::bar(
        total_size(&entries.iter().map(|e| e.2.clone()).collect::<Vec<_>>()),
        quiet,
    );
    let mut out = std::io::stdout().lock();
    let (mut bad, mut unreadable) = (0usize, 0usize);
    for group in entries.chunks(FILES_AT_ONCE) {
        let results: Vec<std::io::Result<bool>> = group
            .par_iter()
            .map(|(m, tag, p)| {
                let mac = mac_of(*m).ok_or_else(|| std::io::Error::other("no MAC"))?;
                let (input, size) = open_named(p)?;
                mac.check(input, size, tag, &bar)
            })
            .collect();
        for ((_, _, p), r) in group.iter().zip(results) {
            let (escaped, name) = escape_name(&os_bytes(p));
            let mut line = Vec::new();
            if escaped {
                line.push(b'\\');
            }
            line.extend_from_slice(&name);
            match r {
                Ok(true) => line.extend_from_slice(b": OK\n"),
                Ok(false) => {
                    bad += 1;
                    line.extend_from_slice(b": FAILED\n");
                }
                Err(e) => {
                    unreadable += 1;
                    line.extend_from_slice(b": FAILED open or read\n");
                    bar.suspend(|| eprintln!("blockmodes verify: {}: {e}", p.display()));
                }
            }
            bar.suspend(|| out.write_all(&line))
                .map_err(|e| Failure::usage(format!("cannot write standard output: {e}")))?;
        }
    }
    bar.finish_and_clear();
    let _ = out.flush();
    let mut problems = Vec::new();
    if bad > 0 {
        problems.push(format!(
            "{bad} of {} computed checksums did NOT match",
            entries.len()
        ));
    }
    if unreadable > 0 {
        problems.push(format!("{unreadable} listed files could not be read"));
    }
    if malformed > 0 {
        problems.push(format!("{malformed} lines are improperly formatted"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::rejected(format!(
            "{}: {}",
            sum_file.display(),
            problems.join("; ")
        )))
    }
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

impl FileMac for XecbFile {
    fn tag(
        &self,
        input: Box<dyn Read + Send>,
        _size: Option<u64>,
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<Vec<u8>> {
        let mut signer = self.0.signer().map_err(lib_err)?;
        feed(input, bar, |piece| signer.update_par(piece))?;
        Ok(signer.finalize().to_vec())
    }

    fn check(
        &self,
        input: Box<dyn Read + Send>,
        _size: Option<u64>,
        tag: &[u8],
        bar: &indicatif::ProgressBar,
    ) -> std::io::Result<bool> {
        let Ok(mut verifier) = self.0.verifier(tag) else {
            return Ok(false);
        };
        feed(input, bar, |piece| verifier.update_par(piece))?;
        Ok(verifier.verify().is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
