//! Signals: temporary files removed on SIGINT, SIGTERM and SIGHUP, and
//! SIGPIPE back to its default action.
//!
//! [`install`] starts a thread that waits for SIGINT, SIGTERM or SIGHUP
//! (through `signal-hook`'s self-pipe: nothing runs in the signal handler
//! itself). On a signal it removes every temporary output file still
//! registered by [`create_temp`], then dies of the same signal with the
//! default action, so that the parent sees what it would have seen without
//! the handler (a shell's `$?` is 128 + the signal number: 130, 143, 129).
//!
//! SIGPIPE is reset to its default action, as in the C tools: a command
//! whose reader went away (`blockmodes open … | head -c 10`) ends at once,
//! quietly, killed by SIGPIPE (status 141 in a shell), instead of reporting
//! "Broken pipe". Only pipes and sockets raise it; a file output (the only
//! kind with a temporary file) never does.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// The temporary files to remove if a signal ends the process.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temps() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Install the handlers (once, at start-up). Without them (if installing
/// fails) the signals keep their default action.
pub fn install() {
    // SAFETY: `signal` is the C library's; SIG_DFL for SIGPIPE is a valid
    // disposition, set before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                // Held until the process ends: no temporary file is renamed
                // into place (see `with_temps`) while we remove them.
                let list = temps();
                for p in list.iter() {
                    let _ = std::fs::remove_file(p);
                }
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        });
    drop(spawned);
}

/// Create the temporary file `path` with `create`, registered for removal
/// if a signal ends the process. Under the lock: a signal either comes
/// before the file exists or finds it registered.
pub fn create_temp<R>(
    path: &Path,
    create: impl FnOnce() -> std::io::Result<R>,
) -> std::io::Result<R> {
    let mut t = temps();
    let r = create()?;
    t.push(path.to_owned());
    Ok(r)
}

/// Run `f` (the rename of the temporary file `path`) while no signal can
/// remove temporary files, then forget `path`. (A temporary file removed
/// on drop stays listed: removing a name that no longer exists is harmless.)
pub fn with_temp_lock<R>(path: &Path, f: impl FnOnce() -> R) -> R {
    let mut t = temps();
    let r = f();
    if let Some(i) = t.iter().position(|p| p == path) {
        t.swap_remove(i);
    }
    r
}
