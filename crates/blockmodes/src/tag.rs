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
