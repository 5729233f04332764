// Command refvectors is an independent Go reference of the blockmodes
// schemes, written only from the papers (shared/papers) and the spec
// (docs/spec). It checks the shared vectors (-check), writes long
// vectors (-write DIR) and negative vectors (-negative DIR).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	check := flag.Bool("check", false, "run every shared vector file of the schemes implemented here")
	vecDir := flag.String("vectors", "", "directory of the shared vectors (default: vectors/ at the repository root, the repository's copies)")
	write := flag.String("write", "", "write long vectors into DIR (vectors/independent/ layout)")
	negative := flag.String("negative", "", "write negative vectors into DIR (vectors/negative/ layout), each checked rejected by this reference")
	verbose := flag.Bool("v", false, "print every vector checked")
	flag.Parse()
	if !*check && *write == "" && *negative == "" {
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
	if *negative != "" {
		if err := writeNegative(*negative); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}

// defaultVectorDir is vectors/ at the repository root (the directory
// holding .git): the repository's copies of the shared vectors, so a clone
// checks on its own. Pass -vectors ../shared/vectors to check the originals.
func defaultVectorDir() string {
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return filepath.Join(d, "vectors")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, "vectors")
		}
	}
}
