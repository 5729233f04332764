//! Disk ciphers: round trips over every sector size, the sector layout of
//! `docs/spec/disk.md`, the bulk paths against the one-sector path, StE's
//! swap, EtE with the key in any block, the wide-block property, γ never
//! used by F, call counts, and typed errors on bad input.
#![cfg(all(feature = "std", feature = "rayon", feature = "getrandom"))] // written for the default features

use std::cell::RefCell;

use blockmodes::eme::Eme;
use blockmodes::ete::{EtE, EteEmeAes128};
use blockmodes::oracle::{Counting, encrypt_block};
use blockmodes::sector::{DataUnitCipher, DiskCipher, SectorCipher, Sectors, aes_sectors};
use blockmodes::ste::{ALPHA, StE, SteFixed, SteXexAes128, XEX_GAMMA};
use blockmodes::tweakable::{Fixed, TweakableBlockCipher};
use blockmodes::wide::WideBlockCipher;
use blockmodes::xex::{Xex, XexDelta, XexTweak};
use blockmodes::{Aes128, Aes256, Block, Error};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit, KeySizeUser};
use proptest::prelude::*;

mod common;

/// Deterministic test bytes.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn key16(seed: u64) -> [u8; 16] {
    bytes(seed, 16).try_into().unwrap()
}

fn all_sector_sizes() -> impl Iterator<Item = usize> {
    (16..=2048).step_by(16).chain([4096])
}

fn three(seed: u64, size: usize) -> Vec<(&'static str, Box<dyn SectorCipher>)> {
    let k = key16(seed);
    vec![
        ("xex", aes_sectors(DiskCipher::Xex, &k, size).unwrap()),
        ("eme", aes_sectors(DiskCipher::Eme, &k, size).unwrap()),
        ("ete", aes_sectors(DiskCipher::Ete, &k, size).unwrap()),
    ]
}

#[test]
fn round_trip_every_sector_size() {
    for size in all_sector_sizes() {
        for (name, disk) in three(size as u64, size) {
            let s = u64::from_le_bytes(bytes(size as u64 + 1, 8).try_into().unwrap());
            let plain = bytes(size as u64, size);
            let mut buf = plain.clone();
            disk.encrypt_sector(s, &mut buf).unwrap();
            assert_ne!(buf, plain, "{name} {size}");
            disk.decrypt_sector(s, &mut buf).unwrap();
            assert_eq!(buf, plain, "{name} {size}");
            // Another sector number gives another ciphertext.
            let (mut a, mut b) = (plain.clone(), plain.clone());
            disk.encrypt_sector(s, &mut a).unwrap();
            disk.encrypt_sector(s ^ 1, &mut b).unwrap();
            assert_ne!(a, b, "{name} {size}");
        }
    }
}

#[test]
fn bulk_equals_one_sector_at_a_time() {
    // Sizes and counts that cross the groups of the interleaved paths
    // (64-unit E_K(N) batches, 512-block groups, partial last groups).
    for size in [16, 32, 48, 512, 528, 2048, 4096] {
        for count in [1usize, 3, 17, 70] {
            for (name, disk) in three(7, size) {
                let first = 1_000_000 + count as u64;
                let plain = bytes(size as u64 * 31 + count as u64, size * count);
                let mut one = plain.clone();
                for (k, sector) in one.chunks_mut(size).enumerate() {
                    disk.encrypt_sector(first + k as u64, sector).unwrap();
                }
                let mut bulk = plain.clone();
                disk.encrypt_sectors_serial(first, &mut bulk).unwrap();
                assert_eq!(bulk, one, "{name} {size} x {count}");
                disk.decrypt_sectors_serial(first, &mut bulk).unwrap();
                assert_eq!(bulk, plain, "{name} {size} x {count}");
            }
        }
    }
}

#[test]
fn parallel_equals_serial() {
    let k = key16(3);
    let size = 512;
    let plain = bytes(5, size * 300);
    let make = |kind| {
        let s = Sectors::new(Eme::<Aes128>::new_from_slice(&k).unwrap(), size).unwrap();
        let x = Sectors::new(Xex::<Aes128>::new_from_slice(&k).unwrap(), size).unwrap();
        let e = Sectors::new(EteEmeAes128::new_from_slice(&k).unwrap(), size).unwrap();
        let v: Box<dyn SectorCipher> = match kind {
            0 => Box::new(s.with_parallel_threshold(0)),
            1 => Box::new(x.with_parallel_threshold(0)),
            _ => Box::new(e.with_parallel_threshold(0)),
        };
        v
    };
    for kind in 0..3 {
        let disk = make(kind);
        let mut serial = plain.clone();
        disk.encrypt_sectors_serial(99, &mut serial).unwrap();
        let mut par = plain.clone();
        disk.encrypt_sectors(99, &mut par).unwrap();
        assert_eq!(par, serial, "kind {kind}");
        disk.decrypt_sectors(99, &mut par).unwrap();
        assert_eq!(par, plain, "kind {kind}");
    }
}

/// The spec's layout: XEX block j of sector s under (N = s big-endian,
/// i = j + 1); EME and EtE under T = s little-endian; a 4096-byte sector as
/// data units 2s and 2s + 1.
#[test]
fn sector_layout_matches_spec() {
    let k = key16(11);
    let s: u64 = 0x0102_0304_0506_0708;
    for size in [16usize, 512, 2048, 4096] {
        let plain = bytes(size as u64, size);
        let units: Vec<(u128, std::ops::Range<usize>)> = if size == 4096 {
            vec![(2 * s as u128, 0..2048), (2 * s as u128 + 1, 2048..4096)]
        } else {
            vec![(s as u128, 0..size)]
        };
        // XEX
        let xex = Xex::<Aes128>::new_from_slice(&k).unwrap();
        let mut want = plain.clone();
        for (u, r) in &units {
            for (j, b) in want[r.clone()].chunks_mut(16).enumerate() {
                let t = XexTweak {
                    n: u.to_be_bytes(),
                    i: j as u64 + 1,
                };
                let blk: &mut Block = b.try_into().unwrap();
                xex.encrypt_block(&t, blk).unwrap();
            }
        }
        let mut got = plain.clone();
        Sectors::new(xex, size)
            .unwrap()
            .encrypt_sector(s, &mut got)
            .unwrap();
        assert_eq!(got, want, "xex {size}");
        // EME
        let eme = Eme::<Aes128>::new_from_slice(&k).unwrap();
        let mut want = plain.clone();
        for (u, r) in &units {
            eme.encrypt(&u.to_le_bytes(), &mut want[r.clone()]).unwrap();
        }
        let mut got = plain.clone();
        Sectors::new(eme, size)
            .unwrap()
            .encrypt_sector(s, &mut got)
            .unwrap();
        assert_eq!(got, want, "eme {size}");
        // EtE
        let j = EteEmeAes128::new_from_slice(&k).unwrap();
        let mut want = plain.clone();
        for (u, r) in &units {
            j.encrypt(&u.to_le_bytes(), &mut want[r.clone()]).unwrap();
        }
        let mut got = plain.clone();
        Sectors::new(j, size)
            .unwrap()
            .encrypt_sector(s, &mut got)
            .unwrap();
        assert_eq!(got, want, "ete {size}");
    }
}

#[test]
fn aes_sectors_dispatches_on_key_length() {
    let key = bytes(1, 32);
    let disk = aes_sectors(DiskCipher::Eme, &key, 512).unwrap();
    let direct = Sectors::new(Eme::<Aes256>::new_from_slice(&key).unwrap(), 512).unwrap();
    let (mut a, mut b) = (bytes(2, 1024), bytes(2, 1024));
    disk.encrypt_sectors(5, &mut a).unwrap();
    direct.encrypt_sectors(5, &mut b).unwrap();
    assert_eq!(a, b);
}

// ---------------------------------------------------------------------------
// StE

/// H = E(K, γ, α), computed here with XEX directly.
fn hidden_point(key: &[u8; 16]) -> Block {
    let xex = Xex::<Aes128>::new_from_slice(key).unwrap();
    let mut h = ALPHA;
    xex.encrypt_block(&XEX_GAMMA, &mut h).unwrap();
    h
}

#[test]
fn ste_swap_paths_match_the_spec() {
    for seed in 0..8 {
        let key = key16(100 + seed);
        let h = hidden_point(&key);
        let xex = Xex::<Aes128>::new_from_slice(&key).unwrap();
        let f = SteXexAes128::new_from_slice(&key).unwrap();
        let t = XexTweak {
            n: key16(200 + seed),
            i: 1 + seed,
        };
        let e = |m: Block| {
            let mut b = m;
            xex.encrypt_block(&t, &mut b).unwrap();
            b
        };
        let other = key16(300 + seed);
        // F(K, T, K) = E(K, T, H); F(K, T, H) = E(K, T, K); else E(K, T, M).
        for (m, want) in [(key, e(h)), (h, e(key)), (other, e(other))] {
            let mut b = m;
            f.encrypt_block(&t, &mut b).unwrap();
            assert_eq!(b, want);
            f.decrypt_block(&t, &mut b).unwrap();
            assert_eq!(b, m);
        }
        // The batched (vectorized) swap agrees, wherever K and H sit in a
        // batch, and near-misses are not swapped.
        let mut near_k = key;
        near_k[15] ^= 1;
        let mut near_h = h;
        near_h[0] ^= 0x80;
        let mut batch: Vec<Block> = (0..130).map(|i| key16(400 + i)).collect();
        for (i, b) in [
            (0, key),
            (1, h),
            (63, key),
            (64, h),
            (65, near_k),
            (129, near_h),
        ] {
            batch[i] = b;
        }
        let want: Vec<Block> = batch
            .iter()
            .map(|m| {
                let mut b = *m;
                f.encrypt_block(&t, &mut b).unwrap();
                b
            })
            .collect();
        let fixed = f.fix_tweak(&t).unwrap();
        let mut got = batch.clone();
        fixed.encrypt_blocks(cipher::array::Array::cast_slice_from_core_mut(&mut got));
        assert_eq!(got, want);
        fixed.decrypt_blocks(cipher::array::Array::cast_slice_from_core_mut(&mut got));
        assert_eq!(got, batch);
    }
}

#[test]
fn ste_refuses_gamma() {
    let f = SteXexAes128::new_from_slice(&key16(1)).unwrap();
    let mut b = [0u8; 16];
    assert_eq!(
        f.encrypt_block(&XEX_GAMMA, &mut b),
        Err(Error::ForbiddenTweak)
    );
    assert_eq!(
        f.decrypt_block(&XEX_GAMMA, &mut b),
        Err(Error::ForbiddenTweak)
    );
    assert!(matches!(
        f.fix_tweak(&XEX_GAMMA),
        Err(Error::ForbiddenTweak)
    ));
    assert_eq!(b, [0u8; 16]);
}

thread_local! {
    /// Tweaks the recording cipher was asked for, on this test's thread.
    static TWEAKS: RefCell<Vec<XexTweak>> = const { RefCell::new(Vec::new()) };
}

/// XEX-AES-128 that records every tweak it is used with.
struct Recording(Xex<Aes128>);

impl KeySizeUser for Recording {
    type KeySize = cipher::consts::U16;
}

impl KeyInit for Recording {
    fn new(key: &cipher::Key<Self>) -> Self {
        Recording(Xex::new(key))
    }
}

impl TweakableBlockCipher for Recording {
    type Tweak = XexTweak;
    type Cipher = Aes128;
    type Whitening = XexDelta;
    fn fix_tweak(&self, t: &XexTweak) -> blockmodes::Result<Fixed<Self>> {
        TWEAKS.with(|l| l.borrow_mut().push(*t));
        self.0.fix_tweak(t)
    }
    fn encrypt_block(&self, t: &XexTweak, b: &mut Block) -> blockmodes::Result<()> {
        TWEAKS.with(|l| l.borrow_mut().push(*t));
        self.0.encrypt_block(t, b)
    }
    fn decrypt_block(&self, t: &XexTweak, b: &mut Block) -> blockmodes::Result<()> {
        TWEAKS.with(|l| l.borrow_mut().push(*t));
        self.0.decrypt_block(t, b)
    }
}

#[test]
fn f_never_calls_e_with_gamma() {
    TWEAKS.with(|l| l.borrow_mut().clear());
    let key = key16(77);
    let f = StE::<Recording>::new(&key, XEX_GAMMA, &ALPHA).unwrap();
    // The constructor's one use of γ: H = E(K, γ, α).
    let setup = TWEAKS.with(|l| l.take());
    assert_eq!(setup, vec![XEX_GAMMA]);
    // Everything F does afterwards, including EtE over it.
    let mut b = key;
    for t in [XexTweak::T0, XexTweak::T1, XexTweak { n: key, i: 5 }] {
        f.encrypt_block(&t, &mut b).unwrap();
        f.decrypt_block(&t, &mut b).unwrap();
    }
    assert!(f.encrypt_block(&XEX_GAMMA, &mut b).is_err());
    let j =
        EtE::<Eme<SteFixed<Aes128, XexDelta>>, _>::new(&f, &XexTweak::T0, &XexTweak::T1).unwrap();
    let mut sector = bytes(1, 512);
    sector[32..48].copy_from_slice(&key);
    j.encrypt(&[1; 16], &mut sector).unwrap();
    j.decrypt(&[1; 16], &mut sector).unwrap();
    let used = TWEAKS.with(|l| l.take());
    assert!(!used.is_empty());
    assert!(!used.contains(&XEX_GAMMA), "{used:?}");
    // And J is the EtE of the spec: the same as the AES-128 instantiation.
    let mut a = bytes(2, 512);
    let mut c = a.clone();
    j.encrypt(&[9; 16], &mut a).unwrap();
    EteEmeAes128::new_from_slice(&key)
        .unwrap()
        .encrypt(&[9; 16], &mut c)
        .unwrap();
    assert_eq!(a, c);
}

// ---------------------------------------------------------------------------
// EtE and EME

#[test]
fn ete_with_the_key_in_any_block() {
    let key = key16(5);
    let h = hidden_point(&key);
    let j = EteEmeAes128::new_from_slice(&key).unwrap();
    for m in [1usize, 2, 7, 32, 128] {
        for pos in 0..m {
            for special in [key, h] {
                let mut unit = bytes((m * 1000 + pos) as u64, m * 16);
                unit[pos * 16..pos * 16 + 16].copy_from_slice(&special);
                let plain = unit.clone();
                j.encrypt(&[pos as u8; 16], &mut unit).unwrap();
                assert_ne!(unit, plain);
                j.decrypt(&[pos as u8; 16], &mut unit).unwrap();
                assert_eq!(unit, plain, "m {m} pos {pos}");
            }
        }
    }
    // A whole sector of key blocks.
    let mut unit: Vec<u8> = key.iter().copied().cycle().take(2048).collect();
    j.encrypt(&[0; 16], &mut unit).unwrap();
    j.decrypt(&[0; 16], &mut unit).unwrap();
    assert!(unit.chunks(16).all(|b| b == key));
}

/// Decrypting a ciphertext with one bit flipped changes every block of the
/// data unit (a wide-block cipher has no local diffusion).
fn wide_block_property<W: WideBlockCipher>(w: &W, label: &str) {
    for m in [2usize, 3, 32, 128] {
        let plain = bytes(m as u64, m * 16);
        let mut ct = plain.clone();
        w.encrypt(&[3; 16], &mut ct).unwrap();
        for pos in [0, m / 2, m - 1] {
            for bit in [0usize, 77, 127] {
                let mut bad = ct.clone();
                bad[pos * 16 + bit / 8] ^= 1 << (bit % 8);
                w.decrypt(&[3; 16], &mut bad).unwrap();
                for (i, (a, b)) in bad.chunks(16).zip(plain.chunks(16)).enumerate() {
                    assert_ne!(a, b, "{label}: m {m} flip {pos}/{bit}: block {i} unchanged");
                }
            }
        }
        // A changed tweak, too.
        let mut other = ct.clone();
        w.decrypt(&[4; 16], &mut other).unwrap();
        assert!(other.chunks(16).zip(plain.chunks(16)).all(|(a, b)| a != b));
    }
}

#[test]
fn wide_block_property_eme_and_ete() {
    let k = key16(9);
    wide_block_property(&Eme::<Aes128>::new_from_slice(&k).unwrap(), "eme");
    wide_block_property(&EteEmeAes128::new_from_slice(&k).unwrap(), "ete");
}

#[test]
fn eme_decryption_uses_forward_l() {
    // With an inverse-only view the result would differ; here we check the
    // algebra instead: decrypt(encrypt(x)) = x for one block and for 128
    // (where every L_i is used on both sides).
    let eme = Eme::<Aes128>::new_from_slice(&key16(12)).unwrap();
    for m in [1usize, 128] {
        let plain = bytes(m as u64, 16 * m);
        let mut b = plain.clone();
        eme.encrypt(&[0xaa; 16], &mut b).unwrap();
        eme.decrypt(&[0xaa; 16], &mut b).unwrap();
        assert_eq!(b, plain);
    }
}

// ---------------------------------------------------------------------------
// Costs (the spec's call counts)

#[test]
fn xex_cost_one_call_per_block_plus_one_per_n() {
    let (aes, count) = Counting::new(Aes128::new(&key16(1).into()));
    let disk = Sectors::new(Xex::from_cipher(aes), 512).unwrap();
    count.reset();
    let mut data = bytes(1, 512 * 70);
    disk.encrypt_sectors_serial(0, &mut data).unwrap();
    assert_eq!(count.get(), 70 * 32 + 70);
    count.reset();
    disk.decrypt_sector(3, &mut data[..512]).unwrap();
    assert_eq!(count.get(), 32 + 1);
}

#[test]
fn eme_cost_two_m_plus_one() {
    let (aes, count) = Counting::new(Aes128::new(&key16(2).into()));
    let eme = Eme::from_cipher(aes);
    assert_eq!(count.get(), 1, "L = 2 E(0), once per key");
    for m in [1usize, 5, 128] {
        count.reset();
        let mut d = bytes(3, 16 * m);
        eme.encrypt(&[0; 16], &mut d).unwrap();
        assert_eq!(count.get() as usize, 2 * m + 1);
        count.reset();
        eme.decrypt(&[0; 16], &mut d).unwrap();
        assert_eq!(count.get() as usize, 2 * m + 1);
    }
    count.reset();
    let mut d = bytes(4, 2048 * 9);
    DataUnitCipher::encrypt_units(&eme, 40, 2048, &mut d).unwrap();
    assert_eq!(count.get(), 9 * (2 * 128 + 1));
}

// ---------------------------------------------------------------------------
// Typed errors, never a panic, data untouched

#[test]
fn bad_lengths_are_typed_errors() {
    let k = key16(4);
    let eme = Eme::<Aes128>::new_from_slice(&k).unwrap();
    let j = EteEmeAes128::new_from_slice(&k).unwrap();
    for len in [0usize, 1, 15, 17, 2047, 2064, 4096] {
        let mut d = vec![7u8; len];
        assert!(matches!(
            eme.encrypt(&[0; 16], &mut d),
            Err(Error::InvalidLength(_))
        ));
        assert!(matches!(
            eme.decrypt(&[0; 16], &mut d),
            Err(Error::InvalidLength(_))
        ));
        assert!(matches!(
            j.encrypt(&[0; 16], &mut d),
            Err(Error::InvalidLength(_))
        ));
        assert!(matches!(
            j.decrypt(&[0; 16], &mut d),
            Err(Error::InvalidLength(_))
        ));
        assert!(d.iter().all(|&x| x == 7), "untouched on error");
    }
    let xex = Xex::<Aes128>::new_from_slice(&k).unwrap();
    let mut d = [0u8; 17];
    assert!(matches!(
        xex.encrypt_blocks(&[0; 16], 1, &mut d),
        Err(Error::InvalidLength(_))
    ));
    let mut d = [0u8; 32];
    assert!(matches!(
        xex.encrypt_blocks(&[0; 16], 0, &mut d),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        xex.encrypt_blocks(&[0; 16], u64::MAX, &mut d),
        Err(Error::InvalidParameter(_))
    ));
    let mut b = [0u8; 16];
    assert!(matches!(
        xex.encrypt_block(&XexTweak { n: [0; 16], i: 0 }, &mut b),
        Err(Error::InvalidParameter(_))
    ));
    // Sector sizes and buffers.
    for size in [0usize, 8, 24, 2049, 2064, 3072, 8192] {
        assert!(matches!(
            Sectors::new(Eme::<Aes128>::new_from_slice(&k).unwrap(), size),
            Err(Error::InvalidLength(_))
        ));
        assert!(aes_sectors(DiskCipher::Xex, &k, size).is_err());
    }
    for (name, disk) in three(1, 512) {
        let mut d = vec![9u8; 1000];
        assert!(
            matches!(disk.encrypt_sector(0, &mut d), Err(Error::InvalidLength(_))),
            "{name}"
        );
        assert!(
            matches!(
                disk.encrypt_sectors(0, &mut d),
                Err(Error::InvalidLength(_))
            ),
            "{name}"
        );
        assert!(
            matches!(
                disk.decrypt_sectors(0, &mut []),
                Err(Error::InvalidLength(_))
            ),
            "{name}"
        );
        let mut two = vec![9u8; 1024];
        assert!(matches!(
            disk.encrypt_sectors(u64::MAX, &mut two),
            Err(Error::InvalidParameter(_))
        ));
        assert!(
            d.iter().chain(&two).all(|&x| x == 9),
            "{name}: untouched on error"
        );
        // The last sector number itself is fine.
        disk.encrypt_sector(u64::MAX, &mut two[..512]).unwrap();
    }
    // Units API directly.
    let mut d = vec![0u8; 64];
    assert!(DataUnitCipher::encrypt_units(&eme, u128::MAX, 32, &mut d).is_err());
    assert!(DataUnitCipher::encrypt_units(&eme, 0, 24, &mut d).is_err());
    assert!(DataUnitCipher::encrypt_units(&xex, 0, 4096, &mut vec![0; 4096]).is_err());
}

#[test]
fn bad_keys_are_typed_errors() {
    for len in [0usize, 15, 17, 24, 32, 33] {
        let key = vec![1u8; len];
        assert!(matches!(
            EteEmeAes128::new_from_slice(&key),
            Err(Error::InvalidKeyLength { expected: 16, .. })
        ));
        assert!(matches!(
            aes_sectors(DiskCipher::Ete, &key, 512).err(),
            Some(Error::InvalidKeyLength { .. })
        ));
        assert!(SteXexAes128::new_from_slice(&key).is_err());
    }
    for len in [0usize, 15, 20, 33] {
        let key = vec![1u8; len];
        for kind in [DiskCipher::Xex, DiskCipher::Eme] {
            assert!(matches!(
                aes_sectors(kind, &key, 512).err(),
                Some(Error::UnsupportedKeyLength { allowed: &[16, 24, 32], got }) if got == len
            ));
        }
        assert!(Xex::<Aes128>::new_from_slice(&key).is_err());
        assert!(Eme::<Aes128>::new_from_slice(&key).is_err());
    }
    // EME2 takes 48 or 64 bytes (AES-128 or AES-256): the error names both,
    // not "expected 48" for a key of 50.
    for len in [0usize, 16, 32, 47, 49, 50, 63, 65] {
        let key = vec![1u8; len];
        assert!(matches!(
            aes_sectors(DiskCipher::Eme2, &key, 512).err(),
            Some(Error::UnsupportedKeyLength { allowed: &[48, 64], got }) if got == len
        ));
    }
    assert!(
        EtE::<Eme<_>, _>::new(
            &SteXexAes128::new_from_slice(&[0; 16]).unwrap(),
            &XexTweak::T0,
            &XexTweak::T0
        )
        .is_err()
    );
}

#[test]
fn disk_cipher_names() {
    for (s, k) in [
        ("xex", DiskCipher::Xex),
        ("eme", DiskCipher::Eme),
        ("ete", DiskCipher::Ete),
    ] {
        assert_eq!(s.parse::<DiskCipher>().unwrap(), k);
    }
    assert!("EME".parse::<DiskCipher>().is_err());
    assert_eq!(DiskCipher::Ete.key_lengths(), "16");
}

// ---------------------------------------------------------------------------
// Random round trips

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn eme_and_ete_round_trip(key in any::<[u8; 16]>(), tweak in any::<[u8; 16]>(),
                              m in 1usize..=128, seed in any::<u64>()) {
        let plain = bytes(seed, 16 * m);
        let eme = Eme::<Aes128>::new_from_slice(&key).unwrap();
        let j = EteEmeAes128::new_from_slice(&key).unwrap();
        let mut a = plain.clone();
        eme.encrypt(&tweak, &mut a).unwrap();
        let mut b = plain.clone();
        j.encrypt(&tweak, &mut b).unwrap();
        prop_assert_ne!(&a, &b);
        eme.decrypt(&tweak, &mut a).unwrap();
        j.decrypt(&tweak, &mut b).unwrap();
        prop_assert_eq!(&a, &plain);
        prop_assert_eq!(&b, &plain);
    }

    #[test]
    fn xex_runs_match_single_blocks(key in any::<[u8; 16]>(), n in any::<[u8; 16]>(),
                                    first in 1u64..1_000_000, len in 1usize..150) {
        let xex = Xex::<Aes128>::new_from_slice(&key).unwrap();
        let plain = bytes(first, 16 * len);
        let mut run = plain.clone();
        xex.encrypt_blocks(&n, first, &mut run).unwrap();
        for (j, (p, c)) in plain.chunks(16).zip(run.chunks(16)).enumerate() {
            let mut b: Block = p.try_into().unwrap();
            xex.encrypt_block(&XexTweak { n, i: first + j as u64 }, &mut b).unwrap();
            prop_assert_eq!(&b[..], c);
        }
        xex.decrypt_blocks(&n, first, &mut run).unwrap();
        prop_assert_eq!(run, plain);
    }

    #[test]
    fn sectors_round_trip(kind in 0usize..3, size_blocks in 1usize..=128,
                          count in 1usize..12, first in any::<u32>(), seed in any::<u64>()) {
        let size = size_blocks * 16;
        let kinds = [DiskCipher::Xex, DiskCipher::Eme, DiskCipher::Ete];
        let disk = aes_sectors(kinds[kind], &key16(seed), size).unwrap();
        let plain = bytes(seed, size * count);
        let mut d = plain.clone();
        disk.encrypt_sectors(first as u64, &mut d).unwrap();
        disk.decrypt_sectors(first as u64, &mut d).unwrap();
        prop_assert_eq!(d, plain);
    }
}

#[test]
fn xex_large_tweak_index() {
    // i beyond the doubling fast path: the power x^i by square-and-multiply.
    let xex = Xex::<Aes128>::new_from_slice(&key16(8)).unwrap();
    let n = key16(9);
    let en = encrypt_block(xex.cipher(), &n);
    for i in [129u64, 1000, 1 << 40] {
        let mut d = en;
        // 2^i E(N) by doubling only where that is affordable.
        if i <= 1000 {
            for _ in 0..i {
                d = blockmodes::hazmat::gf128::double_be(&d);
            }
            let mut b = [5u8; 16];
            xex.encrypt_block(&XexTweak { n, i }, &mut b).unwrap();
            let want = blockmodes::hazmat::gf128::xor(
                &encrypt_block(
                    xex.cipher(),
                    &blockmodes::hazmat::gf128::xor(&[5u8; 16], &d),
                ),
                &d,
            );
            assert_eq!(b, want, "i = {i}");
        }
        let mut b = [5u8; 16];
        xex.encrypt_block(&XexTweak { n, i }, &mut b).unwrap();
        xex.decrypt_block(&XexTweak { n, i }, &mut b).unwrap();
        assert_eq!(b, [5u8; 16]);
    }
}

// ---------------------------------------------------------------------------
// EME2

#[test]
fn eme2_round_trips_any_length_and_ad() {
    use blockmodes::eme2::Eme2;
    let e = Eme2::<Aes128>::new_from_slice(&bytes(1, 48)).unwrap();
    for len in (16..=300).chain([2047, 2048, 2049, 2063, 4096, 4097, 6000]) {
        for ad_len in [0usize, 1, 15, 16, 17, 40] {
            let ad = bytes(len as u64 + ad_len as u64, ad_len);
            let plain = bytes(len as u64, len);
            let mut d = plain.clone();
            e.encrypt(&ad, &mut d).unwrap();
            assert_ne!(d, plain, "len {len} ad {ad_len}");
            e.decrypt(&ad, &mut d).unwrap();
            assert_eq!(d, plain, "len {len} ad {ad_len}");
        }
    }
    // The associated data matters, including its length.
    let (mut a, mut b) = (bytes(9, 64), bytes(9, 64));
    e.encrypt(&[0; 16], &mut a).unwrap();
    e.encrypt(&[0; 15], &mut b).unwrap();
    assert_ne!(a, b);
}

#[test]
fn eme2_is_wide_block() {
    use blockmodes::eme2::Eme2;
    let e = Eme2::<Aes256>::new_from_slice(&bytes(2, 64)).unwrap();
    for len in [16usize, 33, 512, 2063, 4096] {
        let plain = bytes(len as u64, len);
        let mut ct = plain.clone();
        e.encrypt(b"ad", &mut ct).unwrap();
        for pos in [0, len / 2, len - 1] {
            let mut bad = ct.clone();
            bad[pos] ^= 4;
            e.decrypt(b"ad", &mut bad).unwrap();
            // Every full block changes.
            for (i, (x, y)) in bad.chunks_exact(16).zip(plain.chunks_exact(16)).enumerate() {
                assert_ne!(x, y, "len {len} flip {pos}: block {i} unchanged");
            }
        }
    }
}

#[test]
fn eme2_sectors_and_errors() {
    use blockmodes::eme2::Eme2;
    let key = bytes(3, 48);
    let disk = aes_sectors(DiskCipher::Eme2, &key, 4096).unwrap();
    let e = Eme2::<Aes128>::new_from_slice(&key).unwrap();
    let plain = bytes(4, 3 * 4096);
    let mut d = plain.clone();
    disk.encrypt_sectors(7, &mut d).unwrap();
    // One data unit per 4096-byte sector, AD = the sector number LE.
    let mut want = plain.clone();
    for (k, s) in want.chunks_mut(4096).enumerate() {
        e.encrypt(&(7u128 + k as u128).to_le_bytes(), s).unwrap();
    }
    assert_eq!(d, want);
    disk.decrypt_sectors(7, &mut d).unwrap();
    assert_eq!(d, plain);
    for len in [0usize, 1, 15] {
        let mut d = vec![5u8; len];
        assert!(matches!(
            e.encrypt(&[], &mut d),
            Err(Error::InvalidLength(_))
        ));
        assert!(matches!(
            e.decrypt(&[], &mut d),
            Err(Error::InvalidLength(_))
        ));
    }
    for len in [16usize, 32, 47, 49, 56, 63, 65] {
        assert!(
            aes_sectors(DiskCipher::Eme2, &vec![0; len], 512).is_err(),
            "{len}"
        );
    }
    assert!(aes_sectors(DiskCipher::Eme2, &bytes(5, 64), 4096).is_ok());
    assert_eq!("eme2".parse::<DiskCipher>().unwrap(), DiskCipher::Eme2);
}

/// XEX's AVX-512 delta kernel (used on the fused path when the CPU has it)
/// against the portable deltas, EME keyed from bytes (the engine where the
/// CPU has AES-NI) against EME over an already keyed cipher (the generic
/// path), and XEX against its definition: every unit length 1..=128
/// blocks, groups of units crossing batch boundaries, both directions.
#[test]
fn vector_and_portable_paths_agree() {
    let xex = Xex::<Aes128>::new_from_slice(&key16(71)).unwrap();
    let xex_p = xex.clone().portable();
    let eme = Eme::<Aes128>::new_from_slice(&key16(72)).unwrap();
    let eme_p = Eme::from_cipher(Aes128::new(&key16(72).into()));
    for m in 1..=128usize {
        let units = 1 + m % 3 + usize::from(m < 40) * 3;
        let plain = bytes(m as u64, units * m * 16);
        let first = 1000 + m as u128;
        fn agree<D: DataUnitCipher>(a: &D, b: &D, first: u128, m: usize, plain: &[u8]) {
            let (mut x, mut y) = (plain.to_vec(), plain.to_vec());
            a.encrypt_units(first, m * 16, &mut x).unwrap();
            b.encrypt_units(first, m * 16, &mut y).unwrap();
            assert_eq!(x, y, "m = {m}");
            a.decrypt_units(first, m * 16, &mut y).unwrap();
            assert_eq!(y, plain, "m = {m}");
            b.decrypt_units(first, m * 16, &mut x).unwrap();
            assert_eq!(x, plain, "m = {m}");
        }
        agree(&xex, &xex_p, first, m, &plain);
        agree(&eme, &eme_p, first, m, &plain);
        // XEX's definition, block by block (unit u: N = u BE, i = j + 1).
        let mut x = plain.clone();
        xex.encrypt_units(first, m * 16, &mut x).unwrap();
        for (b, (c, p)) in x.chunks(16).zip(plain.chunks(16)).enumerate().step_by(7) {
            let t = XexTweak {
                n: (first + (b / m) as u128).to_be_bytes(),
                i: (b % m) as u64 + 1,
            };
            let mut one: Block = p.try_into().unwrap();
            xex.encrypt_block(&t, &mut one).unwrap();
            assert_eq!(&one[..], c, "xex m = {m} block {b}");
        }
    }
    // Runs of blocks under (N, i), (N, i + 1), ...
    for n in 0..=130usize {
        let plain = bytes(n as u64 + 500, n * 16);
        for first_i in [1u64, 2, 63, 64, 65, 1 << 40] {
            let (mut x, mut y) = (plain.clone(), plain.clone());
            xex.encrypt_blocks(&[3; 16], first_i, &mut x).unwrap();
            xex_p.encrypt_blocks(&[3; 16], first_i, &mut y).unwrap();
            assert_eq!(x, y, "run of {n} from {first_i}");
            xex.decrypt_blocks(&[3; 16], first_i, &mut y).unwrap();
            assert_eq!(y, plain);
        }
    }
}

// ---- XEX on both paths: the generic one and the fused AES kernels ----

/// `data` through XEX-AES (key of `key.len()` bytes) on `backend`: as data
/// units of `unit` bytes from unit `first`, and as one run of blocks under
/// `(n, i)`, `(n, i + 1)`, ...; both deciphered back.
fn xex_on(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    unit: usize,
    first: u128,
    n: &Block,
    i: u64,
    data: &[u8],
) -> (Vec<u8>, Vec<u8>) {
    let prev = blockmodes::backend::force(backend);
    macro_rules! go {
        ($c:ty) => {{
            let xex = Xex::<$c>::new_from_slice(key).unwrap();
            blockmodes::backend::force(prev);
            let units_len = data.len() / unit * unit;
            let mut units = data[..units_len].to_vec();
            if units_len > 0 {
                xex.encrypt_units(first, unit, &mut units).unwrap();
                let mut back = units.clone();
                xex.decrypt_units(first, unit, &mut back).unwrap();
                assert_eq!(back, data[..units_len]);
            }
            let mut run = data[..data.len() / 16 * 16].to_vec();
            xex.encrypt_blocks(n, i, &mut run).unwrap();
            let mut back = run.clone();
            xex.decrypt_blocks(n, i, &mut back).unwrap();
            assert_eq!(back, data[..run.len()]);
            (units, run)
        }};
    }
    match key.len() {
        16 => go!(Aes128),
        24 => go!(blockmodes::Aes192),
        _ => go!(Aes256),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused and the generic XEX agree on data units (16..=2048 bytes)
    /// and runs of blocks at random lengths 0..5000 bytes.
    #[test]
    fn xex_fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 32),
        key_len in prop::sample::select(vec![16usize, 24, 32]),
        unit_blocks in 1usize..=128,
        first in any::<u64>(),
        n in any::<[u8; 16]>(),
        i in 1u64..1_000_000,
        data in proptest::collection::vec(any::<u8>(), 0..5000),
    ) {
        use blockmodes::backend::{Backend, available};
        let key = &key[..key_len];
        let generic = xex_on(Backend::Generic, key, 16 * unit_blocks, first.into(), &n, i, &data);
        for &b in available() {
            let fused = xex_on(b, key, 16 * unit_blocks, first.into(), &n, i, &data);
            prop_assert_eq!(&fused, &generic, "{:?}", b);
        }
    }
}

// ---- The wide-block ciphers on both paths ----

/// Run `make` with keys set up on `backend` (this thread only), checking
/// that the fused path was taken where asked for (`keys` keys set up; on
/// every tier, `armv8` included; EtE's one key is its XEX's).
fn keyed_on<T>(backend: blockmodes::backend::Backend, keys: u64, make: impl FnOnce() -> T) -> T {
    use blockmodes::backend::{Backend, force, fused_keys};
    let prev = force(backend);
    let before = fused_keys();
    let t = make();
    let fused = fused_keys() - before;
    force(prev);
    let want = if backend != Backend::Generic { keys } else { 0 };
    assert_eq!(fused, want, "{backend:?}: keys on the fused path");
    t
}

/// What a wide-block cipher makes of `data`, each direction applied to
/// `data` itself (so deciphering is checked on inputs that are not
/// ciphertexts) and each result deciphered or enciphered back: as data
/// units of `unit` bytes from unit `first` (the whole units of `data`, if
/// any) and as one unit under `tweak` (the first `one` bytes, if `one` is
/// not zero).
fn wide_outputs<W: WideBlockCipher>(
    w: &W,
    unit: usize,
    first: u128,
    tweak: &Block,
    data: &[u8],
    one: usize,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let units = &data[..data.len() / unit * unit];
    if !units.is_empty() {
        let (mut e, mut d) = (units.to_vec(), units.to_vec());
        w.encrypt_units(first, unit, &mut e).unwrap();
        w.decrypt_units(first, unit, &mut d).unwrap();
        out.push(e.clone());
        out.push(d.clone());
        w.decrypt_units(first, unit, &mut e).unwrap();
        w.encrypt_units(first, unit, &mut d).unwrap();
        assert_eq!(e, units, "units round trip");
        assert_eq!(d, units, "units round trip (decrypt first)");
    }
    if one > 0 {
        let data = &data[..one];
        let (mut e, mut d) = (data.to_vec(), data.to_vec());
        w.encrypt(tweak, &mut e).unwrap();
        w.decrypt(tweak, &mut d).unwrap();
        out.push(e.clone());
        out.push(d.clone());
        w.decrypt(tweak, &mut e).unwrap();
        w.encrypt(tweak, &mut d).unwrap();
        assert_eq!(e, data, "one unit round trip");
        assert_eq!(d, data, "one unit round trip (decrypt first)");
    }
    out
}

/// The longest prefix of `len` bytes that EME and EtE take as one unit
/// (whole blocks, at most 2048 bytes).
fn one_unit(len: usize) -> usize {
    (len / 16 * 16).min(2048)
}

/// EME-AES (key of `key.len()` bytes) on `backend`: [`wide_outputs`].
fn eme_on(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    (unit, first): (usize, u128),
    (tweak, one): (&Block, usize),
    data: &[u8],
) -> Vec<Vec<u8>> {
    macro_rules! go {
        ($c:ty) => {{
            let eme = keyed_on(backend, 1, || Eme::<$c>::new_from_slice(key).unwrap());
            wide_outputs(&eme, unit, first, tweak, data, one)
        }};
    }
    match key.len() {
        16 => go!(Aes128),
        24 => go!(blockmodes::Aes192),
        _ => go!(Aes256),
    }
}

/// EtE (AES-128) on `backend`, as [`eme_on`].
fn ete_on(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    (unit, first): (usize, u128),
    (tweak, one): (&Block, usize),
    data: &[u8],
) -> Vec<Vec<u8>> {
    // StE keys XEX from the key bytes: one fused key.
    let j = keyed_on(backend, 1, || EteEmeAes128::new_from_slice(key).unwrap());
    wide_outputs(&j, unit, first, tweak, data, one)
}

/// Every valid length once on every path: each unit size (16 ..= 2048
/// bytes) over as many whole units as fit in 5000 bytes, and one unit of
/// that size, against the generic path, both directions, for EME (each AES
/// key size) and EtE.
#[test]
fn eme_and_ete_fused_and_generic_agree_at_every_length() {
    use blockmodes::backend::{Backend, available};
    let data = bytes(77, 5000);
    for unit in (16..=2048).step_by(16) {
        let first = (u128::from(unit as u64) << 70) | 0xffff_fff0;
        let tweak = key16(unit as u64);
        let d = &data[..5000 / unit * unit];
        for key_len in [16usize, 24, 32] {
            let key = bytes(unit as u64 + key_len as u64, key_len);
            let generic = eme_on(Backend::Generic, &key, (unit, first), (&tweak, unit), d);
            for &b in available() {
                let fused = eme_on(b, &key, (unit, first), (&tweak, unit), d);
                assert_eq!(fused, generic, "EME {b:?} AES-{} unit {unit}", key_len * 8);
            }
        }
        let key = key16(unit as u64 + 5);
        let generic = ete_on(Backend::Generic, &key, (unit, first), (&tweak, unit), d);
        for &b in available() {
            let fused = ete_on(b, &key, (unit, first), (&tweak, unit), d);
            assert_eq!(fused, generic, "EtE {b:?} unit {unit}");
        }
    }
}

/// Calls of 33 and 70 units, so that the fused units path
/// (`disk::eme::fused::units`, 32 units per kernel call) runs a full chunk
/// and then a short one (33 = 32 + 1, 70 = 32 + 32 + 6), for sector-sized
/// units (512 and 2048 bytes) and a short odd one (3 blocks), with unit
/// numbers crossing a 64-bit carry inside the call: against the generic
/// path, both directions, EME (each AES key size) and EtE, on every tier.
#[test]
fn eme_and_ete_units_past_one_kernel_chunk() {
    use blockmodes::backend::{Backend, available};
    let data = bytes(78, 70 * 2048);
    for unit in [48usize, 512, 2048] {
        for count in [33usize, 70] {
            let d = &data[..count * unit];
            let first = (1u128 << 64) - 40;
            let tweak = key16(count as u64);
            for key_len in [16usize, 24, 32] {
                let key = bytes((unit * count + key_len) as u64, key_len);
                let generic = eme_on(Backend::Generic, &key, (unit, first), (&tweak, 0), d);
                assert_eq!(generic.len(), 2);
                for &b in available() {
                    let fused = eme_on(b, &key, (unit, first), (&tweak, 0), d);
                    assert_eq!(
                        fused,
                        generic,
                        "EME {b:?} AES-{} {count} units of {unit}",
                        key_len * 8
                    );
                }
            }
            let key = key16((unit * count) as u64 + 5);
            let generic = ete_on(Backend::Generic, &key, (unit, first), (&tweak, 0), d);
            for &b in available() {
                let fused = ete_on(b, &key, (unit, first), (&tweak, 0), d);
                assert_eq!(fused, generic, "EtE {b:?} {count} units of {unit}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused and the generic EME agree on data units (16..=2048 bytes)
    /// and single units at random lengths 0..5000 bytes, both directions.
    #[test]
    fn eme_fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 32),
        key_len in prop::sample::select(vec![16usize, 24, 32]),
        unit_blocks in 1usize..=128,
        first in any::<u128>(),
        tweak in any::<[u8; 16]>(),
        data in proptest::collection::vec(any::<u8>(), 0..5000),
    ) {
        use blockmodes::backend::{Backend, available};
        let key = &key[..key_len];
        let first = first.min(u128::MAX - 400);
        let (u, t) = ((16 * unit_blocks, first), (&tweak, one_unit(data.len())));
        let generic = eme_on(Backend::Generic, key, u, t, &data);
        for &b in available() {
            let fused = eme_on(b, key, u, t, &data);
            prop_assert_eq!(&fused, &generic, "{:?}", b);
        }
    }

    /// The same for EtE (AES-128).
    #[test]
    fn ete_fused_and_generic_agree(
        key in any::<[u8; 16]>(),
        unit_blocks in 1usize..=128,
        first in any::<u128>(),
        tweak in any::<[u8; 16]>(),
        data in proptest::collection::vec(any::<u8>(), 0..5000),
    ) {
        use blockmodes::backend::{Backend, available};
        let first = first.min(u128::MAX - 400);
        let (u, t) = ((16 * unit_blocks, first), (&tweak, one_unit(data.len())));
        let generic = ete_on(Backend::Generic, &key, u, t, &data);
        for &b in available() {
            let fused = ete_on(b, &key, u, t, &data);
            prop_assert_eq!(&fused, &generic, "{:?}", b);
        }
    }
}

/// EME2-AES (key of 48 or 64 bytes) on `backend`: `data` enciphered and
/// deciphered (each applied to `data` itself) under `ad`, each deciphered
/// or enciphered back; `data` at least 16 bytes.
fn eme2_on(
    backend: blockmodes::backend::Backend,
    key: &[u8],
    ad: &[u8],
    data: &[u8],
) -> Vec<Vec<u8>> {
    use blockmodes::eme2::Eme2;
    macro_rules! go {
        ($c:ty) => {{
            let e = keyed_on(backend, 1, || Eme2::<$c>::new_from_slice(key).unwrap());
            let (mut a, mut b) = (data.to_vec(), data.to_vec());
            e.encrypt(ad, &mut a).unwrap();
            e.decrypt(ad, &mut b).unwrap();
            let out = vec![a.clone(), b.clone()];
            e.decrypt(ad, &mut a).unwrap();
            e.encrypt(ad, &mut b).unwrap();
            assert_eq!(a, data, "round trip");
            assert_eq!(b, data, "round trip (decrypt first)");
            out
        }};
    }
    match key.len() {
        48 => go!(Aes128),
        _ => go!(Aes256),
    }
}

/// EME2: every length from 16 to 5000 bytes on every path against the
/// generic one, both directions, both key sizes, associated data of
/// every length class (empty, partial, whole, several blocks); and inputs
/// past 32 runs of 128 blocks (whose sums the fused path recomputes).
#[test]
fn eme2_fused_and_generic_agree_at_every_length() {
    use blockmodes::backend::{Backend, available};
    let data = bytes(99, 5000);
    for len in 16..=5000usize {
        let key = bytes(len as u64, if len % 2 == 0 { 48 } else { 64 });
        let ad = bytes(len as u64 + 1, [0usize, 5, 16, 40, 16 * 70 + 3][len % 5]);
        let generic = eme2_on(Backend::Generic, &key, &ad, &data[..len]);
        for &b in available() {
            let fused = eme2_on(b, &key, &ad, &data[..len]);
            assert_eq!(fused, generic, "EME2 {b:?} len {len} key {}", key.len());
        }
    }
    let long = bytes(5, 33 * 128 * 16 + 100);
    for len in [33 * 128 * 16, 33 * 128 * 16 + 100] {
        let key = bytes(len as u64, 48);
        let generic = eme2_on(Backend::Generic, &key, b"ad", &long[..len]);
        for &b in available() {
            assert_eq!(
                eme2_on(b, &key, b"ad", &long[..len]),
                generic,
                "EME2 {b:?} len {len}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fused and the generic EME2 agree at random lengths 16..5000
    /// bytes with random associated data, both directions.
    #[test]
    fn eme2_fused_and_generic_agree(
        key in proptest::collection::vec(any::<u8>(), 64),
        aes256 in any::<bool>(),
        ad in proptest::collection::vec(any::<u8>(), 0..100),
        data in proptest::collection::vec(any::<u8>(), 16..5000),
    ) {
        use blockmodes::backend::{Backend, available};
        let key = &key[..if aes256 { 64 } else { 48 }];
        let generic = eme2_on(Backend::Generic, key, &ad, &data);
        for &b in available() {
            prop_assert_eq!(&eme2_on(b, key, &ad, &data), &generic, "{:?}", b);
        }
    }
}

/// Every disk cipher is `Clone`, as XEX and EME were (RustCrypto's ciphers
/// are): a clone enciphers as its original, also after the original is
/// dropped (each owns its keys; dropping one wipes only its own).
#[test]
fn disk_ciphers_clone() {
    fn same<T: Clone>(a: T, enc: impl Fn(&T, &mut [u8])) {
        let b = a.clone();
        let mut x = [0x3cu8; 1024];
        enc(&a, &mut x);
        drop(a);
        let mut y = [0x3cu8; 1024];
        enc(&b, &mut y);
        assert_eq!(x, y);
        assert_ne!(x, [0x3cu8; 1024]);
    }
    let eme2 = blockmodes::eme2::Eme2::<Aes128>::new_from_slice(&[1; 48]).unwrap();
    same(eme2, |c, d| c.encrypt(b"ad", d).unwrap());
    let ste = SteXexAes128::new_from_slice(&[2; 16]).unwrap();
    same(ste, |c, d| {
        for b in d.chunks_exact_mut(16) {
            c.encrypt_block(&XexTweak::T0, b.try_into().unwrap())
                .unwrap();
        }
    });
    let ete = EteEmeAes128::new_from_slice(&[3; 16]).unwrap();
    same(ete, |c, d| c.encrypt(&[9; 16], d).unwrap());
    let sectors = Sectors::new(Xex::<Aes128>::new_from_slice(&[4; 16]).unwrap(), 512).unwrap();
    same(sectors, |c, d| c.encrypt_sectors(7, d).unwrap());
}
