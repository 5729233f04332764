//! OCB 1.0 through its public API: the vectors of `vectors/ocb1-aes.json`
//! (one-shot, detached and `aead` trait), block-cipher call counts, round
//! trips, a naive model of the paper's figure 2 for long messages, tampering
//! and bad inputs.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use aead::consts::{U1, U2, U3, U4, U5, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16};
use aead::inout::InOutBuf;
use aead::{Aead, AeadInOut, KeyInit};
use blockmodes::hazmat::gf128::{Block, double_be, half_be, ntz, xor};
// Vectors and tags of every length: the hazmat form (the same code as the
// safe `Ocb1`, which takes 8..=16-byte tags).
use blockmodes::ocb1::hazmat::Ocb1;
use blockmodes::ocb1::{Ocb1Aes128, Ocb1Aes192, Ocb1Aes256};
use blockmodes::oracle::{BlockCipher128Dec, Counting, encrypt_block};
use blockmodes::tag::{Hazmat, TagSize};
use blockmodes::{Aes128, Aes192, Aes256, Error};
use proptest::prelude::*;
use serde_json::Value;

mod common;

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/ocb1-aes.json");

/// Run `$body` with `$T` bound to the tag size of `$len` bytes (1..=16).
macro_rules! with_tag {
    ($len:expr, $T:ident => $body:expr) => {
        with_tag!(@ $len, $T, $body; U1 1, U2 2, U3 3, U4 4, U5 5, U6 6, U7 7, U8 8,
            U9 9, U10 10, U11 11, U12 12, U13 13, U14 14, U15 15, U16 16)
    };
    (@ $len:expr, $T:ident, $body:expr; $($u:ident $n:literal),*) => {
        match $len {
            $($n => {
                type $T = $u;
                $body
            })*
            other => panic!("tag length {other} outside 1..=16"),
        }
    };
}

struct Vector {
    name: String,
    key: Vec<u8>,
    nonce: Vec<u8>,
    msg: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
    valid: bool,
}

fn vectors() -> Vec<Vector> {
    let text = std::fs::read_to_string(VECTORS).expect("vectors/ocb1-aes.json");
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(json["scheme"], "ocb1-aes");
    let hex = |v: &Value, f: &str| hex::decode(v[f].as_str().expect(f)).expect("hex");
    json["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .map(|v| Vector {
            name: v["name"].as_str().unwrap_or("?").to_owned(),
            key: hex(v, "key"),
            nonce: hex(v, "nonce"),
            msg: hex(v, "msg"),
            ct: hex(v, "ct"),
            tag: hex(v, "tag"),
            valid: v["result"].as_str() != Some("invalid"),
        })
        .collect()
}

/// One vector with tag size `T` (the vector's tag truncated to `T` bytes:
/// a shorter tag is the prefix of the full one), through every interface.
fn check_vector<C, T>(v: &Vector)
where
    C: BlockCipher128Dec + KeyInit,
    T: TagSize<Hazmat>,
{
    let name = &v.name;
    let tau = T::USIZE;
    let tag = &v.tag[..tau];
    let sealed = [v.ct.as_slice(), tag].concat();
    let ocb = Ocb1::<C, T>::new_from_slice(&v.key).expect("key");
    if !v.valid {
        assert!(ocb.decrypt_to_vec(&v.nonce, &sealed).is_err(), "{name}");
        return;
    }
    // One-shot.
    assert_eq!(
        ocb.encrypt_to_vec(&v.nonce, &v.msg).unwrap(),
        sealed,
        "{name} encrypt"
    );
    assert_eq!(
        ocb.decrypt_to_vec(&v.nonce, &sealed).unwrap(),
        v.msg,
        "{name} decrypt"
    );
    // Detached, in place.
    let mut buf = v.msg.clone();
    let t = ocb.encrypt_detached(&v.nonce, &mut buf).unwrap();
    assert_eq!(
        (buf.as_slice(), t.as_slice()),
        (v.ct.as_slice(), tag),
        "{name} detached"
    );
    ocb.decrypt_detached(&v.nonce, &mut buf, tag).unwrap();
    assert_eq!(buf, v.msg, "{name} detached decrypt");
    // The aead traits: Aead (Vec), in place with a Vec buffer, and inout
    // with separate buffers.
    let nonce = aead::Nonce::<Ocb1<C, T>>::try_from(v.nonce.as_slice()).unwrap();
    assert_eq!(
        Aead::encrypt(&ocb, &nonce, v.msg.as_slice()).unwrap(),
        sealed,
        "{name}"
    );
    assert_eq!(
        Aead::decrypt(&ocb, &nonce, sealed.as_slice()).unwrap(),
        v.msg,
        "{name}"
    );
    let mut vec_buf = v.msg.clone();
    ocb.encrypt_in_place(&nonce, b"", &mut vec_buf).unwrap();
    assert_eq!(vec_buf, sealed, "{name} encrypt_in_place");
    ocb.decrypt_in_place(&nonce, b"", &mut vec_buf).unwrap();
    assert_eq!(vec_buf, v.msg, "{name} decrypt_in_place");
    let mut out = vec![0u8; v.msg.len()];
    let t = ocb
        .encrypt_inout_detached(&nonce, b"", InOutBuf::new(&v.msg, &mut out).unwrap())
        .unwrap();
    assert_eq!(
        (out.as_slice(), t.as_slice()),
        (v.ct.as_slice(), tag),
        "{name} inout"
    );
    let mut back = vec![0u8; v.ct.len()];
    ocb.decrypt_inout_detached(&nonce, b"", InOutBuf::new(&v.ct, &mut back).unwrap(), &t)
        .unwrap();
    assert_eq!(back, v.msg, "{name} inout decrypt");
}

#[test]
fn vectors_all_interfaces() {
    let vs = vectors();
    assert!(
        vs.len() >= 6,
        "expected the 6 OCB 1.0 vectors, got {}",
        vs.len()
    );
    for v in &vs {
        match v.key.len() {
            16 => check_vector::<Aes128, U16>(v),
            24 => check_vector::<Aes192, U16>(v),
            32 => check_vector::<Aes256, U16>(v),
            n => panic!("{}: key length {n}", v.name),
        }
    }
}

#[test]
fn vectors_every_tag_length() {
    for v in vectors()
        .iter()
        .filter(|v| v.key.len() == 16 && v.tag.len() == 16)
    {
        for tau in 1..=16 {
            with_tag!(tau, T => check_vector::<Aes128, T>(v));
        }
    }
}

#[test]
fn aliases_match_generic_type() {
    let v = &vectors()[1];
    let a = Ocb1Aes128::new_from_slice(&v.key).unwrap();
    assert_eq!(
        a.encrypt_to_vec(&v.nonce, &v.msg).unwrap(),
        [v.ct.clone(), v.tag.clone()].concat()
    );
    // The other aliases key up with their own key sizes.
    assert!(Ocb1Aes192::new_from_slice(&[7; 24]).is_ok());
    assert!(Ocb1Aes256::new_from_slice(&[7; 32]).is_ok());
}

/// OCB 1.0 written out serially from figure 2 of the paper (one block at a
/// time, offsets by the chain `Z[i] = Z[i-1] xor L(ntz(i))`, `L(i)` by
/// repeated doubling): the model for messages longer than the vectors.
fn model_encrypt(key: &[u8; 16], nonce: &Block, msg: &[u8]) -> (Vec<u8>, Block) {
    let aes = Aes128::new(key.into());
    let e = |x: &Block| encrypt_block(&aes, x);
    let l = e(&[0; 16]);
    let l_at = |i: u32| (0..i).fold(l, |acc, _| double_be(&acc));
    let r = e(&xor(nonce, &l));
    let m = msg.len().div_ceil(16).max(1);
    let mut z = xor(&l, &r); // Z[1]
    let mut checksum = [0u8; 16];
    let mut c = Vec::with_capacity(msg.len());
    for i in 1..m {
        if i > 1 {
            z = xor(&z, &l_at(ntz(i as u64)));
        }
        let block: Block = msg[16 * (i - 1)..16 * i].try_into().unwrap();
        checksum = xor(&checksum, &block);
        c.extend_from_slice(&xor(&e(&xor(&block, &z)), &z));
    }
    if m > 1 {
        z = xor(&z, &l_at(ntz(m as u64))); // Z[m]
    }
    let last = &msg[16 * (m - 1)..];
    let len = ((last.len() * 8) as u128).to_be_bytes();
    let y = e(&xor(&xor(&len, &half_be(&l)), &z));
    let mut c_m0 = [0u8; 16];
    for (k, b) in last.iter().enumerate() {
        c_m0[k] = b ^ y[k];
    }
    c.extend_from_slice(&c_m0[..last.len()]);
    checksum = xor(&xor(&checksum, &c_m0), &y);
    (c, e(&xor(&checksum, &z)))
}

#[test]
fn model_agrees_with_vectors() {
    for v in vectors().iter().filter(|v| v.key.len() == 16 && v.valid) {
        let (c, t) = model_encrypt(
            &v.key.clone().try_into().unwrap(),
            &v.nonce.clone().try_into().unwrap(),
            &v.msg,
        );
        assert_eq!((c, t.to_vec()), (v.ct.clone(), v.tag.clone()), "{}", v.name);
    }
}

/// Lengths around the places where the batched implementation changes
/// gear: one block, the 63-block head, 64-block groups, long messages.
fn long_lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=80).collect();
    for blocks in [
        62, 63, 64, 65, 127, 128, 129, 191, 192, 193, 1000, 4096, 4097,
    ] {
        for delta in [-1isize, 1, 15, 16, 17] {
            v.push((16 * blocks as isize + delta) as usize);
        }
        v.push(16 * blocks);
    }
    v.push(1 << 20);
    v.push((1 << 20) + 7);
    v
}

fn message(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn long_messages_match_model() {
    let key = [0x42u8; 16];
    let nonce = [0x24u8; 16];
    let ocb = Ocb1Aes128::new_from_slice(&key).unwrap();
    for len in long_lengths() {
        let msg = message(len, 3);
        let (c, t) = model_encrypt(&key, &nonce, &msg);
        let sealed = ocb.encrypt_to_vec(&nonce, &msg).unwrap();
        assert_eq!(sealed[..len], c[..], "ciphertext, len {len}");
        assert_eq!(sealed[len..], t[..], "tag, len {len}");
        assert_eq!(
            ocb.decrypt_to_vec(&nonce, &sealed).unwrap(),
            msg,
            "len {len}"
        );
    }
}

/// A cipher wrapper whose backend reports a parallel width of `N` blocks:
/// the batches then cut the offset groups at other places (7, 30 as with
/// VAES-256, 100 wider than a group) than the 64 of VAES-512.
mod width {
    use aead::array::ArraySize;
    use cipher::{
        Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
        BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser,
        ParBlocksSizeUser, inout::InOut,
    };
    use core::marker::PhantomData;

    pub struct Width<C, N>(pub C, pub PhantomData<N>);

    impl<C: BlockSizeUser, N> BlockSizeUser for Width<C, N> {
        type BlockSize = C::BlockSize;
    }

    struct Backend<'a, B, N>(&'a B, PhantomData<N>);
    impl<B: BlockSizeUser, N> BlockSizeUser for Backend<'_, B, N> {
        type BlockSize = B::BlockSize;
    }
    impl<B: BlockSizeUser, N: ArraySize> ParBlocksSizeUser for Backend<'_, B, N> {
        type ParBlocksSize = N;
    }
    impl<B: BlockCipherEncBackend, N: ArraySize> BlockCipherEncBackend for Backend<'_, B, N> {
        fn encrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
            self.0.encrypt_block(block);
        }
    }
    impl<B: BlockCipherDecBackend, N: ArraySize> BlockCipherDecBackend for Backend<'_, B, N> {
        fn decrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
            self.0.decrypt_block(block);
        }
    }

    struct Wrap<F, N>(F, PhantomData<N>);
    impl<F: BlockSizeUser, N> BlockSizeUser for Wrap<F, N> {
        type BlockSize = F::BlockSize;
    }
    impl<F: BlockCipherEncClosure, N: ArraySize> BlockCipherEncClosure for Wrap<F, N> {
        fn call<B: BlockCipherEncBackend<BlockSize = Self::BlockSize>>(self, backend: &B) {
            self.0.call(&Backend::<B, N>(backend, PhantomData))
        }
    }
    impl<F: BlockCipherDecClosure, N: ArraySize> BlockCipherDecClosure for Wrap<F, N> {
        fn call<B: BlockCipherDecBackend<BlockSize = Self::BlockSize>>(self, backend: &B) {
            self.0.call(&Backend::<B, N>(backend, PhantomData))
        }
    }

    impl<C: BlockCipherEncrypt, N: ArraySize> BlockCipherEncrypt for Width<C, N> {
        fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = Self::BlockSize>) {
            self.0.encrypt_with_backend(Wrap::<_, N>(f, PhantomData))
        }
    }
    impl<C: BlockCipherDecrypt, N: ArraySize> BlockCipherDecrypt for Width<C, N> {
        fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = Self::BlockSize>) {
            self.0.decrypt_with_backend(Wrap::<_, N>(f, PhantomData))
        }
    }
}

fn check_width<N: aead::array::ArraySize>() {
    let key = [0x42u8; 16];
    let nonce = [0x24u8; 16];
    let cipher = width::Width::<_, N>(Aes128::new(&key.into()), core::marker::PhantomData);
    let ocb = Ocb1::<_, U16>::from_cipher(cipher);
    for len in long_lengths().into_iter().filter(|&l| l < 70_000) {
        let msg = message(len, 9);
        let (c, t) = model_encrypt(&key, &nonce, &msg);
        let sealed = ocb.encrypt_to_vec(&nonce, &msg).unwrap();
        assert_eq!(
            sealed,
            [c, t.to_vec()].concat(),
            "width {}, len {len}",
            N::USIZE
        );
        assert_eq!(
            ocb.decrypt_to_vec(&nonce, &sealed).unwrap(),
            msg,
            "width {}, len {len}",
            N::USIZE
        );
    }
}

#[test]
fn other_backend_widths_match_model() {
    use aead::consts::{U30, U100};
    check_width::<U1>();
    check_width::<U7>();
    check_width::<U30>();
    check_width::<U100>();
}

#[test]
fn call_counts() {
    let (aes, count) = Counting::new(Aes128::new(&[0x11; 16].into()));
    let ocb = Ocb1::<_, U16>::from_cipher(aes);
    assert_eq!(count.get(), 1, "key setup: L = E_K(0)");
    for len in [
        0usize, 1, 15, 16, 17, 32, 33, 48, 100, 1000, 1024, 1025, 4096, 5000,
    ] {
        let expected = len.div_ceil(16) as u64 + 2 + u64::from(len == 0);
        let msg = message(len, 1);
        count.reset();
        let sealed = ocb.encrypt_to_vec(&[5; 16], &msg).unwrap();
        assert_eq!(count.get(), expected, "encrypt, len {len}");
        count.reset();
        assert_eq!(ocb.decrypt_to_vec(&[5; 16], &sealed).unwrap(), msg);
        assert_eq!(count.get(), expected, "decrypt, len {len}");
    }
}

/// Round trip of one message with tag size `T` through every interface,
/// which must all agree.
fn round_trip<T: TagSize<Hazmat>>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    msg: &[u8],
) -> Result<(), TestCaseError> {
    let ocb = Ocb1::<Aes128, T>::new_from_slice(key).unwrap();
    let sealed = ocb.encrypt_to_vec(nonce, msg).unwrap();
    prop_assert_eq!(sealed.len(), msg.len() + T::USIZE);
    prop_assert_eq!(&ocb.decrypt_to_vec(nonce, &sealed).unwrap(), msg);
    let mut buf = msg.to_vec();
    let tag = ocb.encrypt_detached(nonce, &mut buf).unwrap();
    prop_assert_eq!(&buf[..], &sealed[..msg.len()]);
    prop_assert_eq!(tag.as_slice(), &sealed[msg.len()..]);
    ocb.decrypt_detached(nonce, &mut buf, &tag).unwrap();
    prop_assert_eq!(&buf[..], msg);
    let n = aead::Nonce::<Ocb1<Aes128, T>>::from(*nonce);
    prop_assert_eq!(Aead::encrypt(&ocb, &n, msg).unwrap(), sealed.clone());
    prop_assert_eq!(
        Aead::decrypt(&ocb, &n, sealed.as_slice()).unwrap(),
        msg.to_vec()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn round_trips(
        key in any::<[u8; 16]>(),
        nonce in any::<[u8; 16]>(),
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
        tau in 1usize..=16,
    ) {
        with_tag!(tau, T => round_trip::<T>(&key, &nonce, &msg))?;
    }
}

#[test]
fn round_trips_every_tag_length() {
    for tau in 1..=16 {
        for len in [0, 1, 15, 16, 17, 63 * 16, 64 * 16 + 1, 4999] {
            let msg = message(len, tau as u8);
            with_tag!(tau, T => round_trip::<T>(&[tau as u8; 16], &[9; 16], &msg)).unwrap();
        }
    }
}

/// Every single-bit change of C || T is rejected by every interface, and the
/// buffers that received plaintext are zeroed.
#[test]
fn every_bit_flip_rejected_and_wiped() {
    let ocb = Ocb1Aes128::new_from_slice(&[0x5c; 16]).unwrap();
    let nonce = [0x01; 16];
    let n = aead::Nonce::<Ocb1Aes128>::from(nonce);
    for len in [0usize, 1, 15, 16, 17, 48, 100] {
        let msg = message(len, 0x80);
        let sealed = ocb.encrypt_to_vec(&nonce, &msg).unwrap();
        for bit in 0..8 * sealed.len() {
            let mut bad = sealed.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                ocb.decrypt_to_vec(&nonce, &bad),
                Err(Error::Authentication),
                "len {len} bit {bit}"
            );
            let (ct, tag) = bad.split_at(len);
            let mut buf = ct.to_vec();
            assert_eq!(
                ocb.decrypt_detached(&nonce, &mut buf, tag),
                Err(Error::Authentication),
                "len {len} bit {bit}"
            );
            assert!(
                buf.iter().all(|&b| b == 0),
                "detached buffer not wiped: len {len} bit {bit}"
            );
            let tag_arr = aead::Tag::<Ocb1Aes128>::try_from(tag).unwrap();
            let mut buf = ct.to_vec();
            assert!(
                ocb.decrypt_inout_detached(&n, b"", (&mut buf[..]).into(), &tag_arr)
                    .is_err()
            );
            assert!(
                buf.iter().all(|&b| b == 0),
                "inout buffer not wiped: len {len} bit {bit}"
            );
            let mut out = vec![0xffu8; len];
            let io = InOutBuf::new(ct, &mut out).unwrap();
            assert!(ocb.decrypt_inout_detached(&n, b"", io, &tag_arr).is_err());
            assert!(
                out.iter().all(|&b| b == 0),
                "separate output not wiped: len {len} bit {bit}"
            );
            let mut vec_buf = bad.clone();
            assert!(ocb.decrypt_in_place(&n, b"", &mut vec_buf).is_err());
            assert!(
                vec_buf[..len].iter().all(|&b| b == 0),
                "Vec buffer not wiped: len {len} bit {bit}"
            );
        }
        // The untouched ciphertext still opens.
        assert_eq!(ocb.decrypt_to_vec(&nonce, &sealed).unwrap(), msg);
    }
}

#[test]
fn wrong_key_or_nonce_rejected() {
    let ocb = Ocb1Aes128::new_from_slice(&[1; 16]).unwrap();
    let sealed = ocb.encrypt_to_vec(&[2; 16], b"some message here").unwrap();
    let other = Ocb1Aes128::new_from_slice(&[3; 16]).unwrap();
    assert_eq!(
        other.decrypt_to_vec(&[2; 16], &sealed),
        Err(Error::Authentication)
    );
    assert_eq!(
        ocb.decrypt_to_vec(&[4; 16], &sealed),
        Err(Error::Authentication)
    );
}

#[test]
fn bad_inputs_give_typed_errors() {
    // Key lengths.
    for len in [0usize, 1, 15, 17, 24, 32, 64] {
        assert!(matches!(
            Ocb1Aes128::new_from_slice(&vec![0; len]),
            Err(Error::InvalidKeyLength { got, .. }) if got == len
        ));
    }
    assert!(matches!(
        Ocb1Aes256::new_from_slice(&[0; 16]),
        Err(Error::InvalidKeyLength { .. })
    ));
    assert!(matches!(
        Ocb1Aes192::new_from_slice(&[0; 32]),
        Err(Error::InvalidKeyLength { .. })
    ));

    let ocb = Ocb1::<Aes128, U8>::new_from_slice(&[1; 16]).unwrap();
    // Nonce lengths, every interface that takes a slice.
    for len in [0usize, 1, 12, 15, 17, 32] {
        let nonce = vec![0u8; len];
        let want = Error::InvalidNonceLength {
            expected: 16,
            got: len,
        };
        assert_eq!(ocb.encrypt_to_vec(&nonce, b"abc"), Err(want.clone()));
        assert_eq!(ocb.decrypt_to_vec(&nonce, &[0; 20]), Err(want.clone()));
        let mut buf = *b"unchanged";
        assert_eq!(ocb.encrypt_detached(&nonce, &mut buf), Err(want.clone()));
        assert_eq!(ocb.decrypt_detached(&nonce, &mut buf, &[0; 8]), Err(want));
        assert_eq!(&buf, b"unchanged");
    }
    // Ciphertext shorter than the tag.
    for len in 0..8 {
        assert_eq!(
            ocb.decrypt_to_vec(&[0; 16], &vec![0; len]),
            Err(Error::CiphertextTooShort { min: 8, got: len })
        );
    }
    let mut short = vec![0u8; 7];
    assert!(
        ocb.decrypt_in_place(&[0; 16].into(), b"", &mut short)
            .is_err()
    );
    // Tag of the wrong length for the type.
    for len in [0usize, 1, 7, 9, 16, 17] {
        let mut buf = *b"unchanged";
        assert_eq!(
            ocb.decrypt_detached(&[0; 16], &mut buf, &vec![0; len]),
            Err(Error::InvalidTagLength {
                min: 8,
                max: 8,
                got: len
            })
        );
        assert_eq!(&buf, b"unchanged");
    }
}

#[test]
fn associated_data_is_refused() {
    let ocb = Ocb1Aes128::new_from_slice(&[1; 16]).unwrap();
    let nonce = aead::Nonce::<Ocb1Aes128>::from([2; 16]);
    let mut buf = b"message".to_vec();
    assert!(ocb.encrypt_in_place(&nonce, b"header", &mut buf).is_err());
    assert_eq!(buf, b"message", "nothing encrypted");
    let payload = aead::Payload {
        msg: b"message",
        aad: b"header",
    };
    assert!(Aead::encrypt(&ocb, &nonce, payload).is_err());
    let sealed = Aead::encrypt(&ocb, &nonce, &b"message"[..]).unwrap();
    let payload = aead::Payload {
        msg: &sealed,
        aad: b"x",
    };
    assert!(Aead::decrypt(&ocb, &nonce, payload).is_err());
    let mut buf = sealed.clone();
    assert!(ocb.decrypt_in_place(&nonce, b"x", &mut buf).is_err());
    // Empty associated data is the plain scheme.
    assert_eq!(
        Aead::decrypt(&ocb, &nonce, sealed.as_slice()).unwrap(),
        b"message"
    );
}

#[test]
fn key_init_and_clone() {
    let key = [0x33u8; 32];
    let a = <Ocb1Aes256 as KeyInit>::new(&key.into());
    let b = Ocb1Aes256::new_from_slice(&key).unwrap();
    let c = a.clone();
    let sealed = a.encrypt_to_vec(&[0; 16], b"x").unwrap();
    assert_eq!(b.encrypt_to_vec(&[0; 16], b"x").unwrap(), sealed);
    assert_eq!(c.decrypt_to_vec(&[0; 16], &sealed).unwrap(), b"x");
    assert_eq!(format!("{a:?}"), "Ocb1 { .. }", "no key material in Debug");
}

/// The independent Go reference's vectors (`vectors/independent/`).
fn independent_vectors() -> Vec<Vector> {
    common::load_independent("ocb1-aes")
        .iter()
        .map(|v| Vector {
            name: v["name"].as_str().unwrap_or("?").to_owned(),
            key: common::hexf(v, "key"),
            nonce: common::hexf(v, "nonce"),
            msg: common::hexf(v, "msg"),
            ct: common::hexf(v, "ct"),
            tag: common::hexf(v, "tag"),
            valid: v["result"].as_str() != Some("invalid"),
        })
        .collect()
}

/// Every vector (`vectors/` and `vectors/independent/`, each with its own
/// tag length) through every interface, on each backend: the generic path,
/// the fused kernels on AES-NI and on VAES-512 (where the CPU has them).
#[test]
fn vectors_on_every_backend() {
    let vs: Vec<Vector> = vectors().into_iter().chain(independent_vectors()).collect();
    assert!(vs.len() >= 6 + 33, "{} vectors", vs.len());
    common::on_each_backend(Some(vs.len() as u64), |b| {
        for v in &vs {
            with_tag!(v.tag.len(), T => with_aes!(v.key.len(), C => {
                check_vector::<C, T>(v);
            }));
        }
        let _ = b;
    });
}

/// Messages around every length the kernels change gear at (masked
/// registers, 8- and 32-block batches, 64-block offset groups), against
/// the serial model of figure 2, on each backend.
#[test]
fn long_messages_match_model_on_every_backend() {
    let key = [0x5au8; 16];
    let nonce = [0xa5u8; 16];
    let mut lengths: Vec<usize> = (0..=600).collect();
    lengths.extend((37..=70).map(|b| 16 * b));
    lengths.extend([16 * 4097 + 3, 16 * 100_000]);
    common::on_each_backend(Some(1), |b| {
        let ocb = Ocb1Aes128::new_from_slice(&key).unwrap();
        for &len in &lengths {
            let msg = message(len, len as u8);
            let (c, t) = model_encrypt(&key, &nonce, &msg);
            let sealed = ocb.encrypt_to_vec(&nonce, &msg).unwrap();
            assert_eq!(sealed[..len], c[..], "{b:?} ciphertext, len {len}");
            assert_eq!(sealed[len..], t[..], "{b:?} tag, len {len}");
            assert_eq!(
                ocb.decrypt_to_vec(&nonce, &sealed).unwrap(),
                msg,
                "{b:?} len {len}"
            );
        }
    });
}

/// A cipher handed over already keyed (no key bytes) and any cipher other
/// than the `aes` crate's keep the generic path.
#[test]
fn from_cipher_and_wrappers_stay_generic() {
    let before = blockmodes::backend::fused_keys();
    let _ = Ocb1::<Aes128>::from_cipher(Aes128::new(&[1; 16].into()));
    let _ = Ocb1::<Counting<Aes128>>::new_from_slice(&[1; 16]).unwrap();
    assert_eq!(blockmodes::backend::fused_keys(), before);
}

/// The sealed message and the decryption under `backend`.
fn seal_on<C: BlockCipher128Dec + KeyInit>(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    nonce: &[u8; 16],
    msg: &[u8],
) -> (Vec<u8>, Vec<u8>) {
    let prev = blockmodes::backend::force(backend);
    let ocb = Ocb1::<C, U16>::new_from_slice(key).unwrap();
    blockmodes::backend::force(prev);
    let sealed = ocb.encrypt_to_vec(nonce, msg).unwrap();
    let mut garbled = sealed.clone();
    garbled[0] ^= 1; // a wrong tag (or a changed C[1]): both paths refuse it
    assert!(ocb.decrypt_to_vec(nonce, &garbled).is_err());
    (sealed.clone(), ocb.decrypt_to_vec(nonce, &sealed).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused and the generic path agree (encryption, decryption, the
    /// rejection of a changed message) at random lengths 0..5000 bytes.
    #[test]
    fn fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 32),
        key_len in prop::sample::select(vec![16usize, 24, 32]),
        nonce in any::<[u8; 16]>(),
        msg in proptest::collection::vec(any::<u8>(), 0..5000),
    ) {
        use blockmodes::backend::{Backend, available};
        let key = &key[..key_len];
        with_aes!(key_len, C => {
            let generic = seal_on::<C>(Backend::Generic, key, &nonce, &msg);
            prop_assert_eq!(&generic.1, &msg);
            for &b in available() {
                prop_assert_eq!(&seal_on::<C>(b, key, &nonce, &msg), &generic, "{:?}", b);
            }
        });
    }
}

/// OCB 1.0 (16-byte tags) keyed from `key` with the keys set up on
/// `backend` (checked: on the engine unless `backend` is the generic one).
fn ocb_on<C: BlockCipher128Dec + KeyInit>(
    backend: blockmodes::backend::Backend,
    key: &[u8],
) -> blockmodes::ocb1::Ocb1<C> {
    use blockmodes::backend::{Backend, force, fused_keys};
    let prev = force(backend);
    let before = fused_keys();
    let ocb = blockmodes::ocb1::Ocb1::<C>::new_from_slice(key).unwrap();
    let fused = fused_keys() - before;
    force(prev);
    let want = u64::from(backend != Backend::Generic);
    assert_eq!(fused, want, "{backend:?}: keys on the fused path");
    ocb
}

/// The in-place calls (`encrypt_detached`/`decrypt_detached` on a slice,
/// the `aead` in-place `InOutBuf` and `Vec` calls) at every length
/// 0..=600 give what the out-of-place calls (`encrypt_to_vec`, `InOutBuf`
/// over two buffers) give and what the generic path gives, on every tier,
/// each AES key size.
#[test]
fn in_place_matches_out_of_place_and_generic() {
    fn check<C: BlockCipher128Dec + KeyInit>(key: &[u8]) {
        use blockmodes::backend::{Backend, available};
        let nonce = [0x3cu8; 16];
        let n = aead::Nonce::<Ocb1Aes128>::from(nonce);
        let generic = ocb_on::<C>(Backend::Generic, key);
        for &b in available() {
            let ocb = ocb_on::<C>(b, key);
            for len in 0..=600usize {
                let msg = message(len, len as u8 ^ 0x5a);
                let want = generic.encrypt_to_vec(&nonce, &msg).unwrap();
                let sealed = ocb.encrypt_to_vec(&nonce, &msg).unwrap();
                assert_eq!(sealed, want, "{b:?} to_vec, len {len}");
                let (want_ct, want_tag) = want.split_at(len);

                // Slice in place.
                let mut buf = msg.clone();
                let tag = ocb.encrypt_detached(&nonce, &mut buf).unwrap();
                assert_eq!(buf, want_ct, "{b:?} encrypt_detached, len {len}");
                assert_eq!(tag[..], want_tag[..], "{b:?} detached tag, len {len}");
                ocb.decrypt_detached(&nonce, &mut buf, &tag).unwrap();
                assert_eq!(buf, msg, "{b:?} decrypt_detached, len {len}");

                // `aead`: in place through `InOutBuf`, then out of place.
                let mut buf = msg.clone();
                let tag = ocb
                    .encrypt_inout_detached(&n, b"", (&mut buf[..]).into())
                    .unwrap();
                assert_eq!(buf, want_ct, "{b:?} inout in place, len {len}");
                assert_eq!(tag[..], want_tag[..], "{b:?} inout tag, len {len}");
                ocb.decrypt_inout_detached(&n, b"", (&mut buf[..]).into(), &tag)
                    .unwrap();
                assert_eq!(buf, msg, "{b:?} inout decrypt in place, len {len}");
                let mut out = vec![0xa5u8; len];
                let t2 = ocb
                    .encrypt_inout_detached(&n, b"", InOutBuf::new(&msg, &mut out).unwrap())
                    .unwrap();
                assert_eq!(
                    (&out[..], &t2[..]),
                    (want_ct, want_tag),
                    "{b:?} inout b2b, len {len}"
                );
                let mut back = vec![0x5au8; len];
                ocb.decrypt_inout_detached(&n, b"", InOutBuf::new(&out, &mut back).unwrap(), &t2)
                    .unwrap();
                assert_eq!(back, msg, "{b:?} inout b2b decrypt, len {len}");

                // `aead`: a `Vec` in place.
                let mut v = msg.clone();
                ocb.encrypt_in_place(&n, b"", &mut v).unwrap();
                assert_eq!(v, want, "{b:?} Vec in place, len {len}");
                ocb.decrypt_in_place(&n, b"", &mut v).unwrap();
                assert_eq!(v, msg, "{b:?} Vec decrypt in place, len {len}");
            }
        }
    }
    check::<Aes128>(&[0x11; 16]);
    check::<Aes192>(&[0x22; 24]);
    check::<Aes256>(&[0x33; 32]);
}

/// A decryption under a wrong tag leaves every byte of its output zeroed:
/// the buffer decrypted in place (slice, `InOutBuf`, `Vec`: the partial
/// last block too) and a separate output, at every length 0..=80 and a few
/// long ones, on every tier. (The ciphertexts are genuine; only the tag's
/// last bit is changed, so everything but the tag check succeeds.)
#[test]
fn bad_tag_wipes_the_whole_output_on_every_tier() {
    let key = [0x6bu8; 16];
    let nonce = [0x0fu8; 16];
    let n = aead::Nonce::<Ocb1Aes128>::from(nonce);
    let mut lengths: Vec<usize> = (0..=80).collect();
    lengths.extend([16 * 33 + 7, 16 * 64, 16 * 65 + 1, 4099]);
    common::on_each_backend(Some(1), |b| {
        let ocb = Ocb1Aes128::new_from_slice(&key).unwrap();
        for &len in &lengths {
            let msg = message(len, 0xc3);
            let mut sealed = ocb.encrypt_to_vec(&nonce, &msg).unwrap();
            sealed[len + 15] ^= 1;
            let (ct, tag) = sealed.split_at(len);
            let tag_arr = aead::Tag::<Ocb1Aes128>::try_from(tag).unwrap();
            let zero = |v: &[u8]| v.iter().all(|&x| x == 0);

            let mut buf = ct.to_vec();
            let r = ocb.decrypt_detached(&nonce, &mut buf, tag);
            assert_eq!(r, Err(Error::Authentication), "{b:?} len {len}");
            assert!(zero(&buf), "{b:?} detached not wiped, len {len}");

            let mut buf = ct.to_vec();
            let r = ocb.decrypt_inout_detached(&n, b"", (&mut buf[..]).into(), &tag_arr);
            assert!(r.is_err(), "{b:?} len {len}");
            assert!(zero(&buf), "{b:?} inout in place not wiped, len {len}");

            let mut out = vec![0xffu8; len];
            let io = InOutBuf::new(ct, &mut out).unwrap();
            assert!(ocb.decrypt_inout_detached(&n, b"", io, &tag_arr).is_err());
            assert!(zero(&out), "{b:?} separate output not wiped, len {len}");

            let mut v = sealed.clone();
            assert!(ocb.decrypt_in_place(&n, b"", &mut v).is_err());
            assert!(
                zero(&v[..len.min(v.len())]),
                "{b:?} Vec not wiped, len {len}"
            );

            assert_eq!(
                ocb.decrypt_to_vec(&nonce, &sealed),
                Err(Error::Authentication),
                "{b:?} len {len}"
            );
        }
    });
}
