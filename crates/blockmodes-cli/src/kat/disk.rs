//! `xex-aes`, `eme-aes`, `ste-xex-aes` and `ete-eme-aes`: the disk ciphers,
//! through the library's public API, in both directions.
//!
//! These ciphers have no authentication, so a `result: invalid` vector means
//! the input must be refused with a typed error (bad key or data length).

use blockmodes::Block;
use blockmodes::eme::Eme;
use blockmodes::ete::EteEmeAes128;
use blockmodes::ste::SteXexAes128;
use blockmodes::tweakable::TweakableBlockCipher;
use blockmodes::xex::{Xex, XexTweak};

use super::{KatError, Outcome, Vector, expect_eq};

/// The two directions of a length-preserving cipher on one vector.
struct Cipher<'a> {
    enc: &'a dyn Fn(&mut [u8]) -> blockmodes::Result<()>,
    dec: &'a dyn Fn(&mut [u8]) -> blockmodes::Result<()>,
}

/// Apply `f` to a copy of `input` `times` times.
fn apply(
    f: &dyn Fn(&mut [u8]) -> blockmodes::Result<()>,
    input: &[u8],
    times: u64,
) -> blockmodes::Result<Vec<u8>> {
    let mut buf = input.to_vec();
    for _ in 0..times {
        f(&mut buf)?;
    }
    Ok(buf)
}

/// `pt --enc^times--> ct` and `ct --dec^times--> pt`; an invalid vector must
/// be refused in both directions.
fn check(v: &Vector, c: Cipher, times: u64) -> Result<Outcome, KatError> {
    let (pt, ct) = (v.hex("pt")?, v.hex("ct")?);
    let enc = apply(c.enc, &pt, times);
    let dec = apply(c.dec, &ct, times);
    if !v.expects_valid()? {
        return Ok(match (enc, dec) {
            (Err(_), Err(_)) => Ok(()),
            _ => Err("invalid vector accepted".into()),
        });
    }
    let enc = enc.map_err(|e| format!("encrypt: {e}"));
    let dec = dec.map_err(|e| format!("decrypt: {e}"));
    Ok(enc
        .and_then(|got| expect_eq("ct", &got, &ct))
        .and(dec)
        .and_then(|got| expect_eq("pt", &got, &pt)))
}

fn block(v: &Vector, field: &str) -> Result<Block, KatError> {
    v.hex(field)?.try_into().map_err(|_| KatError::Field {
        vector: v.name.clone(),
        field: field.into(),
        problem: "is not 16 bytes",
    })
}

/// Run `f` with the AES key; a key of another length is a malformed vector,
/// or, for an invalid vector, a correct rejection.
fn with_key(
    v: &Vector,
    f: impl FnOnce(&[u8]) -> Option<Result<Outcome, KatError>>,
) -> Result<Outcome, KatError> {
    let key = v.hex("key")?;
    match f(&key) {
        Some(r) => r,
        None if !v.expects_valid()? => Ok(Ok(())),
        None => Err(v.bad_key_len("key")),
    }
}

/// A run of XEX blocks under `(tweak_n, tweak_i), (tweak_n, tweak_i + 1), ...`.
pub fn xex_aes(v: &Vector) -> Result<Outcome, KatError> {
    let (n, i) = (block(v, "tweak_n")?, v.uint("tweak_i")?);
    with_key(v, |key| {
        crate::with_aes!(key.len(), C => {
            let xex = Xex::<C>::new_from_slice(key);
            let enc = |d: &mut [u8]| xex.as_ref().map_err(Clone::clone)?.encrypt_blocks(&n, i, d);
            let dec = |d: &mut [u8]| xex.as_ref().map_err(Clone::clone)?.decrypt_blocks(&n, i, d);
            check(v, Cipher { enc: &enc, dec: &dec }, 1)
        })
    })
}

/// EME with optional `iterations` and `direction`.
pub fn eme_aes(v: &Vector) -> Result<Outcome, KatError> {
    let tweak = block(v, "tweak")?;
    let times = v.uint_opt("iterations")?.unwrap_or(1);
    // Both directions are checked either way (`decrypt`: ct deciphered
    // `iterations` times gives pt, and pt enciphered as often gives ct).
    if !matches!(v.str_opt("direction"), None | Some("encrypt" | "decrypt")) {
        return Err(KatError::Field {
            vector: v.name.clone(),
            field: "direction".into(),
            problem: "is neither `encrypt` nor `decrypt`",
        });
    }
    with_key(v, |key| {
        crate::with_aes!(key.len(), C => {
            let eme = Eme::<C>::new_from_slice(key);
            let enc = |d: &mut [u8]| eme.as_ref().map_err(Clone::clone)?.encrypt(&tweak, d);
            let dec = |d: &mut [u8]| eme.as_ref().map_err(Clone::clone)?.decrypt(&tweak, d);
            check(v, Cipher { enc: &enc, dec: &dec }, times)
        })
    })
}

/// StE[XEX-AES-128] on one block.
pub fn ste_xex_aes(v: &Vector) -> Result<Outcome, KatError> {
    let t = XexTweak {
        n: block(v, "tweak_n")?,
        i: v.uint("tweak_i")?,
    };
    let f = SteXexAes128::new_from_slice(&v.hex("key")?);
    let one = |d: &mut [u8], enc: bool| -> blockmodes::Result<()> {
        let f = f.as_ref().map_err(Clone::clone)?;
        let b: &mut Block = d
            .try_into()
            .map_err(|_| blockmodes::Error::InvalidLength("StE takes one 16-byte block"))?;
        if enc {
            f.encrypt_block(&t, b)
        } else {
            f.decrypt_block(&t, b)
        }
    };
    let enc = |d: &mut [u8]| one(d, true);
    let dec = |d: &mut [u8]| one(d, false);
    check(
        v,
        Cipher {
            enc: &enc,
            dec: &dec,
        },
        1,
    )
}

/// J = EtE[EME, StE[XEX-AES-128]] on one data unit.
pub fn ete_eme_aes(v: &Vector) -> Result<Outcome, KatError> {
    let tweak = block(v, "tweak")?;
    let j = EteEmeAes128::new_from_slice(&v.hex("key")?);
    let enc = |d: &mut [u8]| j.as_ref().map_err(Clone::clone)?.encrypt(&tweak, d);
    let dec = |d: &mut [u8]| j.as_ref().map_err(Clone::clone)?.decrypt(&tweak, d);
    check(
        v,
        Cipher {
            enc: &enc,
            dec: &dec,
        },
        1,
    )
}

/// EME2 with associated data (`tweak`, any length); key 48 (AES-128) or 64
/// (AES-256) bytes.
pub fn eme2_aes(v: &Vector) -> Result<Outcome, KatError> {
    use blockmodes::eme2::Eme2;
    let ad = v.hex("tweak")?;
    let key = v.hex("key")?;
    macro_rules! run {
        ($c:ty) => {{
            let e = Eme2::<$c>::new_from_slice(&key);
            let enc = |d: &mut [u8]| e.as_ref().map_err(Clone::clone)?.encrypt(&ad, d);
            let dec = |d: &mut [u8]| e.as_ref().map_err(Clone::clone)?.decrypt(&ad, d);
            check(
                v,
                Cipher {
                    enc: &enc,
                    dec: &dec,
                },
                1,
            )
        }};
    }
    match key.len() {
        48 => run!(blockmodes::Aes128),
        64 => run!(blockmodes::Aes256),
        _ if !v.expects_valid()? => Ok(Ok(())),
        _ => Err(KatError::Field {
            vector: v.name.clone(),
            field: "key".into(),
            problem: "has a length that is not 48 or 64 bytes",
        }),
    }
}
