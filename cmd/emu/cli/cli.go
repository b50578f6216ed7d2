package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/study"
	"github.com/dc-emu/emu/emu/sweep"
)

// env is what every subcommand needs from its caller: where to write and
// the context that Ctrl-C cancels. Tests build one around buffers.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	// studies are the presets' studies (nil: emu's own, study.All); a
	// test adds its own to see one run through the commands.
	studies sweep.Catalog
}

// catalog is the studies the sweep commands offer.
func (e *env) catalog() sweep.Catalog {
	if e.studies == nil {
		return study.All()
	}
	return e.studies
}

// usageError marks errors in how emu was called (exit status 2), as opposed
// to errors while doing the work (exit status 1).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// outStamp is the current UTC time as the default output directories of
// run, sweep, reproduce and calibrate under results/ carry it in their
// names (20261201T121500Z), so that those of one command sort by when
// they were started.
func outStamp() string { return time.Now().UTC().Format("20060102T150405Z") }

// printJSON writes v as the --json output of a command: indented, so that
// it reads in a terminal as well as in jq.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// commands lists the subcommand constructors; each lives in its own file.
var commands = []func(*env) *cobra.Command{
	newVersionCmd,
	newConfigCmd,
	newDoctorCmd,
	newCleanCmd,
	newUpCmd,
	newExecCmd,
	newAddrCmd,
	newDownCmd,
	newRunCmd,
	newCalibrateCmd,
	newEndpointCmd,
	newTraceCmd,
	newAnalyzeCmd,
	newSweepCmd,
	newReproduceCmd,
	newRecordCmd,
}

// Run executes emu with args (without the program name) and returns the
// process exit status: 0 on success, 1 when the work failed, 2 for bad usage.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(&env{ctx: ctx, stdout: stdout, stderr: stderr})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "emu: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// newRoot builds the emu command with every subcommand, writing to e's
// writers. A command that needs root (its annotation, root.go) is refused
// before it runs when emu is not root.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "emu",
		Short: "Trace-driven network emulator for QUIC and TCP over Dual Connectivity",
		Long: `emu builds, on one Linux host, the network a Dual Connectivity experiment
needs (two shaped links, PDCP proxies, QUIC and TCP endpoints), runs
downloads over it and analyses what happened.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			return checkRoot(c, os.Geteuid())
		},
	}
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%s: %w", c.CommandPath(), err)}
	})
	for _, newCmd := range commands {
		root.AddCommand(newCmd(e))
	}
	markArgErrors(root)
	return root
}

// markArgErrors makes every command's argument-count errors usage errors
// (exit status 2), as flag errors already are.
func markArgErrors(c *cobra.Command) {
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return usageError{fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markArgErrors(sub)
	}
}
