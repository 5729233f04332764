//! The peer rows of `blockmodes bench` (cargo feature `peers`) compute what
//! they claim: each through the same functions the rows call, against an
//! independent implementation or published vectors.
//! - OpenSSL AES-128-OCB against RustCrypto `ocb3`, and both against RFC
//!   7253's vectors;
//! - OpenSSL AES-128-GCM and ring's AES-128-GCM against RustCrypto
//!   `aes-gcm`, and all three against a vector of the GCM specification;
//! - OpenSSL AES-128-XTS against the `xts-mode` crate, in data units;
//! - RustCrypto `eme-mode` against Halevi's EME vectors (`vectors/eme-aes.json`),
//!   its own decryption, and blockmodes' EME through the sector interface
//!   (same conventions: LE doubling, L from the forward cipher, the unit
//!   number as a 16-byte little-endian tweak).
//!
//! And the bench names what it links: the OpenSSL that `build.rs` built from
//! the pinned `openssl-src` (not a system library), and ring's version.
#![cfg(feature = "peers")]

mod common;

use aead::{AeadInOut, KeyInit};
use blockmodes::Aes128;
use blockmodes::eme::Eme;
use blockmodes::sector::{SectorCipher, Sectors};
use blockmodes_cli::bench;
use blockmodes_cli::bench::peers::{
    Ocb3Aes128, OpensslAead, OpensslXts, RING_VERSION, SLACK, eme_rustcrypto_units, openssl,
    ring_gcm_key, ring_gcm_seal,
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

/// ring's in-place encryption as the bench row calls it: ciphertext || tag.
fn ring_seal(key: &ring::aead::LessSafeKey, nonce: &[u8; 12], msg: &[u8]) -> Vec<u8> {
    let mut buf = msg.to_vec();
    let tag = ring_gcm_seal(key, nonce, &mut buf).unwrap();
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

/// The GCM specification's (McGrew and Viega, "The Galois/Counter Mode of
/// Operation", revised 2005) test case 3: AES-128, 96-bit IV, 64 bytes, no
/// associated data; ciphertext || tag.
#[test]
fn gcm_peers_match_gcm_spec_test_case_3() {
    let key: [u8; 16] = hex::decode("feffe9928665731c6d6a8f9467308308")
        .unwrap()
        .try_into()
        .unwrap();
    let nonce: [u8; 12] = hex::decode("cafebabefacedbaddecaf888")
        .unwrap()
        .try_into()
        .unwrap();
    let pt = hex::decode(concat!(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72",
        "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    ))
    .unwrap();
    let want = hex::decode(concat!(
        "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e",
        "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
        "4d5c2af327cd64a62cf35abd2ba6fab4"
    ))
    .unwrap();
    let mut ossl = OpensslAead::gcm(&key).unwrap();
    assert_eq!(openssl_seal(&mut ossl, &nonce, &pt), want, "OpenSSL");
    assert_eq!(
        ring_seal(&ring_gcm_key(&key).unwrap(), &nonce, &pt),
        want,
        "ring"
    );
    let rc = aes_gcm::Aes128Gcm::new(&key.into());
    assert_eq!(rustcrypto_seal(&rc, &nonce, &pt), want, "aes-gcm");
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

    /// Two messages on one ring key (the row reuses it) against RustCrypto
    /// `aes-gcm`.
    #[test]
    fn ring_gcm_equals_aes_gcm(
        key in any::<[u8; 16]>(),
        nonces in any::<[[u8; 12]; 2]>(),
        msgs in prop::array::uniform2(prop::collection::vec(any::<u8>(), 0..1100)),
    ) {
        let ring = ring_gcm_key(&key).unwrap();
        let rc = aes_gcm::Aes128Gcm::new(&key.into());
        for (nonce, msg) in nonces.iter().zip(&msgs) {
            prop_assert_eq!(ring_seal(&ring, nonce, msg), rustcrypto_seal(&rc, nonce, msg));
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

/// The linked libcrypto is the OpenSSL that `openssl-src` built: its version
/// text names the version in the crate's build metadata (400.0.2+4.0.3 ->
/// "OpenSSL 4.0.3 "), not the system's.
#[test]
fn openssl_is_the_pinned_source_build() {
    let (_, wanted) = openssl::SOURCE_CRATE_VERSION
        .split_once('+')
        .expect("openssl-src's version carries OpenSSL's as build metadata");
    let text = openssl::version();
    assert!(
        text.starts_with(&format!("OpenSSL {wanted} ")),
        "{text} is not OpenSSL {wanted}"
    );
}

/// `RING_VERSION`, printed in the header, is the ring that Cargo.lock locks.
#[test]
fn ring_version_is_the_locked_one() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    let lock = std::fs::read_to_string(path).unwrap();
    let locked: Vec<&str> = lock
        .split("[[package]]")
        .filter(|p| p.contains("\nname = \"ring\"\n"))
        .filter_map(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"'))
        .collect();
    assert_eq!(locked, [RING_VERSION]);
}

/// A line of the bench header names the peers' versions; with `--json`
/// they are in the first object, beside the CPU.
#[test]
fn bench_header_names_the_peers() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["bench", "--quick", "--modes", "ecb", "--sizes", "64"];
    let text = common::run(dir.path(), &args);
    common::ok(&text);
    let out = String::from_utf8(text.stdout).unwrap();
    let line = out
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find(|l| l.starts_with("# Peers: "))
        .unwrap_or_else(|| panic!("no peers line in the header: {out}"));
    assert!(line.starts_with("# Peers: OpenSSL 4."), "{out}");
    assert!(line.contains(&format!("ring {RING_VERSION}")), "{out}");

    let json = common::run(dir.path(), &[&args[..], &["--json"]].concat());
    common::ok(&json);
    let out = String::from_utf8(json.stdout).unwrap();
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert!(first["cpu"]["model_name"].is_string(), "{out}");
    assert_eq!(first["peers"]["openssl"], openssl::version().as_str());
    assert_eq!(first["peers"]["ring"], RING_VERSION);
}
