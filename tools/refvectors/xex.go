package main

// XEX (Rogaway, Asiacrypt 2004), as defined in spec/disk.md:
//   Ẽ_K^{N,i}(M) = E_K(M ⊕ Δ) ⊕ Δ,  Δ = 2^i · E_K(N)   (BE doubling)

import "crypto/cipher"

// xexDelta returns Δ = 2^i · E_K(N) for i >= 1.
func xexDelta(E cipher.Block, N block, i uint64) block {
	delta := enc(E, N) // N-bar = E_K(N)
	for k := uint64(0); k < i; k++ {
		delta = doubleBE(delta)
	}
	return delta
}

// xexEncrypt enciphers the run of blocks P_0, P_1, ... under the tweaks
// (N, i), (N, i+1), ... (one block per tweak).
func xexEncrypt(E cipher.Block, N block, i uint64, P []byte) []byte {
	return xexRun(E, N, i, P, true)
}

func xexDecrypt(E cipher.Block, N block, i uint64, C []byte) []byte {
	return xexRun(E, N, i, C, false)
}

func xexRun(E cipher.Block, N block, i uint64, in []byte, forward bool) []byte {
	delta := xexDelta(E, N, i)
	var out []byte
	for _, x := range blocksOf(in) {
		var y block
		if forward {
			y = xorBlock(enc(E, xorBlock(x, delta)), delta)
		} else {
			y = xorBlock(dec(E, xorBlock(x, delta)), delta)
		}
		out = append(out, y[:]...)
		delta = doubleBE(delta) // Δ for tweak (N, i+1)
	}
	return out
}
