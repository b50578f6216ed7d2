package runloop

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
	"time"
)

// TestNoClockNoGoroutines keeps the package what its doc says: outside
// tests it starts no goroutine, reads no clock and never waits. What it may
// import is internal/layout's table.
func TestNoClockNoGoroutines(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	clock := map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
		"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
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
