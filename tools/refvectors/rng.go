package main

// Deterministic pseudo-random bytes: AES-128-CTR under a fixed key, with
// the stream label (e.g. the scheme name) as the initial counter block.

import (
	"crypto/aes"
	"crypto/cipher"
)

type drbg struct{ s cipher.Stream }

var seedKey = []byte("blockmodes-refgo") // 16 bytes, fixed and public

func newDrbg(label string) *drbg {
	E, _ := aes.NewCipher(seedKey)
	var iv block
	copy(iv[:], label)
	return &drbg{s: cipher.NewCTR(E, iv[:])}
}

func (d *drbg) bytes(n int) []byte {
	b := make([]byte, n)
	d.s.XORKeyStream(b, b)
	return b
}

func (d *drbg) block() block { return toBlock(d.bytes(16)) }
