//! The RustCrypto traits, `digest::Mac` (with `verify_slice` in constant time) and `KeyInit`.

#[allow(unused_imports)]
use super::*;

// ---- the `digest` traits: `digest::Mac` (with `verify_slice` in constant time) ----

impl<C: cipher::KeySizeUser, T> cipher::KeySizeUser for Pmac<C, T> {
    type KeySize = C::KeySize;
}

impl<C: BlockCipher128 + KeyInit, T: TagSize> KeyInit for Pmac<C, T> {
    fn new(key: &digest::Key<Self>) -> Self {
        Self::from_key(C::new(key), key)
    }
}

impl<C: BlockCipher128, T: TagSize> OutputSizeUser for Pmac<C, T> {
    type OutputSize = T;
}

impl<C: BlockCipher128, T: TagSize> Update for Pmac<C, T> {
    fn update(&mut self, data: &[u8]) {
        Pmac::update(self, data);
    }
}

impl<C: BlockCipher128, T: TagSize> FixedOutput for Pmac<C, T> {
    fn finalize_into(mut self, out: &mut digest::Output<Self>) {
        *out = self.finalize_and_reset();
    }
}

impl<C: BlockCipher128, T: TagSize> Reset for Pmac<C, T> {
    fn reset(&mut self) {
        Pmac::reset(self);
    }
}

impl<C: BlockCipher128, T: TagSize> FixedOutputReset for Pmac<C, T> {
    fn finalize_into_reset(&mut self, out: &mut digest::Output<Self>) {
        *out = self.finalize_and_reset();
    }
}

impl<C: BlockCipher128, T: TagSize> MacMarker for Pmac<C, T> {}
