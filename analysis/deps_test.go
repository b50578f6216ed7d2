package analysis

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPureImports keeps the package free of the kernel: analysis must build
// and run anywhere `emu analyze` does (style.md §2.1).
func TestPureImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := []string{"os/exec", "syscall", "golang.org/x/sys", "github.com/vishvananda/", "github.com/florianl/go-nfqueue", "github.com/google/nftables"}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range banned {
				if path == b || strings.HasPrefix(path, b) {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
}
