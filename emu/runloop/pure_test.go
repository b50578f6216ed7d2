package runloop

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPure keeps the package what its doc says: no kernel, process or
// network imports, no goroutines or locks, no clock and no sleeping
// outside tests, and the package doc in doc.go only.
func TestPure(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	bannedImports := []string{"os", "os/exec", "os/signal", "syscall", "net", "sync", "context",
		"golang.org/x/sys/", "github.com/vishvananda/", "github.com/florianl/", "github.com/google/nftables", "github.com/mdlayher/",
		"github.com/dc-emu/emu/emu", "github.com/dc-emu/emu/topo", "github.com/dc-emu/emu/emu/endpoint"}
	clock := map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
		"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range bannedImports {
				if path == b || strings.HasSuffix(b, "/") && strings.HasPrefix(path, b) {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: starts a goroutine", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && clock[n.Sel.Name] {
					t.Errorf("%s: reads the clock or waits (time.%s)", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
		if (f.Doc != nil) != (name == "doc.go") {
			t.Errorf("%s: the package doc belongs in doc.go only", name)
		}
	}
}

// TestMain fails the package when its tests take a second: with a fake
// clock they take milliseconds, and anything slower waits in real time.
func TestMain(m *testing.M) {
	start := time.Now()
	code := m.Run()
	if el := time.Since(start); code == 0 && el > time.Second {
		fmt.Fprintf(os.Stderr, "runloop tests took %v; they must not wait in real time\n", el)
		code = 1
	}
	os.Exit(code)
}
