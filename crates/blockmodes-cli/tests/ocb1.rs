//! The `kat` runner on `ocb1-aes` (the shipped vectors, plus tampered copies
//! that must be rejected or fail) and the OCB 1.0 bench cases.

use std::path::{Path, PathBuf};

use blockmodes_cli::{bench, kat};
use serde_json::Value;

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/ocb1-aes.json")
}

fn run(path: &Path) -> (kat::Totals, Vec<String>) {
    let mut lines = Vec::new();
    let totals = kat::run_file(path, &mut |l| lines.push(l)).expect("file runs");
    (totals, lines)
}

#[test]
fn shipped_vectors_pass() {
    let (totals, lines) = run(&vectors());
    assert!(lines.is_empty(), "{lines:?}");
    assert!(totals.passed >= 6 && totals.failed == 0, "{totals:?}");
}

/// Tampered copies of the shipped vectors: marked `invalid` they must be
/// rejected (pass), left `valid` they must fail.
#[test]
fn tampered_vectors() {
    let text = std::fs::read_to_string(vectors()).unwrap();
    let mut json: Value = serde_json::from_str(&text).unwrap();
    let n = json["vectors"].as_array().unwrap().len();
    for v in json["vectors"].as_array_mut().unwrap() {
        let tag = v["tag"].as_str().unwrap().to_owned();
        let flipped = format!("{}{}", if &tag[..1] == "0" { "1" } else { "0" }, &tag[1..]);
        v["tag"] = Value::String(flipped);
    }
    let dir = std::env::temp_dir().join(format!("blockmodes-kat-ocb1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let valid = dir.join("tampered-valid.json");
    std::fs::write(&valid, json.to_string()).unwrap();
    let (totals, lines) = run(&valid);
    assert_eq!((totals.passed, totals.failed), (0, n), "{lines:?}");
    assert_eq!(lines.len(), n);

    for v in json["vectors"].as_array_mut().unwrap() {
        v["result"] = Value::String("invalid".into());
    }
    let invalid = dir.join("tampered-invalid.json");
    std::fs::write(&invalid, json.to_string()).unwrap();
    let (totals, lines) = run(&invalid);
    assert_eq!((totals.passed, totals.failed), (n, 0), "{lines:?}");

    std::fs::remove_dir_all(&dir).ok();
}

/// Shorter tags: each vector with its tag cut to 1..=16 bytes still passes
/// (a shorter tag is the prefix of the full one).
#[test]
fn truncated_tags_pass() {
    let text = std::fs::read_to_string(vectors()).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    for v in json["vectors"].as_array().unwrap() {
        for tau in 1..=16 {
            let mut v = v.clone();
            let tag = v["tag"].as_str().unwrap()[..2 * tau].to_owned();
            v["tag"] = Value::String(tag);
            let vector = kat::Vector::new(&v, 0);
            let outcome = kat::run_vector("ocb1-aes", &vector).expect("runs");
            assert_eq!(outcome, Ok(()), "tau {tau}");
        }
    }
}

#[test]
fn bench_cases_run() {
    for mode in ["ocb1-encrypt", "ocb1-decrypt"] {
        assert!(bench::all_modes().contains(&mode));
        for bytes in [1, 64, 4096] {
            let mut case = bench::make(mode, bytes).expect("case");
            case();
            case();
        }
    }
}
