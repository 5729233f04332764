//! The keys of the XCBC family (paper, section 3): f = F_K and either
//! f' = F_K' (two-key form, the paper's pseudocode and our default) or no
//! second key (one-key form, z0 = f(r0 + 1)).

use cipher::KeyInit;
use zeroize::Zeroize;

use crate::arith::gf128::Block;
use crate::arith::modular::to_block;
use crate::backend::Engine;
use crate::error::{Error, Result};
use crate::oracle::{BlockCipher128, BlockCipher128Dec, ParWork, encrypt_block, encrypt_par};

/// f and, in the two-key form, f'.
#[derive(Clone)]
pub(crate) struct Keys<C> {
    /// f = F_K: every chaining call, y0 = f(r0), r0 = f(ctr); with the
    /// engine's AES key when keyed from AES key bytes on a CPU with AES-NI
    /// or the ARMv8 AES instructions (`crate::backend`): XCBC decryption in
    /// one kernel call, the single blocks r0 = f^-1(y0), r0 = f(ctr) (XCBC
    /// encryption's chain too).
    pub(crate) f: Engine<C>,
    /// f' = F_K' (two-key form) or `None` (one-key form: z0 = f(r0 + 1));
    /// with the engine's key beside f's (`Engine::companion`):
    /// the z0^(s) of pXCBC's segments through one ECB call.
    pub(crate) f_prime: Option<Engine<C>>,
}

impl<C: BlockCipher128> Keys<C> {
    /// Two-key form from two keyed ciphers.
    pub(crate) fn two(f: C, f_prime: C) -> Self {
        Self {
            f: Engine::from_cipher(f),
            f_prime: Some(Engine::from_cipher(f_prime)),
        }
    }

    /// One-key form.
    pub(crate) fn one(f: C) -> Self {
        Self {
            f: Engine::from_cipher(f),
            f_prime: None,
        }
    }

    /// `f(block)`.
    #[inline]
    pub(crate) fn f_encrypt(&self, block: &Block) -> Block {
        self.f.encrypt_block(block)
    }

    /// `f(x)` of the block whose big-endian integer is `x` (y0 = f(r0),
    /// z0 = f(r0 + 1)): on the fused key the integer goes into a register
    /// directly (a block written as two 8-byte halves and read back as one
    /// 16-byte load would wait for the stores to retire).
    #[inline]
    pub(crate) fn f_encrypt_int(&self, x: u128) -> Block {
        self.f.encrypt_be(x)
    }

    /// `f^-1(block)`.
    #[inline]
    pub(crate) fn f_decrypt(&self, block: &Block) -> Block
    where
        C: BlockCipher128Dec,
    {
        self.f.decrypt_block(block)
    }

    /// `true` for the two-key form.
    pub(crate) fn is_two_key(&self) -> bool {
        self.f_prime.is_some()
    }

    /// Two-key form from K || K' (two keys of the cipher's key size).
    pub(crate) fn from_slice_two(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        let k = C::key_size();
        if key.len() != 2 * k {
            return Err(Error::InvalidKeyLength {
                expected: 2 * k,
                got: key.len(),
            });
        }
        let (k1, k2) = key.split_at(k);
        let bad = |_| Error::InvalidKeyLength {
            expected: 2 * k,
            got: key.len(),
        };
        let f = Engine::from_key(C::new_from_slice(k1).map_err(bad)?, k1);
        let f_prime = Engine::companion(&f, C::new_from_slice(k2).map_err(bad)?, k2);
        Ok(Self {
            f,
            f_prime: Some(f_prime),
        })
    }

    /// One-key form from K.
    pub(crate) fn from_slice_one(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        crate::oracle::cipher_from_key(key).map(|f| Self {
            f: Engine::from_key(f, key),
            f_prime: None,
        })
    }

    /// z0 = f'(r0), or f(r0 + 1) in the one-key form.
    #[inline]
    pub(crate) fn z0(&self, r0: u128) -> Block {
        // On the fused key (f', or f in the one-key form): the integer
        // straight into a register, no `aes` crate backend call.
        if let Some((k, x)) = self.z0_fused(r0) {
            return k.encrypt_be(x);
        }
        match &self.f_prime {
            Some(fp) => encrypt_block(fp.cipher(), &to_block(r0)),
            None => encrypt_block(self.f.cipher(), &to_block(r0.wrapping_add(1))),
        }
    }

    /// The fused key and counter block behind z0^(s) of the chain whose
    /// r0^(s) is `r0_first`: (f', r0^(s)) or (f, r0^(s) + 1), if that
    /// key is on the fused path.
    pub(crate) fn z0_fused(&self, r0_first: u128) -> Option<(&crate::backend::AesKey, u128)> {
        match &self.f_prime {
            Some(fp) => fp.aes().map(|k| (k, r0_first)),
            None => self.f.aes().map(|k| (k, r0_first.wrapping_add(1))),
        }
    }

    /// z0^(s) for `out.len()` consecutive segments: `out[j]` is z0 of the
    /// chain whose r0^(s) is `r0_first + j` (f'(r0^(s)), or f(r0^(s) + 1)),
    /// in one parallel call.
    pub(crate) fn z0_run(&self, r0_first: u128, out: &mut [Block]) {
        struct Run<'a> {
            first: u128,
            out: &'a mut [Block],
        }
        impl ParWork for Run<'_> {
            #[inline(always)]
            fn before(&mut self, start: usize, blocks: &mut [Block]) {
                for (j, b) in blocks.iter_mut().enumerate() {
                    *b = to_block(self.first.wrapping_add((start + j) as u128));
                }
            }
            #[inline(always)]
            fn after(&mut self, start: usize, blocks: &[Block]) {
                self.out[start..start + blocks.len()].copy_from_slice(blocks);
            }
        }
        if let Some((k, first)) = self.z0_fused(r0_first) {
            // The counter blocks r0^(s) (+ 1), enciphered in place.
            for (j, b) in out.iter_mut().enumerate() {
                *b = to_block(first.wrapping_add(j as u128));
            }
            k.ecb(crate::engine::Dir::Encrypt, crate::engine::Io::InPlace(out));
            return;
        }
        let (cipher, first) = match &self.f_prime {
            Some(fp) => (fp.cipher(), r0_first),
            None => (self.f.cipher(), r0_first.wrapping_add(1)),
        };
        let n = out.len();
        encrypt_par(cipher, n, &mut Run { first, out });
    }
}

/// Where the stateless modes' default calls draw r0: this thread's
/// AES-256-CTR generator ([`crate::rng::ThreadRng`], seeded from the OS,
/// fork-safe) with `std`; the OS itself on every call without it.
#[cfg(all(feature = "getrandom", feature = "std"))]
pub(crate) type DefaultRng = crate::rng::ThreadRng;
/// Where the stateless modes' default calls draw r0: this thread's
/// AES-256-CTR generator with `std`; the OS itself on every call without it.
#[cfg(all(feature = "getrandom", not(feature = "std")))]
pub(crate) type DefaultRng = getrandom::SysRng;

/// r0 <- {0,1}^128 from the caller's cryptographic RNG ([`Error::Rng`] if
/// it fails).
pub(crate) fn r0_from_rng<R: rand_core::TryCryptoRng + ?Sized>(rng: &mut R) -> Result<u128> {
    let mut b: Block = [0; 16];
    let drawn = rng.try_fill_bytes(&mut b);
    let r0 = u128::from_be_bytes(b);
    b.zeroize();
    drawn.map_err(|_| Error::Rng)?;
    Ok(r0)
}
