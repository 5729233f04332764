//! `blockmodes disk encrypt|decrypt`: disk images sector by sector
//! (`docs/file-format.md`, section 4), in parallel, through the library's
//! sector interface, with the same temporary-file-and-rename safety as `seal`
//! for a regular output file (a device node or FIFO is written in place).
//!
//! The input is a file, a block device or `-` (standard input); `--offset`
//! skips bytes before the image, `--count` limits the sectors processed, and
//! `--first-sector` numbers the first of them (cryptsetup's `--skip`).

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
use zeroize::Zeroizing;

use crate::failure::{CliResult, Failure};
use crate::keyfile::MasterKey;
use crate::output::{Access, Output, check_absent};
use crate::pipeline::{self, PipeError, Rejected, Transform};
use crate::progress;

/// Bytes of sectors per unit of work (a whole number of sectors).
const UNIT_BYTES: usize = 64 * 1024;
/// Bytes per batch handed to the worker threads.
const BATCH_BYTES: usize = 8 << 20;

/// The HKDF label and key length of each cipher's key (`None` for a cipher
/// of the library the command does not offer).
///
/// ```
/// use blockmodes::sector::DiskCipher;
/// use blockmodes_cli::disk::key_spec;
/// assert_eq!(key_spec(DiskCipher::Xex), Some(("blockmodes v1 disk xex-aes256", 32)));
/// ```
#[allow(unreachable_patterns)]
pub fn key_spec(c: DiskCipher) -> Option<(&'static str, usize)> {
    match c {
        DiskCipher::Ete => Some(("blockmodes v1 disk ete-eme-aes128", 16)),
        DiskCipher::Eme => Some(("blockmodes v1 disk eme-aes256", 32)),
        DiskCipher::Xex => Some(("blockmodes v1 disk xex-aes256", 32)),
        // K_AD || K_ECB || K_AES with AES-256: 16 + 16 + 32 bytes.
        DiskCipher::Eme2 => Some(("blockmodes v1 disk eme2-aes256", 64)),
        _ => None,
    }
}

/// The sector cipher of `blockmodes disk` for `cipher` under the key file's
/// master key over `sector_size`-byte sectors: the sub-key derived with the
/// HKDF label of [`key_spec`] (`docs/file-format.md`, section 4), then
/// [`aes_sectors`]. `disk serve` and the nbdkit plugin
/// (`crates/blockmodes-nbdkit`) build their cipher with it, so a served
/// export is exactly `disk decrypt` of the image.
///
/// ```
/// use blockmodes::sector::DiskCipher;
/// use blockmodes_cli::{disk::sector_cipher, keyfile::MasterKey};
/// let key = MasterKey::generate()?;
/// let disk = sector_cipher(&key, DiskCipher::Ete, 512)?;
/// assert_eq!(disk.sector_size(), 512);
/// assert!(sector_cipher(&key, DiskCipher::Ete, 500).is_err());
/// # Ok::<(), blockmodes_cli::failure::Failure>(())
/// ```
pub fn sector_cipher(
    key: &MasterKey,
    cipher: DiskCipher,
    sector_size: usize,
) -> CliResult<Box<dyn SectorCipher>> {
    check_sector_size(sector_size).map_err(|e| Failure::usage(format!("sector size: {e}")))?;
    let (label, len) = key_spec(cipher).ok_or_else(|| {
        Failure::usage(format!(
            "the disk cipher {cipher:?} is not offered by `blockmodes disk` (no key derivation in docs/file-format.md)"
        ))
    })?;
    let mut k = Zeroizing::new(vec![0u8; len]);
    key.derive(label, &mut k);
    aes_sectors(cipher, &k, sector_size)
        .map_err(|e| Failure::usage(format!("sector size {sector_size}: {e}")))
}

/// The options of `disk encrypt` / `disk decrypt`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The cipher.
    pub cipher: DiskCipher,
    /// Bytes per sector.
    pub sector_size: usize,
    /// The number of the image's first sector.
    pub first_sector: u64,
    /// Bytes of the input before the image (skipped).
    pub offset: u64,
    /// Sectors to process (default: to the end of the input).
    pub count: Option<u64>,
    /// The key file.
    pub key_file: PathBuf,
    /// The image (`-`: standard input).
    pub input: PathBuf,
    /// The output file (`-`: standard output).
    pub output: PathBuf,
    /// Replace an existing output.
    pub force: bool,
    /// No progress bar.
    pub quiet: bool,
    /// Sync the output to disk before renaming it.
    pub sync: bool,
}

struct SectorWork<'a> {
    disk: &'a dyn SectorCipher,
    sector_size: usize,
    sectors_per_unit: u64,
    first_sector: u64,
    encrypt: bool,
}

impl Transform for SectorWork<'_> {
    fn unit_len(&self) -> usize {
        self.sector_size * self.sectors_per_unit as usize
    }
    fn max_out_len(&self, len: usize, _last: bool) -> Option<usize> {
        len.is_multiple_of(self.sector_size).then_some(len)
    }
    fn apply(
        &self,
        index: u64,
        _last: bool,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, Rejected> {
        if input.is_empty() {
            return Ok(0);
        }
        output.copy_from_slice(input);
        let first = index
            .checked_mul(self.sectors_per_unit)
            .and_then(|s| s.checked_add(self.first_sector))
            .ok_or(Rejected)?;
        let r = if self.encrypt {
            self.disk.encrypt_sectors_serial(first, output)
        } else {
            self.disk.decrypt_sectors_serial(first, output)
        };
        r.map(|()| output.len()).map_err(|_| Rejected)
    }
}

/// Check a `--sector-size`: 16 to 2048 bytes in multiples of 16, or 4096
/// (the sizes of the ciphers the command offers).
pub fn check_sector_size(n: usize) -> Result<usize, String> {
    if n == 4096 || ((16..=2048).contains(&n) && n.is_multiple_of(16)) {
        Ok(n)
    } else {
        Err(format!(
            "sector size must be 16 to 2048 bytes in multiples of 16, or 4096, not {n}"
        ))
    }
}

/// The input after `--offset`, limited to `--count` sectors, with the
/// number of bytes it will yield when known.
fn open_image(o: &Options) -> CliResult<(Box<dyn Read + Send>, Option<u64>)> {
    let stdin = o.input == Path::new("-");
    let (mut reader, avail): (Box<dyn Read + Send>, Option<u64>) = if stdin {
        (Box::new(std::io::stdin()), None)
    } else {
        let mut f = std::fs::File::open(&o.input).map_err(|e| Failure::io("open", &o.input, &e))?;
        let meta = f
            .metadata()
            .map_err(|e| Failure::io("read", &o.input, &e))?;
        let ft = meta.file_type();
        if ft.is_dir() {
            return Err(Failure::usage(format!(
                "{} is a directory",
                o.input.display()
            )));
        }
        let len = if ft.is_file() {
            Some(meta.len())
        } else if ft.is_block_device() {
            // A block device's size is where its end is.
            let end = f
                .seek(SeekFrom::End(0))
                .map_err(|e| Failure::io("read", &o.input, &e))?;
            Some(end)
        } else {
            None
        };
        if let Some(len) = len {
            if o.offset > len {
                return Err(Failure::usage(format!(
                    "--offset {} is past the end of {} ({len} bytes)",
                    o.offset,
                    o.input.display()
                )));
            }
            f.seek(SeekFrom::Start(o.offset))
                .map_err(|e| Failure::io("read", &o.input, &e))?;
        }
        (Box::new(f), len.map(|l| l - o.offset))
    };
    if avail.is_none() && o.offset > 0 {
        // A pipe or FIFO: read past the offset.
        let skipped = std::io::copy(&mut (&mut reader).take(o.offset), &mut std::io::sink())
            .map_err(|e| Failure::io("read", &o.input, &e))?;
        if skipped < o.offset {
            return Err(Failure::usage(format!(
                "--offset {}: {} ends after {skipped} bytes",
                o.offset,
                input_name(&o.input)
            )));
        }
    }
    let Some(count) = o.count else {
        return Ok((reader, avail));
    };
    let want = count
        .checked_mul(o.sector_size as u64)
        .ok_or_else(|| Failure::usage(format!("--count {count}: too many sectors")))?;
    if let Some(a) = avail
        && a < want
    {
        return Err(Failure::usage(format!(
            "--count {count}: {} has only {} whole {}-byte sectors after byte {}",
            o.input.display(),
            a / o.sector_size as u64,
            o.sector_size,
            o.offset
        )));
    }
    Ok((Box::new(reader.take(want)), Some(want)))
}

/// `blockmodes disk encrypt` (`encrypt`) or `decrypt`.
pub fn run(o: &Options, encrypt: bool) -> CliResult<()> {
    // Before any use (a size of 0 would divide by zero below).
    check_sector_size(o.sector_size).map_err(|e| Failure::usage(format!("--sector-size: {e}")))?;
    let to_stdout = o.output == Path::new("-");
    if to_stdout && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return Err(Failure::usage(
            "refusing to write a disk image to a terminal: use -o FILE or redirect the output",
        ));
    }
    if to_stdout {
        crate::seal::check_input_is_not_stdout(Some(&o.input))?;
    }
    let (input, size) = open_image(o)?;
    if let Some(n) = size
        && n % o.sector_size as u64 != 0
    {
        let left = if to_stdout {
            "nothing was written"
        } else {
            "no output file was written"
        };
        return Err(not_whole(&o.input, Some(n), o.sector_size, left));
    }
    if !to_stdout {
        check_absent(&o.output, o.force)?;
    }
    let key = MasterKey::read(&o.key_file)?;
    let (label, len) = key_spec(o.cipher)
        .ok_or_else(|| Failure::usage("this disk cipher is not offered by the command"))?;
    let mut k = Zeroizing::new(vec![0u8; len]);
    key.derive(label, &mut k);
    drop(key);
    let disk = aes_sectors(o.cipher, &k, o.sector_size)
        .map_err(|e| Failure::usage(format!("--sector-size {}: {e}", o.sector_size)))?;
    let sectors_per_unit = (UNIT_BYTES / o.sector_size).max(1) as u64;
    let work = SectorWork {
        disk: disk.as_ref(),
        sector_size: o.sector_size,
        sectors_per_unit,
        first_sector: o.first_sector,
        encrypt,
    };
    if let Some(n) = size {
        let sectors = n / o.sector_size as u64;
        if sectors > 0 && o.first_sector.checked_add(sectors - 1).is_none() {
            return Err(Failure::usage(format!(
                "--first-sector {}: the image's {sectors} sectors would run past sector 2^64 - 1",
                o.first_sector
            )));
        }
    }
    // A decrypted image is private (0600); an encrypted one follows the umask.
    let access = if encrypt {
        Access::Umask
    } else {
        Access::Private
    };
    let out = Output::to(Some(&o.output), o.force, access)?.with_sync(o.sync);
    let bar = progress::bar(size, o.quiet, to_stdout);
    let batch_units = (BATCH_BYTES / work.unit_len()).max(2 * rayon::current_num_threads());
    let result = pipeline::run(&work, (input, o.offset), out, batch_units, &bar);
    bar.finish_and_clear();
    let out_name = || {
        if to_stdout {
            PathBuf::from("standard output")
        } else {
            o.output.clone()
        }
    };
    // What a failure left: a file output never appears; standard output
    // has had the sectors before the failing unit.
    let left = |written: u64| match (to_stdout, written) {
        (false, _) => "no output file was written".to_owned(),
        (true, 0) => "nothing was written".to_owned(),
        (true, n) => format!("the first {n} bytes were written to standard output"),
    };
    match result {
        Ok((out, stats)) => {
            if let Some(c) = o.count
                && stats.bytes_in < c * o.sector_size as u64
            {
                return Err(Failure::usage(format!(
                    "--count {c}: {} ended after {} sectors",
                    input_name(&o.input),
                    stats.bytes_in / o.sector_size as u64
                )));
            }
            out.commit()
        }
        Err(PipeError::Read(e)) => Err(Failure::io("read", &o.input, &e)),
        Err(PipeError::Write(e)) => Err(Failure::io("write", &out_name(), &e)),
        Err(PipeError::Unit {
            bad_length: true,
            offset,
            ..
        }) => Err(not_whole(&o.input, None, o.sector_size, &left(offset))),
        Err(PipeError::Unit { offset, .. }) => Err(Failure::usage(format!(
            "cannot process the sectors at byte {offset} of {} (sector numbers out of range?); {}",
            input_name(&o.input),
            left(offset)
        ))),
    }
}

/// `-` is standard input in messages.
fn input_name(input: &Path) -> String {
    if input == Path::new("-") {
        "standard input".to_owned()
    } else {
        input.display().to_string()
    }
}

fn not_whole(input: &Path, len: Option<u64>, sector: usize, left: &str) -> Failure {
    let detail = len
        .map(|n| format!(" ({n} bytes, {} left over)", n % sector as u64))
        .unwrap_or_default();
    Failure::usage(format!(
        "{} is not a whole number of {sector}-byte sectors{detail}: pad the image or choose another --sector-size; {left}",
        input_name(input)
    ))
}
