//! `blockmodes disk serve` through the real binary: it becomes nbdkit with
//! the plugin (`crates/blockmodes-nbdkit`, found beside the binary where
//! `cargo test --workspace` builds it). The plugin's own behaviour (writes,
//! two clients, kill -9, bad inputs) is tested in that crate.
//!
//! Skipped, with a message, when nbdkit / libnbd-bin are not installed or
//! the plugin was not built; `.ci/run` installs them and builds it. The
//! usage errors are tested everywhere.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// The plugin cargo built: beside the binary (`cargo build`) or in `deps/`
/// (`cargo test`); the tests pass it in `$BLOCKMODES_NBDKIT_PLUGIN`.
fn plugin() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_blockmodes"));
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let (deps, beside) = (
        bin.with_file_name("deps/libblockmodes_nbdkit.so"),
        bin.with_file_name("libblockmodes_nbdkit.so"),
    );
    // the newer of the two (`cargo build` writes beside, `cargo test` in deps)
    if mtime(&beside) > mtime(&deps) {
        beside
    } else {
        deps
    }
}

fn ready() -> bool {
    for tool in ["nbdkit", "nbdinfo", "nbdcopy"] {
        let ok = Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("SKIPPED: {tool} is not installed (apt-get install -y nbdkit libnbd-bin)");
            return false;
        }
    }
    if !plugin().is_file() {
        eprintln!(
            "SKIPPED: {} not built (cargo test --workspace builds it; or cargo build -p blockmodes-nbdkit)",
            plugin().display()
        );
        return false;
    }
    true
}

/// A running `disk serve`, stopped with SIGTERM (then SIGKILL) when dropped.
struct Served {
    child: Child,
    stderr: PathBuf,
}

impl Served {
    fn start(dir: &Path, args: &[&str]) -> Served {
        let stderr = dir.join(format!("serve-{}.err", args.len()));
        let child = bin()
            .current_dir(dir)
            .env("BLOCKMODES_NBDKIT_PLUGIN", plugin())
            .args(["disk", "serve"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("run blockmodes disk serve");
        Served { child, stderr }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Wait until `disk serve` announces the export (after setting the
    /// socket's mode) and `nbdinfo --size URI` answers; the size.
    fn wait(&mut self, uri: &str) -> u64 {
        let start = Instant::now();
        loop {
            let announced = self.stderr().contains("(Ctrl-C stops)");
            let o = Command::new("nbdinfo")
                .args(["--size", uri])
                .stderr(Stdio::null())
                .output()
                .expect("nbdinfo");
            if announced && o.status.success() {
                return String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse()
                    .expect("a size");
            }
            if let Ok(Some(s)) = self.child.try_wait() {
                panic!("disk serve exited ({s}):\n{}", self.stderr());
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "not serving after 20 s:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // SIGTERM to nbdkit (the child of `disk serve`), which `disk
            // serve` reaps before it exits; then to `disk serve` itself
            // (nbdkit would follow it: --exit-with-parent).
            let pid = self.child.id();
            let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                .unwrap_or_default();
            let mut kill = Command::new("kill");
            kill.args(children.split_whitespace());
            if children.trim().is_empty() {
                kill.arg(pid.to_string());
            }
            let _ = kill.status();
            let start = Instant::now();
            while matches!(self.child.try_wait(), Ok(None)) {
                if start.elapsed() > Duration::from_secs(10) {
                    let _ = self.child.kill();
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.wait();
    }
}

/// A directory with key `k`, plaintext `plain` and its EtE image `enc`.
fn setup(len: usize) -> (tempfile::TempDir, Vec<u8>) {
    let d = dir_with_key();
    let plain = data(len, 3);
    std::fs::write(d.path().join("plain"), &plain).unwrap();
    ok(&run(
        d.path(),
        &[
            "disk",
            "encrypt",
            "--cipher",
            "ete",
            "--key-file",
            "k",
            "plain",
            "-o",
            "enc",
            "-q",
        ],
    ));
    (d, plain)
}

fn nbdcopy(uri: &str, out: &Path) {
    let o = Command::new("nbdcopy")
        .arg(uri)
        .arg(out)
        .output()
        .expect("nbdcopy");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn serves_on_a_private_unix_socket() {
    if !ready() {
        return;
    }
    let (d, plain) = setup(256 * 1024);
    let dir = d.path();
    let sock = dir.join("disk.sock");
    let mut s = Served::start(
        dir,
        &[
            "--cipher",
            "ete",
            "--key-file",
            "k",
            "enc",
            "--socket",
            "disk.sock",
        ],
    );
    let uri = format!("nbd+unix:///?socket={}", sock.display());
    assert_eq!(s.wait(&uri), plain.len() as u64);
    let mode = std::fs::metadata(&sock).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "socket mode {mode:o}");
    nbdcopy(&uri, &dir.join("copy"));
    ok(&run(
        dir,
        &[
            "disk",
            "decrypt",
            "--cipher",
            "ete",
            "--key-file",
            "k",
            "enc",
            "-o",
            "dec",
            "-q",
        ],
    ));
    let copy = std::fs::read(dir.join("copy")).unwrap();
    assert!(
        copy == std::fs::read(dir.join("dec")).unwrap(),
        "export != disk decrypt"
    );
    assert!(copy == plain);
    assert!(s.stderr().contains(&uri), "{}", s.stderr());
    drop(s);
    // nbdkit 1.32 leaves its socket behind; the next `disk serve` replaces
    // a socket nobody listens on.
    let mut s = Served::start(
        dir,
        &[
            "--cipher",
            "ete",
            "--key-file",
            "k",
            "enc",
            "--socket",
            "disk.sock",
        ],
    );
    assert_eq!(s.wait(&uri), plain.len() as u64);
}

#[test]
fn default_socket_beside_the_image_and_read_only() {
    if !ready() {
        return;
    }
    let (d, plain) = setup(64 * 1024);
    let dir = d.path();
    let mut s = Served::start(
        dir,
        &["--cipher", "ete", "--key-file", "k", "--read-only", "enc"],
    );
    let uri = format!("nbd+unix:///?socket={}", dir.join("enc.sock").display());
    assert_eq!(s.wait(&uri), plain.len() as u64);
    let o = Command::new("nbdinfo").arg(&uri).output().unwrap();
    let info = String::from_utf8_lossy(&o.stdout);
    assert!(info.contains("is_read_only: true"), "{info}");
    let before = std::fs::read(dir.join("enc")).unwrap();
    let o = Command::new("nbdcopy")
        .arg(dir.join("plain"))
        .arg(&uri)
        .output()
        .unwrap();
    assert!(!o.status.success(), "nbdcopy wrote to a read-only export");
    drop(s);
    assert!(std::fs::read(dir.join("enc")).unwrap() == before);
}

#[test]
fn tcp_on_loopback_only_when_asked_with_a_warning() {
    if !ready() {
        return;
    }
    let (d, plain) = setup(64 * 1024);
    let dir = d.path();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
        .to_string();
    let mut s = Served::start(
        dir,
        &[
            "--cipher",
            "ete",
            "--key-file",
            "k",
            "--listen",
            &port,
            "enc",
        ],
    );
    let uri = format!("nbd://127.0.0.1:{port}/");
    assert_eq!(s.wait(&uri), plain.len() as u64);
    let err = s.stderr();
    assert!(err.contains("warning: TCP on 127.0.0.1:"), "{err}");
    assert!(err.contains("no authentication"), "{err}");
    assert!(!dir.join("enc.sock").exists(), "a Unix socket too");
}

#[test]
fn usage_errors_before_nbdkit_runs() {
    let (d, _) = setup(4096);
    let dir = d.path();
    std::fs::write(dir.join("odd"), vec![0u8; 1000]).unwrap();
    let empty = dir.join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    // No nbdkit on $PATH: the package to install.
    let o = bin()
        .current_dir(dir)
        .env("PATH", &empty)
        .args(["disk", "serve", "--cipher", "ete", "--key-file", "k", "enc"])
        .output()
        .unwrap();
    fails(&o, 2, "nbdkit is not installed");
    assert!(stderr(&o).contains("apt-get install nbdkit"));
    let serve = |extra: &[&str]| {
        let mut args = vec!["disk", "serve", "--key-file", "k"];
        args.extend_from_slice(extra);
        run(dir, &args)
    };
    if ready() {
        fails(
            &serve(&["--cipher", "ete", "--plugin", "/nonexistent/p.so", "enc"]),
            2,
            "--plugin /nonexistent/p.so: no such file",
        );
    }
    fails(
        &serve(&["--cipher", "ete", "--sector-size", "100", "enc"]),
        2,
        "sector size must be",
    );
    fails(
        &serve(&["--cipher", "ete", "odd"]),
        2,
        "not a whole number of 512-byte sectors (1000 bytes, 488 left over)",
    );
    fails(
        &serve(&["--cipher", "ete", "--listen", "localhost", "enc"]),
        2,
        "--listen localhost: expected PORT",
    );
    std::fs::write(dir.join("not-a-socket"), b"x").unwrap();
    fails(
        &serve(&["--cipher", "ete", "--socket", "not-a-socket", "enc"]),
        2,
        "is not a socket",
    );
}
