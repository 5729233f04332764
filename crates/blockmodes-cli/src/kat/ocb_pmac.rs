//! `ocb1-aes` and `pmac-aes`.

use blockmodes::Error;
use blockmodes::pmac::{Pmac, TagSize};

use super::{KatError, Outcome, Vector, expect_eq};

pub fn ocb1(_v: &Vector) -> Result<Outcome, KatError> {
    Err(KatError::UnknownScheme(
        "ocb1-aes (not implemented yet)".into(),
    ))
}

/// Run `$body` with `$T` bound to the typenum tag size of `$len` bytes
/// (1..=16); evaluates to `None` for any other length.
macro_rules! with_tag_size {
    ($len:expr, $T:ident => $body:expr) => {
        with_tag_size!(@arms $len, $T, $body;
            1 U1, 2 U2, 3 U3, 4 U4, 5 U5, 6 U6, 7 U7, 8 U8,
            9 U9, 10 U10, 11 U11, 12 U12, 13 U13, 14 U14, 15 U15, 16 U16)
    };
    (@arms $len:expr, $T:ident, $body:expr; $($n:literal $u:ident),*) => {
        match $len {
            $($n => {
                type $T = ::blockmodes::cipher::consts::$u;
                Some($body)
            })*
            _ => None,
        }
    };
}

/// `pmac-aes`: PMAC with tag length len(tag) through the public API: the
/// one-shot `mac`, `verify`, streaming `update`/`finalize` and the `digest`
/// `Mac` trait's `verify_slice`. Invalid vectors must be rejected by
/// `verify` and by `verify_slice`.
pub fn pmac(v: &Vector) -> Result<Outcome, KatError> {
    let key = v.hex("key")?;
    let msg = v.hex("msg")?;
    let tag = v.hex("tag")?;
    let valid = v.expects_valid()?;
    let outcome = crate::with_aes!(key.len(), C => {
        with_tag_size!(tag.len(), T => pmac_check::<C, T>(&key, &msg, &tag, valid))
            // A tag length PMAC does not allow: verify must refuse it.
            .unwrap_or_else(|| pmac_bad_tag_len::<C>(&key, &msg, &tag, valid))
    });
    outcome.ok_or_else(|| v.bad_key_len("key"))
}

fn pmac_check<C, T>(key: &[u8], msg: &[u8], tag: &[u8], valid: bool) -> Outcome
where
    C: blockmodes::oracle::BlockCipher128 + cipher::KeyInit,
    T: TagSize,
{
    let pmac = Pmac::<C, T>::new_from_slice(key).map_err(|e| format!("key setup: {e}"))?;
    let verified = pmac.verify(msg, tag);
    let mut trait_mac = <Pmac<C, T> as digest::KeyInit>::new_from_slice(key)
        .map_err(|e| format!("digest key setup: {e}"))?;
    digest::Mac::update(&mut trait_mac, msg);
    let trait_verified = digest::Mac::verify_slice(trait_mac, tag);
    if !valid {
        return match (verified, trait_verified) {
            (Err(Error::Authentication), Err(_)) => Ok(()),
            (Ok(()), _) => Err("verify accepted an invalid tag".into()),
            (Err(e), _) if e != Error::Authentication => Err(format!("verify: {e}")),
            _ => Err("Mac::verify_slice accepted an invalid tag".into()),
        };
    }
    expect_eq("tag", &pmac.mac(msg), tag)?;
    let mut streaming = Pmac::<C, T>::new_from_slice(key).map_err(|e| format!("key setup: {e}"))?;
    for piece in msg.chunks(7) {
        streaming.update(piece);
    }
    expect_eq("streaming tag", &streaming.finalize(), tag)?;
    verified.map_err(|e| format!("verify rejected the vector: {e}"))?;
    trait_verified.map_err(|_| "Mac::verify_slice rejected the vector".to_string())
}

fn pmac_bad_tag_len<C>(key: &[u8], msg: &[u8], tag: &[u8], valid: bool) -> Outcome
where
    C: blockmodes::oracle::BlockCipher128 + cipher::KeyInit,
{
    let pmac = Pmac::<C>::new_from_slice(key).map_err(|e| format!("key setup: {e}"))?;
    match (pmac.verify(msg, tag), valid) {
        (Err(Error::InvalidTagLength { .. }), false) => Ok(()),
        (r, _) => Err(format!(
            "tag of {} bytes (PMAC allows 1..=16): verify gave {r:?}",
            tag.len()
        )),
    }
}
