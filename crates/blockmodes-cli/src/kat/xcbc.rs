//! The XCBC family and XECB-MAC: `xcbc-aes`, `xcbc-xor-aes`, `xcbc-ctr-aes`,
//! `xcbc-xor-ctr-aes`, `pxcbc-xor-aes`, `pxcbc-xor-ctr-aes`, `xecb-mac-aes`,
//! `xecb-mac-ctr-aes` (docs/spec/vectors.md).
//!
//! Every check goes through the library's public API: the hazmat traits for
//! the vector's r0 or counter, the stateful sender objects resumed at the
//! vector's counter, and the ordinary decryption / verification calls.

use blockmodes::Block;
use blockmodes::oracle::{BlockCipher128, BlockCipher128Dec};
use blockmodes::pxcbc::{PxcbcXor, PxcbcXorStateful, PxcbcXorStatefulEncryptor};
use blockmodes::xcbc::hazmat::{EncryptWithCounter, EncryptWithR0};
use blockmodes::xcbc::{CounterState, StatefulXcbc, StatelessXcbc, XcbcEncryptor};
use blockmodes::xecb::hazmat::{SignWithCounter, SignWithR0};
use blockmodes::xecb::{XecbMac, XecbMacStateful, XecbMacStatefulSigner};
use cipher::KeyInit;

use super::{KatError, Outcome, Vector, expect_eq};

/// A 16-byte field (r0, ctr).
fn block(v: &Vector, field: &str) -> Result<Block, KatError> {
    v.hex(field)?.try_into().map_err(|_| KatError::Field {
        vector: v.name.clone(),
        field: field.to_owned(),
        problem: "is not 16 bytes",
    })
}

/// `key || key2` (two-key form) or `key` alone (one-key form), with the
/// length of `key` (which selects the AES variant).
fn keys(v: &Vector) -> Result<(Vec<u8>, bool, usize), KatError> {
    let key = v.hex("key")?;
    let klen = key.len();
    if !matches!(klen, 16 | 24 | 32) {
        return Err(v.bad_key_len("key"));
    }
    match v.hex_opt("key2")? {
        None => Ok((key, false, klen)),
        Some(k2) if k2.len() == klen => Ok(([key, k2].concat(), true, klen)),
        Some(_) => Err(KatError::Field {
            vector: v.name.clone(),
            field: "key2".into(),
            problem: "has a different length from `key`",
        }),
    }
}

/// The decryption half: a valid vector decrypts to msg, an invalid one is rejected.
fn check_decrypt(
    valid: bool,
    msg: &[u8],
    ct: &[u8],
    decrypt: impl Fn(&[u8]) -> blockmodes::Result<Vec<u8>>,
) -> Outcome {
    match (valid, decrypt(ct)) {
        (true, Ok(pt)) => expect_eq("decrypt", &pt, msg),
        (true, Err(e)) => Err(format!("decrypt rejected a valid ciphertext: {e}")),
        (false, Ok(_)) => Err("decrypt accepted an invalid ciphertext".into()),
        (false, Err(_)) => Ok(()),
    }
}

/// `xcbc-aes` (`CHECK = false`) and `xcbc-xor-aes` (`CHECK = true`).
pub fn xcbc<const CHECK: bool>(v: &Vector) -> Result<Outcome, KatError> {
    let (key, two, klen) = keys(v)?;
    let r0 = block(v, "r0")?;
    let (msg, ct, valid) = (v.hex("msg")?, v.hex("ct")?, v.expects_valid()?);
    crate::with_aes!(klen, C => xcbc_with::<C, CHECK>(&key, two, &r0, &msg, &ct, valid))
        .ok_or_else(|| v.bad_key_len("key"))
}

fn xcbc_with<C: BlockCipher128Dec + KeyInit, const CHECK: bool>(
    key: &[u8],
    two: bool,
    r0: &Block,
    msg: &[u8],
    ct: &[u8],
    valid: bool,
) -> Outcome {
    let x = if two {
        StatelessXcbc::<C, CHECK>::new_from_slice(key)
    } else {
        StatelessXcbc::<C, CHECK>::new_from_slice_one_key(key)
    }
    .map_err(|e| e.to_string())?;
    if valid {
        let got = x.encrypt_with_r0(r0, msg).map_err(|e| e.to_string())?;
        expect_eq("encrypt", &got, ct)?;
    }
    check_decrypt(valid, msg, ct, |c| x.decrypt(c))
}

/// `xcbc-ctr-aes` (`CHECK = false`) and `xcbc-xor-ctr-aes` (`CHECK = true`).
pub fn xcbc_ctr<const CHECK: bool>(v: &Vector) -> Result<Outcome, KatError> {
    let (key, two, klen) = keys(v)?;
    let ctr = block(v, "ctr")?;
    let (msg, ct, valid) = (v.hex("msg")?, v.hex("ct")?, v.expects_valid()?);
    crate::with_aes!(klen, C => xcbc_ctr_with::<C, CHECK>(&key, two, &ctr, &msg, &ct, valid))
        .ok_or_else(|| v.bad_key_len("key"))
}

fn xcbc_ctr_with<C: BlockCipher128Dec + KeyInit, const CHECK: bool>(
    key: &[u8],
    two: bool,
    ctr: &Block,
    msg: &[u8],
    ct: &[u8],
    valid: bool,
) -> Outcome {
    let rx = || {
        if two {
            StatefulXcbc::<C, CHECK>::new_from_slice(key)
        } else {
            StatefulXcbc::<C, CHECK>::new_from_slice_one_key(key)
        }
        .map_err(|e| e.to_string())
    };
    if valid {
        let got = rx()?
            .encrypt_with_counter(ctr, msg)
            .map_err(|e| e.to_string())?;
        expect_eq("encrypt (hazmat counter)", &got, ct)?;
        // The stateful sender resumed at the vector's counter gives the same.
        let mut tx = XcbcEncryptor::from_state(rx()?, CounterState::starting_at(ctr));
        let got = tx.encrypt(msg).map_err(|e| e.to_string())?;
        expect_eq("encrypt (sender)", &got, ct)?;
    }
    let rx = rx()?;
    check_decrypt(valid, msg, ct, |c| rx.decrypt(c))
}

/// `segment_blocks` as a usize.
fn segment_blocks(v: &Vector) -> Result<usize, KatError> {
    usize::try_from(v.uint("segment_blocks")?).map_err(|_| KatError::Field {
        vector: v.name.clone(),
        field: "segment_blocks".into(),
        problem: "is too large",
    })
}

/// `pxcbc-xor-aes`.
pub fn pxcbc(v: &Vector) -> Result<Outcome, KatError> {
    let (key, two, klen) = keys(v)?;
    let r0 = block(v, "r0")?;
    let s = segment_blocks(v)?;
    let (msg, ct, valid) = (v.hex("msg")?, v.hex("ct")?, v.expects_valid()?);
    crate::with_aes!(klen, C => pxcbc_with::<C>(&key, two, s, &r0, &msg, &ct, valid))
        .ok_or_else(|| v.bad_key_len("key"))
}

fn pxcbc_with<C: BlockCipher128Dec + KeyInit + Sync>(
    key: &[u8],
    two: bool,
    s: usize,
    r0: &Block,
    msg: &[u8],
    ct: &[u8],
    valid: bool,
) -> Outcome {
    let p = if two {
        PxcbcXor::<C>::new_from_slice(key)
    } else {
        PxcbcXor::<C>::new_from_slice_one_key(key)
    }
    .and_then(|p| p.with_segment_blocks(s))
    .map_err(|e| e.to_string())?;
    if valid {
        let got = p.encrypt_with_r0(r0, msg).map_err(|e| e.to_string())?;
        expect_eq("encrypt", &got, ct)?;
    }
    check_decrypt(valid, msg, ct, |c| p.decrypt(c))
}

/// `pxcbc-xor-ctr-aes`.
pub fn pxcbc_ctr(v: &Vector) -> Result<Outcome, KatError> {
    let (key, two, klen) = keys(v)?;
    let ctr = block(v, "ctr")?;
    let s = segment_blocks(v)?;
    let (msg, ct, valid) = (v.hex("msg")?, v.hex("ct")?, v.expects_valid()?);
    crate::with_aes!(klen, C => pxcbc_ctr_with::<C>(&key, two, s, &ctr, &msg, &ct, valid))
        .ok_or_else(|| v.bad_key_len("key"))
}

fn pxcbc_ctr_with<C: BlockCipher128Dec + KeyInit + Sync>(
    key: &[u8],
    two: bool,
    s: usize,
    ctr: &Block,
    msg: &[u8],
    ct: &[u8],
    valid: bool,
) -> Outcome {
    let rx = || {
        if two {
            PxcbcXorStateful::<C>::new_from_slice(key)
        } else {
            PxcbcXorStateful::<C>::new_from_slice_one_key(key)
        }
        .and_then(|p| p.with_segment_blocks(s))
        .map_err(|e| e.to_string())
    };
    if valid {
        let got = rx()?
            .encrypt_with_counter(ctr, msg)
            .map_err(|e| e.to_string())?;
        expect_eq("encrypt (hazmat counter)", &got, ct)?;
        let mut tx = PxcbcXorStatefulEncryptor::from_state(rx()?, CounterState::starting_at(ctr));
        let got = tx.encrypt(msg).map_err(|e| e.to_string())?;
        expect_eq("encrypt (sender)", &got, ct)?;
    }
    let rx = rx()?;
    check_decrypt(valid, msg, ct, |c| rx.decrypt(c))
}

/// The verification half of a MAC vector.
fn check_verify(valid: bool, verdict: blockmodes::Result<()>) -> Outcome {
    match (valid, verdict) {
        (true, Ok(())) | (false, Err(_)) => Ok(()),
        (true, Err(e)) => Err(format!("verify rejected a valid tag: {e}")),
        (false, Ok(())) => Err("verify accepted an invalid tag".into()),
    }
}

/// `xecb-mac-aes`.
pub fn xecb(v: &Vector) -> Result<Outcome, KatError> {
    let key = v.hex("key")?;
    let r0 = block(v, "r0")?;
    let (msg, tag, valid) = (v.hex("msg")?, v.hex("tag")?, v.expects_valid()?);
    crate::with_aes!(key.len(), C => xecb_with::<C>(&key, &r0, &msg, &tag, valid))
        .ok_or_else(|| v.bad_key_len("key"))
}

fn xecb_with<C: BlockCipher128Dec + KeyInit>(
    key: &[u8],
    r0: &Block,
    msg: &[u8],
    tag: &[u8],
    valid: bool,
) -> Outcome {
    let mac = XecbMac::<C>::new_from_slice(key).map_err(|e| e.to_string())?;
    if valid {
        expect_eq("sign", &mac.sign_with_r0(r0, msg), tag)?;
    }
    check_verify(valid, mac.verify_tag(msg, tag))
}

/// `xecb-mac-ctr-aes`.
pub fn xecb_ctr(v: &Vector) -> Result<Outcome, KatError> {
    let key = v.hex("key")?;
    let ctr = block(v, "ctr")?;
    let (msg, tag, valid) = (v.hex("msg")?, v.hex("tag")?, v.expects_valid()?);
    crate::with_aes!(key.len(), C => xecb_ctr_with::<C>(&key, &ctr, &msg, &tag, valid))
        .ok_or_else(|| v.bad_key_len("key"))
}

fn xecb_ctr_with<C: BlockCipher128 + KeyInit + Clone>(
    key: &[u8],
    ctr: &Block,
    msg: &[u8],
    tag: &[u8],
    valid: bool,
) -> Outcome {
    let keys = XecbMacStateful::<C>::new_from_slice(key).map_err(|e| e.to_string())?;
    if valid {
        expect_eq(
            "sign (hazmat counter)",
            &keys.sign_with_counter(ctr, msg),
            tag,
        )?;
        let mut signer =
            XecbMacStatefulSigner::from_state(keys.clone(), CounterState::starting_at(ctr));
        let got = signer.mac(msg).map_err(|e| e.to_string())?;
        expect_eq("sign (signer)", &got, tag)?;
    }
    check_verify(valid, keys.verify_tag(msg, tag))
}
