//! The RustCrypto traits, `digest::Mac` (with `verify_slice` in constant time) and `KeyInit`.

#[allow(unused_imports)]
use super::*;

// ---- the `digest` traits: `digest::Mac` (with `verify_slice` in constant time) ----

impl<C: cipher::KeySizeUser, T: TagSize<P>, P: TagPolicy> cipher::KeySizeUser for Pmac<C, T, P> {
    type KeySize = C::KeySize;
}

impl<C: BlockCipher128 + KeyInit, T: TagSize<P>, P: TagPolicy> KeyInit for Pmac<C, T, P> {
    fn new(key: &digest::Key<Self>) -> Self {
        Self::from_key(C::new(key), key)
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> OutputSizeUser for Pmac<C, T, P> {
    type OutputSize = T;
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> Update for Pmac<C, T, P> {
    fn update(&mut self, data: &[u8]) {
        Pmac::update(self, data);
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> FixedOutput for Pmac<C, T, P> {
    fn finalize_into(mut self, out: &mut digest::Output<Self>) {
        *out = self.finalize_and_reset();
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> Reset for Pmac<C, T, P> {
    fn reset(&mut self) {
        Pmac::reset(self);
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> FixedOutputReset for Pmac<C, T, P> {
    fn finalize_into_reset(&mut self, out: &mut digest::Output<Self>) {
        *out = self.finalize_and_reset();
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> MacMarker for Pmac<C, T, P> {}
