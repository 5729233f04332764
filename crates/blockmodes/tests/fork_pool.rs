//! The multi-core paths across a real `fork()`: after the parent has run
//! them (so rayon's global pool has started), a child, and a child of that
//! child, run them again and must finish with the same results. `fork`
//! copies only the calling thread, so a child that used the inherited
//! global pool would wait for ever for threads that do not exist there;
//! each process is given 60 s, then killed and reported as hung. One test
//! in this file: the process that forks has no other test threads.
#![cfg(all(unix, feature = "std", feature = "rayon"))]

use std::time::{Duration, Instant};

use blockmodes::pmac::Pmac;
use blockmodes::pxcbc::PxcbcXor;
use blockmodes::sector::{SectorCipher, Sectors};
use blockmodes::xex::Xex;
use blockmodes::{Aes128, Error};

/// Large enough for every multi-core path (PMAC's threshold is 512 KiB,
/// pXCBC's and the sectors' 256 KiB).
const LEN: usize = 4 << 20;

/// What the parent computed before forking (on its pool).
struct Expected {
    msg: Vec<u8>,
    pmac_tag: Vec<u8>,
    sectors: Vec<u8>,
    pxcbc_ct: Vec<u8>,
}

/// Runs every multi-core path on `e.msg` in this process; true if each
/// gives what the parent got (`mac_par` against the one-core `mac`, which
/// the vector tests check against the paper's vectors; the sectors
/// against the parent's serial call; pXCBC$ decrypting the parent's
/// ciphertext and a fresh one).
fn same_results(e: &Expected) -> Result<bool, Error> {
    let pmac = Pmac::<Aes128>::new_from_slice(&[7; 16])?;
    let tag_ok = pmac.mac_par(&e.msg).as_slice() == e.pmac_tag.as_slice();
    let sectors = Sectors::new(Xex::<Aes128>::new_from_slice(&[9; 16])?, 4096)?;
    let mut data = e.msg.clone();
    sectors.encrypt_sectors(5, &mut data)?;
    let sectors_ok = data == e.sectors;
    let p = PxcbcXor::<Aes128>::new_from_slice(&[3; 32])?.with_segment_blocks(16)?;
    let old_ok = p.decrypt(&e.pxcbc_ct)? == e.msg;
    let new_ok = p.decrypt(&p.encrypt(&e.msg)?)? == e.msg;
    Ok(tag_ok && sectors_ok && old_ok && new_ok)
}

/// Forks a child that runs [`same_results`] (and, if `then_fork`, forks a
/// grandchild that does too) and `_exit`s 0 when all agree; waits for it
/// for at most 60 s. Returns its exit status, or an error naming a hang.
fn in_child(e: &Expected, then_fork: bool) -> Result<i32, String> {
    // SAFETY: fork() in a process whose only other thread is the test
    // harness's, waiting (and rayon's pool threads, idle); the child runs
    // the library, perhaps forks once more, and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err("fork failed".into());
    }
    if pid == 0 {
        let mut code = match same_results(e) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(_) => 2,
        };
        if code == 0 && then_fork {
            code = match in_child(e, false) {
                Ok(0) => 0,
                Ok(_) => 3,
                Err(_) => 4,
            };
        }
        // SAFETY: ends the child at once; nothing of the harness runs in it.
        unsafe { libc::_exit(code) }
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut status = 0;
    loop {
        // SAFETY: polls our own child; `status` is a valid out-pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            break;
        }
        if r != 0 {
            return Err("waitpid failed".into());
        }
        if Instant::now() > deadline {
            // SAFETY: kills and reaps our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Err("the forked child hung in a multi-core call".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if libc::WIFEXITED(status) {
        Ok(libc::WEXITSTATUS(status))
    } else {
        Err(format!("the child ended with status {status:#x}"))
    }
}

#[test]
fn children_run_the_multi_core_paths_after_the_parent_has() {
    let msg: Vec<u8> = (0..LEN).map(|i| (i * 131 % 251) as u8).collect();
    let pmac = Pmac::<Aes128>::new_from_slice(&[7; 16]).unwrap();
    let tag = pmac.mac(&msg);
    // The parent runs every multi-core path, which starts rayon's pool.
    assert_eq!(pmac.mac_par(&msg), tag);
    let sectors = Sectors::new(Xex::<Aes128>::new_from_slice(&[9; 16]).unwrap(), 4096).unwrap();
    let mut serial = msg.clone();
    sectors.encrypt_sectors_serial(5, &mut serial).unwrap();
    let mut par = msg.clone();
    sectors.encrypt_sectors(5, &mut par).unwrap();
    assert_eq!(par, serial);
    let p = PxcbcXor::<Aes128>::new_from_slice(&[3; 32])
        .unwrap()
        .with_segment_blocks(16)
        .unwrap();
    let ct = p.encrypt(&msg).unwrap();
    assert_eq!(p.decrypt(&ct).unwrap(), msg);
    let e = Expected {
        msg,
        pmac_tag: tag.to_vec(),
        sectors: serial,
        pxcbc_ct: ct,
    };
    assert_eq!(
        in_child(&e, true),
        Ok(0),
        "child (1: wrong result, 2: error, 3/4: grandchild)"
    );
    // And the parent's pool still serves the parent.
    assert_eq!(pmac.mac_par(&e.msg), tag);
}
