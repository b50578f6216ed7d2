package tracefmt

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPure keeps tracefmt free of the kernel: it parses and computes only,
// so it builds anywhere and its parsers can be fuzzed.
func TestPure(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, banned := range []string{"syscall", "os/exec", "golang.org/x/sys", "netlink", "nfqueue", "nftables", "unsafe"} {
				if path == banned || strings.Contains(path, banned) {
					t.Errorf("%s imports %s; tracefmt must stay pure", f, path)
				}
			}
		}
	}
	if len(files) < 5 {
		t.Fatalf("found only %v", files)
	}
}
