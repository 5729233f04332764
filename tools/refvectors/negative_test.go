package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNegativeSelfCheck writes the negative vectors and checks that every
// one is marked invalid and rejected by this reference (writeNegative does
// both), that every required scheme has at least minNegative of them, and
// that the same vectors marked valid fail the reference's check.
func TestNegativeSelfCheck(t *testing.T) {
	dir := t.TempDir()
	if err := writeNegative(dir); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"ocb1-aes", "pmac-aes", "cwc-aes", "xcbc-xor-aes", "xcbc-xor-ctr-aes",
		"pxcbc-xor-aes", "xecb-mac-aes", "xecb-mac-ctr-aes"} {
		path := filepath.Join(dir, s+".json")
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		p, q, err := checkFile(path, false)
		if err != nil || q != 0 || p < minNegative {
			t.Fatalf("%s: %d passed, %d failed, %v", s, p, q, err)
		}
	}
	// Marked valid, a flipped-bit vector must fail the check.
	for _, g := range negGenerators {
		vs, err := g.gen()
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range vs[:10] {
			if runOne(checkers[g.scheme], asVector(o.set("result", "valid"))) == nil {
				t.Errorf("%s: %v passes as valid", g.scheme, o.get("name"))
			}
		}
	}
}
