//! The peer rows of `blockmodes bench` (cargo feature `peers`) compute what
//! they claim: each through the same functions the rows call, against an
//! independent implementation or published vectors.
//! - OpenSSL AES-128-OCB against RustCrypto `ocb3`, and both against RFC
//!   7253's vectors;
//! - OpenSSL AES-128-GCM against RustCrypto `aes-gcm`;
//! - OpenSSL AES-128-XTS against the `xts-mode` crate, in data units;
//! - RustCrypto `eme-mode` against Halevi's EME vectors (`vectors/eme-aes.json`),
//!   its own decryption, and blockmodes' EME through the sector interface
//!   (same conventions: LE doubling, L from the forward cipher, the unit
//!   number as a 16-byte little-endian tweak).
#![cfg(feature = "peers")]

use aead::{AeadInOut, KeyInit};
use blockmodes::Aes128;
use blockmodes::eme::Eme;
use blockmodes::sector::{SectorCipher, Sectors};
use blockmodes_cli::bench;
use blockmodes_cli::bench::peers::{
    Ocb3Aes128, OpensslAead, OpensslXts, SLACK, eme_rustcrypto_units,
};
use eme_mode::DynamicEme;
use eme_mode::cipher::InnerIvInit;
use proptest::prelude::*;

/// OpenSSL's in-place encryption as the bench rows call it: ciphertext || tag.
fn openssl_seal(ctx: &mut OpensslAead, nonce: &[u8; 12], msg: &[u8]) -> Vec<u8> {
    let mut buf = msg.to_vec();
    buf.resize(msg.len() + SLACK, 0xee);
    let tag = ctx.encrypt_in_place(nonce, &mut buf, msg.len()).unwrap();
    buf.truncate(msg.len());
    buf.extend_from_slice(&tag);
    buf
}

/// A RustCrypto AEAD's detached in-place encryption: ciphertext || tag.
fn rustcrypto_seal<A: AeadInOut>(a: &A, nonce: &[u8; 12], msg: &[u8]) -> Vec<u8> {
    let nonce = aead::Nonce::<A>::try_from(&nonce[..]).unwrap();
    let mut buf = msg.to_vec();
    let tag = a
        .encrypt_inout_detached(&nonce, &[], (&mut buf[..]).into())
        .unwrap();
    buf.extend_from_slice(&tag);
    buf
}

/// RFC 7253, appendix A: the vectors without associated data (key
/// 000102...0f, 16-byte tags): nonce, plaintext, ciphertext || tag.
const RFC7253: &[(&str, &str, &str)] = &[
    (
        "bbaa99887766554433221100",
        "",
        "785407bfffc8ad9edcc5520ac9111ee6",
    ),
    (
        "bbaa99887766554433221103",
        "0001020304050607",
        "45dd69f8f5aae72414054cd1f35d82760b2cd00d2f99bfa9",
    ),
    (
        "bbaa99887766554433221106",
        "000102030405060708090a0b0c0d0e0f",
        "5ce88ec2e0692706a915c00aeb8b2396f40e1c743f52436bdf06d8fa1eca343d",
    ),
    (
        "bbaa99887766554433221109",
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        "221bd0de7fa6fe993eccd769460a0af2d6cded0c395b1c3ce725f32494b9f914d85c0b1eb38357ff",
    ),
];

#[test]
fn ocb3_peers_match_rfc7253() {
    let key: [u8; 16] = core::array::from_fn(|i| i as u8);
    let mut ossl = OpensslAead::ocb3(&key).unwrap();
    let rc = Ocb3Aes128::new(&key.into());
    for (nonce, pt, want) in RFC7253 {
        let nonce: [u8; 12] = hex::decode(nonce).unwrap().try_into().unwrap();
        let (pt, want) = (hex::decode(pt).unwrap(), hex::decode(want).unwrap());
        assert_eq!(openssl_seal(&mut ossl, &nonce, &pt), want, "OpenSSL");
        assert_eq!(rustcrypto_seal(&rc, &nonce, &pt), want, "ocb3");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Two messages on one OpenSSL context (the rows reuse it) against
    /// RustCrypto `ocb3`.
    #[test]
    fn openssl_ocb3_equals_rustcrypto_ocb3(
        key in any::<[u8; 16]>(),
        nonces in any::<[[u8; 12]; 2]>(),
        msgs in prop::array::uniform2(prop::collection::vec(any::<u8>(), 0..1100)),
    ) {
        let mut ossl = OpensslAead::ocb3(&key).unwrap();
        let rc = Ocb3Aes128::new(&key.into());
        for (nonce, msg) in nonces.iter().zip(&msgs) {
            prop_assert_eq!(openssl_seal(&mut ossl, nonce, msg), rustcrypto_seal(&rc, nonce, msg));
        }
    }

    /// Two messages on one OpenSSL context against RustCrypto `aes-gcm`.
    #[test]
    fn openssl_gcm_equals_aes_gcm(
        key in any::<[u8; 16]>(),
        nonces in any::<[[u8; 12]; 2]>(),
        msgs in prop::array::uniform2(prop::collection::vec(any::<u8>(), 0..1100)),
    ) {
        let mut ossl = OpensslAead::gcm(&key).unwrap();
        let rc = aes_gcm::Aes128Gcm::new(&key.into());
        for (nonce, msg) in nonces.iter().zip(&msgs) {
            prop_assert_eq!(openssl_seal(&mut ossl, nonce, msg), rustcrypto_seal(&rc, nonce, msg));
        }
    }

    /// OpenSSL XTS in data units (512 bytes as the row, and other sizes)
    /// against `xts-mode`'s `encrypt_area` with its default tweak (the unit
    /// number, little-endian), twice on one context.
    #[test]
    fn openssl_xts_equals_xts_mode(
        keys in any::<[[u8; 16]; 2]>(),
        first in any::<u64>(),
        unit in prop_oneof![Just(512usize), (1usize..=128).prop_map(|b| b * 16)],
        units in 1usize..5,
        seed in any::<u8>(),
    ) {
        prop_assume!(keys[0] != keys[1]);
        let msg: Vec<u8> = (0..unit * units).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
        let mut ossl = OpensslXts::new(&keys[0], &keys[1]).unwrap();
        let peer = xts_mode::Xts128::new(
            aes::Aes128::new(&keys[0].into()),
            aes::Aes128::new(&keys[1].into()),
        );
        let mut want = msg.clone();
        peer.encrypt_area(&mut want, unit, first.into(), xts_mode::get_tweak_default);
        for _ in 0..2 {
            let mut got = msg.clone();
            ossl.encrypt_units(first.into(), unit, &mut got).unwrap();
            prop_assert_eq!(&got, &want);
        }
    }

    /// `eme-mode` in data units against blockmodes' EME over the sector
    /// interface (units numbered from `first`), and its own decryption.
    #[test]
    fn eme_rustcrypto_equals_blockmodes_eme(
        key in any::<[u8; 16]>(),
        first in any::<u32>(),
        unit in prop_oneof![Just(2048usize), (1usize..=128).prop_map(|b| b * 16)],
        units in 1usize..4,
        seed in any::<u8>(),
    ) {
        let msg: Vec<u8> = (0..unit * units).map(|i| (i as u8).wrapping_mul(29) ^ seed).collect();
        let ours = Sectors::new(Eme::<Aes128>::new_from_slice(&key).unwrap(), unit).unwrap();
        let mut want = msg.clone();
        ours.encrypt_sectors_serial(first.into(), &mut want).unwrap();
        let aes = <aes08::Aes128 as eme_mode::cipher::KeyInit>::new(&key.into());
        let mut got = msg.clone();
        eme_rustcrypto_units(&aes, first.into(), unit, &mut got).unwrap();
        prop_assert_eq!(&got, &want);
        for (i, data) in got.chunks_exact_mut(unit).enumerate() {
            let tweak = (u128::from(first) + i as u128).to_le_bytes();
            DynamicEme::inner_iv_init(aes.clone(), &tweak.into()).decrypt_block_mut(data);
        }
        prop_assert_eq!(got, msg);
    }
}

/// `eme-mode` against the EME vectors (Halevi's, AES-256), iterations and
/// the decryption direction included.
#[test]
fn eme_rustcrypto_matches_eme_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/eme-aes.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let vectors = file["vectors"].as_array().unwrap();
    assert!(!vectors.is_empty());
    for v in vectors {
        let field = |k: &str| hex::decode(v[k].as_str().unwrap()).unwrap();
        let aes =
            <aes08::Aes256 as eme_mode::cipher::KeyInit>::new_from_slice(&field("key")).unwrap();
        let tweak: [u8; 16] = field("tweak").try_into().unwrap();
        let decrypt = v["direction"].as_str() == Some("decrypt");
        let (mut data, want) = if decrypt {
            (field("ct"), field("pt"))
        } else {
            (field("pt"), field("ct"))
        };
        for _ in 0..v["iterations"].as_u64().unwrap_or(1) {
            let mut eme = DynamicEme::inner_iv_init(aes.clone(), &tweak.into());
            if decrypt {
                eme.decrypt_block_mut(&mut data);
            } else {
                eme.encrypt_block_mut(&mut data);
            }
        }
        assert_eq!(data, want, "{}", v["name"]);
    }
}

/// Every peer row is listed and runs at sizes below, at and above its unit.
#[test]
fn peer_bench_cases_run() {
    for mode in bench::peers::MODES {
        assert!(bench::all_modes().contains(mode));
        for bytes in [0, 1, 15, 16, 64, 1000, 2048, 5000] {
            let mut case = bench::make(mode, bytes).expect("case");
            case();
            case();
        }
    }
}
