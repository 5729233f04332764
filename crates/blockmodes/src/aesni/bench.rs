//! A quick standalone measurement of the back end against the `aes` crate
//! (an ignored test: it needs a release build to mean anything):
//!
//! ```sh
//! cargo test --release -p blockmodes --lib aesni::bench -- --ignored --nocapture
//! ```
//!
//! AES-128, one core, in place. Each round times every variant once
//! (`reps` calls), in turn, so a noisy neighbour hits them alike; the
//! figures are the medians and minima over the rounds.
//!
//! `BM_BENCH=xex,eme` keeps the variants whose names contain one of the
//! words (the `aes` crate's ECB, the yardstick, always runs);
//! `BM_SIZES=2048,16384` sets the message sizes.

use std::hint::black_box;
use std::time::Instant;

use cipher::array::Array;
use cipher::{BlockCipherEncrypt, KeyInit};

use super::*;
use crate::arith::gf128::{GrayBatch, GrayOffsets, xor};

type Variant<'a> = (&'static str, Box<dyn FnMut(&mut [Block]) + 'a>);

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn bench_against_aes_crate() {
    let Some(level) = detect() else {
        println!("no AES-NI: nothing to measure");
        return;
    };
    let key = [0x42u8; 16];
    let aes = aes::Aes128::new(&key.into());
    let wide = AesKey::new(&key).expect("key");
    let narrow = AesKey::with_level(&key, Level::AesNi).expect("key");
    let batch = GrayBatch::new(GrayOffsets::new(&[0x17; 16]));
    let table = GrayTable::new(&batch);
    let r = [0x5a; 16];
    let ste = SteXex::new(&wide, &[1; 16], &[2; 16], &[3; 16], &[4; 16]).expect("AES-128");
    let xex_z: Vec<Block> = (0..1024u32).map(|i| [i as u8; 16]).collect();
    let ocb = crate::ocb1::Ocb1Aes128::new_from_slice(&key).expect("key");
    let mut gd_out: Vec<Block> = Vec::new();
    let mut chains_out: Vec<Block> = Vec::new();
    let (mut px_out_fused, mut px_out_generic) = (Vec::new(), Vec::new());
    let xecb = crate::xecb::XecbMacStateful::<aes::Aes128>::new_from_slice(&key).expect("key");
    let xcbc = crate::xcbc::XcbcXor::<aes::Aes128>::new_from_slice(&[0x42; 32]).expect("key");
    let px = |generic: bool| {
        let prev = generic.then(|| crate::backend::force(crate::backend::Backend::Generic));
        let p = crate::pxcbc::PxcbcXor::<aes::Aes128>::new_from_slice(&[0x42; 32])
            .and_then(|p| p.with_segment_blocks(16))
            .expect("key");
        prev.map(crate::backend::force);
        p
    };
    let (px_fused, px_generic) = (px(false), px(true));

    let mut gd_check = [0u8; 16];
    let mut gd_check2 = [0u8; 16];
    let mut gd_in: Vec<Block> = Vec::new();
    let xex_fused = crate::xex::Xex::<aes::Aes128>::new_from_slice(&key).expect("key");
    let eme_fused = crate::eme::Eme::<aes::Aes128>::new_from_slice(&key).expect("key");
    let ete_fused = crate::ete::EteEmeAes128::new_from_slice(&key).expect("key");
    let eme2_fused = crate::eme2::Eme2::<aes::Aes128>::new_from_slice(&[7; 48]).expect("key");
    let prev = crate::backend::force(crate::backend::Backend::Generic);
    let xex_generic = crate::xex::Xex::<aes::Aes128>::new_from_slice(&key).expect("key");
    let eme_generic = crate::eme::Eme::<aes::Aes128>::new_from_slice(&key).expect("key");
    let ete_generic = crate::ete::EteEmeAes128::new_from_slice(&key).expect("key");
    let eme2_generic = crate::eme2::Eme2::<aes::Aes128>::new_from_slice(&[7; 48]).expect("key");
    crate::backend::force(prev);
    println!("backend level: {level:?}");
    let words: Vec<String> = std::env::var("BM_BENCH")
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let sizes: Vec<usize> = std::env::var("BM_SIZES")
        .map(|s| s.split(',').map(|x| x.parse().expect("BM_SIZES")).collect())
        .unwrap_or_else(|_| vec![64, 128, 256, 512, 1024, 16384]);
    /// `name` over units of `unit` bytes (or one unit of the whole buffer
    /// when shorter).
    fn units<'a, D: crate::sector::DataUnitCipher>(
        name: &'static str,
        d: &'a D,
        unit: usize,
    ) -> Variant<'a> {
        (
            name,
            Box::new(move |b: &mut [Block]| {
                let d_ = b.as_flattened_mut();
                let u = d_.len().min(unit);
                d.encrypt_units(0, u, d_).expect("units");
                black_box(d_);
            }),
        )
    }
    /// `name` deciphering units of `unit` bytes.
    fn units_dec<'a, D: crate::sector::DataUnitCipher>(
        name: &'static str,
        d: &'a D,
        unit: usize,
    ) -> Variant<'a> {
        (
            name,
            Box::new(move |b: &mut [Block]| {
                let d_ = b.as_flattened_mut();
                let u = d_.len().min(unit);
                d.decrypt_units(0, u, d_).expect("units");
                black_box(d_);
            }),
        )
    }
    /// pXCBC-shaped chains (S = 16 and the check round), `lanes` chains
    /// per call.
    fn strided<'a>(name: &'static str, lanes: usize, key: &'a AesKey) -> Variant<'a> {
        let mut out: Vec<Block> = Vec::new();
        (
            name,
            Box::new(move |b: &mut [Block]| {
                let (mut z, mut sums) = ([[1; 16]; CHAIN_BATCH], [[2; 16]; CHAIN_BATCH]);
                out.resize(b.len() + b.len() / 16, [0; 16]);
                let calls = b.chunks(16 * lanes).zip(out.chunks_mut(17 * lanes));
                for (g, o) in calls {
                    let mut chains = Chains {
                        r0: 7,
                        first: 1,
                        n: 16,
                        check: true,
                        z: &mut z,
                        sums: &mut sums,
                        z0: None,
                    };
                    let io = ChainIo {
                        src: g,
                        src_stride: 16,
                        head: None,
                        tail: None,
                        dst: o,
                        dst_stride: 17,
                        lanes: g.len() / 16,
                    };
                    key.xcbc_strided(&mut chains, io);
                }
                black_box(z);
            }),
        )
    }
    /// One kernel call per chunk of `m` blocks.
    fn piece<'a>(name: &'static str, m: usize, f: impl Fn(&mut [Block]) + 'a) -> Variant<'a> {
        (
            name,
            Box::new(move |b: &mut [Block]| {
                for u in b.chunks_mut(m) {
                    f(u);
                }
                black_box(b);
            }),
        )
    }
    for &bytes in &sizes {
        let n = bytes / 16;
        // A message of n padded blocks: its ciphertext decrypts into n blocks.
        let xcbc_ct = {
            use crate::xcbc::hazmat::EncryptWithR0;
            xcbc.encrypt_with_r0(&[3; 16], &vec![0x33; 16 * (n - 1)])
                .expect("encrypt")
        };
        let px_ct = {
            use crate::xcbc::hazmat::EncryptWithR0;
            px_fused
                .encrypt_with_r0(&[3; 16], &vec![0x33; 16 * (n - 1)])
                .expect("encrypt")
        };
        let mut variants: Vec<Variant<'_>> = vec![
            (
                "aes crate encrypt_blocks",
                Box::new(|b: &mut [Block]| aes.encrypt_blocks(Array::cast_slice_from_core_mut(b))),
            ),
            (
                "aesni ecb (widest)",
                Box::new(|b: &mut [Block]| wide.ecb(Dir::Encrypt, Io::InPlace(b))),
            ),
            (
                "aesni ecb (AES-NI xmm)",
                Box::new(|b: &mut [Block]| narrow.ecb(Dir::Encrypt, Io::InPlace(b))),
            ),
            (
                "aesni ocb-shaped enc (gray, checksum)",
                Box::new(|b: &mut [Block]| {
                    let off = Offsets::Gray {
                        table: &table,
                        first: 1,
                        r: &r,
                    };
                    black_box(wide.whiten(Dir::Encrypt, off, true, Io::InPlace(b)));
                }),
            ),
            (
                "aesni ocb-shaped dec (gray, checksum)",
                Box::new(|b: &mut [Block]| {
                    let off = Offsets::Gray {
                        table: &table,
                        first: 1,
                        r: &r,
                    };
                    black_box(wide.whiten(Dir::Decrypt, off, true, Io::InPlace(b)));
                }),
            ),
            (
                "aesni pmac-shaped sigma (gray)",
                Box::new(|b: &mut [Block]| {
                    let off = Offsets::Gray {
                        table: &table,
                        first: 1,
                        r: &[0; 16],
                    };
                    black_box(wide.sigma(off, b));
                }),
            ),
            (
                "aesni xex-shaped enc (slice offsets)",
                Box::new(|b: &mut [Block]| {
                    let off = Offsets::Slice(&xex_z);
                    black_box(wide.whiten(Dir::Encrypt, off, false, Io::InPlace(b)));
                }),
            ),
            (
                "aesni xex_units kernel (512-B units)",
                Box::new(|b: &mut [Block]| {
                    let m = b.len().min(32);
                    black_box(wide.xex_units(Dir::Encrypt, 7, m, Io::InPlace(b)));
                }),
            ),
            (
                "aesni xex_units bound: free deltas",
                Box::new(|b: &mut [Block]| {
                    let m = b.len().min(32);
                    wide.xex_units_bound(SRC_XEX_FREE, 7, m, Io::InPlace(b));
                }),
            ),
            (
                "aesni xex_units bound: free deltas, no E_K(N)",
                Box::new(|b: &mut [Block]| {
                    let m = b.len().min(32);
                    wide.xex_units_bound(SRC_XEX_BARE, 7, m, Io::InPlace(b));
                }),
            ),
            units("Xex<Aes128> units of 512 B, generic", &xex_generic, 512),
            units("Xex<Aes128> units of 512 B, fused", &xex_fused, 512),
            units("Eme<Aes128> units of 512 B, generic", &eme_generic, 512),
            units("Eme<Aes128> units of 512 B, fused", &eme_fused, 512),
            units("Eme<Aes128> units of 2048 B, generic", &eme_generic, 2048),
            units("Eme<Aes128> units of 2048 B, fused", &eme_fused, 2048),
            units("Eme2<Aes128> units of 4096 B, generic", &eme2_generic, 4096),
            units("Eme2<Aes128> units of 4096 B, fused", &eme2_fused, 4096),
            units("EtE units of 512 B, generic", &ete_generic, 512),
            units("EtE units of 512 B, fused", &ete_fused, 512),
            units("EtE units of 2048 B, generic", &ete_generic, 2048),
            units("EtE units of 2048 B, fused", &ete_fused, 2048),
            units_dec("Eme<Aes128> units of 2048 B, fused, dec", &eme_fused, 2048),
            units_dec("EtE units of 2048 B, fused, dec", &ete_fused, 2048),
            units_dec("EtE units of 512 B, fused, dec", &ete_fused, 512),
            piece("wb ecb 128-block units", 128, |u: &mut [Block]| {
                wide.ecb(Dir::Encrypt, Io::InPlace(u))
            }),
            piece("wb eme first 128", 128, |u: &mut [Block]| {
                black_box(wide.wide_first(Dir::Encrypt, &xex_z, Io::InPlace(u)));
            }),
            piece("wb eme last 128", 128, |u: &mut [Block]| {
                wide.wide_last(Dir::Encrypt, &r, &xex_z, Io::InPlace(u))
            }),
            piece("wb eme first 128 dec", 128, |u: &mut [Block]| {
                black_box(wide.wide_first(Dir::Decrypt, &xex_z, Io::InPlace(u)));
            }),
            piece("wb eme last 128 dec", 128, |u: &mut [Block]| {
                wide.wide_last(Dir::Decrypt, &r, &xex_z, Io::InPlace(u))
            }),
            piece("wb eme first+mid 128", 128, |u: &mut [Block]| {
                black_box(wide.wide_first_mid(Dir::Encrypt, &xex_z, &r, &r, u));
            }),
            piece("wb ete first 128 (2 ciphers)", 128, |u: &mut [Block]| {
                black_box(ste.first(Dir::Encrypt, &xex_z, Io::InPlace(u)));
            }),
            piece("wb ete last 128", 128, |u: &mut [Block]| {
                ste.last(Dir::Encrypt, &r, &xex_z, Io::InPlace(u))
            }),
            piece("wb ete first 128 dec", 128, |u: &mut [Block]| {
                black_box(ste.first(Dir::Decrypt, &xex_z, Io::InPlace(u)));
            }),
            piece(
                "wb ete last 128 dec (2 ciphers)",
                128,
                |u: &mut [Block]| ste.last(Dir::Decrypt, &r, &xex_z, Io::InPlace(u)),
            ),
            piece("wb ete first+mid 128", 128, |u: &mut [Block]| {
                black_box(ste.first_mid(Dir::Encrypt, &xex_z, &r, &r, u));
            }),
            piece("wb ete first 32 (2 ciphers)", 32, |u: &mut [Block]| {
                black_box(ste.first(Dir::Encrypt, &xex_z, Io::InPlace(u)));
            }),
            piece("wb ete last 32", 32, |u: &mut [Block]| {
                ste.last(Dir::Encrypt, &r, &xex_z, Io::InPlace(u))
            }),
            piece("wb ete first+mid 32", 32, |u: &mut [Block]| {
                black_box(ste.first_mid(Dir::Encrypt, &xex_z, &r, &r, u));
            }),
            piece("wb eme first+mid 32", 32, |u: &mut [Block]| {
                black_box(wide.wide_first_mid(Dir::Encrypt, &xex_z, &r, &r, u));
            }),
            piece("wb eme last 32", 32, |u: &mut [Block]| {
                wide.wide_last(Dir::Encrypt, &r, &xex_z, Io::InPlace(u))
            }),
            piece("eme kernels 512 (no middle)", 32, |u: &mut [Block]| {
                black_box(wide.wide_first(Dir::Encrypt, &xex_z, Io::InPlace(u)));
                wide.wide_last(Dir::Encrypt, &r, &xex_z, Io::InPlace(u));
            }),
            piece(
                "eme kernels 512 (first, middle)",
                32,
                |u: &mut [Block]| {
                    let s = wide.wide_first(Dir::Encrypt, &xex_z, Io::InPlace(u));
                    let mc = wide.encrypt_block(&s);
                    u[0] = xor(&mc, &s);
                },
            ),
            piece("ete kernels 2048 (first only)", 128, |u: &mut [Block]| {
                black_box(ste.first(Dir::Encrypt, &xex_z, Io::InPlace(u)));
            }),
            piece("ete kernels 2048 (last only)", 128, |u: &mut [Block]| {
                ste.last(Dir::Encrypt, &r, &xex_z, Io::InPlace(u));
            }),
            piece("eme kernels 512 (first only)", 32, |u: &mut [Block]| {
                black_box(wide.wide_first(Dir::Encrypt, &xex_z, Io::InPlace(u)));
            }),
            piece("eme kernels 512 (last only)", 32, |u: &mut [Block]| {
                wide.wide_last(Dir::Encrypt, &r, &xex_z, Io::InPlace(u));
            }),
            (
                "aesni xecb-shaped sum (i r0 added)",
                Box::new(|b: &mut [Block]| {
                    black_box(wide.xecb_sum(0x1234_5678_9abc_def0_0fed_cba9_8765_4321, 1, b, None));
                }),
            ),
            (
                "aesni xcbc-shaped dec (i r0 subtracted)",
                Box::new(|b: &mut [Block]| {
                    let n = b.len();
                    gd_out.resize(n, [0; 16]);
                    black_box(wide.xcbc_decrypt(
                        0x1234_5678_9abc_def0_0fed_cba9_8765_4321,
                        1,
                        &[7; 16],
                        b,
                        &mut gd_out[..n - 1],
                        Some(&mut gd_check),
                    ));
                }),
            ),
            (
                "aesni xecb sum, mode shape (n + last)",
                Box::new(|b: &mut [Block]| {
                    let last = [0x80; 16];
                    black_box(wide.xecb_sum(
                        0x1234_5678_9abc_def0_0fed_cba9_8765_4321,
                        1,
                        b,
                        Some(&last),
                    ));
                }),
            ),
            (
                "aesni xecb f(ctr) + sum, mode shape",
                Box::new(|b: &mut [Block]| {
                    let last = [0x80; 16];
                    let r0 = u128::from_be_bytes(wide.encrypt_block(&b[0]));
                    black_box(wide.xecb_sum(r0, 1, b, Some(&last)));
                }),
            ),
            (
                "aesni xcbc dec, mode shape (n + check)",
                Box::new(|b: &mut [Block]| {
                    let n = b.len();
                    gd_in.resize(n + 1, [0x21; 16]);
                    black_box(wide.xcbc_decrypt(
                        0x1234_5678_9abc_def0_0fed_cba9_8765_4321,
                        1,
                        &[7; 16],
                        &gd_in,
                        b,
                        Some(&mut gd_check2),
                    ));
                }),
            ),
            (
                "XecbMacStateful sign_with_counter",
                Box::new(|b: &mut [Block]| {
                    use crate::xecb::hazmat::SignWithCounter;
                    black_box(xecb.sign_with_counter(&[9; 16], b.as_flattened()));
                }),
            ),
            (
                "XcbcXor decrypt_into (whole blocks)",
                Box::new(|b: &mut [Block]| {
                    assert!(xcbc.decrypt_into(&xcbc_ct, b.as_flattened_mut()).is_ok());
                }),
            ),
            (
                "PxcbcXor S = 16 decrypt_into, fused",
                Box::new(|b: &mut [Block]| {
                    assert!(px_fused.decrypt_into(&px_ct, b.as_flattened_mut()).is_ok());
                }),
            ),
            (
                "PxcbcXor S = 16 decrypt_into, generic",
                Box::new(|b: &mut [Block]| {
                    assert!(
                        px_generic
                            .decrypt_into(&px_ct, b.as_flattened_mut())
                            .is_ok()
                    );
                }),
            ),
            (
                "PxcbcXor S = 16 encrypt_with_r0 (fused)",
                Box::new(|b: &mut [Block]| {
                    use crate::xcbc::hazmat::EncryptWithR0;
                    let n = b.len();
                    let m = &b.as_flattened()[..16 * (n - 1)];
                    let mut out = core::mem::take(&mut px_out_fused);
                    out.resize(px_fused.ciphertext_len(m.len()).expect("len"), 0);
                    px_fused
                        .encrypt_with_r0_into(&[3; 16], m, &mut out)
                        .expect("encrypt");
                    px_out_fused = black_box(out);
                }),
            ),
            (
                "PxcbcXor S = 16 encrypt_with_r0 (generic)",
                Box::new(|b: &mut [Block]| {
                    use crate::xcbc::hazmat::EncryptWithR0;
                    let n = b.len();
                    let m = &b.as_flattened()[..16 * (n - 1)];
                    let mut out = core::mem::take(&mut px_out_generic);
                    out.resize(px_fused.ciphertext_len(m.len()).expect("len"), 0);
                    px_generic
                        .encrypt_with_r0_into(&[3; 16], m, &mut out)
                        .expect("encrypt");
                    px_out_generic = black_box(out);
                }),
            ),
            (
                "xcbc_strided kernel (16 chains)",
                Box::new(|b: &mut [Block]| {
                    let n = b.len() / 16;
                    let (mut z, mut sums) = ([[1; 16]; CHAIN_BATCH], [[2; 16]; CHAIN_BATCH]);
                    chains_out.resize(b.len() + 16, [0; 16]);
                    let mut chains = Chains {
                        r0: 7,
                        first: 1,
                        n,
                        check: true,
                        z: &mut z,
                        sums: &mut sums,
                        z0: None,
                    };
                    let io = ChainIo {
                        src: b,
                        src_stride: n,
                        head: None,
                        tail: None,
                        dst: &mut chains_out,
                        dst_stride: n + 1,
                        lanes: 16,
                    };
                    wide.xcbc_strided(&mut chains, io);
                    black_box(z);
                }),
            ),
            strided(
                "xcbc_strided kernel (64 chains, 16+1 rounds per call)",
                64,
                &wide,
            ),
            strided(
                "xcbc_strided kernel (16 chains, 16+1 rounds per call)",
                16,
                &wide,
            ),
            (
                "3 dependent single blocks (OCB's floor)",
                Box::new(|b: &mut [Block]| {
                    let x = wide.encrypt_block(&b[0]);
                    let y = wide.encrypt_block(&x);
                    b[0] = wide.encrypt_block(&y);
                }),
            ),
            (
                "R, whiten_extra, tag (OCB's kernel calls)",
                Box::new(|b: &mut [Block]| {
                    let r = wide.encrypt_block(&b[0]);
                    let off = Offsets::Gray {
                        table: &table,
                        first: 1,
                        r: &r,
                    };
                    let n = b.len() - 1;
                    let mut extra = table.offset(&r, n as u64 + 1);
                    let c = wide.whiten_extra(
                        Dir::Encrypt,
                        off,
                        true,
                        Io::InPlace(&mut b[..n]),
                        &mut extra,
                    );
                    b[n] = wide.encrypt_block(&xor(&c, &extra));
                }),
            ),
            (
                "Ocb1Aes128 (message, default path)",
                Box::new(|b: &mut [Block]| {
                    black_box(
                        ocb.encrypt_detached(&[1; 16], b.as_flattened_mut())
                            .expect("nonce"),
                    );
                }),
            ),
        ];
        let keep = |name: &str| {
            name.starts_with("aes crate")
                || words.is_empty()
                || words
                    .iter()
                    .any(|w| name.to_lowercase().contains(&w.to_lowercase()))
        };
        variants.retain(|(name, _)| keep(name));
        let mut buf = vec![[0x33u8; 16]; n];
        let reps = (262_144 / bytes).max(1); // ~256 KiB per sample
        crate::measure::table(
            &format!("{bytes} B ({n} blocks)"),
            bytes,
            &mut variants,
            buf.as_mut_slice(),
            reps,
            301,
            &crate::measure::Columns {
                name: 40,
                gbps: true,
                vs: "x aes",
                digits: 2,
            },
        );
    }
}

/// `V` zmm registers of independent CBC-like chains (four chains per
/// register: `z = E(z xor x)`, AES-128), the blocks of one round of all
/// chains contiguous in `buf`, each round's outputs stored back: what
/// bounds pXCBC's lock-step encryption (the AES latency times the rounds
/// against the throughput of the one 512-bit AES port).
///
/// # Safety
/// The CPU must have AVX-512F and VAES; `buf.len()` a multiple of `4 V`.
#[target_feature(enable = "avx512f,vaes")]
unsafe fn zmm_chains<const V: usize>(keys: &[Block; 15], buf: &mut [Block]) {
    use core::arch::x86_64::*;
    let k: [__m512i; 11] =
        core::array::from_fn(|r| _mm512_broadcast_i32x4(schedule::load(&keys[r])));
    let mut z = [_mm512_setzero_si512(); V];
    for round in buf.chunks_exact_mut(4 * V) {
        let p = round.as_mut_ptr();
        for (v, zv) in z.iter_mut().enumerate() {
            // SAFETY: block 4 v .. 4 v + 3 of the round.
            let x = unsafe { _mm512_loadu_si512(p.add(4 * v).cast()) };
            *zv = _mm512_ternarylogic_epi64::<0x96>(*zv, x, k[0]);
        }
        for kr in &k[1..10] {
            for zv in z.iter_mut() {
                *zv = _mm512_aesenc_epi128(*zv, *kr);
            }
        }
        for (v, zv) in z.iter_mut().enumerate() {
            *zv = _mm512_aesenclast_epi128(*zv, k[10]);
            // SAFETY: as above.
            unsafe { _mm512_storeu_si512(p.add(4 * v).cast(), *zv) };
        }
    }
}

/// As [`zmm_chains`] with one chain per xmm register.
///
/// # Safety
/// The CPU must have AES-NI; `buf.len()` a multiple of `V`.
#[target_feature(enable = "aes,sse2")]
unsafe fn xmm_chains<const V: usize>(keys: &[Block; 15], buf: &mut [Block]) {
    use core::arch::x86_64::*;
    let k: [__m128i; 11] = core::array::from_fn(|r| schedule::load(&keys[r]));
    let mut z = [_mm_setzero_si128(); V];
    for round in buf.chunks_exact_mut(V) {
        for (zv, b) in z.iter_mut().zip(round.iter()) {
            *zv = _mm_xor_si128(_mm_xor_si128(*zv, schedule::load(b)), k[0]);
        }
        for kr in &k[1..10] {
            for zv in z.iter_mut() {
                *zv = _mm_aesenc_si128(*zv, *kr);
            }
        }
        for (zv, b) in z.iter_mut().zip(round.iter_mut()) {
            *zv = _mm_aesenclast_si128(*zv, k[10]);
            *b = schedule::store(*zv);
        }
    }
}

/// What bounds S-chain encryption: chains in flight against ECB
/// (16 KiB, AES-128). Run with `--release -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn bench_chain_bound() {
    if !cpu_vaes512::get() {
        println!("no VAES-512");
        return;
    }
    let key = AesKey::new(&[0x42u8; 16]).expect("key");
    let keys = key.enc.k.0;
    let mut variants: Vec<Variant<'_>> = vec![(
        "aesni ecb (widest)",
        Box::new(|b: &mut [Block]| key.ecb(Dir::Encrypt, Io::InPlace(b))),
    )];
    macro_rules! zmm {
        ($($v:literal),*) => {$(
            variants.push((
                concat!("zmm chains: ", $v, " regs = ", $v, "x4 chains"),
                // SAFETY: VAES-512 checked above; 1024 blocks is a multiple of 4 V.
                Box::new(|b: &mut [Block]| unsafe {
                    let n = b.len() / (4 * $v) * (4 * $v);
                    zmm_chains::<$v>(&keys, &mut b[..n])
                }),
            ));
        )*};
    }
    macro_rules! xmm {
        ($($v:literal),*) => {$(
            variants.push((
                concat!("xmm chains: ", $v),
                // SAFETY: AES-NI checked above.
                Box::new(|b: &mut [Block]| unsafe {
                    let n = b.len() / $v * $v;
                    xmm_chains::<$v>(&keys, &mut b[..n])
                }),
            ));
        )*};
    }
    zmm!(1, 2, 3, 4, 5, 6, 8);
    xmm!(4, 6, 8, 12);
    let mut buf = vec![[0x33u8; 16]; 1024];
    let rounds = 201;
    let mut ns: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for round in 0..rounds + 10 {
        for (v, (_, f)) in variants.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..16 {
                f(black_box(&mut buf));
            }
            if round >= 10 {
                ns[v].push(t.elapsed().as_nanos() as f64 / 16.0);
            }
        }
    }
    let med: Vec<f64> = ns
        .iter_mut()
        .map(|s| {
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect();
    println!("16 KiB, AES-128, medians over {rounds} rounds");
    for ((name, _), m) in variants.iter().zip(&med) {
        println!("{name:<40} {m:>9.1} ns {:>6.2} x ecb", med[0] / m);
    }
}
