package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/internal/invoker"
)

// Which commands need root is said once, by an annotation on each command:
// main's re-run through sudo (Privileges) and the refusal before a command
// runs without root (checkRoot) both read it, so the two cannot disagree,
// and a new command that changes the kernel's networking is re-run through
// sudo as soon as it says so.

// rootAnnotation marks a command that needs root. Its value lists the
// boolean flags that, when set, make the command need none (a dry run, a
// listing), separated by commas.
const rootAnnotation = "emu.needs-root"

// needsRoot is the Annotations of a command that needs root unless one of
// the flags named is set.
func needsRoot(unless ...string) map[string]string {
	return map[string]string{rootAnnotation: strings.Join(unless, ",")}
}

// rootNeeded reports whether c, with the flags it has parsed, needs root.
func rootNeeded(c *cobra.Command) bool {
	unless, ok := c.Annotations[rootAnnotation]
	if !ok {
		return false
	}
	for _, name := range strings.Split(unless, ",") {
		if f := c.Flags().Lookup(name); name != "" && f != nil && f.Value.String() == "true" {
			return false
		}
	}
	return true
}

// checkRoot fails, naming the command, when c needs root and euid is not
// root: emu was not re-run through sudo (no sudo, EMU_NO_SUDO set).
func checkRoot(c *cobra.Command, euid int) error {
	if euid == 0 || !rootNeeded(c) {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "emu"
	}
	sub := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	return fmt.Errorf("%s needs root (network namespaces, qdiscs, NFQUEUE); run: sudo %s %s …", c.CommandPath(), exe, sub)
}

// userOut makes the output directory a command that runs as root was
// given (or its default under the working directory) as the user behind
// sudo, and fails unless that user may write there: root writes results
// only where the user could have.
func userOut(dir string) error {
	if err := invoker.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// Privilege is what a command needs of root.
type Privilege int

const (
	// User commands (analyze, trace, config, sweep merge, …) do the
	// user's own work: run through sudo all the same, emu becomes the user
	// behind sudo before it runs them.
	User Privilege = iota
	// Root commands change the kernel's networking (their annotation):
	// emu runs them through sudo for a user.
	Root
	// Internal commands (hidden: the endpoints) are started by emu itself,
	// as root inside a node, and keep what they were started with.
	Internal
)

// Privileges returns the path of the command that args (without the
// program name) run ("emu reproduce", for messages) and what it needs of
// root. Arguments that do not parse make a User command: it reports them
// as a usage error, without a password prompt first.
func Privileges(args []string) (path string, p Privilege) {
	root := newRoot(&env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard})
	c, rest, err := root.Find(args)
	if err != nil || c == root {
		return "", User
	}
	for h := c; h != nil; h = h.Parent() {
		if h.Hidden {
			return c.CommandPath(), Internal
		}
	}
	if err := c.ParseFlags(rest); err != nil || !rootNeeded(c) {
		return c.CommandPath(), User
	}
	return c.CommandPath(), Root
}
