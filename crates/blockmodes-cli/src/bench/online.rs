//! On-line OCB 1.0 and CWC (AES-128, 16-byte tags): one message fed to the
//! encryptor in 64 KiB pieces (the last one shorter), the ciphertext
//! appended to an output buffer that keeps its capacity from call to call,
//! as `blockmodes seal` or a network writer would use it. Compare with
//! `ocb1-encrypt-vec` / `cwc-encrypt-vec`, the one-shot `encrypt(nonce,
//! msg) -> Vec` (a new output each call, as the on-line cases append to a
//! second buffer), and with `ocb1-encrypt` / `cwc-encrypt` (in place, one
//! buffer: half the memory traffic) at the same size in the same run.
//! `ocb1-decrypt-vec` / `cwc-decrypt-vec`: the one-shot `decrypt_to_vec`
//! of a valid `C || T`, next to `ocb1-decrypt` / `cwc-decrypt` (from one
//! buffer into another, no allocation).

use blockmodes::cwc::CwcAes128;
use blockmodes::ocb1::Ocb1Aes128;

use super::Case;
use super::base::key;

pub const MODES: &[&str] = &[
    "ocb1-encrypt-vec",
    "ocb1-decrypt-vec",
    "ocb1-online-64k",
    "cwc-encrypt-vec",
    "cwc-decrypt-vec",
    "cwc-online-64k",
];

/// The piece size of the on-line cases.
const PIECE: usize = 64 * 1024;

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    let msg = vec![0x5au8; bytes];
    let mut out = Vec::with_capacity(bytes + 16);
    match mode {
        "ocb1-encrypt-vec" => {
            let ocb = Ocb1Aes128::new_from_slice(&key()).ok()?;
            Some(Box::new(move || {
                std::hint::black_box(ocb.encrypt_to_vec(&[0x4e; 16], &msg).ok());
            }))
        }
        "ocb1-decrypt-vec" => {
            let ocb = Ocb1Aes128::new_from_slice(&key()).ok()?;
            let sealed = ocb.encrypt_to_vec(&[0x4e; 16], &msg).ok()?;
            Some(Box::new(move || {
                let pt = ocb.decrypt_to_vec(&[0x4e; 16], &sealed);
                assert!(pt.is_ok(), "ocb1-decrypt-vec bench: authentication failed");
                std::hint::black_box(pt.ok());
            }))
        }
        "cwc-decrypt-vec" => {
            let cwc = CwcAes128::new_from_slice(&key()).ok()?;
            let sealed = cwc.encrypt_to_vec(&[0x11; 11], &[], &msg).ok()?;
            Some(Box::new(move || {
                let pt = cwc.decrypt_to_vec(&[0x11; 11], &[], &sealed);
                assert!(pt.is_ok(), "cwc-decrypt-vec bench: authentication failed");
                std::hint::black_box(pt.ok());
            }))
        }
        "cwc-encrypt-vec" => {
            let cwc = CwcAes128::new_from_slice(&key()).ok()?;
            Some(Box::new(move || {
                std::hint::black_box(cwc.encrypt_to_vec(&[0x11; 11], &[], &msg).ok());
            }))
        }
        "ocb1-online-64k" => {
            let ocb = Ocb1Aes128::new_from_slice(&key()).ok()?;
            Some(Box::new(move || {
                out.clear();
                let Ok(mut enc) = ocb.encryptor(&[0x4e; 16]) else {
                    return;
                };
                for piece in msg.chunks(PIECE) {
                    enc.update(piece, &mut out);
                }
                let tag = enc.finish(&mut out);
                std::hint::black_box((&out, tag));
            }))
        }
        "cwc-online-64k" => {
            let cwc = CwcAes128::new_from_slice(&key()).ok()?;
            Some(Box::new(move || {
                out.clear();
                let Ok(mut enc) = cwc.encryptor(&[0x11; 11], &[]) else {
                    return;
                };
                for piece in msg.chunks(PIECE) {
                    let ok = enc.update(piece, &mut out);
                    std::hint::black_box(ok.is_ok());
                }
                let tag = enc.finish(&mut out);
                std::hint::black_box((&out, tag));
            }))
        }
        _ => None,
    }
}
