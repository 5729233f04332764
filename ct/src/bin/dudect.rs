//! A dudect-style timing test (Reparaz, Balasch, Verbauwhede 2017) of tag
//! verification on the native paths (AES-NI, the SIMD kernels), where
//! valgrind cannot look. For each mode, verifications of one message
//! against two classes of tags are timed in random order with the cycle
//! counter, and Welch's t-statistic compares the two timing distributions
//! (raw and cropped at several percentiles, as dudect does):
//! * `first` vs `last`: invalid tags wrong in their first byte against
//!   invalid tags wrong in their last byte — an early-exit comparison shows
//!   here; |t| must stay below 10 (dudect's threshold for a leak);
//! * `valid` vs `invalid`: reported for information (the verdict is
//!   public: an accepted AEAD ciphertext returns its plaintext, a rejected
//!   one is wiped, so these may differ without leaking anything).
//!
//!   dudect [MEASUREMENTS_PER_TEST]   (default 1_000_000)

use std::hint::black_box;

use blockmodes::Aes128;
use blockmodes::cwc::CwcAes128;
use blockmodes::ocb1::Ocb1Aes128;
use blockmodes::pmac::PmacAes128;
use blockmodes::pxcbc::PxcbcXor;
use blockmodes::xcbc::XcbcXor;
use blockmodes::xcbc::hazmat::EncryptWithR0;
use blockmodes::xecb::XecbMac;
use blockmodes::xecb::hazmat::SignWithR0;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[inline(always)]
fn cycles() -> u64 {
    #[cfg(target_arch = "x86_64")]
    #[allow(unused_unsafe)]
    // SAFETY: lfence and rdtsc have no memory effects.
    unsafe {
        core::arch::x86_64::_mm_lfence();
        let t = core::arch::x86_64::_rdtsc();
        core::arch::x86_64::_mm_lfence();
        t
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::time::Instant::now().elapsed().as_nanos() as u64
    }
}

/// Welch's t of two samples.
fn welch(a: &[f64], b: &[f64]) -> f64 {
    let stats = |x: &[f64]| {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let v = x.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / (n - 1.0);
        (n, m, v)
    };
    let (na, ma, va) = stats(a);
    let (nb, mb, vb) = stats(b);
    (ma - mb) / (va / na + vb / nb).sqrt()
}

/// t for the raw samples and for the samples under several percentiles of
/// the pooled distribution; returns (max |t|, the t values).
fn tests(c0: &[f64], c1: &[f64]) -> (f64, Vec<f64>) {
    let mut all: Vec<f64> = c0.iter().chain(c1).copied().collect();
    all.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mut ts = vec![welch(c0, c1)];
    for p in [0.5, 0.75, 0.9, 0.99] {
        let cut = all[((all.len() - 1) as f64 * p) as usize];
        let a: Vec<f64> = c0.iter().copied().filter(|&x| x <= cut).collect();
        let b: Vec<f64> = c1.iter().copied().filter(|&x| x <= cut).collect();
        if a.len() > 100 && b.len() > 100 {
            ts.push(welch(&a, &b));
        }
    }
    let max = ts.iter().fold(0.0f64, |m, t| m.max(t.abs()));
    (max, ts)
}

/// Time `f(input)` for inputs of two classes in random order.
fn measure(
    n: usize,
    rng: &mut Rng,
    inputs: [&[u8]; 2],
    f: &dyn Fn(&[u8]) -> bool,
) -> (f64, Vec<f64>) {
    let (mut c0, mut c1) = (Vec::with_capacity(n), Vec::with_capacity(n));
    // Both classes are verified from this one buffer: two buffers at two
    // addresses differ in alignment and cache sets, which shows up as a
    // timing difference of the harness, not of the code under test.
    let mut stage = inputs[0].to_vec();
    for _ in 0..n / 10 {
        for input in inputs {
            stage.copy_from_slice(input);
            black_box(f(&stage));
        }
    }
    for _ in 0..n {
        let class = (rng.next() & 1) as usize;
        stage.copy_from_slice(inputs[class]);
        let input = black_box(&stage[..]);
        let t0 = cycles();
        let r = f(input);
        let t1 = cycles();
        black_box(r);
        if class == 0 {
            c0.push((t1 - t0) as f64)
        } else {
            c1.push((t1 - t0) as f64)
        }
    }
    tests(&c0, &c1)
}

fn report(
    mode: &str,
    n: usize,
    rng: &mut Rng,
    valid: &[u8],
    tag_at: usize,
    f: &dyn Fn(&[u8]) -> bool,
) -> bool {
    let mut first = valid.to_vec();
    first[tag_at] ^= 1;
    let mut last = valid.to_vec();
    *last.last_mut().unwrap() ^= 1;
    assert!(
        f(valid) && !f(&first) && !f(&last),
        "{mode}: the test inputs are wrong"
    );
    let (t_fl, all_fl) = measure(n, rng, [&first, &last], f);
    let (t_vi, _) = measure(n, rng, [valid, &first], f);
    let ok = t_fl < 10.0;
    println!(
        "{mode:<14} first-vs-last |t| = {t_fl:6.2} {}  valid-vs-invalid |t| = {t_vi:7.2} (information)   [t by crop: {}]",
        if ok { "ok  " } else { "LEAK" },
        all_fl
            .iter()
            .map(|t| format!("{t:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    ok
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let msg = [0x5au8; 64];
    let mut all_ok = true;
    println!(
        "dudect: {n} measurements per test, Welch's t (|t| > 10: a leak; below 4.5: no evidence)"
    );

    let ocb = Ocb1Aes128::new_from_slice(&[1; 16]).unwrap();
    let ct = ocb.encrypt_to_vec(&[2; 16], &msg).unwrap();
    all_ok &= report("ocb1", n, &mut rng, &ct, msg.len(), &|c| {
        ocb.decrypt_to_vec(&[2; 16], c).is_ok()
    });

    let cwc = CwcAes128::new_from_slice(&[3; 16]).unwrap();
    let ct = cwc.encrypt_to_vec(&[4; 11], b"ad", &msg).unwrap();
    all_ok &= report("cwc", n, &mut rng, &ct, msg.len(), &|c| {
        cwc.decrypt_to_vec(&[4; 11], b"ad", c).is_ok()
    });

    let pmac = PmacAes128::new_from_slice(&[5; 16]).unwrap();
    let tag = pmac.mac(&msg);
    all_ok &= report("pmac", n, &mut rng, &tag, 0, &|t| {
        pmac.verify_tag(&msg, t).is_ok()
    });

    let xecb = XecbMac::<Aes128>::new_from_slice(&[6; 16]).unwrap();
    let tag = xecb.sign_with_r0(&[7; 16], &msg);
    all_ok &= report("xecb-mac", n, &mut rng, &tag, 16, &|t| {
        xecb.verify_tag(&msg, t).is_ok()
    });

    let xcbc = XcbcXor::<Aes128>::new_from_slice(&[8; 32]).unwrap();
    let ct = xcbc.encrypt_with_r0(&[9; 16], &msg).unwrap();
    all_ok &= report("xcbc-xor", n, &mut rng, &ct, 16, &|c| {
        xcbc.decrypt(c).is_ok()
    });

    let px = PxcbcXor::<Aes128>::new_from_slice(&[10; 32])
        .unwrap()
        .with_segment_blocks(2)
        .unwrap();
    let ct = px.encrypt_with_r0(&[11; 16], &msg).unwrap();
    all_ok &= report("pxcbc-xor", n, &mut rng, &ct, 16, &|c| {
        px.decrypt(c).is_ok()
    });

    if !all_ok {
        std::process::exit(1);
    }
}
