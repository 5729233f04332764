//! PMAC's Σ on the engine's AES kernels (`crate::engine`: the x86-64 tiers
//! `aesni`, `vaes256`, `vaes512` and the `armv8` one, chosen at key setup;
//! see `crate::backend`): `Y[i] = E_K(M[i] xor gamma_i L)` xored together in
//! one kernel call ([`AesKey::sigma`](crate::backend::AesKey::sigma)), the
//! offsets `gamma_i L` read from the key's
//! [`GrayTable`](crate::engine::GrayTable) (a 64-block group's `gamma_j L`
//! loaded a register at a time, each group's base one xor from the last)
//! and folded into the first round key, nothing stored; the tag `E_K(X[m])`
//! is one block. On x86-64 a short message's whole tag `E_K(Σ xor X[m])` is
//! one function ([`GrayView::short_tag`], `AesKey::sigma_tag`: below
//! `XMM_BELOW` blocks).

use crate::arith::gf128::{Block, xor};
use crate::backend::GrayView;
use crate::engine::Offsets;

/// PMAC's steps on the engine key and its offset table (the fused path of
/// an engine with the AES key: `GrayView::of(engine.aes(),
/// keys.table.as_ref())`).
impl GrayView<'_> {
    /// `E_K(Σ xor x)` for a message whose blocks before the last are
    /// `body`, if it is short enough for the one-function kernel.
    pub(super) fn short_tag(&self, body: &[Block], x: &Block) -> Option<Block> {
        self.key.sigma_tag(self.table, body, x)
    }

    /// As `super::sigma_of`: `Y[first] xor ... ` over `head` (if any), then
    /// `body`.
    pub(super) fn sigma(&self, first: u64, head: Option<&Block>, body: &[Block]) -> Block {
        let gray = |first| Offsets::Gray {
            table: self.table,
            first,
            r: &[0; 16],
        };
        match head {
            None => self.key.sigma(gray(first), body),
            Some(h) => xor(
                &self.key.sigma(gray(first), core::slice::from_ref(h)),
                &self.key.sigma(gray(first.wrapping_add(1)), body),
            ),
        }
    }
}
