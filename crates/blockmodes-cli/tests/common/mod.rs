//! Helpers for the tests that run the real `blockmodes` binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_blockmodes"))
}

/// Run `blockmodes ARGS...` in `dir`.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run blockmodes")
}

/// Run `blockmodes ARGS...` in `dir` with `input` on standard input.
pub fn run_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_blockmodes"))
        .current_dir(dir)
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .expect("run blockmodes")
}

/// The exit status (panics on a signal).
pub fn code(o: &Output) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match o.status.code() {
        Some(c) => c,
        None => panic!("killed by signal {:?}", o.status.signal()),
    }
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Assert a success.
#[track_caller]
pub fn ok(o: &Output) {
    assert_eq!(code(o), 0, "stderr: {}", stderr(o));
}

/// Assert exit status `want`, one line on standard error containing `needle`.
#[track_caller]
pub fn fails(o: &Output, want: i32, needle: &str) {
    let err = stderr(o);
    assert_eq!(code(o), want, "stderr: {err}");
    assert!(err.contains(needle), "stderr {err:?} lacks {needle:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
}

/// A fresh temporary directory with a key file `k` in it.
pub fn dir_with_key() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    ok(&run(d.path(), &["keygen", "-o", "k"]));
    d
}

/// Deterministic pseudo-random bytes (xorshift64*), different per `seed`.
pub fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        v.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    v.truncate(len);
    v
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `dir/name`.
pub fn path(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

/// The master key of a key file, read as section 1 describes.
pub fn master_key(text: &str) -> [u8; 32] {
    let line = text
        .lines()
        .find(|l| l.starts_with("blockmodes-key-v1 "))
        .expect("key line");
    let mut k = [0u8; 32];
    hex::decode_to_slice(line["blockmodes-key-v1 ".len()..].trim(), &mut k).unwrap();
    k
}

/// `HKDF-Expand(HKDF-Extract("", K), label, len)` (docs/file-format.md, sections 3 and 4).
pub fn subkey(master: &[u8; 32], label: &str, len: usize) -> Vec<u8> {
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(None, master);
    let mut out = vec![0u8; len];
    hk.expand(label.as_bytes(), &mut out).unwrap();
    out
}
