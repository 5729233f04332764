package main

// XCBC$ / XCBC and XCBC$-XOR / XCBC-XOR (Gligor and Donescu 2000,
// sections 3 and 4) with the rules of spec/xcbc-xecb.md: l = 128, f = AES_K,
// f' = AES_K' (two keys) or z0 = f(r0 + 1) (one key), always 10* padding,
//   y0 = f(r0) (stateless) or ctr in clear with r0 = f(ctr) (stateful),
//   z_i = f(x_i ⊕ z_{i-1}),  y_i = z_i + i × r0  (mod 2^128),
//   XOR variants: x_{n+1} = z0 ⊕ x_1 ⊕ ... ⊕ x_n.

import (
	"crypto/aes"
	"crypto/cipher"
	"errors"
)

var errIntegrity = errors.New("integrity check failed")

type xcbcKeys struct {
	f, fPrime cipher.Block // fPrime nil: the one-key variant
}

func newXcbcKeys(key, key2 []byte) (*xcbcKeys, error) {
	f, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	k := &xcbcKeys{f: f}
	if key2 != nil {
		if len(key2) != len(key) {
			return nil, errors.New("key2 must have the size of key")
		}
		if k.fPrime, err = aes.NewCipher(key2); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// z0 = f'(r0), or f(r0 + 1) in the one-key variant.
func (k *xcbcKeys) z0(r0 block) block {
	if k.fPrime != nil {
		return enc(k.fPrime, r0)
	}
	return enc(k.f, addInt(r0, 1))
}

// chain: z_i = f(x_i ⊕ z_{i-1}), y_i = z_i + i × r0, from z0.
func (k *xcbcKeys) chain(r0, z0 block, x []block) []block {
	y := make([]block, len(x))
	z := z0
	for i := range x {
		z = enc(k.f, xorBlock(x[i], z))
		y[i] = addMul(z, uint64(i+1), r0)
	}
	return y
}

// unchain: z_i = y_i - i × r0, x_i = f^-1(z_i) ⊕ z_{i-1}.
func (k *xcbcKeys) unchain(r0, z0 block, y []block) []block {
	x := make([]block, len(y))
	zPrev := z0
	for i := range y {
		z := subMul(y[i], uint64(i+1), r0)
		x[i] = xorBlock(dec(k.f, z), zPrev)
		zPrev = z
	}
	return x
}

// withCheck appends x_{n+1} = z0 ⊕ x_1 ⊕ ... ⊕ x_n.
func withCheck(z0 block, x []block) []block {
	g := z0
	for _, xi := range x {
		g = xorBlock(g, xi)
	}
	return append(append([]block{}, x...), g)
}

// verifyCheck strips and checks the last block against z0 ⊕ x_1 ⊕ ... ⊕ x_n.
func verifyCheck(z0 block, x []block) ([]block, error) {
	if len(x) < 1 {
		return nil, errIntegrity
	}
	n := len(x) - 1
	if withCheck(z0, x[:n])[n] != x[n] {
		return nil, errIntegrity
	}
	return x[:n], nil
}

// unpad10 removes 10* padding (the last 0x80 followed by zeros).
func unpad10(p []byte) ([]byte, error) {
	i := len(p) - 1
	for i >= 0 && i > len(p)-16 && p[i] == 0x00 {
		i--
	}
	if i < 0 || p[i] != 0x80 {
		return nil, errIntegrity
	}
	return p[:i], nil
}

// xcbcMode selects the four sequential variants.
type xcbcMode struct {
	stateful bool // ctr in clear, r0 = f(ctr)
	xor      bool // with the check block x_{n+1}
}

// xcbcEncrypt: iv is r0 (stateless) or ctr (stateful).
func xcbcEncrypt(k *xcbcKeys, m xcbcMode, iv block, msg []byte) []byte {
	r0, head := iv, enc(k.f, iv) // y0 = f(r0)
	if m.stateful {
		r0, head = enc(k.f, iv), iv // r0 = f(ctr); ctr in clear
	}
	z0 := k.z0(r0)
	x := blocksOf(pad10(msg))
	if m.xor {
		x = withCheck(z0, x)
	}
	return append(head[:], bytesOf(k.chain(r0, z0, x))...)
}

func xcbcDecrypt(k *xcbcKeys, m xcbcMode, ct []byte) ([]byte, error) {
	minBlocks := 2
	if m.xor {
		minBlocks = 3
	}
	if len(ct)%16 != 0 || len(ct) < 16*minBlocks {
		return nil, errIntegrity
	}
	y := blocksOf(ct)
	r0 := dec(k.f, y[0]) // r0 = f^-1(y0)
	if m.stateful {
		r0 = enc(k.f, y[0]) // r0 = f(ctr)
	}
	z0 := k.z0(r0)
	x := k.unchain(r0, z0, y[1:])
	if m.xor {
		var err error
		if x, err = verifyCheck(z0, x); err != nil {
			return nil, err
		}
	}
	return unpad10(bytesOf(x))
}
