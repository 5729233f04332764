//! `ocb1-aes` and `pmac-aes`.

use blockmodes::Error;
// The vectors carry tags of every length: the hazmat forms (the safe types
// take 8..=16-byte tags; the code is the same).
use blockmodes::ocb1::hazmat::Ocb1;
use blockmodes::pmac::hazmat::Pmac;
use blockmodes::tag::{Hazmat, TagSize};

use super::{KatError, Outcome, Vector, expect_eq};

/// `ocb1-aes`: encrypt with tag length len(tag) must give ct || tag, and
/// decrypt must give msg back; `invalid` vectors must be rejected by decrypt,
/// which sees ct || tag and a tag length of `tag_size` (default len(tag)).
pub fn ocb1(v: &Vector) -> Result<Outcome, KatError> {
    let key = v.hex("key")?;
    let nonce = v.hex("nonce")?;
    let msg = v.hex("msg")?;
    let ct = v.hex("ct")?;
    let tag = v.hex("tag")?;
    let valid = v.expects_valid()?;
    let tag_size = v.tag_size(&tag)?;
    let sealed = [ct.as_slice(), tag.as_slice()].concat();
    let outcome = crate::with_aes!(key.len(), C => {
        crate::with_tag_size!(tag_size, T => ocb1_check::<C, T>(&key, &nonce, &msg, &sealed, valid))
            .unwrap_or_else(|| ocb1_unsupported_tag(tag_size, valid))
    })
    .ok_or_else(|| v.bad_key_len("key"))?;
    Ok(outcome)
}

/// A tag length outside 1..=16 cannot be produced: a `valid` vector fails,
/// an `invalid` one counts as rejected.
fn ocb1_unsupported_tag(len: usize, valid: bool) -> Outcome {
    if valid {
        Err(format!("tag length {len} is outside 1..=16 bytes"))
    } else {
        Ok(())
    }
}

fn ocb1_check<C, T>(key: &[u8], nonce: &[u8], msg: &[u8], sealed: &[u8], valid: bool) -> Outcome
where
    C: blockmodes::oracle::BlockCipher128Dec + cipher::KeyInit,
    T: TagSize<Hazmat>,
{
    let ocb = Ocb1::<C, T>::new_from_slice(key).map_err(|e| format!("key setup: {e}"))?;
    let opened = ocb.decrypt_to_vec(nonce, sealed);
    if !valid {
        return match opened {
            Err(_) => Ok(()),
            Ok(_) => Err("decrypt accepted an invalid vector".into()),
        };
    }
    let got = ocb
        .encrypt_to_vec(nonce, msg)
        .map_err(|e| format!("encrypt: {e}"))?;
    expect_eq("encrypt (ct || tag)", &got, sealed)?;
    let plain = opened.map_err(|e| format!("decrypt: {e}"))?;
    expect_eq("decrypt", &plain, msg)
}

/// `pmac-aes`: PMAC with tag length len(tag) through the public API: the
/// one-shot `mac`, `verify_tag`, streaming `update`/`finalize` and the `digest`
/// `Mac` trait's `verify_slice`. Invalid vectors must be rejected by
/// `verify` and by `verify_slice` of a PMAC with tag length `tag_size`
/// (default len(tag)).
pub fn pmac(v: &Vector) -> Result<Outcome, KatError> {
    let key = v.hex("key")?;
    let msg = v.hex("msg")?;
    let tag = v.hex("tag")?;
    let valid = v.expects_valid()?;
    let tag_size = v.tag_size(&tag)?;
    let outcome = crate::with_aes!(key.len(), C => {
        crate::with_tag_size!(tag_size, T => pmac_check::<C, T>(&key, &msg, &tag, valid))
            // A tag length PMAC does not allow: verify must refuse it.
            .unwrap_or_else(|| pmac_bad_tag_len::<C>(&key, &msg, &tag, valid))
    });
    outcome.ok_or_else(|| v.bad_key_len("key"))
}

fn pmac_check<C, T>(key: &[u8], msg: &[u8], tag: &[u8], valid: bool) -> Outcome
where
    C: blockmodes::oracle::BlockCipher128 + cipher::KeyInit,
    T: TagSize<Hazmat>,
{
    let pmac = Pmac::<C, T>::new_from_slice(key).map_err(|e| format!("key setup: {e}"))?;
    let verified = pmac.verify_tag(msg, tag);
    let mut trait_mac = <Pmac<C, T> as digest::KeyInit>::new_from_slice(key)
        .map_err(|e| format!("digest key setup: {e}"))?;
    digest::Mac::update(&mut trait_mac, msg);
    let trait_verified = digest::Mac::verify_slice(trait_mac, tag);
    if !valid {
        // A tag of another length than T is refused as such.
        let expected = |e: &Error| match e {
            Error::Authentication => tag.len() == T::USIZE,
            Error::InvalidTagLength { .. } => tag.len() != T::USIZE,
            _ => false,
        };
        return match (verified, trait_verified) {
            (Err(e), Err(_)) if expected(&e) => Ok(()),
            (Ok(()), _) => Err("verify accepted an invalid tag".into()),
            (Err(e), _) if !expected(&e) => Err(format!("verify: {e}")),
            _ => Err("Mac::verify_slice accepted an invalid tag".into()),
        };
    }
    expect_eq("tag", &pmac.mac(msg), tag)?;
    let mut streaming = Pmac::<C, T>::new_from_slice(key).map_err(|e| format!("key setup: {e}"))?;
    for piece in msg.chunks(7) {
        streaming.update(piece);
    }
    expect_eq("streaming tag", &streaming.finalize().into_bytes(), tag)?;
    verified.map_err(|e| format!("verify rejected the vector: {e}"))?;
    trait_verified.map_err(|_| "Mac::verify_slice rejected the vector".to_string())
}

fn pmac_bad_tag_len<C>(key: &[u8], msg: &[u8], tag: &[u8], valid: bool) -> Outcome
where
    C: blockmodes::oracle::BlockCipher128 + cipher::KeyInit,
{
    let pmac = Pmac::<C>::new_from_slice(key).map_err(|e| format!("key setup: {e}"))?;
    match (pmac.verify_tag(msg, tag), valid) {
        (Err(Error::InvalidTagLength { .. }), false) => Ok(()),
        (r, _) => Err(format!(
            "tag of {} bytes (PMAC allows 1..=16): verify gave {r:?}",
            tag.len()
        )),
    }
}
