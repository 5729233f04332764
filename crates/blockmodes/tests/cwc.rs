//! CWC: the paper's vectors (with their intermediate values), the
//! block-cipher call count, round trips, tampering, the fast CWC-HASH (both
//! its AVX-512 IFMA and its portable path) against a plain big-integer
//! Horner evaluation written from the paper, and typed errors on bad input.
//! Every vector (the paper's, `vectors/independent/`, `vectors/negative/`)
//! and the fused-against-generic comparisons run on each AES backend
//! (`backend::force`): the generic path, the fused kernels on AES-NI and on
//! VAES-512 (with the one-pass CTR + IFMA hash kernel where the CPU has it),
//! and on aarch64 the `armv8` tier's CTR (`armv8/ctr.rs`, under QEMU in CI).
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))]
// written for the default features

// The reference big integer is written as plain schoolbook index loops.
#![allow(clippy::needless_range_loop)]

mod common;

use aead::inout::InOutBuf;
use aead::{Aead, AeadInOut, KeyInit, Payload};
use blockmodes::cwc::hash::{CwcHash, MAX_INPUT_BYTES};
// Vectors and tags of every length: the hazmat form (the same code as the
// safe `Cwc`, which takes 8..=16-byte tags).
use blockmodes::cwc::hazmat::Cwc;
use blockmodes::cwc::{CwcAes128, CwcAes256};
use blockmodes::oracle::Counting;
use blockmodes::tag::Hazmat;
use blockmodes::{Aes128, Aes192, Aes256, Error};
use cipher::BlockCipherEncrypt;
use cipher::consts::{U1, U4, U8, U12, U13, U16};
use proptest::prelude::*;
use serde_json::Value;

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/cwc-aes.json");

fn vectors() -> Vec<Value> {
    let text = std::fs::read_to_string(VECTORS).expect("vectors/cwc-aes.json");
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(json["scheme"], "cwc-aes");
    json["vectors"].as_array().expect("vectors").clone()
}

fn hex_field(v: &Value, f: &str) -> Vec<u8> {
    hex::decode(v[f].as_str().unwrap_or_else(|| panic!("field {f}"))).expect("hex")
}

/// Everything one vector checks, for one AES key size.
fn check_vector<C>(v: &Value)
where
    C: blockmodes::oracle::BlockCipher128 + KeyInit + Clone,
{
    let name = v["name"].as_str().unwrap();
    let key = hex_field(v, "key");
    let nonce = hex_field(v, "nonce");
    let ad = hex_field(v, "ad");
    let msg = hex_field(v, "msg");
    let ct = hex_field(v, "ct");
    let tag = hex_field(v, "tag");
    let ct_tag = [ct.clone(), tag.clone()].concat();
    let cwc = Cwc::<C>::new_from_slice(&key).unwrap();

    // one-shot, both directions
    assert_eq!(
        cwc.encrypt_to_vec(&nonce, &ad, &msg).unwrap(),
        ct_tag,
        "{name}: encrypt"
    );
    assert_eq!(
        cwc.decrypt_to_vec(&nonce, &ad, &ct_tag).unwrap(),
        msg,
        "{name}: decrypt"
    );

    // detached, in place
    let mut buf = msg.clone();
    let t = cwc.encrypt_detached(&nonce, &ad, &mut buf).unwrap();
    assert_eq!(
        (buf.as_slice(), t.as_slice()),
        (&ct[..], &tag[..]),
        "{name}: detached"
    );
    cwc.decrypt_detached(&nonce, &ad, &mut buf, &tag).unwrap();
    assert_eq!(buf, msg, "{name}: detached decrypt");

    // aead traits, with distinct input and output buffers
    let n = aead::Nonce::<Cwc<C>>::try_from(&nonce[..]).unwrap();
    let mut out = vec![0u8; msg.len()];
    let t = cwc
        .encrypt_inout_detached(&n, &ad, InOutBuf::new(&msg, &mut out).unwrap())
        .unwrap();
    assert_eq!(
        (out.as_slice(), t.as_slice()),
        (&ct[..], &tag[..]),
        "{name}: inout"
    );
    let aead_ct = Aead::encrypt(
        &cwc,
        &n,
        Payload {
            msg: &msg,
            aad: &ad,
        },
    )
    .unwrap();
    assert_eq!(aead_ct, ct_tag, "{name}: Aead::encrypt");
    let aead_pt = Aead::decrypt(
        &cwc,
        &n,
        Payload {
            msg: &ct_tag,
            aad: &ad,
        },
    )
    .unwrap();
    assert_eq!(aead_pt, msg, "{name}: Aead::decrypt");

    // the appendix's intermediate values, through the hazmat API
    let trace = cwc.mac_trace(&nonce, &ad, &ct).unwrap();
    assert_eq!(
        cwc.hash_key().to_vec(),
        hex_field(v, "hash_key"),
        "{name}: K_h"
    );
    assert_eq!(
        trace.hash_key.to_vec(),
        hex_field(v, "hash_key"),
        "{name}: K_h"
    );
    assert_eq!(
        trace.hash_value.to_vec(),
        hex_field(v, "hash_value"),
        "{name}: hash"
    );
    assert_eq!(
        trace.aes_hval.to_vec(),
        hex_field(v, "aes_hval"),
        "{name}: AES(HVAL)"
    );
    assert_eq!(
        trace.mac_ctr_pt.to_vec(),
        hex_field(v, "mac_ctr_pt"),
        "{name}: MCPT"
    );
    assert_eq!(
        trace.aes_mcpt.to_vec(),
        hex_field(v, "aes_mcpt"),
        "{name}: AES(MCPT)"
    );
    assert_eq!(trace.tag.to_vec(), tag, "{name}: tag");
    let h = CwcHash::new_from_slice::<C>(&key).unwrap();
    let hv = h.hash(&ad, &ct).unwrap();
    assert_eq!(hv.to_vec(), hex_field(v, "hash_value"), "{name}: CwcHash");
    // the portable path, for the hash and for the whole encryption
    let hv = h.portable().hash(&ad, &ct).unwrap();
    assert_eq!(hv.to_vec(), hex_field(v, "hash_value"), "{name}: portable");
    let portable = cwc.clone().with_portable_hash();
    assert!(!portable.hasher().uses_ifma());
    assert_eq!(
        portable.encrypt_to_vec(&nonce, &ad, &msg).unwrap(),
        ct_tag,
        "{name}: portable encrypt"
    );
    assert_eq!(
        portable.decrypt_to_vec(&nonce, &ad, &ct_tag).unwrap(),
        msg,
        "{name}: portable decrypt"
    );
    // the independent reference reproduces the paper too
    let k_h = reference_hash_key(&key);
    assert_eq!(
        k_h.to_vec(),
        hex_field(v, "hash_key"),
        "{name}: reference K_h"
    );
    assert_eq!(
        reference_hash(&k_h, &ad, &ct).to_vec(),
        hex_field(v, "hash_value"),
        "{name}: reference hash"
    );
}

#[test]
fn paper_vectors() {
    let vs = vectors();
    assert_eq!(vs.len(), 18);
    for v in &vs {
        assert_eq!(v["result"], "valid");
        match hex_field(v, "key").len() {
            16 => check_vector::<Aes128>(v),
            24 => check_vector::<Aes192>(v),
            32 => check_vector::<Aes256>(v),
            n => panic!("key length {n}"),
        }
    }
}

#[test]
fn vectors_reject_tampering() {
    for v in vectors().iter().filter(|v| hex_field(v, "key").len() == 16) {
        let cwc = CwcAes128::new_from_slice(&hex_field(v, "key")).unwrap();
        let (nonce, ad) = (hex_field(v, "nonce"), hex_field(v, "ad"));
        let ct_tag = [hex_field(v, "ct"), hex_field(v, "tag")].concat();
        for i in 0..ct_tag.len() * 8 {
            let mut bad = ct_tag.clone();
            bad[i / 8] ^= 1 << (i % 8);
            assert_eq!(
                cwc.decrypt_to_vec(&nonce, &ad, &bad),
                Err(Error::Authentication)
            );
        }
        let mut bad_nonce = nonce.clone();
        bad_nonce[10] ^= 1;
        assert_eq!(
            cwc.decrypt_to_vec(&bad_nonce, &ad, &ct_tag),
            Err(Error::Authentication)
        );
    }
}

// ---------------------------------------------------------------------------
// Block-cipher calls: ceil(|M| / 16) + 2 per message after key setup.

#[test]
fn block_cipher_calls() {
    let (aes, count) = Counting::new(Aes128::new(&[3u8; 16].into()));
    let cwc = Cwc::<Counting<Aes128>>::from_cipher(aes);
    assert_eq!(count.get(), 1, "key setup: one call for K_h");
    let plain = CwcAes128::new_from_slice(&[3u8; 16]).unwrap();
    for len in [
        0usize, 1, 11, 12, 15, 16, 17, 24, 100, 1023, 1024, 1025, 5000, 16_368, 16_369, 16_384,
        40_000,
    ] {
        let msg = vec![0xabu8; len];
        for ad_len in [0usize, 5, 40] {
            let ad = vec![1u8; ad_len];
            count.reset();
            let ct = cwc.encrypt_to_vec(&[9; 11], &ad, &msg).unwrap();
            assert_eq!(
                count.get(),
                len.div_ceil(16) as u64 + 2,
                "encrypt len {len}"
            );
            // one block per backend call gives the same ciphertext as 64
            assert_eq!(ct, plain.encrypt_to_vec(&[9; 11], &ad, &msg).unwrap());
            count.reset();
            cwc.decrypt_to_vec(&[9; 11], &ad, &ct).unwrap();
            assert_eq!(
                count.get(),
                len.div_ceil(16) as u64 + 2,
                "decrypt len {len}"
            );
        }
    }
}

#[test]
fn failed_decryption_decrypts_nothing() {
    // the tag is checked before any keystream block: 2 calls, not |M|/16 + 2
    let (aes, count) = Counting::new(Aes128::new(&[3u8; 16].into()));
    let cwc = Cwc::<Counting<Aes128>>::from_cipher(aes);
    let mut ct = cwc.encrypt_to_vec(&[9; 11], b"", &[7u8; 200]).unwrap();
    ct[5] ^= 4;
    count.reset();
    assert_eq!(
        cwc.decrypt_to_vec(&[9; 11], b"", &ct),
        Err(Error::Authentication)
    );
    assert_eq!(count.get(), 2);
}

// ---------------------------------------------------------------------------
// Round trips and tampering.

fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..3000,
        (0usize..250).prop_map(|n| 12 * n),
        Just(0usize)
    ]
}

fn round_trip<T: blockmodes::cwc::TagSize<Hazmat>>(
    key: &[u8],
    nonce: &[u8],
    ad: &[u8],
    msg: &[u8],
) {
    let cwc = Cwc::<Aes128, T>::new_from_slice(key).unwrap();
    let ct = cwc.encrypt_to_vec(nonce, ad, msg).unwrap();
    assert_eq!(ct.len(), msg.len() + T::USIZE);
    assert_eq!(cwc.decrypt_to_vec(nonce, ad, &ct).unwrap(), msg);
    // a shorter tag is the prefix of the full one
    let full = CwcAes128::new_from_slice(key)
        .unwrap()
        .encrypt_to_vec(nonce, ad, msg)
        .unwrap();
    assert_eq!(&ct[..], &full[..ct.len()]);
    // the detached form and the one-shot form agree
    let mut buf = msg.to_vec();
    let tag = cwc.encrypt_detached(nonce, ad, &mut buf).unwrap();
    assert_eq!([&buf[..], &tag[..]].concat(), ct);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trips(
        key in any::<[u8; 16]>(),
        nonce in any::<[u8; 11]>(),
        ad_len in lengths(),
        msg_len in lengths(),
        seed in any::<u8>(),
    ) {
        let ad: Vec<u8> = (0..ad_len).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
        let msg: Vec<u8> = (0..msg_len).map(|i| (i as u8).wrapping_mul(17) ^ seed).collect();
        round_trip::<U16>(&key, &nonce, &ad, &msg);
        round_trip::<U1>(&key, &nonce, &ad, &msg);
        round_trip::<U8>(&key, &nonce, &ad, &msg);
        round_trip::<U13>(&key, &nonce, &ad, &msg);
    }

    #[test]
    fn aes256_round_trips(
        key in any::<[u8; 32]>(),
        nonce in any::<[u8; 11]>(),
        ad in proptest::collection::vec(any::<u8>(), 0..100),
        msg in proptest::collection::vec(any::<u8>(), 0..2000),
    ) {
        let cwc = CwcAes256::new_from_slice(&key).unwrap();
        let ct = cwc.encrypt_to_vec(&nonce, &ad, &msg).unwrap();
        prop_assert_eq!(cwc.decrypt_to_vec(&nonce, &ad, &ct).unwrap(), msg);
    }

    /// The fast hash, on both paths, equals the big-integer Horner
    /// evaluation (lengths 0..10 000).
    #[test]
    fn fast_hash_equals_reference(
        key in any::<[u8; 16]>(),
        ad in proptest::collection::vec(any::<u8>(), 0..400),
        sigma_len in 0usize..10_000,
        seed in any::<u64>(),
    ) {
        let mut x = seed | 1;
        let sigma: Vec<u8> = (0..sigma_len).map(|_| {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17; x as u8
        }).collect();
        let h = CwcHash::new_from_slice::<Aes128>(&key).unwrap();
        let p = h.clone().portable();
        let k_h = reference_hash_key(&key);
        let expected = reference_hash(&k_h, &ad, &sigma);
        prop_assert_eq!(h.hash(&ad, &sigma).unwrap(), expected);
        prop_assert_eq!(p.hash(&ad, &sigma).unwrap(), expected);
        // the long input as A instead of sigma
        let expected = reference_hash(&k_h, &sigma, &ad);
        prop_assert_eq!(h.hash(&sigma, &ad).unwrap(), expected);
        prop_assert_eq!(p.hash(&sigma, &ad).unwrap(), expected);
    }

    /// The AVX-512 IFMA path equals the portable one on random inputs
    /// (lengths 0..10 000); skipped on CPUs without IFMA.
    #[test]
    fn ifma_equals_portable(
        key in any::<[u8; 16]>(),
        ad in proptest::collection::vec(any::<u8>(), 0..1000),
        sigma in proptest::collection::vec(any::<u8>(), 0..10_000),
    ) {
        let h = CwcHash::from_key_block(&key);
        if !ifma_here(&h) {
            return Ok(());
        }
        let p = h.clone().portable();
        prop_assert_eq!(h.hash(&ad, &sigma).unwrap(), p.hash(&ad, &sigma).unwrap());
        prop_assert_eq!(h.hash(&sigma, &ad).unwrap(), p.hash(&sigma, &ad).unwrap());
    }

    /// Whole CWC-ENC against a reference built from the paper's algorithms
    /// with the raw block cipher and the big-integer hash (messages of many
    /// batches of the parallel backend).
    #[test]
    fn encrypt_equals_reference(
        key in any::<[u8; 16]>(),
        nonce in any::<[u8; 11]>(),
        ad in proptest::collection::vec(any::<u8>(), 0..100),
        msg_len in 0usize..6000,
        fill in any::<u8>(),
    ) {
        let msg: Vec<u8> = (0..msg_len).map(|i| (i as u8) ^ fill).collect();
        let got = CwcAes128::new_from_slice(&key).unwrap().encrypt_to_vec(&nonce, &ad, &msg).unwrap();
        prop_assert_eq!(got, reference_encrypt(&key, &nonce, &ad, &msg));
    }

    /// Random keys for CwcHash directly, including the extremes of K_h.
    #[test]
    fn fast_hash_any_key(
        k in prop_oneof![any::<[u8; 16]>(), Just([0xff; 16]), Just([0u8; 16]),
                         Just({ let mut b = [0xffu8; 16]; b[15] = 0xfe; b })],
        ad_len in 0usize..300,
        sigma_len in 0usize..3000,
        fill in any::<u8>(),
    ) {
        let ad = vec![fill; ad_len];
        let sigma = vec![!fill; sigma_len];
        let mut k_h = k;
        k_h[0] &= 0x7f;
        let h = CwcHash::from_key_block(&k);
        let expected = reference_hash(&k_h, &ad, &sigma);
        prop_assert_eq!(h.hash(&ad, &sigma).unwrap(), expected);
        prop_assert_eq!(h.portable().hash(&ad, &sigma).unwrap(), expected);
    }

    /// No input makes any API panic.
    #[test]
    fn no_panics(
        key in proptest::collection::vec(any::<u8>(), 0..40),
        nonce in proptest::collection::vec(any::<u8>(), 0..20),
        ad in proptest::collection::vec(any::<u8>(), 0..40),
        data in proptest::collection::vec(any::<u8>(), 0..80),
        tag in proptest::collection::vec(any::<u8>(), 0..20),
    ) {
        let _ = CwcAes128::new_from_slice(&key);
        let _ = CwcHash::new_from_slice::<Aes256>(&key);
        let cwc = Cwc::<Aes128, U12>::new_from_slice(&[1; 16]).unwrap();
        let _ = cwc.encrypt_to_vec(&nonce, &ad, &data);
        let _ = cwc.decrypt_to_vec(&nonce, &ad, &data);
        let _ = cwc.mac_trace(&nonce, &ad, &data);
        let mut buf = data.clone();
        let _ = cwc.encrypt_detached(&nonce, &ad, &mut buf);
        let _ = cwc.decrypt_detached(&nonce, &ad, &mut buf, &tag);
        let _ = cwc.hasher().hash(&ad, &data);
    }
}

/// Whether `h` runs on AVX-512 IFMA; prints a note when it does not (the
/// IFMA comparisons are then skipped: both sides would be the portable path).
fn ifma_here(h: &CwcHash) -> bool {
    if !h.uses_ifma() {
        eprintln!("CPU without AVX-512 IFMA: IFMA-vs-portable comparison skipped");
    }
    h.uses_ifma()
}

/// Key setup picks the IFMA path exactly when the CPU has what it needs.
#[test]
fn ifma_chosen_by_cpu() {
    let h = CwcHash::from_key_block(&[0x11; 16]);
    #[cfg(target_arch = "x86_64")]
    let expected = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512ifma")
        && std::arch::is_x86_feature_detected!("avx512vbmi");
    #[cfg(not(target_arch = "x86_64"))]
    let expected = false;
    assert_eq!(h.uses_ifma(), expected);
    assert!(!h.clone().portable().uses_ifma());
    let cwc = CwcAes128::new_from_slice(&[1; 16]).unwrap();
    assert_eq!(cwc.hasher().uses_ifma(), expected);
    assert!(!cwc.with_portable_hash().hasher().uses_ifma());
}

/// And the AVX2 path exactly when the CPU has AVX2 but not the IFMA set.
#[test]
fn avx2_chosen_by_cpu() {
    let h = CwcHash::from_key_block(&[0x11; 16]);
    #[cfg(target_arch = "x86_64")]
    let expected = std::arch::is_x86_feature_detected!("avx2") && !h.uses_ifma();
    #[cfg(not(target_arch = "x86_64"))]
    let expected = false;
    assert_eq!(h.uses_avx2(), expected);
    assert!(!h.portable().uses_avx2());
}

/// Extreme values through both paths and the reference: all-0xff chunks
/// (the largest limbs), K_h = p - 1, 0, p (= 0 mod p), 1, 2^126, and lengths
/// around the 8-chunk vectors and the 64- and 32-chunk groups.
#[test]
fn hash_extremes_both_paths() {
    let ones = vec![0xffu8; 4000];
    let mut keys = vec![[0xffu8; 16], [0u8; 16], [0x7fu8; 16]];
    let mut p_minus_1 = [0xffu8; 16];
    p_minus_1[0] = 0x7f;
    p_minus_1[15] = 0xfe;
    keys.push(p_minus_1);
    let mut one = [0u8; 16];
    one[15] = 1;
    keys.push(one);
    let mut two126 = [0u8; 16];
    two126[0] = 0x40;
    keys.push(two126);
    let lengths = [
        0usize, 1, 11, 12, 13, 95, 96, 97, 383, 384, 385, 767, 768, 769, 1535, 1536, 1537, 4000,
    ];
    for k in &keys {
        let h = CwcHash::from_key_block(k);
        let p = h.clone().portable();
        let mut k_h = *k;
        k_h[0] &= 0x7f;
        for &a in &[0usize, 1, 12, 100, 769] {
            for &m in &lengths {
                let expected = reference_hash(&k_h, &ones[..a], &ones[..m]);
                assert_eq!(
                    h.hash(&ones[..a], &ones[..m]).unwrap(),
                    expected,
                    "{k:x?} {a} {m}"
                );
                assert_eq!(
                    p.hash(&ones[..a], &ones[..m]).unwrap(),
                    expected,
                    "{k:x?} {a} {m}"
                );
            }
        }
    }
}

/// Messages over several CTR segments (16 KiB each) and hash groups:
/// encryption equals the reference, on both hash paths, and decrypts.
#[test]
fn long_messages_equal_reference() {
    let key = [0x6bu8; 16];
    let nonce = [0x5cu8; 11];
    let cwc = CwcAes128::new_from_slice(&key).unwrap();
    let portable = cwc.clone().with_portable_hash();
    for len in [16_368usize, 16_384, 16_385, 16_400, 33_000, 49_152 + 7] {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
        let ad = &msg[..len % 97];
        let ct = cwc.encrypt_to_vec(&nonce, ad, &msg).unwrap();
        assert_eq!(ct, reference_encrypt(&key, &nonce, ad, &msg), "len {len}");
        assert_eq!(
            portable.encrypt_to_vec(&nonce, ad, &msg).unwrap(),
            ct,
            "len {len}"
        );
        assert_eq!(
            cwc.decrypt_to_vec(&nonce, ad, &ct).unwrap(),
            msg,
            "len {len}"
        );
        assert_eq!(
            portable.decrypt_to_vec(&nonce, ad, &ct).unwrap(),
            msg,
            "len {len}"
        );
    }
}

#[test]
fn every_bit_flip_is_rejected_and_wipes() {
    let cwc = CwcAes128::new_from_slice(&[0x42; 16]).unwrap();
    let nonce = [0x24u8; 11];
    for (ad_len, msg_len) in [
        (0, 0),
        (0, 1),
        (1, 0),
        (12, 12),
        (13, 17),
        (24, 48),
        (7, 100),
    ] {
        let ad: Vec<u8> = (0..ad_len as u8).collect();
        let msg: Vec<u8> = (0..msg_len as u8).map(|b| b ^ 0x5a).collect();
        let mut sigma = msg.clone();
        let tag = cwc.encrypt_detached(&nonce, &ad, &mut sigma).unwrap();
        let check = |ad: &[u8], sigma: &[u8], tag: &[u8]| {
            let mut buf = sigma.to_vec();
            let r = cwc.decrypt_detached(&nonce, ad, &mut buf, tag);
            assert_eq!(r, Err(Error::Authentication));
            assert!(buf.iter().all(|&b| b == 0), "buffer wiped");
        };
        for i in 0..sigma.len() * 8 {
            let mut bad = sigma.clone();
            bad[i / 8] ^= 1 << (i % 8);
            check(&ad, &bad, &tag);
        }
        for i in 0..tag.len() * 8 {
            let mut bad = tag;
            bad[i / 8] ^= 1 << (i % 8);
            check(&ad, &sigma, &bad);
        }
        for i in 0..ad.len() * 8 {
            let mut bad = ad.clone();
            bad[i / 8] ^= 1 << (i % 8);
            check(&bad, &sigma, &tag);
        }
        // moving bytes between A and sigma changes the length block
        if !ad.is_empty() {
            let moved = [&ad[ad.len() - 1..], &sigma[..]].concat();
            check(&ad[..ad.len() - 1], &moved, &tag);
        }
        // and the untampered one still opens
        cwc.decrypt_detached(&nonce, &ad, &mut sigma, &tag).unwrap();
        assert_eq!(sigma, msg);
    }
}

#[test]
fn aead_trait_failure_wipes_output() {
    let cwc = CwcAes128::new(&[8u8; 16].into());
    let nonce = aead::Nonce::<CwcAes128>::from([1u8; 11]);
    let msg = [0x33u8; 40];
    let mut ct = [0u8; 40];
    let tag = cwc
        .encrypt_inout_detached(&nonce, b"x", InOutBuf::new(&msg, &mut ct).unwrap())
        .unwrap();
    let mut out = [0xeeu8; 40];
    let r = cwc.decrypt_inout_detached(&nonce, b"y", InOutBuf::new(&ct, &mut out).unwrap(), &tag);
    assert!(r.is_err());
    assert_eq!(out, [0u8; 40]);
    cwc.decrypt_inout_detached(&nonce, b"x", InOutBuf::new(&ct, &mut out).unwrap(), &tag)
        .unwrap();
    assert_eq!(out, msg);
}

#[test]
fn typed_errors() {
    for n in [0usize, 10, 12, 16] {
        let cwc = CwcAes128::new_from_slice(&[0; 16]).unwrap();
        let e = Error::InvalidNonceLength {
            expected: 11,
            got: n,
        };
        assert_eq!(cwc.encrypt_to_vec(&vec![0; n], b"", b"m"), Err(e.clone()));
        assert_eq!(
            cwc.decrypt_to_vec(&vec![0; n], b"", &[0; 20]),
            Err(e.clone())
        );
        assert_eq!(cwc.mac_trace(&vec![0; n], b"", b"").err(), Some(e.clone()));
        assert_eq!(cwc.encrypt_detached(&vec![0; n], b"", &mut [0; 3]), Err(e));
    }
    for k in [0usize, 15, 17, 24, 32] {
        assert!(matches!(
            CwcAes128::new_from_slice(&vec![0; k]),
            Err(Error::InvalidKeyLength { got, .. }) if got == k
        ));
    }
    assert!(matches!(
        CwcAes256::new_from_slice(&[0; 16]),
        Err(Error::InvalidKeyLength {
            expected: 32,
            got: 16
        })
    ));
    let cwc = Cwc::<Aes128, U4>::new_from_slice(&[0; 16]).unwrap();
    assert_eq!(
        cwc.decrypt_to_vec(&[0; 11], b"", &[0; 3]),
        Err(Error::CiphertextTooShort { min: 4, got: 3 })
    );
    assert_eq!(
        cwc.decrypt_to_vec(&[0; 11], b"", &[0; 4]),
        Err(Error::Authentication)
    );
    assert_eq!(
        cwc.decrypt_detached(&[0; 11], b"", &mut [0; 3], &[0; 16]),
        Err(Error::InvalidTagLength {
            min: 4,
            max: 4,
            got: 16
        })
    );
    assert_eq!(MAX_INPUT_BYTES, 16 * (u32::MAX as u64));
}

// ---------------------------------------------------------------------------
// The reference: CWC-HASH exactly as section 3 writes it, with Horner's rule
// on a tiny schoolbook big integer (little-endian u32 limbs) and a generic
// shift-and-subtract reduction. Shares no code with the library.

const LIMBS: usize = 10; // 320 bits

type Big = [u32; LIMBS];

fn big_from_be(bytes: &[u8]) -> Big {
    let mut r = [0u32; LIMBS];
    for (i, &b) in bytes.iter().rev().enumerate() {
        r[i / 4] |= (b as u32) << (8 * (i % 4));
    }
    r
}

fn big_to_be16(a: &Big) -> [u8; 16] {
    let mut out = [0u8; 16];
    for i in 0..16 {
        out[15 - i] = (a[i / 4] >> (8 * (i % 4))) as u8;
    }
    assert!(a[4..].iter().all(|&l| l == 0));
    out
}

fn big_add(a: &Big, b: &Big) -> Big {
    let mut r = [0u32; LIMBS];
    let mut carry = 0u64;
    for i in 0..LIMBS {
        let s = a[i] as u64 + b[i] as u64 + carry;
        r[i] = s as u32;
        carry = s >> 32;
    }
    assert_eq!(carry, 0);
    r
}

fn big_mul(a: &Big, b: &Big) -> Big {
    let mut r = [0u64; 2 * LIMBS];
    for i in 0..LIMBS {
        for j in 0..LIMBS {
            let p = a[i] as u64 * b[j] as u64;
            let mut k = i + j;
            let mut add = p;
            while add != 0 {
                let s = r[k] as u128 + add as u128;
                r[k] = s as u32 as u64;
                add = (s >> 32) as u64;
                k += 1;
            }
        }
    }
    let mut out = [0u32; LIMBS];
    for i in 0..LIMBS {
        out[i] = r[i] as u32;
    }
    assert!(r[LIMBS..].iter().all(|&l| l == 0));
    out
}

fn big_ge(a: &Big, b: &Big) -> bool {
    for i in (0..LIMBS).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

fn big_sub(a: &Big, b: &Big) -> Big {
    let mut r = [0u32; LIMBS];
    let mut borrow = 0i64;
    for i in 0..LIMBS {
        let d = a[i] as i64 - b[i] as i64 - borrow;
        r[i] = d as u32;
        borrow = i64::from(d < 0);
    }
    r
}

/// p = 2^127 - 1
fn big_p() -> Big {
    let mut p = [0u32; LIMBS];
    p[..4].copy_from_slice(&[u32::MAX, u32::MAX, u32::MAX, u32::MAX >> 1]);
    p
}

/// `a mod p` by binary long division.
fn big_mod(a: &Big) -> Big {
    let p = big_p();
    let mut r = [0u32; LIMBS];
    for bit in (0..32 * LIMBS).rev() {
        r = big_add(&r, &r);
        r[0] |= (a[bit / 32] >> (bit % 32)) & 1;
        if big_ge(&r, &p) {
            r = big_sub(&r, &p);
        }
    }
    r
}

/// `tostr(K_h, 128)` with K_h = toint(last 127 bits of AES_K(110^126)).
fn reference_hash_key(key: &[u8]) -> [u8; 16] {
    let mut z = cipher::Block::<Aes128>::default();
    z[0] = 0xc0;
    match key.len() {
        16 => Aes128::new_from_slice(key).unwrap().encrypt_block(&mut z),
        24 => Aes192::new_from_slice(key).unwrap().encrypt_block(&mut z),
        32 => Aes256::new_from_slice(key).unwrap().encrypt_block(&mut z),
        _ => panic!("key length"),
    }
    let mut k: [u8; 16] = z.into();
    k[0] &= 0x7f;
    k
}

/// `E_K(block)` with the raw AES-128.
fn aes128(key: &[u8], block: [u8; 16]) -> [u8; 16] {
    let mut b = cipher::Block::<Aes128>::from(block);
    Aes128::new_from_slice(key).unwrap().encrypt_block(&mut b);
    b.into()
}

/// CWC-ENC_K(N, A, M) from section 3: CWC-CTR, then CWC-MAC with the
/// reference hash.
fn reference_encrypt(key: &[u8], nonce: &[u8; 11], a: &[u8], m: &[u8]) -> Vec<u8> {
    let ctr_block = |i: u32| {
        let mut b = [0u8; 16];
        b[0] = 0x80;
        b[1..12].copy_from_slice(nonce);
        b[12..].copy_from_slice(&i.to_be_bytes());
        b
    };
    let mut sigma = m.to_vec();
    for (i, chunk) in sigma.chunks_mut(16).enumerate() {
        let s = aes128(key, ctr_block(i as u32 + 1));
        for (x, k) in chunk.iter_mut().zip(s) {
            *x ^= k;
        }
    }
    let r = aes128(key, reference_hash(&reference_hash_key(key), a, &sigma));
    let pad = aes128(key, ctr_block(0));
    let tau: Vec<u8> = r.iter().zip(pad).map(|(x, y)| x ^ y).collect();
    [sigma, tau].concat()
}

/// CWC-HASH_K(A, sigma), section 3, with Horner's rule.
fn reference_hash(k_h: &[u8; 16], a: &[u8], sigma: &[u8]) -> [u8; 16] {
    let k = big_from_be(k_h);
    // X = A || 0^l || sigma || 0^l'
    let pad = |x: &[u8]| {
        let mut v = x.to_vec();
        while !v.len().is_multiple_of(12) {
            v.push(0);
        }
        v
    };
    let x = [pad(a), pad(sigma)].concat();
    let mut y: Vec<Big> = x.chunks(12).map(big_from_be).collect();
    // Y_{beta+1} = 2^64 l_A + l_sigma
    let mut last = [0u8; 16];
    last[..8].copy_from_slice(&(a.len() as u64).to_be_bytes());
    last[8..].copy_from_slice(&(sigma.len() as u64).to_be_bytes());
    y.push(big_from_be(&last));
    // R = Y_1 K^beta + ... + Y_beta K + Y_{beta+1}: Horner
    let mut r = [0u32; LIMBS];
    for yi in &y {
        r = big_mod(&big_add(&big_mul(&r, &k), yi));
    }
    big_to_be16(&r)
}

// ---------------------------------------------------------------------------
// Every backend: the generic path (the `aes` crate behind the `cipher`
// traits), the fused kernels on AES-NI, and on VAES-512 (where the one-pass
// kernel enciphers and hashes together on a CPU with AVX-512 IFMA).

/// Run `$body` with `$T` the tag size of `$n` bytes (1 to 16).
macro_rules! with_tag {
    ($n:expr, $T:ident => $body:expr) => {
        with_tag!(@ $n, $T, $body; U1 1, U2 2, U3 3, U4 4, U5 5, U6 6, U7 7, U8 8,
            U9 9, U10 10, U11 11, U12 12, U13 13, U14 14, U15 15, U16 16)
    };
    (@ $n:expr, $T:ident, $body:expr; $($u:ident $k:literal),*) => {
        match $n {
            $($k => {
                type $T = cipher::consts::$u;
                $body
            })*
            other => panic!("tag length {other} outside 1..=16"),
        }
    };
}

/// A vector of `vectors/independent/` (valid: every interface, the hash key
/// and value; invalid: rejected, the output wiped) under the tag size of
/// its tag.
fn check_independent<C, T>(v: &Value)
where
    C: blockmodes::oracle::BlockCipher128 + KeyInit,
    T: blockmodes::cwc::TagSize<Hazmat>,
{
    let name = v["name"].as_str().unwrap();
    let (key, nonce, ad) = (
        hex_field(v, "key"),
        hex_field(v, "nonce"),
        hex_field(v, "ad"),
    );
    let (msg, ct, tag) = (hex_field(v, "msg"), hex_field(v, "ct"), hex_field(v, "tag"));
    let ct_tag = [ct.clone(), tag.clone()].concat();
    let cwc = Cwc::<C, T>::new_from_slice(&key).unwrap();
    if v["result"] == "invalid" {
        assert_eq!(
            cwc.decrypt_to_vec(&nonce, &ad, &ct_tag),
            Err(Error::Authentication),
            "{name}"
        );
        let mut buf = ct.clone();
        let r = cwc.decrypt_detached(&nonce, &ad, &mut buf, &tag);
        assert_eq!(r, Err(Error::Authentication), "{name}");
        assert!(buf.iter().all(|&b| b == 0), "{name}: wiped");
        return;
    }
    assert_eq!(
        cwc.encrypt_to_vec(&nonce, &ad, &msg).unwrap(),
        ct_tag,
        "{name}"
    );
    assert_eq!(
        cwc.decrypt_to_vec(&nonce, &ad, &ct_tag).unwrap(),
        msg,
        "{name}"
    );
    let mut buf = msg.clone();
    let t = cwc.encrypt_detached(&nonce, &ad, &mut buf).unwrap();
    assert_eq!((&buf[..], &t[..]), (&ct[..], &tag[..]), "{name}: detached");
    let mut out = vec![0u8; msg.len()];
    let t = cwc
        .encrypt_inout(&nonce, &ad, InOutBuf::new(&msg, &mut out).unwrap())
        .unwrap();
    assert_eq!((&out[..], &t[..]), (&ct[..], &tag[..]), "{name}: inout");
    let mut back = vec![0u8; msg.len()];
    cwc.decrypt_inout(&nonce, &ad, InOutBuf::new(&ct, &mut back).unwrap(), &tag)
        .unwrap();
    assert_eq!(back, msg, "{name}: inout decrypt");
    let trace = cwc.mac_trace(&nonce, &ad, &ct).unwrap();
    assert_eq!(trace.hash_key.to_vec(), hex_field(v, "hash_key"), "{name}");
    assert_eq!(
        trace.hash_value.to_vec(),
        hex_field(v, "hash_value"),
        "{name}"
    );
    assert_eq!(&trace.tag[..T::USIZE], &tag[..], "{name}: trace tag");
}

/// A vector of `vectors/negative/`: `ct || tag` opened with a tag of
/// `tag_size` bytes must fail.
fn check_negative<
    C: blockmodes::oracle::BlockCipher128 + KeyInit,
    T: blockmodes::cwc::TagSize<Hazmat>,
>(
    v: &Value,
) {
    let name = v["name"].as_str().unwrap();
    assert_eq!(v["result"], "invalid", "{name}");
    let cwc = Cwc::<C, T>::new_from_slice(&hex_field(v, "key")).unwrap();
    let ct_tag = [hex_field(v, "ct"), hex_field(v, "tag")].concat();
    assert!(
        cwc.decrypt_to_vec(&hex_field(v, "nonce"), &hex_field(v, "ad"), &ct_tag)
            .is_err(),
        "{name}: accepted"
    );
}

/// Every CWC vector (the paper's, the independent Go reference's valid and
/// invalid ones, the negative ones) through every interface, on each
/// backend; each key set up from bytes must take the path asked for.
#[test]
fn vectors_on_every_backend() {
    let paper = vectors();
    let independent = common::load_independent("cwc-aes");
    let negative = common::load_negative("cwc-aes");
    assert!(independent.len() >= 25 && negative.len() >= 200);
    // One CWC keyed from bytes per vector (the paper's: `check_vector`).
    let keys = (paper.len() + independent.len() + negative.len()) as u64;
    common::on_each_backend(Some(keys), |_| {
        for v in &paper {
            with_aes!(hex_field(v, "key").len(), C => check_vector::<C>(v));
        }
        for v in &independent {
            with_tag!(hex_field(v, "tag").len(), T => with_aes!(hex_field(v, "key").len(), C => {
                check_independent::<C, T>(v)
            }));
        }
        for v in &negative {
            let t = v["tag_size"].as_u64().unwrap() as usize;
            with_tag!(t, T => with_aes!(hex_field(v, "key").len(), C => check_negative::<C, T>(v)));
        }
    });
}

/// A key set up from bytes on `backend` (the forcing applies to keys set up
/// afterwards on this thread).
fn cwc_on<C: blockmodes::oracle::BlockCipher128 + KeyInit, T: blockmodes::cwc::TagSize<Hazmat>>(
    backend: blockmodes::backend::Backend,
    key: &[u8],
) -> Cwc<C, T> {
    let prev = blockmodes::backend::force(backend);
    let cwc = Cwc::<C, T>::new_from_slice(key).unwrap();
    blockmodes::backend::force(prev);
    cwc
}

/// Every message length from 0 to 5000 bytes (every partial block, every
/// kernel step and hash group edge), AES-128 with associated data of a
/// length varying with it: each backend's ciphertext and tag equal the
/// generic path's, decrypt, and a flipped bit (in sigma, or in the tag for
/// an empty message) is rejected with the output wiped.
#[test]
fn fused_and_generic_agree_at_every_length() {
    use blockmodes::backend::{Backend, available};
    let key = [0x3au8; 16];
    let nonce = [0xc5u8; 11];
    let data: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let generic = cwc_on::<Aes128, U16>(Backend::Generic, &key);
    for &b in available() {
        let cwc = cwc_on::<Aes128, U16>(b, &key);
        for len in 0..=5000usize {
            let (msg, ad) = (&data[..len], &data[..len % 29]);
            let sealed = generic.encrypt_to_vec(&nonce, ad, msg).unwrap();
            assert_eq!(
                cwc.encrypt_to_vec(&nonce, ad, msg).unwrap(),
                sealed,
                "{b:?} len {len}"
            );
            assert_eq!(
                cwc.decrypt_to_vec(&nonce, ad, &sealed).unwrap(),
                msg,
                "{b:?} len {len}"
            );
            let mut bad = sealed.clone();
            let at = (len * 7) % bad.len();
            bad[at] ^= 0x10;
            for c in [&cwc, &generic] {
                let (ct, tag) = bad.split_at(len);
                let mut buf = ct.to_vec();
                let r = c.decrypt_detached(&nonce, ad, &mut buf, tag);
                assert_eq!(r, Err(Error::Authentication), "{b:?} len {len}");
                assert!(buf.iter().all(|&x| x == 0), "{b:?} len {len}: wiped");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused paths (AES-NI; VAES-512 with the one-pass kernel where the
    /// CPU has it) and the generic path agree on random keys of every
    /// size, nonces, associated data and messages of 0..5000 bytes, through
    /// the one-shot, detached and in-out calls; a tampered input (a bit of
    /// sigma, the tag, the associated data or the nonce) is rejected by both,
    /// the output wiped.
    #[test]
    fn fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 32),
        key_len in prop::sample::select(vec![16usize, 24, 32]),
        nonce in any::<[u8; 11]>(),
        ad in proptest::collection::vec(any::<u8>(), 0..300),
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
        flip in any::<usize>(),
        what in 0u8..4,
    ) {
        use blockmodes::backend::{Backend, available};
        let key = &key[..key_len];
        with_aes!(key_len, C => {
            let generic = cwc_on::<C, U16>(Backend::Generic, key);
            let sealed = generic.encrypt_to_vec(&nonce, &ad, &msg).unwrap();
            prop_assert_eq!(&generic.decrypt_to_vec(&nonce, &ad, &sealed).unwrap(), &msg);
            let (mut bad_ad, mut bad_nonce, mut bad) = (ad.clone(), nonce, sealed.clone());
            match what {
                0 if !ad.is_empty() => bad_ad[flip % ad.len()] ^= 1 << (flip % 8),
                1 => bad_nonce[flip % 11] ^= 1 << (flip % 8),
                _ => {
                    let bit = flip % (8 * bad.len());
                    bad[bit / 8] ^= 1 << (bit % 8);
                }
            }
            let tampered = bad_ad != ad || bad_nonce != nonce || bad != sealed;
            prop_assert!(tampered || ad.is_empty());
            for &b in available() {
                let cwc = cwc_on::<C, U16>(b, key);
                prop_assert_eq!(&cwc.encrypt_to_vec(&nonce, &ad, &msg).unwrap(), &sealed, "{:?}", b);
                let mut buf = msg.clone();
                let tag = cwc.encrypt_detached(&nonce, &ad, &mut buf).unwrap();
                prop_assert_eq!([&buf[..], &tag[..]].concat(), sealed.clone(), "{:?} detached", b);
                let mut out = vec![0u8; msg.len()];
                let tag = cwc.encrypt_inout(&nonce, &ad, InOutBuf::new(&msg, &mut out).unwrap()).unwrap();
                prop_assert_eq!([&out[..], &tag[..]].concat(), sealed.clone(), "{:?} inout", b);
                prop_assert_eq!(&cwc.decrypt_to_vec(&nonce, &ad, &sealed).unwrap(), &msg, "{:?}", b);
                if tampered {
                    for c in [&cwc, &generic] {
                        prop_assert_eq!(c.decrypt_to_vec(&bad_nonce, &bad_ad, &bad), Err(Error::Authentication));
                        let (ct, tag) = bad.split_at(msg.len());
                        let mut out = vec![0xa5u8; msg.len()];
                        let r = c.decrypt_inout(&bad_nonce, &bad_ad, InOutBuf::new(ct, &mut out).unwrap(), tag);
                        prop_assert_eq!(r, Err(Error::Authentication));
                        prop_assert!(out.iter().all(|&x| x == 0), "{:?}: output wiped", b);
                    }
                }
            }
        });
    }
}

/// Messages over several of the one-pass kernel's double groups (1536
/// bytes) and far beyond, against the reference of section 3, on each
/// backend.
#[test]
fn long_messages_equal_reference_on_every_backend() {
    let key = [0x6bu8; 16];
    let nonce = [0x5cu8; 11];
    common::on_each_backend(Some(1), |b| {
        let cwc = CwcAes128::new_from_slice(&key).unwrap();
        for len in [
            1535usize,
            1536,
            1537,
            3072,
            16_384,
            16_385,
            49_152 + 7,
            200_000 + 13,
        ] {
            let msg: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            let ad = &msg[..len % 97];
            let ct = cwc.encrypt_to_vec(&nonce, ad, &msg).unwrap();
            assert_eq!(
                ct,
                reference_encrypt(&key, &nonce, ad, &msg),
                "{b:?} len {len}"
            );
            assert_eq!(
                cwc.decrypt_to_vec(&nonce, ad, &ct).unwrap(),
                msg,
                "{b:?} len {len}"
            );
        }
    });
}

/// A cipher handed over already keyed and any cipher other than the `aes`
/// crate's keep the generic path.
#[test]
fn from_cipher_and_wrappers_stay_generic() {
    let before = blockmodes::backend::fused_keys();
    let _ = Cwc::<Aes128>::from_cipher(Aes128::new(&[1; 16].into()));
    let _ = Cwc::<Counting<Aes128>>::new_from_slice(&[1; 16]).unwrap();
    assert_eq!(blockmodes::backend::fused_keys(), before);
    let _ = CwcAes128::new_from_slice(&[1; 16]).unwrap();
    let _ = <CwcAes128 as KeyInit>::new(&[1; 16].into());
    let expected = u64::from(
        blockmodes::backend::available()
            .iter()
            .any(|&b| b != blockmodes::backend::Backend::Generic),
    );
    assert_eq!(blockmodes::backend::fused_keys() - before, 2 * expected);
}
