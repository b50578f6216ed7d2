package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/runstate"
)

func newCleanCmd(e *env) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:         "clean",
		Annotations: needsRoot(),
		Short:       "Remove what crashed or killed runs left behind",
		Long: `clean deletes the namespaces (and with them every veth, qdisc, queue rule
and process inside), the scratch directories (/tmp/emu-run-<id>, where
ngtcp2 keeps its downloads) and the state files of runs whose emu process
is gone.
Running emulations are left alone, and so is anything that is not emu's.
With --all it also removes emu-* namespaces that have no state file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := runstate.Clean(all)
			for _, ns := range rep.Namespaces {
				fmt.Fprintf(e.stdout, "removed namespace %s\n", ns)
			}
			for _, dir := range rep.Scratch {
				fmt.Fprintf(e.stdout, "removed scratch directory %s\n", dir)
			}
			for _, id := range rep.Runs {
				fmt.Fprintf(e.stdout, "removed state of run %s\n", id)
			}
			for _, s := range rep.Skipped {
				fmt.Fprintf(e.stdout, "left alone: %s\n", s)
			}
			if len(rep.Namespaces)+len(rep.Runs) == 0 && err == nil {
				fmt.Fprintln(e.stdout, "nothing to clean")
			}
			return err
		},
	}
	c.Flags().BoolVar(&all, "all", false, "also remove emu-* namespaces without a state file")
	return c
}
