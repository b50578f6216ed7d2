package emutest

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// EmuCommand is the import path of the emu command, which tests build to
// run endpoints as processes or the CLI itself.
const EmuCommand = "github.com/dc-emu/emu/cmd/emu"

// GoBuild builds the Go command pkg (an import path) into the file out,
// failing tb if it does not build.
func GoBuild(tb testing.TB, pkg, out string) {
	tb.Helper()
	if err := goBuild(pkg, out); err != nil {
		tb.Fatal(err)
	}
}

func goBuild(pkg, out string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	if b, err := exec.Command(goBin, "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// Binary is a Go command built on first use and shared by the tests of
// one test binary. The package's TestMain calls Remove after m.Run.
type Binary struct {
	Pkg string // the command's import path

	once sync.Once
	dir  string
	path string
	err  error
}

// Path builds the command the first time it is asked for and returns the
// executable's path; it fails tb if the command did not build.
func (b *Binary) Path(tb testing.TB) string {
	tb.Helper()
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "emutest-"+path.Base(b.Pkg)+"-")
		if b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, path.Base(b.Pkg))
		b.err = goBuild(b.Pkg, b.path)
	})
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

// Remove deletes what Path built.
func (b *Binary) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
