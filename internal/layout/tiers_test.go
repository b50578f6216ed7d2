package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestTiers keeps the two tiers of tests apart (internal/emutest/tier.go,
// docs/testing.md): a function named TestFidelity… calls emutest.Fidelity,
// which keeps it out of the README's test command, and nothing but such a
// test or a benchmark calls it; TestFidelityLong… calls
// emutest.FidelityLong, the by-hand long tier. emutest.Fidelity is the only way to a
// HostWatch, so a test that judges a figure by the host's evidence is in
// tier 2 by construction, and a tier-2 test named otherwise, or a
// TestFidelity… that forgot the call and ran in tier 1, fails here.
func TestTiers(t *testing.T) {
	root := repoRoot(t)
	fset := token.NewFileSet()
	fidelity := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata" || d.Name() == "results") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			inEmutest := f.Name.Name == "emutest"
			calls := callsFidelity(fn.Body, inEmutest, "Fidelity")
			long := callsFidelity(fn.Body, inEmutest, "FidelityLong")
			// In a subtest the call would let the root test pass in
			// tier 1, its subtests skipped: counted as a pass there.
			if strings.HasPrefix(name, "TestFidelity") && (calls || long) && !topLevelCall(fn.Body, inEmutest) {
				t.Errorf("%s: %s calls emutest.Fidelity in a closure: call it in the test's own body, before any subtest", rel, name)
			}
			switch {
			case strings.HasPrefix(name, "TestFidelityLong") && fn.Recv == nil:
				fidelity++
				if !long {
					t.Errorf("%s: %s does not call emutest.FidelityLong: it would run in tier 2", rel, name)
				}
			case strings.HasPrefix(name, "TestFidelity") && fn.Recv == nil:
				fidelity++
				if !calls {
					t.Errorf("%s: %s does not call emutest.Fidelity: it would run, and judge its figure, in tier 1", rel, name)
				}
			case strings.HasPrefix(name, "Benchmark") && fn.Recv == nil:
			case calls || long:
				t.Errorf("%s: %s calls emutest.Fidelity: only TestFidelity… functions and benchmarks may (rename it, or pass the watch in)", rel, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fidelity == 0 {
		t.Error("no TestFidelity… functions found: the walk missed the tree")
	}
	t.Logf("%d fidelity tests", fidelity)
}

// topLevelCall says whether one of body's own statements (not a
// closure's) calls emutest.Fidelity or FidelityLong.
func topLevelCall(body *ast.BlockStmt, inEmutest bool) bool {
	for _, st := range body.List {
		var expr ast.Expr
		switch st := st.(type) {
		case *ast.ExprStmt:
			expr = st.X
		case *ast.AssignStmt:
			if len(st.Rhs) == 1 {
				expr = st.Rhs[0]
			}
		}
		call, ok := expr.(*ast.CallExpr)
		if !ok {
			continue
		}
		switch fun := call.Fun.(type) {
		case *ast.SelectorExpr:
			if x, ok := fun.X.(*ast.Ident); ok && x.Name == "emutest" && strings.HasPrefix(fun.Sel.Name, "Fidelity") {
				return true
			}
		case *ast.Ident:
			if inEmutest && strings.HasPrefix(fun.Name, "Fidelity") {
				return true
			}
		}
	}
	return false
}

// callsFidelity says whether body calls emutest's function fn (fn, in
// package emutest itself).
func callsFidelity(body *ast.BlockStmt, inEmutest bool, fn string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return !found
		}
		switch fun := call.Fun.(type) {
		case *ast.SelectorExpr:
			if x, ok := fun.X.(*ast.Ident); ok && x.Name == "emutest" && fun.Sel.Name == fn {
				found = true
			}
		case *ast.Ident:
			if inEmutest && fun.Name == fn {
				found = true
			}
		}
		return !found
	})
	return found
}
