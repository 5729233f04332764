//! Differential: the fused AES kernels (blockmodes' own AES-NI, VAES-256 and
//! VAES-512 rounds with the modes' whitening inside them) against the generic path
//! (the `aes` crate behind the `cipher` traits), for every mode on the
//! fused path, every AES key size and every tier this CPU runs
//! (`backend::available()`: generic, aesni, vaes256, vaes512): the
//! outputs, tags and verdicts are identical. Modes: OCB 1.0, PMAC, XEX,
//! XECB$-MAC, XCBC$-XOR and pXCBC$-XOR (r0 from a seeded generator, the
//! same on every path), CWC (one-shot, in place, on-line), EME (one unit
//! and runs of units), EME2 (with associated data) and EtE (AES-128). On a
//! CPU without AES-NI only
//! the generic path exists and the target checks it against itself.
#![no_main]
use blockmodes::backend::{self, Backend};
use blockmodes::ocb1::Ocb1;
use blockmodes::oracle::BlockCipher128Dec;
use blockmodes::pmac::Pmac;
use blockmodes::sector::DataUnitCipher;
use blockmodes::xex::Xex;
use blockmodes::{Aes128, Aes192, Aes256};
use blockmodes_fuzz::Input;
use libfuzzer_sys::fuzz_target;

/// The AES types: a 128-bit block cipher keyed from bytes.
trait Aes: BlockCipher128Dec + cipher::KeyInit + Clone + Sync {}
impl<C: BlockCipher128Dec + cipher::KeyInit + Clone + Sync> Aes for C {}

/// What one back end produced for one input: every output in order.
type Outputs = Vec<Vec<u8>>;

/// Key objects set up while `b` is forced (the choice is made at key setup).
fn keyed<K>(b: Backend, make: impl FnOnce() -> K) -> K {
    let prev = backend::force(b);
    let k = make();
    backend::force(prev);
    k
}

/// OCB 1.0: one-shot encryption and decryption (of the sealing and of the
/// arbitrary bytes), the on-line encryptor split at `cut`, and a tampered
/// sealing's verdict.
fn ocb1<C: Aes>(b: Backend, key: &[u8], nonce: &[u8; 16], msg: &[u8], cut: usize) -> Outputs {
    let ocb = keyed(b, || Ocb1::<C>::new_from_slice(key).unwrap());
    let sealed = ocb.encrypt_to_vec(nonce, msg).unwrap();
    assert_eq!(
        ocb.decrypt_to_vec(nonce, &sealed).unwrap(),
        msg,
        "{b:?}: round trip"
    );
    let mut out = vec![sealed.clone()];
    out.push(match ocb.decrypt_to_vec(nonce, msg) {
        Ok(pt) => pt,
        Err(e) => format!("{e:?}").into_bytes(),
    });
    let mut online = Vec::new();
    let mut enc = ocb.encryptor(nonce).unwrap();
    let cut = cut.min(msg.len());
    enc.update(&msg[..cut], &mut online);
    enc.update(&msg[cut..], &mut online);
    let tag = enc.finish(&mut online);
    online.extend_from_slice(&tag);
    assert_eq!(online, sealed, "{b:?}: on-line and one-shot differ");
    let mut bad = sealed;
    let last = bad.len() - 1;
    bad[cut % (last + 1)] ^= 0x80;
    assert!(
        ocb.decrypt_to_vec(nonce, &bad).is_err(),
        "{b:?}: tampered accepted"
    );
    out
}

/// PMAC: the one-shot tag, the streaming tag and the verdict on `msg`'s
/// first 16 bytes taken as a tag.
fn pmac<C: Aes>(b: Backend, key: &[u8], msg: &[u8], cut: usize) -> Outputs {
    let p = keyed(b, || Pmac::<C>::new_from_slice(key).unwrap());
    let tag = p.mac(msg);
    let cut = cut.min(msg.len());
    let mut s = p.clone();
    s.update(&msg[..cut]);
    s.update(&msg[cut..]);
    assert_eq!(
        s.finalize().into_bytes(),
        tag,
        "{b:?}: streaming and one-shot differ"
    );
    assert!(p.verify_tag(msg, &tag).is_ok(), "{b:?}: own tag refused");
    let guess = &msg[..msg.len().min(16)];
    let verdict = p.verify_tag(msg, guess).is_ok();
    vec![tag.to_vec(), vec![u8::from(verdict)]]
}

/// XEX: data units of `unit` bytes from unit `first`, and the whole blocks
/// as one run under the tweak (N, i), both directions; each output
/// followed by its verdict (refused calls must be refused on every path).
fn xex<C: Aes>(
    b: Backend,
    key: &[u8],
    n: &[u8; 16],
    first: u64,
    unit: usize,
    msg: &[u8],
) -> Outputs {
    let x = keyed(b, || Xex::<C>::new_from_slice(key).unwrap());
    let mut out = Vec::new();
    let units = msg.len() / unit * unit;
    for enc in [true, false] {
        let mut u = msg[..units].to_vec();
        if units > 0 {
            let r = if enc {
                x.encrypt_units(first.into(), unit, &mut u)
            } else {
                x.decrypt_units(first.into(), unit, &mut u)
            };
            u.extend_from_slice(format!("{r:?}").as_bytes());
        }
        out.push(u);
        let mut run = msg[..msg.len() / 16 * 16].to_vec();
        let r = if enc {
            x.encrypt_blocks(n, first, &mut run)
        } else {
            x.decrypt_blocks(n, first, &mut run)
        };
        run.extend_from_slice(format!("{r:?}").as_bytes());
        out.push(run);
    }
    out
}

/// The fuzzer's r0 source: a fixed splitmix64 stream from the input, the
/// same on every path (the integration tests' `SeededRng`).
#[path = "../../crates/blockmodes/tests/common/seeded.rs"]
mod seeded;
use seeded::SeededRng as Seeded;

/// Any result as bytes (an error as its debug text), for comparing paths.
fn bytes<T: AsRef<[u8]>>(r: Result<T, blockmodes::Error>) -> Vec<u8> {
    match r {
        Ok(v) => v.as_ref().to_vec(),
        Err(e) => format!("{e:?}").into_bytes(),
    }
}

/// The Gligor–Donescu modes (XECB under `key`; XCBC and pXCBC two-key, K = K' = `key`):
/// XECB$-MAC's tag and the verdicts on it and on `msg`'s head taken as a
/// tag; XCBC$-XOR's and pXCBC$-XOR's (S = 1 + `seg` mod 40) encryption,
/// its decryption, and the decryption of the arbitrary bytes `msg`.
fn gligor_donescu<C: Aes>(b: Backend, key: &[u8], seed: u64, seg: usize, msg: &[u8]) -> Outputs {
    use blockmodes::pxcbc::PxcbcXor;
    use blockmodes::xcbc::XcbcXor;
    use blockmodes::xecb::XecbMac;
    let two = [key, key].concat();
    let (mac, xcbc, pxcbc) = keyed(b, || {
        (
            XecbMac::<C>::new_from_slice(key).unwrap(),
            XcbcXor::<C>::new_from_slice(&two).unwrap(),
            PxcbcXor::<C>::new_from_slice(&two)
                .unwrap()
                .with_segment_blocks(1 + seg % 40)
                .unwrap(),
        )
    });
    let tag = mac.mac_with_rng(&mut Seeded(seed), msg).unwrap();
    assert!(
        mac.verify_tag(msg, &tag).is_ok(),
        "{b:?}: own XECB tag refused"
    );
    let guess = &msg[..msg.len().min(32)];
    let mut out = vec![
        tag.to_vec(),
        bytes(mac.verify_tag(msg, guess).map(|()| [1u8])),
    ];
    let ct = xcbc.encrypt_with_rng(&mut Seeded(seed), msg).unwrap();
    assert_eq!(xcbc.decrypt(&ct).unwrap(), msg, "{b:?}: XCBC round trip");
    out.extend([ct, bytes(xcbc.decrypt(msg))]);
    let ct = pxcbc.encrypt_with_rng(&mut Seeded(seed), msg).unwrap();
    assert_eq!(pxcbc.decrypt(&ct).unwrap(), msg, "{b:?}: pXCBC round trip");
    out.extend([ct, bytes(pxcbc.decrypt(msg))]);
    out
}

/// CWC: the sealing of `msg` under the associated data `ad`, its
/// decryption, the decryption of the arbitrary bytes `msg`, the sealing in
/// place (detached tag) and by the on-line encryptor split at `cut`.
fn cwc<C: Aes>(b: Backend, key: &[u8], nonce: &[u8], ad: &[u8], msg: &[u8], cut: usize) -> Outputs {
    use blockmodes::cwc::Cwc;
    let cwc = keyed(b, || Cwc::<C>::new_from_slice(key).unwrap());
    let sealed = cwc.encrypt_to_vec(nonce, ad, msg).unwrap();
    assert_eq!(
        cwc.decrypt_to_vec(nonce, ad, &sealed).unwrap(),
        msg,
        "{b:?}: CWC round trip"
    );
    let mut out = vec![sealed.clone(), bytes(cwc.decrypt_to_vec(nonce, ad, msg))];
    let mut inplace = msg.to_vec();
    let tag = cwc.encrypt_detached(nonce, ad, &mut inplace).unwrap();
    inplace.extend_from_slice(&tag);
    assert_eq!(inplace, sealed, "{b:?}: in place and one-shot differ");
    let mut online = Vec::new();
    let mut enc = cwc.encryptor(nonce, ad).unwrap();
    let cut = cut.min(msg.len());
    enc.update(&msg[..cut], &mut online).unwrap();
    enc.update(&msg[cut..], &mut online).unwrap();
    let tag = enc.finish(&mut online);
    online.extend_from_slice(&tag);
    assert_eq!(online, sealed, "{b:?}: on-line and one-shot differ");
    out.push(online);
    out
}

/// The wide-block ciphers: EME on `msg` as one unit (16..2048 bytes) and as
/// units of `unit` bytes, EME2 (key K_AD ‖ K_ECB ‖ K) with `ad`, EtE over
/// AES-128 when `key` is 16 bytes; both directions, refusals included.
fn wide<C: Aes>(
    b: Backend,
    key: &[u8],
    tweak: &[u8; 16],
    ad: &[u8],
    unit: usize,
    msg: &[u8],
) -> Outputs {
    use blockmodes::eme::Eme;
    use blockmodes::eme2::Eme2;
    use blockmodes::ete::EteEmeAes128;
    let k2 = [&tweak[..], &tweak[..], key].concat();
    let (eme, eme2, ete) = keyed(b, || {
        (
            Eme::<C>::new_from_slice(key).unwrap(),
            Eme2::<C>::new_from_slice(&k2).unwrap(),
            (key.len() == 16).then(|| EteEmeAes128::new_from_slice(key).unwrap()),
        )
    });
    let one = &msg[..msg.len().min(2048)];
    let units = &msg[..msg.len() / unit * unit];
    let mut out = Vec::new();
    for enc in [true, false] {
        let mut a = one.to_vec();
        let r = if enc {
            eme.encrypt(tweak, &mut a)
        } else {
            eme.decrypt(tweak, &mut a)
        };
        a.extend_from_slice(format!("{r:?}").as_bytes());
        let mut u = units.to_vec();
        if !u.is_empty() {
            let first = u64::from_le_bytes(tweak[..8].try_into().unwrap()).into();
            let r = if enc {
                eme.encrypt_units(first, unit, &mut u)
            } else {
                eme.decrypt_units(first, unit, &mut u)
            };
            u.extend_from_slice(format!("{r:?}").as_bytes());
        }
        let mut w = msg.to_vec();
        let r = if enc {
            eme2.encrypt(ad, &mut w)
        } else {
            eme2.decrypt(ad, &mut w)
        };
        w.extend_from_slice(format!("{r:?}").as_bytes());
        out.extend([a, u, w]);
        if let Some(ete) = &ete {
            let mut e = one.to_vec();
            let r = if enc {
                ete.encrypt(tweak, &mut e)
            } else {
                ete.decrypt(tweak, &mut e)
            };
            e.extend_from_slice(format!("{r:?}").as_bytes());
            out.push(e);
        }
    }
    out
}

fn all<C: Aes>(inp: &mut Input, key: &[u8]) -> Vec<(Backend, Outputs)> {
    let mode = inp.byte() % 6;
    let nonce: [u8; 16] = inp.array();
    let cut = inp.u16() as usize;
    let first = u64::from(inp.u16()) << (inp.byte() % 49);
    let unit = 16 * (1 + inp.byte() as usize % 32);
    let ad_len = inp.byte() as usize;
    let rest = inp.rest();
    let (ad, msg) = rest.split_at(ad_len.min(rest.len()));
    backend::available()
        .iter()
        .map(|&b| {
            let out = match mode {
                0 => ocb1::<C>(b, key, &nonce, msg, cut),
                1 => pmac::<C>(b, key, msg, cut),
                3 => gligor_donescu::<C>(b, key, first, unit, msg),
                4 => cwc::<C>(b, key, &nonce[..11], ad, msg, cut),
                5 => wide::<C>(b, key, &nonce, ad, unit, msg),
                _ => xex::<C>(b, key, &nonce, first, unit, msg),
            };
            (b, out)
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let size = [16, 24, 32][inp.byte() as usize % 3];
    let key = &inp.array::<32>()[..size];
    let runs = match size {
        16 => all::<Aes128>(&mut inp, key),
        24 => all::<Aes192>(&mut inp, key),
        _ => all::<Aes256>(&mut inp, key),
    };
    let (_, generic) = &runs[0];
    for (b, out) in &runs[1..] {
        assert_eq!(out, generic, "{b:?} and the generic path differ");
    }
});
