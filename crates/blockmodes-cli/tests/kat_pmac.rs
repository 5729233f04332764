//! `blockmodes kat vectors/pmac-aes.json` through the library entry point the
//! command uses: every vector passes.

use std::path::Path;

use blockmodes_cli::kat::{Totals, run_file};

#[test]
fn pmac_aes_vectors_pass() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/pmac-aes.json"
    ));
    let mut failures = Vec::new();
    let totals = run_file(path, &mut |line| failures.push(line)).expect("pmac-aes.json runs");
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(
        totals,
        Totals {
            passed: 7,
            failed: 0
        }
    );
}

#[test]
fn an_invalid_pmac_vector_is_rejected() {
    // A copy of PMAC-AES-128-3B with its tag changed, and one with a tag of
    // 17 bytes: both marked invalid, so both must count as passed.
    let dir = std::env::temp_dir().join(format!("blockmodes-kat-pmac-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pmac-invalid.json");
    std::fs::write(
        &file,
        r#"{"scheme": "pmac-aes", "vectors": [
            {"name": "bad-tag", "key": "000102030405060708090a0b0c0d0e0f", "msg": "000102",
             "tag": "256ba5193c1b991b4df0c51f388a9e28", "result": "invalid"},
            {"name": "long-tag", "key": "000102030405060708090a0b0c0d0e0f", "msg": "000102",
             "tag": "256ba5193c1b991b4df0c51f388a9e2700", "result": "invalid"},
            {"name": "bad-tag-marked-valid", "key": "000102030405060708090a0b0c0d0e0f", "msg": "000102",
             "tag": "256ba5193c1b991b4df0c51f388a9e28", "result": "valid"}
        ]}"#,
    )
    .unwrap();
    let mut failures = Vec::new();
    let totals = run_file(&file, &mut |line| failures.push(line)).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        totals,
        Totals {
            passed: 2,
            failed: 1
        },
        "{failures:#?}"
    );
    assert!(failures[0].contains("bad-tag-marked-valid"));
}
