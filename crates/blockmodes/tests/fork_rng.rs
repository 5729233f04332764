//! The thread RNG across a real `fork()`: a child never continues its
//! parent's stream (the `pthread_atfork` generation, and on Linux the
//! wipe-on-fork canary). One test in this file: the process that forks has
//! no other test threads that could hold a lock in the child.
#![cfg(all(unix, feature = "std", feature = "getrandom"))]

mod fork_common;

#[test]
fn children_never_repeat_the_parents_stream() {
    // SAFETY: fork() in a process whose only other thread is the test
    // harness's, waiting; the child only draws, writes to a pipe and _exits.
    fork_common::run(|| unsafe { libc::fork() });
}
