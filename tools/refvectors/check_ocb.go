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
		if p, err := ocbDecrypt(E, N, ct, tag); err == nil {
			return fmt.Errorf("invalid vector accepted, plaintext %x", p)
		}
		return nil
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
	T := pmac(E, v.hex("msg"), len(tag))
	if !v.valid() {
		if string(T) == string(tag) {
			return fmt.Errorf("invalid tag accepted")
		}
		return nil
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
		if p, err := cwcDecrypt(E, N, A, ct, tag); err == nil {
			return fmt.Errorf("invalid vector accepted, plaintext %x", p)
		}
		return nil
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
