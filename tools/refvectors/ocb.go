package main

// OCB 1.0 (Rogaway, Bellare, Black, Krovetz 2001, figure 2) per
// spec/ocb-pmac.md, with BE doubling:
//   L = E_K(0^n), L(i) = L·x^i, L(-1) = L·x^-1, R = E_K(N ⊕ L),
//   Z[1] = L ⊕ R, Z[i] = Z[i-1] ⊕ L(ntz(i)),
//   C[i] = E_K(M[i] ⊕ Z[i]) ⊕ Z[i] (i < m),
//   X[m] = len(M[m]) ⊕ L(-1) ⊕ Z[m], Y[m] = E_K(X[m]), C[m] = M[m] ⊕ (first |M[m]| bits of Y[m]),
//   Checksum = M[1] ⊕ ... ⊕ M[m-1] ⊕ C[m]0* ⊕ Y[m],
//   T = first τ bits of E_K(Checksum ⊕ Z[m]).

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
)

// lTable holds L(0..63) and L(-1).
type lTable struct {
	L      [64]block
	Lminus block
}

func newLTable(E cipher.Block) *lTable {
	t := &lTable{}
	t.L[0] = enc(E, block{}) // L = E_K(0^n)
	for i := 1; i < len(t.L); i++ {
		t.L[i] = doubleBE(t.L[i-1])
	}
	t.Lminus = halveBE(t.L[0])
	return t
}

// splitBlocks cuts M into M[1..m] with m = max(1, ceil(|M|/16)); the last
// one may be short (or empty).
func splitBlocks(M []byte) [][]byte {
	var out [][]byte
	for len(M) > 16 {
		out = append(out, M[:16])
		M = M[16:]
	}
	return append(out, M)
}

func ocbCore(E cipher.Block, N block, in []byte, tau int, encrypt bool) (out []byte, tag []byte) {
	lt := newLTable(E)
	R := enc(E, xorBlock(N, lt.L[0]))
	parts := splitBlocks(in)
	m := len(parts)
	var checksum block
	Z := xorBlock(lt.L[0], R) // Z[1]
	for i := 1; i < m; i++ {
		if i > 1 {
			Z = xorBlock(Z, lt.L[ntz(i)])
		}
		x := toBlock(parts[i-1])
		var y block
		if encrypt {
			y = xorBlock(enc(E, xorBlock(x, Z)), Z)
			checksum = xorBlock(checksum, x) // M[i]
		} else {
			y = xorBlock(dec(E, xorBlock(x, Z)), Z)
			checksum = xorBlock(checksum, y) // M[i]
		}
		out = append(out, y[:]...)
	}
	if m > 1 {
		Z = xorBlock(Z, lt.L[ntz(m)]) // Z[m]
	}
	last := parts[m-1]
	var lenBlock block // len(M[m]) in bits, 128-bit big-endian
	binary.BigEndian.PutUint64(lenBlock[8:], uint64(8*len(last)))
	Xm := xorBlock(xorBlock(lenBlock, lt.Lminus), Z)
	Ym := enc(E, Xm)
	Cm := make([]byte, len(last))
	for j := range last {
		Cm[j] = last[j] ^ Ym[j]
	}
	// Checksum ⊕= C[m]0* ⊕ Y[m]
	if encrypt {
		checksum = xorBlock(checksum, toBlock(Cm))
		out = append(out, Cm...)
	} else {
		checksum = xorBlock(checksum, toBlock(last)) // last is C[m] here
		out = append(out, Cm...)                     // M[m]
	}
	checksum = xorBlock(checksum, Ym)
	T := enc(E, xorBlock(checksum, Z))
	return out, T[:tau]
}

func ocbEncrypt(E cipher.Block, N block, M []byte, tau int) (C, T []byte) {
	return ocbCore(E, N, M, tau, true)
}

func ocbDecrypt(E cipher.Block, N block, C, T []byte) ([]byte, error) {
	M, T2 := ocbCore(E, N, C, len(T), false)
	if subtle.ConstantTimeCompare(T, T2) != 1 {
		return nil, errIntegrity
	}
	return M, nil
}
