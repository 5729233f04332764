//! A seeded splitmix64 stream behind the `rand_core` traits, shared by the
//! integration tests (`common`) and the `fused_diff` fuzz target (by path):
//! not a real RNG, only for making two paths draw the same r0.

/// A deterministic stand-in for a cryptographic RNG (splitmix64), so that
/// the `_with_rng` calls on two back ends draw the same r0.
pub struct SeededRng(pub u64);

impl blockmodes::rand_core::TryRng for SeededRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.try_next_u64().map(|x| x as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Ok(z ^ (z >> 31))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let x = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&x[..chunk.len()]);
        }
        Ok(())
    }
}

impl blockmodes::rand_core::TryCryptoRng for SeededRng {}
