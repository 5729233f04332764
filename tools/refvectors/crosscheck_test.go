package main

// A second, deliberately different computation path for the arithmetic the
// long vectors exercise: GF(2^128) as polynomials in math/big (carry-less
// multiplication and reduction), offsets as γ_i·L with the Gray code instead
// of the incremental ntz updates, CWC-HASH as a sum of powers instead of
// Horner's rule, mod 2^128 with math/bits instead of math/big.

import (
	"crypto/aes"
	"math/big"
	"math/bits"
	"testing"
)

// gfPoly is x^128 + x^7 + x^2 + x + 1.
var gfPoly = new(big.Int).SetBit(big.NewInt(0x87), 128, 1)

// clmulMod multiplies two polynomials (bit k = coefficient of x^k) mod gfPoly.
func clmulMod(a, b *big.Int) *big.Int {
	r := new(big.Int)
	for k := 0; k < b.BitLen(); k++ {
		if b.Bit(k) == 1 {
			r.Xor(r, new(big.Int).Lsh(a, uint(k)))
		}
	}
	for d := r.BitLen() - 1; d >= 128; d-- {
		if r.Bit(d) == 1 {
			r.Xor(r, new(big.Int).Lsh(gfPoly, uint(d-128)))
		}
	}
	return r
}

// xPow returns x^i mod gfPoly by square-and-multiply.
func xPow(i uint64) *big.Int {
	r, base := big.NewInt(1), big.NewInt(2)
	for ; i > 0; i >>= 1 {
		if i&1 == 1 {
			r = clmulMod(r, base)
		}
		base = clmulMod(base, base)
	}
	return r
}

// BE: the block's big-endian integer is the polynomial. LE: little-endian.
func polyBE(b block) *big.Int  { return new(big.Int).SetBytes(b[:]) }
func blockBE(p *big.Int) block { var b block; p.FillBytes(b[:]); return b }
func polyLE(b block) *big.Int {
	var r block
	for i := range b {
		r[i] = b[15-i]
	}
	return polyBE(r)
}
func blockLE(p *big.Int) block {
	b := blockBE(p)
	var r block
	for i := range b {
		r[i] = b[15-i]
	}
	return r
}

func testBlocks(n int) []block {
	r := newDrbg("crosscheck")
	out := []block{{}, {0: 0x80}, {15: 0x01}, {0: 0xff, 15: 0xff}}
	for len(out) < n {
		out = append(out, r.block())
	}
	return out
}

func TestDoublingAgainstPolynomials(t *testing.T) {
	x := big.NewInt(2)
	for _, a := range testBlocks(200) {
		if got, want := doubleBE(a), blockBE(clmulMod(polyBE(a), x)); got != want {
			t.Fatalf("doubleBE(%x) = %x, want %x", a, got, want)
		}
		if got, want := doubleLE(a), blockLE(clmulMod(polyLE(a), x)); got != want {
			t.Fatalf("doubleLE(%x) = %x, want %x", a, got, want)
		}
		// x^-1 = x^127 + x^6 + x + 1 (the OCB misprint fixed by the spec)
		xinv := new(big.Int).SetBit(big.NewInt(0x43), 127, 1)
		if got, want := halveBE(a), blockBE(clmulMod(polyBE(a), xinv)); got != want {
			t.Fatalf("halveBE(%x) = %x, want %x", a, got, want)
		}
	}
}

func TestXexDeltaAgainstPowers(t *testing.T) {
	E, _ := aes.NewCipher([]byte("0123456789abcdef"))
	for _, N := range testBlocks(6) {
		for _, i := range []uint64{1, 2, 63, 64, 65, 127, 128, 129, 1000, 1200} {
			want := blockBE(clmulMod(polyBE(enc(E, N)), xPow(i)))
			if got := xexDelta(E, N, i); got != want {
				t.Fatalf("Δ(N=%x, i=%d) = %x, want %x", N, i, got, want)
			}
		}
	}
	// a long run: block k uses Δ = 2^(i+k)·E_K(N)
	N, P := testBlocks(5)[4], make([]byte, 16*200)
	C := xexEncrypt(E, N, 7, P)
	for k := 0; k < 200; k++ {
		d := blockBE(clmulMod(polyBE(enc(E, N)), xPow(uint64(7+k))))
		want := xorBlock(enc(E, d), d) // P_k = 0
		if toBlock(C[16*k:]) != want {
			t.Fatalf("XEX run block %d", k)
		}
	}
}

func TestEmeMasksAgainstPowers(t *testing.T) {
	// L_i = 2^(i-1)·L and 2^(i-1)·M in the LE convention, i up to 128
	for _, a := range testBlocks(4) {
		v := a
		for i := 1; i <= 128; i++ {
			if want := blockLE(clmulMod(polyLE(a), xPow(uint64(i-1)))); v != want {
				t.Fatalf("2^%d·%x (LE)", i-1, a)
			}
			v = doubleLE(v)
		}
	}
}

func gray(i uint64) uint64 { return i ^ i>>1 }

func TestOffsetsAgainstGrayCode(t *testing.T) {
	// Z[i] ⊕ Z[1] ⊕ L = γ_i·L for OCB; offset_i = γ_i·L for PMAC.
	E, _ := aes.NewCipher([]byte("fedcba9876543210"))
	lt := newLTable(E)
	L := lt.L[0]
	Z := L
	for i := 1; i <= 1000; i++ {
		if i > 1 {
			Z = xorBlock(Z, lt.L[ntz(i)])
		}
		want := blockBE(clmulMod(polyBE(L), new(big.Int).SetUint64(gray(uint64(i)))))
		if Z != want {
			t.Fatalf("offset %d", i)
		}
	}
}

// PMAC of a long message recomputed with Gray-code offsets.
func TestPmacLongAgainstGrayCode(t *testing.T) {
	E, _ := aes.NewCipher([]byte("fedcba9876543210"))
	r := newDrbg("crosscheck-pmac")
	for _, n := range []int{63*16 + 1, 64 * 16, 200*16 + 5} {
		M := r.bytes(n)
		L := polyBE(enc(E, block{}))
		m := (n + 15) / 16
		var sigma block
		for i := 1; i < m; i++ {
			off := blockBE(clmulMod(L, new(big.Int).SetUint64(gray(uint64(i)))))
			sigma = xorBlock(sigma, enc(E, xorBlock(toBlock(M[16*(i-1):]), off)))
		}
		last := M[16*(m-1):]
		if len(last) == 16 {
			xinv := new(big.Int).SetBit(big.NewInt(0x43), 127, 1)
			sigma = xorBlock(xorBlock(sigma, toBlock(last)), blockBE(clmulMod(L, xinv)))
		} else {
			sigma = xorBlock(sigma, toBlock(append(append([]byte{}, last...), 0x80)))
		}
		want := enc(E, sigma)
		if got := pmac(E, M, 16); string(got) != string(want[:]) {
			t.Fatalf("PMAC %d bytes", n)
		}
	}
}

func TestCwcHashAgainstSumOfPowers(t *testing.T) {
	E, _ := aes.NewCipher([]byte("0123456789abcdef"))
	Kh := cwcHashKey(E)
	r := newDrbg("crosscheck-cwc")
	for _, c := range [][2]int{{0, 0}, {1, 0}, {13, 4096}, {2048, 5000}, {12, 12}} {
		A, S := r.bytes(c[0]), r.bytes(c[1])
		X := append(zpad12(A), zpad12(S)...)
		beta := len(X) / 12
		R := new(big.Int)
		for j := 1; j <= beta; j++ {
			Y := new(big.Int).SetBytes(X[12*(j-1) : 12*j])
			R.Add(R, Y.Mul(Y, new(big.Int).Exp(Kh, big.NewInt(int64(beta-j+1)), p127)))
		}
		R.Add(R, new(big.Int).Add(new(big.Int).Lsh(big.NewInt(int64(len(A))), 64), big.NewInt(int64(len(S)))))
		R.Mod(R, p127)
		if got := cwcHash(Kh, A, S); got != blockBE(R) {
			t.Fatalf("CWC-HASH ad %d msg %d", c[0], c[1])
		}
	}
}

// mod 2^128 with two uint64 limbs.
func addMulLimbs(a block, i uint64, r block) block {
	rh, rl := be64(r[:8]), be64(r[8:])
	hi, lo := bits.Mul64(rl, i)
	hi += rh * i
	lo, c := bits.Add64(lo, be64(a[8:]), 0)
	hi, _ = bits.Add64(hi, be64(a[:8]), c)
	var out block
	put64(out[:8], hi)
	put64(out[8:], lo)
	return out
}

func be64(b []byte) uint64 {
	var v uint64
	for _, x := range b[:8] {
		v = v<<8 | uint64(x)
	}
	return v
}

func put64(b []byte, v uint64) {
	for k := 7; k >= 0; k-- {
		b[k] = byte(v)
		v >>= 8
	}
}

func TestMod128AgainstLimbs(t *testing.T) {
	bs := testBlocks(50)
	for _, a := range bs {
		for _, r := range bs[:10] {
			for _, i := range []uint64{1, 2, 64, 65, 1001, 1 << 40, ^uint64(0)} {
				if got, want := addMul(a, i, r), addMulLimbs(a, i, r); got != want {
					t.Fatalf("%x + %d·%x: %x, want %x", a, i, r, got, want)
				}
				if back := subMul(addMul(a, i, r), i, r); back != a {
					t.Fatalf("subMul does not undo addMul")
				}
			}
		}
	}
}
