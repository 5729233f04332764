//! Every vector of `vectors/{xex,eme,ste-xex,ete-eme}-aes.json`, through the
//! public API, in both directions. None of these expectations was computed
//! with this code (see each file's `source`).
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use blockmodes::eme::Eme;
use blockmodes::ete::EteEmeAes128;
use blockmodes::ste::SteXexAes128;
use blockmodes::tweakable::TweakableBlockCipher;
use blockmodes::xex::{Xex, XexTweak};
use blockmodes::{Aes128, Aes192, Aes256, Block};
use serde_json::Value;

mod common;
use common::{block, hexf as hex, load as vectors};

fn name(v: &Value) -> &str {
    v["name"].as_str().unwrap_or("?")
}

#[test]
fn xex_aes_vectors() {
    // vectors/ and the independent Go reference's, on each backend (the
    // generic path, the fused kernels on AES-NI and on VAES-512).
    let vs: Vec<Value> = vectors("xex-aes")
        .into_iter()
        .chain(common::load_independent("xex-aes"))
        .collect();
    assert!(vs.len() >= 2 + 26);
    common::on_each_backend(Some(vs.len() as u64), |_| {
        for v in &vs {
            xex_check(v);
        }
    });
}

fn xex_check(v: &Value) {
    assert_eq!(v["result"], "valid");
    let (key, pt, ct) = (hex(v, "key"), hex(v, "pt"), hex(v, "ct"));
    let t = XexTweak {
        n: block(v, "tweak_n"),
        i: v["tweak_i"].as_u64().unwrap(),
    };
    macro_rules! check {
        ($c:ty) => {{
            let xex = Xex::<$c>::new_from_slice(&key).unwrap();
            let mut buf = pt.clone();
            xex.encrypt_blocks(&t.n, t.i, &mut buf).unwrap();
            assert_eq!(buf, ct, "{}", name(v));
            xex.decrypt_blocks(&t.n, t.i, &mut buf).unwrap();
            assert_eq!(buf, pt, "{}", name(v));
            // The one-block API agrees.
            let mut b: Block = pt[..16].try_into().unwrap();
            xex.encrypt_block(&t, &mut b).unwrap();
            assert_eq!(&b[..], &ct[..16], "{}", name(v));
        }};
    }
    match key.len() {
        16 => check!(Aes128),
        24 => check!(Aes192),
        32 => check!(Aes256),
        n => panic!("key length {n}"),
    }
}

fn eme_check<C: blockmodes::oracle::BlockCipher128Dec + cipher::KeyInit>(v: &Value) {
    let (key, pt, ct) = (hex(v, "key"), hex(v, "pt"), hex(v, "ct"));
    let tweak = block(v, "tweak");
    let times = v["iterations"].as_u64().unwrap_or(1);
    let eme = Eme::<C>::new_from_slice(&key).unwrap();
    let mut buf = pt.clone();
    for _ in 0..times {
        eme.encrypt(&tweak, &mut buf).unwrap();
    }
    assert_eq!(buf, ct, "{}", name(v));
    for _ in 0..times {
        eme.decrypt(&tweak, &mut buf).unwrap();
    }
    assert_eq!(buf, pt, "{}", name(v));
}

#[test]
fn eme_aes_vectors() {
    // vectors/ (Halevi's) and the independent Go reference's, on each
    // backend (the generic path, the fused kernels on AES-NI, VAES-256 and
    // VAES-512, or on armv8).
    let all = vectors("eme-aes");
    assert!(all.iter().any(|v| v["direction"] == "decrypt"));
    assert!(all.iter().any(|v| v["iterations"].as_u64() == Some(100)));
    let independent = common::load_independent("eme-aes");
    assert!(independent.len() >= 20);
    let vs: Vec<Value> = all.into_iter().chain(independent).collect();
    common::on_each_backend(Some(vs.len() as u64), |_| {
        for v in &vs {
            assert_eq!(v["result"], "valid");
            match hex(v, "key").len() {
                16 => eme_check::<Aes128>(v),
                24 => eme_check::<Aes192>(v),
                32 => eme_check::<Aes256>(v),
                n => panic!("key length {n}"),
            }
        }
    });
}

#[test]
fn ste_xex_aes_vectors() {
    common::on_each_backend(None, |_| ste_xex_aes_vectors_here());
}

fn ste_xex_aes_vectors_here() {
    for v in vectors("ste-xex-aes")
        .into_iter()
        .chain(common::load_independent("ste-xex-aes"))
    {
        assert_eq!(v["result"], "valid");
        let f = SteXexAes128::new_from_slice(&hex(&v, "key")).unwrap();
        let t = XexTweak {
            n: block(&v, "tweak_n"),
            i: v["tweak_i"].as_u64().unwrap(),
        };
        let (pt, ct) = (block(&v, "pt"), block(&v, "ct"));
        let mut b = pt;
        f.encrypt_block(&t, &mut b).unwrap();
        assert_eq!(b, ct, "{}", name(&v));
        f.decrypt_block(&t, &mut b).unwrap();
        assert_eq!(b, pt, "{}", name(&v));
        // The batched permutation F(K, T, ·) agrees, with the block in the
        // middle of a batch.
        let fixed = f.fix_tweak(&t).unwrap();
        let mut batch = [[0x33u8; 16]; 40];
        batch[17] = pt;
        cipher::BlockCipherEncrypt::encrypt_blocks(
            &fixed,
            cipher::array::Array::cast_slice_from_core_mut(&mut batch),
        );
        assert_eq!(batch[17], ct, "{} (batched)", name(&v));
    }
}

#[test]
fn ete_eme_aes_vectors() {
    // vectors/ and the independent Go reference's, on each backend (one
    // fused key per vector: StE keys its XEX from the key bytes).
    let vs: Vec<Value> = vectors("ete-eme-aes")
        .into_iter()
        .chain(common::load_independent("ete-eme-aes"))
        .collect();
    assert!(vs.len() >= 3 + 30);
    common::on_each_backend(Some(vs.len() as u64), |_| {
        for v in &vs {
            ete_check(v);
        }
    });
}

fn ete_check(v: &Value) {
    assert_eq!(v["result"], "valid");
    let j = EteEmeAes128::new_from_slice(&hex(v, "key")).unwrap();
    let tweak = block(v, "tweak");
    let (pt, ct) = (hex(v, "pt"), hex(v, "ct"));
    let mut buf = pt.clone();
    j.encrypt(&tweak, &mut buf).unwrap();
    assert_eq!(buf, ct, "{}", name(v));
    j.decrypt(&tweak, &mut buf).unwrap();
    assert_eq!(buf, pt, "{}", name(v));
}

#[test]
fn eme2_aes_vectors() {
    let all = vectors("eme2-aes");
    assert!(
        all.iter().any(|v| hex(v, "pt").len() > 2048),
        "a vector past 128 blocks"
    );
    // On each backend (one AES key per vector: K_AES).
    common::on_each_backend(Some(all.len() as u64), |_| {
        for v in &all {
            eme2_check(v);
        }
    });
}

fn eme2_check(v: &Value) {
    use blockmodes::eme2::Eme2;
    assert_eq!(v["result"], "valid");
    let (key, ad, pt, ct) = (hex(v, "key"), hex(v, "tweak"), hex(v, "pt"), hex(v, "ct"));
    macro_rules! check {
        ($c:ty) => {{
            let e = Eme2::<$c>::new_from_slice(&key).unwrap();
            let mut buf = pt.clone();
            e.encrypt(&ad, &mut buf).unwrap();
            assert_eq!(buf, ct, "{}", name(v));
            e.decrypt(&ad, &mut buf).unwrap();
            assert_eq!(buf, pt, "{}", name(v));
        }};
    }
    match key.len() {
        48 => check!(Aes128),
        64 => check!(Aes256),
        n => panic!("key length {n}"),
    }
}
