package main

// GF(2^128) = GF(2)[x]/(x^128 + x^7 + x^2 + x + 1) in the two byte
// conventions of spec/conventions.md, plus small block helpers.
// Everything here is byte-oriented; the second computation path in
// crosscheck.go uses math/big polynomials instead.

import "crypto/cipher"

type block = [16]byte

func xorBlock(a, b block) block {
	var c block
	for i := range c {
		c[i] = a[i] ^ b[i]
	}
	return c
}

func toBlock(b []byte) block {
	var c block
	copy(c[:], b)
	return c
}

// doubleBE: a·x with Rogaway's big-endian convention (OCB, PMAC, XEX).
func doubleBE(a block) block {
	var c block
	carry := a[0] >> 7
	for i := 0; i < 15; i++ {
		c[i] = a[i]<<1 | a[i+1]>>7
	}
	c[15] = a[15] << 1
	if carry == 1 {
		c[15] ^= 0x87
	}
	return c
}

// halveBE: a·x^-1, big-endian; x^-1 = 0x80..0043.
func halveBE(a block) block {
	var c block
	low := a[15] & 1
	for i := 15; i > 0; i-- {
		c[i] = a[i]>>1 | a[i-1]<<7
	}
	c[0] = a[0] >> 1
	if low == 1 {
		c[0] ^= 0x80
		c[15] ^= 0x43
	}
	return c
}

// doubleLE: a·x with the IEEE P1619 little-endian convention (EME).
func doubleLE(a block) block {
	var c block
	carry := a[15] >> 7
	for i := 15; i > 0; i-- {
		c[i] = a[i]<<1 | a[i-1]>>7
	}
	c[0] = a[0] << 1
	if carry == 1 {
		c[0] ^= 0x87
	}
	return c
}

// ntz: number of trailing zero bits of i >= 1.
func ntz(i int) int {
	n := 0
	for i&1 == 0 {
		i >>= 1
		n++
	}
	return n
}

func enc(c cipher.Block, x block) block {
	var y block
	c.Encrypt(y[:], x[:])
	return y
}

func dec(c cipher.Block, x block) block {
	var y block
	c.Decrypt(y[:], x[:])
	return y
}

// pad10 appends 0x80 then zeros to the next multiple of 16 (always adds
// at least one byte: a block-aligned message gains a whole block).
func pad10(m []byte) []byte {
	p := append(append([]byte{}, m...), 0x80)
	for len(p)%16 != 0 {
		p = append(p, 0)
	}
	return p
}

func blocksOf(b []byte) []block {
	out := make([]block, len(b)/16)
	for i := range out {
		copy(out[i][:], b[16*i:])
	}
	return out
}

func bytesOf(bs []block) []byte {
	out := make([]byte, 0, 16*len(bs))
	for _, b := range bs {
		out = append(out, b[:]...)
	}
	return out
}
