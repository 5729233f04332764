//! TEMPORARY (issue 23): the generic path's AVX-512 "islands"
//! (`disk/simd.rs`, `gligor_donescu/simd/`) against the portable whitening
//! alone, paired in one process.
//!
//! `cargo run --release -p blockmodes --example islands [ROUNDS]`
//!
//! For each case, two instances: A built and run with the islands, B built
//! and run with `backend::ISLANDS_OFF` set (the portable code, as on a CPU
//! without AVX-512). Each round times ECB of the same tier, A and B (the
//! order of A and B alternating); the table gives the medians over the
//! rounds of ECB/A and ECB/B (x ECB) and of B/A (the islands' gain: above 1,
//! the islands are faster).

use std::hint::black_box;
use std::sync::atomic::Ordering;
use std::time::Instant;

use blockmodes::backend::{self, Backend, ISLANDS_OFF, XECB_PORTABLE_PASSES};
use blockmodes::cipher::consts::U16;
use blockmodes::cipher::{
    BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncClosure, BlockCipherEncrypt,
    BlockSizeUser, Key, KeyInit, KeySizeUser,
};
use blockmodes::eme::Eme;
use blockmodes::eme2::Eme2;
use blockmodes::ete::EtE;
use blockmodes::pxcbc::PxcbcXor;
use blockmodes::sector::{DataUnitCipher, SectorCipher, Sectors};
use blockmodes::ste::{StE, SteFixed};
use blockmodes::tweakable::TweakableBlockCipher;
use blockmodes::xcbc::XcbcXor;
use blockmodes::xecb::XecbMac;
use blockmodes::xex::{Xex, XexDelta, XexTweak};
use blockmodes::{Aes128, Block};

/// AES-128 under another name: not recognised as AES, so every mode takes
/// the generic path, with the `aes` crate's VAES-512 backend doing the
/// rounds (the fastest 128-bit cipher there is: the worst case for the
/// islands).
#[derive(Clone)]
struct Other(Aes128);

impl BlockSizeUser for Other {
    type BlockSize = U16;
}
impl KeySizeUser for Other {
    type KeySize = U16;
}
impl KeyInit for Other {
    fn new(key: &Key<Self>) -> Self {
        Other(Aes128::new(key))
    }
}
impl BlockCipherEncrypt for Other {
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        self.0.encrypt_with_backend(f)
    }
}
impl BlockCipherDecrypt for Other {
    fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        self.0.decrypt_with_backend(f)
    }
}

type Case = Box<dyn FnMut()>;

const KEY: [u8; 16] = *b"blockmodes-bench";
const KEY2: [u8; 32] = *b"blockmodes-bench-xcbc-second-key";

/// Whole units of `size` bytes, or one unit as long as a short message.
fn units(bytes: usize, size: usize) -> (usize, usize) {
    let size = if bytes < size { (bytes / 16).max(1) * 16 } else { size };
    (size, (bytes / size).max(1) * size)
}

fn sectors<D: DataUnitCipher + Send + 'static>(d: D, size: usize, bytes: usize) -> Case {
    let (size, len) = units(bytes, size);
    let disk = Sectors::new(d, size).expect("sector size");
    let mut buf = vec![0x5au8; len];
    Box::new(move || {
        disk.encrypt_sectors_serial(0, &mut buf).expect("sectors");
        black_box(&buf);
    })
}

trait Cipher:
    blockmodes::oracle::BlockCipher128Dec
    + Clone
    + KeyInit
    + KeySizeUser<KeySize = U16>
    + Send
    + Sync
    + 'static
{
}
impl<C> Cipher for C where
    C: blockmodes::oracle::BlockCipher128Dec
        + Clone
        + KeyInit
        + KeySizeUser<KeySize = U16>
        + Send
        + Sync
        + 'static
{
}

type Ete<C> = EtE<Eme<SteFixed<C, XexDelta>>, StE<Xex<C>>>;

/// A mode of the generic path over `C` (built under the current switch).
fn generic<C: Cipher>(mode: &str, bytes: usize) -> Case {
    let msg = vec![0x5au8; bytes];
    match mode {
        "ecb" => {
            let c = C::new_from_slice(&KEY).expect("key");
            let mut b = vec![[0x5au8; 16]; bytes / 16];
            Box::new(move || {
                blockmodes::oracle::ecb_encrypt_blocks(&c, &mut b);
                black_box(&b);
            })
        }
        "xex-512" => sectors(Xex::<C>::new_from_slice(&KEY).expect("key"), 512, bytes),
        "eme-512" => sectors(Eme::<C>::new_from_slice(&KEY).expect("key"), 512, bytes),
        "eme-2048" => sectors(Eme::<C>::new_from_slice(&KEY).expect("key"), 2048, bytes),
        "ete-512" => sectors(Ete::<C>::new_from_slice(&KEY).expect("key"), 512, bytes),
        "ete-2048" => sectors(Ete::<C>::new_from_slice(&KEY).expect("key"), 2048, bytes),
        "eme2-4096" => sectors(
            Eme2::<C>::new_from_slice(&KEY.repeat(3)).expect("key"),
            4096,
            bytes,
        ),
        // StE[XEX] under one tweak, many blocks (`fix_tweak`: the swap
        // fused with XEX's xor over each batch).
        "ste-ecb" => {
            let f = StE::<Xex<C>>::new_from_slice(&KEY).expect("key");
            let fixed = f.fix_tweak(&XexTweak::T0).expect("tweak");
            let mut b = vec![[0x5au8; 16]; bytes / 16];
            Box::new(move || {
                blockmodes::oracle::ecb_encrypt_blocks(&fixed, &mut b);
                black_box(&b);
            })
        }
        "xex-run" => {
            let x = Xex::<C>::new_from_slice(&KEY).expect("key");
            let mut buf = msg;
            Box::new(move || {
                x.encrypt_blocks(&[1; 16], 1, &mut buf).expect("run");
                black_box(&buf);
            })
        }
        "xecb-mac" => {
            let mac = XecbMac::<C>::new_from_slice(&KEY).expect("key");
            Box::new(move || {
                black_box(mac.mac(&msg).expect("sign"));
            })
        }
        "xcbc-xor-decrypt" => {
            let x = XcbcXor::<C>::new_from_slice(&KEY2).expect("key");
            let ct = x.encrypt(&msg).expect("encrypt");
            let mut out = vec![0u8; ct.len()];
            Box::new(move || {
                x.decrypt_into(&ct, &mut out).expect("decrypt");
                black_box(&out);
            })
        }
        "pxcbc-xor-encrypt" => {
            let p = PxcbcXor::<C>::new_from_slice(&KEY2)
                .expect("key")
                .with_segment_blocks(16)
                .expect("S");
            let mut out = vec![0u8; p.ciphertext_len(bytes).expect("len")];
            Box::new(move || {
                p.encrypt_into(&msg, &mut out).expect("encrypt");
                black_box(&out);
            })
        }
        _ => panic!("unknown mode {mode}"),
    }
}

/// The engine's ECB (the yardstick of the engine rows).
fn engine_ecb(bytes: usize) -> Case {
    let ecb = backend::Ecb::<Aes128>::new_from_slice(&KEY).expect("key");
    let mut b = vec![[0x5au8; 16]; bytes / 16];
    Box::new(move || {
        ecb.encrypt_blocks(&mut b);
        black_box(&b);
    })
}

/// Nanoseconds per call of `k` calls.
fn sample(case: &mut Case, k: usize) -> f64 {
    let t = Instant::now();
    for _ in 0..k {
        case();
    }
    t.elapsed().as_nanos() as f64 / k as f64
}

fn median(v: Vec<f64>) -> f64 {
    quantile(v, 0.5)
}

fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[((v.len() - 1) as f64 * q) as usize]
}

fn set(off: bool) {
    ISLANDS_OFF.store(off, Ordering::Relaxed);
}

/// B = XECB-MAC's passes with the portable kernels (islands off too).
fn set_passes(off: bool) {
    ISLANDS_OFF.store(off, Ordering::Relaxed);
    XECB_PORTABLE_PASSES.store(off, Ordering::Relaxed);
}

/// Times ECB, A (islands) and B (portable), `rounds` rounds; prints a row.
fn pair(label: &str, bytes: usize, rounds: usize, make: &dyn Fn(bool) -> Case, ecb: &mut Case) {
    pair_with(label, bytes, rounds, make, ecb, &set)
}

fn pair_with(
    label: &str,
    bytes: usize,
    rounds: usize,
    make: &dyn Fn(bool) -> Case,
    ecb: &mut Case,
    set: &dyn Fn(bool),
) {
    let mut a = make(false);
    let mut b = make(true);
    // ~0.25 ms per sample (short: the 2 cores are shared, and a sample a
    // context switch hit is dropped by the quantile below).
    set(false);
    let per = sample(&mut a, 20).max(1.0);
    let k = ((2.5e5 / per) as usize).max(1);
    let ke = ((2.5e5 / sample(ecb, 20).max(1.0)) as usize).max(1);
    let (mut ea, mut eb, mut gain, mut ta, mut tb) = (vec![], vec![], vec![], vec![], vec![]);
    let mut te = vec![];
    for r in 0..rounds {
        let e = sample(ecb, ke);
        let (x, y) = if r % 2 == 0 {
            set(false);
            let x = sample(&mut a, k);
            set(true);
            (x, sample(&mut b, k))
        } else {
            set(true);
            let y = sample(&mut b, k);
            set(false);
            (sample(&mut a, k), y)
        };
        te.push(e);
        ea.push(e / x);
        eb.push(e / y);
        gain.push(y / x);
        ta.push(x);
        tb.push(y);
    }
    set(false);
    // The 10th percentile of each arm's times (the quiet samples), and the
    // median of the paired per-round ratios.
    let (qa, qb) = (quantile(ta, 0.1), quantile(tb, 0.1));
    let qe = quantile(te, 0.1);
    let _ = (ea, eb);
    println!(
        "{label:<36} {bytes:>6}  islands {:>5.3}x ECB  portable {:>5.3}x ECB  islands/portable p10 {:>5.2} median-pair {:>5.2}  ({:>7.0} ns vs {:>7.0} ns)",
        qe / qa,
        qe / qb,
        qb / qa,
        median(gain),
        qa,
        qb,
    );
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(201);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    println!(
        "cpu: {cpu}; tiers: {}; rounds {rounds}",
        backend::tier_names()
    );
    let generic_modes = [
        "xex-512",
        "eme-512",
        "eme-2048",
        "ete-512",
        "ete-2048",
        "ste-ecb",
        "eme2-4096",
        "xex-run",
        "xecb-mac",
        "xcbc-xor-decrypt",
        "pxcbc-xor-encrypt",
    ];
    for bytes in [16384usize, 1024] {
        println!("-- (a) generic path, AES-128 under another name (newtype), {bytes} B; ECB = the aes crate");
        let mut ecb = generic::<Other>("ecb", bytes);
        for m in generic_modes {
            pair(
                &format!("other {m}"),
                bytes,
                rounds,
                &|off| {
                    set(off);
                    generic::<Other>(m, bytes)
                },
                &mut ecb,
            );
        }
        pair_with(
            "other xecb-mac (B: portable passes)",
            bytes,
            rounds,
            &|off| {
                set_passes(off);
                generic::<Other>("xecb-mac", bytes)
            },
            &mut ecb,
            &set_passes,
        );
        set_passes(false);
        println!("-- (b) generic path, AES-128 forced generic (backend::force(Generic), as BLOCKMODES_CPU=generic), {bytes} B");
        backend::force(Backend::Generic);
        let mut ecb = generic::<Aes128>("ecb", bytes);
        for m in generic_modes {
            pair(
                &format!("aes-generic {m}"),
                bytes,
                rounds,
                &|off| {
                    set(off);
                    backend::force(Backend::Generic);
                    generic::<Aes128>(m, bytes)
                },
                &mut ecb,
            );
        }
        for (tier, name) in [
            (Backend::Auto, "vaes512"),
            (Backend::Vaes256, "vaes256"),
            (Backend::AesNi, "aesni"),
        ] {
            println!("-- (c) the engine, AES-128 keyed from bytes, tier {name}, {bytes} B; ECB = the engine's");
            backend::force(tier);
            let mut ecb = engine_ecb(bytes);
            for m in ["xex-512", "xex-run", "eme-2048", "ete-2048", "eme2-4096", "pxcbc-xor-encrypt"] {
                pair(
                    &format!("engine-{name} {m}"),
                    bytes,
                    rounds,
                    &|off| {
                        set(off);
                        backend::force(tier);
                        generic::<Aes128>(m, bytes)
                    },
                    &mut ecb,
                );
            }
        }
        backend::force(Backend::Auto);
    }
    let _: Block = [0; 16];
}
