package main

// EtE[WB, F] (Bellare, Cash, Keelveedhi 2011, section 4) with WB = EME and
// F = StE[XEX-AES-128] (spec/disk.md):
//   J(K,T,M):    X ← ECB(M : F(K,γ1,·));  Y ← EME(T, X : F(K,γ2,·))
//   J^-1(K,T,Y): X ← EME^-1(T, Y : F^-1(K,γ2,·));  M ← ECB(X : F^-1(K,γ1,·))
// γ1 = t0 = (0^128, 1), γ2 = t1 = (10^127, 1).

var (
	eteGamma1 = xexTweak{N: block{}, i: 1}
	eteGamma2 = xexTweak{N: block{0: 0x80}, i: 1}
)

func ecb(g func(block) block, in []byte) []byte {
	var out []byte
	for _, x := range blocksOf(in) {
		y := g(x)
		out = append(out, y[:]...)
	}
	return out
}

func eteEncrypt(key []byte, T block, M []byte) ([]byte, error) {
	s, err := newSte(key)
	if err != nil {
		return nil, err
	}
	X := ecb(s.perm(eteGamma1).fwd, M)
	return emeEncrypt(s.perm(eteGamma2), T, X)
}

func eteDecrypt(key []byte, T block, Y []byte) ([]byte, error) {
	s, err := newSte(key)
	if err != nil {
		return nil, err
	}
	X, err := emeDecrypt(s.perm(eteGamma2), T, Y)
	if err != nil {
		return nil, err
	}
	return ecb(s.perm(eteGamma1).inv, X), nil
}
