//! `blockmodes`: file encryption, checksums and disk-image encryption with
//! the modes of the papers; known-answer tests and benchmarks.
//!
//! A thin front end: each subcommand's work is in a module of the library.

use std::path::PathBuf;
use std::process::ExitCode;

use blockmodes::sector::DiskCipher;
use blockmodes_cli::disk;
use blockmodes_cli::failure::{CliResult, Failure};
use blockmodes_cli::header::{CHUNK_LOG2_RANGE, KdfLimit, Mode};
use blockmodes_cli::keyfile::MasterKey;
use blockmodes_cli::macsum::{self, MacMode};
use blockmodes_cli::seal::{self, SecretSource};
use blockmodes_cli::serve;
use blockmodes_cli::{bench, kat, signals};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

/// `println!` that does not panic when standard output cannot be written
/// (`> /dev/full`): `kat` and `bench` print with it.
macro_rules! println {
    ($($arg:tt)*) => {
        say(format_args!($($arg)*))
    };
}

/// Print a line on standard output; if that fails, say so on standard
/// error and exit with status 2 (an I/O error), as `sha256sum > /dev/full`.
fn say(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(line).and_then(|()| out.write_all(b"\n")) {
        cannot_write_stdout(&e);
    }
}

fn cannot_write_stdout(e: &std::io::Error) -> ! {
    eprintln!("blockmodes: cannot write standard output: {e}");
    std::process::exit(2)
}

#[derive(Parser)]
#[command(
    name = "blockmodes",
    version,
    about = "Block-cipher modes from the papers: exact, fast, safe",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

const EXIT_CODES: &str = "Exit status: 0 success, 1 authentication or verification failure \
(wrong key, corrupted or truncated input, a checksum that does not match), 2 usage or I/O error; \
killed by SIGINT, SIGTERM or SIGHUP: 130, 143 or 129 in a shell (temporary files removed first); \
a reader that goes away (`| head`): SIGPIPE, 141 in a shell, no message, as cat and sha256sum.\n\
Outputs: a regular file appears only when complete (a temporary file, then a rename); an existing \
device node, FIFO or socket is written in place (not atomic; a block device needs --force). \
Decrypted outputs and keys are created 0600, encrypted outputs 0666 less the umask.\n\
File format: docs/file-format.md in the source (https://github.com/blockmodes/blockmodes); \
man page: `blockmodes manpage`; shell completions: `blockmodes completions bash|zsh|fish`.";

#[derive(Subcommand)]
enum Command {
    /// Create a new random master key (a text file, mode 0600).
    ///
    /// The key comes from the operating system's random generator. Without
    /// -o it is printed on standard output (a redirection to a file that
    /// others may read gets a warning: use -o FILE, created 0600). An
    /// existing file is never replaced unless --force is given.
    #[command(after_help = "Example:\n  blockmodes keygen -o my.key")]
    Keygen {
        /// Write the key to FILE (created with mode 0600).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Replace FILE if it exists.
        #[arg(long)]
        force: bool,
    },
    /// Encrypt and authenticate a file or a pipe (chunked, streamable).
    ///
    /// Reads INPUT (or standard input), writes a sealed file to -o OUT (or
    /// standard output). The output file appears only once everything is
    /// written; an existing file is not replaced without --force.
    #[command(
        after_help = "Examples:\n  blockmodes seal --key-file my.key -o notes.txt.bm notes.txt\n  \
tar c dir | blockmodes seal --passphrase-file pass.txt > dir.tar.bm\n  \
blockmodes seal --passphrase-fd 3 -o notes.txt.bm notes.txt 3< pass.txt\n  \
blockmodes seal --mode cwc -o notes.txt.bm notes.txt     (asks for a passphrase)\n\n\
Exit status: 0 success, 2 usage or I/O error."
    )]
    Seal {
        /// The mode: ocb1 (fastest), cwc or xcbc-xor.
        #[arg(long, value_enum, default_value = "ocb1")]
        mode: ModeArg,
        /// Chunk size: a power of two from 1K to 16M (default 64K).
        #[arg(long, value_parser = parse_chunk, default_value = "64K")]
        chunk_size: u8,
        #[command(flatten)]
        io: IoArgs,
    },
    /// Decrypt and verify a sealed file (from `seal`).
    ///
    /// The key or passphrase is checked against the header before anything
    /// is written. To a file: the file appears only if every chunk
    /// authenticated. To standard output: each chunk is written only after it
    /// authenticated, and a failure stops with the byte offset.
    #[command(
        after_help = "Examples:\n  blockmodes open --key-file my.key -o notes.txt notes.txt.bm\n  \
blockmodes open --passphrase-file pass.txt < dir.tar.bm | tar x\n  \
BM_PASS=... blockmodes open --passphrase-env BM_PASS -o notes.txt notes.txt.bm\n\n\
Exit status: 0 success, 1 wrong key or corrupted/truncated input, 2 usage or I/O error."
    )]
    Open {
        #[command(flatten)]
        io: IoArgs,
        /// The most memory (MiB, 1 to 1024) Argon2id may use for a
        /// passphrase-sealed file: its header's costs are checked against
        /// this before the header authenticates. `seal` writes 64 MiB.
        #[arg(long, value_name = "MIB", default_value_t = KdfLimit::DEFAULT.max_m_mib,
              value_parser = clap::value_parser!(u32).range(1..=1024))]
        max_kdf_memory: u32,
        /// The most Argon2id passes (1 to 64) for a passphrase-sealed file
        /// (`seal` writes 3).
        #[arg(long, value_name = "N", default_value_t = KdfLimit::DEFAULT.max_t,
              value_parser = clap::value_parser!(u32).range(1..=64))]
        max_kdf_passes: u32,
    },
    /// Print a keyed checksum of each file, in the layout of sha256sum.
    ///
    /// One line per file: `<hex tag>  <name>`. Large files are checksummed
    /// on all cores; a regular file is memory-mapped (if it is truncated
    /// meanwhile the command dies of SIGBUS, as b3sum does). With no FILE,
    /// or `-`, reads standard input.
    #[command(
        after_help = "Examples:\n  blockmodes mac --key-file my.key *.iso > SUMS\n  \
blockmodes mac --mode xecb --key-file my.key report.pdf\n\n\
Exit status: 0 success, 2 usage or I/O error (a file could not be read)."
    )]
    Mac {
        /// pmac (16-byte tags, deterministic) or xecb (32-byte tags, randomized).
        #[arg(long, value_enum, default_value = "pmac")]
        mode: MacModeArg,
        /// The key file (from `blockmodes keygen`).
        #[arg(long, value_name = "FILE")]
        key_file: PathBuf,
        /// No progress bar (same as --no-progress).
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        progress: NoProgress,
        /// End each line with NUL, not newline, and do not escape file names
        /// (as sha256sum -z; check with `verify -z`).
        #[arg(short, long)]
        zero: bool,
        /// Read files instead of memory-mapping them (as b3sum --no-mmap).
        #[arg(long)]
        no_mmap: bool,
        /// The files.
        files: Vec<PathBuf>,
    },
    /// Check the files listed in checksum files from `blockmodes mac`.
    ///
    /// Prints `<name>: OK` or `<name>: FAILED` for each line, like
    /// `sha256sum -c`, with its options. The mode is told from the tag
    /// length unless --mode is given. A sha256sum or b3sum file is named as
    /// such; when every checksum fails, the key is probably wrong.
    #[command(
        after_help = "Examples:\n  blockmodes verify --key-file my.key SUMS\n  \
blockmodes verify --key-file my.key --quiet --ignore-missing SUMS OTHER-SUMS\n\n\
Exit status: 0 every file matched, 1 a file did not match or is missing (or, with --strict, \
a line is malformed), 2 usage or I/O error (a check file could not be read: the others are \
still checked, as by sha256sum -c)."
    )]
    Verify {
        /// Force the mode instead of telling it from the tag length.
        #[arg(long, value_enum)]
        mode: Option<MacModeArg>,
        /// The key file (from `blockmodes keygen`).
        #[arg(long, value_name = "FILE")]
        key_file: PathBuf,
        /// Print nothing (the exit status tells the result); no progress bar.
        #[arg(long)]
        status: bool,
        /// Do not print OK for each file that matched: only the failures.
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        progress: NoProgress,
        /// Do not fail or report for files that are missing.
        #[arg(long)]
        ignore_missing: bool,
        /// Exit with status 1 for improperly formatted lines (otherwise a warning).
        #[arg(long)]
        strict: bool,
        /// Lines end with NUL, not newline, names are not escaped (files from
        /// `mac -z`); the report's lines end with NUL too.
        #[arg(short, long)]
        zero: bool,
        /// Read files instead of memory-mapping them.
        #[arg(long)]
        no_mmap: bool,
        /// The checksum files (`-`, or none, for standard input).
        sum_files: Vec<PathBuf>,
    },
    /// Encrypt or decrypt a disk image sector by sector (length-preserving).
    ///
    /// Sector s of the image (after --offset bytes of the input) is data unit
    /// FIRST_SECTOR + s. A regular output file appears only once it is
    /// complete; it is not replaced without --force. An existing device node
    /// or FIFO is written in place (not atomic; a block device needs
    /// --force). `-` is standard input or output.
    /// There is no integrity check: a wrong key gives garbage, not an error.
    #[command(
        after_help = "Examples:\n  blockmodes disk encrypt --cipher ete --key-file my.key disk.img -o disk.img.enc\n  \
blockmodes disk decrypt --cipher ete --key-file my.key disk.img.enc -o disk.img\n  \
blockmodes disk encrypt --cipher xex --sector-size 4096 --first-sector 2048 --key-file my.key part.img -o part.enc\n  \
blockmodes disk decrypt --cipher eme2 --key-file my.key --offset 1048576 --first-sector 2048 --count 8 disk.enc -o - | xxd\n\n\
Exit status: 0 success, 2 usage or I/O error (including an image that is not a whole number of sectors)."
    )]
    Disk {
        #[command(subcommand)]
        action: DiskAction,
    },
    /// Run test-vector files (docs/spec/vectors.md format) through the library.
    ///
    /// Prints one line per failing vector and closes with `N passed, M failed`.
    /// Exit status: 0 all passed, 1 a vector failed, 2 a file is unreadable,
    /// names an unknown scheme or lacks a field.
    ///
    /// Example: blockmodes kat vectors/*.json
    Kat {
        /// Vector files.
        files: Vec<PathBuf>,
        /// Print the schemes kat knows and exit.
        #[arg(long)]
        list: bool,
    },
    /// Measure every mode next to raw AES-128-ECB (GB/s, cycles/byte, ratio to ECB).
    ///
    /// The header names the CPU (model, vendor, family and model numbers,
    /// AES-NI, VAES, AVX-512 and IFMA) and the AES tier in use (`--cpu`,
    /// `BLOCKMODES_CPU`); the ECB yardstick runs on that tier too. Built with
    /// the cargo feature `peers`, it also measures OpenSSL's AES-128-OCB, -GCM
    /// and -XTS (OpenSSL 4.0.3 built from source), ring's AES-128-GCM and
    /// RustCrypto's `ocb3` and `eme-mode` in the same run, and the header
    /// names their versions (`--list` names the rows).
    ///
    /// Example: blockmodes bench --quick --modes ocb1-encrypt,pmac --sizes 4096,16384
    Bench {
        /// Comma-separated modes (default: all; `--list` shows them).
        #[arg(long, value_delimiter = ',')]
        modes: Vec<String>,
        /// Comma-separated message sizes in bytes (suffixes K and M allowed).
        #[arg(long, value_delimiter = ',', value_parser = parse_size)]
        sizes: Vec<usize>,
        /// One JSON object per line instead of a table: first `{"cpu": {...}}`
        /// (model name, vendor, family and model numbers, features), then one
        /// per row.
        #[arg(long)]
        json: bool,
        /// Short timing: the whole run stays under 30 seconds.
        #[arg(long)]
        quick: bool,
        /// Print the modes bench knows and exit.
        #[arg(long)]
        list: bool,
        /// Cap the AES tier (generic, armv8, aesni, vaes256, vaes512), as the
        /// environment variable BLOCKMODES_CPU does: lowers, never raises.
        #[arg(long, value_name = "TIER", value_parser = bench::parse_tier)]
        cpu: Option<blockmodes::backend::Tier>,
        /// Print the AES tiers this CPU runs (under BLOCKMODES_CPU), lowest
        /// first, and exit.
        #[arg(long)]
        tiers: bool,
        /// Also time every row side by side with MODE (samples alternating
        /// ECB, the row, MODE) and print the row's throughput relative to
        /// MODE's (`x MODE`; JSON `ratio_to_against`): a ratio of two rows
        /// not skewed by the machine changing speed between them. Example:
        /// --modes cwc-encrypt --against openssl-gcm-encrypt (with `peers`).
        #[arg(long, value_name = "MODE")]
        against: Option<String>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell).
    ///
    /// Example: blockmodes completions bash > /etc/bash_completion.d/blockmodes
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), or write one page per command into DIR.
    ///
    /// Example: blockmodes manpage | man -l -
    Manpage {
        /// Write blockmodes.1 and blockmodes-COMMAND.1 pages into DIR.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// `--no-progress`, on every command that may draw a progress bar.
#[derive(Args)]
struct NoProgress {
    /// No progress bar.
    #[arg(long)]
    no_progress: bool,
}

/// The options `seal` and `open` share.
#[derive(Args)]
#[group(id = "secret", multiple = false)]
struct IoArgs {
    /// The key file (from `blockmodes keygen`).
    #[arg(long, value_name = "FILE", group = "secret")]
    key_file: Option<PathBuf>,
    /// Read the passphrase from the first line of FILE (without a key or
    /// passphrase option, it is asked on the terminal).
    #[arg(long, value_name = "FILE", group = "secret")]
    passphrase_file: Option<PathBuf>,
    /// Read the passphrase from the first line of file descriptor N (as
    /// openssl's `-pass fd:N`), e.g. `3< pass.txt`. With 0, `seal`'s input
    /// is the rest of standard input, after that line (`open` takes 0 only
    /// with the sealed file given by name).
    #[arg(long, value_name = "N", group = "secret")]
    passphrase_fd: Option<u32>,
    /// Take the passphrase from environment variable VAR (as openssl's
    /// `-pass env:VAR`; other users cannot read it, processes of yours can).
    #[arg(long, value_name = "VAR", group = "secret")]
    passphrase_env: Option<String>,
    /// Write to FILE instead of standard output. A regular file appears only
    /// when complete; an existing device node or FIFO is written in place
    /// (not atomic: a failure leaves what was written).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace the output file if it exists (or write into a block device).
    #[arg(long)]
    force: bool,
    /// No progress bar (same as --no-progress).
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    progress: NoProgress,
    /// Sync the output file to disk before it takes its name (slower; the
    /// file then survives a power failure right after the command ends).
    #[arg(long)]
    sync: bool,
    /// The input file (default: standard input; `-` too).
    input: Option<PathBuf>,
}

impl IoArgs {
    fn options(self) -> seal::Options {
        let secret = if let Some(k) = self.key_file {
            SecretSource::KeyFile(k)
        } else if let Some(p) = self.passphrase_file {
            SecretSource::PassphraseFile(p)
        } else if let Some(fd) = self.passphrase_fd {
            SecretSource::PassphraseFd(fd)
        } else if let Some(v) = self.passphrase_env {
            SecretSource::PassphraseEnv(v)
        } else {
            SecretSource::Prompt
        };
        seal::Options {
            secret,
            output: self.output.map(stdout_as_dash),
            input: self.input,
            force: self.force,
            quiet: self.quiet || self.progress.no_progress,
            sync: self.sync,
            kdf_limit: KdfLimit::DEFAULT,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    /// OCB 1.0 with AES-256.
    Ocb1,
    /// CWC with AES-256.
    Cwc,
    /// Stateful XCBC-XOR with AES-256.
    XcbcXor,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Ocb1 => Mode::Ocb1,
            ModeArg::Cwc => Mode::Cwc,
            ModeArg::XcbcXor => Mode::XcbcXor,
        }
    }
}

#[derive(Subcommand)]
enum DiskAction {
    /// Encrypt an image.
    #[command(
        after_help = "Example:\n  blockmodes disk encrypt --cipher ete --key-file my.key disk.img -o disk.img.enc"
    )]
    Encrypt(DiskArgs),
    /// Decrypt an image.
    #[command(
        after_help = "Example:\n  blockmodes disk decrypt --cipher ete --key-file my.key disk.img.enc -o disk.img"
    )]
    Decrypt(DiskArgs),
    /// Serve an encrypted image as a live plaintext block device (NBD, through nbdkit).
    ///
    /// Runs nbdkit with the blockmodes plugin: clients (qemu, qemu-img,
    /// nbdcopy, nbdfuse, nbd-client) read and write the plaintext; the image
    /// stays encrypted. Listens on a Unix socket (mode 0600, IMAGE.sock
    /// unless --socket), or on TCP with --listen.
    #[command(after_help = SERVE_HELP)]
    Serve(serve::ServeArgs),
}

const SERVE_HELP: &str = "Examples:\n  \
blockmodes disk serve --cipher ete --key-file my.key disk.img.enc --socket /tmp/disk.sock\n  \
nbdcopy 'nbd+unix:///?socket=/tmp/disk.sock' disk.img\n  \
qemu-system-x86_64 -drive file=nbd+unix:///?socket=/tmp/disk.sock,format=raw ...\n\n\
The plugin is target/release/libblockmodes_nbdkit.so (cargo build --release -p blockmodes-nbdkit); \
it is found with --plugin, $BLOCKMODES_NBDKIT_PLUGIN, beside this binary, or in nbdkit's plugin \
directory as nbdkit-blockmodes-plugin.so.\n\
Exit status: 0 once stopped (Ctrl-C or a signal; nbdkit stops with the command), 2 usage error \
(bad key file, cipher or image, nbdkit or the plugin missing) or nbdkit failed.";

#[derive(Args)]
struct DiskArgs {
    /// ete (key-safe EtE over EME and StE[XEX], AES-128), eme (EME-AES-256),
    /// eme2 (EME2-AES-256, IEEE 1619.2) or xex (XEX-AES-256).
    #[arg(long, value_enum)]
    cipher: DiskCipherArg,
    /// Bytes per sector: 16 to 2048 in multiples of 16, or 4096.
    #[arg(long, default_value_t = 512, value_parser = parse_sector_size)]
    sector_size: usize,
    /// The sector number (tweak) of the first sector processed, as
    /// cryptsetup's --skip.
    #[arg(long, default_value_t = 0)]
    first_sector: u64,
    /// Where the image starts in the input, in bytes (skipped; default 0).
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    offset: u64,
    /// How many sectors to process (default: to the end of the input).
    #[arg(long, value_name = "N")]
    count: Option<u64>,
    /// The key file (from `blockmodes keygen`).
    #[arg(long, value_name = "FILE")]
    key_file: PathBuf,
    /// Write to FILE (`-`: standard output, not a terminal). An existing
    /// device node or FIFO is written in place (not atomic).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Replace the output file if it exists (or write into a block device).
    #[arg(long)]
    force: bool,
    /// No progress bar (same as --no-progress).
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    progress: NoProgress,
    /// Sync the output file to disk before it takes its name.
    #[arg(long)]
    sync: bool,
    /// The image (a file, a block device, or `-` for standard input).
    input: PathBuf,
}

impl DiskArgs {
    fn options(self) -> disk::Options {
        disk::Options {
            cipher: match self.cipher {
                DiskCipherArg::Ete => DiskCipher::Ete,
                DiskCipherArg::Eme => DiskCipher::Eme,
                DiskCipherArg::Eme2 => DiskCipher::Eme2,
                DiskCipherArg::Xex => DiskCipher::Xex,
            },
            sector_size: self.sector_size,
            first_sector: self.first_sector,
            offset: self.offset,
            count: self.count,
            key_file: self.key_file,
            input: self.input,
            output: stdout_as_dash(self.output),
            force: self.force,
            quiet: self.quiet || self.progress.no_progress,
            sync: self.sync,
        }
    }
}

/// `-o /dev/stdout` (or `/dev/fd/1`, `/proc/self/fd/1`) is standard output,
/// written as `-` is, as `cp F /dev/stdout` writes through: never an
/// existing file to refuse, nor a link to rename a temporary file over.
fn stdout_as_dash(p: PathBuf) -> PathBuf {
    let names = ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"];
    if names.iter().any(|n| p.as_os_str() == *n) {
        PathBuf::from("-")
    } else {
        p
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum DiskCipherArg {
    /// EtE (key-safe): EME over StE[XEX-AES-128].
    Ete,
    /// EME with AES-256.
    Eme,
    /// EME2 (IEEE 1619.2) with AES-256.
    Eme2,
    /// XEX with AES-256.
    Xex,
}

#[derive(Clone, Copy, ValueEnum)]
enum MacModeArg {
    /// PMAC (2001) with AES-256.
    Pmac,
    /// Stateless XECB$-MAC with AES-256.
    Xecb,
}

impl From<MacModeArg> for MacMode {
    fn from(m: MacModeArg) -> MacMode {
        match m {
            MacModeArg::Pmac => MacMode::Pmac,
            MacModeArg::Xecb => MacMode::Xecb,
        }
    }
}

fn parse_sector_size(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("not a sector size in bytes: `{s}`"))?;
    disk::check_sector_size(n)
}

fn parse_chunk(s: &str) -> Result<u8, String> {
    let n = parse_size(s)?;
    let log2 = n.trailing_zeros();
    match u8::try_from(log2) {
        Ok(l) if n.is_power_of_two() && CHUNK_LOG2_RANGE.contains(&l) => Ok(l),
        _ => Err(format!(
            "chunk size must be a power of two from 1K to 16M, not `{s}`"
        )),
    }
}

fn parse_size(s: &str) -> Result<usize, String> {
    let (num, mul) = match s.trim().to_ascii_uppercase() {
        t if t.ends_with("KIB") || t.ends_with('K') => (
            t.trim_end_matches("KIB").trim_end_matches('K').to_owned(),
            1024,
        ),
        t if t.ends_with("MIB") || t.ends_with('M') => (
            t.trim_end_matches("MIB").trim_end_matches('M').to_owned(),
            1 << 20,
        ),
        t => (t.trim_end_matches('B').to_owned(), 1),
    };
    let n: usize = num.parse().map_err(|_| format!("not a size: `{s}`"))?;
    match n.checked_mul(mul) {
        Some(b) if b > 0 && b <= 1 << 30 => Ok(b),
        _ => Err(format!("size out of range (1 B to 1 GiB): `{s}`")),
    }
}

fn main() -> ExitCode {
    signals::install();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print on standard output: a failed
            // write is an I/O error, not a success.
            if let Err(w) = e.print()
                && !e.use_stderr()
            {
                cannot_write_stdout(&w);
            }
            if !e.use_stderr() {
                use std::io::Write;
                if let Err(w) = std::io::stdout().flush() {
                    cannot_write_stdout(&w);
                }
            }
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let (name, result): (&str, CliResult<()>) = match cli.command {
        Command::Keygen { output, force } => ("keygen", keygen(output.map(stdout_as_dash), force)),
        Command::Seal {
            mode,
            chunk_size,
            io,
        } => ("seal", seal::seal(&io.options(), mode.into(), chunk_size)),
        Command::Open {
            io,
            max_kdf_memory,
            max_kdf_passes,
        } => {
            let mut o = io.options();
            o.kdf_limit = KdfLimit {
                max_m_mib: max_kdf_memory,
                max_t: max_kdf_passes,
            };
            ("open", seal::open(&o))
        }
        Command::Mac {
            mode,
            key_file,
            quiet,
            progress,
            zero,
            no_mmap,
            files,
        } => {
            let quiet = quiet || progress.no_progress;
            let o = macsum::MacOptions {
                quiet,
                zero,
                no_mmap,
            };
            ("mac", macsum::mac(mode.into(), &key_file, &files, &o))
        }
        Command::Disk { action } => match action {
            DiskAction::Encrypt(a) => ("disk encrypt", disk::run(&a.options(), true)),
            DiskAction::Decrypt(a) => ("disk decrypt", disk::run(&a.options(), false)),
            DiskAction::Serve(a) => ("disk serve", serve::run(&a)),
        },
        Command::Verify {
            mode,
            key_file,
            status,
            quiet,
            progress,
            ignore_missing,
            strict,
            zero,
            no_mmap,
            sum_files,
        } => {
            let o = macsum::VerifyOptions {
                mode: mode.map(Into::into),
                status,
                quiet,
                no_progress: progress.no_progress || status,
                ignore_missing,
                strict,
                zero,
                no_mmap,
            };
            ("verify", macsum::verify(&key_file, &sum_files, &o))
        }
        other => return run_tool(other),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            // An empty message: `verify --status`, the status alone tells.
            if !f.message().is_empty() {
                eprintln!(
                    "blockmodes {name}: {}",
                    blockmodes_cli::one_line(f.message())
                );
            }
            ExitCode::from(f.exit_code())
        }
    }
}

fn keygen(output: Option<PathBuf>, force: bool) -> CliResult<()> {
    let key = MasterKey::generate()?;
    match output {
        Some(p) if p.as_os_str() != "-" => key.write(&p, force),
        _ => {
            use std::io::Write;
            warn_shared_stdout();
            let mut out = std::io::stdout();
            out.write_all(key.to_file_text().as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| Failure::usage(format!("cannot write standard output: {e}")))
        }
    }
}

/// `keygen > FILE`: warn when the redirection made a file others may read.
fn warn_shared_stdout() {
    use std::os::fd::AsFd;
    use std::os::unix::fs::PermissionsExt;
    let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return;
    };
    if let Ok(m) = std::fs::File::from(fd).metadata()
        && m.is_file()
        && m.permissions().mode() & 0o077 != 0
    {
        eprintln!(
            "blockmodes keygen: warning: the key goes to a file others may read (mode {:04o}); \
use `blockmodes keygen -o FILE` (created 0600) or `chmod 600` it",
            m.permissions().mode() & 0o7777
        );
    }
}

/// `completions`, `manpage`, `kat` and `bench`.
fn run_tool(command: Command) -> ExitCode {
    match command {
        Command::Completions { shell } => {
            use std::io::Write;
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "blockmodes", &mut script);
            let mut out = std::io::stdout();
            if let Err(e) = out.write_all(&script).and_then(|()| out.flush()) {
                cannot_write_stdout(&e);
            }
            ExitCode::SUCCESS
        }
        Command::Manpage { dir } => manpage(dir),
        Command::Kat { files, list } => run_kat(&files, list),
        Command::Bench {
            modes,
            sizes,
            json,
            quick,
            list,
            cpu,
            tiers,
            against,
        } => {
            if tiers {
                println!("{}", blockmodes::backend::tier_names());
                return ExitCode::SUCCESS;
            }
            if let Some(t) = cpu {
                blockmodes::backend::set_cap(t);
            }
            run_bench(modes, sizes, json, quick, list, against.as_deref())
        }
        _ => ExitCode::from(2),
    }
}

fn run_kat(files: &[PathBuf], list: bool) -> ExitCode {
    if list {
        for s in kat::SCHEMES {
            println!("{s}");
        }
        return ExitCode::SUCCESS;
    }
    if files.is_empty() {
        eprintln!("blockmodes kat: no vector files given (try: blockmodes kat vectors/*.json)");
        return ExitCode::from(2);
    }
    let mut total = kat::Totals::default();
    for f in files {
        match kat::run_file(f, &mut |line| println!("{line}")) {
            Ok(t) => {
                total.passed += t.passed;
                total.failed += t.failed;
            }
            Err(e @ kat::KatError::File { .. }) => {
                // The error names the file already.
                eprintln!(
                    "blockmodes kat: {}",
                    blockmodes_cli::one_line(&e.to_string())
                );
                println!("{} passed, {} failed", total.passed, total.failed);
                return ExitCode::from(2);
            }
            Err(e) => {
                let msg = format!("{}: {e}", f.display());
                eprintln!("blockmodes kat: {}", blockmodes_cli::one_line(&msg));
                println!("{} passed, {} failed", total.passed, total.failed);
                return ExitCode::from(2);
            }
        }
    }
    println!("{} passed, {} failed", total.passed, total.failed);
    if total.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The bench's header: the CPU, the peers' versions (with the cargo feature
/// `peers`), then (text only) what the columns mean. With `--json`, one
/// object `{"cpu": {...}}` (and `"peers": {...}`) before the rows.
fn print_bench_header(json: bool) {
    let cpu = bench::cpu::Cpu::detect();
    let peers = bench::peers_header();
    let tier = blockmodes::backend::Tier::current();
    if json {
        let mut c = cpu.to_json();
        c["tier"] = tier.name().into();
        let mut head = serde_json::json!({ "cpu": c });
        if let Some((_, value)) = peers {
            head["peers"] = value;
        }
        println!("{head}");
    } else {
        println!("# CPU: {}", cpu.describe());
        println!("# {}", bench::tier_line(tier));
        if let Some((text, _)) = peers {
            println!("# Peers: {text}");
        }
        println!(
            "# AES-128, one thread; cycles = TSC ticks (nominal clock), x ECB = median over alternating ECB/mode samples of ECB time / mode time, same size"
        );
    }
}

/// `blockmodes manpage [--dir DIR]`.
fn manpage(dir: Option<PathBuf>) -> ExitCode {
    let cmd = Cli::command();
    let r = match &dir {
        Some(d) => clap_mangen::generate_to(cmd, d),
        None => clap_mangen::Man::new(cmd).render(&mut std::io::stdout()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let to = dir.map_or("standard output".into(), |d| d.display().to_string());
            eprintln!(
                "blockmodes manpage: {}",
                blockmodes_cli::one_line(&format!("cannot write {to}: {e}"))
            );
            ExitCode::from(2)
        }
    }
}

fn run_bench(
    modes: Vec<String>,
    sizes: Vec<usize>,
    json: bool,
    quick: bool,
    list: bool,
    against: Option<&str>,
) -> ExitCode {
    if list {
        for m in bench::all_modes() {
            println!("{m}");
        }
        return ExitCode::SUCCESS;
    }
    let modes: Vec<String> = if modes.is_empty() {
        bench::all_modes().iter().map(|s| s.to_string()).collect()
    } else {
        modes
    };
    let sizes = if sizes.is_empty() {
        bench::DEFAULT_SIZES.to_vec()
    } else {
        sizes
    };
    let timing = if quick {
        bench::Timing::QUICK
    } else {
        bench::Timing::FULL
    };
    // An unknown mode is refused before the header is printed.
    if let Err(e) = bench::check_modes(&modes, against) {
        eprintln!("blockmodes bench: {e}");
        return ExitCode::from(2);
    }
    print_bench_header(json);
    // The mode column as wide as the longest row name (cbc-hmac-sha256-random-iv).
    let w = modes.iter().map(String::len).max().unwrap_or(0).max(22);
    if !json {
        let vs = against.map(|a| format!(" x {a}")).unwrap_or_default();
        println!(
            "{:<w$} {:>9} {:>9} {:>9} {:>8}{vs}",
            "mode", "bytes", "GB/s", "cyc/byte", "x ECB"
        );
    }
    let mut emit = |r: &bench::Row| {
        if json {
            println!("{}", r.to_json());
        } else {
            let vs = r
                .against
                .as_ref()
                .map(|(a, x)| format!(" {x:>w$.3}", w = a.len() + 2))
                .unwrap_or_default();
            println!(
                "{:<w$} {:>9} {:>9.3} {:>9.3} {:>8.3}{vs}",
                r.mode, r.bytes, r.gbps, r.cpb, r.ratio_to_ecb
            );
        }
    };
    match bench::run(&modes, &sizes, timing, against, &mut emit) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blockmodes bench: {e}");
            ExitCode::from(2)
        }
    }
}
