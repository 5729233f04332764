//! The incremental state, streaming signer and verifier, out-of-order verification.

#[allow(unused_imports)]
use super::*;

/// The state of one MAC computation: r0 (in the offset table), the header
/// of the tag, the blocks absorbed so far, a partial block, and w.
pub(super) struct Accumulator<'a, C> {
    pub(super) f: &'a Prf<C>,
    pub(super) offsets: Offsets,
    pub(super) header: Block,
    /// Whole blocks absorbed so far.
    pub(super) index: u64,
    pub(super) buf: Block,
    pub(super) buf_len: usize,
    pub(super) w: Block,
}

impl<'a, C: BlockCipher128> Accumulator<'a, C> {
    pub(super) fn new(f: &'a Prf<C>, header: Block, r0: u128) -> Self {
        Self {
            f,
            offsets: Offsets::new(r0),
            header,
            index: 0,
            buf: [0; 16],
            buf_len: 0,
            w: to_block(r0), // w = r0 xor y_1 xor ...
        }
    }

    /// Fill the partial block; return the rest of `data` once it is absorbed.
    pub(super) fn top_up<'d>(&mut self, data: &'d [u8]) -> &'d [u8] {
        if self.buf_len == 0 {
            return data;
        }
        let take = (16 - self.buf_len).min(data.len());
        self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
        self.buf_len += take;
        if self.buf_len == 16 {
            // Always-padding: a full block is a message block whatever follows.
            let b = [self.buf];
            absorb(
                self.f,
                &mut self.offsets,
                self.index as u128 + 1,
                &b,
                &mut self.w,
            );
            self.index += 1;
            self.buf_len = 0;
        }
        &data[take..]
    }

    /// Keep the tail of `data` (< 16 bytes) for later. (After [`Self::top_up`],
    /// either the partial block is empty or all data went into it.)
    pub(super) fn keep(&mut self, tail: &[u8]) {
        if !tail.is_empty() {
            self.buf[..tail.len()].copy_from_slice(tail);
            self.buf_len = tail.len();
        }
    }

    pub(super) fn update(&mut self, data: &[u8]) {
        let data = self.top_up(data);
        let (blocks, tail) = data.as_chunks::<16>();
        absorb(
            self.f,
            &mut self.offsets,
            self.index as u128 + 1,
            blocks,
            &mut self.w,
        );
        self.index += blocks.len() as u64;
        self.keep(tail);
    }

    #[cfg(feature = "rayon")]
    pub(super) fn update_par(&mut self, data: &[u8])
    where
        C: Sync,
    {
        let data = self.top_up(data);
        let (blocks, tail) = data.as_chunks::<16>();
        let r0 = self.offsets.r0();
        absorb_par(self.f, r0, self.index as u128 + 1, blocks, &mut self.w);
        self.index += blocks.len() as u64;
        self.keep(tail);
    }

    /// Absorb the padded last block; the tag `header || w`.
    pub(super) fn finish(&mut self) -> Tag {
        let last = [last_block(&self.buf[..self.buf_len])];
        absorb(
            self.f,
            &mut self.offsets,
            self.index as u128 + 1,
            &last,
            &mut self.w,
        );
        let mut tag = [0u8; TAG_LEN];
        tag[..16].copy_from_slice(&self.header);
        tag[16..].copy_from_slice(&self.w);
        tag
    }
}

impl<C> Drop for Accumulator<'_, C> {
    fn drop(&mut self) {
        self.buf.zeroize();
        self.w.zeroize();
    }
}

// ---------------------------------------------------------------------------
// Streaming

impl<C: BlockCipher128> XecbSigner<'_, C> {
    /// Absorb the next piece of the message.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut s = mac.signer()?;
    /// s.update(&[1u8; 7]);
    /// s.update(&[1u8; 30]);
    /// mac.verify_tag(&[1u8; 37], &s.finalize())?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, data: &[u8]) {
        self.acc.update(data);
    }

    #[cfg(feature = "rayon")]
    /// As [`update`](Self::update), spread over the rayon thread pool when
    /// `data` holds [`PARALLEL_THRESHOLD`] bytes or more (for example the
    /// large chunks a file reader hands over).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let mut s = mac.signer()?;
    /// s.update_par(&vec![5u8; 200_000]);
    /// s.update_par(&vec![5u8; 3]);
    /// mac.verify_tag(&vec![5u8; 200_003], &s.finalize())?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update_par(&mut self, data: &[u8])
    where
        C: Sync,
    {
        self.acc.update_par(data);
    }

    /// Pad the message and return the tag (`y0 || w` or `ctr || w`).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.signer()?.finalize(); // the empty message
    /// mac.verify_tag(b"", &tag)?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn finalize(mut self) -> Tag {
        self.acc.finish()
    }
}

impl<C: BlockCipher128> XecbVerifier<'_, C> {
    /// Absorb the next piece of the message.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(b"xyz")?;
    /// let mut v = mac.verifier(&tag)?;
    /// v.update(b"xy");
    /// v.update(b"z");
    /// assert!(v.verify().is_ok());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update(&mut self, data: &[u8]) {
        self.acc.update(data);
    }

    #[cfg(feature = "rayon")]
    /// As [`update`](Self::update), spread over the rayon thread pool for
    /// large pieces.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let data = vec![8u8; 150_000];
    /// let tag = mac.mac(&data)?;
    /// let mut v = mac.verifier(&tag)?;
    /// v.update_par(&data);
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn update_par(&mut self, data: &[u8])
    where
        C: Sync,
    {
        self.acc.update_par(data);
    }

    /// Pad the message and compare the tag in constant time:
    /// [`Error::Authentication`] if it differs.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(b"one")?;
    /// let mut v = mac.verifier(&tag)?;
    /// v.update(b"two");
    /// assert!(v.verify().is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify(mut self) -> Result<()> {
        let mut got = self.acc.finish();
        let res = check(&got, &self.expected);
        got.zeroize();
        res
    }
}

// ---------------------------------------------------------------------------
// Out-of-order verification

#[cfg(feature = "alloc")]
impl<'a, C: BlockCipher128> XecbOutOfOrder<'a, C> {
    pub(super) fn new(f: &'a Prf<C>, expected: Tag, r0: u128, msg_len: usize) -> Result<Self> {
        let blocks = (msg_len / 16) as u64 + 1;
        let words = blocks.div_ceil(64);
        let too_long = || Error::InputTooLong {
            max: usize::MAX as u64,
            got: msg_len as u64,
        };
        let words = usize::try_from(words).map_err(|_| too_long())?;
        let mut seen = Vec::new();
        seen.try_reserve_exact(words).map_err(|_| too_long())?;
        seen.resize(words, 0u64);
        Ok(Self {
            f,
            offsets: Offsets::new(r0),
            header: header(&expected),
            expected,
            w: to_block(r0),
            msg_len,
            blocks,
            seen,
            count: 0,
        })
    }

    /// n, the number of (padded) blocks the message has.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[0u8; 16])?;
    /// assert_eq!(mac.out_of_order(&tag, 16)?.blocks(), 2);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Blocks still missing.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[0u8; 16])?;
    /// let mut v = mac.out_of_order(&tag, 16)?;
    /// v.add_block(2, &[])?;
    /// assert_eq!(v.missing(), 1);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn missing(&self) -> u64 {
        self.blocks - self.count
    }

    /// Block `index` (1-based): 16 bytes, or for the last block n the
    /// message's `msg_len % 16` final bytes (padded here).
    /// [`Error::InvalidParameter`] for an index out of range, a wrong length
    /// or a block already given; the state is unchanged on error.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(b"short")?;
    /// let mut v = mac.out_of_order(&tag, 5)?;
    /// assert!(v.add_block(2, b"short").is_err()); // only block 1 exists
    /// v.add_block(1, b"short")?;
    /// assert!(v.add_block(1, b"short").is_err()); // given twice
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn add_block(&mut self, index: u64, data: &[u8]) -> Result<()> {
        if index == 0 || index > self.blocks {
            return Err(Error::InvalidParameter("block index out of range"));
        }
        let want = if index == self.blocks {
            self.msg_len % 16
        } else {
            16
        };
        if data.len() != want {
            return Err(Error::InvalidParameter(
                "a block is 16 bytes, the last one msg_len % 16",
            ));
        }
        if index == self.blocks {
            self.absorb_checked(index, &[], Some(data))
        } else {
            let (block, _) = data.as_chunks::<16>(); // exactly one, checked above
            self.absorb_checked(index, block, None)
        }
    }

    /// A run of blocks from block `first` (1-based): `data` is the message's
    /// bytes `16 (first - 1) ..` and must end on a block boundary or at the
    /// message's end (in which case it also covers the padded last block).
    /// Errors as for [`add_block`](Self::add_block).
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let msg = [4u8; 100];
    /// let tag = mac.mac(&msg)?;
    /// let mut v = mac.out_of_order(&tag, msg.len())?;
    /// v.add_range(5, &msg[64..])?; // blocks 5, 6 and the padded block 7
    /// v.add_range(1, &msg[..64])?; // blocks 1 ..= 4
    /// v.verify()?;
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn add_range(&mut self, first: u64, data: &[u8]) -> Result<()> {
        if first == 0 || first > self.blocks {
            return Err(Error::InvalidParameter("block index out of range"));
        }
        let start = (first - 1) as usize * 16;
        let end = start
            .checked_add(data.len())
            .filter(|&e| e <= self.msg_len)
            .ok_or(Error::InvalidParameter("range beyond the message's end"))?;
        let at_end = end == self.msg_len;
        if !at_end && !data.len().is_multiple_of(16) {
            return Err(Error::InvalidParameter(
                "a range ends on a block boundary or at the message's end",
            ));
        }
        let (full, tail) = data.as_chunks::<16>();
        self.absorb_checked(first, full, at_end.then_some(tail))
    }

    /// Absorb whole blocks `full` from position `first`, then (if given) the
    /// message's last bytes `last`, padded, as block n; refuse (changing
    /// nothing) if any of these blocks was already given.
    pub(super) fn absorb_checked(
        &mut self,
        first: u64,
        full: &[Block],
        last: Option<&[u8]>,
    ) -> Result<()> {
        let count = full.len() as u64 + u64::from(last.is_some());
        let range = first..first + count;
        if range.end > self.blocks + 1 {
            return Err(Error::InvalidParameter("range beyond the message's end"));
        }
        if range.clone().any(|i| self.is_seen(i)) {
            return Err(Error::InvalidParameter("block given twice"));
        }
        absorb(self.f, &mut self.offsets, first as u128, full, &mut self.w);
        if let Some(tail) = last {
            let block = [last_block(tail)];
            let pos = first as u128 + full.len() as u128;
            absorb(self.f, &mut self.offsets, pos, &block, &mut self.w);
        }
        for i in range {
            self.mark(i);
        }
        self.count += count;
        Ok(())
    }

    pub(super) fn is_seen(&self, i: u64) -> bool {
        let i = i - 1;
        self.seen[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    pub(super) fn mark(&mut self, i: u64) {
        let i = i - 1;
        self.seen[(i / 64) as usize] |= 1 << (i % 64);
    }

    /// Check the tag once every block is in: [`Error::InvalidParameter`] if
    /// blocks are missing, [`Error::Authentication`] if the tag differs.
    ///
    /// ```
    /// use blockmodes::xecb::XecbMac;
    /// use blockmodes::Aes128;
    /// let mac = XecbMac::<Aes128>::new_from_slice(&[0u8; 16])?;
    /// let tag = mac.mac(&[1u8; 16])?;
    /// let mut v = mac.out_of_order(&tag, 16)?;
    /// v.add_block(1, &[1u8; 16])?;
    /// assert!(v.verify().is_err()); // the padding block 2 was never given
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn verify(self) -> Result<()> {
        if self.count != self.blocks {
            return Err(Error::InvalidParameter(
                "out-of-order verification: blocks missing",
            ));
        }
        let mut got = [0u8; TAG_LEN];
        got[..16].copy_from_slice(&self.header);
        got[16..].copy_from_slice(&self.w);
        let res = check(&got, &self.expected);
        got.zeroize();
        res
    }
}

#[cfg(feature = "alloc")]
impl<C> Drop for XecbOutOfOrder<'_, C> {
    fn drop(&mut self) {
        self.w.zeroize();
    }
}

/// Streaming signature: [`update`](Self::update) with the message in any
/// pieces, then [`finalize`](Self::finalize). Created by
/// [`XecbMac::signer`] or [`XecbMacStatefulSigner::signer`].
///
/// ```
/// use blockmodes::xecb::XecbMac;
/// use blockmodes::Aes128;
/// let mac = XecbMac::<Aes128>::new_from_slice(&[1u8; 16])?;
/// let mut s = mac.signer()?;
/// s.update(b"hello, ");
/// s.update(b"world");
/// let tag = s.finalize();
/// mac.verify_tag(b"hello, world", &tag)?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct XecbSigner<'a, C> {
    pub(super) acc: Accumulator<'a, C>,
}

impl<C> core::fmt::Debug for XecbSigner<'_, C> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("XecbSigner").finish_non_exhaustive()
    }
}

/// Streaming verification: [`update`](Self::update) with the message in any
/// pieces, then [`verify`](Self::verify). Created by [`XecbMac::verifier`]
/// or [`XecbMacStateful::verifier`].
///
/// ```
/// use blockmodes::xecb::XecbMac;
/// use blockmodes::Aes128;
/// let mac = XecbMac::<Aes128>::new_from_slice(&[1u8; 16])?;
/// let tag = mac.mac(b"streamed message")?;
/// let mut v = mac.verifier(&tag)?;
/// v.update(b"streamed");
/// v.update(b" message");
/// v.verify()?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct XecbVerifier<'a, C> {
    pub(super) acc: Accumulator<'a, C>,
    pub(super) expected: Tag,
}

impl<C> core::fmt::Debug for XecbVerifier<'_, C> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("XecbVerifier").finish_non_exhaustive()
    }
}

#[cfg(feature = "alloc")]
/// Out-of-order verification (paper, section 6, property 4): the blocks of
/// a message of known length arrive with their index, in any order; the tag
/// is checked once all are in. Created by [`XecbMac::out_of_order`] or
/// [`XecbMacStateful::out_of_order`].
///
/// Block i (1-based) is message bytes `16 (i - 1) .. 16 i`; the last block
/// n = `msg_len / 16 + 1` holds the `msg_len % 16` final bytes (possibly
/// none) and is padded here. A block given twice is refused (a repeated
/// block would otherwise cancel out of w).
///
/// ```
/// use blockmodes::xecb::XecbMac;
/// use blockmodes::Aes128;
/// let mac = XecbMac::<Aes128>::new_from_slice(&[1u8; 16])?;
/// let msg = [7u8; 40]; // blocks 1, 2 full; block 3 = 8 bytes + padding
/// let tag = mac.mac(&msg)?;
/// let mut v = mac.out_of_order(&tag, msg.len())?;
/// v.add_block(3, &msg[32..])?;
/// v.add_block(1, &msg[..16])?;
/// v.add_block(2, &msg[16..32])?;
/// v.verify()?;
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct XecbOutOfOrder<'a, C> {
    pub(super) f: &'a Prf<C>,
    pub(super) offsets: Offsets,
    pub(super) expected: Tag,
    pub(super) header: Block,
    pub(super) w: Block,
    pub(super) msg_len: usize,
    /// n, the number of padded blocks.
    pub(super) blocks: u64,
    /// One bit per block: seen.
    pub(super) seen: Vec<u64>,
    pub(super) count: u64,
}

#[cfg(feature = "alloc")]
impl<C> core::fmt::Debug for XecbOutOfOrder<'_, C> {
    /// Prints no key material: only the fields shown.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("XecbOutOfOrder")
            .field("msg_len", &self.msg_len)
            .finish_non_exhaustive()
    }
}
