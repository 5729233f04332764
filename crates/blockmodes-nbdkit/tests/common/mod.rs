//! Shared by the nbdkit tests: tools, temporary images, an nbdkit process
//! that is always killed, commands with time limits, a raw NBD client.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use blockmodes::sector::DiskCipher;
use blockmodes_cli::disk;
use blockmodes_cli::keyfile::MasterKey;

/// The plugin under test: `$BLOCKMODES_NBDKIT_PLUGIN`, else the one cargo
/// built beside this test (`target/<profile>/libblockmodes_nbdkit.so`).
pub fn plugin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BLOCKMODES_NBDKIT_PLUGIN") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    // `cargo test` builds it in deps/, `cargo build` beside: the newer.
    [deps, deps.parent()?]
        .iter()
        .map(|d| d.join("libblockmodes_nbdkit.so"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
}

/// The external programs the tests drive, or `None` (after printing why)
/// when one is missing: the tests are then skipped. `.ci/run` installs them.
pub fn tools() -> Option<PathBuf> {
    for (tool, package) in [
        ("nbdkit", "nbdkit"),
        ("nbdinfo", "libnbd-bin"),
        ("nbdcopy", "libnbd-bin"),
        ("qemu-io", "qemu-utils"),
    ] {
        let ok = Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!(
                "SKIPPED: {tool} is not installed (apt-get install -y nbdkit libnbd-bin qemu-utils; package {package})"
            );
            return None;
        }
    }
    match plugin() {
        Some(p) => Some(p),
        None => {
            eprintln!(
                "SKIPPED: libblockmodes_nbdkit.so not found beside the test (cargo build -p blockmodes-nbdkit)"
            );
            None
        }
    }
}

/// Deterministic test data (splitmix64).
pub fn data(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A temporary directory with a key file.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub key: PathBuf,
}

/// An image's cipher and geometry.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    pub cipher: DiskCipher,
    pub name: &'static str,
    pub sector_size: usize,
    pub first_sector: u64,
}

impl Geometry {
    pub const fn new(name: &'static str, sector_size: usize, first_sector: u64) -> Self {
        let cipher = match name.as_bytes() {
            b"ete" => DiskCipher::Ete,
            b"eme" => DiskCipher::Eme,
            b"xex" => DiskCipher::Xex,
            _ => DiskCipher::Eme2,
        };
        Geometry {
            cipher,
            name,
            sector_size,
            first_sector,
        }
    }

    /// The plugin's parameters for this geometry.
    pub fn params(&self, fx: &Fixture) -> Vec<String> {
        vec![
            format!("cipher={}", self.name),
            format!("keyfile={}", fx.key.display()),
            format!("sector-size={}", self.sector_size),
            format!("first-sector={}", self.first_sector),
        ]
    }
}

/// The ciphers `blockmodes disk` derives a key for (all of them, EME2
/// included).
pub fn offered(geometries: &[Geometry]) -> Vec<Geometry> {
    geometries
        .iter()
        .copied()
        .filter(|g| {
            let on = disk::key_spec(g.cipher).is_some();
            if !on {
                eprintln!(
                    "note: `blockmodes disk` has no key derivation for {} yet: not tested",
                    g.name
                );
            }
            on
        })
        .collect()
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = dir.path().join("k.key");
        MasterKey::generate()
            .and_then(|k| k.write(&key, false))
            .expect("key file");
        Fixture { dir, key }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn disk(&self, g: Geometry, input: &Path, output: &Path, encrypt: bool) {
        let o = disk::Options {
            cipher: g.cipher,
            sector_size: g.sector_size,
            first_sector: g.first_sector,
            offset: 0,
            count: None,
            key_file: self.key.clone(),
            input: input.to_owned(),
            output: output.to_owned(),
            force: true,
            quiet: true,
            sync: false,
        };
        disk::run(&o, encrypt).expect("blockmodes disk");
    }

    /// `blockmodes disk encrypt` of `plain` into a new image `name`.
    pub fn encrypt(&self, g: Geometry, plain: &[u8], name: &str) -> PathBuf {
        let p = self.path(&format!("{name}.plain"));
        std::fs::write(&p, plain).expect("write plaintext");
        let img = self.path(name);
        self.disk(g, &p, &img, true);
        img
    }

    /// `blockmodes disk decrypt` of `image`.
    pub fn decrypt(&self, g: Geometry, image: &Path) -> Vec<u8> {
        let out = self.path("decrypted");
        self.disk(g, image, &out, false);
        std::fs::read(&out).expect("read decrypted")
    }
}

/// The end of a command run under a time limit.
pub struct Outcome {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    pub fn text(&self) -> String {
        format!(
            "status {:?}\nstdout:\n{}\nstderr:\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}

/// Run `cmd` for at most `secs` seconds (killed after), output captured.
pub fn run(mut cmd: Command, secs: u64) -> Outcome {
    let dir = tempfile::tempdir().expect("temp dir");
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let status = wait_for(&mut child, Duration::from_secs(secs)).unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{cmd:?} did not finish within {secs} s")
    });
    Outcome {
        status,
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
    }
}

/// `run`, asserting success.
pub fn run_ok(cmd: Command, secs: u64) -> Outcome {
    let what = format!("{cmd:?}");
    let o = run(cmd, secs);
    assert!(o.status.success(), "{what} failed:\n{}", o.text());
    o
}

pub fn wait_for(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s);
        }
        if start.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An nbdkit serving on a Unix socket; killed (and reaped) when dropped.
pub struct Nbdkit {
    child: Child,
    pub socket: PathBuf,
    stderr: PathBuf,
}

impl Nbdkit {
    /// Start `nbdkit -f -U SOCKET PLUGIN IMAGE PARAMS...` and wait until it
    /// serves; `Err(stderr)` if it exits instead.
    pub fn start(
        plugin: &Path,
        dir: &Path,
        tag: &str,
        image: &Path,
        params: &[String],
    ) -> Result<Nbdkit, String> {
        let socket = dir.join(format!("{tag}.sock"));
        let pid = dir.join(format!("{tag}.pid"));
        let stderr = dir.join(format!("{tag}.err"));
        let _ = std::fs::remove_file(&pid);
        let mut cmd = Command::new("nbdkit");
        cmd.arg("-f")
            .arg("-U")
            .arg(&socket)
            .arg("-P")
            .arg(&pid)
            .arg(plugin)
            .arg(image)
            .args(params)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"));
        let child = cmd.spawn().map_err(|e| format!("cannot run nbdkit: {e}"))?;
        let mut server = Nbdkit {
            child,
            socket,
            stderr,
        };
        let start = Instant::now();
        loop {
            // nbdkit writes the PID file once it accepts connections.
            if std::fs::read_to_string(&pid).is_ok_and(|s| s.trim().parse::<u32>().is_ok()) {
                return Ok(server);
            }
            if let Ok(Some(_)) = server.child.try_wait() {
                return Err(server.stderr());
            }
            if start.elapsed() > Duration::from_secs(20) {
                return Err(format!(
                    "nbdkit did not start within 20 s\n{}",
                    server.stderr()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn uri(&self) -> String {
        format!("nbd+unix:///?socket={}", self.socket.display())
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Is it still running?
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// `kill -9`, reaped.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM (nbdkit finishes its requests and exits), SIGKILL after 10 s.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: kill(2) on our own child's PID, not yet reaped.
            unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
            if wait_for(&mut self.child, Duration::from_secs(10)).is_none() {
                let _ = self.child.kill();
            }
        }
        let _ = self.child.wait();
    }
}

impl Drop for Nbdkit {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// Start nbdkit with the plugin, panicking with its message if it fails.
pub fn serve(plugin: &Path, fx: &Fixture, tag: &str, image: &Path, params: &[String]) -> Nbdkit {
    Nbdkit::start(plugin, fx.dir.path(), tag, image, params)
        .unwrap_or_else(|e| panic!("nbdkit did not start:\n{e}"))
}

/// `qemu-io -f raw URI -c CMD ...`, asserting success and that no pattern
/// check failed.
pub fn qemu_io(uri: &str, cmds: &[String]) -> Outcome {
    let mut c = Command::new("qemu-io");
    c.arg("-f").arg("raw");
    for cmd in cmds {
        c.arg("-c").arg(cmd);
    }
    c.arg(uri);
    let o = run(c, 60);
    assert!(
        o.status.success()
            && !o.stdout.contains("failed")
            && !o.stderr.contains("failed")
            && !o.stdout.contains("Pattern verification"),
        "qemu-io {cmds:?}:\n{}",
        o.text()
    );
    o
}

/// A minimal NBD client (fixed newstyle, NBD_OPT_EXPORT_NAME, simple
/// replies) to send requests that well-behaved clients refuse to send.
pub struct RawClient {
    s: UnixStream,
    pub size: u64,
    pub flags: u16,
    handle: u64,
}

pub const NBD_CMD_READ: u16 = 0;
pub const NBD_CMD_WRITE: u16 = 1;
pub const NBD_CMD_FLUSH: u16 = 3;
pub const NBD_CMD_TRIM: u16 = 4;
pub const NBD_CMD_WRITE_ZEROES: u16 = 6;
pub const NBD_FLAG_READ_ONLY: u16 = 1 << 1;

impl RawClient {
    pub fn connect(socket: &Path) -> std::io::Result<Self> {
        let mut s = UnixStream::connect(socket)?;
        s.set_read_timeout(Some(Duration::from_secs(20)))?;
        s.set_write_timeout(Some(Duration::from_secs(20)))?;
        let mut hello = [0u8; 18];
        s.read_exact(&mut hello)?;
        assert_eq!(
            &hello[..16],
            b"NBDMAGICIHAVEOPT",
            "not an NBD newstyle server"
        );
        // Client flags: fixed newstyle, no zeroes.
        s.write_all(&3u32.to_be_bytes())?;
        // NBD_OPT_EXPORT_NAME, the default export "".
        let mut opt = Vec::new();
        opt.extend_from_slice(&0x4948_4156_454F_5054u64.to_be_bytes());
        opt.extend_from_slice(&1u32.to_be_bytes());
        opt.extend_from_slice(&0u32.to_be_bytes());
        s.write_all(&opt)?;
        let mut info = [0u8; 10];
        s.read_exact(&mut info)?;
        let size = u64::from_be_bytes(info[..8].try_into().expect("8 bytes"));
        let flags = u16::from_be_bytes([info[8], info[9]]);
        Ok(RawClient {
            s,
            size,
            flags,
            handle: 1,
        })
    }

    /// Send one request; the reply's error (0: success) and, for a
    /// successful read, the data.
    pub fn request(
        &mut self,
        cmd: u16,
        offset: u64,
        len: u32,
        payload: &[u8],
    ) -> std::io::Result<(u32, Vec<u8>)> {
        self.handle += 1;
        let mut req = Vec::with_capacity(28 + payload.len());
        req.extend_from_slice(&0x2560_9513u32.to_be_bytes());
        req.extend_from_slice(&0u16.to_be_bytes());
        req.extend_from_slice(&cmd.to_be_bytes());
        req.extend_from_slice(&self.handle.to_be_bytes());
        req.extend_from_slice(&offset.to_be_bytes());
        req.extend_from_slice(&len.to_be_bytes());
        req.extend_from_slice(payload);
        self.s.write_all(&req)?;
        let mut reply = [0u8; 16];
        self.s.read_exact(&mut reply)?;
        assert_eq!(
            u32::from_be_bytes(reply[..4].try_into().expect("4")),
            0x6744_6698,
            "simple reply magic"
        );
        let error = u32::from_be_bytes(reply[4..8].try_into().expect("4"));
        assert_eq!(
            u64::from_be_bytes(reply[8..].try_into().expect("8")),
            self.handle
        );
        let mut data = Vec::new();
        if cmd == NBD_CMD_READ && error == 0 {
            data.resize(len as usize, 0);
            self.s.read_exact(&mut data)?;
        }
        Ok((error, data))
    }
}
