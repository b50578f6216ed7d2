package pdcp

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPure keeps the package pure (style.md §2.1): no kernel, process or
// syscall imports outside tests, and the package doc in doc.go only.
func TestPure(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := []string{"syscall", "os", "os/exec", "golang.org/x/sys", "github.com/vishvananda/", "github.com/florianl/", "github.com/google/nftables", "github.com/mdlayher/"}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range banned {
				if path == b || strings.HasSuffix(b, "/") && strings.HasPrefix(path, b) || strings.HasPrefix(path, b+"/") {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
		if (f.Doc != nil) != (name == "doc.go") {
			t.Errorf("%s: the package doc belongs in doc.go only", name)
		}
	}
}
