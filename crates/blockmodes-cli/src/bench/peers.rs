//! Peers from outside the project, measured in the same run (cargo feature
//! `peers`, off by default: it builds OpenSSL from source, which takes
//! minutes once per target directory): OpenSSL 4.0.3 (the pinned
//! `openssl-src`, built and linked statically by `build.rs`, called through
//! [`openssl`]), `ring` (BoringSSL's AES-GCM kernels), RustCrypto `ocb3` and
//! `eme-mode`. All AES-128, one thread, 12-byte nonces, 16-byte tags, no
//! associated data. The bench header names the OpenSSL and ring versions
//! ([`description`]).
//!
//! What one call (one message) of each row includes:
//! - `openssl-ocb3-encrypt`, `openssl-gcm-encrypt`: on a cipher context
//!   keyed once at set-up, setting the nonce (`EVP_EncryptInit_ex` with only
//!   the IV: no key schedule, no allocation), one update over the whole
//!   message in place, the final call and reading the tag.
//! - `openssl-xts-512`: on a context keyed once with the two 16-byte keys
//!   (data key, then tweak key), for each 512-byte data unit: setting its
//!   tweak (the unit number, 16 bytes little-endian, numbered from 0) and one
//!   update over the unit in place. Like `xts-512` and `xex-512`.
//! - `ring-gcm-encrypt`: `seal_in_place_separate_tag` in place on a
//!   `LessSafeKey` built once (key schedule and GHASH table at set-up), with
//!   `Nonce::assume_unique_for_key` and empty associated data. ring 0.17.14
//!   picks its kernel at key set-up: BoringSSL's `aes-gcm-avx2-x86_64`
//!   (VAES and VPCLMULQDQ on 256-bit registers) where the CPU has VAES,
//!   VPCLMULQDQ and AVX2, else AES-NI with PCLMULQDQ (`src/aead/aes_gcm.rs`,
//!   `DynKey::new`); it has no 512-bit kernel.
//! - `ocb3-rustcrypto-encrypt`: `encrypt_inout_detached` in place on a key
//!   object built once (as `gcm-encrypt` does for `aes-gcm`).
//! - `eme-rustcrypto-2048`: for each 2048-byte data unit, a `DynamicEme` from
//!   a clone of the keyed AES (the crate fixes the tweak at construction; the
//!   clone copies the expanded key, it does not schedule it again) and its
//!   in-place encryption under the tweak of the unit number (16 bytes
//!   little-endian, as the sector interface's EME). Like `eme-2048`.
//!
//! The sector rows cut a message as `disk.rs` does (whole units; a
//! shorter message is one unit of its own length).
//! Each row is checked against an independent implementation by
//! `tests/bench_peers.rs`, through the functions below that the rows call.

use aead::AeadInOut;
use anyhow::{Result, ensure};
use eme_mode::DynamicEme;
use eme_mode::cipher::{BlockCipher, BlockEncryptMut, BlockSizeUser, InnerIvInit, consts::U16};

use super::Case;
use super::base::key;

pub mod openssl;

pub use openssl::{MAX_MESSAGE, OpensslAead, OpensslXts, SLACK};

pub const MODES: &[&str] = &[
    "openssl-ocb3-encrypt",
    "ocb3-rustcrypto-encrypt",
    "openssl-gcm-encrypt",
    "ring-gcm-encrypt",
    "openssl-xts-512",
    "eme-rustcrypto-2048",
];

/// The version of `ring` in use (pinned in Cargo.toml; tests/bench_peers.rs
/// checks it against Cargo.lock).
pub const RING_VERSION: &str = "0.17.14";

/// The peers' versions, for the bench header: the linked OpenSSL's own
/// version text, the `openssl-src` crate that built it, and ring's version.
pub fn description() -> String {
    format!(
        "{} (libcrypto built from source by openssl-src {}, linked statically); ring {RING_VERSION}",
        openssl::version(),
        openssl::SOURCE_CRATE_VERSION,
    )
}

/// [`description`] as JSON: `{"openssl": ..., "openssl_src": ..., "ring": ...}`.
pub fn to_json() -> serde_json::Value {
    serde_json::json!({
        "openssl": openssl::version(),
        "openssl_src": openssl::SOURCE_CRATE_VERSION,
        "ring": RING_VERSION,
    })
}

/// The nonce of the AEAD rows (the figures do not depend on it).
pub const NONCE: [u8; 12] = [0x11; 12];

/// The XTS tweak key, second half of the 32-byte XTS key (the `xts-512` row's).
pub const XTS_TWEAK_KEY: [u8; 16] = [7; 16];

/// RustCrypto's OCB3 with AES-128, 12-byte nonces and 16-byte tags.
pub type Ocb3Aes128 = ocb3::Ocb3<aes::Aes128>;

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    match mode {
        "openssl-ocb3-encrypt" => openssl_aead(OpensslAead::ocb3(&key()).ok()?, bytes),
        "openssl-gcm-encrypt" => openssl_aead(OpensslAead::gcm(&key()).ok()?, bytes),
        "ring-gcm-encrypt" => ring_gcm(bytes),
        "ocb3-rustcrypto-encrypt" => ocb3_rustcrypto(bytes),
        _ => sector_row(mode, bytes),
    }
}

/// `openssl-ocb3-encrypt` and `openssl-gcm-encrypt`: the message in place,
/// followed by [`SLACK`] bytes. One trial call at set-up: a context that
/// fails gives no row.
fn openssl_aead(mut aead: OpensslAead, bytes: usize) -> Option<Case> {
    let mut buf = vec![0x5au8; bytes.checked_add(SLACK)?];
    aead.encrypt_in_place(&NONCE, &mut buf, bytes).ok()?;
    Some(Box::new(move || {
        let tag = aead.encrypt_in_place(&NONCE, &mut buf, bytes);
        std::hint::black_box((&buf, tag.ok()));
    }))
}

/// ring's AES-128-GCM with a key set up once.
pub fn ring_gcm_key(key: &[u8; 16]) -> Option<ring::aead::LessSafeKey> {
    let unbound = ring::aead::UnboundKey::new(&ring::aead::AES_128_GCM, key).ok()?;
    Some(ring::aead::LessSafeKey::new(unbound))
}

/// Encrypt `buf` in place with ring's AES-GCM under `nonce`, no associated
/// data; the 16-byte tag.
pub fn ring_gcm_seal(
    key: &ring::aead::LessSafeKey,
    nonce: &[u8; 12],
    buf: &mut [u8],
) -> Result<[u8; 16]> {
    let nonce = ring::aead::Nonce::assume_unique_for_key(*nonce);
    let tag = key
        .seal_in_place_separate_tag(nonce, ring::aead::Aad::empty(), buf)
        .map_err(|_| anyhow::anyhow!("ring refused the message"))?;
    let mut out = [0u8; 16];
    ensure!(tag.as_ref().len() == 16, "ring's tag is not 16 bytes");
    out.copy_from_slice(tag.as_ref());
    Ok(out)
}

/// `ring-gcm-encrypt`: detached, in place.
fn ring_gcm(bytes: usize) -> Option<Case> {
    let gcm = ring_gcm_key(&key())?;
    let mut buf = vec![0x5au8; bytes];
    ring_gcm_seal(&gcm, &NONCE, &mut buf).ok()?;
    Some(Box::new(move || {
        let tag = ring_gcm_seal(&gcm, &NONCE, &mut buf);
        std::hint::black_box((&buf, tag.ok()));
    }))
}

/// `ocb3-rustcrypto-encrypt`: detached, in place.
fn ocb3_rustcrypto(bytes: usize) -> Option<Case> {
    let ocb = <Ocb3Aes128 as aead::KeyInit>::new_from_slice(&key()).ok()?;
    let nonce = NONCE.into();
    let mut buf = vec![0x5au8; bytes];
    Some(Box::new(move || {
        let tag = ocb.encrypt_inout_detached(&nonce, &[], (&mut buf[..]).into());
        std::hint::black_box((&buf, tag.ok()));
    }))
}

/// `openssl-xts-<size>` and `eme-rustcrypto-<size>`, data units numbered from 0.
fn sector_row(mode: &str, bytes: usize) -> Option<Case> {
    let (name, size) = mode.rsplit_once('-')?;
    let (unit, len) = super::disk::units(bytes, size.parse().ok()?)?;
    let mut buf = vec![0x5au8; len];
    match name {
        "openssl-xts" => {
            let mut xts = OpensslXts::new(&key(), &XTS_TWEAK_KEY).ok()?;
            xts.encrypt_units(0, unit, &mut buf).ok()?;
            Some(Box::new(move || {
                let ok = xts.encrypt_units(0, unit, &mut buf);
                std::hint::black_box((&buf, ok.is_ok()));
            }))
        }
        "eme-rustcrypto" => {
            let aes = <aes08::Aes128 as eme_mode::cipher::KeyInit>::new(&key().into());
            eme_rustcrypto_units(&aes, 0, unit, &mut buf).ok()?;
            Some(Box::new(move || {
                let ok = eme_rustcrypto_units(&aes, 0, unit, &mut buf);
                std::hint::black_box((&buf, ok.is_ok()));
            }))
        }
        _ => None,
    }
}

/// Encrypt `buf` in place with RustCrypto `eme-mode` as data units of `unit`
/// bytes (16 to 2048, whole blocks), unit i under the tweak `first + i` as a
/// 16-byte little-endian integer. Any 128-bit block cipher of the `cipher`
/// 0.4 traits (`aes` 0.8).
pub fn eme_rustcrypto_units<C>(aes: &C, first: u128, unit: usize, buf: &mut [u8]) -> Result<()>
where
    C: BlockEncryptMut + BlockCipher + BlockSizeUser<BlockSize = U16> + Clone,
{
    ensure!(
        unit.is_multiple_of(16) && (16..=2048).contains(&unit),
        "EME data unit of {unit} bytes"
    );
    ensure!(buf.len().is_multiple_of(unit), "not whole data units");
    for (i, data) in buf.chunks_exact_mut(unit).enumerate() {
        let tweak = first.wrapping_add(i as u128).to_le_bytes();
        let mut eme = DynamicEme::inner_iv_init(aes.clone(), &tweak.into());
        eme.encrypt_block_mut(data);
    }
    Ok(())
}
