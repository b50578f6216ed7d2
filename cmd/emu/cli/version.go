package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/host"
)

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print emu's version and the versions of what it runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := host.CollectVersions()
			fmt.Fprintf(e.stdout, "emu %s (go %s, quic-go %s)\n", v.Emu, v.Go, v.QuicGo)
			return nil
		},
	}
}
