//! Helpers shared by the fuzz targets: a reader that hands out the fuzzer's
//! bytes (zeros once they run out) and checks on output buffers.

/// The fuzzer's input, read front to back.
pub struct Input<'a>(pub &'a [u8]);

impl<'a> Input<'a> {
    /// `N` bytes (zero-padded when the input is short).
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        let n = N.min(self.0.len());
        a[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        a
    }

    /// One byte (0 when the input is exhausted).
    pub fn byte(&mut self) -> u8 {
        self.array::<1>()[0]
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.array())
    }

    /// Up to `max` bytes, the length given by the next byte pair.
    pub fn bytes(&mut self, max: usize) -> &'a [u8] {
        let n = (self.u16() as usize % (max + 1)).min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.0)
    }
}

/// A rejected decryption must leave no plaintext: every byte of the output
/// buffer is either untouched (as in `before`) or wiped to zero (a call may
/// wipe only the part it wrote).
pub fn assert_no_plaintext(buf: &[u8], before: &[u8], what: &str) {
    assert_eq!(buf.len(), before.len());
    let left = buf
        .iter()
        .zip(before)
        .filter(|&(b, o)| *b != 0 && b != o)
        .count();
    assert_eq!(
        left, 0,
        "{what}: a rejected decryption left {left} bytes in the output buffer"
    );
}

/// `AES-128^-1_key(block)`: recovers r0 from y0 = f(r0) for re-encryption checks.
pub fn aes128_decrypt(key: &[u8], block: &[u8]) -> [u8; 16] {
    use aes::cipher::{BlockCipherDecrypt, KeyInit};
    let c = aes::Aes128::new_from_slice(key).expect("16-byte key");
    let mut b = aes::Block::try_from(block).expect("16-byte block");
    c.decrypt_block(&mut b);
    b.into()
}

/// Flip bit `bit % (8 * len)` of `buf` (which must not be empty).
pub fn flip(buf: &mut [u8], bit: usize) {
    let at = bit % (8 * buf.len());
    buf[at / 8] ^= 1 << (at % 8);
}
