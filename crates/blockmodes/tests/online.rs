//! On-line OCB 1.0 and CWC (issue 14): for any split of a message into
//! pieces, the concatenated output of the encryptor and its tag equal the
//! one-shot `encrypt` (whose own vectors come from the papers and the
//! independent Go reference, tests/ocb1.rs and tests/cwc.rs); the hazmat
//! decryptors round-trip and reject a wrong tag.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use aead::consts::{U8, U16};
use blockmodes::cwc::{Cwc, CwcAes128, hazmat::CwcDecryptor};
use blockmodes::ocb1::{Ocb1, Ocb1Aes128, hazmat::Ocb1Decryptor};
use blockmodes::{Aes128, Aes256, Error};
use proptest::prelude::*;

/// The pieces of `msg` cut at the sorted, deduplicated `cuts` (each taken
/// modulo `msg.len() + 1`).
fn pieces<'a>(msg: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (msg.len() + 1)).collect();
    at.push(0);
    at.push(msg.len());
    at.sort_unstable();
    at.windows(2).map(|w| &msg[w[0]..w[1]]).collect()
}

fn ocb_online<T: blockmodes::tag::TagSize>(
    ocb: &Ocb1<impl blockmodes::oracle::BlockCipher128, T>,
    nonce: &[u8],
    parts: &[&[u8]],
) -> Vec<u8> {
    let mut enc = ocb.encryptor(nonce).unwrap();
    let mut out = Vec::new();
    for p in parts {
        let before = out.len();
        enc.update(p, &mut out);
        assert!(out.len() >= before);
    }
    let tag = enc.finish(&mut out);
    out.extend_from_slice(&tag);
    out
}

fn ocb_online_open(
    ocb: &Ocb1Aes128,
    nonce: &[u8],
    ct: &[u8],
    tag: &[u8],
    parts: &[usize],
) -> Result<Vec<u8>, Error> {
    let mut dec = Ocb1Decryptor::new(ocb, nonce).unwrap();
    let mut out = Vec::new();
    for p in pieces(ct, parts) {
        dec.update(p, &mut out);
    }
    dec.finish(tag, &mut out).map(|()| out)
}

fn cwc_online<C: blockmodes::oracle::BlockCipher128, T: blockmodes::tag::TagSize>(
    cwc: &Cwc<C, T>,
    nonce: &[u8],
    ad: &[u8],
    parts: &[&[u8]],
) -> Vec<u8> {
    let mut enc = cwc.encryptor(nonce, ad).unwrap();
    let mut out = Vec::new();
    let mut fed = 0;
    for p in parts {
        enc.update(p, &mut out).unwrap();
        fed += p.len();
        assert_eq!(out.len(), fed, "CWC releases every byte at once");
    }
    let tag = enc.finish(&mut out);
    out.extend_from_slice(&tag);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn ocb1_split_equals_one_shot(
        key in any::<[u8; 16]>(),
        nonce in any::<[u8; 16]>(),
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let ocb = Ocb1Aes128::new_from_slice(&key).unwrap();
        let parts = pieces(&msg, &cuts);
        let one_shot = ocb.encrypt_to_vec(&nonce, &msg).unwrap();
        prop_assert_eq!(&ocb_online(&ocb, &nonce, &parts), &one_shot);
        // The generic block engine (keyed through from_cipher: never the
        // fused AES kernels that key bytes select on x86-64 with AES-NI).
        let generic = Ocb1::<Aes128, U16>::from_cipher(cipher::KeyInit::new(&key.into()));
        prop_assert_eq!(&ocb_online(&generic, &nonce, &parts), &one_shot);
        // Short tags and another key size: the same equality.
        let ocb8 = Ocb1::<Aes256, U8>::new_from_slice(&[key, key].concat()).unwrap();
        prop_assert_eq!(ocb_online(&ocb8, &nonce, &parts), ocb8.encrypt_to_vec(&nonce, &msg).unwrap());
        // The hazmat decryptor, split elsewhere, gives the message back.
        let (ct, tag) = one_shot.split_at(msg.len());
        let back = ocb_online_open(&ocb, &nonce, ct, tag, &cuts.iter().map(|c| c / 3).collect::<Vec<_>>());
        prop_assert_eq!(back.unwrap(), msg);
    }

    #[test]
    fn ocb1_online_wrong_tag_fails(
        nonce in any::<[u8; 16]>(),
        msg in proptest::collection::vec(any::<u8>(), 0..600),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
        flip in any::<usize>(),
    ) {
        let ocb = Ocb1Aes128::new_from_slice(&[0x5a; 16]).unwrap();
        let mut sealed = ocb.encrypt_to_vec(&nonce, &msg).unwrap();
        let bit = flip % (8 * sealed.len());
        sealed[bit / 8] ^= 1 << (bit % 8); // in C or in T
        let (ct, tag) = sealed.split_at(msg.len());
        prop_assert_eq!(ocb_online_open(&ocb, &nonce, ct, tag, &cuts), Err(Error::Authentication));
    }

    #[test]
    fn cwc_split_equals_one_shot(
        key in any::<[u8; 16]>(),
        nonce in any::<[u8; 11]>(),
        ad in proptest::collection::vec(any::<u8>(), 0..100),
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let cwc = CwcAes128::new_from_slice(&key).unwrap();
        let parts = pieces(&msg, &cuts);
        let one_shot = cwc.encrypt_to_vec(&nonce, &ad, &msg).unwrap();
        prop_assert_eq!(&cwc_online(&cwc, &nonce, &ad, &parts), &one_shot);
        prop_assert_eq!(&cwc_online(&cwc.clone().with_portable_hash(), &nonce, &ad, &parts), &one_shot);
        let cwc8 = Cwc::<Aes256, U8>::new_from_slice(&[key, key].concat()).unwrap();
        prop_assert_eq!(cwc_online(&cwc8, &nonce, &ad, &parts), cwc8.encrypt_to_vec(&nonce, &ad, &msg).unwrap());
        // The hazmat decryptor round trip, split elsewhere.
        let (ct, tag) = one_shot.split_at(msg.len());
        let mut dec = CwcDecryptor::new(&cwc, &nonce, &ad).unwrap();
        let mut back = Vec::new();
        for p in pieces(ct, &cuts.iter().map(|c| c / 3).collect::<Vec<_>>()) {
            dec.update(p, &mut back).unwrap();
        }
        dec.finish(tag, &mut back).unwrap();
        prop_assert_eq!(back, msg);
    }

    #[test]
    fn cwc_online_wrong_tag_fails(
        nonce in any::<[u8; 11]>(),
        msg in proptest::collection::vec(any::<u8>(), 0..600),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
        flip in any::<usize>(),
    ) {
        let cwc = CwcAes128::new_from_slice(&[0x5a; 16]).unwrap();
        let mut sealed = cwc.encrypt_to_vec(&nonce, b"ad", &msg).unwrap();
        let bit = flip % (8 * sealed.len());
        sealed[bit / 8] ^= 1 << (bit % 8);
        let (ct, tag) = sealed.split_at(msg.len());
        let mut dec = CwcDecryptor::new(&cwc, &nonce, b"ad").unwrap();
        let mut back = Vec::new();
        for p in pieces(ct, &cuts) {
            dec.update(p, &mut back).unwrap();
        }
        prop_assert_eq!(dec.finish(tag, &mut back), Err(Error::Authentication));
    }
}

/// Long messages across the 64-block offset groups, the 16 KiB passes of
/// the OCB encryptor and CWC's 16 KiB segments and hash strides, with
/// pieces of awkward sizes.
#[test]
fn long_messages_every_piece_size() {
    let msg: Vec<u8> = (0..200_000u32).map(|i| (i * 31 + 7) as u8).collect();
    let ocb = Ocb1::<Aes128, U16>::new_from_slice(&[9; 16]).unwrap();
    let cwc = CwcAes128::new_from_slice(&[9; 16]).unwrap();
    let ocb_ref = ocb.encrypt_to_vec(&[1; 16], &msg).unwrap();
    let generic = Ocb1::<Aes128, U16>::from_cipher(cipher::KeyInit::new(&[9; 16].into()));
    let cwc_ref = cwc.encrypt_to_vec(&[1; 11], b"header", &msg).unwrap();
    for size in [
        1usize, 12, 15, 16, 17, 768, 1008, 1024, 4095, 16384, 32768, 40000, 65536, 200_000,
    ] {
        let parts: Vec<&[u8]> = msg.chunks(size).collect();
        assert_eq!(
            ocb_online(&ocb, &[1; 16], &parts),
            ocb_ref,
            "OCB pieces of {size}"
        );
        assert_eq!(
            ocb_online(&generic, &[1; 16], &parts),
            ocb_ref,
            "generic OCB pieces of {size}"
        );
        assert_eq!(
            cwc_online(&cwc, &[1; 11], b"header", &parts),
            cwc_ref,
            "CWC pieces of {size}"
        );
        let (ct, tag) = ocb_ref.split_at(msg.len());
        let mut offs: Vec<usize> = (size..msg.len()).step_by(size).collect();
        offs.push(0);
        assert_eq!(
            ocb_online_open(&ocb, &[1; 16], ct, tag, &offs).unwrap(),
            msg
        );
        assert_eq!(
            ocb_online_open(&generic, &[1; 16], ct, tag, &offs).unwrap(),
            msg
        );
    }
}

#[test]
fn bad_parameters_are_typed_errors() {
    let ocb = Ocb1Aes128::new_from_slice(&[0; 16]).unwrap();
    assert!(matches!(
        ocb.encryptor(&[0; 17]),
        Err(Error::InvalidNonceLength { .. })
    ));
    let mut dec = Ocb1Decryptor::new(&ocb, &[0; 16]).unwrap();
    let mut out = Vec::new();
    dec.update(b"x", &mut out);
    assert!(matches!(
        dec.finish(&[0; 15], &mut out),
        Err(Error::InvalidTagLength { .. })
    ));
    let cwc = CwcAes128::new_from_slice(&[0; 16]).unwrap();
    assert!(matches!(
        cwc.encryptor(&[0; 12], b""),
        Err(Error::InvalidNonceLength { .. })
    ));
    let dec = CwcDecryptor::new(&cwc, &[0; 11], b"").unwrap();
    assert!(matches!(
        dec.finish(&[0; 3], &mut out),
        Err(Error::InvalidTagLength { .. })
    ));
}

/// The on-line CWC encryptor and hazmat decryptor on each AES backend (the
/// fused kernels run its counter-mode batches): any split of messages
/// around the kernels' edges gives the generic one-shot's `sigma || tau`,
/// and decrypts.
#[test]
fn cwc_online_on_every_backend() {
    use blockmodes::backend::{Backend, available, force};
    let key = [0x77u8; 16];
    let nonce = [0x12u8; 11];
    let data: Vec<u8> = (0..40_000u32).map(|i| (i * 131 + 5) as u8).collect();
    let prev = force(Backend::Generic);
    let generic = CwcAes128::new_from_slice(&key).unwrap();
    force(prev);
    for &b in available() {
        let prev = force(b);
        let cwc = CwcAes128::new_from_slice(&key).unwrap();
        force(prev);
        for len in [
            0usize, 1, 15, 16, 17, 100, 127, 128, 129, 767, 768, 1536, 5000, 16_385, 40_000,
        ] {
            let (msg, ad) = (&data[..len], &data[..len % 23]);
            let one_shot = generic.encrypt_to_vec(&nonce, ad, msg).unwrap();
            for cuts in [
                vec![],
                vec![1, 17, 500],
                vec![16, 4096, 16_368],
                vec![767, 768, 769, 20_000],
            ] {
                let parts = pieces(msg, &cuts);
                assert_eq!(
                    cwc_online(&cwc, &nonce, ad, &parts),
                    one_shot,
                    "{b:?} len {len} cuts {cuts:?}"
                );
                let (ct, tag) = one_shot.split_at(len);
                let mut dec = CwcDecryptor::new(&cwc, &nonce, ad).unwrap();
                let mut back = Vec::new();
                for p in pieces(ct, &cuts) {
                    dec.update(p, &mut back).unwrap();
                }
                dec.finish(tag, &mut back).unwrap();
                assert_eq!(back, msg, "{b:?} len {len}");
            }
        }
    }
}
