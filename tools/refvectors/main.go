// Command refvectors is an independent Go reference of the blockmodes
// schemes, written only from the papers (shared/papers) and the spec
// (shared/spec). It checks the shared vectors (-check) and writes long
// vectors (-write DIR).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	check := flag.Bool("check", false, "run every shared vector file of the schemes implemented here")
	vecDir := flag.String("vectors", "", "shared vectors directory (default ../shared/vectors relative to the repo root)")
	write := flag.String("write", "", "write long vectors into DIR (vectors/independent/ layout)")
	verbose := flag.Bool("v", false, "print every vector checked")
	flag.Parse()
	if !*check && *write == "" {
		flag.Usage()
		os.Exit(2)
	}
	if *check {
		dir := *vecDir
		if dir == "" {
			dir = defaultVectorDir()
		}
		passed, failed, err := checkDir(dir, *verbose)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Printf("%d passed, %d failed\n", passed, failed)
		if failed > 0 {
			os.Exit(1)
		}
	}
	if *write != "" {
		if err := writeAll(*write); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}

// defaultVectorDir is ../shared/vectors relative to the repository root
// (the directory holding .git). In a git worktree whose root has no
// ../shared beside it, the main checkout's ../shared/vectors is used.
func defaultVectorDir() string {
	wd, _ := os.Getwd()
	root := ""
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, "..", "shared", "vectors")
		}
	}
	dir := filepath.Join(root, "..", "shared", "vectors")
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	// worktree: .git is a file "gitdir: MAIN/.git/worktrees/NAME"
	if raw, err := os.ReadFile(filepath.Join(root, ".git")); err == nil {
		s := strings.TrimSpace(strings.TrimPrefix(string(raw), "gitdir:"))
		if i := strings.Index(s, string(filepath.Separator)+".git"+string(filepath.Separator)); i >= 0 {
			main := filepath.Join(s[:i], "..", "shared", "vectors")
			if _, err := os.Stat(main); err == nil {
				return main
			}
		}
	}
	return dir
}
