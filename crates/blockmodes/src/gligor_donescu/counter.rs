//! The message counter of the stateful modes (XCBC, XCBC-XOR, pXCBC and
//! XECB-MAC): `ctr`, by default initialized to 2^128 - 1 ("-1"), used once
//! per message and advanced by 1 (by L, the number of segments, for pXCBC).
//! It never wraps: once every value has been used, encryption refuses with
//! [`Error::CounterExhausted`].

use crate::arith::gf128::Block;
use crate::arith::modular::{to_block, to_int};
use crate::error::{Error, Result};

/// The persistent state of a stateful sender: the counter value the key
/// started at and the next value to use.
///
/// **Persistence duty.** A counter value must never be used twice under one
/// key: a repeated `ctr` repeats r0 and z0, which voids the modes' privacy
/// and integrity. A sender that outlives its process must save this state
/// ([`CounterState::to_bytes`]) durably *before* the ciphertexts produced
/// with it leave the machine, and restore it ([`CounterState::from_bytes`])
/// instead of starting over at [`CounterState::new`]. A copy of the state
/// must never be used by two senders at once. When in doubt (a crash between
/// encrypting and saving), skip ahead with [`CounterState::skip`] or rekey.
///
/// ```
/// use blockmodes::xcbc::CounterState;
/// let fresh = CounterState::new();
/// assert_eq!(fresh.next_counter(), Some([0xff; 16])); // "-1"
/// let saved = fresh.to_bytes();
/// assert_eq!(CounterState::from_bytes(&saved)?, fresh);
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CounterState {
    initial: u128,
    next: u128,
    exhausted: bool,
}

impl Default for CounterState {
    fn default() -> Self {
        Self::new()
    }
}

impl CounterState {
    /// The length of [`CounterState::to_bytes`]: initial (16) || next (16) || exhausted (1).
    pub const ENCODED_LEN: usize = 33;

    /// A fresh counter at the paper's initial value 2^128 - 1 ("-1"), for a
    /// key that has never been used by a stateful sender.
    ///
    /// ```
    /// use blockmodes::xcbc::CounterState;
    /// assert_eq!(CounterState::new().initial_counter(), [0xff; 16]);
    /// ```
    pub const fn new() -> Self {
        Self {
            initial: u128::MAX,
            next: u128::MAX,
            exhausted: false,
        }
    }

    /// A fresh counter at another initial value; all 2^128 values are
    /// available, in order, starting there.
    ///
    /// ```
    /// use blockmodes::xcbc::CounterState;
    /// let c = CounterState::starting_at(&[0; 16]);
    /// assert_eq!(c.next_counter(), Some([0; 16]));
    /// ```
    pub const fn starting_at(initial: &Block) -> Self {
        let v = u128::from_be_bytes(*initial);
        Self {
            initial: v,
            next: v,
            exhausted: false,
        }
    }

    /// The counter value the next message will use, or `None` once every
    /// value has been used.
    ///
    /// ```
    /// use blockmodes::xcbc::CounterState;
    /// assert!(CounterState::new().next_counter().is_some());
    /// ```
    pub fn next_counter(&self) -> Option<Block> {
        (!self.exhausted).then(|| to_block(self.next))
    }

    /// The value this counter started at.
    ///
    /// ```
    /// use blockmodes::xcbc::CounterState;
    /// assert_eq!(CounterState::starting_at(&[5; 16]).initial_counter(), [5; 16]);
    /// ```
    pub fn initial_counter(&self) -> Block {
        to_block(self.initial)
    }

    /// `true` once every counter value has been used: the key must be replaced.
    ///
    /// ```
    /// use blockmodes::xcbc::CounterState;
    /// assert!(!CounterState::new().is_exhausted());
    /// ```
    pub fn is_exhausted(&self) -> bool {
        self.exhausted
    }

    /// Mark the next `count` values as used without using them (for example
    /// after a crash that may have lost the latest saved state).
    ///
    /// ```
    /// use blockmodes::xcbc::CounterState;
    /// let mut c = CounterState::starting_at(&[0; 16]);
    /// c.skip(1000)?;
    /// assert_eq!(c.next_counter().unwrap()[14..], [0x03, 0xe8]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn skip(&mut self, count: u128) -> Result<()> {
        if count > 0 {
            self.take(count)?;
        }
        Ok(())
    }

    /// The state as 33 bytes: initial (16, big-endian) || next (16) || 1 if
    /// exhausted else 0. Save these durably; see the persistence duty above.
    ///
    /// ```
    /// use blockmodes::xcbc::CounterState;
    /// let b = CounterState::new().to_bytes();
    /// assert_eq!(b.len(), CounterState::ENCODED_LEN);
    /// ```
    pub fn to_bytes(&self) -> [u8; Self::ENCODED_LEN] {
        let mut out = [0u8; Self::ENCODED_LEN];
        out[..16].copy_from_slice(&to_block(self.initial));
        out[16..32].copy_from_slice(&to_block(self.next));
        out[32] = self.exhausted as u8;
        out
    }

    /// Restore a state saved with [`CounterState::to_bytes`].
    ///
    /// Errors: [`Error::InvalidLength`] for a slice that is not 33 bytes,
    /// [`Error::InvalidParameter`] for a malformed flag byte.
    ///
    /// ```
    /// use blockmodes::xcbc::CounterState;
    /// assert!(CounterState::from_bytes(&[0; 5]).is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let b: &[u8; Self::ENCODED_LEN] = bytes
            .try_into()
            .map_err(|_| Error::InvalidLength("a counter state is 33 bytes"))?;
        let block = |r: core::ops::Range<usize>| -> Block {
            let mut x = [0u8; 16];
            x.copy_from_slice(&b[r]);
            x
        };
        let (initial, next) = (to_int(&block(0..16)), to_int(&block(16..32)));
        match b[32] {
            0 => Ok(Self {
                initial,
                next,
                exhausted: false,
            }),
            1 if next == initial => Ok(Self {
                initial,
                next,
                exhausted: true,
            }),
            _ => Err(Error::InvalidParameter("malformed counter state")),
        }
    }

    /// Reserve `count >= 1` consecutive counter values for one message and
    /// return the first; refuse (without changing the state) if fewer remain.
    pub(crate) fn take(&mut self, count: u128) -> Result<u128> {
        debug_assert!(count >= 1);
        // Values left before returning to `initial`, minus one (a fresh
        // counter has all 2^128 of them: 0 - 1 = u128::MAX).
        let left_minus_1 = self.initial.wrapping_sub(self.next).wrapping_sub(1);
        if self.exhausted || count.wrapping_sub(1) > left_minus_1 {
            return Err(Error::CounterExhausted);
        }
        let first = self.next;
        self.next = self.next.wrapping_add(count);
        self.exhausted = count.wrapping_sub(1) == left_minus_1;
        Ok(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sequence_starts_at_minus_one() {
        let mut c = CounterState::new();
        assert_eq!(c.take(1), Ok(u128::MAX));
        assert_eq!(c.take(1), Ok(0));
        assert_eq!(c.take(3), Ok(1));
        assert_eq!(c.next_counter(), Some(to_block(4)));
    }

    #[test]
    fn refuses_to_wrap() {
        let mut c = CounterState::new();
        c.next = u128::MAX - 2; // values MAX-2 and MAX-1 left
        assert_eq!(c.take(3), Err(Error::CounterExhausted));
        assert_eq!(c.take(1), Ok(u128::MAX - 2));
        assert_eq!(c.take(1), Ok(u128::MAX - 1));
        assert!(c.is_exhausted());
        assert_eq!(c.take(1), Err(Error::CounterExhausted));
        let saved = CounterState::from_bytes(&c.to_bytes()).unwrap();
        assert!(saved.is_exhausted());
        assert_eq!(saved.next_counter(), None);
    }

    #[test]
    fn take_exactly_the_rest() {
        let mut c = CounterState::starting_at(&to_block(10));
        c.next = 5; // 5 ..= 9 left
        assert_eq!(c.take(5), Ok(5));
        assert!(c.is_exhausted());
    }

    #[test]
    fn malformed_states_rejected() {
        let mut b = CounterState::new().to_bytes();
        b[32] = 2;
        assert!(CounterState::from_bytes(&b).is_err());
        b[32] = 1;
        b[20] = 0; // exhausted but next != initial
        assert!(CounterState::from_bytes(&b).is_err());
        assert!(CounterState::from_bytes(&b[..32]).is_err());
    }
}
