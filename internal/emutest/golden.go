package emutest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden compares got with the file testdata/name of the calling test's
// package. With EMU_GOLDEN_UPDATE=1 in the environment it rewrites the file
// first, so a deliberate change to an output is one command and a reviewed
// diff. A mismatch names the file, shows the first lines that differ and
// the command that rewrites it.
func Golden(tb testing.TB, name string, got []byte) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("EMU_GOLDEN_UPDATE") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	pkg := packageDir()
	test, _, _ := strings.Cut(tb.Name(), "/")
	update := fmt.Sprintf("EMU_GOLDEN_UPDATE=1 go test %s -run '^%s$'", pkg, test)
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (%s writes it)", err, update)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("output differs from golden file %s:\n%s\nif the change is intended: %s, then review git diff %s",
			path, lineDiff(want, got), update, filepath.ToSlash(filepath.Join(pkg, path)))
	}
}

// packageDir is the calling test's package directory relative to the
// module's root, as go test takes it ("./cmd/emu/cli"), or "." when the
// root is not found.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}

// lineDiff says where got departs from want: the line number, the line
// before and the lines that differ up to where both agree again from the
// end, at most diffLines of each (- golden, + got).
func lineDiff(want, got []byte) string {
	const diffLines, maxLine = 8, 160
	w, g := strings.SplitAfter(string(want), "\n"), strings.SplitAfter(string(got), "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	ew, eg := len(w), len(g)
	for ew > i && eg > i && w[ew-1] == g[eg-1] {
		ew, eg = ew-1, eg-1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d (golden: %d bytes, %d lines; got: %d bytes, %d lines)\n",
		i+1, len(want), bytes.Count(want, []byte("\n")), len(got), bytes.Count(got, []byte("\n")))
	line := func(mark string, lines []string, j int) {
		l := strings.TrimSuffix(lines[j], "\n")
		if len(l) > maxLine {
			l = l[:maxLine] + "…"
		}
		fmt.Fprintf(&b, "%s%6d  %s\n", mark, j+1, l)
	}
	if i > 0 {
		line(" ", w, i-1)
	}
	for _, side := range []struct {
		mark  string
		lines []string
		end   int
	}{{"-", w, ew}, {"+", g, eg}} {
		for j := i; j < side.end && j < i+diffLines; j++ {
			line(side.mark, side.lines, j)
		}
		if side.end-i > diffLines {
			fmt.Fprintf(&b, "%s  … %d more lines differ\n", side.mark, side.end-i-diffLines)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
