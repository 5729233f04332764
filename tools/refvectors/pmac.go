package main

// PMAC (Black and Rogaway 2001, figure 1) per spec/ocb-pmac.md:
//   L = E_K(0^n), Z[1] = L (γ_1·L), Z[i] = Z[i-1] ⊕ L(ntz(i)),
//   Y[i] = E_K(M[i] ⊕ Z[i]) for i < m,
//   Σ = Y[1] ⊕ ... ⊕ Y[m-1] ⊕ pad(M[m]), and Σ ⊕= L(-1) when |M[m]| = n,
//   Tag = first τ bits of E_K(Σ).

import "crypto/cipher"

func pmac(E cipher.Block, M []byte, tau int) []byte {
	lt := newLTable(E)
	parts := splitBlocks(M)
	m := len(parts)
	var sigma block
	Z := lt.L[0]
	for i := 1; i < m; i++ {
		if i > 1 {
			Z = xorBlock(Z, lt.L[ntz(i)])
		}
		sigma = xorBlock(sigma, enc(E, xorBlock(toBlock(parts[i-1]), Z)))
	}
	last := parts[m-1]
	if len(last) == 16 {
		sigma = xorBlock(xorBlock(sigma, toBlock(last)), lt.Lminus)
	} else {
		padded := append(append([]byte{}, last...), 0x80) // 10* padding
		sigma = xorBlock(sigma, toBlock(padded))
	}
	T := enc(E, sigma)
	return T[:tau]
}
