//! PMAC (Rogaway & Black 2001): the `pmac-aes` vectors through every API,
//! block-cipher call counts, streaming and incremental updates against
//! recomputation, the parallel and partial-Σ APIs, every tag length, and
//! typed errors.
//!
//! Besides the vectors, outputs are compared with `reference`: PMAC written
//! block by block from the paper's section 3.3 ("An equivalent
//! description"), with the offsets chained one block at a time
//! (`Offset ← Offset ⊕ L(ntz(i))`), independently of the module's grouped
//! offset tables.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use blockmodes::cipher::consts::{
    U1, U2, U3, U4, U5, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16,
};
use blockmodes::hazmat::gf128::{Block, GrayOffsets, half_be, xor};
use blockmodes::oracle::{BlockCipher128, Counting, encrypt_block};
// Vectors and tags of every length: the hazmat form (the same code as the
// safe `Pmac`, which takes 8..=16-byte tags).
use blockmodes::pmac::hazmat::Pmac;
use blockmodes::pmac::{PARALLEL_THRESHOLD, PartialSigma, PmacAes128};
use blockmodes::tag::{Hazmat, TagSize};
use blockmodes::{Aes128, Aes192, Aes256, Error};
use cipher::KeyInit;
// `digest::Mac` is not imported: with it in scope, `pmac.verify(msg, tag)`
// would resolve to the trait's one-argument `verify`; trait calls below use
// paths (the trait is deliberately not imported).

use proptest::prelude::*;

mod common;

// ---- the reference: section 3.3 of the paper, one block at a time ----

/// `pad(A)`: `A 10*` for a short final block, `A` for a full one.
fn pad(last: &[u8]) -> Block {
    let mut b = [0u8; 16];
    b[..last.len()].copy_from_slice(last);
    if last.len() < 16 {
        b[last.len()] = 0x80;
    }
    b
}

/// Σ of blocks `first..` of `blocks`: `⊕ E_K(M[i] ⊕ γ_i·L)`, the offset
/// started from `γ_first·L` and then chained.
fn reference_sigma<C: BlockCipher128>(c: &C, first: u64, blocks: &[u8]) -> Block {
    let l = encrypt_block(c, &[0u8; 16]);
    let table = GrayOffsets::new(&l);
    let mut offset = table.gamma(first);
    let mut sigma = [0u8; 16];
    for (k, m) in blocks.chunks_exact(16).enumerate() {
        let i = first + k as u64;
        if k > 0 {
            offset = table.next(&offset, i);
        }
        let x = xor(m.try_into().unwrap(), &offset);
        sigma = xor(&sigma, &encrypt_block(c, &x));
    }
    sigma
}

/// The full 16-byte PMAC tag, following the paper's MAC GENERATION steps.
fn reference<C: BlockCipher128>(c: &C, msg: &[u8]) -> Block {
    let l = encrypt_block(c, &[0u8; 16]);
    let table = GrayOffsets::new(&l);
    let m = msg.len().div_ceil(16).max(1);
    let mut offset = [0u8; 16];
    let mut sigma = [0u8; 16];
    for i in 1..m {
        offset = table.next(&offset, i as u64);
        let block: &Block = msg[16 * (i - 1)..16 * i].try_into().unwrap();
        sigma = xor(&sigma, &encrypt_block(c, &xor(block, &offset)));
    }
    let last = &msg[16 * (m - 1)..];
    sigma = xor(&sigma, &pad(last));
    if last.len() == 16 {
        sigma = xor(&sigma, &half_be(&l)); // L(-1)
    }
    encrypt_block(c, &sigma)
}

fn aes128(key: &[u8; 16]) -> Aes128 {
    Aes128::new(key.into())
}

/// Deterministic test bytes.
fn bytes(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_be_bytes()[0] ^ seed)
        .collect()
}

// ---- vectors ----

struct Vector {
    name: String,
    key: Vec<u8>,
    msg: Vec<u8>,
    tag: Vec<u8>,
    valid: bool,
}

fn vectors() -> Vec<Vector> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/pmac-aes.json"
    ))
    .expect("vectors/pmac-aes.json");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["scheme"], "pmac-aes");
    let field = |v: &serde_json::Value, f: &str| hex::decode(v[f].as_str().unwrap()).unwrap();
    json["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| Vector {
            name: v["name"].as_str().unwrap_or("?").to_owned(),
            key: field(v, "key"),
            msg: field(v, "msg"),
            tag: field(v, "tag"),
            valid: v["result"].as_str() != Some("invalid"),
        })
        .collect()
}

/// Every check of one vector, for AES with key type `C` and 16-byte tags.
fn check_vector<C: BlockCipher128 + KeyInit + Clone + Sync>(v: &Vector) {
    let pmac = Pmac::<C>::new_from_slice(&v.key).unwrap();
    let name = &v.name;
    if !v.valid {
        assert_eq!(
            pmac.verify_tag(&v.msg, &v.tag),
            Err(Error::Authentication),
            "{name}"
        );
        let mut m = <Pmac<C> as KeyInit>::new_from_slice(&v.key).unwrap();
        digest::Mac::update(&mut m, &v.msg);
        assert!(digest::Mac::verify_slice(m, &v.tag).is_err(), "{name}");
        return;
    }
    // One-shot.
    assert_eq!(pmac.mac(&v.msg).as_slice(), v.tag, "{name}: mac");
    assert_eq!(pmac.verify_tag(&v.msg, &v.tag), Ok(()), "{name}: verify");
    assert_eq!(
        reference(&C::new_from_slice(&v.key).unwrap(), &v.msg).as_slice(),
        v.tag,
        "{name}: reference"
    );
    // Streaming, several chunk sizes.
    for chunk in [1, 3, 15, 16, 17, 33, 64, 1000] {
        let mut s = pmac.clone();
        for piece in v.msg.chunks(chunk) {
            s.update(piece);
        }
        assert_eq!(
            s.clone().finalize().into_bytes().as_slice(),
            v.tag,
            "{name}: chunks of {chunk}"
        );
        assert_eq!(
            s.finalize_verify(&v.tag),
            Ok(()),
            "{name}: chunks of {chunk}"
        );
    }
    // The digest `Mac` traits.
    let mut m = <Pmac<C> as KeyInit>::new_from_slice(&v.key).unwrap();
    digest::Mac::update(&mut m, &v.msg);
    assert_eq!(
        digest::Mac::finalize_reset(&mut m).into_bytes().as_slice(),
        v.tag,
        "{name}"
    );
    digest::Mac::update(&mut m, &v.msg);
    assert!(
        digest::Mac::verify_slice(m.clone(), &v.tag).is_ok(),
        "{name}: verify_slice"
    );
    assert!(
        digest::Mac::verify_slice(digest::Mac::chain_update(m, b"x"), &v.tag).is_err(),
        "{name}: verify_slice of another message"
    );
    // Incremental, parallel and partial-Σ paths.
    assert_eq!(pmac.incremental(&v.msg).tag().as_slice(), v.tag, "{name}");
    assert_eq!(pmac.mac_par(&v.msg).as_slice(), v.tag, "{name}");
    let body = v.msg.len().saturating_sub(1) / 16 * 16;
    let sigma = pmac.partial_sigma(1, &v.msg[..body]).unwrap();
    assert_eq!(
        pmac.finish(sigma, &v.msg[body..]).unwrap().as_slice(),
        v.tag
    );
}

#[test]
fn pmac_aes_vectors_through_every_api() {
    let vs = vectors();
    assert!(vs.len() >= 7, "expected the 7 pmac-aes vectors");
    for v in &vs {
        assert_eq!(v.tag.len(), 16, "{}: these checks use 16-byte tags", v.name);
        match v.key.len() {
            16 => check_vector::<Aes128>(v),
            24 => check_vector::<Aes192>(v),
            32 => check_vector::<Aes256>(v),
            n => panic!("{}: key of {n} bytes", v.name),
        }
    }
}

#[test]
fn aes192_and_aes256_match_the_reference() {
    for len in [0, 1, 16, 17, 100, 1024, 1031] {
        let msg = bytes(len, 3);
        let k24 = [0x24u8; 24];
        let k32 = [0x32u8; 32];
        let p192 = Pmac::<Aes192>::new_from_slice(&k24).unwrap();
        let p256 = Pmac::<Aes256>::new_from_slice(&k32).unwrap();
        let r192 = reference(&Aes192::new_from_slice(&k24).unwrap(), &msg);
        let r256 = reference(&Aes256::new_from_slice(&k32).unwrap(), &msg);
        assert_eq!(p192.mac(&msg).as_slice(), r192);
        assert_eq!(p256.mac(&msg).as_slice(), r256);
    }
}

// ---- block-cipher calls ----

#[test]
fn call_counts_match_the_paper() {
    let (cipher, count) = Counting::new(aes128(&[1u8; 16]));
    let pmac = Pmac::<_>::from_cipher(cipher);
    assert_eq!(count.get(), 1, "key setup: L = E_K(0)");
    for len in [0, 1, 15, 16, 17, 31, 32, 33, 64, 65, 100, 1000, 1024, 4101] {
        let msg = bytes(len, 1);
        let want = len.div_ceil(16).max(1) as u64;

        count.reset();
        let tag = pmac.mac(&msg);
        assert_eq!(count.get(), want, "mac, {len} bytes");

        count.reset();
        pmac.verify_tag(&msg, &tag).unwrap();
        assert_eq!(count.get(), want, "verify, {len} bytes");

        count.reset();
        let mut s = pmac.clone();
        for piece in msg.chunks(7) {
            s.update(piece);
        }
        assert_eq!(s.finalize().into_bytes(), tag);
        assert_eq!(count.get(), want, "streaming, {len} bytes");

        count.reset();
        assert_eq!(pmac.mac_par(&msg), tag);
        assert_eq!(count.get(), want, "mac_par, {len} bytes");
    }
}

#[test]
fn incremental_costs_are_proportional_to_the_change() {
    let (cipher, count) = Counting::new(aes128(&[2u8; 16]));
    let pmac = Pmac::<_>::from_cipher(cipher);
    let mut msg = bytes(16 * 100 + 9, 2); // m = 101
    let mut inc = pmac.incremental(&msg);

    count.reset();
    let new = [0xeeu8; 16];
    inc.replace(50, &msg[16 * 49..16 * 50], &new).unwrap();
    msg[16 * 49..16 * 50].copy_from_slice(&new);
    assert_eq!(count.get(), 2, "replace: remove and add one Y");

    count.reset();
    inc.replace(101, &msg[1600..], &[7u8; 9]).unwrap();
    msg[1600..].copy_from_slice(&[7u8; 9]);
    assert_eq!(count.get(), 0, "replacing the held last block");

    count.reset();
    let extra = bytes(40, 9);
    inc.append(&extra);
    msg.extend_from_slice(&extra);
    // 1609 + 40 = 1649 bytes: blocks 101..103 become enciphered, 104 is held.
    assert_eq!(count.get(), 3, "append");

    count.reset();
    inc.truncate(50, &msg).unwrap();
    msg.truncate(msg.len() - 50);
    // 1649 bytes (blocks 1..103 enciphered, M[104] of 1 byte) down to 1599
    // (m' = 100, |M[100]| = 15): blocks 100..103 leave Σ.
    assert_eq!(count.get(), 4, "truncate");

    count.reset();
    let tag = inc.tag();
    assert_eq!(count.get(), 1, "tag");
    assert_eq!(tag, pmac.mac(&msg), "equal to recomputation");
}

// ---- streaming ----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn streaming_equals_one_shot_for_any_split(
        msg in proptest::collection::vec(any::<u8>(), 0..2500),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let pmac = PmacAes128::new_from_slice(&[5u8; 16]).unwrap();
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (msg.len() + 1)).collect();
        points.push(0);
        points.push(msg.len());
        points.sort_unstable();
        let mut s = pmac.clone();
        for w in points.windows(2) {
            s.update(&msg[w[0]..w[1]]);
        }
        let tag = pmac.mac(&msg);
        prop_assert_eq!(s.finalize().into_bytes(), tag);
        prop_assert_eq!(tag.as_slice(), &reference(&aes128(&[5u8; 16]), &msg)[..]);
    }
}

#[test]
fn reset_forgets_the_stream() {
    let mut s = PmacAes128::new_from_slice(&[6u8; 16]).unwrap();
    s.update(&[1u8; 50]);
    s.reset();
    s.update(b"abc");
    assert_eq!(s.clone().finalize().into_bytes(), s.mac(b"abc"));
}

// ---- incremental (section 4.1) ----

#[derive(Debug, Clone)]
enum Op {
    /// Replace block `index % m + 1` with fresh bytes.
    Replace(usize, u8),
    Append(Vec<u8>),
    /// Drop `n % (len + 1)` bytes.
    Truncate(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Op::Replace(i, b)),
        proptest::collection::vec(any::<u8>(), 0..70).prop_map(Op::Append),
        any::<usize>().prop_map(Op::Truncate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn incremental_updates_equal_recomputation(
        start in proptest::collection::vec(any::<u8>(), 0..1500),
        ops in proptest::collection::vec(op(), 1..10),
    ) {
        let pmac = PmacAes128::new_from_slice(&[7u8; 16]).unwrap();
        let mut msg = start;
        let mut inc = pmac.incremental(&msg);
        for op in ops {
            match op {
                Op::Replace(i, fill) => {
                    let m = inc.blocks() as usize;
                    let index = i % m + 1;
                    let range = 16 * (index - 1)..msg.len().min(16 * index);
                    let new = vec![fill; range.len()];
                    inc.replace(index as u64, &msg[range.clone()], &new).unwrap();
                    msg[range].copy_from_slice(&new);
                }
                Op::Append(x) => {
                    inc.append(&x);
                    msg.extend_from_slice(&x);
                }
                Op::Truncate(n) => {
                    let n = n % (msg.len() + 1);
                    // Pass just the suffix that is needed, or all of it.
                    let suffix_from = if n % 2 == 0 { 0 } else {
                        let new_len = msg.len() - n;
                        new_len.saturating_sub(1) / 16 * 16
                    };
                    inc.truncate(n as u64, &msg[suffix_from..]).unwrap();
                    msg.truncate(msg.len() - n);
                }
            }
            prop_assert_eq!(inc.len(), msg.len() as u64);
            prop_assert_eq!(inc.tag(), pmac.mac(&msg));
        }
        prop_assert_eq!(inc.verify(&pmac.mac(&msg)), Ok(()));
    }
}

#[test]
fn incremental_rejects_bad_edits_with_typed_errors() {
    let pmac = PmacAes128::new_from_slice(&[8u8; 16]).unwrap();
    let msg = bytes(40, 8); // blocks of 16, 16, 8
    let mut inc = pmac.incremental(&msg);
    let before = inc.tag();
    let p = |e: &Result<(), Error>| matches!(e, Err(Error::InvalidParameter(_)));
    let l = |e: &Result<(), Error>| matches!(e, Err(Error::InvalidLength(_)));
    assert!(p(&inc.replace(0, &msg[..16], &[0; 16])));
    assert!(p(&inc.replace(4, &[0; 16], &[0; 16])));
    assert!(l(&inc.replace(1, &msg[..15], &[0; 15])));
    assert!(l(&inc.replace(1, &msg[..16], &[0; 17])));
    assert!(
        l(&inc.replace(3, &msg[32..], &[0; 16])),
        "the last block keeps its length"
    );
    assert!(
        p(&inc.replace(3, &[0; 8], &[1; 8])),
        "old last block must match"
    );
    assert!(p(&inc.truncate(41, &msg)));
    assert!(l(&inc.truncate(10, &msg[35..])), "suffix too short");
    let mut wrong = msg.clone();
    wrong[39] ^= 1;
    assert!(
        p(&inc.truncate(10, &wrong)),
        "suffix must end with the last block"
    );
    assert_eq!(inc.tag(), before, "failed edits change nothing");
    assert!(matches!(
        inc.verify(&[0u8; 15]),
        Err(Error::InvalidTagLength { .. })
    ));
    assert_eq!(inc.verify(&[0u8; 16]), Err(Error::Authentication));
}

#[test]
fn incremental_truncate_to_empty_and_regrow() {
    let pmac = PmacAes128::new_from_slice(&[9u8; 16]).unwrap();
    let msg = bytes(100, 9);
    let mut inc = pmac.incremental(&msg);
    inc.truncate(100, &msg).unwrap();
    assert!(inc.is_empty());
    assert_eq!(inc.tag(), pmac.mac(b""));
    inc.append(&msg[..48]);
    assert_eq!(inc.tag(), pmac.mac(&msg[..48]));
    assert_eq!(inc.blocks(), 3);
}

// ---- parallel and partial Σ ----

#[test]
fn mac_par_equals_one_shot() {
    let pmac = PmacAes128::new_from_slice(&[10u8; 16]).unwrap();
    let aes = aes128(&[10u8; 16]);
    let group = 16 * 64; // the runs start on groups of 64 blocks
    for len in [
        0,
        1,
        PARALLEL_THRESHOLD - 1,
        PARALLEL_THRESHOLD,
        PARALLEL_THRESHOLD + 1,
        PARALLEL_THRESHOLD + 16,
        PARALLEL_THRESHOLD + group - 1,
        PARALLEL_THRESHOLD + 8 * group + 17,
        (1 << 20) - 16,
        (1 << 20) + 7,
        (3 << 20) + 5,
    ] {
        let msg = bytes(len, len as u8);
        let tag = pmac.mac_par(&msg);
        assert_eq!(tag, pmac.mac(&msg), "{len} bytes");
        assert_eq!(tag.as_slice(), reference(&aes, &msg), "{len} bytes");
    }
    // Lengths from 512 KiB to 4 MiB, none a whole number of groups: the
    // threads meet at a different block each time (a dozen: the test also
    // runs under emulation on aarch64; the partition itself is tested
    // at every length in `par.rs`).
    let long = bytes(4 << 20, 3);
    for len in (PARALLEL_THRESHOLD + 17..=4 << 20).step_by(320_153) {
        let msg = &long[..len];
        assert_eq!(pmac.mac_par(msg), pmac.mac(msg), "{len} bytes");
    }
}

#[test]
fn partial_sigma_at_any_block_index() {
    let pmac = PmacAes128::new_from_slice(&[11u8; 16]).unwrap();
    let aes = aes128(&[11u8; 16]);
    let data = bytes(16 * 300, 11);
    // Runs that start inside a group of 64, cross group boundaries, start at
    // huge indices, and end at the last index a u64 allows.
    for first in [
        1u64,
        2,
        63,
        64,
        65,
        127,
        1000,
        (1 << 40) - 70,
        u64::MAX - 299,
    ] {
        for blocks in [0usize, 1, 3, 64, 65, 300] {
            if first
                .checked_add((blocks as u64).saturating_sub(1))
                .is_none()
            {
                continue;
            }
            let run = &data[..16 * blocks];
            let mut got = [0u8; 16];
            // Turn the opaque partial Σ into a tag for comparison: a short
            // final block `b"z"` and the same Σ through the reference.
            let s = pmac.partial_sigma(first, run).unwrap();
            let tag = pmac.finish(s, b"z").unwrap();
            let want_sigma = xor(&reference_sigma(&aes, first, run), &pad(b"z"));
            got.copy_from_slice(&tag);
            assert_eq!(
                got,
                encrypt_block(&aes, &want_sigma),
                "first {first}, {blocks} blocks"
            );
        }
    }
}

#[test]
fn partial_sigmas_of_ranges_combine_to_the_tag() {
    let pmac = PmacAes128::new_from_slice(&[12u8; 16]).unwrap();
    for len in [0usize, 5, 16, 17, 1000, 16 * 200, 16 * 200 + 1] {
        let msg = bytes(len, 12);
        let body = len.saturating_sub(1) / 16 * 16;
        let blocks = body / 16;
        // Three runs, combined out of order.
        let (a, b) = (blocks / 3, 2 * blocks / 3);
        let r1 = pmac.partial_sigma(1, &msg[..16 * a]).unwrap();
        let r2 = pmac
            .partial_sigma(1 + a as u64, &msg[16 * a..16 * b])
            .unwrap();
        let r3 = pmac
            .partial_sigma(1 + b as u64, &msg[16 * b..body])
            .unwrap();
        let sigma = PartialSigma::default().combine(r3) ^ r1 ^ r2;
        assert_eq!(
            pmac.finish(sigma, &msg[body..]).unwrap(),
            pmac.mac(&msg),
            "{len}"
        );
    }
}

#[test]
fn partial_sigma_and_finish_reject_bad_input() {
    let pmac = PmacAes128::new_from_slice(&[13u8; 16]).unwrap();
    assert!(matches!(
        pmac.partial_sigma(0, &[0; 16]),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        pmac.partial_sigma(1, &[0; 17]),
        Err(Error::InvalidLength(_))
    ));
    assert!(matches!(
        pmac.partial_sigma(u64::MAX, &[0; 32]),
        Err(Error::InvalidParameter(_))
    ));
    assert!(pmac.partial_sigma(u64::MAX, &[0; 16]).is_ok());
    assert!(matches!(
        pmac.finish(PartialSigma::default(), &[0; 17]),
        Err(Error::InvalidLength(_))
    ));
}

// ---- tag lengths ----

fn check_tag_len<T: TagSize<Hazmat>>() {
    let key = [14u8; 16];
    let full = PmacAes128::new_from_slice(&key).unwrap();
    let short = Pmac::<Aes128, T>::new_from_slice(&key).unwrap();
    let n = T::USIZE;
    for len in [0, 3, 16, 33] {
        let msg = bytes(len, 14);
        let tag = short.mac(&msg);
        assert_eq!(tag.len(), n);
        assert_eq!(
            tag.as_slice(),
            &full.mac(&msg)[..n],
            "a τ-bit tag is a prefix"
        );
        assert_eq!(short.verify_tag(&msg, &tag), Ok(()));
        let mut s = short.clone();
        s.update(&msg);
        assert_eq!(s.clone().finalize().into_bytes(), tag);
        assert!(digest::Mac::verify_slice(s, &tag).is_ok());
        for bit in 0..8 * n {
            let mut bad = tag.to_vec();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                short.verify_tag(&msg, &bad),
                Err(Error::Authentication),
                "τ {n}, bit {bit}"
            );
        }
        for wrong in [0, n - 1, n + 1, 16, 17] {
            if wrong == n {
                continue;
            }
            let t = vec![0u8; wrong];
            assert_eq!(
                short.verify_tag(&msg, &t),
                Err(Error::InvalidTagLength {
                    min: n,
                    max: n,
                    got: wrong
                }),
            );
            let mut m = short.clone();
            m.update(&msg);
            assert!(digest::Mac::verify_slice(m, &t).is_err());
        }
    }
}

#[test]
fn every_tag_length_from_1_to_16() {
    check_tag_len::<U1>();
    check_tag_len::<U2>();
    check_tag_len::<U3>();
    check_tag_len::<U4>();
    check_tag_len::<U5>();
    check_tag_len::<U6>();
    check_tag_len::<U7>();
    check_tag_len::<U8>();
    check_tag_len::<U9>();
    check_tag_len::<U10>();
    check_tag_len::<U11>();
    check_tag_len::<U12>();
    check_tag_len::<U13>();
    check_tag_len::<U14>();
    check_tag_len::<U15>();
    check_tag_len::<U16>();
}

#[test]
fn every_bit_flip_of_message_or_tag_is_rejected() {
    let pmac = PmacAes128::new_from_slice(&[15u8; 16]).unwrap();
    for len in [0, 1, 16, 17, 48] {
        let msg = bytes(len, 15);
        let tag = pmac.mac(&msg);
        for bit in 0..8 * len {
            let mut m = msg.clone();
            m[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(pmac.verify_tag(&m, &tag), Err(Error::Authentication));
        }
        for bit in 0..128 {
            let mut t = tag;
            t[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(pmac.verify_tag(&msg, &t), Err(Error::Authentication));
        }
    }
}

// ---- keys ----

#[test]
fn bad_key_lengths_are_typed_errors() {
    for len in [0, 1, 15, 17, 24, 32, 64] {
        let key = vec![0u8; len];
        assert_eq!(
            PmacAes128::new_from_slice(&key).err(),
            Some(Error::InvalidKeyLength {
                expected: 16,
                got: len
            })
        );
        assert!(<PmacAes128 as KeyInit>::new_from_slice(&key).is_err());
    }
    assert!(matches!(
        Pmac::<Aes256>::new_from_slice(&[0u8; 16]),
        Err(Error::InvalidKeyLength {
            expected: 32,
            got: 16
        })
    ));
    assert!(Pmac::<Aes192>::new_from_slice(&[0u8; 24]).is_ok());
}

#[test]
fn key_init_from_a_fixed_key() {
    let key = [16u8; 16];
    let a = <PmacAes128 as KeyInit>::new(&key.into());
    let b = PmacAes128::new_from_slice(&key).unwrap();
    assert_eq!(a.mac(b"same"), b.mac(b"same"));
    // The digest trait's `Mac::verify` takes the full output.
    let tag = b.mac(b"same");
    assert!(digest::Mac::verify(digest::Mac::chain_update(a, b"same"), &tag).is_ok());
}

// ---- both paths: the generic one and the fused AES kernels ----

/// A vector of `vectors/independent/pmac-aes.json` (tags of 16, 12, 8 or 1
/// bytes) with tag size `T`: one-shot, verify, streaming in 7-byte pieces.
fn check_independent<C: BlockCipher128 + KeyInit + Clone + Sync, T: TagSize<Hazmat>>(
    v: &serde_json::Value,
) {
    let name = v["name"].as_str().unwrap_or("?");
    let (key, msg, tag) = (
        common::hexf(v, "key"),
        common::hexf(v, "msg"),
        common::hexf(v, "tag"),
    );
    let pmac = Pmac::<C, T>::new_from_slice(&key).unwrap();
    if v["result"].as_str() == Some("invalid") {
        assert_eq!(
            pmac.verify_tag(&msg, &tag),
            Err(Error::Authentication),
            "{name}"
        );
        return;
    }
    assert_eq!(pmac.mac(&msg).as_slice(), tag, "{name}");
    assert_eq!(pmac.verify_tag(&msg, &tag), Ok(()), "{name}");
    let mut s = pmac.clone();
    for piece in msg.chunks(7) {
        s.update(piece);
    }
    assert_eq!(
        s.finalize().into_bytes().as_slice(),
        tag,
        "{name}: streaming"
    );
}

/// Every vector (`vectors/`, `vectors/independent/`) on each backend: the
/// generic path, the fused kernels on AES-NI and on VAES-512 (where the
/// CPU has them).
#[test]
fn vectors_on_every_backend() {
    let vs = vectors();
    let ind = common::load_independent("pmac-aes");
    assert!(ind.len() >= 32, "{} independent vectors", ind.len());
    // check_vector keys 2 (invalid) or 2 PMACs from bytes (new_from_slice,
    // KeyInit) per vector; check_independent one.
    let keys: u64 = vs.iter().map(|_| 2).sum::<u64>() + ind.len() as u64;
    common::on_each_backend(Some(keys), |_| {
        for v in &vs {
            with_aes!(v.key.len(), C => check_vector::<C>(v));
        }
        for v in &ind {
            let tag_len = common::hexf(v, "tag").len();
            with_aes!(common::hexf(v, "key").len(), C => match tag_len {
                16 => check_independent::<C, U16>(v),
                12 => check_independent::<C, U12>(v),
                8 => check_independent::<C, U8>(v),
                1 => check_independent::<C, U1>(v),
                n => panic!("tag of {n} bytes"),
            });
        }
    });
}

/// Lengths around every gear change of the kernels, streaming from odd
/// block indices, and partial Σ at huge indices, against the reference,
/// on each backend.
#[test]
fn reference_on_every_backend() {
    let key = [0x3cu8; 16];
    let aes = aes128(&key);
    let data = bytes(16 * 5000 + 9, 7);
    common::on_each_backend(Some(1), |b| {
        let pmac = PmacAes128::new_from_slice(&key).unwrap();
        let mut lengths: Vec<usize> = (0..=600).collect();
        lengths.extend((30..=70).map(|k| 16 * k));
        lengths.push(data.len());
        for len in lengths {
            let msg = &data[..len];
            assert_eq!(
                pmac.mac(msg).as_slice(),
                reference(&aes, msg),
                "{b:?} {len}"
            );
            let mut s = pmac.clone();
            for piece in msg.chunks(37) {
                s.update(piece);
            }
            assert_eq!(
                s.finalize().into_bytes().as_slice(),
                reference(&aes, msg),
                "{b:?} {len}"
            );
        }
        for first in [1u64, 63, 64, 1000, (1 << 40) - 70, u64::MAX - 299] {
            let run = &data[..16 * 300];
            let tag = pmac
                .finish(pmac.partial_sigma(first, run).unwrap(), b"z")
                .unwrap();
            let want = xor(&reference_sigma(&aes, first, run), &pad(b"z"));
            assert_eq!(
                tag.as_slice(),
                encrypt_block(&aes, &want),
                "{b:?} first {first}"
            );
        }
    });
}

/// A cipher handed over already keyed and any cipher other than the `aes`
/// crate's keep the generic path.
#[test]
fn from_cipher_and_wrappers_stay_generic() {
    let before = blockmodes::backend::fused_keys();
    let _ = Pmac::<Aes128>::from_cipher(aes128(&[1; 16]));
    let _ = Pmac::<Counting<Aes128>>::new_from_slice(&[1; 16]).unwrap();
    assert_eq!(blockmodes::backend::fused_keys(), before);
}

/// The tag of `msg` under `backend`.
fn mac_on<C: BlockCipher128 + KeyInit>(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    msg: &[u8],
) -> Vec<u8> {
    let prev = blockmodes::backend::force(backend);
    let pmac = Pmac::<C>::new_from_slice(key).unwrap();
    blockmodes::backend::force(prev);
    pmac.mac(msg).to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused and the generic path agree at random lengths 0..5000
    /// bytes, for every key size.
    #[test]
    fn fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 32),
        key_len in prop::sample::select(vec![16usize, 24, 32]),
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
    ) {
        use blockmodes::backend::{Backend, available};
        let key = &key[..key_len];
        with_aes!(key_len, C => {
            let generic = mac_on::<C>(Backend::Generic, key, &msg);
            for &b in available() {
                prop_assert_eq!(&mac_on::<C>(b, key, &msg), &generic, "{:?}", b);
            }
        });
    }
}
