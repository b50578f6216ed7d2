package layout

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// design is what docs/design.md's Layout section says about the
// module's packages, read from its two tables.
type design struct {
	// kind is each package's kind column: pure, kernel, sockets, CLI,
	// tests or "tests (pure)".
	kind map[string]string
	// pureImports is, for each pure package, every package of the module
	// it imports (the second table).
	pureImports map[string][]string
	// order is the package table's packages in the order they appear, for
	// messages; dup lists names that appear twice.
	order, dup []string
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// readDesign parses the package table (header "| package | job | kind |")
// and the pure imports table (header "| pure package | imports of the
// module |") of docs/design.md. In the package table a cell may name
// several packages; a name without a slash after one with a slash is a
// sibling of the latter (`emu/internal/nfq`, `nft` names emu/internal/nft).
func readDesign(t *testing.T) design {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	d := design{kind: map[string]string{}, pureImports: map[string][]string{}}
	pkgRows := tableRows(t, string(b), "| package | job | kind |")
	for _, cells := range pkgRows {
		if len(cells) != 3 {
			t.Fatalf("design.md package table: row %q has %d cells, want 3", cells, len(cells))
		}
		dir := ""
		for _, m := range backquoted.FindAllStringSubmatch(cells[0], -1) {
			name := m[1]
			if i := strings.LastIndex(name, "/"); i >= 0 {
				dir = name[:i+1]
			} else {
				name = dir + name
			}
			if _, seen := d.kind[name]; seen {
				d.dup = append(d.dup, name)
			}
			d.kind[name] = cells[2]
			d.order = append(d.order, name)
		}
	}
	for _, cells := range tableRows(t, string(b), "| pure package | imports of the module |") {
		names := backquoted.FindAllStringSubmatch(cells[0], -1)
		if len(cells) != 2 || len(names) != 1 {
			t.Fatalf("design.md pure imports table: row %q wants one package and its imports", cells)
		}
		var imps []string
		for _, m := range backquoted.FindAllStringSubmatch(cells[1], -1) {
			imps = append(imps, m[1])
		}
		d.pureImports[names[0][1]] = imps
	}
	return d
}

// tableRows returns the cells of the rows of the Markdown table whose
// header line is header, the separator line left out.
func tableRows(t *testing.T, doc, header string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+header+"\n")
	if !ok {
		t.Fatalf("design.md has no table headed %q", header)
	}
	var rows [][]string
	for i, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i == 0 {
			continue // |---|---|
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("design.md: the table headed %q is empty", header)
	}
	return rows
}

// isPure and isTestHelper read the kind column.
func isPure(kind string) bool       { return kind == "pure" || strings.HasSuffix(kind, "(pure)") }
func isTestHelper(kind string) bool { return strings.HasPrefix(kind, "tests") }

// rank orders the kinds for the import rule: a package imports only
// packages of its rank or below.
func rank(kind string) int {
	switch {
	case isPure(kind):
		return 0
	case kind == "kernel" || kind == "sockets" || kind == "tests":
		return 1
	case kind == "CLI":
		return 2
	}
	return -1
}

// TestDesignTable: design.md's package table names every package of the
// module once, and nothing else, each with a kind the rules know.
func TestDesignTable(t *testing.T) {
	d := readDesign(t)
	for _, n := range d.dup {
		t.Errorf("design.md lists %s twice", n)
	}
	real := map[string]bool{}
	for _, p := range goList(t, "./...") {
		rel, _ := own(p.ImportPath)
		real[rel] = true
		if _, ok := d.kind[rel]; !ok {
			t.Errorf("package %s is not in design.md's package table", rel)
		}
	}
	for _, n := range d.order {
		if !real[n] {
			t.Errorf("design.md's package table lists %s, which is not a package of the module", n)
		}
		if rank(d.kind[n]) < 0 {
			t.Errorf("design.md: %s has kind %q (want pure, kernel, sockets, CLI, tests or tests (pure))", n, d.kind[n])
		}
	}
}

// TestImportRules checks the rules design.md states under "Who may
// import whom" against the imports `go list` reports for the non-test
// files of every package.
func TestImportRules(t *testing.T) {
	d := readDesign(t)
	// importedOnlyBy is the rule stated in prose for the top of the tree.
	importedOnlyBy := map[string]string{"emu": "cmd/emu/cli", "cmd/emu/cli": "cmd/emu", "cmd/emu": ""}
	for n, by := range importedOnlyBy {
		if _, ok := d.kind[n]; !ok || by != "" && d.kind[by] == "" {
			t.Errorf("the rule \"%s is imported only by %s\" names a package not in design.md's table", n, by)
		}
	}
	for n := range d.pureImports {
		if !isPure(d.kind[n]) {
			t.Errorf("design.md's pure imports table has a row for %s, whose kind is %q", n, d.kind[n])
		}
	}
	for _, p := range goList(t, "./...") {
		rel, _ := own(p.ImportPath)
		kind, ok := d.kind[rel]
		if !ok {
			continue // TestDesignTable says so
		}
		var mine []string
		for _, imp := range p.Imports {
			dep, ok := own(imp)
			if !ok {
				continue
			}
			mine = append(mine, dep)
			depKind := d.kind[dep]
			if rank(depKind) > rank(kind) {
				t.Errorf("%s (%s) imports %s (%s): a package imports only its own kind or below", rel, kind, dep, depKind)
			}
			if isTestHelper(depKind) && !isTestHelper(kind) {
				t.Errorf("%s imports the test helper %s outside its tests", rel, dep)
			}
			if by, ruled := importedOnlyBy[dep]; ruled && by != rel {
				who := "only " + by
				if by == "" {
					who = "nothing"
				}
				t.Errorf("%s imports %s, which design.md says %s imports", rel, dep, who)
			}
		}
		if !isPure(kind) {
			continue
		}
		want, ok := d.pureImports[rel]
		if !ok {
			t.Errorf("pure package %s has no row in design.md's pure imports table (it imports %s)", rel, orNothing(strings.Join(mine, ", ")))
			continue
		}
		slices.Sort(mine)
		slices.Sort(want)
		if !slices.Equal(mine, want) {
			t.Errorf("design.md says %s imports %s; it imports %s", rel, orNothing(strings.Join(want, ", ")), orNothing(strings.Join(mine, ", ")))
		}
	}
}

func orNothing(s string) string {
	if s == "" {
		return "nothing of the module"
	}
	return s
}
