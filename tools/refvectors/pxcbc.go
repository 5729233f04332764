package main

// pXCBC$ and pXCBC (Gligor and Donescu 2000, section 4, "parallel or
// pipelined"), always with the XOR check, per spec/xcbc-xecb.md:
// blocks = length block ‖ 10*-padded message, cut into L segments of S
// blocks; segment s uses r0^(s) = r0 + s, z0^(s) = f'(r0^(s)) (one key:
// f(r0^(s) + 1)), z_i^(s) = f(x_i^(s) ⊕ z_{i-1}^(s)), y_i^(s) = z_i^(s) + i × r0^(s),
// and its own check block z0^(s) ⊕ x_1^(s) ⊕ ... ⊕ x_{n_s}^(s).

import (
	"encoding/binary"
	"errors"
)

func lengthBlock(n int) block {
	var b block
	binary.BigEndian.PutUint64(b[8:], uint64(n))
	return b
}

func pxcbcEncrypt(k *xcbcKeys, stateful bool, iv block, S int, msg []byte) ([]byte, error) {
	if S < 1 {
		return nil, errors.New("segment_blocks must be >= 1")
	}
	r0, head := iv, enc(k.f, iv)
	if stateful {
		r0, head = enc(k.f, iv), iv
	}
	x := append([]block{lengthBlock(len(msg))}, blocksOf(pad10(msg))...)
	out := append([]byte{}, head[:]...)
	for s := 1; len(x) > 0; s++ {
		n := S
		if len(x) < n {
			n = len(x)
		}
		r0s := addInt(r0, uint64(s)) // r0^(s) = r0 + s
		z0s := k.z0(r0s)
		out = append(out, bytesOf(k.chain(r0s, z0s, withCheck(z0s, x[:n])))...)
		x = x[n:]
	}
	return out, nil
}

func pxcbcDecrypt(k *xcbcKeys, stateful bool, S int, ct []byte) ([]byte, error) {
	if S < 1 || len(ct)%16 != 0 || len(ct) < 16*3 {
		return nil, errIntegrity
	}
	y := blocksOf(ct)
	r0 := dec(k.f, y[0])
	if stateful {
		r0 = enc(k.f, y[0])
	}
	y = y[1:]
	var x []block
	for s := 1; len(y) > 0; s++ {
		n := S + 1 // segment blocks plus its check block
		if len(y) < n {
			n = len(y)
		}
		if n < 2 {
			return nil, errIntegrity
		}
		r0s := addInt(r0, uint64(s))
		z0s := k.z0(r0s)
		xs, err := verifyCheck(z0s, k.unchain(r0s, z0s, y[:n]))
		if err != nil {
			return nil, err
		}
		x = append(x, xs...)
		y = y[n:]
	}
	if len(x) < 2 {
		return nil, errIntegrity
	}
	msg, err := unpad10(bytesOf(x[1:]))
	if err != nil || x[0] != lengthBlock(len(msg)) {
		return nil, errIntegrity
	}
	return msg, nil
}
