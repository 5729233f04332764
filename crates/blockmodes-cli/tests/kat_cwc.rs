//! `blockmodes kat` on `cwc-aes`: the paper's 18 vectors pass, tampered
//! vectors marked invalid are rejected, wrong expectations are reported.

use std::path::Path;

use blockmodes_cli::kat::{KatError, Vector, run_file, run_vector};
use serde_json::{Value, json};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/cwc-aes.json");

fn first_vector() -> Value {
    let json: Value = serde_json::from_str(&std::fs::read_to_string(FILE).unwrap()).unwrap();
    json["vectors"][3].clone() // #4: AES-128 with associated data
}

#[test]
fn paper_vectors_pass() {
    let mut failures = Vec::new();
    let totals = run_file(Path::new(FILE), &mut |line| failures.push(line)).unwrap();
    assert_eq!((totals.passed, totals.failed), (18, 0), "{failures:?}");
}

#[test]
fn invalid_vectors_are_rejected() {
    let mut v = first_vector();
    let mut tag = hex::decode(v["tag"].as_str().unwrap()).unwrap();
    tag[0] ^= 1;
    v["tag"] = json!(hex::encode(tag));
    v["result"] = json!("invalid");
    assert_eq!(run_vector("cwc-aes", &Vector::new(&v, 0)).unwrap(), Ok(()));
    // the untampered vector marked invalid is a failure
    let mut ok = first_vector();
    ok["result"] = json!("invalid");
    assert!(
        run_vector("cwc-aes", &Vector::new(&ok, 0))
            .unwrap()
            .is_err()
    );
}

#[test]
fn wrong_expectations_are_reported() {
    for field in ["ct", "hash_value", "aes_mcpt", "hash_key"] {
        let mut v = first_vector();
        let mut x = hex::decode(v[field].as_str().unwrap()).unwrap();
        x[0] ^= 0x80;
        v[field] = json!(hex::encode(x));
        let out = run_vector("cwc-aes", &Vector::new(&v, 0)).unwrap();
        assert!(out.is_err(), "{field}");
    }
    // a short tag selects a shorter tag length: the prefix of the full tag
    let mut v = first_vector();
    let tag = v["tag"].as_str().unwrap()[..16].to_owned();
    v["tag"] = json!(tag);
    assert_eq!(run_vector("cwc-aes", &Vector::new(&v, 0)).unwrap(), Ok(()));
}

#[test]
fn malformed_vectors_are_file_errors() {
    let mut v = first_vector();
    v["key"] = json!("0011");
    assert!(matches!(
        run_vector("cwc-aes", &Vector::new(&v, 0)),
        Err(KatError::Field { .. })
    ));
    let mut v = first_vector();
    v["tag"] = json!("");
    assert!(matches!(
        run_vector("cwc-aes", &Vector::new(&v, 0)),
        Err(KatError::Field { .. })
    ));
    let mut v = first_vector();
    v.as_object_mut().unwrap().remove("nonce");
    assert!(matches!(
        run_vector("cwc-aes", &Vector::new(&v, 0)),
        Err(KatError::Field { .. })
    ));
}
