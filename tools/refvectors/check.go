package main

// -check: run the reference over every vector file (spec/vectors.md format).

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

type vector map[string]interface{}

type vectorFile struct {
	Scheme  string   `json:"scheme"`
	Source  string   `json:"source"`
	Vectors []vector `json:"vectors"`
}

func (v vector) hex(k string) []byte {
	s, ok := v[k].(string)
	if !ok {
		panic(fmt.Sprintf("field %q missing", k))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(fmt.Sprintf("field %q: %v", k, err))
	}
	return b
}

func (v vector) has(k string) bool { _, ok := v[k]; return ok }

func (v vector) int(k string, def uint64) uint64 {
	f, ok := v[k].(float64)
	if !ok {
		return def
	}
	return uint64(f)
}

func (v vector) str(k string) string { s, _ := v[k].(string); return s }

func (v vector) valid() bool { return v.str("result") != "invalid" }

// checker returns nil when the vector is reproduced in every direction.
type checker func(v vector) error

var checkers = map[string]checker{
	"xex-aes":     checkXex,
	"eme-aes":     checkEme,
	"ste-xex-aes": checkSte,
	"ete-eme-aes": checkEte,
	"sectors-aes": checkSectors,
}

func checkDir(dir string, verbose bool) (int, int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return 0, 0, err
	}
	if len(files) == 0 {
		return 0, 0, fmt.Errorf("no vector files in %s", dir)
	}
	sort.Strings(files)
	passed, failed := 0, 0
	for _, f := range files {
		p, q, err := checkFile(f, verbose)
		if err != nil {
			return 0, 0, err
		}
		passed += p
		failed += q
	}
	return passed, failed, nil
}

func checkFile(path string, verbose bool) (int, int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var vf vectorFile
	if err := json.Unmarshal(raw, &vf); err != nil {
		return 0, 0, fmt.Errorf("%s: %v", path, err)
	}
	c, ok := checkers[vf.Scheme]
	if !ok {
		fmt.Printf("%s: scheme %s not implemented here, skipped\n", filepath.Base(path), vf.Scheme)
		return 0, 0, nil
	}
	passed, failed := 0, 0
	for _, v := range vf.Vectors {
		err := runOne(c, v)
		if err != nil {
			failed++
			fmt.Printf("FAIL %s: %s: %v\n", filepath.Base(path), v.str("name"), err)
		} else {
			passed++
			if verbose {
				fmt.Printf("ok   %s: %s\n", filepath.Base(path), v.str("name"))
			}
		}
	}
	return passed, failed, nil
}

func runOne(c checker, v vector) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return c(v)
}

func expectEq(what string, got, want []byte) error {
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s: got %x, want %x", what, got, want)
	}
	return nil
}

// both checks a deterministic permutation-like scheme in both directions.
func both(fwd, inv func([]byte) ([]byte, error), pt, ct []byte) error {
	c, err := fwd(pt)
	if err != nil {
		return err
	}
	if err := expectEq("encrypt", c, ct); err != nil {
		return err
	}
	p, err := inv(ct)
	if err != nil {
		return err
	}
	return expectEq("decrypt", p, pt)
}
