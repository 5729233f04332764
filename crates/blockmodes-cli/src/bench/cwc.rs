//! CWC-AES-128 next to its peer AES-128-GCM (RustCrypto `aes-gcm`), and
//! CWC-HASH alone.
//!
//! Every case works in place on one buffer, as a user holding a key object
//! would: `cwc-encrypt` and `gcm-encrypt` through the detached in-place
//! calls; `cwc-decrypt` decrypts a valid ciphertext from one buffer into
//! another through the in-out call (no copy); `cwc-hash` is
//! CWC-HASH(empty A, message) on the path key setup picks (AVX-512 IFMA
//! where the CPU has it), `cwc-hash-portable` the same on the portable path;
//! `cwc-encrypt-portable` is `cwc-encrypt` with the portable hash.

use aead::inout::InOutBuf;
use aead::{AeadInOut, KeyInit};
use aes_gcm::Aes128Gcm;
use blockmodes::cwc::CwcAes128;
use blockmodes::cwc::hash::CwcHash;

use super::Case;
use super::base::key;

pub const MODES: &[&str] = &[
    "cwc-encrypt",
    "cwc-decrypt",
    "gcm-encrypt",
    "cwc-hash",
    "cwc-hash-portable",
    "cwc-encrypt-portable",
];

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    let mut buf = vec![0x5au8; bytes];
    let nonce11 = [0x11u8; 11];
    match mode {
        "cwc-encrypt" | "cwc-encrypt-portable" => {
            let mut cwc = CwcAes128::new_from_slice(&key()).ok()?;
            if mode == "cwc-encrypt-portable" {
                cwc = cwc.with_portable_hash();
            }
            Some(Box::new(move || {
                let tag = cwc.encrypt_detached(&nonce11, &[], &mut buf);
                std::hint::black_box((&buf, tag.ok()));
            }))
        }
        "cwc-decrypt" => {
            let cwc = CwcAes128::new_from_slice(&key()).ok()?;
            let tag = cwc.encrypt_detached(&nonce11, &[], &mut buf).ok()?;
            let mut out = vec![0u8; bytes];
            Some(Box::new(move || {
                let io = InOutBuf::new(&buf, &mut out).expect("same lengths");
                let ok = cwc.decrypt_inout(&nonce11, &[], io, &tag);
                assert!(ok.is_ok(), "cwc-decrypt bench: authentication failed");
                std::hint::black_box(&out);
            }))
        }
        "gcm-encrypt" => {
            let gcm = Aes128Gcm::new(&key().into());
            let nonce = [0x11u8; 12].into();
            Some(Box::new(move || {
                let tag = gcm.encrypt_inout_detached(&nonce, &[], (&mut buf[..]).into());
                std::hint::black_box((&buf, tag.ok()));
            }))
        }
        "cwc-hash" | "cwc-hash-portable" => {
            let mut hash = CwcHash::new_from_slice::<blockmodes::Aes128>(&key()).ok()?;
            if mode == "cwc-hash-portable" {
                hash = hash.portable();
            }
            Some(Box::new(move || {
                std::hint::black_box(hash.hash(&[], std::hint::black_box(&buf)).ok());
            }))
        }
        _ => None,
    }
}
