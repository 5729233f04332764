//! The timing loop and table of the ignored benchmark tests
//! (`aesni/bench.rs`, `cwc/bench.rs`; they need a release build to mean
//! anything): every variant once per round (`reps` calls a sample), in
//! turn, so a noisy neighbour hits them alike; the first [`WARM_UP`] rounds
//! are not counted; the figures are the medians and minima, in ns a call,
//! over the rounds, and the first variant (the yardstick) over each.

use std::hint::black_box;
use std::time::Instant;

/// Rounds run before the counted ones (caches, clocks, the AVX-512
/// warm-up).
const WARM_UP: usize = 20;

/// The layout of [`table`]'s rows.
pub(crate) struct Columns {
    /// The width of the variant column.
    pub(crate) name: usize,
    /// A GB/s column after the median.
    pub(crate) gbps: bool,
    /// The ratio columns' heading (`x aes`: the yardstick's name).
    pub(crate) vs: &'static str,
    /// The ratios' decimals.
    pub(crate) digits: usize,
}

/// Times the `variants` (a name, a call on `buf`) over `rounds` rounds of
/// `reps` calls after the warm-up, then prints the line `\n{title}, {reps}
/// calls per sample, {rounds} rounds:` and a row per variant laid out as
/// `cols` (`bytes`, the message length, gives the GB/s).
pub(crate) fn table<N: AsRef<str>, B: ?Sized, F: FnMut(&mut B)>(
    title: &str,
    bytes: usize,
    variants: &mut [(N, F)],
    buf: &mut B,
    reps: usize,
    rounds: usize,
    cols: &Columns,
) {
    let mut ns: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); variants.len()];
    for round in 0..rounds + WARM_UP {
        for (v, (_, f)) in variants.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..reps {
                f(black_box(&mut *buf));
            }
            let dt = t.elapsed().as_nanos() as f64 / reps as f64;
            if round >= WARM_UP {
                ns[v].push(dt);
            }
        }
    }
    let stats: Vec<(f64, f64)> = ns
        .iter_mut()
        .map(|s| {
            s.sort_by(f64::total_cmp);
            (s[s.len() / 2], s[0])
        })
        .collect();
    println!("\n{title}, {reps} calls per sample, {rounds} rounds:");
    print!(
        "{}",
        rows(
            bytes,
            variants.iter().map(|(n, _)| n.as_ref()),
            &stats,
            cols
        )
    );
}

/// The table's heading and rows: `stats` the (median, min) of each of
/// `names`, the first the yardstick.
fn rows<'n>(
    bytes: usize,
    names: impl Iterator<Item = &'n str>,
    stats: &[(f64, f64)],
    cols: &Columns,
) -> String {
    use core::fmt::Write;
    let (w, d) = (cols.name, cols.digits);
    let mut out = String::new();
    let gb = if cols.gbps {
        format!(" {:>8}", "GB/s")
    } else {
        String::new()
    };
    let vs = cols.vs;
    let _ = writeln!(
        out,
        "{:<w$} {:>10}{gb} {vs:>8} {:>8} {vs:>8}",
        "variant", "median ns", "min ns"
    );
    let (base_med, base_min) = stats[0];
    for (name, &(med, min)) in names.zip(stats) {
        let gb = if cols.gbps {
            format!(" {:>8.2}", bytes as f64 / med)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{name:<w$} {med:>10.1}{gb} {:>8.d$} {min:>8.1} {:>8.d$}",
            base_med / med,
            base_min / min
        );
    }
    out
}

/// The two layouts the benchmarks print, against the format they had
/// before this module (expected text from Python's format, the same
/// specification).
#[test]
fn rows_keep_the_layout() {
    let names = ["aes crate ecb", "OCB1 encrypt"];
    let stats = [(1000.0, 900.0), (2000.0, 1500.0)];
    let wide = Columns {
        name: 40,
        gbps: true,
        vs: "x aes",
        digits: 2,
    };
    assert_eq!(
        rows(16384, names.into_iter(), &stats, &wide),
        "variant                                   median ns     GB/s    x aes   min ns    x aes\n\
         aes crate ecb                                1000.0    16.38     1.00    900.0     1.00\n\
         OCB1 encrypt                                 2000.0     8.19     0.50   1500.0     0.60\n"
    );
    let short = Columns {
        name: 32,
        gbps: false,
        vs: "x ecb",
        digits: 3,
    };
    assert_eq!(
        rows(16384, names.into_iter(), &stats, &short),
        "variant                           median ns    x ecb   min ns    x ecb\n\
         aes crate ecb                        1000.0    1.000    900.0    1.000\n\
         OCB1 encrypt                         2000.0    0.500   1500.0    0.600\n"
    );
}

/// The loop runs every variant `(rounds + WARM_UP) reps` times.
#[test]
fn table_runs_each_variant() {
    type Call<'a> = Box<dyn FnMut(&mut [u8]) + 'a>;
    let (mut a, mut b) = (0, 0);
    let mut variants: [(&str, Call<'_>); 2] = [
        ("a", Box::new(|x: &mut [u8]| a += x.len())),
        ("b", Box::new(|x: &mut [u8]| b += x.len())),
    ];
    let cols = Columns {
        name: 8,
        gbps: true,
        vs: "x a",
        digits: 2,
    };
    table("3 B", 3, &mut variants, &mut [0u8; 3][..], 2, 5, &cols);
    drop(variants);
    assert_eq!((a, b), (3 * 2 * (5 + WARM_UP), 3 * 2 * (5 + WARM_UP)));
}
