package main

// -negative DIR: negative vectors (every one `"result": "invalid"`), one
// file per scheme, in the shared format. Each is derived from a VALID vector
// computed here (and first checked valid by this program's -check) by one
// tampering: every single-bit flip of short ciphertexts and tags, truncated
// and extended tags, ciphertexts truncated at and around block boundaries,
// swapped and duplicated blocks (segments for pXCBC), a wrong nonce / r0 /
// counter, wrong associated data (CWC), and a ciphertext or tag of another
// key (or of the other key form). Every written vector must then be rejected
// by this program's own decryption or verification (-check).

import (
	"crypto/aes"
	"encoding/json"
	"fmt"
	"path/filepath"
)

const negSourcePrefix = "independent Go reference, tools/refvectors -negative (invalid vectors derived from valid ones computed by the reference; each is rejected by the reference before it is written)"

type negGenerator struct {
	scheme string
	source string
	gen    func() ([]obj, error)
}

var negGenerators []negGenerator

func registerNeg(g negGenerator) { negGenerators = append(negGenerators, g) }

// minNegative is the least number of vectors a negative file must hold.
const minNegative = 50

func writeNegative(dir string) error {
	for _, g := range negGenerators {
		vs, err := g.gen()
		if err != nil {
			return fmt.Errorf("%s: %v", g.scheme, err)
		}
		if len(vs) < minNegative {
			return fmt.Errorf("%s: only %d negative vectors", g.scheme, len(vs))
		}
		seen := map[string]bool{}
		for _, v := range vs {
			name := v.get("name").(string)
			if seen[name] {
				return fmt.Errorf("%s: duplicate vector name %s", g.scheme, name)
			}
			seen[name] = true
			if v.get("result") != "invalid" {
				return fmt.Errorf("%s: %s is not marked invalid", g.scheme, name)
			}
		}
		path := filepath.Join(dir, g.scheme+".json")
		if err := writeFile(path, g.scheme, negSourcePrefix+"; "+g.source, vs); err != nil {
			return err
		}
		p, q, err := checkFile(path, false)
		if err != nil {
			return err
		}
		if q > 0 || p != len(vs) {
			return fmt.Errorf("%s: %d of %d negative vectors are accepted by the reference", path, q, len(vs))
		}
	}
	return nil
}

func (o obj) get(k string) interface{} {
	for _, f := range o {
		if f.k == k {
			return f.v
		}
	}
	return nil
}

// set returns a copy of o with field k replaced (or appended).
func (o obj) set(k string, v interface{}) obj {
	c := append(obj{}, o...)
	for i := range c {
		if c[i].k == k {
			c[i].v = v
			return c
		}
	}
	return append(c, field{k, v})
}

// without returns a copy of o without field k.
func (o obj) without(k string) obj {
	var c obj
	for _, f := range o {
		if f.k != k {
			c = append(c, f)
		}
	}
	return c
}

// asVector turns o into the map form the checkers read.
func asVector(o obj) vector {
	raw, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	var v vector
	if err := json.Unmarshal(raw, &v); err != nil {
		panic(err)
	}
	return v
}

// mustValid: the base vector must pass this program's own check.
func mustValid(scheme string, base obj) error {
	if err := runOne(checkers[scheme], asVector(base)); err != nil {
		return fmt.Errorf("base vector %v is not valid: %v", base.get("name"), err)
	}
	return nil
}

// negList collects the invalid vectors derived from one base vector.
type negList struct {
	scheme string
	base   obj
	out    *[]obj
}

// add appends base with the given fields replaced, renamed base-suffix and
// marked invalid.
func (n negList) add(suffix string, fs ...field) {
	v := n.base.set("name", fmt.Sprintf("%s-%s", n.base.get("name"), suffix))
	for _, f := range fs {
		v = v.set(f.k, f.v)
	}
	*n.out = append(*n.out, v.set("result", "invalid"))
}

// addObj appends v (already built) renamed and marked invalid.
func (n negList) addObj(suffix string, v obj) {
	v = v.set("name", fmt.Sprintf("%s-%s", n.base.get("name"), suffix))
	*n.out = append(*n.out, v.set("result", "invalid"))
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func flipBitAt(b []byte, bit int) []byte {
	c := append([]byte{}, b...)
	c[bit/8] ^= 1 << (7 - bit%8)
	return c
}

// swapBlocks swaps the 16-byte blocks i and j of b.
func swapBlocks(b []byte, i, j int) []byte {
	c := append([]byte{}, b...)
	copy(c[16*i:16*i+16], b[16*j:16*j+16])
	copy(c[16*j:16*j+16], b[16*i:16*i+16])
	return c
}

// dupBlock replaces block j of b with a copy of block i.
func dupBlock(b []byte, i, j int) []byte {
	c := append([]byte{}, b...)
	copy(c[16*j:16*j+16], b[16*i:16*i+16])
	return c
}

func incBytes(b []byte) []byte {
	c := append([]byte{}, b...)
	for i := len(c) - 1; i >= 0; i-- {
		c[i]++
		if c[i] != 0 {
			break
		}
	}
	return c
}

// truncLens are lengths at and around the block boundaries below n.
func truncLens(n int) []int {
	var ls []int
	seen := map[int]bool{}
	for b := (n / 16) * 16; b >= 0; b -= 16 {
		for _, l := range []int{b + 1, b, b - 1} {
			if l >= 0 && l < n && !seen[l] {
				seen[l] = true
				ls = append(ls, l)
			}
		}
	}
	return ls
}

func init() {
	registerNeg(negGenerator{scheme: "ocb1-aes", gen: negOcb,
		source: "ciphertext = ct ‖ tag as the receiver sees it, split by tag_size: every bit flip of a 3-byte message's ct ‖ tag and of an empty message's 8-byte tag; a 65-byte message: truncated at and around block boundaries, extended, blocks swapped and duplicated, tags truncated / extended / of another tag size, wrong nonces, another key"})
	registerNeg(negGenerator{scheme: "cwc-aes", gen: negCwc,
		source: "ciphertext = ct ‖ tag split by tag_size: every bit flip of a 3-byte message's ct ‖ tag and of 5 bytes of associated data; a 65-byte message with 20 bytes of associated data: truncated and extended ciphertexts, swapped blocks, wrong nonces, wrong associated data (dropped, cut, extended, a byte moved across the ad/ciphertext boundary), tags truncated / extended / of another size, another key"})
	registerNeg(negGenerator{scheme: "pmac-aes", gen: negPmac,
		source: "every bit flip of a 3-byte message and of its tag; a 65-byte message truncated at and around block boundaries and extended (with 0x80, 0x00, a block), swapped blocks; a 47-byte message with 0x80 appended (its own padding as a full block); tags truncated / extended / of another size; another key"})
	for _, s := range []struct {
		scheme string
		m      xcbcMode
	}{{"xcbc-xor-aes", xcbcMode{false, true}}, {"xcbc-xor-ctr-aes", xcbcMode{true, true}}} {
		s := s
		registerNeg(negGenerator{scheme: s.scheme, gen: func() ([]obj, error) { return negXcbc(s.scheme, s.m) },
			source: "every bit flip of a 3-byte message's ciphertext (3 blocks); a 65-byte message's ciphertext truncated at and around block boundaries, extended, blocks swapped and duplicated, the first block (y0 / counter) of another message or changed, another key"})
	}
	for _, stateful := range []bool{false, true} {
		stateful := stateful
		scheme := "pxcbc-xor-aes"
		if stateful {
			scheme = "pxcbc-xor-ctr-aes"
		}
		registerNeg(negGenerator{scheme: scheme, gen: func() ([]obj, error) { return negPxcbc(scheme, stateful) },
			source: "every bit flip of a 3-byte message's ciphertext (S = 2, 4 blocks); a 100-byte message (S = 2, four segments): truncated at and around block and segment boundaries, segments dropped, swapped, duplicated and appended, blocks swapped, another segment size, the first block of another message, another key and the other key form"})
	}
	for _, stateful := range []bool{false, true} {
		stateful := stateful
		scheme := "xecb-mac-aes"
		if stateful {
			scheme = "xecb-mac-ctr-aes"
		}
		registerNeg(negGenerator{scheme: scheme, gen: func() ([]obj, error) { return negXecb(scheme, stateful) },
			source: "every bit flip of a 3-byte message and of its 32-byte tag; a 65-byte message truncated at and around block boundaries and extended, swapped blocks; tags truncated and extended, y0 / counter of another tag, w of another tag, another key"})
	}
}

// ---- OCB 1.0 ----

func negOcb() ([]obj, error) {
	const scheme = "ocb1-aes"
	r := newDrbg("negative-" + scheme)
	var vs []obj
	mk := func(key []byte, N block, msg []byte, tau int) (obj, []byte, []byte) {
		E, _ := aes.NewCipher(key)
		C, T := ocbEncrypt(E, N, msg, tau)
		name := fmt.Sprintf("neg-ocb1-aes%d-%dB-tag%d", len(key)*8, len(msg), tau)
		return obj{{"name", name}, {"key", hx(key)}, {"nonce", hx(N[:])}, {"msg", hx(msg)},
			{"ct", hx(C)}, {"tag", hx(T)}, {"tag_size", tau}, {"result", "valid"}}, C, T
	}
	// every bit of a short ct ‖ tag, and of an empty message's short tag
	for _, c := range []struct{ ks, L, tau int }{{16, 3, 16}, {24, 0, 8}} {
		key, N, msg := r.bytes(c.ks), r.block(), r.bytes(c.L)
		base, C, T := mk(key, N, msg, c.tau)
		if err := mustValid(scheme, base); err != nil {
			return nil, err
		}
		n := negList{scheme, base, &vs}
		sealed := cat(C, T)
		for bit := 0; bit < 8*len(sealed); bit++ {
			s := flipBitAt(sealed, bit)
			n.add(fmt.Sprintf("flip-bit-%d", bit), field{"ct", hx(s[:len(C)])}, field{"tag", hx(s[len(C):])})
		}
	}
	// a 65-byte message
	key, N, msg := r.bytes(32), r.block(), r.bytes(65)
	base, C, T := mk(key, N, msg, 16)
	if err := mustValid(scheme, base); err != nil {
		return nil, err
	}
	n := negList{scheme, base, &vs}
	aeadStructural(n, C, T, 16)
	n.add("nonce-bit-flipped", field{"nonce", hx(flipBit(N[:], 15))})
	n.add("nonce-plus-1", field{"nonce", hx(incBytes(N[:]))})
	n.add("nonce-zero", field{"nonce", hx(make([]byte, 16))})
	// another key (same size, then the same first 16 bytes as AES-128)
	key2 := r.bytes(32)
	_, C2, T2 := mk(key2, N, msg, 16)
	n.add("ct-of-another-key", field{"ct", hx(C2)}, field{"tag", hx(T2)})
	_, C3, T3 := mk(key[:16], N, msg, 16)
	n.add("ct-of-aes128-with-the-key-prefix", field{"ct", hx(C3)}, field{"tag", hx(T3)})
	// the same message sealed with a 12-byte tag, opened expecting 16, and back
	_, C12, T12 := mk(key, N, msg, 12)
	n.add("tag12-opened-as-tag16", field{"ct", hx(C12)}, field{"tag", hx(T12)})
	n.add("tag16-opened-as-tag12", field{"tag_size", 12})
	return vs, nil
}

// aeadStructural adds the structural tamperings of an AEAD ciphertext
// C ‖ T (tag size tau, C of several blocks) to n.
func aeadStructural(n negList, C, T []byte, tau int) {
	for _, l := range truncLens(len(C)) {
		n.add(fmt.Sprintf("ct-truncated-to-%dB", l), field{"ct", hx(C[:l])})
	}
	n.add("ct-plus-zero-byte", field{"ct", hx(cat(C, []byte{0}))})
	n.add("ct-plus-zero-block", field{"ct", hx(cat(C, make([]byte, 16)))})
	n.add("ct-plus-copy-of-block-0", field{"ct", hx(cat(C, C[:16]))})
	for _, p := range [][2]int{{0, 1}, {1, 2}, {0, 3}, {2, 3}} {
		n.add(fmt.Sprintf("ct-blocks-%d-%d-swapped", p[0], p[1]), field{"ct", hx(swapBlocks(C, p[0], p[1]))})
	}
	n.add("ct-block-0-duplicated-over-1", field{"ct", hx(dupBlock(C, 0, 1))})
	for _, k := range []int{tau - 1, tau / 2, 1, 0} {
		n.add(fmt.Sprintf("tag-truncated-to-%dB", k), field{"tag", hx(T[:k])})
	}
	n.add("tag-plus-zero-byte", field{"tag", hx(cat(T, []byte{0}))})
	n.add("tag-plus-its-first-byte", field{"tag", hx(cat(T, T[:1]))})
	n.add("tag-doubled", field{"tag", hx(cat(T, T))})
	n.add("tag-zero", field{"tag", hx(make([]byte, len(T)))})
	n.add("ct-and-tag-empty", field{"ct", ""}, field{"tag", ""})
}

// ---- CWC ----

func negCwc() ([]obj, error) {
	const scheme = "cwc-aes"
	r := newDrbg("negative-" + scheme)
	var vs []obj
	mk := func(key, N, A, msg []byte, tau int) (obj, []byte, []byte) {
		E, _ := aes.NewCipher(key)
		C, T := cwcEncrypt(E, N, A, msg, tau)
		name := fmt.Sprintf("neg-cwc-aes%d-ad%dB-msg%dB-tag%d", len(key)*8, len(A), len(msg), tau)
		return obj{{"name", name}, {"key", hx(key)}, {"nonce", hx(N)}, {"ad", hx(A)}, {"msg", hx(msg)},
			{"ct", hx(C)}, {"tag", hx(T)}, {"tag_size", tau}, {"result", "valid"}}, C, T
	}
	{
		key, N, A, msg := r.bytes(16), r.bytes(11), r.bytes(5), r.bytes(3)
		base, C, T := mk(key, N, A, msg, 16)
		if err := mustValid(scheme, base); err != nil {
			return nil, err
		}
		n := negList{scheme, base, &vs}
		sealed := cat(C, T)
		for bit := 0; bit < 8*len(sealed); bit++ {
			s := flipBitAt(sealed, bit)
			n.add(fmt.Sprintf("flip-bit-%d", bit), field{"ct", hx(s[:len(C)])}, field{"tag", hx(s[len(C):])})
		}
		for bit := 0; bit < 8*len(A); bit++ {
			n.add(fmt.Sprintf("ad-flip-bit-%d", bit), field{"ad", hx(flipBitAt(A, bit))})
		}
	}
	key, N, A, msg := r.bytes(32), r.bytes(11), r.bytes(20), r.bytes(65)
	base, C, T := mk(key, N, A, msg, 16)
	if err := mustValid(scheme, base); err != nil {
		return nil, err
	}
	n := negList{scheme, base, &vs}
	aeadStructural(n, C, T, 16)
	n.add("nonce-bit-flipped", field{"nonce", hx(flipBit(N, 10))})
	n.add("nonce-plus-1", field{"nonce", hx(incBytes(N))})
	n.add("nonce-zero", field{"nonce", hx(make([]byte, 11))})
	n.add("ad-dropped", field{"ad", ""})
	n.add("ad-last-byte-cut", field{"ad", hx(A[:19])})
	n.add("ad-plus-zero-byte", field{"ad", hx(cat(A, []byte{0}))})
	n.add("ad-padded-to-24B", field{"ad", hx(cat(A, make([]byte, 4)))})
	n.add("ad-byte-moved-into-ct", field{"ad", hx(A[:19])}, field{"ct", hx(cat(A[19:], C))})
	n.add("ct-byte-moved-into-ad", field{"ad", hx(cat(A, C[:1]))}, field{"ct", hx(C[1:])})
	n.add("ad-and-ct-swapped", field{"ad", hx(C)}, field{"ct", hx(A)})
	key2 := r.bytes(32)
	_, C2, T2 := mk(key2, N, A, msg, 16)
	n.add("ct-of-another-key", field{"ct", hx(C2)}, field{"tag", hx(T2)})
	_, C12, T12 := mk(key, N, A, msg, 12)
	n.add("tag12-opened-as-tag16", field{"ct", hx(C12)}, field{"tag", hx(T12)})
	n.add("tag16-opened-as-tag12", field{"tag_size", 12})
	return vs, nil
}

// ---- PMAC ----

func negPmac() ([]obj, error) {
	const scheme = "pmac-aes"
	r := newDrbg("negative-" + scheme)
	var vs []obj
	mk := func(key, msg []byte, tau int) (obj, []byte) {
		E, _ := aes.NewCipher(key)
		T := pmac(E, msg, tau)
		name := fmt.Sprintf("neg-pmac-aes%d-%dB-tag%d", len(key)*8, len(msg), tau)
		return obj{{"name", name}, {"key", hx(key)}, {"msg", hx(msg)}, {"tag", hx(T)}, {"tag_size", tau}, {"result", "valid"}}, T
	}
	{
		key, msg := r.bytes(16), r.bytes(3)
		base, T := mk(key, msg, 16)
		if err := mustValid(scheme, base); err != nil {
			return nil, err
		}
		n := negList{scheme, base, &vs}
		for bit := 0; bit < 8*len(msg); bit++ {
			n.add(fmt.Sprintf("msg-flip-bit-%d", bit), field{"msg", hx(flipBitAt(msg, bit))})
		}
		for bit := 0; bit < 8*len(T); bit++ {
			n.add(fmt.Sprintf("tag-flip-bit-%d", bit), field{"tag", hx(flipBitAt(T, bit))})
		}
	}
	key, msg := r.bytes(32), r.bytes(65)
	base, T := mk(key, msg, 16)
	if err := mustValid(scheme, base); err != nil {
		return nil, err
	}
	n := negList{scheme, base, &vs}
	for _, l := range truncLens(len(msg)) {
		n.add(fmt.Sprintf("msg-truncated-to-%dB", l), field{"msg", hx(msg[:l])})
	}
	n.add("msg-plus-0x80", field{"msg", hx(cat(msg, []byte{0x80}))})
	n.add("msg-plus-zero-byte", field{"msg", hx(cat(msg, []byte{0}))})
	n.add("msg-plus-zero-block", field{"msg", hx(cat(msg, make([]byte, 16)))})
	for _, p := range [][2]int{{0, 1}, {1, 2}, {0, 3}, {2, 3}} {
		n.add(fmt.Sprintf("msg-blocks-%d-%d-swapped", p[0], p[1]), field{"msg", hx(swapBlocks(msg, p[0], p[1]))})
	}
	for _, k := range []int{15, 8, 1, 0} {
		n.add(fmt.Sprintf("tag-truncated-to-%dB", k), field{"tag", hx(T[:k])})
	}
	n.add("tag-plus-zero-byte", field{"tag", hx(cat(T, []byte{0}))})
	n.add("tag-doubled", field{"tag", hx(cat(T, T))})
	n.add("tag-zero", field{"tag", hx(make([]byte, 16))})
	E, _ := aes.NewCipher(key)
	n.add("tag12-checked-as-tag16", field{"tag", hx(pmac(E, msg, 12))})
	n.add("tag16-checked-as-tag12", field{"tag_size", 12})
	_, T2 := mk(r.bytes(32), msg, 16)
	n.add("tag-of-another-key", field{"tag", hx(T2)})
	// 47 bytes and its own 10* padding as a full block: L(-1) tells them apart
	m47 := r.bytes(47)
	b47, _ := mk(key, m47, 16)
	if err := mustValid(scheme, b47); err != nil {
		return nil, err
	}
	negList{scheme, b47, &vs}.add("msg-plus-0x80-to-a-full-block", field{"msg", hx(cat(m47, []byte{0x80}))})
	negList{scheme, b47, &vs}.add("msg-plus-0x80-0x00", field{"msg", hx(cat(m47, []byte{0x80, 0}))})
	return vs, nil
}

// ---- XCBC$-XOR / XCBC-XOR ----

func xcbcBase(scheme string, m xcbcMode, key, key2 []byte, iv block, msg []byte) (obj, []byte, error) {
	k, err := newXcbcKeys(key, key2)
	if err != nil {
		return nil, nil, err
	}
	form := "1key"
	if key2 != nil {
		form = "2key"
	}
	ct := xcbcEncrypt(k, m, iv, msg)
	o := append(obj{{"name", fmt.Sprintf("neg-%s-%dB-%s-aes%d", scheme, len(msg), form, 8*len(key))}}, keyFields(key, key2)...)
	o = append(o, field{ivField(m.stateful), hx(iv[:])}, field{"msg", hx(msg)}, field{"ct", hx(ct)}, field{"result", "valid"})
	return o, ct, nil
}

func negXcbc(scheme string, m xcbcMode) ([]obj, error) {
	r := newDrbg("negative-" + scheme)
	var vs []obj
	{
		base, ct, err := xcbcBase(scheme, m, r.bytes(16), r.bytes(16), r.block(), r.bytes(3))
		if err != nil {
			return nil, err
		}
		if err := mustValid(scheme, base); err != nil {
			return nil, err
		}
		n := negList{scheme, base, &vs}
		for bit := 0; bit < 8*len(ct); bit++ {
			n.add(fmt.Sprintf("flip-bit-%d", bit), field{"ct", hx(flipBitAt(ct, bit))})
		}
	}
	key, iv, msg := r.bytes(32), r.block(), r.bytes(65)
	base, ct, err := xcbcBase(scheme, m, key, nil, iv, msg)
	if err != nil {
		return nil, err
	}
	if err := mustValid(scheme, base); err != nil {
		return nil, err
	}
	n := negList{scheme, base, &vs}
	xcbcStructural(n, ct)
	// the first block of another message under the same key
	_, ct2, _ := xcbcBase(scheme, m, key, nil, r.block(), msg)
	n.add("first-block-of-another-message", field{"ct", hx(cat(ct2[:16], ct[16:]))})
	n.add("rest-of-another-message", field{"ct", hx(cat(ct[:16], ct2[16:]))})
	n.add("first-block-plus-1", field{"ct", hx(cat(incBytes(ct[:16]), ct[16:]))})
	// another key, and the two-key form under the same first key
	_, ct3, _ := xcbcBase(scheme, m, r.bytes(32), nil, iv, msg)
	n.add("ct-of-another-key", field{"ct", hx(ct3)})
	// Not here: the ciphertext of the other key form (or of another key2)
	// under the same first key. z0 enters x_1 and the check block only as
	// z0 ⊕ x_1 ⊕ ... ⊕ x_n, so a different z0 cancels in the check: the
	// decryption succeeds with x_1 changed by z0 ⊕ z0' (a related-key
	// property of the construction; the keys of one form are independent).
	return vs, nil
}

// xcbcStructural adds truncations, extensions, swapped and duplicated
// blocks of an XCBC-family ciphertext (several blocks) to n.
func xcbcStructural(n negList, ct []byte) {
	nb := len(ct) / 16
	for _, l := range truncLens(len(ct)) {
		n.add(fmt.Sprintf("ct-truncated-to-%dB", l), field{"ct", hx(ct[:l])})
	}
	n.add("ct-plus-zero-byte", field{"ct", hx(cat(ct, []byte{0}))})
	n.add("ct-plus-zero-block", field{"ct", hx(cat(ct, make([]byte, 16)))})
	n.add("ct-last-block-repeated", field{"ct", hx(cat(ct, ct[len(ct)-16:]))})
	n.add("ct-last-block-dropped-then-repeated", field{"ct", hx(cat(ct[:len(ct)-16], ct[len(ct)-32:len(ct)-16]))})
	for _, p := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {nb - 2, nb - 1}, {1, nb - 1}} {
		n.add(fmt.Sprintf("ct-blocks-%d-%d-swapped", p[0], p[1]), field{"ct", hx(swapBlocks(ct, p[0], p[1]))})
	}
	n.add("ct-block-1-duplicated-over-2", field{"ct", hx(dupBlock(ct, 1, 2))})
	n.add("ct-empty", field{"ct", ""})
}

// ---- pXCBC$-XOR / pXCBC-XOR ----

func negPxcbc(scheme string, stateful bool) ([]obj, error) {
	r := newDrbg("negative-" + scheme)
	var vs []obj
	mk := func(key, key2 []byte, iv block, S int, msg []byte) (obj, []byte, error) {
		k, err := newXcbcKeys(key, key2)
		if err != nil {
			return nil, nil, err
		}
		ct, err := pxcbcEncrypt(k, stateful, iv, S, msg)
		if err != nil {
			return nil, nil, err
		}
		form := "1key"
		if key2 != nil {
			form = "2key"
		}
		o := append(obj{{"name", fmt.Sprintf("neg-%s-%dB-S%d-%s-aes%d", scheme, len(msg), S, form, 8*len(key))}}, keyFields(key, key2)...)
		o = append(o, field{ivField(stateful), hx(iv[:])}, field{"segment_blocks", S}, field{"msg", hx(msg)}, field{"ct", hx(ct)}, field{"result", "valid"})
		if err := mustValid(scheme, o); err != nil {
			return nil, nil, err
		}
		return o, ct, nil
	}
	{
		base, ct, err := mk(r.bytes(16), r.bytes(16), r.block(), 2, r.bytes(3))
		if err != nil {
			return nil, err
		}
		n := negList{scheme, base, &vs}
		for bit := 0; bit < 8*len(ct); bit++ {
			n.add(fmt.Sprintf("flip-bit-%d", bit), field{"ct", hx(flipBitAt(ct, bit))})
		}
	}
	// 100 bytes: the length block and 7 padded blocks = four segments of
	// S = 2, each with its check block: y0 and 4 × 3 blocks.
	key, iv, msg := r.bytes(32), r.block(), r.bytes(100)
	base, ct, err := mk(key, nil, iv, 2, msg)
	if err != nil {
		return nil, err
	}
	if len(ct) != 16*13 {
		return nil, fmt.Errorf("unexpected pXCBC length %d", len(ct))
	}
	n := negList{scheme, base, &vs}
	xcbcStructural(n, ct)
	seg := func(s int) []byte { return ct[16+48*s : 16+48*(s+1)] } // segment s (from 0)
	head := ct[:16]
	n.add("last-segment-dropped", field{"ct", hx(cat(head, seg(0), seg(1), seg(2)))})
	n.add("first-segment-dropped", field{"ct", hx(cat(head, seg(1), seg(2), seg(3)))})
	n.add("segments-1-2-swapped", field{"ct", hx(cat(head, seg(0), seg(2), seg(1), seg(3)))})
	n.add("segments-0-1-swapped", field{"ct", hx(cat(head, seg(1), seg(0), seg(2), seg(3)))})
	n.add("segment-1-duplicated-over-2", field{"ct", hx(cat(head, seg(0), seg(1), seg(1), seg(3)))})
	n.add("last-segment-appended-again", field{"ct", hx(cat(ct, seg(3)))})
	n.add("check-blocks-of-segments-0-1-swapped", field{"ct", hx(swapBlocks(ct, 3, 6))})
	for _, S := range []int{1, 3, 4, 12} {
		n.add(fmt.Sprintf("opened-with-segment-blocks-%d", S), field{"segment_blocks", S})
	}
	_, ct2, err := mk(key, nil, r.block(), 2, msg)
	if err != nil {
		return nil, err
	}
	n.add("first-block-of-another-message", field{"ct", hx(cat(ct2[:16], ct[16:]))})
	n.add("segment-2-of-another-message", field{"ct", hx(cat(head, seg(0), seg(1), ct2[16+96:16+144], seg(3)))})
	n.add("first-block-plus-1", field{"ct", hx(cat(incBytes(head), ct[16:]))})
	_, ct3, err := mk(r.bytes(32), nil, iv, 2, msg)
	if err != nil {
		return nil, err
	}
	n.add("ct-of-another-key", field{"ct", hx(ct3)})
	key2 := r.bytes(32)
	base2, ct4, err := mk(key, key2, iv, 2, msg)
	if err != nil {
		return nil, err
	}
	n.add("ct-of-two-key-form-opened-one-key", field{"ct", hx(ct4)})
	n.addObj("ct-of-one-key-form-opened-two-key", base2.set("ct", hx(ct)))
	return vs, nil
}

// ---- XECB$-MAC / XECB-MAC ----

func negXecb(scheme string, stateful bool) ([]obj, error) {
	r := newDrbg("negative-" + scheme)
	var vs []obj
	mk := func(key []byte, iv block, msg []byte) (obj, []byte, error) {
		f, err := aes.NewCipher(key)
		if err != nil {
			return nil, nil, err
		}
		tag := xecbSign(f, stateful, iv, msg)
		o := obj{{"name", fmt.Sprintf("neg-%s-%dB-aes%d", scheme, len(msg), 8*len(key))}, {"key", hx(key)},
			{ivField(stateful), hx(iv[:])}, {"msg", hx(msg)}, {"tag", hx(tag)}, {"result", "valid"}}
		if err := mustValid(scheme, o); err != nil {
			return nil, nil, err
		}
		return o, tag, nil
	}
	{
		msg := r.bytes(3)
		base, tag, err := mk(r.bytes(16), r.block(), msg)
		if err != nil {
			return nil, err
		}
		n := negList{scheme, base, &vs}
		for bit := 0; bit < 8*len(msg); bit++ {
			n.add(fmt.Sprintf("msg-flip-bit-%d", bit), field{"msg", hx(flipBitAt(msg, bit))})
		}
		for bit := 0; bit < 8*len(tag); bit++ {
			n.add(fmt.Sprintf("tag-flip-bit-%d", bit), field{"tag", hx(flipBitAt(tag, bit))})
		}
	}
	key, iv, msg := r.bytes(32), r.block(), r.bytes(65)
	base, tag, err := mk(key, iv, msg)
	if err != nil {
		return nil, err
	}
	n := negList{scheme, base, &vs}
	for _, l := range truncLens(len(msg)) {
		n.add(fmt.Sprintf("msg-truncated-to-%dB", l), field{"msg", hx(msg[:l])})
	}
	n.add("msg-plus-0x80", field{"msg", hx(cat(msg, []byte{0x80}))})
	n.add("msg-plus-zero-byte", field{"msg", hx(cat(msg, []byte{0}))})
	n.add("msg-plus-zero-block", field{"msg", hx(cat(msg, make([]byte, 16)))})
	for _, p := range [][2]int{{0, 1}, {1, 2}, {0, 3}, {2, 3}} {
		n.add(fmt.Sprintf("msg-blocks-%d-%d-swapped", p[0], p[1]), field{"msg", hx(swapBlocks(msg, p[0], p[1]))})
	}
	for _, k := range []int{31, 16, 1, 0} {
		n.add(fmt.Sprintf("tag-truncated-to-%dB", k), field{"tag", hx(tag[:k])})
	}
	n.add("tag-plus-zero-byte", field{"tag", hx(cat(tag, []byte{0}))})
	n.add("tag-plus-zero-block", field{"tag", hx(cat(tag, make([]byte, 16)))})
	n.add("tag-halves-swapped", field{"tag", hx(cat(tag[16:], tag[:16]))})
	n.add("tag-zero", field{"tag", hx(make([]byte, 32))})
	n.add("head-plus-1", field{"tag", hx(cat(incBytes(tag[:16]), tag[16:]))})
	_, tag2, err := mk(key, r.block(), msg)
	if err != nil {
		return nil, err
	}
	n.add("head-of-another-tag", field{"tag", hx(cat(tag2[:16], tag[16:]))})
	n.add("w-of-another-tag", field{"tag", hx(cat(tag[:16], tag2[16:]))})
	_, tag3, err := mk(r.bytes(32), iv, msg)
	if err != nil {
		return nil, err
	}
	n.add("tag-of-another-key", field{"tag", hx(tag3)})
	_, tag4, err := mk(key[:16], iv, msg)
	if err != nil {
		return nil, err
	}
	n.add("tag-of-aes128-with-the-key-prefix", field{"tag", hx(tag4)})
	return vs, nil
}
