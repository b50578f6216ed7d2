package layout

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// mdPath is a cited document: docs/results.md, metrics.md §5,
	// traces/PROVENANCE.md.
	mdPath = regexp.MustCompile(`(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.md\b`)
	// goFile is a Go file a Markdown document names by its path from the
	// repository root: `emu/datapath_linux.go`.
	goFile = regexp.MustCompile("`((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\\.go)`")
	// url is left out of the citations: a page elsewhere is not a file here.
	url = regexp.MustCompile(`[a-z]+://\S+`)
)

// TestCitedDocsExist: every Markdown document named in a Go comment or in
// one of the repository's own Markdown files is in the repository, so that
// what the code points a reader to can be read from a clone; so is every
// Go file a Markdown document names by its path (`emu/datapath_linux.go`). A path is
// looked for relative to the citing file, to the repository root and to
// docs/ (comments say "metrics.md §5" for docs/metrics.md); a bare name
// may also be a document of that name anywhere in the repository
// ("PROVENANCE.md" beside "the shipped traces"). A path that leads out of
// the repository does not count.
func TestCitedDocsExist(t *testing.T) {
	root := repoRoot(t)
	type cite struct{ file, ref string }
	var cites, goCites []cite
	docs := map[string]bool{} // base names of the repository's .md files
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		var texts []string
		switch filepath.Ext(path) {
		case ".go":
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			for _, c := range f.Comments {
				texts = append(texts, c.Text())
			}
		case ".md":
			docs[d.Name()] = true
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			texts = append(texts, string(b))
			for _, m := range goFile.FindAllStringSubmatch(string(b), -1) {
				goCites = append(goCites, cite{path, m[1]})
			}
		}
		for _, text := range texts {
			for _, ref := range mdPath.FindAllString(url.ReplaceAllString(text, ""), -1) {
				cites = append(cites, cite{path, ref})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cites) == 0 {
		t.Fatal("found no citation at all: the pattern is broken")
	}
	inRepo := func(p string) bool {
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return false
		}
		_, err = os.Stat(p)
		return err == nil
	}
	for _, c := range goCites {
		if !inRepo(filepath.Join(root, filepath.FromSlash(c.ref))) {
			rel, _ := filepath.Rel(root, c.file)
			t.Errorf("%s names %s, which is not in the repository", rel, c.ref)
		}
	}
	for _, c := range cites {
		found := !strings.Contains(c.ref, "/") && docs[c.ref]
		for _, dir := range []string{filepath.Dir(c.file), root, filepath.Join(root, "docs")} {
			found = found || inRepo(filepath.Join(dir, filepath.FromSlash(c.ref)))
		}
		if !found {
			rel, _ := filepath.Rel(root, c.file)
			t.Errorf("%s cites %s, which is not in the repository", rel, c.ref)
		}
	}
}
