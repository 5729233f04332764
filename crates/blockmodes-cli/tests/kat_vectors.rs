//! The one test harness for the vector files: every file in `vectors/`,
//! `vectors/independent/` and `vectors/negative/` whose scheme `kat` implements runs through the
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
    for dir in [
        root.clone(),
        root.join("independent"),
        root.join("negative"),
    ] {
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

/// Every vector on each AES backend this CPU runs (the generic path, the
/// fused kernels on AES-NI and on VAES-512): keys set up while a backend
/// is forced take it (this thread only).
#[test]
fn every_implemented_scheme_passes_all_its_vectors() {
    use blockmodes::backend::{available, force};
    for &backend in available() {
        let prev = force(backend);
        every_vector_here(backend);
        force(prev);
    }
}

fn every_vector_here(backend: blockmodes::backend::Backend) {
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
            "{} ({backend:?}):\n{}",
            path.display(),
            failures.join("\n")
        );
        assert_eq!(totals.passed, n, "{} ({backend:?})", path.display());
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

/// The schemes that must have a file of negative vectors (issue 13).
const NEGATIVE: &[&str] = &[
    "ocb1-aes",
    "pmac-aes",
    "cwc-aes",
    "xcbc-xor-aes",
    "xcbc-xor-ctr-aes",
    "pxcbc-xor-aes",
    "xecb-mac-aes",
    "xecb-mac-ctr-aes",
];

fn negative_file(scheme: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/negative"
    ))
    .join(format!("{scheme}.json"))
}

#[test]
fn negative_files_hold_at_least_50_invalid_vectors_each() {
    for scheme in NEGATIVE {
        let path = negative_file(scheme);
        let (s, json) = kat::load(&path).expect("negative file parses");
        assert_eq!(&s, scheme, "{}", path.display());
        let vs = json["vectors"].as_array().expect("vectors");
        assert!(vs.len() >= 50, "{}: {} vectors", path.display(), vs.len());
        for v in vs {
            assert_eq!(v["result"], "invalid", "{}: {}", path.display(), v["name"]);
        }
    }
}

/// The runner is not vacuous: the same vectors marked `valid` fail (they
/// are not reproduced by encryption / signing, or do not decrypt).
#[test]
fn negative_vectors_marked_valid_fail() {
    for scheme in NEGATIVE {
        let (_, mut json) = kat::load(&negative_file(scheme)).expect("negative file parses");
        let vs = json["vectors"].as_array_mut().expect("vectors");
        vs.truncate(20); // bit flips, with tag_size = len(tag)
        for v in vs.iter_mut() {
            v["result"] = "valid".into();
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("v.json");
        std::fs::write(&f, json.to_string()).expect("write");
        let totals = kat::run_file(&f, &mut |_| {}).expect("file runs");
        assert_eq!((totals.passed, totals.failed), (0, 20), "{scheme}");
    }
}
