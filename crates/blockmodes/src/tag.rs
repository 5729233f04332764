//! Tag sizes, shared by every mode that truncates its tag (OCB 1.0, PMAC,
//! CWC): whole bytes, the shorter tag being the prefix of the full one
//! (`docs/spec/conventions.md`).
//!
//! **The safe types take tags of 8 to 16 bytes** (`U8`..=`U16`): a forger
//! who submits a guessed tag of `t` bytes succeeds with probability
//! 2^-8t per try (plus the mode's own, negligible, bound), so a 1-byte tag
//! falls after about 256 tries and a 4-byte one after about 2^32; 8 bytes
//! (2^-64 per try) is the floor that the papers' recommendations and NIST
//! SP 800-38D (for GCM) accept for general use. The papers' shorter tags
//! (1 to 7 bytes) stay available for their test vectors and for research in
//! each mode's `hazmat` module ([`ocb1::hazmat::Ocb1`](crate::ocb1::hazmat::Ocb1),
//! [`cwc::hazmat::Cwc`](crate::cwc::hazmat::Cwc),
//! [`pmac::hazmat::Pmac`](crate::pmac::hazmat::Pmac)), which take `U1`..=`U16`.
//!
//! Both are the same types: each mode is one generic type whose third
//! parameter, a [`TagPolicy`], is [`Safe`] by default and [`Hazmat`] in the
//! `hazmat` aliases; [`TagSize<P>`] lists the tag sizes each policy allows.

use cipher::array::{Array, ArraySize};
use cipher::consts::{U1, U2, U3, U4, U5, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16};

/// A tag of `T` bytes.
pub type Tag<T = U16> = Array<u8, T>;

mod sealed {
    pub trait Sealed {}
    pub trait SealedSize<P> {}
}

/// Which tag sizes a mode's type accepts: [`Safe`] (8 to 16 bytes, the
/// default) or [`Hazmat`] (1 to 16 bytes, for the papers' vectors).
pub trait TagPolicy: sealed::Sealed + Send + Sync + 'static {}

/// The safe API's tag policy: tags of 8 to 16 bytes.
#[derive(Clone, Copy, Debug)]
pub enum Safe {}

/// The `hazmat` types' tag policy: tags of 1 to 16 bytes. A tag of `t`
/// bytes lets a forger in with probability 2^-8t per try.
#[derive(Clone, Copy, Debug)]
pub enum Hazmat {}

impl sealed::Sealed for Safe {}
impl sealed::Sealed for Hazmat {}
impl TagPolicy for Safe {}
impl TagPolicy for Hazmat {}

/// The tag sizes the modes accept under the policy `P`: `U8` to `U16` for
/// [`Safe`] (the default), `U1` to `U16` for [`Hazmat`]. Any other size does
/// not compile.
///
/// ```
/// use blockmodes::tag::TagSize;
/// fn bytes<T: TagSize>() -> usize { T::USIZE }
/// assert_eq!(bytes::<cipher::consts::U12>(), 12);
/// ```
///
/// ```compile_fail
/// // 17-byte tags are refused at compile time.
/// let _ = blockmodes::ocb1::Ocb1::<blockmodes::Aes128, aead::consts::U17>::new_from_slice(&[0; 16]);
/// ```
///
/// Tags shorter than 8 bytes do not compile in the safe API (the error
/// names `hazmat`):
///
/// ```compile_fail
/// use blockmodes::{Aes128, ocb1::Ocb1};
/// let _ = Ocb1::<Aes128, aead::consts::U4>::new_from_slice(&[0; 16]);
/// ```
///
/// ```compile_fail
/// use blockmodes::{Aes128, cwc::Cwc};
/// let _ = Cwc::<Aes128, aead::consts::U7>::new_from_slice(&[0; 16]);
/// ```
///
/// ```compile_fail
/// use blockmodes::{Aes128, pmac::Pmac};
/// let _ = Pmac::<Aes128, aead::consts::U1>::new_from_slice(&[0; 16]);
/// ```
///
/// The `hazmat` forms take them:
///
/// ```
/// use blockmodes::{Aes128, ocb1};
/// let ocb = ocb1::hazmat::Ocb1::<Aes128, aead::consts::U4>::new_from_slice(&[0; 16])?;
/// assert_eq!(ocb.encrypt_to_vec(&[0; 16], b"")?.len(), 4);
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tag size of this type: the safe API takes tags of 8 to 16 bytes (`U8`..=`U16`)",
    label = "tag size not allowed here",
    note = "shorter tags (1 to 7 bytes: a forgery succeeds with probability 2^-8t per try) are in the mode's `hazmat` module: `blockmodes::ocb1::hazmat::Ocb1`, `blockmodes::cwc::hazmat::Cwc`, `blockmodes::pmac::hazmat::Pmac`"
)]
pub trait TagSize<P: TagPolicy = Safe>:
    ArraySize + sealed::SealedSize<P> + Send + Sync + 'static
{
}

macro_rules! tag_sizes {
    ($p:ty: $($u:ident),*) => {$(
        impl sealed::SealedSize<$p> for $u {}
        impl TagSize<$p> for $u {}
    )*};
}
tag_sizes!(Safe: U8, U9, U10, U11, U12, U13, U14, U15, U16);
tag_sizes!(
    Hazmat: U1, U2, U3, U4, U5, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16
);

/// Whether `tag` is the first `tag.len()` bytes of the full tag `full`, in
/// constant time: both padded to 16 bytes and compared as one 128-bit
/// integer through `subtle` (the lengths are public). A `tag` of more than
/// 16 bytes never matches. The padded copy of `full` is wiped.
///
/// (One comparison instead of `subtle`'s byte-slice `ct_eq`, whose
/// optimization barrier per byte cost more than the cipher calls of a
/// short message.)
pub(crate) fn tag_matches(full: &crate::Block, tag: &[u8]) -> subtle::Choice {
    use subtle::ConstantTimeEq;
    let Some(expected) = full.get(..tag.len()) else {
        return subtle::Choice::from(0);
    };
    let (mut ours, mut theirs) = ([0u8; 16], [0u8; 16]);
    ours[..tag.len()].copy_from_slice(expected);
    theirs[..tag.len()].copy_from_slice(tag);
    let same = u128::from_ne_bytes(ours).ct_eq(&u128::from_ne_bytes(theirs));
    ours.fill(0);
    core::hint::black_box(&ours);
    same
}

#[cfg(test)]
mod tests {
    use super::tag_matches;

    #[test]
    fn tag_matches_prefixes_only() {
        let full: crate::Block = core::array::from_fn(|i| i as u8 + 1);
        for len in 1..=16 {
            assert!(bool::from(tag_matches(&full, &full[..len])));
            for i in 0..len {
                let mut bad = full[..len].to_vec();
                bad[i] ^= 0x40;
                assert!(!bool::from(tag_matches(&full, &bad)), "len {len} byte {i}");
            }
        }
        assert!(!bool::from(tag_matches(&full, &[0; 17])));
        assert!(
            bool::from(tag_matches(&full, &[])),
            "empty prefix (callers check lengths)"
        );
    }
}
