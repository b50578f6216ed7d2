package layout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/dc-emu/emu/"

// listed is one package as `go list -json` describes it, with the
// module's own packages named relative to the module (emu/sweep, pdcp).
type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// repoRoot is the module's directory: this package lives two below it.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goList describes the packages that patterns name, as the Go toolchain
// builds them for linux (where the kernel glue is), so that what the tests
// check is what is compiled, not what a hand-kept list says.
func goList(t *testing.T, patterns ...string) []listed {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command on PATH")
	}
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps"}, patterns...)...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(cmd.Environ(), "GOOS=linux")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(patterns, " "), err)
	}
	var pkgs []listed
	dec := json.NewDecoder(bufio.NewReader(bytes.NewReader(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// own returns the module-relative name of a package of the module, and
// whether p is one.
func own(p string) (string, bool) {
	if rel, ok := strings.CutPrefix(p, module); ok {
		return rel, true
	}
	return "", false
}
