package main

// CWC (Kohno, Viega, Whiting 2004, section 3) per spec/cwc.md.
//   CWC-CTR: s_i = E_K(10^7 ‖ N ‖ tostr(i, 32)), σ = M ⊕ s_1 s_2 ...
//   CWC-HASH: K_h = toint(last 127 bits of E_K(110^126)); X = A 0^l ‖ σ 0^l'
//     cut in 96-bit chunks Y_1..Y_β; Y_{β+1} = 2^64·l_A + l_σ (bytes);
//     R = Y_1 K_h^β + ... + Y_β K_h + Y_{β+1} mod 2^127 - 1; tostr(R, 128)
//   CWC-MAC: τ = first tl bits of E_K(CWC-HASH) ⊕ E_K(10^7 ‖ N ‖ 0^32)

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"math/big"
)

var p127 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))

func cwcCtrBlock(N []byte, i uint32) block {
	var b block
	b[0] = 0x80
	copy(b[1:12], N)
	binary.BigEndian.PutUint32(b[12:], i)
	return b
}

func cwcHashKey(E cipher.Block) *big.Int {
	Z := enc(E, block{0: 0xC0})
	Z[0] &= 0x7f // last 127 bits
	return blockInt(Z)
}

func zpad12(x []byte) []byte {
	p := append([]byte{}, x...)
	for len(p)%12 != 0 {
		p = append(p, 0)
	}
	return p
}

// cwcHash evaluates the polynomial by Horner's rule.
func cwcHash(Kh *big.Int, A, sigma []byte) block {
	X := append(zpad12(A), zpad12(sigma)...)
	R := new(big.Int)
	for j := 0; j < len(X); j += 12 {
		R.Mul(R, Kh)
		R.Add(R, new(big.Int).SetBytes(X[j:j+12])) // Y_i
		R.Mod(R, p127)
	}
	Yb1 := new(big.Int).Lsh(big.NewInt(int64(len(A))), 64)
	Yb1.Add(Yb1, big.NewInt(int64(len(sigma))))
	R.Mul(R, Kh)
	R.Add(R, Yb1)
	R.Mod(R, p127)
	var out block
	R.FillBytes(out[:])
	return out
}

func cwcCtr(E cipher.Block, N, M []byte) []byte {
	sigma := make([]byte, len(M))
	for j := range M {
		if j%16 == 0 {
			s := enc(E, cwcCtrBlock(N, uint32(j/16+1)))
			for t := j; t < len(M) && t < j+16; t++ {
				sigma[t] = M[t] ^ s[t-j]
			}
		}
	}
	return sigma
}

func cwcMac(E cipher.Block, N, A, sigma []byte, tl int) []byte {
	R := enc(E, cwcHash(cwcHashKey(E), A, sigma))
	tau := xorBlock(enc(E, cwcCtrBlock(N, 0)), R)
	return tau[:tl]
}

func cwcEncrypt(E cipher.Block, N, A, M []byte, tl int) (sigma, tau []byte) {
	sigma = cwcCtr(E, N, M)
	return sigma, cwcMac(E, N, A, sigma, tl)
}

func cwcDecrypt(E cipher.Block, N, A, sigma, tau []byte) ([]byte, error) {
	if subtle.ConstantTimeCompare(cwcMac(E, N, A, sigma, len(tau)), tau) != 1 {
		return nil, errIntegrity
	}
	return cwcCtr(E, N, sigma), nil
}
