package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestNetworkMethodsDocumented: design.md's list of the methods a run
// uses of the network ("through its exported methods (…)") names exactly
// the exported methods of emu/network's Emulation, so a method added to
// the network's surface is added to the design too.
func TestNetworkMethodsDocumented(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	m := regexp.MustCompile(`through its exported methods \(([^)]*)\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal(`design.md has no "through its exported methods (…)" list`)
	}
	var documented []string
	for _, n := range regexp.MustCompile("`([A-Za-z]+)`").FindAllStringSubmatch(m[1], -1) {
		documented = append(documented, n[1])
	}
	var methods []string
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(root, "emu", "network", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Emulation" && !slices.Contains(methods, fd.Name.Name) {
					methods = append(methods, fd.Name.Name)
				}
			}
		}
	}
	slices.Sort(methods)
	slices.Sort(documented)
	if !slices.Equal(methods, documented) {
		t.Errorf("design.md lists the network's methods %v; emu/network's Emulation has %v", documented, methods)
	}
}
