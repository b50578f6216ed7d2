package layout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/dc-emu/emu/"

// pure lists the packages that must build and run anywhere (macOS
// included) and be testable without root: they may not depend, even
// through other packages, on anything that touches the kernel's networking,
// nor import os/exec or syscall themselves. Extra bans tighten a package
// further.
var pure = map[string][]string{
	"emu/config":  nil,
	"emu/results": nil,
	"emu/replay":  nil,
	// The run loop is a step function: it neither blocks, locks nor does
	// I/O (its own test also bans goroutines and reading the clock).
	"emu/runloop":   {"os", "os/signal", "net", "sync", "context"},
	"emu/findings":  nil,
	"emu/reproduce": nil,
	"emu/fidelity":  nil,
	"emu/linkstats": nil,
	"emu/sweep":     nil,
	"analysis":      nil,
	"tracefmt":      {"unsafe"},
	"traces":        nil,
	"pdcp":          {"os", "unsafe"}, // clock and I/O are injected
	// On the packet path of pdcp and the delay lines: arithmetic only.
	"internal/durhist": {"os", "unsafe", "sync", "fmt"},

	// The fake runner of sweep tests stands in for emu.Run: it must not
	// need what emu.Run needs.
	"emu/sweep/sweeptest": nil,
}

// kernelFacing are the packages whose presence in a pure package's
// dependencies is a layering error.
var kernelFacing = []string{
	"github.com/vishvananda/netlink",
	"github.com/vishvananda/netns",
	"github.com/florianl/go-nfqueue",
	"github.com/google/nftables",
	"github.com/mdlayher/netlink",
	"github.com/mdlayher/genetlink",
	module + "emu/internal/",
	module + "emu/link",
	module + "emu/dcproxy",
	module + "emu/host",
	module + "emu/runstate",
	module + "emu/endpoint",
	module + "emu/capture",
	module + "topo",
	module + "internal/nsthread",
}

// bannedDirect may not be imported by a pure package's own files.
var bannedDirect = []string{"os/exec", "syscall", "golang.org/x/sys/unix"}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// TestPurePackages checks the table above with `go list`, so what counts is
// what the Go toolchain would build (for linux, where the kernel glue is).
func TestPurePackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command on PATH")
	}
	var args []string
	for p := range pure {
		args = append(args, module+p)
	}
	slices.Sort(args)
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps"}, args...)...)
	cmd.Env = append(cmd.Environ(), "GOOS=linux")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bufio.NewReader(bytes.NewReader(out)))
	seen := 0
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		seen++
		rel := strings.TrimPrefix(p.ImportPath, module)
		for _, imp := range p.Imports {
			if slices.Contains(bannedDirect, imp) || slices.Contains(pure[rel], imp) {
				t.Errorf("%s imports %s", rel, imp)
			}
		}
		for _, dep := range p.Deps {
			for _, k := range kernelFacing {
				if dep == k || strings.HasPrefix(dep, k) && (strings.HasSuffix(k, "/") || strings.HasPrefix(dep, k+"/")) {
					t.Errorf("%s depends on %s (kernel-facing)", rel, dep)
				}
			}
		}
	}
	if seen != len(pure) {
		t.Fatalf("go list described %d of %d packages", seen, len(pure))
	}
}
