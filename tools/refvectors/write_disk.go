package main

import (
	"crypto/aes"
	"fmt"
	"path/filepath"
)

func init() {
	register(generator{file: "xex-aes.json", scheme: "xex-aes", gen: genXex,
		source: "a pt longer than one block is the run of blocks under the tweaks (tweak_n, tweak_i), (tweak_n, tweak_i + 1), ..., one block per tweak"})
	register(generator{file: "eme-aes.json", scheme: "eme-aes", gen: genEme,
		source: "iterations and direction unused (one encryption; both directions checked)"})
	register(generator{file: "ste-xex-aes.json", scheme: "ste-xex-aes", gen: genSte,
		source: "pt = K, pt = H (the hidden point E(K, gamma, 0^128)) and random blocks"})
	register(generator{file: "ete-eme-aes.json", scheme: "ete-eme-aes", gen: genEte,
		source: "including messages with the key K and the hidden point H in block 0, a middle block and the last block"})
	for _, size := range []int{512, 2048, 4096} {
		size := size
		register(generator{file: filepath.Join("sectors", fmt.Sprintf("sectors-aes-%d.json", size)), scheme: "sectors-aes",
			gen:    func() ([]obj, error) { return genSectors(size) },
			source: "sector mapping of shared/spec/disk.md (4096-byte sectors: data units 2s and 2s+1 of 2048 bytes, for every cipher), format in vectors/independent/README.md"})
	}
}

var keySizes = []int{16, 24, 32}

func genXex() ([]obj, error) {
	r := newDrbg("xex-aes")
	var vs []obj
	type run struct {
		blocks int
		i      uint64
	}
	runs := []run{{1, 1}, {1, 2}, {1, 3}, {1, 64}, {1, 127}, {1, 128}, {1, 1000},
		{2, 1}, {3, 2}, {4, 5}, {7, 9}, {8, 2}, {15, 3}, {16, 17}, {17, 31},
		{31, 2}, {32, 33}, {33, 100}, {63, 2}, {64, 7}, {65, 64}, {66, 130},
		{127, 2}, {128, 1}, {129, 3}, {200, 60}}
	for n, rn := range runs {
		ks := keySizes[n%3]
		key, N, pt := r.bytes(ks), r.block(), r.bytes(16*rn.blocks)
		if n%5 == 0 {
			N = block{} // the zero nonce
		}
		E, _ := aes.NewCipher(key)
		ct := xexEncrypt(E, N, rn.i, pt)
		vs = append(vs, obj{{"name", fmt.Sprintf("refgo-xex-aes%d-%dblocks-i%d", ks*8, rn.blocks, rn.i)},
			{"key", hx(key)}, {"tweak_n", hx(N[:])}, {"tweak_i", rn.i},
			{"pt", hx(pt)}, {"ct", hx(ct)}, {"result", "valid"}})
	}
	return vs, nil
}

var emeBlocks = []int{1, 2, 3, 31, 32, 33, 64, 127, 128}

func genEme() ([]obj, error) {
	r := newDrbg("eme-aes")
	var vs []obj
	for _, ks := range []int{16, 32} {
		for _, m := range emeBlocks {
			key, T, pt := r.bytes(ks), r.block(), r.bytes(16*m)
			E, _ := aes.NewCipher(key)
			ct, err := emeEncrypt(aesPermutation(E), T, pt)
			if err != nil {
				return nil, err
			}
			vs = append(vs, obj{{"name", fmt.Sprintf("refgo-eme-aes%d-%dblocks", ks*8, m)},
				{"key", hx(key)}, {"tweak", hx(T[:])}, {"pt", hx(pt)}, {"ct", hx(ct)}, {"result", "valid"}})
		}
	}
	for _, m := range []int{4, 65} { // AES-192 too
		key, T, pt := r.bytes(24), r.block(), r.bytes(16*m)
		E, _ := aes.NewCipher(key)
		ct, _ := emeEncrypt(aesPermutation(E), T, pt)
		vs = append(vs, obj{{"name", fmt.Sprintf("refgo-eme-aes192-%dblocks", m)},
			{"key", hx(key)}, {"tweak", hx(T[:])}, {"pt", hx(pt)}, {"ct", hx(ct)}, {"result", "valid"}})
	}
	return vs, nil
}

func genSte() ([]obj, error) {
	r := newDrbg("ste-xex-aes")
	var vs []obj
	tweaks := []xexTweak{eteGamma1, eteGamma2, {N: block{15: 0x02}, i: 1}, {N: steGamma.N, i: 2}, {N: r.block(), i: 1}, {N: r.block(), i: 77}}
	for n, T := range tweaks {
		key := r.bytes(16)
		s, _ := newSte(key)
		for _, kind := range []string{"key", "hidden", "random"} {
			M := r.block()
			switch kind {
			case "key":
				M = s.K
			case "hidden":
				M = s.H
			}
			C, err := s.F(T, M)
			if err != nil {
				return nil, err
			}
			vs = append(vs, obj{{"name", fmt.Sprintf("refgo-ste-xex-%s-%d", kind, n)},
				{"key", hx(key)}, {"tweak_n", hx(T.N[:])}, {"tweak_i", T.i}, {"pt", hx(M[:])}, {"ct", hx(C[:])}, {"result", "valid"}})
		}
	}
	return vs, nil
}

func genEte() ([]obj, error) {
	r := newDrbg("ete-eme-aes")
	var vs []obj
	add := func(name string, key []byte, T block, pt []byte) error {
		ct, err := eteEncrypt(key, T, pt)
		if err != nil {
			return err
		}
		vs = append(vs, obj{{"name", name}, {"key", hx(key)}, {"tweak", hx(T[:])}, {"pt", hx(pt)}, {"ct", hx(ct)}, {"result", "valid"}})
		return nil
	}
	for _, m := range emeBlocks {
		if err := add(fmt.Sprintf("refgo-ete-eme-%dblocks", m), r.bytes(16), r.block(), r.bytes(16*m)); err != nil {
			return nil, err
		}
	}
	// K and H in the first, a middle and the last block.
	for _, m := range []int{1, 3, 32, 128} {
		for _, what := range []string{"key", "hidden"} {
			for _, where := range []string{"first", "middle", "last"} {
				if m == 1 && where != "first" {
					continue
				}
				key, T, pt := r.bytes(16), r.block(), r.bytes(16*m)
				s, _ := newSte(key)
				at := map[string]int{"first": 0, "middle": m / 2, "last": m - 1}[where]
				val := s.K
				if what == "hidden" {
					val = s.H
				}
				copy(pt[16*at:], val[:])
				if err := add(fmt.Sprintf("refgo-ete-eme-%dblocks-%s-in-%s-block", m, what, where), key, T, pt); err != nil {
					return nil, err
				}
			}
		}
	}
	// both K and H, in several blocks at once
	key, T := r.bytes(16), r.block()
	s, _ := newSte(key)
	pt := r.bytes(16 * 8)
	for _, at := range []int{0, 3, 7} {
		copy(pt[16*at:], s.K[:])
	}
	copy(pt[16*5:], s.H[:])
	if err := add("refgo-ete-eme-8blocks-key-in-0-3-7-hidden-in-5", key, T, pt); err != nil {
		return nil, err
	}
	return vs, nil
}

func genSectors(size int) ([]obj, error) {
	r := newDrbg(fmt.Sprintf("sectors-aes-%d", size))
	var vs []obj
	firsts := []uint64{0, 1, 1<<40 + 7}
	for _, c := range []string{"xex", "eme", "ete"} {
		for _, first := range firsts {
			ks := 16
			if c != "ete" && first == 1 {
				ks = 32
			}
			count := map[int]int{512: 3, 2048: 2, 4096: 2}[size]
			if size == 4096 && first == 1 {
				count = 1
			}
			key, pt := r.bytes(ks), r.bytes(size*count)
			ct, err := sectorCrypt(c, key, size, first, pt, true)
			if err != nil {
				return nil, err
			}
			back, _ := sectorCrypt(c, key, size, first, ct, false)
			if err := expectEq("sector round trip", back, pt); err != nil {
				return nil, err
			}
			vs = append(vs, obj{{"name", fmt.Sprintf("refgo-sectors-%s-aes%d-%dB-x%d-from-%d", c, ks*8, size, count, first)},
				{"cipher", c}, {"key", hx(key)}, {"sector_size", size}, {"first_sector", first},
				{"pt", hx(pt)}, {"ct", hx(ct)}})
		}
	}
	return vs, nil
}
