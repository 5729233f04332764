//! `blockmodes seal` / `open` through the real binary: round trips, every
//! kind of tampering, output safety, pipes.

mod common;

use common::*;
use std::path::Path;

/// The modes `seal --mode` offers.
const MODES: &[&str] = &["ocb1", "cwc", "xcbc-xor"];
const HEADER: usize = 88;
const CHUNK: usize = 64 * 1024;

/// The sealed length of a full chunk of `chunk` bytes in `mode`.
fn sealed_chunk(mode: &str, chunk: usize) -> usize {
    match mode {
        "xcbc-xor" => chunk + 48,
        _ => chunk + 16,
    }
}

fn seal_file(d: &Path, mode: &str, extra: &[&str], input: &str, output: &str) {
    let mut args = vec!["seal", "--mode", mode, "--key-file", "k", "-o", output];
    args.extend_from_slice(extra);
    args.push(input);
    ok(&run(d, &args));
}

fn round_trip(mode: &str, sizes: &[usize], extra: &[&str]) {
    let d = dir_with_key();
    for (i, &n) in sizes.iter().enumerate() {
        let msg = data(n, i as u64 + 1);
        std::fs::write(path(d.path(), "m"), &msg).unwrap();
        seal_file(d.path(), mode, extra, "m", "m.bm");
        let sealed = std::fs::read(path(d.path(), "m.bm")).unwrap();
        assert_eq!(&sealed[..8], b"blkmodes");
        assert!(sealed.len() > n + HEADER, "{mode} {n}");
        ok(&run(
            d.path(),
            &["open", "--key-file", "k", "-o", "back", "m.bm"],
        ));
        let back = std::fs::read(path(d.path(), "back")).unwrap();
        assert!(back == msg, "{mode}: round trip of {n} bytes");
        for f in ["m", "m.bm", "back"] {
            std::fs::remove_file(path(d.path(), f)).unwrap();
        }
    }
    assert_eq!(names(d.path()), ["k"], "no temporary file left behind");
}

#[test]
fn round_trip_every_mode_and_size() {
    let sizes = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17];
    for mode in MODES {
        round_trip(mode, &sizes, &[]);
        round_trip(
            mode,
            &[0, 1, 1023, 1024, 1025, 5000],
            &["--chunk-size", "1K"],
        );
    }
}

#[test]
fn round_trip_20_mib() {
    for mode in MODES {
        round_trip(mode, &[20 << 20], &[]);
    }
}

#[test]
fn sealing_twice_gives_different_files() {
    let d = dir_with_key();
    std::fs::write(path(d.path(), "m"), b"same").unwrap();
    seal_file(d.path(), MODES[0], &[], "m", "a");
    seal_file(d.path(), MODES[0], &[], "m", "b");
    assert_ne!(
        std::fs::read(path(d.path(), "a")).unwrap(),
        std::fs::read(path(d.path(), "b")).unwrap()
    );
}

/// A 1K-chunk sealed file of `n` bytes, ready for tampering.
struct Sealed {
    dir: tempfile::TempDir,
    bytes: Vec<u8>,
    chunk: usize,
}

fn sealed(mode: &str, n: usize) -> Sealed {
    let dir = dir_with_key();
    std::fs::write(path(dir.path(), "m"), data(n, 7)).unwrap();
    seal_file(dir.path(), mode, &["--chunk-size", "1K"], "m", "m.bm");
    let bytes = std::fs::read(path(dir.path(), "m.bm")).unwrap();
    Sealed {
        dir,
        bytes,
        chunk: sealed_chunk(mode, 1024),
    }
}

impl Sealed {
    fn chunk(&self, i: usize) -> &[u8] {
        let start = HEADER + i * self.chunk;
        &self.bytes[start..(start + self.chunk).min(self.bytes.len())]
    }

    /// Open `bad` (as a file, to a file): must fail with 1, say `needle`,
    /// and leave no output file nor temporary file.
    fn rejects(&self, what: &str, bad: &[u8], needle: &str) {
        let d = self.dir.path();
        std::fs::write(path(d, "bad.bm"), bad).unwrap();
        let o = run(d, &["open", "--key-file", "k", "-o", "out", "bad.bm"]);
        assert_eq!(code(&o), 1, "{what}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(needle), "{what}: {err:?} lacks {needle:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err:?}");
        assert_eq!(names(d), ["bad.bm", "k", "m", "m.bm"], "{what}: no output");
    }
}

#[test]
fn every_tampering_is_detected() {
    for mode in MODES {
        // 4 full chunks and a short one.
        let s = sealed(mode, 4 * 1024 + 100);
        let b = &s.bytes;
        let n_chunks = 5;
        assert_eq!(b.len(), HEADER + 4 * s.chunk + s.chunk(4).len(), "{mode}");
        let flip = |at: usize| {
            let mut v = b.clone();
            v[at] ^= 0x01;
            v
        };
        for at in [0, 8, 9, 10, 11, 12, 23, 24, 55, 56, 87] {
            s.rejects(&format!("{mode}: header byte {at}"), &flip(at), "");
        }
        s.rejects(
            &format!("{mode}: salt"),
            &flip(30),
            "wrong key or corrupted header",
        );
        s.rejects(&format!("{mode}: magic"), &flip(3), "not a blockmodes file");
        s.rejects(
            &format!("{mode}: version"),
            &flip(8),
            "unsupported format version",
        );
        let at1 = HEADER + s.chunk;
        s.rejects(
            &format!("{mode}: chunk 1"),
            &flip(at1 + 5),
            &format!("at byte {at1}"),
        );
        s.rejects(
            &format!("{mode}: tag of chunk 1"),
            &flip(at1 + s.chunk - 1),
            &format!("at byte {at1}"),
        );
        s.rejects(
            &format!("{mode}: last byte"),
            &flip(b.len() - 1),
            "corrupted or truncated",
        );
        for cut in [
            HEADER + 4 * s.chunk, // at a chunk boundary: the last chunk dropped
            HEADER + 2 * s.chunk,
            HEADER + 2 * s.chunk + 100, // inside a chunk
            b.len() - 1,
            HEADER + 1,
            HEADER, // no payload at all
            40,     // inside the header
        ] {
            s.rejects(&format!("{mode}: truncated at {cut}"), &b[..cut], "");
        }
        let rebuild = |order: &[usize]| {
            let mut v = b[..HEADER].to_vec();
            for &i in order {
                v.extend_from_slice(s.chunk(i));
            }
            v
        };
        assert_eq!(&rebuild(&[0, 1, 2, 3, 4]), b);
        let cases: [(&str, &[usize]); 5] = [
            ("dropped", &[0, 2, 3, 4]),
            ("duplicated", &[0, 1, 1, 2, 3, 4]),
            ("swapped", &[0, 2, 1, 3, 4]),
            ("first dropped", &[1, 2, 3, 4]),
            ("last duplicated", &[0, 1, 2, 3, 4, 4]),
        ];
        for (what, order) in cases {
            s.rejects(
                &format!("{mode}: {what} chunk"),
                &rebuild(order),
                "corrupted or truncated",
            );
        }
        let _ = n_chunks;
        let mut appended = b.clone();
        appended.extend_from_slice(b"x");
        s.rejects(
            &format!("{mode}: one byte appended"),
            &appended,
            "corrupted or truncated",
        );
        let mut appended = b.clone();
        appended.extend_from_slice(&[0u8; 2000]);
        s.rejects(
            &format!("{mode}: a chunk appended"),
            &appended,
            "corrupted or truncated",
        );
    }
}

#[test]
fn appended_to_a_full_last_chunk_is_detected() {
    let s = sealed(MODES[0], 2 * 1024);
    let mut v = s.bytes.clone();
    v.extend_from_slice(&[0u8; 16]);
    s.rejects("16 bytes after a full last chunk", &v, "at byte");
}

#[test]
fn wrong_key_is_reported_before_any_output() {
    for mode in MODES {
        let s = sealed(mode, 3000);
        let d = s.dir.path();
        ok(&run(d, &["keygen", "-o", "k2"]));
        let o = run(d, &["open", "--key-file", "k2", "-o", "out", "m.bm"]);
        fails(&o, 1, "wrong key or corrupted header");
        // To standard output: nothing at all is written.
        let o = run(d, &["open", "--key-file", "k2", "m.bm"]);
        fails(&o, 1, "wrong key");
        assert!(o.stdout.is_empty());
        std::fs::remove_file(path(d, "k2")).unwrap();
        assert_eq!(names(d), ["k", "m", "m.bm"]);
    }
}

#[test]
fn passphrase_round_trip_and_wrong_passphrase() {
    let d = dir_with_key();
    let d = d.path();
    std::fs::write(path(d, "pass"), "correct horse battery staple\n").unwrap();
    std::fs::write(path(d, "wrong"), "correct horse battery stapler\n").unwrap();
    std::fs::write(path(d, "m"), data(100_000, 3)).unwrap();
    ok(&run(
        d,
        &[
            "seal",
            "--mode",
            MODES[0],
            "--passphrase-file",
            "pass",
            "-o",
            "m.bm",
            "m",
        ],
    ));
    let o = run(
        d,
        &["open", "--passphrase-file", "wrong", "-o", "out", "m.bm"],
    );
    fails(&o, 1, "wrong passphrase or corrupted header");
    let o = run(d, &["open", "--key-file", "k", "-o", "out", "m.bm"]);
    fails(&o, 1, "sealed with a passphrase");
    assert!(!path(d, "out").exists());
    // The passphrase file's line ending does not matter.
    std::fs::write(path(d, "pass2"), "correct horse battery staple\r\n").unwrap();
    ok(&run(
        d,
        &["open", "--passphrase-file", "pass2", "-o", "out", "m.bm"],
    ));
    assert_eq!(std::fs::read(path(d, "out")).unwrap(), data(100_000, 3));
    // No key at all and no terminal: a usage error.
    let o = run(d, &["open", "-o", "out2", "m.bm"]);
    fails(&o, 2, "passphrase");
}

#[test]
fn stdin_to_stdout() {
    for mode in MODES {
        let d = dir_with_key();
        let msg = data(300_000, 9);
        let o = run_stdin(d.path(), &["seal", "--mode", mode, "--key-file", "k"], &msg);
        ok(&o);
        let sealed = o.stdout;
        let o = run_stdin(d.path(), &["open", "--key-file", "k", "-"], &sealed);
        ok(&o);
        assert!(o.stdout == msg, "{mode}");
        // Corrupted chunk 2: exactly chunks 0 and 1 are released.
        let mut bad = sealed.clone();
        let at2 = HEADER + 2 * sealed_chunk(mode, CHUNK);
        bad[at2 + 3] ^= 0x80;
        let o = run_stdin(d.path(), &["open", "--key-file", "k"], &bad);
        fails(&o, 1, &format!("corrupted or truncated at byte {at2}"));
        assert!(o.stdout == msg[..2 * CHUNK], "{mode}: verified prefix only");
        // Truncated stream.
        let o = run_stdin(
            d.path(),
            &["open", "--key-file", "k"],
            &sealed[..sealed.len() - 20],
        );
        fails(&o, 1, "corrupted or truncated at byte");
    }
}

#[test]
fn refuses_to_overwrite_without_force() {
    let d = dir_with_key();
    let d = d.path();
    std::fs::write(path(d, "m"), b"hello").unwrap();
    std::fs::write(path(d, "out"), b"precious").unwrap();
    let o = run(
        d,
        &[
            "seal",
            "--mode",
            MODES[0],
            "--key-file",
            "k",
            "-o",
            "out",
            "m",
        ],
    );
    fails(&o, 2, "exists");
    assert_eq!(std::fs::read(path(d, "out")).unwrap(), b"precious");
    ok(&run(
        d,
        &[
            "seal",
            "--mode",
            MODES[0],
            "--key-file",
            "k",
            "-o",
            "m.bm",
            "m",
        ],
    ));
    let o = run(d, &["open", "--key-file", "k", "-o", "out", "m.bm"]);
    fails(&o, 2, "--force");
    assert_eq!(std::fs::read(path(d, "out")).unwrap(), b"precious");
    ok(&run(
        d,
        &["open", "--key-file", "k", "--force", "-o", "out", "m.bm"],
    ));
    assert_eq!(std::fs::read(path(d, "out")).unwrap(), b"hello");
    let o = run(d, &["keygen", "-o", "k"]);
    fails(&o, 2, "exists");
    assert_eq!(names(d), ["k", "m", "m.bm", "out"]);
}

#[test]
fn clear_errors_for_bad_inputs() {
    let d = dir_with_key();
    let d = d.path();
    std::fs::write(path(d, "plain"), b"this is not a sealed file at all, just text.................................................").unwrap();
    fails(
        &run(d, &["open", "--key-file", "k", "-o", "o", "plain"]),
        1,
        "not a blockmodes file",
    );
    fails(
        &run(d, &["open", "--key-file", "k", "-o", "o", "missing"]),
        2,
        "cannot open missing",
    );
    fails(
        &run(
            d,
            &[
                "seal",
                "--mode",
                MODES[0],
                "--key-file",
                "missing",
                "-o",
                "o",
                "plain",
            ],
        ),
        2,
        "missing",
    );
    fails(
        &run(
            d,
            &[
                "seal",
                "--mode",
                MODES[0],
                "--key-file",
                "plain",
                "-o",
                "o",
                "plain",
            ],
        ),
        2,
        "not a blockmodes key file",
    );
    let o = run(
        d,
        &[
            "seal",
            "--key-file",
            "k",
            "--chunk-size",
            "1000",
            "-o",
            "o",
            "plain",
        ],
    );
    assert_eq!(code(&o), 2);
    assert_eq!(names(d), ["k", "plain"]);
}

#[test]
fn keygen_file_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let d = dir_with_key();
    let mode = std::fs::metadata(path(d.path(), "k"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    ok(&run(d.path(), &["keygen", "--force", "-o", "k"]));
    let mode = std::fs::metadata(path(d.path(), "k"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let o = run(d.path(), &["keygen"]);
    ok(&o);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("blockmodes-key-v1 ") && l.len() == 18 + 64)
    );
}

#[test]
fn sigkill_mid_seal_leaves_no_output() {
    use std::io::Write;
    use std::process::Stdio;
    let d = dir_with_key();
    let mut child = bin()
        .current_dir(d.path())
        .args([
            "seal",
            "--mode",
            MODES[0],
            "--key-file",
            "k",
            "-o",
            "out.bm",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A slow source: some data, then the kill lands while seal waits for more,
    // once its temporary output exists.
    stdin.write_all(&data(10 << 20, 4)).unwrap();
    stdin.flush().unwrap();
    let tmp_exists = || {
        names(d.path())
            .iter()
            .any(|n| n.ends_with(".blockmodes-tmp"))
    };
    for _ in 0..200 {
        if tmp_exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(tmp_exists(), "seal started writing");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    drop(stdin);
    assert!(!path(d.path(), "out.bm").exists());
    // At most a temporary file, never the output name.
    for n in names(d.path()) {
        assert!(n == "k" || n.ends_with(".blockmodes-tmp"), "{n}");
    }
}
