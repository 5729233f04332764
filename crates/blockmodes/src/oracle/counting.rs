//! A block cipher that counts its calls, for tests and the papers' cost claims (needs `alloc`: the counter is shared through an `Arc`).

#[allow(unused_imports)]
use super::*;
use alloc::sync::Arc;
use cipher::consts::U1;
use core::sync::atomic::{AtomicU64, Ordering};

/// A block cipher that counts how many blocks it enciphers or deciphers.
///
/// Its backend reports a parallel width of one block, so every block the mode
/// asks for is counted once and no lanes are padded.
///
/// ```
/// use blockmodes::oracle::{Counting, encrypt_block};
/// use cipher::KeyInit;
/// let (aes, count) = Counting::new(aes::Aes128::new(&[0u8; 16].into()));
/// encrypt_block(&aes, &[0u8; 16]);
/// assert_eq!(count.get(), 1);
/// ```
pub struct Counting<C> {
    inner: C,
    count: CallCount,
}

impl<C> core::fmt::Debug for Counting<C> {
    /// Prints no key material: only the fields shown.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Counting")
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

/// A shared handle on a [`Counting`] cipher's call counter.
#[derive(Clone, Default, Debug)]
pub struct CallCount(Arc<AtomicU64>);

impl CallCount {
    /// Calls so far.
    ///
    /// ```
    /// use blockmodes::oracle::{Counting, encrypt_block};
    /// use cipher::KeyInit;
    /// let (aes, count) = Counting::new(blockmodes::Aes128::new(&[0u8; 16].into()));
    /// encrypt_block(&aes, &[0u8; 16]);
    /// encrypt_block(&aes, &[1u8; 16]);
    /// assert_eq!(count.get(), 2);
    /// ```
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
    /// Set the counter back to zero.
    ///
    /// ```
    /// use blockmodes::oracle::{Counting, encrypt_block};
    /// use cipher::KeyInit;
    /// let (aes, count) = Counting::new(blockmodes::Aes128::new(&[0u8; 16].into()));
    /// encrypt_block(&aes, &[0u8; 16]);
    /// count.reset();
    /// assert_eq!(count.get(), 0);
    /// ```
    pub fn reset(&self) {
        self.0.store(0, Ordering::Relaxed)
    }
    fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
}

impl<C> Counting<C> {
    /// Wrap `inner`; the handle reads the count.
    ///
    /// ```
    /// use blockmodes::oracle::Counting;
    /// use blockmodes::pmac::Pmac;
    /// use cipher::KeyInit;
    /// let (aes, count) = Counting::new(blockmodes::Aes128::new(&[1u8; 16].into()));
    /// let pmac = Pmac::<_>::from_cipher(aes);
    /// assert_eq!(count.get(), 1); // key setup: L = E_K(0)
    /// count.reset();
    /// pmac.mac(&[0u8; 40]);
    /// assert_eq!(count.get(), 3); // PMAC: one call per block (the paper's cost)
    /// ```
    pub fn new(inner: C) -> (Self, CallCount) {
        let count = CallCount::default();
        (
            Self {
                inner,
                count: count.clone(),
            },
            count,
        )
    }
}

impl<C: Clone> Clone for Counting<C> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            count: self.count.clone(),
        }
    }
}

impl<C: KeySizeUser> KeySizeUser for Counting<C> {
    type KeySize = C::KeySize;
}

impl<C: KeyInit> KeyInit for Counting<C> {
    fn new(key: &cipher::Key<Self>) -> Self {
        Self::new(C::new(key)).0
    }
}

impl<C: BlockSizeUser> BlockSizeUser for Counting<C> {
    type BlockSize = C::BlockSize;
}

pub(super) struct CountingBackend<'a, B> {
    inner: &'a B,
    count: &'a CallCount,
}
impl<B: BlockSizeUser> BlockSizeUser for CountingBackend<'_, B> {
    type BlockSize = B::BlockSize;
}
impl<B: BlockSizeUser> ParBlocksSizeUser for CountingBackend<'_, B> {
    type ParBlocksSize = U1;
}
impl<B: BlockCipherEncBackend> BlockCipherEncBackend for CountingBackend<'_, B> {
    fn encrypt_block(&self, block: InOut<'_, '_, CipherBlock<Self>>) {
        self.count.add(1);
        self.inner.encrypt_block(block);
    }
}
impl<B: BlockCipherDecBackend> BlockCipherDecBackend for CountingBackend<'_, B> {
    fn decrypt_block(&self, block: InOut<'_, '_, CipherBlock<Self>>) {
        self.count.add(1);
        self.inner.decrypt_block(block);
    }
}

pub(super) struct WrapEnc<'a, F> {
    f: F,
    count: &'a CallCount,
}
impl<F: BlockSizeUser> BlockSizeUser for WrapEnc<'_, F> {
    type BlockSize = F::BlockSize;
}
impl<F: BlockCipherEncClosure> BlockCipherEncClosure for WrapEnc<'_, F> {
    fn call<B: BlockCipherEncBackend<BlockSize = Self::BlockSize>>(self, backend: &B) {
        self.f.call(&CountingBackend {
            inner: backend,
            count: self.count,
        })
    }
}
impl<F: BlockCipherDecClosure> BlockCipherDecClosure for WrapEnc<'_, F> {
    fn call<B: BlockCipherDecBackend<BlockSize = Self::BlockSize>>(self, backend: &B) {
        self.f.call(&CountingBackend {
            inner: backend,
            count: self.count,
        })
    }
}

impl<C: BlockCipherEncrypt> BlockCipherEncrypt for Counting<C> {
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = Self::BlockSize>) {
        self.inner.encrypt_with_backend(WrapEnc {
            f,
            count: &self.count,
        })
    }
}

impl<C: BlockCipherDecrypt> BlockCipherDecrypt for Counting<C> {
    fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = Self::BlockSize>) {
        self.inner.decrypt_with_backend(WrapEnc {
            f,
            count: &self.count,
        })
    }
}
