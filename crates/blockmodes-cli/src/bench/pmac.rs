//! PMAC (AES-128, 16-byte tags): ours on one core, ours on rayon's pool
//! (`mac_par`, one thread below its threshold), and the RustCrypto
//! `pmac` crate as a peer.

use blockmodes::Aes128;
use blockmodes::pmac::PmacAes128;
use digest::{FixedOutputReset, KeyInit, Update};

use super::Case;
use super::base::key;

pub const MODES: &[&str] = &["pmac", "pmac-parallel", "pmac-rustcrypto"];

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    let msg = vec![0x5au8; bytes];
    match mode {
        "pmac" => {
            let pmac = PmacAes128::new_from_slice(&key()).ok()?;
            Some(Box::new(move || {
                std::hint::black_box(pmac.mac(std::hint::black_box(&msg)));
            }))
        }
        "pmac-parallel" => {
            let pmac = PmacAes128::new_from_slice(&key()).ok()?;
            Some(Box::new(move || {
                std::hint::black_box(pmac.mac_par(std::hint::black_box(&msg)));
            }))
        }
        "pmac-rustcrypto" => {
            let mut peer = <pmac::Pmac<Aes128> as KeyInit>::new_from_slice(&key()).ok()?;
            Some(Box::new(move || {
                peer.update(std::hint::black_box(&msg));
                std::hint::black_box(peer.finalize_fixed_reset());
            }))
        }
        _ => None,
    }
}
