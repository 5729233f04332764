//! Reading a file at full speed: each `read` lands at an address congruent
//! to its file offset modulo [`ALIGN`].
//!
//! The kernel copies a `read` out of the page cache with `rep movsb`, and
//! on AMD Zen 3 that copy runs at 1.5-1.8 GB/s when the destination sits 1
//! to 31 bytes *forward* of the source modulo 4096, against 7-8 GB/s at any
//! other distance (measured 2026-11-29 with a C probe; README, "Encrypt a
//! file"). malloc's large buffers start 16 bytes into a page, so a buffer
//! filled from a page-aligned file offset sits exactly there. With the destination's
//! address congruent to the file offset modulo 64, the distance is a
//! multiple of 64 and never in the slow window. (glibc's own `memcpy`
//! avoids `rep movsb` at such short distances; the kernel does not.)
//!
//! [`aligned_start`] is the one computation (the CLI's pipeline places its
//! batches with it); [`AlignedReader`] is a buffered reader built on it, for
//! callers that read through [`Read`] (the Python package's `files.seal_file`
//! and `files.open_file`).
//!
//! ```
//! use std::io::Read;
//! use blockmodes_file::input::AlignedReader;
//!
//! let data: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
//! let mut r = AlignedReader::new(&data[..], 0);
//! let mut back = Vec::new();
//! r.read_to_end(&mut back)?;
//! assert_eq!(back, data);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Read};

use zeroize::Zeroizing;

/// The alignment of a read's destination to its file offset.
pub const ALIGN: usize = 64;

/// The index in `[0, ALIGN)` of a buffer starting at `buf` where the
/// address is congruent to `file_offset` modulo [`ALIGN`]: a read of the
/// bytes at `file_offset` goes there.
///
/// ```
/// use blockmodes_file::input::{ALIGN, aligned_start};
///
/// let buf = vec![0u8; 1000];
/// let i = aligned_start(buf.as_ptr(), 4096 + 17);
/// assert!(i < ALIGN);
/// assert_eq!((buf.as_ptr() as usize + i) % ALIGN, 17);
/// ```
pub fn aligned_start(buf: *const u8, file_offset: u64) -> usize {
    (file_offset as usize).wrapping_sub(buf as usize) % ALIGN
}

/// Bytes asked of the inner reader per `read` (then copied out in user
/// space, where the distance does not matter).
const PIECE: usize = 1 << 20;

/// A buffered reader whose reads from `R` land at addresses congruent to
/// their offsets in the input modulo [`ALIGN`] (see the module docs). Its
/// buffer (1 MiB and [`ALIGN`] bytes) is wiped when it is dropped: it may
/// hold plaintext.
///
/// ```
/// use std::io::Read;
/// use blockmodes_file::input::AlignedReader;
///
/// // The input's first byte is at offset 88 of its file (after a header).
/// let mut r = AlignedReader::new(&b"payload"[..], 88);
/// let mut s = String::new();
/// r.read_to_string(&mut s)?;
/// assert_eq!(s, "payload");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct AlignedReader<R> {
    inner: R,
    buf: Zeroizing<Vec<u8>>,
    /// The unread bytes are `buf[pos..end]`.
    pos: usize,
    end: usize,
    /// The input offset of `buf[end]`.
    offset: u64,
}

impl<R: Read> AlignedReader<R> {
    /// A reader of `inner`, whose next byte is at `offset` in its file
    /// (0 for a file just opened).
    pub fn new(inner: R, offset: u64) -> Self {
        AlignedReader {
            inner,
            buf: Zeroizing::new(vec![0; PIECE + ALIGN]),
            pos: 0,
            end: 0,
            offset,
        }
    }

    /// Refill the buffer with one read; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        let start = aligned_start(self.buf.as_ptr(), self.offset);
        let n = loop {
            match self.inner.read(&mut self.buf[start..start + PIECE]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => break r?,
            }
        };
        if n > PIECE {
            return Err(io::Error::other(
                "the reader returned more bytes than asked",
            ));
        }
        (self.pos, self.end) = (start, start + n);
        // Only the offset modulo ALIGN matters.
        self.offset = self.offset.wrapping_add(n as u64);
        Ok(n > 0)
    }
}

impl<R: Read> Read for AlignedReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if self.pos == self.end && !self.fill()? {
            return Ok(0);
        }
        let n = out.len().min(self.end - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of `data` that records, for each `read`, the distance of
    /// its destination from the input offset it reads, modulo [`ALIGN`];
    /// it returns at most `most` bytes a call.
    struct Probe<'a> {
        data: &'a [u8],
        at: usize,
        start: u64,
        most: usize,
        distances: Vec<usize>,
    }

    impl Read for Probe<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = out.len().min(self.most).min(self.data.len() - self.at);
            if n > 0 {
                let off = self.start + self.at as u64;
                self.distances
                    .push((out.as_ptr() as usize).wrapping_sub(off as usize) % ALIGN);
            }
            out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn reads_land_at_addresses_congruent_to_their_offsets_and_return_the_input() {
        let data: Vec<u8> = (0..2 * PIECE + 999)
            .map(|i| (i * 7 + i / 251) as u8)
            .collect();
        for start in [0u64, 1, 16, 88, 4095, 1 << 40] {
            for most in [1usize << 30, 1000, 65_536 + 3] {
                for ask in [17usize, 65_536, 3 << 20] {
                    let mut probe = Probe {
                        data: &data,
                        at: 0,
                        start,
                        most,
                        distances: Vec::new(),
                    };
                    let mut r = AlignedReader::new(&mut probe, start);
                    let mut back = Vec::new();
                    let mut piece = vec![0u8; ask];
                    loop {
                        let n = r.read(&mut piece).unwrap();
                        if n == 0 {
                            break;
                        }
                        back.extend_from_slice(&piece[..n]);
                    }
                    drop(r);
                    assert!(back == data, "start {start}, most {most}, ask {ask}");
                    assert!(
                        probe.distances.iter().all(|&d| d == 0),
                        "start {start}, most {most}, ask {ask}: {:?}",
                        probe.distances
                    );
                }
            }
        }
    }

    /// A reader that claims more bytes than it was given is an error, and
    /// an offset at the end of the u64 range wraps (only its residue
    /// modulo 64 matters): no panic.
    #[test]
    fn a_lying_reader_and_the_last_offsets() {
        struct Liar;
        impl Read for Liar {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                Ok(out.len() + 1)
            }
        }
        assert!(AlignedReader::new(Liar, 0).read(&mut [0u8; 8]).is_err());
        let data = vec![7u8; 3 * PIECE];
        let mut r = AlignedReader::new(&data[..], u64::MAX - 5);
        let mut back = Vec::new();
        r.read_to_end(&mut back).unwrap();
        assert!(back == data);
    }

    #[test]
    fn an_empty_input_and_an_empty_read() {
        let mut r = AlignedReader::new(&b""[..], 5);
        assert_eq!(r.read(&mut [0u8; 4]).unwrap(), 0);
        let mut r = AlignedReader::new(&b"ab"[..], 5);
        assert_eq!(r.read(&mut []).unwrap(), 0);
        let mut two = [0u8; 2];
        r.read_exact(&mut two).unwrap();
        assert_eq!(&two, b"ab");
    }
}
