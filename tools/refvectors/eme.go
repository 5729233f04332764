package main

// EME (Halevi and Rogaway, CT-RSA 2004) with LE doubling, 1 <= m <= 128
// blocks, as defined in spec/disk.md. The block cipher is an oracle
// (a permutation and its inverse) so that EtE can run EME over F(K, γ2, ·).

import (
	"crypto/cipher"
	"fmt"
)

// permutation is an oracle g with its inverse g^-1.
type permutation struct {
	fwd func(block) block
	inv func(block) block
}

func aesPermutation(E cipher.Block) permutation {
	return permutation{
		fwd: func(x block) block { return enc(E, x) },
		inv: func(x block) block { return dec(E, x) },
	}
}

// emeEncrypt is EME_T(P : g). Decryption is emeCrypt with g^-1 in place
// of g everywhere except in L.
func emeEncrypt(g permutation, T block, P []byte) ([]byte, error) {
	return emeCrypt(g, T, P, true)
}

func emeDecrypt(g permutation, T block, C []byte) ([]byte, error) {
	return emeCrypt(g, T, C, false)
}

func emeCrypt(g permutation, T block, in []byte, forward bool) ([]byte, error) {
	if len(in)%16 != 0 || len(in) < 16 || len(in) > 128*16 {
		return nil, fmt.Errorf("eme: length %d is not 1..128 blocks", len(in))
	}
	E := g.fwd
	if !forward {
		E = g.inv
	}
	P := blocksOf(in)
	m := len(P)
	// L = 2·E(0^128), always with the forward cipher; L_i = 2^(i-1)·L.
	Li := make([]block, m)
	Li[0] = doubleLE(g.fwd(block{}))
	for i := 1; i < m; i++ {
		Li[i] = doubleLE(Li[i-1])
	}
	// PPP_i = E(P_i ⊕ L_i); MP = ⊕ PPP_i ⊕ T
	PPP := make([]block, m)
	MP := T
	for i := 0; i < m; i++ {
		PPP[i] = E(xorBlock(P[i], Li[i]))
		MP = xorBlock(MP, PPP[i])
	}
	// MC = E(MP); M = MP ⊕ MC
	MC := E(MP)
	M := xorBlock(MP, MC)
	// CCC_i = PPP_i ⊕ 2^(i-1)·M for i = 2..m; CCC_1 = MC ⊕ T ⊕ CCC_2 ⊕ ... ⊕ CCC_m
	CCC := make([]block, m)
	CCC1 := xorBlock(MC, T)
	Mi := M
	for i := 1; i < m; i++ {
		Mi = doubleLE(Mi)
		CCC[i] = xorBlock(PPP[i], Mi)
		CCC1 = xorBlock(CCC1, CCC[i])
	}
	CCC[0] = CCC1
	// C_i = E(CCC_i) ⊕ L_i
	C := make([]block, m)
	for i := 0; i < m; i++ {
		C[i] = xorBlock(E(CCC[i]), Li[i])
	}
	return bytesOf(C), nil
}
