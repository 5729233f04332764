//! What the fork tests share: a child process that reports what it drew
//! through a pipe, and the checks on the parent's side.
//!
//! A record is 64 bytes from the thread RNG followed by one XCBC$-XOR
//! ciphertext of [`MSG`] under [`KEY`]; its first block y0 = f(r0) shows
//! whether r0 repeated. Child and parent draw in the same order, so a
//! child that continued its parent's stream would produce exactly the
//! parent's next record.

use blockmodes::rand_core::TryRng;
use blockmodes::rng::thread_rng;
use blockmodes::{Aes128, xcbc::XcbcXor};

/// K || K'.
pub const KEY: [u8; 32] = [0x42; 32];
/// 32 bytes: with the padding block three blocks, so an 80-byte ciphertext
/// (y0, y1..y3, check).
pub const MSG: &[u8] = b"one message under one key, twice";
/// The ciphertext's length: (n + 2) * 16 with n = MSG.len() / 16 + 1.
pub const CT_LEN: usize = (MSG.len() / 16 + 3) * 16;
/// Bytes drawn straight from the thread RNG.
pub const DRAWN: usize = 64;
/// One record.
pub const RECORD: usize = DRAWN + CT_LEN;

/// Draw a record in this process (`None` on any error: the child must not
/// panic).
pub fn sample(x: &XcbcXor<Aes128>) -> Option<[u8; RECORD]> {
    let mut rec = [0u8; RECORD];
    thread_rng().try_fill_bytes(&mut rec[..DRAWN]).ok()?;
    let n = x.encrypt_into(MSG, &mut rec[DRAWN..]).ok()?;
    (n == CT_LEN).then_some(rec)
}

/// A child made by `make_child` (returns 0 in the child, the child's pid
/// in the parent, like `fork`): the child writes one [`sample`] to a pipe
/// and leaves with `_exit` (no allocation, no unwinding, no atexit
/// handlers). Returns the child's pid and the pipe's read end.
pub fn spawn(x: &XcbcXor<Aes128>, make_child: impl Fn() -> libc::pid_t) -> (libc::pid_t, i32) {
    let mut fds = [0i32; 2];
    // SAFETY: `fds` has room for the two descriptors pipe() writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    let pid = make_child();
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let status = match sample(x) {
            Some(rec) => {
                let mut done = 0;
                while done < RECORD {
                    // SAFETY: the write end of our pipe, and `rec[done..]`.
                    let n =
                        unsafe { libc::write(fds[1], rec[done..].as_ptr().cast(), RECORD - done) };
                    if n <= 0 {
                        break;
                    }
                    done += n as usize;
                }
                if done == RECORD { 0 } else { 3 }
            }
            None => 2,
        };
        // SAFETY: ends the child at once; nothing of the parent's (test
        // harness, buffered output) runs in it.
        unsafe { libc::_exit(status) }
    }
    // SAFETY: closing the parent's copy of the write end, which it owns.
    unsafe { libc::close(fds[1]) };
    (pid, fds[0])
}

/// The record of a child from [`spawn`], once it has exited with status 0.
pub fn collect((pid, fd): (libc::pid_t, i32)) -> [u8; RECORD] {
    let mut rec = [0u8; RECORD];
    let mut got = 0;
    while got < RECORD {
        // SAFETY: the read end of the child's pipe, and `rec[got..]`.
        let n = unsafe { libc::read(fd, rec[got..].as_mut_ptr().cast(), RECORD - got) };
        if n <= 0 {
            break;
        }
        got += n as usize;
    }
    // SAFETY: the read end, owned here.
    unsafe { libc::close(fd) };
    let mut status = 0;
    // SAFETY: waits for our own child; `status` is a valid out-pointer.
    assert_eq!(
        unsafe { libc::waitpid(pid, &mut status, 0) },
        pid,
        "waitpid"
    );
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child failed (status {status:#x})"
    );
    assert_eq!(got, RECORD, "short record from the child");
    rec
}

/// Two records of different processes share nothing: neither the drawn
/// bytes nor y0 = f(r0) (any equality has probability 2^-128 or less).
pub fn assert_unrelated(a: &[u8; RECORD], b: &[u8; RECORD], what: &str) {
    assert_ne!(a[..DRAWN], b[..DRAWN], "{what}: the same RNG output");
    assert_ne!(
        a[DRAWN..DRAWN + 16],
        b[DRAWN..DRAWN + 16],
        "{what}: the same y0, so the same r0"
    );
}

/// Parent, then two children forked from the parent's same state (no draw
/// in between): all three records pairwise unrelated, and each child's
/// ciphertext a valid one of MSG.
pub fn run(make_child: impl Fn() -> libc::pid_t) {
    let x = XcbcXor::<Aes128>::new_from_slice(&KEY).unwrap();
    // Seed this thread's generator (and set up the fork detection, the
    // XCBC scratch) before forking: the children inherit it.
    let warm = sample(&x).expect("sample");
    let a = spawn(&x, &make_child);
    let b = spawn(&x, &make_child);
    let parent = sample(&x).expect("sample");
    let (a, b) = (collect(a), collect(b));
    assert_unrelated(&warm, &parent, "parent, two draws");
    assert_unrelated(&a, &parent, "first child vs parent");
    assert_unrelated(&b, &parent, "second child vs parent");
    assert_unrelated(&a, &b, "the two children");
    for rec in [&a, &b, &parent] {
        assert_eq!(x.decrypt(&rec[DRAWN..]).unwrap(), MSG);
    }
}
