//! The thread RNG in a child made by the raw `clone` system call, which,
//! unlike `fork()`, runs no `pthread_atfork` handlers (as glibc's `_Fork`):
//! only the wipe-on-fork canary (or, on kernels before 4.14, the process
//! id) tells the child it is new. One test in this file, as in
//! `fork_rng.rs`.
#![cfg(all(
    any(target_os = "linux", target_os = "android"),
    feature = "std",
    feature = "getrandom"
))]

mod fork_common;

#[test]
fn raw_clone_children_never_repeat_the_parents_stream() {
    fork_common::run(|| {
        // SAFETY: clone(SIGCHLD) with no stack, no CLONE_VM and no other
        // flags is fork() without the C library's handlers: the child gets
        // a copy of the address space and returns 0 here. The child only
        // draws, writes to a pipe and _exits (no allocation, no locks).
        let pid =
            unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_long, 0, 0, 0, 0) };
        pid as libc::pid_t
    });
}
