//! An nbdkit plugin that serves a disk image encrypted by `blockmodes disk`
//! (EtE, EME, EME2, XEX) as a plaintext
//! block device: a live view of `blockmodes disk decrypt IMAGE`, readable
//! and writable by any NBD client (qemu, `qemu-img`, `qemu-io`, `nbdcopy`,
//! `nbdinfo`, `nbdfuse`, the kernel's `nbd-client`).
//!
//! ```text
//! nbdkit target/release/libblockmodes_nbdkit.so image=IMG cipher=ete|eme|xex|eme2 \
//!        keyfile=K [sector-size=512] [first-sector=0] [readonly=false]
//! ```
//!
//! (`image=` may be left out: a bare first parameter is the image.)
//! nbdkit brings the NBD protocol, TLS, multiple connections and filters;
//! the plugin only maps requests onto sectors.
//!
//! ## Keys and layout (`docs/file-format.md`, section 4)
//! Sector `s` of the image is data unit `first-sector + s` of the cipher;
//! the sector key is derived from the key file's master key exactly as
//! `blockmodes disk` derives it ([`blockmodes_cli::disk::sector_cipher`], the
//! same code), so the export is byte for byte `disk decrypt` of the image and
//! whatever a client writes is what `disk decrypt` shows afterwards. There is
//! no header and no key slot: the key file is the key.
//!
//! ## Requests
//! * **read**: the sectors the request touches are read (whole sectors
//!   into the client's buffer, at most one partial sector at each end
//!   through a scratch sector, wiped after use) and deciphered. Each
//!   `pread` of up to 256 KiB goes to a per-thread buffer at an address
//!   congruent to its file offset modulo 64, then is copied out
//!   (`read_placed`): nbdkit's buffers start 16 bytes into a page, where
//!   the kernel's page-cache copy runs at a quarter of its speed on AMD
//!   Zen 3 (`blockmodes_file::input`).
//! * **write**: the touched sectors are locked (a range lock shared by all
//!   connections), a partial first or last sector is read and deciphered
//!   (read-modify-write), the new bytes copied in, every sector enciphered,
//!   and all written with one `pwrite` before the reply. Two overlapping
//!   partial writes, from one connection or two, therefore never lose one
//!   another's bytes.
//! * **flush**: `fdatasync` of the image; FUA is nbdkit's emulation (a flush
//!   after the write). **zero** and **trim** write enciphered zeros (a
//!   trimmed range reads back as zeros); fast zero is refused (it would not be
//!   faster than a write).
//! * **multi-conn** is advertised: the plugin caches nothing, every write is
//!   in the image file before it is acknowledged, and `fdatasync` on one
//!   connection flushes the writes of all of them.
//!
//! Reads take no lock: a read that overlaps a write in flight may return
//! either or a garbled sector (NBD leaves such reads undefined). The image is
//! `flock`ed (exclusive when writable, shared when read-only): one server
//! per image, since the range lock lives inside one nbdkit.
//!
//! **A crash mid-write** (of the machine, not of nbdkit: a killed nbdkit
//! loses nothing it acknowledged) leaves each sector whole old or whole new
//! only as far as the filesystem or device writes it atomically; a sector
//! written half old, half new deciphers to 512 (or N) bytes of garbage, since
//! every cipher here is a wide-block or per-block tweaked cipher without
//! integrity. After an acknowledged flush, the data is on stable storage.
//!
//! ## Errors
//! Bad parameters (unknown key, missing `image`/`cipher`/`keyfile`, a key
//! file that is not one, a sector size the cipher refuses, an image that is
//! not a whole number of sectors) stop nbdkit at start-up with a message and
//! write nothing. Every callback runs under `catch_unwind`: a panic becomes
//! an `EIO` reply for that request instead of aborting nbdkit for every
//! client. Requests past the end get `EINVAL` (reads) or `ENOSPC` (writes),
//! although nbdkit already refuses them before they reach the plugin.
//!
//! ## Cost
//! One `pread`/`pwrite` per request plus the cipher (EtE: three AES calls per
//! block; EME: two; XEX: one), on nbdkit's worker threads (parallel thread
//! model), no allocation per request (a scratch buffer per thread).

use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

use blockmodes::sector::{DiskCipher, SectorCipher};
use blockmodes_cli::disk;
use blockmodes_cli::keyfile::MasterKey;
use blockmodes_file::input::{ALIGN, aligned_start};
use nbdkit::{Error, Flags, Result, Server, plugin};
use zeroize::Zeroize;

/// Build an nbdkit error. nbdkit's binding turns the message into a C
/// string and panics (aborting nbdkit) on a NUL byte, so NULs are replaced.
fn err(errno: i32, msg: impl Into<String>) -> Error {
    let msg: String = msg.into().replace('\0', "\\0");
    Error::new(errno, msg)
}

/// Run a callback body, turning a panic into an `EIO` error: the binding's
/// `extern "C"` trampolines catch nothing, and a panic unwinding out of one
/// aborts nbdkit for every client.
fn guard<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(err(
            libc::EIO,
            format!(
                "blockmodes: internal error in {what} (a panic was caught); the request failed"
            ),
        ))
    })
}

/// Lock a mutex, ignoring poisoning (every guarded state stays consistent:
/// the range lock's entries are removed by their guards' `Drop`).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The `key=value` parameters, gathered by `config`.
#[derive(Default)]
struct Config {
    image: Option<PathBuf>,
    cipher: Option<DiskCipher>,
    sector_size: Option<usize>,
    key_file: Option<PathBuf>,
    first_sector: Option<u64>,
    readonly: Option<bool>,
}

static CONFIG: Mutex<Option<Config>> = Mutex::new(None);

/// The served image, set once by `config_complete`.
static DISK: OnceLock<Disk> = OnceLock::new();

fn served() -> Result<&'static Disk> {
    DISK.get()
        .ok_or_else(|| err(libc::EIO, "blockmodes: no image is configured"))
}

/// Exclusive locks on ranges of sectors `[start, end)`: a writer waits
/// until no held range overlaps its own, then holds the whole range at once
/// (so two writers never deadlock).
#[derive(Default)]
struct RangeLock {
    held: Mutex<Vec<(u64, u64)>>,
    freed: Condvar,
}

struct RangeGuard<'a> {
    lock: &'a RangeLock,
    range: (u64, u64),
}

impl RangeLock {
    fn lock(&self, start: u64, end: u64) -> RangeGuard<'_> {
        let mut held = lock(&self.held);
        while held.iter().any(|&(s, e)| s < end && start < e) {
            held = self
                .freed
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        held.push((start, end));
        RangeGuard {
            lock: self,
            range: (start, end),
        }
    }
}

impl Drop for RangeGuard<'_> {
    fn drop(&mut self) {
        let mut held = lock(&self.lock.held);
        if let Some(i) = held.iter().position(|&r| r == self.range) {
            held.swap_remove(i);
        }
        drop(held);
        self.lock.freed.notify_all();
    }
}

thread_local! {
    /// Scratch space of each nbdkit worker thread (the enciphered sectors
    /// of a write, a partial sector of a read).
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// Each nbdkit worker thread's landing place for `pread` (ciphertext
    /// only: [`read_placed`]).
    static LANDING: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Bytes per `pread` of [`read_placed`] (a piece stays in L2 while it is
/// copied out).
const READ_PIECE: usize = 256 * 1024;

/// Fill `buf` with the bytes at `offset` by `pread_exact(piece, at)`, each
/// piece read into this thread's landing buffer at an address congruent to
/// `at` modulo [`ALIGN`] and copied into `buf` (see
/// `blockmodes_file::input`: read straight into nbdkit's buffer, every
/// `pread` landed 16 bytes forward of the page cache's copy).
fn read_placed(
    buf: &mut [u8],
    offset: u64,
    mut pread_exact: impl FnMut(&mut [u8], u64) -> std::io::Result<()>,
) -> std::io::Result<()> {
    LANDING.with(|cell| {
        let mut landing = cell
            .try_borrow_mut()
            .map_err(|_| std::io::Error::other("landing buffer in use"))?;
        if landing.len() < READ_PIECE + ALIGN {
            landing.resize(READ_PIECE + ALIGN, 0);
        }
        for (k, piece) in buf.chunks_mut(READ_PIECE).enumerate() {
            let at = offset + (k * READ_PIECE) as u64;
            let i = aligned_start(landing.as_ptr(), at);
            let got = &mut landing[i..i + piece.len()];
            pread_exact(got, at)?;
            piece.copy_from_slice(got);
        }
        Ok(())
    })
}

/// Run `f` on this thread's scratch buffer, at least `len` bytes long.
fn with_scratch<T>(len: usize, f: impl FnOnce(&mut [u8]) -> Result<T>) -> Result<T> {
    SCRATCH.with(|cell| {
        let mut buf = cell
            .try_borrow_mut()
            .map_err(|_| err(libc::EIO, "blockmodes: scratch buffer in use"))?;
        if buf.len() < len {
            buf.resize(len, 0);
        }
        let slice = buf
            .get_mut(..len)
            .ok_or_else(|| err(libc::EIO, "blockmodes: scratch buffer too short"))?;
        f(slice)
    })
}

/// Run `f` on `len` bytes of this thread's scratch buffer that will hold
/// plaintext (a partial sector of a read), wiped after `f` whatever it
/// returns.
fn with_plain_scratch<T>(len: usize, f: impl FnOnce(&mut [u8]) -> Result<T>) -> Result<T> {
    with_scratch(len, |sector| {
        let r = f(sector);
        sector.zeroize();
        r
    })
}

/// Most bytes of zeros enciphered and written at once by `zero` / `trim`
/// (requests may ask for up to 4 GiB).
const ZERO_CHUNK: u64 = 1 << 20;

/// The image, its cipher and geometry.
struct Disk {
    file: File,
    path: PathBuf,
    cipher: Box<dyn SectorCipher>,
    sector_size: u64,
    first_sector: u64,
    size: u64,
    writable: bool,
    writers: RangeLock,
}

/// Where a byte range falls in sectors: sectors `first..end` are touched,
/// the range starts `head` bytes into sector `first`.
#[derive(Debug, Clone, Copy)]
struct Span {
    first: u64,
    end: u64,
    head: usize,
}

impl Disk {
    /// The sectors of `[offset, offset + len)`, `None` if it passes the end.
    fn span(&self, offset: u64, len: usize) -> Option<Span> {
        let end_byte = offset.checked_add(len as u64)?;
        if end_byte > self.size {
            return None;
        }
        let ss = self.sector_size;
        Some(Span {
            first: offset / ss,
            end: end_byte.div_ceil(ss),
            head: (offset % ss) as usize,
        })
    }

    /// The cipher's number of image sector `s`.
    fn unit(&self, s: u64) -> Result<u64> {
        self.first_sector
            .checked_add(s)
            .ok_or_else(|| err(libc::EINVAL, "blockmodes: sector number overflows"))
    }

    fn byte(&self, s: u64) -> Result<u64> {
        s.checked_mul(self.sector_size)
            .ok_or_else(|| err(libc::EINVAL, "blockmodes: offset overflows"))
    }

    fn io(&self, what: &str, e: std::io::Error) -> Error {
        err(
            e.raw_os_error().unwrap_or(libc::EIO),
            format!("blockmodes: cannot {what} {}: {e}", self.path.display()),
        )
    }

    fn cipher_err(e: blockmodes::Error) -> Error {
        err(libc::EIO, format!("blockmodes: sector cipher: {e}"))
    }

    /// Read whole sectors `s..` into `buf` (a whole number of sectors) and
    /// decipher them.
    fn read_sectors(&self, s: u64, buf: &mut [u8]) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        read_placed(buf, self.byte(s)?, |b, at| self.file.read_exact_at(b, at))
            .map_err(|e| self.io("read", e))?;
        self.cipher
            .decrypt_sectors_serial(self.unit(s)?, buf)
            .map_err(Self::cipher_err)
    }

    fn read(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        let len = buf.len();
        let sp = self
            .span(offset, len)
            .ok_or_else(|| err(libc::EINVAL, "blockmodes: read past the end of the image"))?;
        if len == 0 {
            return Ok(());
        }
        let ss = self.sector_size as usize;
        let mut done = 0usize; // bytes of buf filled
        let mut s = sp.first;
        // A partial first sector (or a range inside one sector).
        if sp.head != 0 || len < ss {
            let n = (ss - sp.head).min(len);
            with_plain_scratch(ss, |sector| {
                self.read_sectors(s, sector)?;
                let from = sector
                    .get(sp.head..sp.head + n)
                    .ok_or_else(|| err(libc::EIO, "blockmodes: bad span"))?;
                buf.get_mut(..n)
                    .ok_or_else(|| err(libc::EIO, "blockmodes: bad span"))?
                    .copy_from_slice(from);
                Ok(())
            })?;
            done = n;
            s += 1;
        }
        // Whole sectors, in place in the client's buffer.
        let whole = (len - done) / ss * ss;
        if whole > 0 {
            let mid = buf
                .get_mut(done..done + whole)
                .ok_or_else(|| err(libc::EIO, "blockmodes: bad span"))?;
            self.read_sectors(s, mid)?;
            done += whole;
            s += (whole / ss) as u64;
        }
        // A partial last sector.
        let rest = len - done;
        if rest > 0 {
            with_plain_scratch(ss, |sector| {
                self.read_sectors(s, sector)?;
                let from = sector
                    .get(..rest)
                    .ok_or_else(|| err(libc::EIO, "blockmodes: bad span"))?;
                buf.get_mut(done..)
                    .ok_or_else(|| err(libc::EIO, "blockmodes: bad span"))?
                    .copy_from_slice(from);
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Write `data` at `offset`, or zeros over `len` bytes if `data` is
    /// `None`: lock the sectors, read-modify-write the partial ends,
    /// encipher, one `pwrite`.
    fn write(&self, data: Option<&[u8]>, len: usize, offset: u64) -> Result<()> {
        if !self.writable {
            return Err(err(libc::EROFS, "blockmodes: the export is read-only"));
        }
        let sp = self
            .span(offset, len)
            .ok_or_else(|| err(libc::ENOSPC, "blockmodes: write past the end of the image"))?;
        if len == 0 {
            return Ok(());
        }
        let ss = self.sector_size as usize;
        let count = sp.end - sp.first;
        let bytes = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(ss))
            .ok_or_else(|| err(libc::EINVAL, "blockmodes: request too large"))?;
        let _held = self.writers.lock(sp.first, sp.end);
        with_scratch(bytes, |buf| {
            // The sectors hold plaintext until they are enciphered: wiped
            // if anything fails before.
            let r = self.encipher_into(buf, data, len, &sp);
            if r.is_err() {
                buf.zeroize();
            }
            r?;
            self.file
                .write_all_at(buf, self.byte(sp.first)?)
                .map_err(|e| self.io("write", e))
        })
    }

    /// The write's sectors in `buf`: the partial first and last ones read
    /// and deciphered, the new bytes (or zeros) copied in, all enciphered.
    fn encipher_into(
        &self,
        buf: &mut [u8],
        data: Option<&[u8]>,
        len: usize,
        sp: &Span,
    ) -> Result<()> {
        let ss = self.sector_size as usize;
        let (bytes, count) = (buf.len(), sp.end - sp.first);
        let tail = (sp.head + len) % ss;
        if sp.head != 0 {
            let first = buf
                .get_mut(..ss)
                .ok_or_else(|| err(libc::EIO, "blockmodes: bad span"))?;
            self.read_sectors(sp.first, first)?;
        }
        if tail != 0 && (count > 1 || sp.head == 0) {
            let last = buf
                .get_mut(bytes - ss..)
                .ok_or_else(|| err(libc::EIO, "blockmodes: bad span"))?;
            self.read_sectors(sp.end - 1, last)?;
        }
        let target = buf
            .get_mut(sp.head..sp.head + len)
            .ok_or_else(|| err(libc::EIO, "blockmodes: bad span"))?;
        match data {
            Some(d) => target.copy_from_slice(d),
            None => target.fill(0),
        }
        self.cipher
            .encrypt_sectors_serial(self.unit(sp.first)?, buf)
            .map_err(Self::cipher_err)
    }

    /// Enciphered zeros over `[offset, offset + count)`, a MiB at a time.
    fn zero(&self, count: u32, offset: u64) -> Result<()> {
        let end = offset
            .checked_add(u64::from(count))
            .filter(|&e| e <= self.size)
            .ok_or_else(|| err(libc::ENOSPC, "blockmodes: zero past the end of the image"))?;
        let mut at = offset;
        while at < end {
            // Chunk ends on a chunk boundary so that middle chunks are whole sectors.
            let next = ((at / ZERO_CHUNK + 1) * ZERO_CHUNK).min(end);
            self.write(None, (next - at) as usize, at)?;
            at = next;
        }
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| self.io("flush", e))
    }
}

/// Parse the parameters, derive the key, open the image and check it.
fn open_disk(c: &Config) -> Result<Disk> {
    let usage = |m: String| err(libc::EINVAL, m);
    let image = c
        .image
        .clone()
        .ok_or_else(|| usage("blockmodes: image=FILE is required (the encrypted image)".into()))?;
    let cipher = c
        .cipher
        .ok_or_else(|| usage("blockmodes: cipher=ete|eme|xex|eme2 is required".into()))?;
    let key_file = c.key_file.clone().ok_or_else(|| {
        usage("blockmodes: keyfile=FILE is required (a key file from `blockmodes keygen`)".into())
    })?;
    let sector_size = c.sector_size.unwrap_or(512);
    let first_sector = c.first_sector.unwrap_or(0);
    let readonly = c.readonly.unwrap_or(false);

    let key = MasterKey::read(&key_file).map_err(|f| usage(format!("blockmodes: {f}")))?;
    let cipher_obj = disk::sector_cipher(&key, cipher, sector_size)
        .map_err(|f| usage(format!("blockmodes: cipher {cipher:?}: {f}")))?;
    drop(key);

    let (mut file, writable) = open_image(&image, readonly)?;
    lock_image(&file, &image, writable)?;
    let size = file
        .seek(SeekFrom::End(0))
        .map_err(|e| usage(format!("blockmodes: cannot size {}: {e}", image.display())))?;
    let ss = sector_size as u64;
    if size % ss != 0 {
        return Err(usage(format!(
            "blockmodes: {} is not a whole number of {sector_size}-byte sectors ({size} bytes, {} left over): pad the image or choose another sector-size",
            image.display(),
            size % ss
        )));
    }
    if i64::try_from(size).is_err() {
        return Err(usage(format!(
            "blockmodes: {} is too large",
            image.display()
        )));
    }
    let sectors = size / ss;
    if sectors > 0 && first_sector.checked_add(sectors - 1).is_none() {
        return Err(usage(format!(
            "blockmodes: first-sector {first_sector}: the image's {sectors} sectors would run past sector 2^64 - 1"
        )));
    }
    Ok(Disk {
        file,
        path: image,
        cipher: cipher_obj,
        sector_size: ss,
        first_sector,
        size,
        writable,
        writers: RangeLock::default(),
    })
}

/// Open the image read-write unless `readonly`; a file the user may not
/// write is served read-only (as nbdkit's `file` plugin does).
fn open_image(path: &PathBuf, readonly: bool) -> Result<(File, bool)> {
    let cannot = |e: std::io::Error| {
        err(
            e.raw_os_error().unwrap_or(libc::EIO),
            format!("blockmodes: cannot open {}: {e}", path.display()),
        )
    };
    if readonly {
        return File::open(path).map(|f| (f, false)).map_err(cannot);
    }
    match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => Ok((f, true)),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EACCES | libc::EROFS | libc::EPERM)
            ) =>
        {
            nbdkit::debug!(
                "blockmodes: {} is not writable ({e}): serving it read-only",
                path.display()
            );
            File::open(path).map(|f| (f, false)).map_err(cannot)
        }
        Err(e) => Err(cannot(e)),
    }
}

/// One writer per image: the range lock that keeps partial writes apart is
/// inside one nbdkit, so a second server of the same image (or a writable
/// one beside a read-only one) is refused. `flock` locks belong to the open
/// file, so the lock outlives nbdkit's fork into the background.
fn lock_image(file: &File, path: &std::path::Path, writable: bool) -> Result<()> {
    use std::os::fd::AsRawFd;
    let how = if writable {
        libc::LOCK_EX
    } else {
        libc::LOCK_SH
    };
    // SAFETY: flock(2) on a descriptor we own, open for the call's duration.
    if unsafe { libc::flock(file.as_raw_fd(), how | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    Err(err(
        libc::EBUSY,
        if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            format!(
                "blockmodes: {} is already served by another process (it holds a lock on the image); serve an image from one server at a time",
                path.display()
            )
        } else {
            format!("blockmodes: cannot lock {}: {e}", path.display())
        },
    ))
}

fn set_once<T>(slot: &mut Option<T>, key: &str, value: T) -> Result<()> {
    if slot.is_some() {
        return Err(err(
            libc::EINVAL,
            format!("blockmodes: parameter {key} given twice"),
        ));
    }
    *slot = Some(value);
    Ok(())
}

fn parse_num<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    value.trim().parse().map_err(|_| {
        err(
            libc::EINVAL,
            format!("blockmodes: {key}={value}: not a number"),
        )
    })
}

fn config(key: &str, value: &str) -> Result<()> {
    let mut cfg = lock(&CONFIG);
    let c = cfg.get_or_insert_with(Config::default);
    match key {
        "image" => set_once(&mut c.image, key, PathBuf::from(value)),
        "cipher" => {
            let cipher: DiskCipher = value.parse().map_err(|_| {
                err(
                    libc::EINVAL,
                    format!("blockmodes: cipher={value}: expected ete, eme, xex or eme2"),
                )
            })?;
            set_once(&mut c.cipher, key, cipher)
        }
        "keyfile" | "key-file" => set_once(&mut c.key_file, key, PathBuf::from(value)),
        "sector-size" => set_once(&mut c.sector_size, key, parse_num(key, value)?),
        "first-sector" => set_once(&mut c.first_sector, key, parse_num(key, value)?),
        "readonly" => {
            let b = match value.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                _ => {
                    return Err(err(
                        libc::EINVAL,
                        format!("blockmodes: readonly={value}: expected true or false"),
                    ));
                }
            };
            set_once(&mut c.readonly, key, b)
        }
        _ => Err(err(
            libc::EINVAL,
            format!(
                "blockmodes: unknown parameter {key}= (expected image, cipher, keyfile, sector-size, first-sector, readonly)"
            ),
        )),
    }
}

fn config_complete() -> Result<()> {
    let c = lock(&CONFIG).take().unwrap_or_default();
    let d = open_disk(&c)?;
    DISK.set(d)
        .map_err(|_| err(libc::EINVAL, "blockmodes: configured twice"))
}

/// One client connection: all state is the shared [`Disk`].
struct Connection {
    readonly: bool,
}

const HELP: &str = "\
image=FILE                 the encrypted image (required; the bare first parameter)
cipher=ete|eme|xex|eme2    the cipher of `blockmodes disk` (required)
keyfile=FILE               the key file from `blockmodes keygen` (required)
sector-size=N              bytes per sector, as given to `blockmodes disk` (default 512)
first-sector=N             the data-unit number of the image's first sector (default 0)
readonly=true              serve read-only (the image is then opened read-only)";

impl Server for Connection {
    fn name() -> &'static str {
        "blockmodes"
    }

    fn longname() -> Option<&'static str> {
        Some("blockmodes encrypted disk image")
    }

    fn description() -> Option<&'static str> {
        Some(
            "Serves a disk image encrypted by `blockmodes disk` (EtE, EME, XEX, EME2) as its plaintext: \
             reads decipher, writes encipher. The export equals `blockmodes disk decrypt` of the image.",
        )
    }

    fn config_help() -> Option<&'static str> {
        Some(HELP)
    }

    fn magic_config_key() -> Option<&'static str> {
        Some("image")
    }

    fn version() -> Option<&'static str> {
        Some(env!("CARGO_PKG_VERSION"))
    }

    fn config(key: &str, value: &str) -> Result<()> {
        guard("config", || config(key, value))
    }

    fn config_complete() -> Result<()> {
        guard("config_complete", config_complete)
    }

    fn open(readonly: bool) -> Result<Box<dyn Server>> {
        guard("open", || {
            served()?;
            Ok(Box::new(Connection { readonly }) as Box<dyn Server>)
        })
    }

    fn get_size(&self) -> Result<i64> {
        guard("get_size", || {
            i64::try_from(served()?.size)
                .map_err(|_| err(libc::EFBIG, "blockmodes: image too large"))
        })
    }

    fn can_write(&self) -> Result<bool> {
        guard("can_write", || Ok(!self.readonly && served()?.writable))
    }

    fn can_multi_conn(&self) -> Result<bool> {
        // No cache in the plugin; every write is in the file before its
        // reply; flush is fdatasync of the shared file (see the module docs).
        guard("can_multi_conn", || Ok(true))
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        guard("pread", || served()?.read(buf, offset))
    }

    fn write_at(&self, buf: &[u8], offset: u64, _flags: Flags) -> Result<()> {
        // FUA is emulated by nbdkit (a flush after the write): can_fua is not
        // registered and flush is.
        guard("pwrite", || served()?.write(Some(buf), buf.len(), offset))
    }

    fn flush(&self) -> Result<()> {
        guard("flush", || served()?.flush())
    }

    fn zero(&self, count: u32, offset: u64, flags: Flags) -> Result<()> {
        guard("zero", || {
            if flags.contains(Flags::FAST_ZERO) {
                return Err(err(
                    libc::ENOTSUP,
                    "blockmodes: no fast zero (zeros are enciphered and written)",
                ));
            }
            served()?.zero(count, offset)
        })
    }

    fn trim(&self, count: u32, offset: u64, _flags: Flags) -> Result<()> {
        guard("trim", || served()?.zero(count, offset))
    }
}

// Only the callbacks implemented above: a listed callback that is not
// implemented aborts nbdkit.
plugin!(Connection {
    config,
    config_complete,
    can_write,
    can_multi_conn,
    write_at,
    flush,
    zero,
    trim
});

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `pread` of [`read_placed`] lands at an address congruent to
    /// its offset modulo [`ALIGN`], reads `buf`'s range piece by piece, and
    /// `buf` ends up holding the input's bytes there; an error stops it.
    #[test]
    fn reads_land_at_addresses_congruent_to_their_offsets() {
        let data: Vec<u8> = (0..3 * READ_PIECE + 4096)
            .map(|i| (i * 31 + i / 509) as u8)
            .collect();
        for offset in [0u64, 16, 512, 4096 + 48, READ_PIECE as u64 - 512] {
            for len in [512usize, 4096, READ_PIECE, 2 * READ_PIECE + 1024] {
                let mut buf = vec![0u8; len];
                let (mut distances, mut covered) = (Vec::new(), 0u64);
                read_placed(&mut buf, offset, |b, at| {
                    distances.push((b.as_ptr() as usize).wrapping_sub(at as usize) % ALIGN);
                    assert_eq!(at, offset + covered);
                    covered += b.len() as u64;
                    let at = at as usize;
                    b.copy_from_slice(&data[at..at + b.len()]);
                    Ok(())
                })
                .unwrap();
                let o = offset as usize;
                assert!(buf == data[o..o + len], "offset {offset}, len {len}");
                assert_eq!(covered, len as u64);
                assert!(distances.iter().all(|&d| d == 0), "{distances:?}");
            }
        }
        let e = read_placed(&mut [0u8; 1024], 0, |_, _| {
            Err(std::io::Error::from_raw_os_error(libc::EIO))
        });
        assert_eq!(e.unwrap_err().raw_os_error(), Some(libc::EIO));
    }

    /// A scratch sector that held plaintext is zero afterwards, whether
    /// its user succeeded or failed.
    #[test]
    fn plaintext_scratch_is_wiped() {
        for fail in [false, true] {
            let r = with_plain_scratch(4096, |s| {
                s.fill(0xa5);
                if fail {
                    Err(err(libc::EIO, "test"))
                } else {
                    Ok(())
                }
            });
            assert_eq!(r.is_err(), fail);
            with_scratch(4096, |s| {
                assert!(s.iter().all(|&b| b == 0));
                Ok(())
            })
            .unwrap();
        }
    }
}
