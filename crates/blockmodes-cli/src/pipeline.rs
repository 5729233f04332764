//! The read → transform in parallel → write pipeline shared by `seal`,
//! `open` and `disk`.
//!
//! The input is cut into units of a fixed length (chunks, groups of sectors);
//! the last unit may be shorter. A reader thread fills batches of units, the
//! calling thread transforms the units of a batch in parallel (rayon), and a
//! writer thread writes the results in order. A unit's output is written only
//! after its transform succeeded, and nothing after the first failing unit is
//! written. Buffers are recycled between batches; they hold plaintext
//! (`seal`'s input, `open`'s and `disk`'s decrypted output), so they are
//! [`Buf`]s, wiped when dropped, and never grown by reallocation (which
//! would free an unwiped copy).

use std::io::{self, Read, Write};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::thread;

use blockmodes_file::input::{ALIGN, aligned_start};
use indicatif::ProgressBar;
use rayon::prelude::*;
use zeroize::{Zeroize, Zeroizing};

use crate::output::Output;

/// A pipeline buffer: wiped (its whole capacity) when dropped.
pub type Buf = Zeroizing<Vec<u8>>;

/// Make `buf` at least `len` bytes long without leaving an unwiped copy:
/// a buffer too small is wiped and replaced, never reallocated in place.
fn grow(buf: &mut Buf, len: usize) {
    if buf.capacity() < len {
        buf.zeroize();
        *buf = Zeroizing::new(Vec::with_capacity(len));
    }
    if buf.len() < len {
        buf.resize(len, 0);
    }
}

pub use blockmodes_file::stream::Rejected;

/// A length-changing transform applied unit by unit.
pub trait Transform: Sync {
    /// The input length of a full unit.
    fn unit_len(&self) -> usize;
    /// An upper bound on the output length of a unit of `len` input bytes
    /// (`last` if it is the final unit), or `None` if no unit may have that
    /// length.
    fn max_out_len(&self, len: usize, last: bool) -> Option<usize>;
    /// Transform unit `index` into `output` (of length `max_out_len`),
    /// returning the output length, or `Err(Rejected)` if the unit is rejected.
    fn apply(
        &self,
        index: u64,
        last: bool,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<usize, Rejected>;
}

/// Why the pipeline stopped early.
#[derive(Debug)]
pub enum PipeError {
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
    /// Unit `index`, starting at input byte `offset`, was rejected (or has a
    /// length no unit may have). Everything before it was written.
    Unit {
        /// The unit's index.
        index: u64,
        /// Its offset in the input, in bytes from the start of the stream.
        offset: u64,
        /// `true` if the unit's length was impossible (rather than its content rejected).
        bad_length: bool,
    },
}

/// What a completed run processed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Units processed (at least 1: an empty input is one empty unit).
    pub units: u64,
    /// Input bytes.
    pub bytes_in: u64,
    /// Output bytes.
    pub bytes_out: u64,
}

/// A batch of input from [`spawn_reader`].
pub struct Batch {
    buf: Buf,
    off: usize,
    len: usize,
    eof: bool,
}

impl Batch {
    /// The batch's bytes: exactly the batch length unless this is the last batch.
    pub fn data(&self) -> &[u8] {
        self.buf
            .get(self.off..self.off + self.len)
            .unwrap_or_default()
    }

    /// `true` for the last batch (the input ends with it; it may be empty).
    /// A batch that is not last is always followed by at least one byte.
    pub fn is_last(&self) -> bool {
        self.eof
    }

    /// Give the buffer back to the reader for reuse.
    pub fn recycle(self, free: &Sender<Buf>) {
        let _ = free.send(self.buf);
    }
}

/// Start a thread that reads `input` in batches of `batch_len` bytes;
/// `start` is the input's offset in its file (0, or what was read before).
///
/// Returns the batches (or the read error) in order, and a channel to hand
/// used buffers back. The thread is detached: if the caller stops early
/// while it waits on a slow input, the process still exits.
pub fn spawn_reader(
    input: Box<dyn Read + Send>,
    start: u64,
    batch_len: usize,
) -> (Receiver<io::Result<Batch>>, Sender<Buf>) {
    let (batch_tx, batch_rx) = sync_channel::<io::Result<Batch>>(2);
    let (free_tx, free_rx) = channel::<Buf>();
    thread::spawn(move || reader(input, start, batch_len.max(1), batch_tx, free_rx));
    (batch_rx, free_tx)
}

/// Run `t` over `input` (at offset `start` of its file: see
/// [`spawn_reader`]) into `output`, `batch_units` units per batch.
///
/// On success the output (not yet committed) is handed back; on failure it is
/// flushed (so the units before the failure are released when it is standard
/// output) and dropped (so a temporary file is removed).
///
/// # Errors
/// The first failure: reading, writing, or a unit rejected by `t`.
pub fn run<T: Transform>(
    t: &T,
    (input, start): (Box<dyn Read + Send>, u64),
    output: Output,
    batch_units: usize,
    progress: &ProgressBar,
) -> Result<(Output, Stats), PipeError> {
    let unit = t.unit_len().max(1);
    let batch_len = unit * batch_units.max(1);
    let (batch_rx, free_in_tx) = spawn_reader(input, start, batch_len);
    let (out_tx, out_rx) = sync_channel::<(Buf, usize)>(2);
    let (free_out_tx, free_out_rx) = channel::<Buf>();
    let writer = thread::spawn(move || writer(output, out_rx, free_out_tx));

    let mut stats = Stats {
        units: 0,
        bytes_in: 0,
        bytes_out: 0,
    };
    let mut failure = None;
    for batch in batch_rx.iter() {
        let batch = match batch {
            Ok(b) => b,
            Err(e) => {
                failure = Some(PipeError::Read(e));
                break;
            }
        };
        let mut out = free_out_rx.try_recv().unwrap_or_default();
        let data = batch.data();
        let result = transform_batch(t, data, batch.eof, stats, &mut out);
        let (written, res) = match result {
            Ok(n) => (n, Ok(())),
            Err((n, e)) => (n, Err(e)),
        };
        if written > 0 && out_tx.send((out, written)).is_err() {
            break; // the writer failed: its error is collected below
        }
        let units_here = units_in(data.len(), unit, batch.eof);
        stats.units += units_here;
        stats.bytes_in += data.len() as u64;
        stats.bytes_out += written as u64;
        progress.inc(data.len() as u64);
        let eof = batch.eof;
        batch.recycle(&free_in_tx);
        if let Err(e) = res {
            failure = Some(e);
            break;
        }
        if eof {
            break;
        }
    }
    drop(out_tx);
    let (out, written) = match writer.join() {
        Ok(w) => w,
        Err(_) => {
            return Err(PipeError::Write(io::Error::other(
                "the writer thread panicked",
            )));
        }
    };
    match (failure, written) {
        (None, Ok(())) => Ok((out, stats)),
        (Some(e), _) => Err(e),
        (None, Err(e)) => Err(PipeError::Write(e)),
    }
}

fn units_in(len: usize, unit: usize, eof: bool) -> u64 {
    let full = (len / unit) as u64;
    if eof && (!len.is_multiple_of(unit) || len == 0) {
        full + 1
    } else {
        full
    }
}

/// Transform the units of one batch into `out`; returns the number of output
/// bytes to write, or that number (the verified prefix) and the failure.
fn transform_batch<T: Transform>(
    t: &T,
    data: &[u8],
    eof: bool,
    before: Stats,
    out: &mut Buf,
) -> Result<usize, (usize, PipeError)> {
    let unit = t.unit_len().max(1);
    let mut pieces: Vec<&[u8]> = data.chunks(unit).collect();
    if pieces.is_empty() {
        pieces.push(&[]);
    }
    let n = pieces.len();
    let fail = |j: usize, bad_length: bool| PipeError::Unit {
        index: before.units + j as u64,
        offset: before.bytes_in + (j * unit) as u64,
        bad_length,
    };
    // Output slots: an upper bound per unit.
    let mut bounds = Vec::with_capacity(n);
    for (j, p) in pieces.iter().enumerate() {
        let last = eof && j + 1 == n;
        match t.max_out_len(p.len(), last) {
            Some(m) if last || p.len() == unit => bounds.push(m),
            _ => {
                // Release the units before j if they pass, then stop.
                let ok = transform_units(t, &pieces[..j], false, before.units, &bounds, out);
                return Err(match ok {
                    Ok(w) => (w, fail(j, true)),
                    Err((w, k)) => (w, fail(k, false)),
                });
            }
        }
    }
    transform_units(t, &pieces, eof, before.units, &bounds, out)
        .map_err(|(w, k)| (w, fail(k, false)))
}

/// Transform `pieces` (the last one final if `eof`) into `out`, compacting
/// short outputs. On a rejected unit `k`: the bytes of units `..k` and `k`.
fn transform_units<T: Transform>(
    t: &T,
    pieces: &[&[u8]],
    eof: bool,
    first_index: u64,
    bounds: &[usize],
    out: &mut Buf,
) -> Result<usize, (usize, usize)> {
    let total: usize = bounds.iter().sum();
    grow(out, total);
    let mut slots: Vec<&mut [u8]> = Vec::with_capacity(pieces.len());
    let mut rest: &mut [u8] = &mut out[..total];
    for &b in bounds {
        let (head, tail) = rest.split_at_mut(b);
        slots.push(head);
        rest = tail;
    }
    let n = pieces.len();
    let results: Vec<Result<usize, Rejected>> = pieces
        .par_iter()
        .zip(slots.into_par_iter())
        .enumerate()
        .with_max_len(1)
        .map(|(j, (input, slot))| {
            let last = eof && j + 1 == n;
            t.apply(first_index + j as u64, last, input, slot)
        })
        .collect();
    // Compact: move each unit's output right after the previous one.
    let mut write_at = 0;
    let mut slot_at = 0;
    for (j, r) in results.iter().enumerate() {
        match r {
            Ok(len) => {
                let len = (*len).min(bounds[j]);
                if write_at != slot_at {
                    out.copy_within(slot_at..slot_at + len, write_at);
                }
                write_at += len;
                slot_at += bounds[j];
            }
            Err(Rejected) => return Err((write_at, j)),
        }
    }
    Ok(write_at)
}

fn reader(
    mut input: Box<dyn Read + Send>,
    start: u64,
    batch_len: usize,
    tx: SyncSender<io::Result<Batch>>,
    free: Receiver<Buf>,
) {
    // One byte beyond the batch tells whether more input follows.
    let target = batch_len + 1;
    let mut carry: Option<u8> = None;
    let mut pos = start; // the file offset of the batch's first byte
    loop {
        let mut buf = free.try_recv().unwrap_or_default();
        grow(&mut buf, target + ALIGN);
        // The batch starts where its address is congruent to its file
        // offset modulo ALIGN, so each `read` copies from the page cache
        // to a destination a multiple of 64 bytes away (`input`'s docs:
        // `seal` of 1 GiB took twice as long when the carry byte and
        // malloc's 16-byte offset put every read 17 bytes forward).
        let off = aligned_start(buf.as_ptr(), pos);
        let buf_end = off + target;
        let mut filled = off;
        if let Some(c) = carry.take() {
            buf[filled] = c;
            filled += 1;
        }
        let eof = loop {
            if filled == buf_end {
                break false;
            }
            let end = buf_end.min(filled + READ_PIECE);
            match input.read(&mut buf[filled..end]) {
                Ok(0) => break true,
                Ok(k) => filled += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        };
        let len = if eof {
            filled - off
        } else {
            carry = Some(buf[off + batch_len]);
            batch_len
        };
        pos = pos.wrapping_add(len as u64);
        if tx.send(Ok(Batch { buf, off, len, eof })).is_err() || eof {
            return;
        }
    }
}

/// Bytes per `read` call (as for writes: moderate sizes are faster here).
const READ_PIECE: usize = 1 << 20;

/// Bytes per `write` call.
const WRITE_PIECE: usize = 256 * 1024;

/// Write batches in order; the output is flushed at the end (also after a
/// failure upstream, so that what verified is released).
fn writer(
    mut output: Output,
    rx: Receiver<(Buf, usize)>,
    free: Sender<Buf>,
) -> (Output, io::Result<()>) {
    for (buf, len) in rx.iter() {
        // Moderate write sizes: on ext4 here, 8 MiB writes into the page
        // cache ran 2 to 9 times slower than 256 KiB ones (measured with dd).
        for piece in buf.get(..len).unwrap_or_default().chunks(WRITE_PIECE) {
            if let Err(e) = output.write_all(piece) {
                return (output, Err(e));
            }
        }
        let _ = free.send(buf);
    }
    let flushed = output.flush();
    (output, flushed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At most `piece` bytes per `read`, as a pipe or a slow file gives them.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        piece: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
            let n = b.len().min(self.piece).min(self.data.len() - self.at);
            b[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    /// The batches hold the input in order, whatever the read sizes, and
    /// each batch's address is congruent to its file offset modulo 64
    /// (before, every batch after the first started one byte past malloc's
    /// alignment, whatever the offset: the slow copies of `reader`).
    #[test]
    fn batches_hold_the_input_at_addresses_aligned_to_their_file_offsets() {
        let data: Vec<u8> = (0..5_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        for start in [0u64, 1, 17, 63, 64, 4095] {
            for batch_len in [7usize, 100, 4096, 7_000] {
                for piece in [1usize, 999, 1 << 20] {
                    let input = Trickle {
                        data: data.clone(),
                        at: 0,
                        piece,
                    };
                    let (rx, free) = spawn_reader(Box::new(input), start, batch_len);
                    let mut got = Vec::new();
                    for b in rx.iter() {
                        let b = b.expect("no read error");
                        let addr = b.data().as_ptr() as u64;
                        let offset = start + got.len() as u64;
                        assert_eq!(
                            addr.wrapping_sub(offset) % 64,
                            0,
                            "{start} {batch_len} {piece}"
                        );
                        assert!(b.is_last() || b.data().len() == batch_len);
                        got.extend_from_slice(b.data());
                        let last = b.is_last();
                        b.recycle(&free);
                        if last {
                            break;
                        }
                    }
                    assert_eq!(got, data, "{start} {batch_len} {piece}");
                }
            }
        }
    }
}
