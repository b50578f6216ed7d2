package cli

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// rootCommands are the commands that change the kernel's networking, so
// need root. A new such command must carry the annotation (needsRoot) and
// be added here.
var rootCommands = []string{
	"emu calibrate", "emu clean", "emu doctor", "emu down", "emu exec",
	"emu reproduce", "emu run", "emu sweep", "emu up",
}

func testRoot() *cobra.Command {
	var out bytes.Buffer
	return newRoot(&env{ctx: context.Background(), stdout: &out, stderr: &out})
}

// TestRootAnnotations checks that exactly the commands that need root
// carry the annotation main's sudo re-run and checkRoot read.
func TestRootAnnotations(t *testing.T) {
	var annotated []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if _, ok := c.Annotations[rootAnnotation]; ok {
			annotated = append(annotated, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(testRoot())
	slices.Sort(annotated)
	if !slices.Equal(annotated, rootCommands) {
		t.Errorf("commands annotated as needing root: %v\nwant %v", annotated, rootCommands)
	}
	// Every flag an annotation names exists and is boolean: a misspelt
	// one would never exempt a dry run.
	walk = func(c *cobra.Command) {
		for _, name := range strings.Split(c.Annotations[rootAnnotation], ",") {
			if name == "" {
				continue
			}
			if f := c.Flags().Lookup(name); f == nil || f.Value.Type() != "bool" {
				t.Errorf("%s: annotation names --%s, which is not a boolean flag of it", c.CommandPath(), name)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(testRoot())
}

// TestPrivileges checks what main re-runs through sudo (need), what it
// runs as the user behind sudo (User), and which command it names.
func TestPrivileges(t *testing.T) {
	for _, tc := range []struct {
		args []string
		path string
		need bool
	}{
		{[]string{"run"}, "emu run", true},
		{[]string{"run", "--trace", "none", "--set", "flow.duration=5s"}, "emu run", true},
		{[]string{"reproduce", "--presets", "sc-pairs"}, "emu reproduce", true},
		{[]string{"reproduce", "--dry-run"}, "emu reproduce", false},
		{[]string{"reproduce", "--dry-run=false"}, "emu reproduce", true},
		{[]string{"sweep", "--preset", "batch", "--repeat", "1"}, "emu sweep", true},
		{[]string{"sweep", "--list-presets"}, "emu sweep", false},
		{[]string{"sweep", "merge", "a", "b", "--out", "c"}, "emu sweep merge", false},
		{[]string{"up", "--trace", "none"}, "emu up", true},
		{[]string{"up", "--dry-run"}, "emu up", false},
		{[]string{"exec", "srv", "--", "ip", "addr"}, "emu exec", true},
		{[]string{"down", "--run", "abc"}, "emu down", true},
		{[]string{"calibrate", "--jobs", "2"}, "emu calibrate", true},
		{[]string{"clean", "--all"}, "emu clean", true},
		{[]string{"doctor", "--json"}, "emu doctor", true},
		{[]string{"analyze", "results/x"}, "emu analyze", false},
		{[]string{"trace", "info", "StaticA"}, "emu trace info", false},
		{[]string{"config"}, "emu config", false},
		{[]string{"run", "--no-such-flag"}, "emu run", false}, // a usage error, without sudo
		{[]string{"run", "--help"}, "emu run", false},
		{[]string{"no-such-command"}, "", false},
		{nil, "", false},
	} {
		want := User
		if tc.need {
			want = Root
		}
		if path, p := Privileges(tc.args); path != tc.path || p != want {
			t.Errorf("Privileges(%q) = %q, %v; want %q, %v", tc.args, path, p, tc.path, want)
		}
	}
	// The endpoints emu starts as root inside a node stay as they are.
	for _, args := range [][]string{{"endpoint", "server", "--listen", "127.0.0.1:0"}, {"endpoint", "client"}} {
		if _, p := Privileges(args); p != Internal {
			t.Errorf("Privileges(%q) = %v; want Internal", args, p)
		}
	}
}

// TestRootMessage checks that a command refused for want of root names
// itself (emu reproduce once named emu sweep), and that root is let in.
func TestRootMessage(t *testing.T) {
	root := testRoot()
	for _, path := range rootCommands {
		c, _, err := root.Find(strings.Fields(path)[1:])
		if err != nil {
			t.Fatal(err)
		}
		if err := checkRoot(c, 0); err != nil {
			t.Errorf("%s as root: %v", path, err)
		}
		err = checkRoot(c, 1000)
		sub := strings.TrimPrefix(path, "emu ")
		if err == nil || !strings.HasPrefix(err.Error(), path+" needs root") || !strings.Contains(err.Error(), " "+sub+" …") {
			t.Errorf("%s as uid 1000: %v; want it to start %q and name %q", path, err, path+" needs root", sub)
		}
	}
	c, _, _ := root.Find([]string{"analyze"})
	if err := checkRoot(c, 1000); err != nil {
		t.Errorf("emu analyze as uid 1000: %v", err)
	}
}
