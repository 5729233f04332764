//! The one test harness for the vector files: every file in `vectors/` and
//! `vectors/independent/` whose scheme `kat` implements runs through the
//! same code as `blockmodes kat`,
//! and every vector must pass. Files of schemes not implemented yet are
//! skipped here (the `kat` command reports them as unknown).

use std::path::PathBuf;

use blockmodes_cli::kat;

fn vector_files() -> Vec<PathBuf> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors"));
    // The shared files, then the independent long vectors written by
    // tools/refvectors (not its sectors/ subdirectory: a format of its own).
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("independent")] {
        let mut in_dir: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        in_dir.sort();
        files.extend(in_dir);
    }
    files
}

#[test]
fn every_implemented_scheme_passes_all_its_vectors() {
    let mut ran = 0;
    for path in vector_files() {
        let (scheme, json) = kat::load(&path).expect("vector file parses");
        if !kat::SCHEMES.contains(&scheme.as_str()) {
            eprintln!(
                "skipping {} (scheme {scheme} not implemented)",
                path.display()
            );
            continue;
        }
        let n = json["vectors"].as_array().map_or(0, Vec::len);
        let mut failures = Vec::new();
        let totals = kat::run_file(&path, &mut |line| failures.push(line)).expect("file runs");
        assert!(
            failures.is_empty(),
            "{}:\n{}",
            path.display(),
            failures.join("\n")
        );
        assert_eq!(totals.passed, n, "{}", path.display());
        assert!(n > 0, "{} has no vectors", path.display());
        ran += 1;
    }
    assert!(ran > 0, "no vector file was run");
}

#[test]
fn unknown_scheme_is_a_file_error() {
    let dir = std::env::temp_dir().join(format!("bm-kat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x.json");
    std::fs::write(&f, r#"{"scheme": "no-such-mode", "vectors": [{}]}"#).unwrap();
    let r = kat::run_file(&f, &mut |_| {});
    assert!(matches!(r, Err(kat::KatError::UnknownScheme(_))));
    std::fs::remove_dir_all(&dir).ok();
}
