//! pXCBC segment update (issue 14; `pxcbc::hazmat::UpdateSegment`):
//! the result equals a block-by-block model of pXCBC written here straight
//! from `docs/spec/xcbc-xecb.md` (not from the implementation) applied to
//! the updated message under the same r0; it decrypts to the updated
//! message; every other segment's bytes are unchanged; a tampered result
//! and a tampered input are rejected; and the mix-and-match forgery that
//! puts the update under hazmat works.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use blockmodes::pxcbc::hazmat::UpdateSegment;
use blockmodes::pxcbc::{PxcbcXor, PxcbcXorStateful, PxcbcXorStatefulEncryptor};
use blockmodes::{Aes128, Error};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use proptest::prelude::*;

const KEY: [u8; 32] = [
    0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
];

/// f = AES-128 under K (the first half of KEY), f' under K'.
fn f() -> Aes128 {
    Aes128::new_from_slice(&KEY[..16]).unwrap()
}
fn f_prime() -> Aes128 {
    Aes128::new_from_slice(&KEY[16..]).unwrap()
}
fn enc(c: &Aes128, x: u128) -> u128 {
    let mut b = x.to_be_bytes().into();
    c.encrypt_block(&mut b);
    u128::from_be_bytes(b.into())
}

/// pXCBC$ / pXCBC body from the spec, block by block: the plaintext blocks
/// are the length block then the 10*-padded message, cut into segments of
/// `s` blocks; segment k (1-based) is XCBC$-XOR with r0^(k) = r0 + k,
/// z0^(k) = f'(r0^(k)), z_i = f(x_i xor z_{i-1}), y_i = z_i + i r0^(k), and
/// the check block x_{n+1} = z0 xor x_1 xor ... xor x_n. Returns
/// `header || seg_1 || ... || seg_L`.
fn model(header: [u8; 16], r0: u128, msg: &[u8], s: usize) -> Vec<u8> {
    let mut x = vec![msg.len() as u128];
    let mut padded = msg.to_vec();
    padded.push(0x80);
    while !padded.len().is_multiple_of(16) {
        padded.push(0);
    }
    x.extend(
        padded
            .chunks(16)
            .map(|c| u128::from_be_bytes(c.try_into().unwrap())),
    );
    let (f, fp) = (f(), f_prime());
    let mut out = header.to_vec();
    for (k, seg) in x.chunks(s).enumerate() {
        let r0k = r0.wrapping_add(k as u128 + 1);
        let z0 = enc(&fp, r0k);
        let (mut z, mut sum) = (z0, z0);
        let mut blocks: Vec<u128> = seg.to_vec();
        blocks.push(0); // the check block, computed below
        let n = seg.len();
        for (i, xi) in blocks.iter_mut().enumerate() {
            if i == n {
                *xi = sum;
            } else {
                sum ^= *xi;
            }
            z = enc(&f, *xi ^ z);
            let y = z.wrapping_add((i as u128 + 1).wrapping_mul(r0k));
            out.extend_from_slice(&y.to_be_bytes());
        }
    }
    out
}

/// r0 of a pXCBC$ ciphertext: f^-1(y0), with the test's own AES.
fn r0_of(ct: &[u8]) -> u128 {
    let mut b: [u8; 16] = ct[..16].try_into().unwrap();
    let mut ga = b.into();
    f().decrypt_block(&mut ga);
    b.copy_from_slice(&ga);
    u128::from_be_bytes(b)
}

/// Message byte range of segment `k` (1-based) of an `n`-byte message.
fn seg_bytes(n: usize, s: usize, k: usize) -> core::ops::Range<usize> {
    // plaintext block j (0 = length block) holds message bytes 16 (j-1) ..
    let start = (16 * ((k - 1) * s)).saturating_sub(16);
    let end = (16 * (k * s) - 16).min(n);
    start.min(n)..end
}

/// Ciphertext byte range of segment `k` (1-based).
fn seg_ct(ct_len: usize, s: usize, k: usize) -> core::ops::Range<usize> {
    let start = 16 + 16 * (k - 1) * (s + 1);
    start..(start + 16 * (s + 1)).min(ct_len)
}

fn segments(n: usize, s: usize) -> usize {
    (n / 16 + 2).div_ceil(s)
}

fn check_update(msg: &[u8], s: usize, k: usize, new: &[u8]) {
    let p = PxcbcXor::<Aes128>::new_from_slice(&KEY)
        .unwrap()
        .with_segment_blocks(s)
        .unwrap();
    let ct = p.encrypt(msg).unwrap();
    let r0 = r0_of(&ct);
    let header: [u8; 16] = ct[..16].try_into().unwrap();
    assert_eq!(ct, model(header, r0, msg, s), "encryption = model");
    let range = seg_bytes(msg.len(), s, k);
    let mut updated_msg = msg.to_vec();
    updated_msg[range.clone()].copy_from_slice(new);

    let mut updated = ct.clone();
    p.update_segment(&mut updated, k, new).unwrap();
    // The model of the updated message under the same r0.
    assert_eq!(
        updated,
        model(header, r0, &updated_msg, s),
        "update = model"
    );
    assert_eq!(p.decrypt(&updated).unwrap(), updated_msg);
    // Every other segment, and the header, byte for byte.
    let mine = seg_ct(ct.len(), s, k);
    assert_eq!(updated[..mine.start], ct[..mine.start]);
    assert_eq!(updated[mine.end..], ct[mine.end..]);
    // A tampered result is rejected, and so is an update of it.
    for at in [0, mine.start, mine.end - 1, ct.len() - 1] {
        let mut bad = updated.clone();
        bad[at] ^= 0x10;
        assert_eq!(p.decrypt(&bad), Err(Error::Authentication), "flip at {at}");
        if mine.contains(&at) {
            let before = bad.clone();
            assert_eq!(
                p.update_segment(&mut bad, k, new),
                Err(Error::Authentication)
            );
            assert_eq!(bad, before, "a failed update changes nothing");
        }
    }
}

#[test]
fn update_matches_the_model_for_every_segment() {
    for (n, s) in [
        (0usize, 2usize),
        (15, 1),
        (16, 2),
        (100, 4),
        (500, 3),
        (1000, 16),
        (4096, 64),
    ] {
        let msg: Vec<u8> = (0..n).map(|i| (i * 7 + 1) as u8).collect();
        for k in 1..=segments(n, s) {
            let r = seg_bytes(n, s, k);
            let new: Vec<u8> = (0..r.len()).map(|i| (i * 13 + 5) as u8 ^ 0x5a).collect();
            check_update(&msg, s, k, &new);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn update_matches_the_model(
        msg in proptest::collection::vec(any::<u8>(), 0..1500),
        s in 1usize..20,
        pick in any::<usize>(),
        fill in any::<u8>(),
    ) {
        let k = 1 + pick % segments(msg.len(), s);
        let len = seg_bytes(msg.len(), s, k).len();
        check_update(&msg, s, k, &vec![fill; len]);
    }
}

#[test]
fn stateful_receiver_updates_too() {
    let rx = PxcbcXorStateful::<Aes128>::new_from_slice(&KEY)
        .unwrap()
        .with_segment_blocks(4)
        .unwrap();
    let msg = vec![0x33u8; 300];
    let ct = PxcbcXorStatefulEncryptor::new(rx.clone())
        .encrypt(&msg)
        .unwrap();
    // r0 = f(ctr) with the test's own AES.
    let ctr = u128::from_be_bytes(ct[..16].try_into().unwrap());
    let r0 = enc(&f(), ctr);
    let header: [u8; 16] = ct[..16].try_into().unwrap();
    assert_eq!(ct, model(header, r0, &msg, 4));
    let mut updated = ct.clone();
    rx.update_segment(&mut updated, 3, &[0xee; 64]).unwrap();
    let mut new_msg = msg.clone();
    new_msg[seg_bytes(300, 4, 3)].fill(0xee);
    assert_eq!(updated, model(header, r0, &new_msg, 4));
    assert_eq!(rx.decrypt(&updated).unwrap(), new_msg);
}

#[test]
fn bad_arguments_change_nothing() {
    let p = PxcbcXor::<Aes128>::new_from_slice(&KEY)
        .unwrap()
        .with_segment_blocks(4)
        .unwrap();
    let ct = p.encrypt(&[1u8; 100]).unwrap(); // 8 plaintext blocks: 2 segments
    let mut c = ct.clone();
    assert!(matches!(
        p.update_segment(&mut c, 0, &[0; 48]),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        p.update_segment(&mut c, 3, &[0; 48]),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        p.update_segment(&mut c, 1, &[0; 47]),
        Err(Error::InvalidLength(_))
    ));
    assert!(matches!(
        p.update_segment(&mut c, 2, &[0; 5]),
        Err(Error::InvalidLength(_))
    ));
    assert!(matches!(
        p.update_segment(&mut c[..70], 1, &[0; 48]),
        Err(Error::InvalidLength(_))
    ));
    assert!(matches!(
        p.update_segment(&mut c[..32], 1, &[0; 48]),
        Err(Error::CiphertextTooShort { .. })
    ));
    assert_eq!(c, ct);
    // The last segment's plaintext: message bytes 48 .. 100.
    p.update_segment(&mut c, 2, &[2; 52]).unwrap();
    assert_eq!(
        p.decrypt(&c).unwrap(),
        [vec![1u8; 48], vec![2; 52]].concat()
    );
}

/// The attack that puts the update under hazmat: from three versions of one
/// ciphertext (the original, segment 1 updated, segment 3 updated), an
/// observer assembles a fourth that nobody encrypted, and it decrypts.
#[test]
fn mix_and_match_forgery_succeeds() {
    let p = PxcbcXor::<Aes128>::new_from_slice(&KEY)
        .unwrap()
        .with_segment_blocks(4)
        .unwrap();
    let msg = b"pay alice $10 ;; ship to alice's address ;; from: bob, account 1234567 ok".to_vec();
    let v0 = p.encrypt(&msg).unwrap();
    assert_eq!(segments(msg.len(), 4), 2);
    let mut v1 = v0.clone();
    let seg1 = seg_bytes(msg.len(), 4, 1);
    let mut m1 = msg.clone();
    let mut s1 = b"pay mallory $9999 ;; ship to mallory's address".to_vec();
    s1.resize(seg1.len(), b' ');
    m1[seg1.clone()].copy_from_slice(&s1);
    p.update_segment(&mut v1, 1, &m1[seg1.clone()]).unwrap();
    let mut v2 = v0.clone();
    let seg2 = seg_bytes(msg.len(), 4, 2);
    let mut m2 = msg.clone();
    let mut s2 = b" ;; from: bob, account 7654321 ok".to_vec();
    s2.resize(seg2.len(), b' ');
    m2[seg2.clone()].copy_from_slice(&s2);
    p.update_segment(&mut v2, 2, &m2[seg2.clone()]).unwrap();

    // The observer's forgery: segment 1 of v1, segment 2 of v2.
    let cut = seg_ct(v0.len(), 4, 2).start;
    let forged = [&v1[..cut], &v2[cut..]].concat();
    let mut expected = m1[seg1].to_vec();
    expected.extend_from_slice(&m2[seg2]);
    assert_eq!(p.decrypt(&forged).unwrap(), expected);
    assert!(forged != v0 && forged != v1 && forged != v2);
}

/// Cost of updating one 16 KiB segment of a 64 MiB ciphertext against
/// encrypting the whole message again (release: `cargo test --release -p
/// blockmodes --test pxcbc_update -- --ignored --nocapture`).
#[test]
#[ignore]
fn update_cost_64mib() {
    use std::time::Instant;
    let s = 1024; // 16 KiB segments
    let p = PxcbcXor::<Aes128>::new_from_slice(&KEY)
        .unwrap()
        .with_segment_blocks(s)
        .unwrap();
    let msg = vec![0x42u8; 64 << 20];
    let mut ct = p.encrypt(&msg).unwrap();
    let k = segments(msg.len(), s) / 2;
    let new = vec![0x24u8; seg_bytes(msg.len(), s, k).len()];
    let mut update = Vec::new();
    let mut full = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        for _ in 0..20 {
            p.update_segment(&mut ct, k, &new).unwrap();
        }
        update.push(t.elapsed().as_secs_f64() / 20.0);
        let t = Instant::now();
        std::hint::black_box(p.encrypt(&msg).unwrap());
        full.push(t.elapsed().as_secs_f64());
    }
    update.sort_by(f64::total_cmp);
    full.sort_by(f64::total_cmp);
    let (u, e) = (update[3], full[3]);
    println!(
        "pXCBC$ S = 1024 (16 KiB segments), 64 MiB: update one segment {:.1} us, re-encrypt all {:.1} ms, ratio {:.0}x (medians of 7)",
        u * 1e6,
        e * 1e3,
        e / u
    );
}
