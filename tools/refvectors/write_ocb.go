package main

import (
	"crypto/aes"
	"fmt"
)

func init() {
	register(generator{file: "ocb1-aes.json", scheme: "ocb1-aes", gen: genOcb,
		source: "0..5 blocks, non-multiple lengths, 63/64/65/200 blocks (and one byte either side), tag lengths 16, 12, 8, 1"})
	register(generator{file: "pmac-aes.json", scheme: "pmac-aes", gen: genPmac,
		source: "0..5 blocks, non-multiple lengths, 63/64/65/200 blocks (and one byte either side), tag lengths 16, 12, 8, 1"})
	register(generator{file: "cwc-aes.json", scheme: "cwc-aes", gen: genCwc,
		source: "associated data and messages from 0 bytes to several KiB, tag lengths 16, 12, 8, 1"})
}

func ocbLengths() []int {
	ls := []int{0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 79, 80, 81}
	for _, b := range []int{63, 64, 65, 200} {
		ls = append(ls, b*16-1, b*16, b*16+1)
	}
	return ls
}

var tagLens = []int{16, 16, 12, 16, 8, 16, 1}

func genOcb() ([]obj, error) {
	r := newDrbg("ocb1-aes")
	var vs []obj
	for n, L := range ocbLengths() {
		ks := keySizes[n%3]
		key, N, msg := r.bytes(ks), r.block(), r.bytes(L)
		tl := tagLens[n%len(tagLens)]
		E, _ := aes.NewCipher(key)
		C, T := ocbEncrypt(E, N, msg, tl)
		name := fmt.Sprintf("refgo-ocb1-aes%d-%dB-tag%d", ks*8, L, tl)
		base := obj{{"key", hx(key)}, {"nonce", hx(N[:])}, {"msg", hx(msg)}}
		vs = append(vs, append(append(obj{{"name", name}}, base...), field{"ct", hx(C)}, field{"tag", hx(T)}, field{"result", "valid"}))
		if L == 33 || L == 64*16+1 {
			vs = append(vs, append(append(obj{{"name", name + "-flip-ct"}}, base...), field{"ct", hx(flipBit(C, L/2))}, field{"tag", hx(T)}, field{"result", "invalid"}))
			vs = append(vs, append(append(obj{{"name", name + "-flip-tag"}}, base...), field{"ct", hx(C)}, field{"tag", hx(flipBit(T, tl-1))}, field{"result", "invalid"}))
		}
	}
	return vs, nil
}

func genPmac() ([]obj, error) {
	r := newDrbg("pmac-aes")
	var vs []obj
	for n, L := range ocbLengths() {
		ks := keySizes[n%3]
		key, msg := r.bytes(ks), r.bytes(L)
		tl := tagLens[n%len(tagLens)]
		E, _ := aes.NewCipher(key)
		T := pmac(E, msg, tl)
		name := fmt.Sprintf("refgo-pmac-aes%d-%dB-tag%d", ks*8, L, tl)
		base := obj{{"key", hx(key)}, {"msg", hx(msg)}}
		vs = append(vs, append(append(obj{{"name", name}}, base...), field{"tag", hx(T)}, field{"result", "valid"}))
		if L == 16 || L == 33 || L == 200*16 {
			vs = append(vs, append(append(obj{{"name", name + "-flip-tag"}}, base...), field{"tag", hx(flipBit(T, 0))}, field{"result", "invalid"}))
		}
	}
	return vs, nil
}

func genCwc() ([]obj, error) {
	r := newDrbg("cwc-aes")
	var vs []obj
	type c struct{ A, M int }
	cases := []c{{0, 0}, {1, 0}, {0, 1}, {11, 12}, {12, 11}, {13, 13}, {24, 24}, {16, 16}, {0, 17},
		{20, 31}, {0, 32}, {37, 33}, {100, 255}, {0, 1024}, {12, 4096}, {3000, 0}, {2048, 5000},
		{5, 8191}, {1500, 6000 + 7}}
	for n, cs := range cases {
		ks := keySizes[n%3]
		key, N, A, msg := r.bytes(ks), r.bytes(11), r.bytes(cs.A), r.bytes(cs.M)
		tl := tagLens[n%len(tagLens)]
		E, _ := aes.NewCipher(key)
		C, T := cwcEncrypt(E, N, A, msg, tl)
		name := fmt.Sprintf("refgo-cwc-aes%d-ad%dB-msg%dB-tag%d", ks*8, cs.A, cs.M, tl)
		var hk block
		cwcHashKey(E).FillBytes(hk[:])
		hv := cwcHash(cwcHashKey(E), A, C)
		base := obj{{"key", hx(key)}, {"nonce", hx(N)}, {"ad", hx(A)}, {"msg", hx(msg)}}
		v := append(append(obj{{"name", name}}, base...), field{"ct", hx(C)}, field{"tag", hx(T)}, field{"result", "valid"},
			field{"hash_key", hx(hk[:])}, field{"hash_value", hx(hv[:])})
		vs = append(vs, v)
		if cs.M == 33 || cs.M == 4096 {
			vs = append(vs, append(append(obj{{"name", name + "-flip-ct"}}, base...), field{"ct", hx(flipBit(C, cs.M-1))}, field{"tag", hx(T)}, field{"result", "invalid"}))
			vs = append(vs, append(append(obj{{"name", name + "-flip-tag"}}, base...), field{"ct", hx(C)}, field{"tag", hx(flipBit(T, 0))}, field{"result", "invalid"}))
			badA := append(obj{{"name", name + "-flip-ad"}}, base...)
			badA[3] = field{"ad", hx(flipBit(A, 0))}
			vs = append(vs, append(badA, field{"ct", hx(C)}, field{"tag", hx(T)}, field{"result", "invalid"}))
		}
	}
	return vs, nil
}
