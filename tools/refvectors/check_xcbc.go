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
		m := s.m
		checkers[s.scheme] = func(v vector) error { return checkXcbc(v, m) }
	}
	checkers["pxcbc-xor-aes"] = func(v vector) error { return checkPxcbc(v, false) }
	checkers["pxcbc-xor-ctr-aes"] = func(v vector) error { return checkPxcbc(v, true) }
	checkers["xecb-mac-aes"] = func(v vector) error { return checkXecb(v, false) }
	checkers["xecb-mac-ctr-aes"] = func(v vector) error { return checkXecb(v, true) }
}

func vecKeys(v vector) (*xcbcKeys, error) {
	var key2 []byte
	if v.has("key2") {
		key2 = v.hex("key2")
	}
	return newXcbcKeys(v.hex("key"), key2)
}

func ivOf(v vector, stateful bool) block {
	if stateful {
		return toBlock(v.hex("ctr"))
	}
	return toBlock(v.hex("r0"))
}

// aeCheck: valid → encrypt gives ct and decrypt gives msg; invalid → decrypt rejects.
func aeCheck(v vector, encrypt func() ([]byte, error), decrypt func([]byte) ([]byte, error), ct []byte) error {
	if !v.valid() {
		if p, err := decrypt(ct); err == nil {
			return fmt.Errorf("invalid vector accepted, plaintext %x", p)
		}
		return nil
	}
	c, err := encrypt()
	if err != nil {
		return err
	}
	if err := expectEq("encrypt", c, ct); err != nil {
		return err
	}
	p, err := decrypt(ct)
	if err != nil {
		return fmt.Errorf("decrypt: %v", err)
	}
	return expectEq("decrypt", p, v.hex("msg"))
}

func checkXcbc(v vector, m xcbcMode) error {
	k, err := vecKeys(v)
	if err != nil {
		return err
	}
	return aeCheck(v,
		func() ([]byte, error) { return xcbcEncrypt(k, m, ivOf(v, m.stateful), v.hex("msg")), nil },
		func(c []byte) ([]byte, error) { return xcbcDecrypt(k, m, c) },
		v.hex("ct"))
}

func checkPxcbc(v vector, stateful bool) error {
	k, err := vecKeys(v)
	if err != nil {
		return err
	}
	S := int(v.int("segment_blocks", 0))
	return aeCheck(v,
		func() ([]byte, error) { return pxcbcEncrypt(k, stateful, ivOf(v, stateful), S, v.hex("msg")) },
		func(c []byte) ([]byte, error) { return pxcbcDecrypt(k, stateful, S, c) },
		v.hex("ct"))
}

func checkXecb(v vector, stateful bool) error {
	f, err := aes.NewCipher(v.hex("key"))
	if err != nil {
		return err
	}
	msg, tag := v.hex("msg"), v.hex("tag")
	verr := xecbVerify(f, stateful, msg, tag)
	if !v.valid() {
		if verr == nil {
			return fmt.Errorf("invalid tag accepted")
		}
		return nil
	}
	if err := expectEq("tag", xecbSign(f, stateful, ivOf(v, stateful), msg), tag); err != nil {
		return err
	}
	return verr
}
