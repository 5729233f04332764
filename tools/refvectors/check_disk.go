package main

import (
	"crypto/aes"
	"fmt"
)

func checkXex(v vector) error {
	E, err := aes.NewCipher(v.hex("key"))
	if err != nil {
		return err
	}
	N, i := toBlock(v.hex("tweak_n")), v.int("tweak_i", 0)
	if i < 1 {
		return fmt.Errorf("tweak_i must be >= 1")
	}
	return both(
		func(p []byte) ([]byte, error) { return xexEncrypt(E, N, i, p), nil },
		func(c []byte) ([]byte, error) { return xexDecrypt(E, N, i, c), nil },
		v.hex("pt"), v.hex("ct"))
}

// iterate applies f n times, output feeding input.
func iterate(f func([]byte) ([]byte, error), n uint64) func([]byte) ([]byte, error) {
	return func(x []byte) ([]byte, error) {
		var err error
		for k := uint64(0); k < n; k++ {
			if x, err = f(x); err != nil {
				return nil, err
			}
		}
		return x, nil
	}
}

func checkEme(v vector) error {
	E, err := aes.NewCipher(v.hex("key"))
	if err != nil {
		return err
	}
	g, T := aesPermutation(E), toBlock(v.hex("tweak"))
	fwd := iterate(func(p []byte) ([]byte, error) { return emeEncrypt(g, T, p) }, v.int("iterations", 1))
	inv := iterate(func(c []byte) ([]byte, error) { return emeDecrypt(g, T, c) }, v.int("iterations", 1))
	if v.str("direction") == "decrypt" {
		// ct is the input, pt the output: same pair, same two checks.
		return both(inv, fwd, v.hex("ct"), v.hex("pt"))
	}
	return both(fwd, inv, v.hex("pt"), v.hex("ct"))
}

func checkSte(v vector) error {
	s, err := newSte(v.hex("key"))
	if err != nil {
		return err
	}
	T := xexTweak{N: toBlock(v.hex("tweak_n")), i: v.int("tweak_i", 0)}
	return both(
		func(p []byte) ([]byte, error) { c, err := s.F(T, toBlock(p)); return c[:], err },
		func(c []byte) ([]byte, error) { p, err := s.Finv(T, toBlock(c)); return p[:], err },
		v.hex("pt"), v.hex("ct"))
}

func checkEte(v vector) error {
	key, T := v.hex("key"), toBlock(v.hex("tweak"))
	return both(
		func(p []byte) ([]byte, error) { return eteEncrypt(key, T, p) },
		func(c []byte) ([]byte, error) { return eteDecrypt(key, T, c) },
		v.hex("pt"), v.hex("ct"))
}

// checkSectors runs one vector of the sectors-aes format (vectors/independent/README.md).
func checkSectors(v vector) error {
	c, key, size, first := v.str("cipher"), v.hex("key"), int(v.int("sector_size", 0)), v.int("first_sector", 0)
	return both(
		func(p []byte) ([]byte, error) { return sectorCrypt(c, key, size, first, p, true) },
		func(x []byte) ([]byte, error) { return sectorCrypt(c, key, size, first, x, false) },
		v.hex("pt"), v.hex("ct"))
}
