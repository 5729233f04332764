package main

// XECB$-MAC and XECB-MAC (Gligor and Donescu 2000, section 6) per
// spec/xcbc-xecb.md: always 10* padding,
//   y_i = f(x_i + i × r0),  w = r0 ⊕ y_1 ⊕ ... ⊕ y_n,
//   tag = y0 ‖ w with y0 = f(r0) (stateless) or ctr ‖ w with r0 = f(ctr).

import (
	"bytes"
	"crypto/cipher"
)

func xecbW(f cipher.Block, r0 block, msg []byte) block {
	w := r0
	for i, x := range blocksOf(pad10(msg)) {
		w = xorBlock(w, enc(f, addMul(x, uint64(i+1), r0)))
	}
	return w
}

func xecbSign(f cipher.Block, stateful bool, iv block, msg []byte) []byte {
	r0, head := iv, enc(f, iv)
	if stateful {
		r0, head = enc(f, iv), iv
	}
	w := xecbW(f, r0, msg)
	return append(head[:], w[:]...)
}

func xecbVerify(f cipher.Block, stateful bool, msg, tag []byte) error {
	if len(tag) != 32 {
		return errIntegrity
	}
	head := toBlock(tag[:16])
	r0 := dec(f, head) // r0 = f^-1(y0)
	if stateful {
		r0 = enc(f, head)
	}
	w := xecbW(f, r0, msg)
	if !bytes.Equal(w[:], tag[16:]) {
		return errIntegrity
	}
	return nil
}
