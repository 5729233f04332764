package main

// Blocks as big-endian integers mod 2^128 (spec/conventions.md), via math/big.

import "math/big"

var two128 = new(big.Int).Lsh(big.NewInt(1), 128)

func blockInt(b block) *big.Int { return new(big.Int).SetBytes(b[:]) }

func intBlock(x *big.Int) block {
	v := new(big.Int).Mod(x, two128) // Mod is Euclidean: result in [0, 2^128)
	var b block
	v.FillBytes(b[:])
	return b
}

// addMul returns a + i·r mod 2^128.
func addMul(a block, i uint64, r block) block {
	t := new(big.Int).Mul(new(big.Int).SetUint64(i), blockInt(r))
	return intBlock(t.Add(t, blockInt(a)))
}

// subMul returns a - i·r mod 2^128.
func subMul(a block, i uint64, r block) block {
	t := new(big.Int).Mul(new(big.Int).SetUint64(i), blockInt(r))
	return intBlock(new(big.Int).Sub(blockInt(a), t))
}

func addInt(a block, k uint64) block { return addMul(a, 1, intBlock(new(big.Int).SetUint64(k))) }
