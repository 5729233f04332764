//! What users of the familiar tools expect (issue 26, points 6 to 11):
//! sector ranges as cryptsetup, file modes as cp/openssl/ssh, `verify` with
//! sha256sum's options, passphrase sources as openssl, completions and a man
//! page, and wording.

mod common;

use common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

/// Run a shell command line in `dir` (`$B` is the binary).
fn sh(dir: &Path, cmd: &str) -> std::process::Output {
    std::process::Command::new("sh")
        .current_dir(dir)
        .env("B", env!("CARGO_BIN_EXE_blockmodes"))
        .args(["-c", cmd])
        .stdin(Stdio::null())
        .output()
        .expect("sh")
}

fn mode_of(dir: &Path, name: &str) -> u32 {
    std::fs::metadata(path(dir, name))
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn disk_offset_and_count_select_sectors() {
    let d = dir_with_key();
    let dir = d.path();
    let image = data(512 * 16, 1);
    std::fs::write(path(dir, "img"), &image).unwrap();
    let enc = ["disk", "encrypt", "--cipher", "ete", "--key-file", "k"];
    ok(&run(dir, &[&enc[..], &["img", "-o", "full"]].concat()));
    let full = std::fs::read(path(dir, "full")).unwrap();
    // Sectors 2..6 of the image: 2 sectors in, 4 of them, numbered from 2.
    let part = [
        "--offset",
        "1024",
        "--count",
        "4",
        "--first-sector",
        "2",
        "img",
        "-o",
        "part",
    ];
    ok(&run(dir, &[&enc[..], &part[..]].concat()));
    assert!(std::fs::read(path(dir, "part")).unwrap() == full[1024..3072]);
    // From a pipe, the offset is read past.
    let o = run_stdin(
        dir,
        &[
            &enc[..],
            &["--offset", "1024", "--count", "4", "--first-sector", "2"],
            &["-", "-o", "-"],
        ]
        .concat(),
        &image,
    );
    ok(&o);
    assert!(o.stdout == full[1024..3072]);
    // Without --count: to the end.
    let o = run(
        dir,
        &[
            &enc[..],
            &["--offset", "7680", "--first-sector", "15", "img", "-o", "-"],
        ]
        .concat(),
    );
    ok(&o);
    assert!(o.stdout == full[7680..]);
    // Too many sectors, an offset past the end, an offset that leaves a partial sector.
    let o = run(
        dir,
        &[
            &enc[..],
            &["--offset", "7680", "--count", "2", "img", "-o", "x"],
        ]
        .concat(),
    );
    fails(&o, 2, "has only 1 whole 512-byte sectors");
    let o = run(
        dir,
        &[&enc[..], &["--offset", "9000", "img", "-o", "x"]].concat(),
    );
    fails(&o, 2, "past the end");
    let o = run(
        dir,
        &[&enc[..], &["--offset", "100", "img", "-o", "x"]].concat(),
    );
    fails(&o, 2, "whole number of 512-byte sectors");
    assert!(!path(dir, "x").exists());
}

#[test]
fn file_modes_follow_the_familiar_tools() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(path(dir, "m"), b"secret").unwrap();
    std::fs::write(path(dir, "img"), data(1024, 2)).unwrap();
    let o = sh(
        dir,
        "umask 027 && $B seal --key-file k -o m.bm m && $B open --key-file k -o back m.bm \
         && $B disk encrypt --cipher xex --key-file k img -o enc \
         && $B disk decrypt --cipher xex --key-file k enc -o dec && $B keygen -o k2",
    );
    ok(&o);
    assert_eq!(mode_of(dir, "m.bm"), 0o640, "sealed: 0666 less the umask");
    assert_eq!(mode_of(dir, "enc"), 0o640, "encrypted image: umask");
    assert_eq!(mode_of(dir, "back"), 0o600, "decrypted: private");
    assert_eq!(mode_of(dir, "dec"), 0o600, "decrypted image: private");
    assert_eq!(mode_of(dir, "k2"), 0o600, "key: private");
    assert_eq!(stderr(&o), "", "no warning for private keys");

    // A key file others may read: a warning, as ssh gives.
    std::fs::set_permissions(path(dir, "k2"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let o = run(dir, &["mac", "--key-file", "k2", "m"]);
    ok(&o);
    assert!(
        stderr(&o).contains("warning: key file k2 is readable by others (mode 0644)"),
        "{}",
        stderr(&o)
    );
    // `keygen > FILE`: a warning; `keygen -o FILE` and to a pipe: none.
    let o = sh(dir, "umask 022 && $B keygen > k3");
    ok(&o);
    assert!(stderr(&o).contains("use `blockmodes keygen -o FILE`"));
    let o = sh(
        dir,
        "umask 077 && $B keygen > k4 && $B keygen | cat > /dev/null",
    );
    ok(&o);
    assert_eq!(stderr(&o), "");
    // The help's examples use -o.
    let help = run(dir, &["keygen", "--help"]);
    assert!(!String::from_utf8_lossy(&help.stdout).contains("keygen > "));
}

/// A directory with files `a`, `b` and their checksums in `SUMS`.
fn sums_dir() -> tempfile::TempDir {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(path(dir, "a"), b"alpha").unwrap();
    std::fs::write(path(dir, "b"), data(3 << 20, 3)).unwrap();
    let o = run(dir, &["mac", "--key-file", "k", "a", "b"]);
    ok(&o);
    std::fs::write(path(dir, "SUMS"), &o.stdout).unwrap();
    d
}

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn verify_takes_sha256sums_options() {
    let d = sums_dir();
    let dir = d.path();
    let v = ["verify", "--key-file", "k"];
    // --quiet: only failures; --status: nothing at all.
    let o = run(dir, &[&v[..], &["--quiet", "SUMS"]].concat());
    ok(&o);
    assert_eq!(out(&o), "");
    std::fs::write(path(dir, "a"), b"ALPHA").unwrap();
    let o = run(dir, &[&v[..], &["--quiet", "SUMS"]].concat());
    fails(&o, 1, "1 of 2 computed checksums did NOT match");
    assert_eq!(out(&o), "a: FAILED\n");
    let o = run(dir, &[&v[..], &["--status", "SUMS"]].concat());
    assert_eq!(code(&o), 1);
    assert_eq!((out(&o), stderr(&o)), (String::new(), String::new()));
    std::fs::write(path(dir, "a"), b"alpha").unwrap();
    let o = run(dir, &[&v[..], &["--status", "SUMS"]].concat());
    ok(&o);
    assert_eq!(out(&o), "");

    // --ignore-missing.
    std::fs::rename(path(dir, "a"), path(dir, "a.away")).unwrap();
    let o = run(dir, &[&v[..], &["SUMS"]].concat());
    assert_eq!(code(&o), 1);
    let o = run(dir, &[&v[..], &["--ignore-missing", "SUMS"]].concat());
    ok(&o);
    assert_eq!(out(&o), "b: OK\n");
    std::fs::rename(path(dir, "a.away"), path(dir, "a")).unwrap();

    // Malformed lines: a warning (1 line is ...), an error with --strict.
    let mut text = std::fs::read(path(dir, "SUMS")).unwrap();
    text.extend_from_slice(b"not a line\n");
    std::fs::write(path(dir, "SUMS2"), &text).unwrap();
    let o = run(dir, &[&v[..], &["SUMS2"]].concat());
    ok(&o);
    assert!(
        stderr(&o).contains("SUMS2: 1 line is improperly formatted"),
        "{}",
        stderr(&o)
    );
    let o = run(dir, &[&v[..], &["--strict", "SUMS2"]].concat());
    fails(&o, 1, "1 line is improperly formatted");
    text.extend_from_slice(b"also not\n");
    std::fs::write(path(dir, "SUMS2"), &text).unwrap();
    let o = run(dir, &[&v[..], &["--strict", "SUMS2"]].concat());
    fails(&o, 1, "2 lines are improperly formatted");

    // Several check files, one of them on standard input.
    let sums = std::fs::read(path(dir, "SUMS")).unwrap();
    let o = run_stdin(dir, &[&v[..], &["SUMS", "-"]].concat(), &sums);
    ok(&o);
    assert_eq!(out(&o), "a: OK\nb: OK\na: OK\nb: OK\n");
}

#[test]
fn mac_and_verify_with_nul_terminated_lines() {
    let d = dir_with_key();
    let dir = d.path();
    let name = "new\nline";
    std::fs::write(path(dir, name), b"x").unwrap();
    std::fs::write(path(dir, "plain"), b"y").unwrap();
    let o = run(dir, &["mac", "-z", "--key-file", "k", name, "plain"]);
    ok(&o);
    let recs: Vec<&[u8]> = o.stdout.split(|&b| b == 0).collect();
    assert_eq!(recs.len(), 3, "two NUL-terminated records");
    assert!(recs[0].ends_with(b"  new\nline"), "the name as it is");
    assert!(recs[2].is_empty());
    std::fs::write(path(dir, "ZSUMS"), &o.stdout).unwrap();
    let o = run(dir, &["verify", "-z", "--key-file", "k", "ZSUMS"]);
    ok(&o);
    assert_eq!(o.stdout, b"new\nline: OK\0plain: OK\0");
}

#[test]
fn verify_names_other_tools_files_and_a_wrong_key() {
    let d = sums_dir();
    let dir = d.path();
    // A sha256sum file (the digest computed here: SHA-256 of "alpha").
    use sha2::Digest;
    let digest = hex::encode(sha2::Sha256::digest(b"alpha"));
    std::fs::write(path(dir, "SHA"), format!("{digest}  a\n")).unwrap();
    let o = run(dir, &["verify", "--key-file", "k", "SHA"]);
    fails(&o, 1, "this is a sha256sum file");
    // BSD-style and other lengths: named too.
    std::fs::write(path(dir, "TAG"), format!("SHA256 (a) = {digest}\n")).unwrap();
    fails(
        &run(dir, &["verify", "--key-file", "k", "TAG"]),
        1,
        "looks like a file from sha256sum --tag",
    );
    std::fs::write(path(dir, "S512"), format!("{}  a\n", "ab".repeat(64))).unwrap();
    fails(
        &run(dir, &["verify", "--key-file", "k", "S512"]),
        1,
        "sha512sum",
    );
    // Every line fails: the key is probably wrong.
    ok(&run(dir, &["keygen", "-o", "k2"]));
    let o = run(dir, &["verify", "--key-file", "k2", "SUMS"]);
    fails(&o, 1, "the key is probably wrong");
}

#[test]
fn passphrase_from_a_descriptor_or_the_environment() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(path(dir, "m"), b"the message").unwrap();
    std::fs::write(path(dir, "pass"), b"correct horse\n").unwrap();
    // Sealed with --passphrase-env, opened with --passphrase-fd and -file.
    let o = sh(
        dir,
        "BM_PASS='correct horse' $B seal --passphrase-env BM_PASS -o m.bm m \
         && $B open --passphrase-fd 3 -o out1 m.bm 3< pass \
         && printf 'correct horse\\nmore' | $B open --passphrase-fd 4 -o out2 m.bm 4<&0",
    );
    ok(&o);
    assert_eq!(std::fs::read(path(dir, "out2")).unwrap(), b"the message");
    assert_eq!(std::fs::read(path(dir, "out1")).unwrap(), b"the message");
    ok(&run(
        dir,
        &["open", "--passphrase-file", "pass", "-o", "out3", "m.bm"],
    ));
    // Wrong or missing sources.
    let o = sh(
        dir,
        "BM_PASS=wrong $B open --passphrase-env BM_PASS -o x m.bm",
    );
    fails(&o, 1, "wrong passphrase");
    let o = sh(dir, "$B open --passphrase-env BM_UNSET_VAR -o x m.bm");
    fails(&o, 2, "not set");
    let o = sh(dir, "$B open --passphrase-fd 7 -o x m.bm");
    fails(&o, 2, "--passphrase-fd 7");
    let o = run(
        dir,
        &[
            "open",
            "--key-file",
            "k",
            "--passphrase-env",
            "X",
            "-o",
            "x",
            "m.bm",
        ],
    );
    assert_eq!(code(&o), 2, "one secret source only");
    assert!(!path(dir, "x").exists());
}

#[test]
fn completions_and_man_page() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    for (shell, needle) in [
        ("bash", "_blockmodes()"),
        ("zsh", "#compdef blockmodes"),
        ("fish", "complete -c blockmodes"),
    ] {
        let o = run(dir, &["completions", shell]);
        ok(&o);
        let text = out(&o);
        assert!(text.contains(needle), "{shell}");
        assert!(text.contains("passphrase-fd"), "{shell}: the new options");
    }
    let o = run(dir, &["manpage"]);
    ok(&o);
    let man = out(&o);
    assert!(man.contains(".TH blockmodes 1"));
    assert!(man.contains("completions"));
    ok(&run(dir, &["manpage", "--dir", "."]));
    assert!(path(dir, "blockmodes-seal.1").exists());
    assert!(path(dir, "blockmodes-disk-encrypt.1").exists());
}

#[test]
fn wording() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(path(dir, "m"), b"hello").unwrap();
    ok(&run(dir, &["seal", "--key-file", "k", "-o", "m.bm", "m"]));
    let sealed = std::fs::read(path(dir, "m.bm")).unwrap();
    std::fs::write(path(dir, "cut.bm"), &sealed[..50]).unwrap();
    fails(
        &run(dir, &["open", "--key-file", "k", "cut.bm"]),
        1,
        "truncated header (50 of 88 bytes)",
    );
    // kat names a bad file once.
    std::fs::write(path(dir, "README.md"), b"# not json\n").unwrap();
    let o = run(dir, &["kat", "README.md"]);
    assert_eq!(code(&o), 2);
    assert_eq!(stderr(&o).matches("README.md").count(), 1, "{}", stderr(&o));
    // --help says where the file format is documented.
    let help = out(&run(dir, &["--help"]));
    assert!(help.contains("docs/file-format.md in the source"));
    assert!(help.contains("https://github.com/blockmodes/blockmodes"));
}

#[test]
fn bench_columns_line_up() {
    let d = tempfile::tempdir().unwrap();
    let o = run(
        d.path(),
        &[
            "bench",
            "--quick",
            "--modes",
            "cbc-hmac-sha256-random-iv",
            "--sizes",
            "1024",
        ],
    );
    ok(&o);
    let text = out(&o);
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let head = lines[0];
    for row in &lines[1..] {
        assert_eq!(row.len(), head.len(), "{head:?} / {row:?}");
        // The bytes column ends where its heading does.
        let end = head.find("bytes").unwrap() + "bytes".len();
        assert!(row[..end].ends_with("1024"), "{head:?} / {row:?}");
    }
}
