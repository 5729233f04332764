//! The disk ciphers over sectors, AES-128, one thread: XEX, EME,
//! EtE[EME, StE[XEX]] and EME2 (whole 4096-byte sectors) through the sector
//! interface's single-threaded bulk call, and XTS from the `xts-mode` crate
//! as a peer.
//!
//! A message of `bytes` bytes for `<mode>-<size>` is `bytes / size` sectors
//! of `size` bytes (numbered from 0) enciphered with
//! `encrypt_sectors_serial`; a message shorter than one sector is one data
//! unit of `bytes` bytes.

use blockmodes::Aes128;
use blockmodes::eme::Eme;
use blockmodes::eme2::Eme2;
use blockmodes::ete::EteEmeAes128;
use blockmodes::sector::{DataUnitCipher, SectorCipher, Sectors};
use blockmodes::xex::Xex;
use cipher::KeyInit;

use super::Case;

pub const MODES: &[&str] = &[
    "xex-512",
    "eme-512",
    "eme-2048",
    "ete-eme-512",
    "ete-eme-2048",
    "eme2-4096",
    "xts-512",
];

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    let key = super::base::key();
    let (name, size) = mode.rsplit_once('-')?;
    let (size, len) = units(bytes, size.parse().ok()?)?;
    match name {
        "xex" => sectors(Xex::<Aes128>::new_from_slice(&key).ok()?, size, len),
        "eme" => sectors(Eme::<Aes128>::new_from_slice(&key).ok()?, size, len),
        "ete-eme" => sectors(EteEmeAes128::new_from_slice(&key).ok()?, size, len),
        "eme2" => sectors(
            Eme2::<Aes128>::new_from_slice(&key.repeat(3)).ok()?,
            size,
            len,
        ),
        "xts" => {
            let xts = xts_mode::Xts128::new(Aes128::new(&key.into()), Aes128::new(&[7; 16].into()));
            let mut buf = vec![0x5au8; len];
            Some(Box::new(move || {
                xts.encrypt_area(&mut buf, size, 0, xts_mode::get_tweak_default);
                std::hint::black_box(&buf);
            }))
        }
        _ => None,
    }
}

/// The data-unit size and message length of a `<mode>-<size>` row at
/// `bytes`: whole units of `size` bytes, or one unit as long as a short
/// message (its length rounded down to whole blocks, at least one block).
/// `None` for a size of zero. `peers.rs` cuts its sector rows the same way.
pub(super) fn units(bytes: usize, size: usize) -> Option<(usize, usize)> {
    if size == 0 {
        return None;
    }
    let size = if bytes < size {
        (bytes / 16).max(1) * 16
    } else {
        size
    };
    Some((size, (bytes / size).max(1) * size))
}

fn sectors<D: DataUnitCipher + Send + 'static>(d: D, size: usize, len: usize) -> Option<Case> {
    let disk = Sectors::new(d, size).ok()?;
    let mut buf = vec![0x5au8; len];
    Some(Box::new(move || {
        disk.encrypt_sectors_serial(0, &mut buf)
            .expect("valid sector buffer");
        std::hint::black_box(&buf);
    }))
}
