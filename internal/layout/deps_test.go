package layout

import (
	"slices"
	"strings"
	"testing"
)

// extraBans tighten some pure packages (design.md's table says which
// packages are pure) beyond the rule every pure package keeps: no
// kernel-facing dependency, even through other packages, and no os/exec or
// syscall.
var extraBans = map[string][]string{
	// The run loop is a step function: it neither blocks, locks nor does
	// I/O (its own test also bans goroutines and reading the clock).
	"emu/runloop": {"os", "os/signal", "net", "sync", "context"},
	"tracefmt":    {"unsafe"},
	"pdcp":        {"os", "unsafe"}, // clock and I/O are injected
	// On the packet path of pdcp and the delay lines: arithmetic only.
	"internal/durhist": {"os", "unsafe", "sync", "fmt"},
}

// allowed loosens bannedDirect for a pure package that needs a system
// call os has no form for, touches no network object and builds
// everywhere; each entry says why.
var allowed = map[string][]string{
	// Opening a path the user named with the user's permissions under
	// sudo switches one thread's fsuid, fsgid and groups (setfsuid,
	// setfsgid, setgroups); off Linux it refuses. emu/results writes
	// through it.
	"internal/invoker": {"golang.org/x/sys/unix"},
}

// kernelFacing are the packages outside the module whose presence in a
// pure package's dependencies is a layering error; of the module's own
// packages, every one design.md does not call pure is.
var kernelFacing = []string{
	"github.com/vishvananda/netlink",
	"github.com/vishvananda/netns",
	"github.com/florianl/go-nfqueue",
	"github.com/google/nftables",
	"github.com/mdlayher/netlink",
	"github.com/mdlayher/genetlink",
}

// bannedDirect may not be imported by a pure package's own files.
var bannedDirect = []string{"os/exec", "syscall", "golang.org/x/sys/unix"}

// TestPurePackages checks design.md's pure packages with `go list`, so
// what counts is what the Go toolchain would build (for linux, where the
// kernel glue is).
func TestPurePackages(t *testing.T) {
	d := readDesign(t)
	var args []string
	for p, kind := range d.kind {
		if isPure(kind) {
			args = append(args, "./"+p)
		}
	}
	for _, m := range []map[string][]string{extraBans, allowed} {
		for p := range m {
			if !isPure(d.kind[p]) {
				t.Errorf("extra bans or allowances for %s, which design.md does not call pure", p)
			}
		}
	}
	slices.Sort(args)
	pkgs := goList(t, args...)
	for _, p := range pkgs {
		rel, _ := own(p.ImportPath)
		for _, imp := range p.Imports {
			banned := slices.Contains(bannedDirect, imp) && !slices.Contains(allowed[rel], imp)
			if banned || slices.Contains(extraBans[rel], imp) {
				t.Errorf("%s imports %s", rel, imp)
			}
		}
		for _, dep := range p.Deps {
			if mod, ok := own(dep); ok {
				if !isPure(d.kind[mod]) {
					t.Errorf("%s depends on %s, which design.md does not call pure", rel, mod)
				}
				continue
			}
			for _, k := range kernelFacing {
				if dep == k || strings.HasPrefix(dep, k+"/") {
					t.Errorf("%s depends on %s (kernel-facing)", rel, dep)
				}
			}
		}
	}
	if len(pkgs) != len(args) {
		t.Fatalf("go list described %d of %d packages", len(pkgs), len(args))
	}
}

// knowsConfig are the packages that may depend on emu/config: the ones
// that assemble a run or a sweep from it. Every other package of the
// module (links, delay lines, proxies, endpoints, capture, replay,
// results, analysis, …) takes what it needs as its own types, so it can
// be tested, and reused, without a configuration.
var knowsConfig = []string{"emu/config", "emu", "emu/network", "emu/sweep", "emu/sweep/sweeptest",
	"emu/study", "emu/study/paper", "emu/study/latency", "emu/study/satellite", "emu/study/cc", "emu/study/multipath", "emu/study/flowcontrol", "emu/study/studytest",
	"emu/reproduce", "cmd/emu", "cmd/emu/cli"}

// TestComponentsDoNotKnowTheConfiguration checks, with `go list`, that no
// package outside knowsConfig depends on emu/config, not even through
// another package.
func TestComponentsDoNotKnowTheConfiguration(t *testing.T) {
	const cfg = module + "emu/config"
	pkgs := goList(t, "./...")
	knows := map[string]bool{cfg: true} // imports through which a package knows it
	for _, p := range pkgs {
		knows[p.ImportPath] = knows[p.ImportPath] || slices.Contains(p.Deps, cfg)
	}
	for _, p := range pkgs {
		rel, _ := own(p.ImportPath)
		if slices.Contains(knowsConfig, rel) || !knows[p.ImportPath] {
			continue
		}
		var via []string
		for _, imp := range p.Imports {
			if knows[imp] {
				mod, _ := own(imp)
				via = append(via, mod)
			}
		}
		t.Errorf("%s depends on emu/config through %s: only %s may", rel, strings.Join(via, ", "), strings.Join(knowsConfig, ", "))
	}
}
