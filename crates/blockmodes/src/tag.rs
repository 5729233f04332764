//! Tag sizes, shared by every mode that truncates its tag (OCB 1.0, PMAC,
//! CWC): whole bytes from 1 to 16, the shorter tag being the prefix of the
//! full one (`docs/spec/conventions.md`).

use cipher::array::{Array, ArraySize};
use cipher::consts::{U1, U2, U3, U4, U5, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16};

/// A tag of `T` bytes.
pub type Tag<T = U16> = Array<u8, T>;

mod sealed {
    pub trait Sealed {}
}

/// The tag sizes the modes accept: `U1` to `U16` (1 to 16 bytes). Any other
/// size does not compile.
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
pub trait TagSize: ArraySize + sealed::Sealed + Send + Sync + 'static {}

macro_rules! tag_sizes {
    ($($u:ident),*) => {$(
        impl sealed::Sealed for $u {}
        impl TagSize for $u {}
    )*};
}
tag_sizes!(
    U1, U2, U3, U4, U5, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16
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
