//! `cwc-aes`: CWC-AES through the public API, both directions, with the
//! paper's intermediate values (hash key, hash value, AES(HVAL), MAC counter
//! block, AES(MCPT)) where the vector carries them. An `invalid` vector is
//! decrypted as ct || tag with a tag length of `tag_size` (default len(tag)).

// The vectors carry tags of every length: the hazmat form (the safe `Cwc`
// takes 8..=16-byte tags; the code is the same).
use blockmodes::cwc::hazmat::Cwc;
use blockmodes::oracle::BlockCipher128;
use blockmodes::tag::{Hazmat, TagSize};
use cipher::KeyInit;

use super::{KatError, Outcome, Vector, expect_eq};
use crate::with_aes;

pub fn cwc(v: &Vector) -> Result<Outcome, KatError> {
    let key = v.hex("key")?;
    let tag_len = v.tag_size(&v.hex("tag")?)?;
    if !(1..=16).contains(&tag_len) && !v.expects_valid()? {
        return Ok(Ok(())); // no CWC receiver has this tag length: rejected
    }
    let run = with_aes!(key.len(), C => {
        crate::with_tag_size!(tag_len, T => run::<C, T>(v, &key))
    })
    .ok_or_else(|| v.bad_key_len("key"))?;
    run.ok_or_else(|| KatError::Field {
        vector: v.name.clone(),
        field: "tag".into(),
        problem: "is not 1 to 16 bytes long",
    })?
}

fn run<C: BlockCipher128 + KeyInit, T: TagSize<Hazmat>>(
    v: &Vector,
    key: &[u8],
) -> Result<Outcome, KatError> {
    let nonce = v.hex("nonce")?;
    let ad = v.hex("ad")?;
    let msg = v.hex("msg")?;
    let ct = v.hex("ct")?;
    let tag = v.hex("tag")?;
    let ct_tag = [ct.as_slice(), tag.as_slice()].concat();
    let cwc = match Cwc::<C, T>::new_from_slice(key) {
        Ok(c) => c,
        Err(e) => return Ok(Err(format!("key setup: {e}"))),
    };
    if !v.expects_valid()? {
        return Ok(match cwc.decrypt_to_vec(&nonce, &ad, &ct_tag) {
            Ok(_) => Err("invalid vector: decrypt accepted it".into()),
            Err(_) => Ok(()),
        });
    }
    Ok(check_valid(v, &cwc, &nonce, &ad, &msg, &ct_tag))
}

fn check_valid<C: BlockCipher128, T: TagSize<Hazmat>>(
    v: &Vector,
    cwc: &Cwc<C, T>,
    nonce: &[u8],
    ad: &[u8],
    msg: &[u8],
    ct_tag: &[u8],
) -> Outcome {
    let got = cwc
        .encrypt_to_vec(nonce, ad, msg)
        .map_err(|e| format!("encrypt: {e}"))?;
    expect_eq("encrypt", &got, ct_tag)?;
    let pt = cwc
        .decrypt_to_vec(nonce, ad, ct_tag)
        .map_err(|e| format!("decrypt: {e}"))?;
    expect_eq("decrypt", &pt, msg)?;
    let sigma = &ct_tag[..msg.len()];
    let trace = cwc
        .mac_trace(nonce, ad, sigma)
        .map_err(|e| format!("mac_trace: {e}"))?;
    for (field, got) in [
        ("hash_key", trace.hash_key),
        ("hash_value", trace.hash_value),
        ("aes_hval", trace.aes_hval),
        ("aes_mcpt", trace.aes_mcpt),
        ("mac_ctr_pt", trace.mac_ctr_pt),
    ] {
        if let Ok(Some(want)) = v.hex_opt(field) {
            expect_eq(field, &got, &want)?;
        }
    }
    Ok(())
}
