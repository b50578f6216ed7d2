package layout

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasOneDoc: each package of the module says what it is
// for in exactly one file (a doc.go by convention), so `go doc` shows it and
// nobody has to guess which file holds it.
func TestEveryPackageHasOneDoc(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(root, func(dir string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") && dir != root {
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			return nil
		}
		for name, pkg := range pkgs {
			var docs []string
			for file, f := range pkg.Files {
				if f.Doc != nil {
					docs = append(docs, filepath.Base(file))
				}
			}
			rel, _ := filepath.Rel(root, dir)
			switch {
			case len(docs) == 0:
				t.Errorf("package %s (%s) has no package doc comment", name, rel)
			case len(docs) > 1:
				t.Errorf("package %s (%s) has package docs in several files: %v", name, rel, docs)
			}
		}
		return nil
	})
}
