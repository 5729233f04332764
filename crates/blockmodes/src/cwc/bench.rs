//! A quick standalone measurement of CWC on the fused kernels (an ignored
//! test: it needs a release build to mean anything):
//!
//! ```sh
//! cargo test --release -p blockmodes --lib cwc::bench -- --ignored --nocapture
//! ```
//!
//! AES-128, one core, in place, empty associated data. Each round times
//! every variant once, in turn, so a noisy neighbour hits them alike; the
//! figures are the medians and minima over the rounds. (A variant right
//! after scalar code pays the AVX-512 warm-up in some rounds: the portable
//! hash runs last.)

use std::hint::black_box;
use std::time::Instant;

use cipher::inout::InOutBuf;
use cipher::{BlockCipherEncrypt, KeyInit};

use super::hash::{CwcHash, HashState};
use super::*;
use crate::aesni::AesKey;

type Variant<'a> = (String, Box<dyn FnMut(&mut [u8]) + 'a>);

/// CWC encryption by strides of `stride` bytes on the fused key, without
/// the one-pass kernel: `ctr32`, then the memory-fed hash of the stride.
fn seal_strided(key: &AesKey, hash: &CwcHash, base: u128, buf: &mut [u8], stride: usize) -> Block {
    let len = buf.len();
    let mut st = HashState::default();
    let mut pad = [0; 16];
    let mut done = 0;
    while done < len {
        let end = len.min(done + stride);
        let extra = (done == 0).then_some(base);
        let p = key.ctr32(
            base + 1 + (done / 16) as u128,
            InOutBuf::from(&mut buf[done..end]),
            extra,
        );
        if done == 0 {
            pad = p;
        }
        if end < len {
            hash.absorb_chunks(&mut st, &buf[done..end]);
        } else {
            hash.absorb_padded(&mut st, &buf[done..end]);
        }
        done = end;
    }
    let r = key.encrypt_be(hash.finish_int(st, 0, len as u64));
    crate::arith::gf128::xor(&r, &pad)
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn bench_cwc_fused() {
    if crate::aesni::detect().is_none() {
        println!("no AES-NI: nothing to measure");
        return;
    }
    let key = [0x42u8; 16];
    let aes = aes::Aes128::new(&key.into());
    let k = AesKey::new(&key).expect("key");
    let cwc = CwcAes128::new_from_slice(&key).expect("key");
    let prev = crate::backend::force(crate::backend::Backend::Generic);
    let generic = CwcAes128::new_from_slice(&key).expect("key");
    crate::backend::force(prev);
    let hash = cwc.hasher();
    let portable = hash.clone().portable();
    let base = counter_base(&[0x11; 11]).expect("nonce");
    for bytes in [64usize, 256, 1024, 4096, 16384] {
        let mut variants: Vec<Variant<'_>> = vec![
            (
                "aes crate ecb".into(),
                Box::new(|b: &mut [u8]| {
                    let (blocks, _) = b.as_chunks_mut::<16>();
                    aes.encrypt_blocks(Array::cast_slice_from_core_mut(blocks));
                }),
            ),
            (
                "ctr32 alone".into(),
                Box::new(|b: &mut [u8]| {
                    k.ctr32(7, InOutBuf::from(b), None);
                }),
            ),
            (
                "hash alone (IFMA)".into(),
                Box::new(|b: &mut [u8]| {
                    black_box(hash.hash(&[], b).expect("len"));
                }),
            ),
            (
                "Cwc encrypt, fused".into(),
                Box::new(|b: &mut [u8]| {
                    black_box(cwc.encrypt_detached(&[0x11; 11], &[], b).expect("ok"));
                }),
            ),
            (
                "Cwc encrypt, fused, 64-byte AD".into(),
                Box::new(|b: &mut [u8]| {
                    let t = cwc.encrypt_detached(&[0x11; 11], &[5; 64], b);
                    black_box(t.expect("ok"));
                }),
            ),
            (
                "Cwc encrypt, generic".into(),
                Box::new(|b: &mut [u8]| {
                    let t = generic.encrypt_detached(&[0x11; 11], &[], b);
                    black_box(t.expect("ok"));
                }),
            ),
        ];
        for stride in [768usize, 1536, 6144, 16384] {
            let k = &k;
            variants.push((
                format!("strided {stride} (ctr32, then hash)"),
                Box::new(move |b: &mut [u8]| {
                    black_box(seal_strided(k, hash, base, b, stride));
                }),
            ));
        }
        variants.push((
            "hash alone (portable)".into(),
            Box::new(|b: &mut [u8]| {
                black_box(portable.hash(&[], b).expect("len"));
            }),
        ));
        let mut buf = vec![0x33u8; bytes];
        let reps = (262_144 / bytes).max(1);
        crate::measure::table(
            &format!("{bytes} B"),
            bytes,
            &mut variants,
            buf.as_mut_slice(),
            reps,
            201,
            &crate::measure::Columns {
                name: 40,
                gbps: true,
                vs: "x ecb",
                digits: 2,
            },
        );
    }
}

/// Key setup (`CwcAes128::new_from_slice`: the AES key, K_h, the hash's
/// power tables), median of 2001 calls.
#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn bench_cwc_key_setup() {
    let mut ns: Vec<f64> = (0..2001u32)
        .map(|i| {
            let key = [i as u8; 16];
            let t = Instant::now();
            black_box(CwcAes128::new_from_slice(black_box(&key)).expect("key"));
            t.elapsed().as_nanos() as f64
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    println!(
        "CwcAes128::new_from_slice: median {:.0} ns, min {:.0} ns",
        ns[ns.len() / 2],
        ns[0]
    );
}

/// Short messages taken apart (AES-128, in place, empty A): the engine's
/// ECB, the one-pass kernel with the tag (in place and from another
/// buffer), the whole `Fused::seal`, and `encrypt_detached`.
/// Medians and minima over rounds, every variant once per round.
///
/// ```sh
/// BM_SIZES=16,192,1024,16384 cargo test --release -p blockmodes --lib cwc::bench::bench_cwc_short -- --ignored --nocapture
/// ```
#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn bench_cwc_short() {
    if crate::aesni::detect() != Some(crate::aesni::Level::Vaes512) {
        println!("no VAES-512: nothing to measure");
        return;
    }
    let key = [0x42u8; 16];
    let k = AesKey::new(&key).expect("key");
    let ecb = crate::backend::Ecb::<crate::Aes128>::new_from_slice(&key).expect("key");
    let cwc = CwcAes128::new_from_slice(&key).expect("key");
    let hash = cwc.hasher();
    let Some(pw) = hash.ifma_powers() else {
        println!("no IFMA: nothing to measure");
        return;
    };
    let fused = cwc.fused().expect("fused");
    let base = counter_base(&[0x11; 11]).expect("nonce");
    let sizes: Vec<usize> = std::env::var("BM_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![16, 192, 1024, 16384]);
    let src = vec![0x5au8; 1 << 16];
    for bytes in sizes {
        let src = &src;
        let mut variants: Vec<Variant<'_>> = vec![
            (
                "engine ecb".into(),
                Box::new(|b: &mut [u8]| {
                    let (blocks, _) = b.as_chunks_mut::<16>();
                    ecb.encrypt_blocks(blocks);
                }),
            ),
            (
                "one-pass kernel with the tag".into(),
                Box::new(|b: &mut [u8]| {
                    black_box(k.ctr32_hash_tag(base, InOutBuf::from(b), pw, 0, 0));
                }),
            ),
            (
                "the same, out of place".into(),
                Box::new(|b: &mut [u8]| {
                    let n = b.len();
                    let io = InOutBuf::new(&src[..n], b).expect("len");
                    black_box(k.ctr32_hash_tag(base, io, pw, 0, 0));
                }),
            ),
            (
                "Fused::seal".into(),
                Box::new(|b: &mut [u8]| {
                    black_box(fused.seal(hash, base, &[], InOutBuf::from(b)));
                }),
            ),
            (
                "encrypt_detached".into(),
                Box::new(|b: &mut [u8]| {
                    black_box(cwc.encrypt_detached(&[0x11; 11], &[], b).expect("ok"));
                }),
            ),
        ];
        let mut buf = vec![0x33u8; bytes];
        let reps = (262_144 / bytes).clamp(1, 4096);
        crate::measure::table(
            &format!("{bytes} B"),
            bytes,
            &mut variants,
            buf.as_mut_slice(),
            reps,
            301,
            &crate::measure::Columns {
                name: 32,
                gbps: false,
                vs: "x ecb",
                digits: 3,
            },
        );
    }
}
