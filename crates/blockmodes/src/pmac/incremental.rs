//! PMAC's incremental state, partial Σ of block ranges (any order, any machine) and the incremental signer that replaces, appends and truncates blocks.

#[allow(unused_imports)]
use super::*;

/// The xor of some `Y[i] = E_K(M[i] ⊕ γ_i·L)`: a piece of PMAC's Σ, from
/// [`Pmac::partial_sigma`], combined with `^` or
/// [`combine`](Self::combine) and turned into a tag by [`Pmac::finish`].
///
/// It is key-dependent secret state: it has no accessor, prints nothing and
/// is wiped on drop.
///
/// ```
/// use blockmodes::pmac::{PartialSigma, PmacAes128};
/// let pmac = PmacAes128::new_from_slice(&[1u8; 16])?;
/// let msg = [2u8; 48];
/// let s = PartialSigma::default()
///     .combine(pmac.partial_sigma(2, &msg[16..32])?)
///     .combine(pmac.partial_sigma(1, &msg[..16])?);
/// assert_eq!(pmac.finish(s, &msg[32..])?, pmac.mac(&msg));
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone, Default, Zeroize, ZeroizeOnDrop)]
pub struct PartialSigma(pub(super) Block);

impl PartialSigma {
    /// The xor of two partial Σs (the Σ of the union of their block runs).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[1; 16])?;
    /// let msg = [7u8; 80];
    /// let a = pmac.partial_sigma(1, &msg[..32])?; // blocks 1, 2
    /// let b = pmac.partial_sigma(3, &msg[32..64])?; // blocks 3, 4
    /// assert_eq!(pmac.finish(b.combine(a), &msg[64..])?, pmac.mac(&msg));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn combine(self, other: PartialSigma) -> PartialSigma {
        PartialSigma(xor(&self.0, &other.0))
    }
}

impl core::ops::BitXor for PartialSigma {
    type Output = PartialSigma;
    fn bitxor(self, rhs: PartialSigma) -> PartialSigma {
        self.combine(rhs)
    }
}

impl fmt::Debug for PartialSigma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PartialSigma(..)")
    }
}

/// The incremental PMAC state of the paper's section 4.1: Σ of the enciphered
/// blocks and the last block `M[m]`, for a message the caller keeps.
///
/// Each operation costs block-cipher calls in proportion to the change, and
/// the tag afterwards equals the tag of the changed message computed from
/// scratch:
/// * [`replace`](Self::replace) a whole block: 2 calls (0 for the last block);
/// * [`append`](Self::append) `x`: about ⌈|x|/16⌉ calls;
/// * [`truncate`](Self::truncate) by `ndrop` bytes: about ⌈ndrop/16⌉ calls;
/// * [`tag`](Self::tag): 1 call.
///
/// Since the state does not keep the message, `replace` and `truncate` take
/// the old bytes they remove; passing wrong old bytes gives a wrong tag
/// (which [`verify`](Self::verify) will then reject), except that the
/// copy of `M[m]` the state holds is checked.
///
/// ```
/// use blockmodes::pmac::PmacAes128;
/// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
/// let mut msg = b"the quick brown fox jumps over the lazy dog".to_vec();
/// let mut inc = pmac.incremental(&msg);
/// inc.append(b", again");
/// msg.extend_from_slice(b", again");
/// assert_eq!(inc.tag(), pmac.mac(&msg));
/// inc.truncate(10, &msg)?; // the suffix may be the whole message
/// msg.truncate(msg.len() - 10);
/// assert_eq!(inc.tag(), pmac.mac(&msg));
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct PmacIncremental<'a, C, T = U16, P = crate::tag::Safe>
where
    T: TagSize<P>,
    P: TagPolicy,
{
    pub(super) pmac: &'a Pmac<C, T, P>,
    pub(super) state: State,
}

impl<C, T: TagSize<P>, P: TagPolicy> fmt::Debug for PmacIncremental<'_, C, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PmacIncremental")
            .field("len", &(self.state.done * 16 + self.state.last_len as u64))
            .finish_non_exhaustive()
    }
}

impl<C: BlockCipher128, T: TagSize<P>, P: TagPolicy> PmacIncremental<'_, C, T, P> {
    /// The tag of the current message (one block-cipher call).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
    /// assert_eq!(pmac.incremental(b"abc").tag(), pmac.mac(b"abc"));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn tag(&self) -> Tag<T> {
        let mut full = self.pmac.full_tag_from_state(&self.state);
        let tag = Pmac::<C, T, P>::truncate(&full);
        full.zeroize();
        tag
    }

    /// Check `tag` against the current message in constant time (errors as
    /// in [`Pmac::verify_tag`]).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
    /// pmac.incremental(b"abc").verify(&pmac.mac(b"abc"))?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify(&self, tag: &[u8]) -> Result<()> {
        Pmac::<C, T, P>::check_tag_len(tag)?;
        let full = self.pmac.full_tag_from_state(&self.state);
        Pmac::<C, T, P>::compare(full, tag)
    }

    /// Length of the current message in bytes.
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
    /// assert_eq!(pmac.incremental(&[0u8; 40]).len(), 40);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn len(&self) -> u64 {
        self.state.len()
    }

    /// `true` for the empty message.
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
    /// assert!(pmac.incremental(b"").is_empty());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.state.len() == 0
    }

    /// `m = max(1, ⌈|M|/16⌉)`, the number of blocks of the current message
    /// (the index of its last block).
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
    /// assert_eq!(pmac.incremental(b"").blocks(), 1);
    /// assert_eq!(pmac.incremental(&[0u8; 33]).blocks(), 3);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn blocks(&self) -> u64 {
        self.state.done + 1
    }

    /// **append**(M, x) = M ‖ x.
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
    /// let mut inc = pmac.incremental(b"");
    /// inc.append(&[1u8; 20]);
    /// inc.append(&[2u8; 12]);
    /// assert_eq!(inc.tag(), pmac.mac(&[[1u8; 20].as_slice(), &[2u8; 12]].concat()));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn append(&mut self, data: &[u8]) {
        absorb(&self.pmac.engine, &self.pmac.keys, &mut self.state, data);
    }

    /// **replace**: block `index` (1-based, `1..=m`) was `old` and becomes
    /// `new`. A block before the last is 16 bytes: Σ gets `Y_old[i] ⊕
    /// Y_new[i]` (two block-cipher calls). The last block `M[m]` keeps its
    /// length; `old` must match the copy the state holds.
    ///
    /// Errors: [`Error::InvalidParameter`] for an index outside `1..=m` or an
    /// `old` last block that is not the current one, [`Error::InvalidLength`]
    /// when `old` or `new` does not have the block's length.
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
    /// let mut msg = vec![0u8; 37]; // blocks of 16, 16, 5 bytes
    /// let mut inc = pmac.incremental(&msg);
    /// inc.replace(3, &msg[32..], b"hello")?;
    /// msg[32..].copy_from_slice(b"hello");
    /// assert_eq!(inc.tag(), pmac.mac(&msg));
    /// assert!(inc.replace(4, &[0; 16], &[0; 16]).is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn replace(&mut self, index: u64, old: &[u8], new: &[u8]) -> Result<()> {
        let m = self.state.done + 1;
        if index == 0 || index > m {
            return Err(Error::InvalidParameter("block index outside 1..=m"));
        }
        if index == m {
            let len = self.state.last_len;
            if old.len() != len || new.len() != len {
                return Err(Error::InvalidLength(
                    "a replaced last block keeps its length",
                ));
            }
            if !bool::from(old.ct_eq(&self.state.last[..len])) {
                return Err(Error::InvalidParameter(
                    "`old` is not the message's last block",
                ));
            }
            self.state.set_last(new);
            return Ok(());
        }
        let (Ok(old), Ok(new)) = (<&Block>::try_from(old), <&Block>::try_from(new)) else {
            return Err(Error::InvalidLength(
                "a replaced block before the last is 16 bytes",
            ));
        };
        let (engine, keys) = (&self.pmac.engine, &self.pmac.keys);
        let mut y_old = sigma_of(engine, keys, index, Some(old), &[]);
        let mut y_new = sigma_of(engine, keys, index, Some(new), &[]);
        xor_in_place(&mut self.state.sigma, &y_old);
        xor_in_place(&mut self.state.sigma, &y_new);
        y_old.zeroize();
        y_new.zeroize();
        Ok(())
    }

    /// **truncate**(M, ndrop): drop the last `ndrop` bytes. `suffix` is a
    /// suffix of the current message at least `ndrop + r` bytes long, where
    /// `r` is the length of the new last block (the whole message will do):
    /// the blocks that were enciphered and no longer are come out of Σ, and
    /// the new last block is read from it.
    ///
    /// Errors: [`Error::InvalidParameter`] if `ndrop` exceeds the message
    /// length or `suffix` does not end with the state's last block,
    /// [`Error::InvalidLength`] if `suffix` is too short.
    ///
    /// ```
    /// use blockmodes::pmac::PmacAes128;
    /// let pmac = PmacAes128::new_from_slice(&[4u8; 16])?;
    /// let msg: Vec<u8> = (0u8..100).collect();
    /// let mut inc = pmac.incremental(&msg);
    /// inc.truncate(60, &msg[30..])?; // new length 40: needs the last 60 + 8 bytes
    /// assert_eq!(inc.tag(), pmac.mac(&msg[..40]));
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn truncate(&mut self, ndrop: u64, suffix: &[u8]) -> Result<()> {
        let len = self.state.len();
        let Some(new_len) = len.checked_sub(ndrop) else {
            return Err(Error::InvalidParameter(
                "cannot drop more bytes than the message has",
            ));
        };
        // The new partition: m' = max(1, ⌈new_len/16⌉), |M'[m']| = r.
        let new_done = new_len.saturating_sub(1) / 16;
        let r = (new_len - new_done * 16) as usize;
        let needed = ndrop.saturating_add(r as u64);
        let Some(tail_start) = (suffix.len() as u64).checked_sub(needed) else {
            return Err(Error::InvalidLength(
                "the suffix is shorter than the dropped bytes and the new last block",
            ));
        };
        // `tail` = M[m'] ‖ ··· ‖ M[m], starting on a block boundary.
        let tail = &suffix[tail_start as usize..];
        let last_len = self.state.last_len;
        let (tail_body, tail_last) = tail.split_at(tail.len() - last_len);
        if !bool::from(tail_last.ct_eq(&self.state.last[..last_len])) {
            return Err(Error::InvalidParameter(
                "the suffix does not end with the message's last block",
            ));
        }
        // Blocks m'..m-1 were enciphered: xor their Y out of Σ.
        let (removed, _) = tail_body.as_chunks::<16>();
        let mut y = self.pmac.sigma_of(new_done + 1, None, removed);
        xor_in_place(&mut self.state.sigma, &y);
        y.zeroize();
        self.state.done = new_done;
        self.state.set_last(&tail[..r]);
        Ok(())
    }
}
