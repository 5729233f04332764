//! The command as a Unix process (issue 26, points 1 to 5): device nodes and
//! FIFOs as outputs, temporary files removed on SIGINT/SIGTERM/SIGHUP, `-`
//! for `disk`, a broken pipe, and the progress bar on a terminal.

mod common;

use common::*;
use std::io::{Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn sh(dir: &Path, cmd: &str) {
    let st = std::process::Command::new("sh")
        .current_dir(dir)
        .args(["-c", cmd])
        .status()
        .expect("sh");
    assert!(st.success(), "{cmd}");
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A sealed copy of `msg` as `m.bm` in `dir` (key `k`).
fn sealed(dir: &Path, msg: &[u8]) -> Vec<u8> {
    std::fs::write(path(dir, "m"), msg).unwrap();
    ok(&run(dir, &["seal", "--key-file", "k", "-o", "m.bm", "m"]));
    std::fs::read(path(dir, "m.bm")).unwrap()
}

/// A `cat` process reading the FIFO `dir/fifo` into `dir/got`. (A reader thread of the
/// test process would not do: a child forked meanwhile by another test
/// holds its descriptor until it execs, and a writer may meet that one.)
fn read_fifo(dir: &Path) -> Child {
    std::process::Command::new("sh")
        .current_dir(dir)
        .args(["-c", "cat fifo > got"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap()
}

/// What the reader from [`read_fifo`] got.
fn got(dir: &Path, mut reader: Child) -> Vec<u8> {
    assert!(reader.wait().unwrap().success());
    std::fs::read(path(dir, "got")).unwrap()
}

#[test]
fn device_nodes_and_fifos_are_written_in_place() {
    let d = dir_with_key();
    let dir = d.path();
    let msg = data(200_000, 1);
    sealed(dir, &msg);

    // A FIFO: written in place without --force; the reader gets the data.
    sh(dir, "mkfifo fifo");
    let reader = read_fifo(dir);
    ok(&run(
        dir,
        &["open", "--key-file", "k", "-o", "fifo", "m.bm"],
    ));
    assert!(
        got(dir, reader) == msg,
        "the FIFO's reader got the plaintext"
    );
    let ft = std::fs::metadata(path(dir, "fifo")).unwrap().file_type();
    assert!(ft.is_fifo(), "still a FIFO");

    // `disk` into a FIFO too.
    std::fs::write(path(dir, "img"), data(8192, 2)).unwrap();
    let reader = read_fifo(dir);
    let args = ["disk", "encrypt", "--cipher", "xex", "--key-file", "k"];
    ok(&run(dir, &[&args[..], &["img", "-o", "fifo"]].concat()));
    ok(&run(dir, &[&args[..], &["img", "-o", "enc"]].concat()));
    assert_eq!(got(dir, reader), std::fs::read(path(dir, "enc")).unwrap());

    // A character device (the null device): stays one, with or without
    // --force. (mknod needs root and, in a container, CAP_MKNOD.)
    let made = std::process::Command::new("mknod")
        .current_dir(dir)
        .args(["mynull", "c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if !is_root() || !made {
        eprintln!("mknod is not allowed here: the device-node cases are skipped");
        return;
    }
    ok(&run(
        dir,
        &["open", "--key-file", "k", "--force", "-o", "mynull", "m.bm"],
    ));
    ok(&run(
        dir,
        &["open", "--key-file", "k", "-o", "mynull", "m.bm"],
    ));
    let ft = std::fs::metadata(path(dir, "mynull")).unwrap().file_type();
    assert!(ft.is_char_device(), "mynull is still a character device");
    // A block device is not written without --force (a node of an unused
    // major number: it is never opened).
    sh(dir, "mknod myblock b 240 77");
    let o = run(dir, &["open", "--key-file", "k", "-o", "myblock", "m.bm"]);
    fails(&o, 2, "block device");
    assert!(
        std::fs::metadata(path(dir, "myblock"))
            .unwrap()
            .file_type()
            .is_block_device()
    );
    assert!(
        !names(dir).iter().any(|n| n.ends_with(".blockmodes-tmp")),
        "no temporary file"
    );
}

/// Wait until a temporary output file exists in `dir`.
fn wait_for_temp(dir: &Path, child: &mut Child) {
    let start = Instant::now();
    loop {
        if names(dir).iter().any(|n| n.ends_with(".blockmodes-tmp")) {
            return;
        }
        if let Some(st) = child.try_wait().unwrap() {
            panic!("the command ended early: {st}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Run `args` in a directory with the key `k`, reading the FIFO `in`: fed
/// `feed(dir)`'s bytes, then kept open. Send `signal` once the temporary
/// output exists, and check that the command died of that signal and left
/// nothing behind.
fn interrupted(args: &[&str], feed: fn(&Path) -> Vec<u8>, signal: &str, signum: i32) {
    let d = dir_with_key();
    let dir = d.path();
    let feed = feed(dir);
    sh(dir, "mkfifo in");
    let before = names(dir);
    let mut child = bin()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Opening blocks until the command opens the FIFO for reading.
    let mut fifo = std::fs::OpenOptions::new()
        .write(true)
        .open(path(dir, "in"))
        .unwrap();
    fifo.write_all(&feed).unwrap();
    wait_for_temp(dir, &mut child);
    // The command now waits for more input: the signal lands mid-run.
    sh(dir, &format!("kill -s {signal} {}", child.id()));
    let status = child.wait().unwrap();
    drop(fifo);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.signal(), Some(signum), "{args:?}: {status} {err}");
    assert_eq!(names(dir), before, "{args:?}: nothing left behind");
}

#[test]
fn seal_interrupted_by_sigint_leaves_no_temporary_file() {
    interrupted(
        &["seal", "--key-file", "k", "-o", "out.bm", "in"],
        |_| data(1 << 20, 4),
        "INT",
        libc::SIGINT,
    );
}

#[test]
fn open_interrupted_by_sigterm_leaves_no_temporary_file() {
    // The first part of a sealed file: the header and some chunks.
    interrupted(
        &["open", "--key-file", "k", "-o", "out", "in"],
        |dir| sealed(dir, &data(3 << 20, 5))[..1 << 20].to_vec(),
        "TERM",
        libc::SIGTERM,
    );
}

#[test]
fn disk_interrupted_by_sighup_leaves_no_temporary_file() {
    interrupted(
        &[
            "disk",
            "decrypt",
            "--cipher",
            "ete",
            "--key-file",
            "k",
            "in",
            "-o",
            "out.img",
        ],
        |_| data(1 << 20, 6),
        "HUP",
        libc::SIGHUP,
    );
}

#[test]
fn disk_reads_and_writes_dash_as_standard_input_and_output() {
    let d = dir_with_key();
    let dir = d.path();
    let image = data(512 * 70, 7);
    std::fs::write(path(dir, "img"), &image).unwrap();
    let args = ["disk", "encrypt", "--cipher", "eme", "--key-file", "k"];
    ok(&run(dir, &[&args[..], &["img", "-o", "enc"]].concat()));
    let enc = std::fs::read(path(dir, "enc")).unwrap();
    // `-` as the input: standard input.
    let o = run_stdin(dir, &[&args[..], &["-", "-o", "enc2"]].concat(), &image);
    ok(&o);
    assert!(std::fs::read(path(dir, "enc2")).unwrap() == enc);
    // `-o -`: standard output.
    let o = run(dir, &[&args[..], &["img", "-o", "-"]].concat());
    ok(&o);
    assert!(o.stdout == enc);
    // Both.
    let dec = ["disk", "decrypt", "--cipher", "eme", "--key-file", "k"];
    let o = run_stdin(dir, &[&dec[..], &["-", "-o", "-"]].concat(), &enc);
    ok(&o);
    assert!(o.stdout == image);
    assert!(!path(dir, "-").exists(), "no file named `-`");
    // An image from a pipe must still be whole sectors.
    let o = run_stdin(dir, &[&dec[..], &["-", "-o", "-"]].concat(), &enc[..700]);
    fails(&o, 2, "whole number of 512-byte sectors");
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly() {
    let d = dir_with_key();
    let dir = d.path();
    sealed(dir, &data(4 << 20, 8));
    // `blockmodes open … | head -c 10`
    let mut child = bin()
        .current_dir(dir)
        .args(["open", "--key-file", "k", "m.bm"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    out.read_exact(&mut first).unwrap();
    drop(out);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(err, "", "no message");
    // As cat and sha256sum: killed by SIGPIPE (141 in a shell).
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status}");
}

/// Run `cmd` (a shell command line) under a pseudo-terminal with `script`,
/// or `None` if `script` is not available.
fn on_terminal(dir: &Path, cmd: &str) -> Option<Vec<u8>> {
    let o = std::process::Command::new("script")
        .current_dir(dir)
        .args(["-qec", cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    o.status.success().then_some(o.stdout)
}

#[test]
fn no_progress_bar_between_the_lines_of_terminal_output() {
    let d = dir_with_key();
    let dir = d.path();
    // Text without newlines (the terminal turns \n into \r\n).
    let msg = vec![b'a'; 3 << 20];
    sealed(dir, &msg);
    let bin = env!("CARGO_BIN_EXE_blockmodes");
    let Some(shown) = on_terminal(dir, &format!("'{bin}' open --key-file k m.bm")) else {
        eprintln!("`script` is not available: skipped");
        return;
    };
    assert!(
        shown == msg,
        "only the plaintext on the terminal ({} bytes, {:?}...)",
        shown.len(),
        String::from_utf8_lossy(&shown[shown.len().saturating_sub(200)..])
    );
}
