//! `blockmodes disk serve`: an encrypted disk image as a live plaintext
//! block device, through nbdkit and the plugin of `crates/blockmodes-nbdkit`.
//!
//! The command checks its inputs (key file, cipher, sector size, image
//! size), finds nbdkit and the plugin, runs nbdkit in the foreground with
//! `--exit-with-parent` and waits for it: Ctrl-C, or any signal that ends the
//! command (even `kill -9`), stops the server. nbdkit 1.32 leaves its socket
//! file behind; the next `disk serve` on that path replaces a socket that
//! nobody listens on (and refuses one that is in use, or a non-socket).
//!
//! * **Where it listens**: a Unix socket, `IMAGE.sock` unless `--socket`
//!   names one, mode 0600 (nbdkit binds it under its own umask, 0755, which
//!   lets nobody else connect either; the command then sets 0600 before it
//!   announces the socket); TCP only with `--listen [ADDR:]PORT`, on
//!   127.0.0.1 unless ADDR names another address, with a warning that plain
//!   NBD has no authentication. nbdkit's `--tls`, `--tls-certificates` and
//!   `--tls-psk` pass through; more nbdkit options go after `--`.
//! * **The plugin** is looked for, in order: `--plugin PATH`,
//!   `$BLOCKMODES_NBDKIT_PLUGIN`, `libblockmodes_nbdkit.so` beside the
//!   `blockmodes` binary (where cargo builds both: `target/release/`),
//!   `../lib/blockmodes/libblockmodes_nbdkit.so` from the binary, and
//!   nbdkit's plugin directory as `nbdkit-blockmodes-plugin.so` (then plain
//!   `nbdkit blockmodes …` finds it too).
//!
//! The sector keys are those of `disk encrypt` / `disk decrypt`
//! ([`crate::disk::sector_cipher`]); the export is `disk decrypt` of the
//! image.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use blockmodes::sector::DiskCipher;

use crate::disk;
use crate::failure::{CliResult, Failure};
use crate::keyfile::MasterKey;

/// The plugin's file name as cargo builds it.
pub const PLUGIN_FILE: &str = "libblockmodes_nbdkit.so";
/// The environment variable naming the plugin.
pub const PLUGIN_ENV: &str = "BLOCKMODES_NBDKIT_PLUGIN";
/// The plugin's name in nbdkit's plugin directory.
pub const PLUGIN_INSTALLED: &str = "nbdkit-blockmodes-plugin.so";

/// The options of `blockmodes disk serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The image's cipher, as given to `disk encrypt`: ete, eme, eme2 or xex.
    #[arg(long, value_parser = ["ete", "eme", "xex", "eme2"])]
    pub cipher: String,
    /// Bytes per sector, as given to `disk encrypt`.
    #[arg(long, default_value_t = 512)]
    pub sector_size: usize,
    /// The sector number of the image's first sector, as given to `disk encrypt`.
    #[arg(long, default_value_t = 0)]
    pub first_sector: u64,
    /// The key file (from `blockmodes keygen`).
    #[arg(long, value_name = "FILE")]
    pub key_file: PathBuf,
    /// Listen on this Unix socket, created with mode 0600 (default: IMAGE.sock).
    #[arg(long, value_name = "PATH", conflicts_with = "listen")]
    pub socket: Option<PathBuf>,
    /// Listen on TCP instead: PORT (on 127.0.0.1) or ADDR:PORT. Plain NBD has
    /// no authentication: anyone who can connect reads and writes the disk.
    #[arg(long, value_name = "[ADDR:]PORT")]
    pub listen: Option<String>,
    /// Serve read-only (the image is opened read-only).
    #[arg(long)]
    pub read_only: bool,
    /// The plugin (default: $BLOCKMODES_NBDKIT_PLUGIN, then libblockmodes_nbdkit.so
    /// beside this binary, then nbdkit's plugin directory).
    #[arg(long, value_name = "PATH")]
    pub plugin: Option<PathBuf>,
    /// nbdkit's --tls: off, on or require.
    #[arg(long, value_name = "MODE", value_parser = ["off", "on", "require"])]
    pub tls: Option<String>,
    /// nbdkit's --tls-certificates.
    #[arg(long, value_name = "DIR")]
    pub tls_certificates: Option<PathBuf>,
    /// nbdkit's --tls-psk.
    #[arg(long, value_name = "FILE")]
    pub tls_psk: Option<PathBuf>,
    /// The encrypted image (a file or a block device).
    pub image: PathBuf,
    /// More nbdkit options (after `--`), e.g. `-- --threads 4 -v`.
    #[arg(last = true, value_name = "NBDKIT_OPTION")]
    pub nbdkit_options: Vec<String>,
}

/// Where the server listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// A Unix socket.
    Unix(PathBuf),
    /// A TCP address.
    Tcp(SocketAddr),
}

impl Listen {
    /// The NBD URI of the export.
    pub fn uri(&self) -> String {
        match self {
            Listen::Unix(p) => format!("nbd+unix:///?socket={}", p.display()),
            Listen::Tcp(a) => format!("nbd://{a}/"),
        }
    }
}

/// Parse `--listen`: `PORT` (on 127.0.0.1), `ADDR:PORT` or `[V6ADDR]:PORT`.
///
/// ```
/// use blockmodes_cli::serve::parse_listen;
/// assert_eq!(parse_listen("10809").unwrap().to_string(), "127.0.0.1:10809");
/// assert_eq!(parse_listen("[::1]:10809").unwrap().to_string(), "[::1]:10809");
/// assert!(parse_listen("localhost").is_err());
/// ```
pub fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    let s = s.trim();
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    s.parse::<SocketAddr>().map_err(|_| {
        format!("--listen {s}: expected PORT, ADDR:PORT or [IPV6]:PORT (a numeric address)")
    })
}

/// The nbdkit executable on `$PATH`.
fn find_nbdkit() -> CliResult<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("nbdkit"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            Failure::usage(
                "nbdkit is not installed (it serves the disk): install it, e.g. \
                 `apt-get install nbdkit` (Debian, Ubuntu) or `dnf install nbdkit` (Fedora)",
            )
        })
}

/// Find the plugin (see the module docs for the order).
fn find_plugin(given: Option<&Path>, nbdkit: &Path) -> CliResult<PathBuf> {
    if let Some(p) = given {
        return if p.is_file() {
            Ok(p.to_owned())
        } else {
            Err(Failure::usage(format!(
                "--plugin {}: no such file",
                p.display()
            )))
        };
    }
    if let Some(p) = std::env::var_os(PLUGIN_ENV) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Failure::usage(format!(
                "${PLUGIN_ENV} = {}: no such file",
                p.display()
            )))
        };
    }
    let mut tried = Vec::new();
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_owned))
    {
        tried.push(dir.join(PLUGIN_FILE));
        tried.push(dir.join("../lib/blockmodes").join(PLUGIN_FILE));
    }
    if let Some(dir) = nbdkit_plugindir(nbdkit) {
        tried.push(dir.join(PLUGIN_INSTALLED));
    }
    if let Some(p) = tried.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    Err(Failure::usage(format!(
        "the nbdkit plugin is not found (looked for {}): build it with \
         `cargo build --release -p blockmodes-nbdkit` (target/release/{PLUGIN_FILE}), \
         then pass --plugin PATH, set ${PLUGIN_ENV}, or copy it beside the blockmodes binary",
        list.join(", ")
    )))
}

/// nbdkit's plugin directory (`nbdkit --dump-config`, `plugindir=`).
fn nbdkit_plugindir(nbdkit: &Path) -> Option<PathBuf> {
    let out = Command::new(nbdkit).arg("--dump-config").output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("plugindir="))
        .map(PathBuf::from)
}

/// Refuse to take over a path that is not a stale socket of ours.
fn check_socket_path(p: &Path) -> CliResult<()> {
    let Ok(meta) = std::fs::symlink_metadata(p) else {
        return Ok(());
    };
    if !meta.file_type().is_socket() {
        return Err(Failure::usage(format!(
            "--socket {}: the path exists and is not a socket",
            p.display()
        )));
    }
    if std::os::unix::net::UnixStream::connect(p).is_ok() {
        return Err(Failure::usage(format!(
            "{} is in use (another server is listening on it)",
            p.display()
        )));
    }
    // A socket nobody listens on: left by a killed server.
    std::fs::remove_file(p).map_err(|e| Failure::io("remove the stale socket", p, &e))
}

fn absolute(p: &Path) -> CliResult<PathBuf> {
    std::path::absolute(p).map_err(|e| Failure::io("resolve", p, &e))
}

/// The nbdkit command line for `a` (without running it).
pub fn command(a: &ServeArgs, nbdkit: &Path, plugin: &Path, listen: &Listen) -> CliResult<Command> {
    let abs = absolute;
    let mut c = Command::new(nbdkit);
    // --exit-with-parent: nbdkit stops when this command does, even on kill -9.
    c.arg("--foreground").arg("--exit-with-parent");
    match listen {
        Listen::Unix(p) => {
            c.arg("--unix").arg(abs(p)?);
        }
        Listen::Tcp(addr) => {
            c.arg("--ipaddr")
                .arg(addr.ip().to_string())
                .arg("--port")
                .arg(addr.port().to_string());
        }
    }
    if a.read_only {
        c.arg("--readonly");
    }
    if let Some(t) = &a.tls {
        c.arg(format!("--tls={t}"));
    }
    if let Some(d) = &a.tls_certificates {
        c.arg("--tls-certificates").arg(abs(d)?);
    }
    if let Some(f) = &a.tls_psk {
        c.arg("--tls-psk").arg(abs(f)?);
    }
    c.args(&a.nbdkit_options);
    let mut image = std::ffi::OsString::from("image=");
    image.push(abs(&a.image)?);
    let mut key = std::ffi::OsString::from("keyfile=");
    key.push(abs(&a.key_file)?);
    c.arg(plugin)
        .arg(image)
        .arg(format!("cipher={}", a.cipher))
        .arg(key)
        .arg(format!("sector-size={}", a.sector_size))
        .arg(format!("first-sector={}", a.first_sector));
    if a.read_only {
        c.arg("readonly=true");
    }
    Ok(c)
}

/// `blockmodes disk serve`: check, run nbdkit, wait for it to end.
pub fn run(a: &ServeArgs) -> CliResult<()> {
    let cipher: DiskCipher = a
        .cipher
        .parse()
        .map_err(|e| Failure::usage(format!("--cipher {}: {e}", a.cipher)))?;
    // The checks of `disk`, with its messages, before nbdkit starts.
    let key = MasterKey::read(&a.key_file)?;
    disk::sector_cipher(&key, cipher, a.sector_size).map_err(|f| {
        Failure::usage(format!(
            "--cipher {} --sector-size {}: {f}",
            a.cipher, a.sector_size
        ))
    })?;
    drop(key);
    let meta = std::fs::metadata(&a.image).map_err(|e| Failure::io("open", &a.image, &e))?;
    if meta.is_file() && meta.len() % a.sector_size as u64 != 0 {
        return Err(Failure::usage(format!(
            "{} is not a whole number of {}-byte sectors ({} bytes, {} left over)",
            a.image.display(),
            a.sector_size,
            meta.len(),
            meta.len() % a.sector_size as u64
        )));
    }
    let listen = match (&a.listen, &a.socket) {
        (Some(l), _) => Listen::Tcp(parse_listen(l).map_err(Failure::usage)?),
        (None, Some(s)) => Listen::Unix(absolute(s)?),
        (None, None) => {
            let mut s = a.image.clone().into_os_string();
            s.push(".sock");
            Listen::Unix(absolute(Path::new(&s))?)
        }
    };
    match &listen {
        Listen::Unix(p) => check_socket_path(p)?,
        Listen::Tcp(addr) if a.tls.as_deref() != Some("require") => {
            if addr.ip().is_loopback() {
                eprintln!(
                    "blockmodes disk serve: warning: TCP on {addr}: every user of this machine can connect \
                     (plain NBD has no authentication); the default Unix socket (mode 0600) is private to you"
                );
            } else {
                eprintln!(
                    "blockmodes disk serve: WARNING: listening on {addr}, beyond this machine: plain NBD has \
                     no authentication and no encryption, so anyone who can reach this address reads and \
                     writes the plaintext disk; use --tls require with --tls-certificates or --tls-psk"
                );
            }
        }
        Listen::Tcp(_) => {}
    }
    let nbdkit = find_nbdkit()?;
    let plugin = find_plugin(a.plugin.as_deref(), &nbdkit)?;
    let mut cmd = command(a, &nbdkit, &plugin, &listen)?;
    let mut child = cmd
        .spawn()
        .map_err(|e| Failure::usage(format!("cannot run {}: {e}", nbdkit.display())))?;
    if let Listen::Unix(p) = &listen {
        // nbdkit binds its socket under its own umask (0755: nobody else
        // can connect, since connecting needs write permission); make it 0600.
        let start = Instant::now();
        while !p.exists() {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(Failure::usage(format!("nbdkit exited ({status})")));
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Failure::usage(format!(
                    "nbdkit did not create {} within 60 s",
                    p.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Failure::io("set the mode of", p, &e))?;
    }
    eprintln!(
        "blockmodes disk serve: {} ({}, {}-byte sectors, {}) at {} (Ctrl-C stops)",
        a.image.display(),
        a.cipher,
        a.sector_size,
        if a.read_only {
            "read-only"
        } else {
            "read-write"
        },
        listen.uri()
    );
    let status = child
        .wait()
        .map_err(|e| Failure::usage(format!("cannot wait for nbdkit: {e}")))?;
    match status.code() {
        Some(0) => Ok(()),
        // Stopped by a signal (Ctrl-C, kill): the normal end of a server.
        None => Ok(()),
        Some(n) => Err(Failure::usage(format!("nbdkit exited with status {n}"))),
    }
}
