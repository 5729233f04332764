//! Hostile and unusual inputs a demanding new user tries (the CLI trial of
//! 2026-11-29): each test failed before its fix.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{bin, code, dir_with_key, fails, ok, run, stderr};

/// `mkfifo PATH`.
fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(st.success());
}

/// Feed a FIFO up to `limit` bytes of `fill` while `args` run in `dir`;
/// returns how many bytes the command took before it closed the FIFO, and
/// its output. A command that reads a secret file whole never closes it early.
fn feed_fifo(
    dir: &Path,
    fifo: &str,
    args: &[&str],
    fill: u8,
    limit: usize,
) -> (usize, std::process::Output) {
    let path = dir.join(fifo);
    mkfifo(&path);
    let child = bin()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // SIGPIPE is ignored in the test harness: a closed reader is EPIPE.
    let mut w = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("open the fifo");
    let piece = vec![fill; 64 * 1024];
    let mut sent = 0;
    while sent < limit {
        match w.write(&piece) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    drop(w);
    (sent, child.wait_with_output().expect("wait"))
}

/// A key file or passphrase file that never ends (`/dev/zero`, a disk image
/// given by mistake) was read whole into memory: the command hung and grew
/// until the machine ran out of memory. Now a key file is refused past
/// 64 KiB, and only the first line of a passphrase file is read.
#[test]
fn endless_key_and_passphrase_files_are_not_read_whole() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("in"), b"x").unwrap();
    let limit = 32 << 20;
    let (sent, o) = feed_fifo(
        dir,
        "kf",
        &["seal", "--key-file", "kf", "-o", "out", "in"],
        b'0',
        limit,
    );
    assert!(sent < limit, "the key file was read whole ({sent} bytes)");
    fails(&o, 2, "not a blockmodes key file");
    let (sent, o) = feed_fifo(
        dir,
        "pf",
        &["seal", "--passphrase-file", "pf", "-o", "out", "in"],
        b'p',
        limit,
    );
    assert!(
        sent < limit,
        "the passphrase file was read whole ({sent} bytes)"
    );
    fails(&o, 2, "longer than");
    assert!(!dir.join("out").exists());
}

/// A passphrase line longer than the limit is refused the same way from a
/// file and from a descriptor (before, the descriptor's was cut at 64 KiB and
/// the file's was not: a file sealed with one did not open with the other).
#[test]
fn an_overlong_passphrase_is_refused_from_any_source() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("in"), b"x").unwrap();
    let mut long = vec![b'a'; 70_000];
    long.push(b'\n');
    std::fs::write(dir.join("pass"), &long).unwrap();
    let o = run(dir, &["seal", "--passphrase-file", "pass", "-o", "a", "in"]);
    fails(&o, 2, "longer than");
    let o = bin()
        .current_dir(dir)
        .args(["seal", "--passphrase-fd", "0", "-o", "b", "in"])
        .stdin(std::fs::File::open(dir.join("pass")).unwrap())
        .output()
        .unwrap();
    fails(&o, 2, "longer than");
    assert!(!dir.join("a").exists() && !dir.join("b").exists());
}

/// `mac - -` reads standard input once, in order, as `sha256sum - -` does:
/// the first `-` gets the input, the second the empty rest. Before, the two
/// were read by two threads at once: each got pieces of the input, and both
/// tags were of neither (exit 0).
#[test]
fn dash_twice_reads_standard_input_once_in_order() {
    let d = dir_with_key();
    let dir = d.path();
    let input = common::data(20 << 20, 7);
    std::fs::write(dir.join("f"), &input).unwrap();
    std::fs::write(dir.join("e"), b"").unwrap();
    let tag_of = |name: &str| {
        let o = run(dir, &["mac", "--key-file", "k", name]);
        ok(&o);
        String::from_utf8(o.stdout).unwrap()[..32].to_owned()
    };
    let want = format!("{}  -\n{}  -\n", tag_of("f"), tag_of("e"));
    let o = common::run_stdin(dir, &["mac", "--key-file", "k", "-", "-"], &input);
    ok(&o);
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
}

/// Standard output that cannot be written (a full disk: `/dev/full`) is an
/// I/O error, exit 2 with one line, for every command, as for `sha256sum >
/// /dev/full`. Before, `completions`, `kat` and `bench --list` panicked
/// (exit 101) and `--help` exited 0.
#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let d = dir_with_key();
    let dir = d.path();
    let vectors = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/pmac-aes.json");
    let commands: [&[&str]; 8] = [
        &["completions", "bash"],
        &["kat", "--list"],
        &["kat", vectors],
        &["bench", "--list"],
        &["bench", "--tiers"],
        &["--help"],
        &["mac", "--help"],
        &["--version"],
    ];
    for args in commands {
        let o = bin()
            .current_dir(dir)
            .args(args)
            .stdin(Stdio::null())
            .stdout(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains("cannot write standard output"),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// `verify MISSING SUMS` still checks SUMS, as `sha256sum -c MISSING SUMS`
/// does (exit 2 here: a check file could not be read). Before, the first
/// unreadable check file stopped the command before the others were read.
#[test]
fn an_unreadable_check_file_does_not_skip_the_others() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("f"), b"data").unwrap();
    let o = run(dir, &["mac", "--key-file", "k", "f"]);
    ok(&o);
    std::fs::write(dir.join("SUMS"), &o.stdout).unwrap();
    let o = run(
        dir,
        &["verify", "--key-file", "k", "missing", "SUMS", "missing2"],
    );
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: OK\n");
    assert!(
        err.contains("missing:") && err.contains("missing2:"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // A failure in a readable file is reported too; the status stays 2.
    std::fs::write(dir.join("f"), b"other").unwrap();
    let o = run(dir, &["verify", "--key-file", "k", "SUMS", "missing"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: FAILED\n");
    assert!(stderr(&o).contains("did NOT match"), "{}", stderr(&o));
}

/// `seal F >> F` (and `open`, `disk` alike) read back their own output: a
/// file larger than a batch grew with sealed copies of its own sealed
/// bytes, exit 0. Now refused before anything is written, as `cat F >> F`
/// is ("input file is output file"); `seal F > F` (the shell empties F
/// first) stays allowed, as for cat.
#[test]
fn an_input_that_is_also_standard_output_is_refused() {
    let d = dir_with_key();
    let dir = d.path();
    let img = common::data(4096, 3);
    let sealed = {
        std::fs::write(dir.join("plain"), &img).unwrap();
        let o = run(dir, &["seal", "--key-file", "k", "-o", "s.bm", "plain"]);
        ok(&o);
        std::fs::read(dir.join("s.bm")).unwrap()
    };
    let cases: [(&str, &[u8], &[&str]); 4] = [
        ("f", &img, &["seal", "--key-file", "k", "f"]),
        ("f", &img, &["seal", "--key-file", "k"]),
        ("f", &sealed, &["open", "--key-file", "k", "f"]),
        (
            "f",
            &img,
            &[
                "disk",
                "encrypt",
                "--cipher",
                "xex",
                "--key-file",
                "k",
                "f",
                "-o",
                "-",
            ],
        ),
    ];
    for (name, content, args) in cases {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let appending = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let stdin = if args.len() == 3 {
            Stdio::from(std::fs::File::open(&path).unwrap())
        } else {
            Stdio::null()
        };
        let o = bin()
            .current_dir(dir)
            .args(args)
            .stdin(stdin)
            .stdout(appending)
            .output()
            .unwrap();
        fails(&o, 2, "input file is output file");
        assert_eq!(std::fs::read(&path).unwrap(), content, "{args:?}");
    }
    // `> F`: F is empty when the command starts; sealing it is what was asked.
    let path = dir.join("g");
    std::fs::write(&path, b"").unwrap();
    let o = bin()
        .current_dir(dir)
        .args(["seal", "--key-file", "k", "g"])
        .stdout(std::fs::File::create(&path).unwrap())
        .output()
        .unwrap();
    ok(&o);
}

/// A file name with a newline in an error message is escaped (`\n`), so
/// the message stays one line, as sha256sum quotes such names. Before, the
/// message was cut in two lines at the newline.
#[test]
fn a_newline_in_a_file_name_does_not_split_the_error_line() {
    let d = dir_with_key();
    let dir = d.path();
    let o = run(dir, &["seal", "--key-file", "k", "-o", "x.bm", "no\nsuch"]);
    fails(&o, 2, "no\\nsuch");
    let o = run(
        dir,
        &[
            "disk",
            "encrypt",
            "--cipher",
            "xex",
            "--key-file",
            "k",
            "no\rsuch",
            "-o",
            "x",
        ],
    );
    fails(&o, 2, "no\\rsuch");
    let o = run(dir, &["verify", "--key-file", "k", "no\nsuch"]);
    fails(&o, 2, "no\\nsuch");
    // mac: one line for the file, one for the summary.
    let o = run(dir, &["mac", "--key-file", "k", "no\nsuch"]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(err.contains("no\\nsuch"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 2, "{err}");
}

/// An output name as long as the file system allows (255 bytes) works, as
/// for `cp`: the temporary file beside it takes a shortened copy of the
/// name. Before, any name over 232 bytes failed ("File name too long").
#[test]
fn a_long_output_name_is_accepted() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("in"), b"long names").unwrap();
    let sealed = format!("{}.bm", "s".repeat(252));
    let opened = "o".repeat(255);
    let key = "k".repeat(255);
    ok(&run(dir, &["seal", "--key-file", "k", "-o", &sealed, "in"]));
    ok(&run(
        dir,
        &["open", "--key-file", "k", "-o", &opened, &sealed],
    ));
    assert_eq!(std::fs::read(dir.join(&opened)).unwrap(), b"long names");
    ok(&run(dir, &["keygen", "-o", &key]));
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".blockmodes-tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// Lines that begin with `#` in a check file are comments, skipped as
/// `sha256sum -c` skips them (coreutils' digest_check: "Ignore comment
/// lines"). Before, each was an improperly formatted line: a warning, and
/// exit 1 with --strict.
#[test]
fn comment_lines_in_a_check_file_are_skipped() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("#f"), b"data").unwrap();
    let o = run(dir, &["mac", "--key-file", "k", "#f"]);
    ok(&o);
    let mut sums = b"# checksums of the release\n".to_vec();
    sums.extend_from_slice(&o.stdout);
    sums.extend_from_slice(b"#\r\n");
    std::fs::write(dir.join("SUMS"), &sums).unwrap();
    for extra in [&[][..], &["--strict"][..]] {
        let mut args = vec!["verify", "--key-file", "k"];
        args.extend_from_slice(extra);
        args.push("SUMS");
        let o = run(dir, &args);
        ok(&o);
        assert_eq!(String::from_utf8_lossy(&o.stdout), "#f: OK\n");
        assert_eq!(stderr(&o), "", "{extra:?}");
    }
}

/// `-o /dev/stdout` is standard output, as for `openssl enc -out
/// /dev/stdout` or `cp F /dev/stdout`. Before, when standard output was a
/// regular file it was "output /dev/stdout exists" (exit 2), and with
/// --force the command would have renamed its temporary file over the
/// /dev/stdout link itself.
#[test]
fn dev_stdout_as_the_output_is_standard_output() {
    let d = dir_with_key();
    let dir = d.path();
    let img = common::data(1024, 5);
    std::fs::write(dir.join("img"), &img).unwrap();
    ok(&run(dir, &["seal", "--key-file", "k", "-o", "s.bm", "img"]));
    let cases: [&[&str]; 4] = [
        &["open", "--key-file", "k", "-o", "/dev/stdout", "s.bm"],
        &["seal", "--key-file", "k", "-o", "/dev/fd/1", "img"],
        &["keygen", "-o", "/dev/stdout"],
        &[
            "disk",
            "encrypt",
            "--cipher",
            "xex",
            "--key-file",
            "k",
            "img",
            "-o",
            "/dev/stdout",
        ],
    ];
    for (i, args) in cases.into_iter().enumerate() {
        let out = dir.join(format!("out{i}"));
        let o = bin()
            .current_dir(dir)
            .args(args)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .output()
            .unwrap();
        ok(&o);
        let got = std::fs::read(&out).unwrap();
        match i {
            0 => assert_eq!(got, img),
            1 => assert_eq!(&got[..8], b"blkmodes"),
            2 => assert!(got.starts_with(b"# blockmodes master key")),
            _ => assert_eq!(got.len(), img.len()),
        }
    }
}

/// `seal --passphrase-fd 0 < FILE` takes the first line of FILE as the
/// passphrase and seals the rest, as it does from a pipe. Before, standard
/// input was reopened through /dev/fd/0: from a pipe the line was consumed,
/// but from a file the sealed data began with the passphrase line.
#[test]
fn passphrase_fd_0_is_consumed_from_a_file_as_from_a_pipe() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("both"), b"pass phrase\nthe data\n").unwrap();
    let o = bin()
        .current_dir(dir)
        .args(["seal", "--passphrase-fd", "0", "-o", "s.bm"])
        .stdin(std::fs::File::open(dir.join("both")).unwrap())
        .output()
        .unwrap();
    ok(&o);
    let o = bin()
        .current_dir(dir)
        .env("BM_TEST_PASS", "pass phrase")
        .args(["open", "--passphrase-env", "BM_TEST_PASS", "s.bm"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    ok(&o);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "the data\n");
    // From a pipe, the same.
    let o = common::run_stdin(
        dir,
        &["seal", "--passphrase-fd", "0", "-o", "p.bm"],
        b"pass phrase\nthe data\n",
    );
    ok(&o);
    let o = bin()
        .current_dir(dir)
        .env("BM_TEST_PASS", "pass phrase")
        .args(["open", "--passphrase-env", "BM_TEST_PASS", "p.bm"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    ok(&o);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "the data\n");
    // `open` reads the header first: with the sealed file on standard
    // input, descriptor 0 cannot also give the passphrase (it was parsed as
    // the header: "not a sealed file"). Refused, naming the option; by name
    // the file opens with the passphrase on descriptor 0.
    let mut both = b"pass phrase\n".to_vec();
    both.extend(std::fs::read(dir.join("s.bm")).unwrap());
    let o = common::run_stdin(dir, &["open", "--passphrase-fd", "0"], &both);
    fails(
        &o,
        2,
        "--passphrase-fd 0 with the sealed file on standard input",
    );
    let o = common::run_stdin(
        dir,
        &["open", "--passphrase-fd", "0", "s.bm"],
        b"pass phrase\n",
    );
    ok(&o);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "the data\n");
}

/// An image on standard input that ends in a partial sector, written to
/// standard output: the message names standard input and says how much
/// went out. Before it read "- is not a whole number ...; no output file
/// was written" after 8 MiB had been written.
#[test]
fn a_partial_sector_on_standard_input_says_what_was_written() {
    let d = dir_with_key();
    let dir = d.path();
    let mut input = vec![0u8; 9_000_000];
    input.extend_from_slice(b"abc");
    let args = [
        "disk",
        "encrypt",
        "--cipher",
        "xex",
        "--key-file",
        "k",
        "-",
        "-o",
        "-",
    ];
    let o = common::run_stdin(dir, &args, &input);
    let written = o.stdout.len();
    assert!(written > 0 && written.is_multiple_of(512), "{written}");
    fails(
        &o,
        2,
        "standard input is not a whole number of 512-byte sectors",
    );
    fails(
        &o,
        2,
        &format!("the first {written} bytes were written to standard output"),
    );
    let o = common::run_stdin(dir, &args, b"abc");
    assert!(o.stdout.is_empty());
    fails(&o, 2, "nothing was written");
}

/// `bench --modes NONSENSE` (or `--against NONSENSE`) is refused before the
/// header is printed: nothing on standard output, one line on standard
/// error, exit 2. Before, the header and the column titles came first.
#[test]
fn bench_refuses_an_unknown_mode_before_printing() {
    let d = tempfile::tempdir().unwrap();
    for args in [
        &["bench", "--quick", "--sizes", "1K", "--modes", "nonsense"][..],
        &[
            "bench",
            "--quick",
            "--sizes",
            "1K",
            "--modes",
            "pmac",
            "--against",
            "nonsense",
        ][..],
    ] {
        let o = run(d.path(), args);
        fails(&o, 2, "unknown mode `nonsense`");
        assert!(
            o.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

/// `open F.bm` without --key-file, F.bm sealed with a key file: told to
/// give --key-file at once, not first asked for a passphrase that does not
/// exist (with no terminal, the error was "cannot ask for a passphrase").
#[test]
fn a_key_file_seal_is_not_asked_for_a_passphrase() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("in"), b"x").unwrap();
    ok(&run(dir, &["seal", "--key-file", "k", "-o", "s.bm", "in"]));
    // setsid: no controlling terminal, so a prompt would fail, not wait.
    let o = Command::new("setsid")
        .arg(env!("CARGO_BIN_EXE_blockmodes"))
        .args(["open", "-o", "out", "s.bm"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    fails(
        &o,
        1,
        "sealed with a key file, not a passphrase: use --key-file FILE",
    );
    assert!(!dir.join("out").exists());
}

/// `-o /proc/self/fd/2` (a descriptor's name) with standard error appended
/// to a regular file, and --force: refused with one line, the file kept
/// (a temporary file renamed over such a name would replace the link, in
/// `/dev` as root for `/dev/stderr`; writing in place would clobber what
/// `2>>log` appends to). Before, the temporary file could not be made in
/// `/proc/self/fd` and the message said so.
#[test]
fn a_descriptor_name_on_a_regular_file_is_refused_as_output() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("in"), b"data").unwrap();
    std::fs::write(dir.join("log"), b"keep\n").unwrap();
    let log = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("log"))
        .unwrap();
    let o = bin()
        .current_dir(dir)
        .args([
            "seal",
            "--key-file",
            "k",
            "--force",
            "-o",
            "/proc/self/fd/2",
            "in",
        ])
        .stdin(Stdio::null())
        .stderr(log)
        .output()
        .unwrap();
    assert_eq!(code(&o), 2);
    let log = std::fs::read_to_string(dir.join("log")).unwrap();
    assert!(log.starts_with("keep\n"), "{log:?}");
    assert!(log.contains("names a file descriptor"), "{log:?}");
    assert_eq!(log.lines().count(), 2, "{log:?}");
}

/// `--force -o LINK`, LINK a symbolic link to a file: the link itself is
/// replaced by the output and the file it named is left alone (following
/// it, as `cp` does, would let a link planted in a shared directory by
/// another user direct our output over a file of theirs choosing; the
/// kernel's `protected_symlinks` guard applies to opens, not to a rename).
#[test]
fn force_replaces_a_symbolic_link_not_its_target() {
    let d = dir_with_key();
    let dir = d.path();
    std::fs::write(dir.join("in"), b"new contents").unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/target"), b"old").unwrap();
    std::os::unix::fs::symlink("sub/target", dir.join("link")).unwrap();
    ok(&run(
        dir,
        &["seal", "--key-file", "k", "--force", "-o", "link", "in"],
    ));
    let meta = std::fs::symlink_metadata(dir.join("link")).unwrap();
    assert!(meta.file_type().is_file(), "the link is now the output");
    assert_eq!(&std::fs::read(dir.join("link")).unwrap()[..8], b"blkmodes");
    assert_eq!(std::fs::read(dir.join("sub/target")).unwrap(), b"old");
}
