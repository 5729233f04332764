package main

// StE_{γ,α}[E] (Bellare, Cash, Keelveedhi 2011, section 3) with
// E = XEX-AES-128 keyed by K itself (spec/disk.md):
//   H ← E(K, γ, α);  F(K,T,M): M=K → E(K,T,H); M=H → E(K,T,K); else E(K,T,M)
//   F^-1(K,T,C): Y ← D(K,T,C); Y=K → H; Y=H → K; else Y

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
)

// xexTweak is a XEX tweak (N, i).
type xexTweak struct {
	N block
	i uint64
}

var (
	steGamma = xexTweak{N: block{15: 0x01}, i: 1} // γ = (0^120 ‖ 0x01, 1)
	steAlpha = block{}                            // α = 0^128
)

// ste is F = StE_{γ,α}[XEX-AES-128] for one key K.
type ste struct {
	K  block
	EK cipher.Block
	H  block // hidden point H = E(K, γ, α)
}

func newSte(key []byte) (*ste, error) {
	if len(key) != 16 {
		return nil, fmt.Errorf("ste: key must be 16 bytes, got %d", len(key))
	}
	EK, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	s := &ste{K: toBlock(key), EK: EK}
	s.H = s.xex(steGamma, steAlpha, true)
	return s, nil
}

// xex is the underlying tweakable cipher E(K, T, ·) or D(K, T, ·).
func (s *ste) xex(T xexTweak, x block, forward bool) block {
	return toBlock(xexRun(s.EK, T.N, T.i, x[:], forward))
}

// F(K, T, M)
func (s *ste) F(T xexTweak, M block) (block, error) {
	if T == steGamma {
		return block{}, fmt.Errorf("ste: tweak γ is forbidden")
	}
	X := M
	if M == s.K {
		X = s.H
	} else if M == s.H {
		X = s.K
	}
	return s.xex(T, X, true), nil
}

// F^-1(K, T, C)
func (s *ste) Finv(T xexTweak, C block) (block, error) {
	if T == steGamma {
		return block{}, fmt.Errorf("ste: tweak γ is forbidden")
	}
	Y := s.xex(T, C, false)
	M := Y
	if Y == s.K {
		M = s.H
	} else if Y == s.H {
		M = s.K
	}
	return M, nil
}

// perm returns the permutation F(K, T, ·) with its inverse (T ≠ γ).
func (s *ste) perm(T xexTweak) permutation {
	return permutation{
		fwd: func(x block) block { y, _ := s.F(T, x); return y },
		inv: func(x block) block { y, _ := s.Finv(T, x); return y },
	}
}
