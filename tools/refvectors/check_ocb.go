package main

import (
	"crypto/aes"
	"fmt"
)

func init() {
	checkers["ocb1-aes"] = checkOcb
	checkers["pmac-aes"] = checkPmac
	checkers["cwc-aes"] = checkCwc
}

func checkOcb(v vector) error {
	E, err := aes.NewCipher(v.hex("key"))
	if err != nil {
		return err
	}
	N, msg, ct, tag := toBlock(v.hex("nonce")), v.hex("msg"), v.hex("ct"), v.hex("tag")
	if !v.valid() {
		c, t, ok := receiverSplit(v, ct, tag, 16)
		if !ok {
			return nil // no ciphertext of this length: rejected
		}
		if p, err := ocbDecrypt(E, N, c, t); err == nil {
			return fmt.Errorf("invalid vector accepted, plaintext %x", p)
		}
		return nil
	}
	if err := tagSizeMatches(v, tag); err != nil {
		return err
	}
	C, T := ocbEncrypt(E, N, msg, len(tag))
	if err := expectEq("ct", C, ct); err != nil {
		return err
	}
	if err := expectEq("tag", T, tag); err != nil {
		return err
	}
	M, err := ocbDecrypt(E, N, ct, tag)
	if err != nil {
		return fmt.Errorf("decrypt: %v", err)
	}
	return expectEq("decrypt", M, msg)
}

func checkPmac(v vector) error {
	E, err := aes.NewCipher(v.hex("key"))
	if err != nil {
		return err
	}
	tag := v.hex("tag")
	tau := tagSize(v, tag)
	if tau < 1 || tau > 16 {
		if v.valid() {
			return fmt.Errorf("tag size %d outside 1..16", tau)
		}
		return nil
	}
	T := pmac(E, v.hex("msg"), tau)
	if !v.valid() {
		if string(T) == string(tag) {
			return fmt.Errorf("invalid tag accepted")
		}
		return nil
	}
	if err := tagSizeMatches(v, tag); err != nil {
		return err
	}
	return expectEq("tag", T, tag)
}

func checkCwc(v vector) error {
	E, err := aes.NewCipher(v.hex("key"))
	if err != nil {
		return err
	}
	N, A, msg, ct, tag := v.hex("nonce"), v.hex("ad"), v.hex("msg"), v.hex("ct"), v.hex("tag")
	if len(N) != 11 {
		return fmt.Errorf("nonce must be 11 bytes")
	}
	if !v.valid() {
		c, t, ok := receiverSplit(v, ct, tag, 16)
		if !ok {
			return nil // no ciphertext of this length: rejected
		}
		if p, err := cwcDecrypt(E, N, A, c, t); err == nil {
			return fmt.Errorf("invalid vector accepted, plaintext %x", p)
		}
		return nil
	}
	if err := tagSizeMatches(v, tag); err != nil {
		return err
	}
	// intermediate values, where present
	if v.has("hash_key") {
		var hk block
		cwcHashKey(E).FillBytes(hk[:])
		if err := expectEq("hash_key", hk[:], v.hex("hash_key")); err != nil {
			return err
		}
	}
	hv := cwcHash(cwcHashKey(E), A, ct)
	if v.has("hash_value") {
		if err := expectEq("hash_value", hv[:], v.hex("hash_value")); err != nil {
			return err
		}
	}
	if v.has("aes_hval") {
		e := enc(E, hv)
		if err := expectEq("aes_hval", e[:], v.hex("aes_hval")); err != nil {
			return err
		}
	}
	mcpt := cwcCtrBlock(N, 0)
	if v.has("mac_ctr_pt") {
		if err := expectEq("mac_ctr_pt", mcpt[:], v.hex("mac_ctr_pt")); err != nil {
			return err
		}
	}
	if v.has("aes_mcpt") {
		e := enc(E, mcpt)
		if err := expectEq("aes_mcpt", e[:], v.hex("aes_mcpt")); err != nil {
			return err
		}
	}
	C, T := cwcEncrypt(E, N, A, msg, len(tag))
	if err := expectEq("ct", C, ct); err != nil {
		return err
	}
	if err := expectEq("tag", T, tag); err != nil {
		return err
	}
	M, err := cwcDecrypt(E, N, A, ct, tag)
	if err != nil {
		return fmt.Errorf("decrypt: %v", err)
	}
	return expectEq("decrypt", M, msg)
}

// tagSize is the tag length the receiver expects: the optional `tag_size`
// field, else len(tag) (docs/spec/vectors.md).
func tagSize(v vector, tag []byte) int {
	if v.has("tag_size") {
		return int(v.int("tag_size", 0))
	}
	return len(tag)
}

// tagSizeMatches: a valid vector's `tag_size`, if given, is len(tag).
func tagSizeMatches(v vector, tag []byte) error {
	if tau := tagSize(v, tag); tau != len(tag) {
		return fmt.Errorf("valid vector with tag_size %d and a %d-byte tag", tau, len(tag))
	}
	return nil
}

// receiverSplit is what an AEAD receiver sees: the string ct ‖ tag, whose
// last tag_size bytes are the tag. ok is false when no ciphertext has that
// shape (tag_size outside 1..maxTag, or the string shorter than the tag).
func receiverSplit(v vector, ct, tag []byte, maxTag int) (c, t []byte, ok bool) {
	tau := tagSize(v, tag)
	sealed := append(append([]byte{}, ct...), tag...)
	if tau < 1 || tau > maxTag || len(sealed) < tau {
		return nil, nil, false
	}
	return sealed[:len(sealed)-tau], sealed[len(sealed)-tau:], true
}
