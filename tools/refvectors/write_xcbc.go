package main

import (
	"crypto/aes"
	"fmt"
)

func init() {
	for _, s := range []struct {
		scheme string
		m      xcbcMode
	}{{"xcbc-aes", xcbcMode{false, false}}, {"xcbc-ctr-aes", xcbcMode{true, false}},
		{"xcbc-xor-aes", xcbcMode{false, true}}, {"xcbc-xor-ctr-aes", xcbcMode{true, true}}} {
		s := s
		register(generator{file: s.scheme + ".json", scheme: s.scheme,
			gen:    func() ([]obj, error) { return genXcbc(s.scheme, s.m) },
			source: "two-key (key, key2) and one-key (no key2) forms; lengths 0..2 blocks, 15/16/17/31/32/33 bytes, 62..65 blocks and 1001 blocks"})
	}
	for _, stateful := range []bool{false, true} {
		stateful := stateful
		scheme := "pxcbc-xor-aes"
		if stateful {
			scheme = "pxcbc-xor-ctr-aes"
		}
		register(generator{file: scheme + ".json", scheme: scheme,
			gen:    func() ([]obj, error) { return genPxcbc(scheme, stateful) },
			source: "segment_blocks 1, 2, 16 (and 64) with short messages and messages of 70+ full segments plus a partial last one; two-key and one-key forms"})
	}
	for _, stateful := range []bool{false, true} {
		stateful := stateful
		scheme := "xecb-mac-aes"
		if stateful {
			scheme = "xecb-mac-ctr-aes"
		}
		register(generator{file: scheme + ".json", scheme: scheme,
			gen:    func() ([]obj, error) { return genXecb(scheme, stateful) },
			source: "lengths 0..2 blocks, 15/16/17/31/32/33 bytes, padded lengths of 63/64/65/130 blocks and 1001 blocks"})
	}
}

// xcbcLengths are message lengths in bytes (the padded length is
// len/16 + 1 blocks).
var xcbcLengths = []int{0, 1, 15, 16, 17, 31, 32, 33, 47, 48,
	62 * 16, 63*16 - 1, 63 * 16, 64*16 - 1, 64 * 16, 65*16 - 1, 65 * 16, 1000*16 + 7}

// keyForm picks the key size and the one-/two-key form for vector n.
func keyForm(r *drbg, n int) (key, key2 []byte, form string) {
	ks := []int{16, 16, 32, 24}[n%4]
	key = r.bytes(ks)
	if n%2 == 0 {
		return key, r.bytes(ks), fmt.Sprintf("2key-aes%d", ks*8)
	}
	return key, nil, fmt.Sprintf("1key-aes%d", ks*8)
}

func ivField(stateful bool) string {
	if stateful {
		return "ctr"
	}
	return "r0"
}

func keyFields(key, key2 []byte) obj {
	o := obj{{"key", hx(key)}}
	if key2 != nil {
		o = append(o, field{"key2", hx(key2)})
	}
	return o
}

func genXcbc(scheme string, m xcbcMode) ([]obj, error) {
	r := newDrbg(scheme)
	var vs []obj
	for n, L := range xcbcLengths {
		forms := []int{n}
		if L <= 48 {
			forms = []int{2 * n, 2*n + 1} // both key forms for the short ones
		}
		for _, fn := range forms {
			key, key2, form := keyForm(r, fn)
			k, _ := newXcbcKeys(key, key2)
			iv, msg := r.block(), r.bytes(L)
			if m.stateful && fn == 1 {
				iv = block{0: 0xff, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff, 8: 0xff, 9: 0xff, 10: 0xff, 11: 0xff, 12: 0xff, 13: 0xff, 14: 0xff, 15: 0xff} // the default initial counter -1
			}
			ct := xcbcEncrypt(k, m, iv, msg)
			base := append(obj{{"name", fmt.Sprintf("refgo-%s-%dB-%s", scheme, L, form)}}, keyFields(key, key2)...)
			base = append(base, field{ivField(m.stateful), hx(iv[:])}, field{"msg", hx(msg)})
			vs = append(vs, append(append(obj{}, base...), field{"ct", hx(ct)}, field{"result", "valid"}))
			if m.xor && (L == 17 || L == 64*16) {
				// one flipped bit: in y_1 and in the last (check) block
				for _, at := range []int{16, len(ct) - 1} {
					bad := append(append(obj{}, base...), field{"ct", hx(flipBit(ct, at))}, field{"result", "invalid"})
					bad[0] = field{"name", fmt.Sprintf("refgo-%s-%dB-%s-flip-byte-%d", scheme, L, form, at)}
					vs = append(vs, bad)
				}
			}
		}
	}
	return vs, nil
}

func genPxcbc(scheme string, stateful bool) ([]obj, error) {
	r := newDrbg(scheme)
	var vs []obj
	type c struct{ S, L int }
	var cases []c
	for _, S := range []int{1, 2, 16} {
		for _, L := range []int{0, 1, 15, 16, 17, 31, 32, 33} {
			cases = append(cases, c{S, L})
		}
	}
	// 70+ full segments (length block included) plus a partial last segment
	cases = append(cases, c{1, (75-1)*16 - 1}, c{2, (71*2+1-1)*16 - 3}, c{16, (72*16+5-1)*16 - 9},
		c{2, (70*2-1)*16 - 1},  // exactly 70 full segments, no partial
		c{16, (5*16-1)*16 - 1}, // exactly 5 full segments
		c{64, (3*64+10-1)*16 - 1})
	for n, cs := range cases {
		key, key2, form := keyForm(r, n)
		k, _ := newXcbcKeys(key, key2)
		iv, msg := r.block(), r.bytes(cs.L)
		ct, err := pxcbcEncrypt(k, stateful, iv, cs.S, msg)
		if err != nil {
			return nil, err
		}
		base := append(obj{{"name", fmt.Sprintf("refgo-%s-%dB-S%d-%s", scheme, cs.L, cs.S, form)}}, keyFields(key, key2)...)
		base = append(base, field{ivField(stateful), hx(iv[:])}, field{"segment_blocks", cs.S}, field{"msg", hx(msg)})
		vs = append(vs, append(append(obj{}, base...), field{"ct", hx(ct)}, field{"result", "valid"}))
		if cs.L == 33 && cs.S == 2 || cs.S == 16 && cs.L > 10000 {
			flips := []int{16 + 5, len(ct) / 2, len(ct) - 1}
			if cs.L > 10000 {
				flips = flips[1:2] // one long invalid vector keeps the file small
			}
			for _, at := range flips {
				bad := append(append(obj{}, base...), field{"ct", hx(flipBit(ct, at))}, field{"result", "invalid"})
				bad[0] = field{"name", fmt.Sprintf("refgo-%s-%dB-S%d-%s-flip-byte-%d", scheme, cs.L, cs.S, form, at)}
				vs = append(vs, bad)
			}
		}
		if cs.S == 2 && cs.L == 33 {
			// the last whole segment dropped (S+1 = 3 blocks) must be rejected
			bad := append(append(obj{}, base...), field{"ct", hx(ct[:len(ct)-48])}, field{"result", "invalid"})
			bad[0] = field{"name", fmt.Sprintf("refgo-%s-%dB-S%d-%s-last-segment-dropped", scheme, cs.L, cs.S, form)}
			vs = append(vs, bad)
		}
	}
	return vs, nil
}

func genXecb(scheme string, stateful bool) ([]obj, error) {
	r := newDrbg(scheme)
	var vs []obj
	lengths := []int{0, 1, 15, 16, 17, 31, 32, 33, 47, 48}
	for _, b := range []int{63, 64, 65, 130} { // padded length b blocks
		lengths = append(lengths, (b-1)*16, b*16-1)
	}
	lengths = append(lengths, 1000*16+7)
	for n, L := range lengths {
		ks := []int{16, 24, 32}[n%3]
		key, iv, msg := r.bytes(ks), r.block(), r.bytes(L)
		f, _ := aes.NewCipher(key)
		tag := xecbSign(f, stateful, iv, msg)
		base := obj{{"name", fmt.Sprintf("refgo-%s-%dB-aes%d", scheme, L, ks*8)}, {"key", hx(key)}, {ivField(stateful), hx(iv[:])}, {"msg", hx(msg)}}
		vs = append(vs, append(append(obj{}, base...), field{"tag", hx(tag)}, field{"result", "valid"}))
		if L == 17 || L == 64*16-1 {
			for _, at := range []int{3, 31} { // in y0 / ctr and in w
				bad := append(append(obj{}, base...), field{"tag", hx(flipBit(tag, at))}, field{"result", "invalid"})
				bad[0] = field{"name", fmt.Sprintf("refgo-%s-%dB-aes%d-flip-tag-byte-%d", scheme, L, ks*8, at)}
				vs = append(vs, bad)
			}
		}
	}
	return vs, nil
}
