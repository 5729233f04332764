package main

// -write DIR: long vectors in the shared format (spec/vectors.md), one
// file per scheme, and the sector file of README.md.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// field / obj: a JSON object that keeps its field order.
type field struct {
	k string
	v interface{}
}
type obj []field

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(f.k)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func hx(b []byte) string { return hex.EncodeToString(b) }

const sourcePrefix = "independent Go reference, tools/refvectors (written only from shared/papers and shared/spec; deterministic pseudo-random inputs from AES-128-CTR under a fixed seed)"

type generator struct {
	file   string // path under DIR
	scheme string
	source string // appended to sourcePrefix
	gen    func() ([]obj, error)
}

var generators []generator

func register(g generator) { generators = append(generators, g) }

// writeFile writes {"scheme", "source", "vectors"} with one vector per line.
func writeFile(path, scheme, source string, vs []obj) error {
	var b bytes.Buffer
	s, _ := json.Marshal(scheme)
	src, _ := json.Marshal(source)
	fmt.Fprintf(&b, "{\n  \"scheme\": %s,\n  \"source\": %s,\n  \"vectors\": [\n", s, src)
	for i, v := range vs {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.WriteString("    ")
		b.Write(line)
		if i+1 < len(vs) {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func writeAll(dir string) error {
	for _, g := range generators {
		vs, err := g.gen()
		if err != nil {
			return fmt.Errorf("%s: %v", g.scheme, err)
		}
		src := sourcePrefix
		if g.source != "" {
			src += "; " + g.source
		}
		path := filepath.Join(dir, g.file)
		if err := writeFile(path, g.scheme, src, vs); err != nil {
			return err
		}
		// Every written file must pass this program's own -check.
		if _, ok := checkers[g.scheme]; ok {
			p, q, err := checkFile(path, false)
			if err != nil {
				return err
			}
			if q > 0 {
				return fmt.Errorf("%s: %d of %d written vectors fail -check", path, q, p+q)
			}
		}
	}
	return nil
}

// flipBit returns a copy of b with bit (byte idx, bit 0) flipped.
func flipBit(b []byte, idx int) []byte {
	c := append([]byte{}, b...)
	c[idx] ^= 0x01
	return c
}
