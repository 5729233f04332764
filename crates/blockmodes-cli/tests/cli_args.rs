//! Findings 2 and 3 of issue 13's outside review:
//! * `open` caps the Argon2id work a header may ask for before it
//!   authenticates (`--max-kdf-memory`, `--max-kdf-passes`);
//! * no command-line value ends in a panic: every subcommand runs with zero,
//!   negative, huge and non-numeric values and exits 0, 1 or 2 (never 101).

mod common;

use std::time::{Duration, Instant};

use common::*;

/// A passphrase header (ocb1, 64 KiB chunks) with the given Argon2id costs,
/// a fixed salt and a tag of zeros: it can never authenticate.
fn costly_header(m_kib: u32, t: u32, p: u32) -> Vec<u8> {
    let mut h = b"blkmodes".to_vec();
    h.extend_from_slice(&[1, 1, 2, 16]); // version, mode ocb1, passphrase, chunk 2^16
    h.extend_from_slice(&m_kib.to_be_bytes());
    h.extend_from_slice(&t.to_be_bytes());
    h.extend_from_slice(&p.to_be_bytes());
    h.extend_from_slice(&[7; 32]); // salt
    h.extend_from_slice(&[0; 32]); // tag
    h.extend_from_slice(&[0; 100]); // a chunk's worth of nothing
    h
}

/// Finding 2: the 188-byte file (1 GiB, t = 64, p = 16: minutes of
/// Argon2id before) is refused at once, naming the flags; nothing is written.
#[test]
fn open_refuses_a_costly_header_before_computing() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    std::fs::write(path(d, "pass"), "pw\n").unwrap();
    std::fs::write(path(d, "evil.bm"), costly_header(1 << 20, 64, 16)).unwrap();
    let start = Instant::now();
    let o = run(
        d,
        &["open", "--passphrase-file", "pass", "-o", "out", "evil.bm"],
    );
    assert!(start.elapsed() < Duration::from_secs(10), "Argon2id ran");
    fails(&o, 1, "--max-kdf-memory 1024 --max-kdf-passes 64");
    assert!(stderr(&o).contains("nothing was computed"));
    assert!(!path(d, "out").exists());
}

/// Finding 2: a cheap header over the default pass limit is refused; the
/// flag raises the limit (then the header is tried, and fails to
/// authenticate, as its tag is zeros).
#[test]
fn kdf_limit_flags_raise_the_cap() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    std::fs::write(path(d, "pass"), "pw\n").unwrap();
    std::fs::write(path(d, "t9.bm"), costly_header(8 * 1024, 9, 1)).unwrap();
    let o = run(
        d,
        &["open", "--passphrase-file", "pass", "-o", "out", "t9.bm"],
    );
    fails(&o, 1, "--max-kdf-passes 9");
    let o = run(
        d,
        &[
            "open",
            "--max-kdf-passes",
            "9",
            "--passphrase-file",
            "pass",
            "-o",
            "out",
            "t9.bm",
        ],
    );
    fails(&o, 1, "wrong passphrase or corrupted header");
    // A file from `seal` (64 MiB, 3 passes) opens under the default limit,
    // not under a lower one.
    std::fs::write(path(d, "m"), data(5000, 1)).unwrap();
    ok(&run(
        d,
        &["seal", "--passphrase-file", "pass", "-o", "m.bm", "m"],
    ));
    let o = run(
        d,
        &[
            "open",
            "--max-kdf-memory",
            "32",
            "--passphrase-file",
            "pass",
            "-o",
            "out",
            "m.bm",
        ],
    );
    fails(&o, 1, "--max-kdf-memory 64");
    ok(&run(
        d,
        &["open", "--passphrase-file", "pass", "-o", "out", "m.bm"],
    ));
    assert_eq!(std::fs::read(path(d, "out")).unwrap(), data(5000, 1));
}

/// Values every numeric (and positional) argument is tried with.
const VALUES: &[&str] = &[
    "0",
    "-1",
    "-0",
    "+0",
    "1",
    "15",
    "17",
    "4095",
    "4097",
    "65536",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "1.5",
    "1e3",
    "0x10",
    "abc",
    "",
    " ",
    "\u{ff11}", // a fullwidth digit one
    "16M",
    "17M",
    "99999999999M",
    "-4K",
];

/// Finding 3: `--sector-size 0` divided by zero (exit 101). Every
/// subcommand, with every value in each of its arguments, exits 0, 1 or 2
/// without a panic.
#[test]
fn no_argument_value_panics() {
    let d = dir_with_key();
    let d = d.path();
    std::fs::write(path(d, "pass"), "pw\n").unwrap();
    std::fs::write(path(d, "img"), data(4096, 2)).unwrap();
    std::fs::write(path(d, "m"), data(3000, 3)).unwrap();
    ok(&run(d, &["seal", "--key-file", "k", "-o", "m.bm", "m"]));
    ok(&run(
        d,
        &["seal", "--passphrase-file", "pass", "-o", "p.bm", "m"],
    ));
    let sums = run(d, &["mac", "--key-file", "k", "m"]);
    ok(&sums);
    std::fs::write(path(d, "SUMS"), &sums.stdout).unwrap();

    let mut runs = 0;
    for v in VALUES {
        let mut cases: Vec<Vec<String>> = Vec::new();
        let s = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        cases.push(s(&[
            "seal",
            &format!("--chunk-size={v}"),
            "--key-file",
            "k",
            "--force",
            "-o",
            "out.bm",
            "m",
        ]));
        for flag in ["--max-kdf-memory", "--max-kdf-passes"] {
            cases.push(s(&[
                "open",
                &format!("{flag}={v}"),
                "--passphrase-file",
                "pass",
                "--force",
                "-o",
                "out",
                "p.bm",
            ]));
        }
        for action in ["encrypt", "decrypt"] {
            for cipher in ["ete", "eme", "xex"] {
                cases.push(s(&[
                    "disk",
                    action,
                    "--cipher",
                    cipher,
                    &format!("--sector-size={v}"),
                    "--key-file",
                    "k",
                    "--force",
                    "-o",
                    "out.img",
                    "img",
                ]));
                for size in ["512", "4096"] {
                    cases.push(s(&[
                        "disk",
                        action,
                        "--cipher",
                        cipher,
                        "--sector-size",
                        size,
                        &format!("--first-sector={v}"),
                        "--key-file",
                        "k",
                        "--force",
                        "-o",
                        "out.img",
                        "img",
                    ]));
                }
            }
        }
        cases.push(s(&["bench", &format!("--sizes={v}"), "--modes", "none"]));
        cases.push(s(&["bench", &format!("--modes={v}"), "--sizes", "0"]));
        cases.push(s(&["mac", "--key-file", "k", "--", v]));
        cases.push(s(&["mac", "--mode=pmac", &format!("--key-file={v}"), "m"]));
        cases.push(s(&["verify", "--key-file", "k", "--", v]));
        cases.push(s(&["verify", &format!("--key-file={v}"), "SUMS"]));
        cases.push(s(&["kat", "--", v]));
        cases.push(s(&["keygen", "--force", &format!("--output={v}x")]));
        cases.push(s(&[
            "open",
            "--key-file",
            "k",
            "-o",
            "out2",
            "--force",
            "--",
            v,
        ]));
        cases.push(s(&[v]));
        for args in &cases {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = run(d, &args);
            let err = stderr(&o);
            let c = o.status.code();
            assert!(
                matches!(c, Some(0..=2)) && !err.contains("panicked"),
                "blockmodes {args:?}: exit {c:?}, stderr {err}"
            );
            runs += 1;
        }
    }
    assert!(runs > 500, "{runs}");
}
