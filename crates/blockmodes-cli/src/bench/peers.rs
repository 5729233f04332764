//! Peers from outside the project, measured in the same run (cargo feature
//! `peers`, off by default because `openssl` needs the OpenSSL headers):
//! OpenSSL through the `openssl` crate, RustCrypto `ocb3` and `eme-mode`.
//! All AES-128, one thread, 12-byte nonces, 16-byte tags, no associated data.
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
use anyhow::{Context, Result, ensure};
use eme_mode::DynamicEme;
use eme_mode::cipher::{BlockCipher, BlockEncryptMut, BlockSizeUser, InnerIvInit, consts::U16};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

use super::Case;
use super::base::key;

pub const MODES: &[&str] = &[
    "openssl-ocb3-encrypt",
    "ocb3-rustcrypto-encrypt",
    "openssl-gcm-encrypt",
    "openssl-xts-512",
    "eme-rustcrypto-2048",
];

/// The nonce of the AEAD rows (the figures do not depend on it).
pub const NONCE: [u8; 12] = [0x11; 12];

/// The XTS tweak key, second half of the 32-byte XTS key (the `xts-512` row's).
pub const XTS_TWEAK_KEY: [u8; 16] = [7; 16];

/// The slack OpenSSL's in-place update asks for after a message: one block.
pub const SLACK: usize = 16;

/// The longest message the OpenSSL AEAD rows take in one update (the call's
/// length is a C `int`).
pub const MAX_MESSAGE: usize = 1 << 30;

/// RustCrypto's OCB3 with AES-128, 12-byte nonces and 16-byte tags.
pub type Ocb3Aes128 = ocb3::Ocb3<aes::Aes128>;

pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    match mode {
        "openssl-ocb3-encrypt" => openssl_aead(OpensslAead::ocb3(&key()).ok()?, bytes),
        "openssl-gcm-encrypt" => openssl_aead(OpensslAead::gcm(&key()).ok()?, bytes),
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

/// An OpenSSL AEAD context (AES-128-OCB or AES-128-GCM) keyed once:
/// 12-byte nonces, 16-byte tags, no associated data.
pub struct OpensslAead {
    ctx: CipherCtx,
}

impl OpensslAead {
    /// AES-128-OCB (OCB3, RFC 7253).
    pub fn ocb3(key: &[u8; 16]) -> Result<Self> {
        Self::new(Cipher::aes_128_ocb(), key)
    }

    /// AES-128-GCM.
    pub fn gcm(key: &[u8; 16]) -> Result<Self> {
        Self::new(Cipher::aes_128_gcm(), key)
    }

    /// Choose the cipher, set 12-byte nonces, then the key (its schedule is
    /// computed here, once).
    fn new(cipher: &CipherRef, key: &[u8; 16]) -> Result<Self> {
        let mut ctx = CipherCtx::new()?;
        ctx.encrypt_init(Some(cipher), None, None)?;
        ctx.set_iv_length(NONCE.len())?;
        ensure!(ctx.key_length() == key.len(), "unexpected key length");
        ensure!(ctx.iv_length() == NONCE.len(), "nonce length not taken");
        ensure!(ctx.block_size() <= SLACK, "block larger than the slack");
        ctx.encrypt_init(None, Some(key), None)?;
        Ok(Self { ctx })
    }

    /// Encrypt the first `len` bytes of `buf` in place under `nonce` and
    /// return the 16-byte tag. `buf` must hold at least [`SLACK`] bytes after
    /// the message (OpenSSL may write a block there before it is complete;
    /// the ciphertext ends up in `buf[..len]`); `len` is at most
    /// [`MAX_MESSAGE`].
    pub fn encrypt_in_place(
        &mut self,
        nonce: &[u8; 12],
        buf: &mut [u8],
        len: usize,
    ) -> Result<[u8; 16]> {
        ensure!(
            len <= MAX_MESSAGE,
            "message longer than {MAX_MESSAGE} bytes"
        );
        ensure!(
            len.checked_add(SLACK) <= Some(buf.len()),
            "no slack after the message"
        );
        self.ctx.encrypt_init(None, None, Some(nonce))?;
        let done = self.ctx.cipher_update_inplace(buf, len)?;
        let tail = buf
            .get_mut(done..)
            .context("OpenSSL wrote past the buffer")?;
        ensure!(tail.len() >= SLACK, "OpenSSL wrote past the message");
        let last = self.ctx.cipher_final(tail)?;
        ensure!(
            done + last == len,
            "OpenSSL returned {} of {len} bytes",
            done + last
        );
        let mut tag = [0u8; 16];
        self.ctx.tag(&mut tag)?;
        Ok(tag)
    }
}

/// An OpenSSL AES-128-XTS context keyed once with a data key and a tweak key.
pub struct OpensslXts {
    ctx: CipherCtx,
}

impl OpensslXts {
    /// Key the context: `data_key` enciphers the blocks, `tweak_key` the
    /// tweaks (OpenSSL refuses two equal halves).
    pub fn new(data_key: &[u8; 16], tweak_key: &[u8; 16]) -> Result<Self> {
        let mut key = [0u8; 32];
        key[..16].copy_from_slice(data_key);
        key[16..].copy_from_slice(tweak_key);
        let mut ctx = CipherCtx::new()?;
        let cipher = Cipher::aes_128_xts();
        ensure!(cipher.key_length() == key.len(), "unexpected key length");
        ensure!(cipher.iv_length() == 16, "unexpected tweak length");
        ensure!(
            cipher.block_size() == 1,
            "XTS must take whole units in place"
        );
        ctx.encrypt_init(Some(cipher), Some(&key), None)?;
        Ok(Self { ctx })
    }

    /// Encrypt `buf` in place as data units of `unit` bytes (at least 16, at
    /// most 16 MiB), unit i under the tweak `first + i` as a 16-byte
    /// little-endian integer; `buf` holds whole units.
    pub fn encrypt_units(&mut self, first: u128, unit: usize, buf: &mut [u8]) -> Result<()> {
        ensure!(
            (16..=1 << 24).contains(&unit),
            "XTS data unit of {unit} bytes"
        );
        ensure!(buf.len().is_multiple_of(unit), "not whole data units");
        for (i, data) in buf.chunks_exact_mut(unit).enumerate() {
            let tweak = first.wrapping_add(i as u128).to_le_bytes();
            self.ctx.encrypt_init(None, None, Some(&tweak))?;
            let done = self.ctx.cipher_update_inplace(data, unit)?;
            ensure!(done == unit, "OpenSSL XTS returned {done} of {unit} bytes");
        }
        Ok(())
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
