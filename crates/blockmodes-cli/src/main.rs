//! `blockmodes`: known-answer tests, benchmarks, and (later) file and disk encryption.

use std::path::PathBuf;
use std::process::ExitCode;

use blockmodes_cli::{bench, kat};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "blockmodes",
    version,
    about = "Block-cipher modes from the papers: exact, fast, safe"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run test-vector files (shared/spec/vectors.md format) through the library.
    ///
    /// Prints one line per failing vector and closes with `N passed, M failed`.
    /// Exit status: 0 all passed, 1 a vector failed, 2 a file is unreadable,
    /// names an unknown scheme or lacks a field.
    ///
    /// Example: blockmodes kat vectors/*.json
    Kat {
        /// Vector files.
        files: Vec<PathBuf>,
        /// Print the schemes kat knows and exit.
        #[arg(long)]
        list: bool,
    },
    /// Measure every mode next to raw AES-128-ECB (GB/s, cycles/byte, ratio to ECB).
    ///
    /// Example: blockmodes bench --quick --modes ocb1-encrypt,pmac --sizes 4096,16384
    Bench {
        /// Comma-separated modes (default: all; `--list` shows them).
        #[arg(long, value_delimiter = ',')]
        modes: Vec<String>,
        /// Comma-separated message sizes in bytes (suffixes K and M allowed).
        #[arg(long, value_delimiter = ',', value_parser = parse_size)]
        sizes: Vec<usize>,
        /// One JSON object per line instead of a table.
        #[arg(long)]
        json: bool,
        /// Short timing: the whole run stays under 30 seconds.
        #[arg(long)]
        quick: bool,
        /// Print the modes bench knows and exit.
        #[arg(long)]
        list: bool,
    },
}

fn parse_size(s: &str) -> Result<usize, String> {
    let (num, mul) = match s.trim().to_ascii_uppercase() {
        t if t.ends_with("KIB") || t.ends_with('K') => (
            t.trim_end_matches("KIB").trim_end_matches('K').to_owned(),
            1024,
        ),
        t if t.ends_with("MIB") || t.ends_with('M') => (
            t.trim_end_matches("MIB").trim_end_matches('M').to_owned(),
            1 << 20,
        ),
        t => (t.trim_end_matches('B').to_owned(), 1),
    };
    let n: usize = num.parse().map_err(|_| format!("not a size: `{s}`"))?;
    match n.checked_mul(mul) {
        Some(b) if b > 0 && b <= 1 << 30 => Ok(b),
        _ => Err(format!("size out of range (1 B to 1 GiB): `{s}`")),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Kat { files, list } => run_kat(&files, list),
        Command::Bench {
            modes,
            sizes,
            json,
            quick,
            list,
        } => run_bench(modes, sizes, json, quick, list),
    }
}

fn run_kat(files: &[PathBuf], list: bool) -> ExitCode {
    if list {
        for s in kat::SCHEMES {
            println!("{s}");
        }
        return ExitCode::SUCCESS;
    }
    if files.is_empty() {
        eprintln!("blockmodes kat: no vector files given (try: blockmodes kat vectors/*.json)");
        return ExitCode::from(2);
    }
    let mut total = kat::Totals::default();
    for f in files {
        match kat::run_file(f, &mut |line| println!("{line}")) {
            Ok(t) => {
                total.passed += t.passed;
                total.failed += t.failed;
            }
            Err(e) => {
                eprintln!("blockmodes kat: {}: {e}", f.display());
                println!("{} passed, {} failed", total.passed, total.failed);
                return ExitCode::from(2);
            }
        }
    }
    println!("{} passed, {} failed", total.passed, total.failed);
    if total.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn run_bench(
    modes: Vec<String>,
    sizes: Vec<usize>,
    json: bool,
    quick: bool,
    list: bool,
) -> ExitCode {
    if list {
        for m in bench::all_modes() {
            println!("{m}");
        }
        return ExitCode::SUCCESS;
    }
    let modes: Vec<String> = if modes.is_empty() {
        bench::all_modes().iter().map(|s| s.to_string()).collect()
    } else {
        modes
    };
    let sizes = if sizes.is_empty() {
        bench::DEFAULT_SIZES.to_vec()
    } else {
        sizes
    };
    let timing = if quick {
        bench::Timing::QUICK
    } else {
        bench::Timing::FULL
    };
    if !json {
        println!(
            "# AES-128, one thread; cycles = TSC ticks (nominal clock), ratio = throughput / raw ECB at the same size, same run"
        );
        println!(
            "{:<22} {:>9} {:>9} {:>9} {:>8}",
            "mode", "bytes", "GB/s", "cyc/byte", "x ECB"
        );
    }
    let mut emit = |r: &bench::Row| {
        if json {
            println!("{}", r.to_json());
        } else {
            println!(
                "{:<22} {:>9} {:>9.3} {:>9.3} {:>8.3}",
                r.mode, r.bytes, r.gbps, r.cpb, r.ratio_to_ecb
            );
        }
    };
    match bench::run(&modes, &sizes, timing, &mut emit) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blockmodes bench: {e}");
            ExitCode::from(2)
        }
    }
}
