//! `blockmodes disk encrypt|decrypt`: disk images sector by sector
//! (`docs/file-format.md`, section 4), in parallel, through the library's
//! sector interface, with the same temporary-file-and-rename safety as `seal`.

use std::path::{Path, PathBuf};

use blockmodes::sector::{DiskCipher, SectorCipher, aes_sectors};
use zeroize::Zeroizing;

use crate::failure::{CliResult, Failure};
use crate::keyfile::MasterKey;
use crate::output::{Output, check_absent};
use crate::pipeline::{self, PipeError, Rejected, Transform};
use crate::progress;

/// Bytes of sectors per unit of work (a whole number of sectors).
const UNIT_BYTES: usize = 64 * 1024;
/// Bytes per batch handed to the worker threads.
const BATCH_BYTES: usize = 8 << 20;

/// The HKDF label and key length of each cipher's key (`None` for a cipher
/// of the library the command does not offer, such as EME2).
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
    /// The key file.
    pub key_file: PathBuf,
    /// The image.
    pub input: PathBuf,
    /// The output file.
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

/// `blockmodes disk encrypt` (`encrypt`) or `decrypt`.
pub fn run(o: &Options, encrypt: bool) -> CliResult<()> {
    // Before any use (a size of 0 would divide by zero below).
    check_sector_size(o.sector_size).map_err(|e| Failure::usage(format!("--sector-size: {e}")))?;
    let f = std::fs::File::open(&o.input).map_err(|e| Failure::io("open", &o.input, &e))?;
    let meta = f
        .metadata()
        .map_err(|e| Failure::io("read", &o.input, &e))?;
    let size = meta.is_file().then_some(meta.len());
    if let Some(n) = size
        && n % o.sector_size as u64 != 0
    {
        return Err(not_whole(&o.input, Some(n), o.sector_size));
    }
    check_absent(&o.output, o.force)?;
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
    let out = Output::file(&o.output, o.force)?.with_sync(o.sync);
    let bar = progress::bar(size, o.quiet);
    let batch_units = (BATCH_BYTES / work.unit_len()).max(2 * rayon::current_num_threads());
    let result = pipeline::run(&work, Box::new(f), out, batch_units, &bar);
    bar.finish_and_clear();
    match result {
        Ok((out, _)) => out.commit(),
        Err(PipeError::Read(e)) => Err(Failure::io("read", &o.input, &e)),
        Err(PipeError::Write(e)) => Err(Failure::io("write", &o.output, &e)),
        Err(PipeError::Unit {
            bad_length: true, ..
        }) => Err(not_whole(&o.input, None, o.sector_size)),
        Err(PipeError::Unit { offset, .. }) => Err(Failure::usage(format!(
            "cannot process the sectors at byte {offset} of {} (sector numbers out of range?); no output file was written",
            o.input.display()
        ))),
    }
}

fn not_whole(input: &Path, len: Option<u64>, sector: usize) -> Failure {
    let detail = len
        .map(|n| format!(" ({n} bytes, {} left over)", n % sector as u64))
        .unwrap_or_default();
    Failure::usage(format!(
        "{} is not a whole number of {sector}-byte sectors{detail}: pad the image or choose another --sector-size; no output file was written",
        input.display()
    ))
}
