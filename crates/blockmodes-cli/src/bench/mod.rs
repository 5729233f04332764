//! `blockmodes bench`: throughput of every mode next to raw AES-ECB through
//! the same backend, measured in one run.
//!
//! Each case is a closure that processes one message of the chosen size
//! (buffers and keys are set up outside it, as a user who keeps a key object
//! would). Timing: a warm-up, then repeated samples of many calls each, and
//! the median sample.
//!
//! **Cycles** are time-stamp-counter ticks (`rdtsc` on x86-64), calibrated
//! against the wall clock at start-up: they count at the processor's nominal
//! frequency, so with turbo the core's own cycles per byte may differ by the
//! ratio of turbo to nominal clock. On other architectures cycles are
//! estimated as nanoseconds times the calibrated nominal GHz (1.0 if unknown).
//!
//! Each family of modes keeps its cases in its own module; [`make`] asks them
//! in turn.
//!
//! The header names the processor ([`cpu`]): model name, vendor, family and
//! model numbers, and whether it has AES-NI, VAES, VPCLMULQDQ, AVX-512F and
//! AVX-512 IFMA; and the AES tier in use ([`tier_line`]: `generic`, `aesni`,
//! `vaes256`, `vaes512`; the highest the CPU runs, lowered by `--cpu TIER` or
//! the environment variable `BLOCKMODES_CPU`). Every row runs on that tier,
//! the `ecb` yardstick too (the engine's own ECB on `aesni`, `vaes256` and
//! `vaes512`, the `aes` crate's on `generic`), so each ratio compares like
//! with like.
//!
//! **Peers.** Built with the cargo feature `peers` (off by default: its
//! build script compiles OpenSSL 4.0.3 from the pinned `openssl-src`, minutes
//! once per target directory), the family in `peers.rs` adds
//! `openssl-ocb3-encrypt`, `openssl-gcm-encrypt`, `openssl-xts-512`
//! (OpenSSL's EVP interface, cipher contexts keyed once and reused),
//! `ring-gcm-encrypt` (ring's AES-GCM, BoringSSL's kernels),
//! `ocb3-rustcrypto-encrypt` and `eme-rustcrypto-2048` (RustCrypto `ocb3`,
//! `eme-mode`), timed against ECB like every other row; the header then
//! names the OpenSSL and ring versions ([`peers_header`]):
//! `cargo run --release -p blockmodes-cli --features peers -- bench --modes ecb,ocb1-encrypt,openssl-ocb3-encrypt`.

use std::time::{Duration, Instant};

mod base;
pub mod cpu;
mod cwc;
mod disk;
mod ocb1;
mod online;
#[cfg(feature = "peers")]
pub mod peers;
mod pmac;
mod xcbc;

/// `--cpu`'s value: a tier name (`generic`, `armv8`, `aesni`, `vaes256`, `vaes512`).
pub fn parse_tier(s: &str) -> Result<blockmodes::backend::Tier, String> {
    blockmodes::backend::Tier::parse(s).ok_or_else(|| {
        format!(
            "unknown tier `{s}`; known: generic, armv8 (aarch64), aesni, vaes256, vaes512 (x86-64)"
        )
    })
}

/// The header line that names the tier every row (ECB too) runs on.
pub fn tier_line(tier: blockmodes::backend::Tier) -> String {
    format!(
        "tier: {tier} (CPU's highest: {}; lowered by --cpu or BLOCKMODES_CPU); ECB runs on the same tier ({})",
        blockmodes::backend::Tier::cpu(),
        if tier == blockmodes::backend::Tier::Generic {
            "the aes crate"
        } else {
            "the engine's own ECB"
        }
    )
}

/// A benchmark case: one call processes one message.
pub type Case = Box<dyn FnMut()>;

/// Every mode `bench` can measure, in the order it prints them.
pub fn all_modes() -> Vec<&'static str> {
    FAMILIES
        .iter()
        .flat_map(|(modes, _)| modes.iter().copied())
        .collect()
}

/// Each family of modes: its mode names and its case builder. One line per
/// family, so branches that add families merge cleanly.
#[allow(clippy::type_complexity)]
const FAMILIES: &[(&[&str], fn(&str, usize) -> Option<Case>)] = &[
    (base::MODES, base::make),
    (ocb1::MODES, ocb1::make),
    (cwc::MODES, cwc::make),
    (pmac::MODES, pmac::make),
    (xcbc::MODES, xcbc::make),
    (disk::MODES, disk::make),
    (online::MODES, online::make),
    #[cfg(feature = "peers")]
    (peers::MODES, peers::make),
];

/// The versions of the peers built in, for the bench header: a line of text
/// and a JSON value. `None` without the cargo feature `peers`.
pub fn peers_header() -> Option<(String, serde_json::Value)> {
    #[cfg(feature = "peers")]
    {
        Some((peers::description(), peers::to_json()))
    }
    #[cfg(not(feature = "peers"))]
    {
        None
    }
}

/// The default message sizes: 64 B, 256 B, 1 KiB, 4 KiB, 16 KiB, 1 MiB.
pub const DEFAULT_SIZES: &[usize] = &[64, 256, 1024, 4096, 16384, 1 << 20];

/// Build the case for `mode` on messages of `bytes` bytes (AES-128).
pub fn make(mode: &str, bytes: usize) -> Option<Case> {
    FAMILIES.iter().find_map(|(_, make)| make(mode, bytes))
}

/// One measured row.
#[derive(Debug, Clone)]
pub struct Row {
    /// Mode name.
    pub mode: String,
    /// Message size in bytes.
    pub bytes: usize,
    /// Throughput in GB/s (10^9 bytes per second).
    pub gbps: f64,
    /// Cycles per byte (see the module docs for how cycles are estimated).
    pub cpb: f64,
    /// Throughput relative to raw ECB of the same size, timed in alternation
    /// with it ([`measure_against`]).
    pub ratio_to_ecb: f64,
    /// With `--against MODE`: MODE's name and this row's throughput
    /// relative to MODE's, timed in the same alternation (ECB, this row,
    /// MODE, ...): the two rows' ratio from samples taken side by side,
    /// not from two rows timed one after the other.
    pub against: Option<(String, f64)>,
}

impl Row {
    /// The row as one JSON object (the `--json` format).
    pub fn to_json(&self) -> String {
        let mut row = serde_json::json!({
            "mode": self.mode,
            "cipher": "aes-128",
            "bytes": self.bytes,
            "gbps": round3(self.gbps),
            "cpb": round3(self.cpb),
            "ratio_to_ecb": round3(self.ratio_to_ecb),
        });
        if let Some((mode, ratio)) = &self.against {
            row["against"] = mode.as_str().into();
            row["ratio_to_against"] = round3(*ratio).into();
        }
        row.to_string()
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// How long to measure.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Warm-up before sampling.
    pub warmup: Duration,
    /// Target duration of one sample.
    pub sample: Duration,
    /// Number of samples (the median is reported).
    pub samples: usize,
}

impl Timing {
    /// The `--quick` setting: a full run of every mode stays well under 30 s.
    pub const QUICK: Timing = Timing {
        warmup: Duration::from_millis(5),
        sample: Duration::from_millis(1),
        samples: 9,
    };
    /// The default setting.
    pub const FULL: Timing = Timing {
        warmup: Duration::from_millis(100),
        sample: Duration::from_millis(5),
        samples: 41,
    };
}

/// Seconds per call of `case`: median over samples.
pub fn measure(case: &mut Case, timing: Timing) -> f64 {
    let iters = warm_up(case, timing);
    let mut samples: Vec<f64> = (0..timing.samples.max(1))
        .map(|_| sample(case, iters))
        .collect();
    median(&mut samples)
}

/// A mode timed against raw ECB in the same run.
#[derive(Debug, Clone, Copy)]
pub struct Paired {
    /// Seconds per call of the mode (median).
    pub secs: f64,
    /// Seconds per call of ECB on the same size (median).
    pub ecb_secs: f64,
    /// Throughput relative to ECB: the median of the per-pair ratios.
    pub ratio: f64,
}

/// Time `case` and `ecb` in alternating samples (ECB, mode, ECB, mode, ...):
/// a change in the machine's speed during the run (another process, the
/// clock) hits both alike, so the ratio, the median of the pairs'
/// `ecb / mode`, stays put where separately timed medians drift apart.
pub fn measure_against(ecb: &mut Case, case: &mut Case, timing: Timing) -> Paired {
    measure_among(ecb, case, None, timing).0
}

/// As [`measure_against`], with a third case `other` in the alternation
/// (ECB, mode, other, ECB, ...) when given: also the median of the
/// per-round ratios `other / mode` of seconds per call (the mode's
/// throughput relative to `other`'s).
pub fn measure_among(
    ecb: &mut Case,
    case: &mut Case,
    mut other: Option<&mut Case>,
    timing: Timing,
) -> (Paired, Option<f64>) {
    let (ecb_iters, iters) = (warm_up(ecb, timing), warm_up(case, timing));
    let other_iters = other.as_deref_mut().map(|o| warm_up(o, timing));
    let n = timing.samples.max(1);
    let (mut e, mut m, mut r, mut ro) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for _ in 0..n {
        let es = sample(ecb, ecb_iters);
        let ms = sample(case, iters);
        e.push(es);
        m.push(ms);
        r.push(es / ms);
        if let (Some(o), Some(oi)) = (other.as_deref_mut(), other_iters) {
            ro.push(sample(o, oi) / ms);
        }
    }
    let paired = Paired {
        secs: median(&mut m),
        ecb_secs: median(&mut e),
        ratio: median(&mut r),
    };
    (paired, (!ro.is_empty()).then(|| median(&mut ro)))
}

/// Run `case` for the warm-up time; the number of calls that fill one sample.
fn warm_up(case: &mut Case, timing: Timing) -> u64 {
    let t0 = Instant::now();
    let mut calls = 0u64;
    while t0.elapsed() < timing.warmup || calls < 2 {
        case();
        calls += 1;
    }
    let per_call = t0.elapsed().as_secs_f64() / calls as f64;
    ((timing.sample.as_secs_f64() / per_call).ceil() as u64).max(1)
}

/// Seconds per call over `iters` calls.
fn sample(case: &mut Case, iters: u64) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        case();
    }
    t.elapsed().as_secs_f64() / iters as f64
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// Nominal cycles per second, from the time-stamp counter against the wall clock.
pub fn cycles_per_second() -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        let t = Instant::now();
        let c0 = tsc();
        while t.elapsed() < Duration::from_millis(50) {}
        let c1 = tsc();
        (c1 - c0) as f64 / t.elapsed().as_secs_f64()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        1e9
    }
}

#[cfg(target_arch = "x86_64")]
fn tsc() -> u64 {
    // SAFETY-free: `_rdtsc` reads the time-stamp counter and has no preconditions.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
}

/// Check that `modes` and `against` are modes the bench knows
/// ([`all_modes`]), before anything is printed or measured.
///
/// ```
/// let known = vec!["pmac".to_owned()];
/// assert!(blockmodes_cli::bench::check_modes(&known, None).is_ok());
/// assert!(blockmodes_cli::bench::check_modes(&known, Some("nonsense")).is_err());
/// ```
pub fn check_modes(modes: &[String], against: Option<&str>) -> Result<(), String> {
    for m in modes.iter().map(String::as_str).chain(against) {
        if !all_modes().contains(&m) {
            return Err(format!(
                "unknown mode `{m}`; known: {}",
                all_modes().join(", ")
            ));
        }
    }
    Ok(())
}

/// Measure `modes` at `sizes`, with ECB at each size as the yardstick; `emit`
/// receives each row as soon as it is measured. With `against`, every other
/// row is also timed side by side with that mode ([`measure_among`],
/// [`Row::against`]).
pub fn run(
    modes: &[String],
    sizes: &[usize],
    timing: Timing,
    against: Option<&str>,
    emit: &mut dyn FnMut(&Row),
) -> Result<Vec<Row>, String> {
    check_modes(modes, against)?;
    let hz = cycles_per_second();
    let mut rows = Vec::new();
    for &bytes in sizes {
        let mut ecb = make("ecb", bytes).ok_or("ecb case missing")?;
        let mut other = match against {
            Some(a) => {
                Some(make(a, bytes).ok_or_else(|| format!("no case for {a} at {bytes} bytes"))?)
            }
            None => None,
        };
        for m in modes {
            let (p, vs) = if m == "ecb" {
                let secs = measure(&mut ecb, timing);
                let p = Paired {
                    secs,
                    ecb_secs: secs,
                    ratio: 1.0,
                };
                (p, None)
            } else {
                let mut case =
                    make(m, bytes).ok_or_else(|| format!("no case for {m} at {bytes} bytes"))?;
                let o = other.as_mut().filter(|_| Some(m.as_str()) != against);
                measure_among(&mut ecb, &mut case, o, timing)
            };
            let row = Row {
                mode: m.clone(),
                bytes,
                gbps: bytes as f64 / p.secs / 1e9,
                cpb: p.secs * hz / bytes as f64,
                ratio_to_ecb: p.ratio,
                against: against.zip(vs).map(|(a, r)| (a.to_string(), r)),
            };
            emit(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}
