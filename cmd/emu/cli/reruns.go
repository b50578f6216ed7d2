package cli

import (
	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/sweep"
)

// addRerunsFlag registers --reruns (emu sweep, emu reproduce) into n.
func addRerunsFlag(c *cobra.Command, n *int) {
	c.Flags().IntVar(n, "reruns", sweep.DefaultReruns, "times a run whose emulation came back degraded is run again, every attempt kept (0: never)")
}

// checkReruns rejects a --reruns below 0.
func checkReruns(n int) error {
	if n < 0 {
		return usagef("--reruns %d: want how many times a degraded run is run again (0 or more)", n)
	}
	return nil
}
