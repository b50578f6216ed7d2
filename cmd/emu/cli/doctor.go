package cli

import (
	"errors"
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/host"
)

func newDoctorCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:         "doctor",
		Annotations: needsRoot(),
		Short:       "Probe what this kernel and machine can do, and which backend emu will use",
		Long: `doctor probes, inside a scratch network namespace, everything emu needs:
root, namespaces, veth, each qdisc (htb, tbf, netem, fq, fq_codel), NFQUEUE
rules and how they can be installed, policy routing, MPTCP with its path
managers and packet schedulers, TCP congestion controls and the ngtcp2
binaries. It prints which backend each feature will use and exits non-zero
if emu cannot run at all.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r := host.Doctor()
			if asJSON {
				if err := printJSON(e.stdout, r); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
				for _, c := range r.Checks {
					mark := "ok"
					if !c.OK {
						mark = "no"
						if c.Required {
							mark = "FAIL"
						}
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\n", mark, c.Name, c.Detail)
				}
				tw.Flush()
				fmt.Fprintln(e.stdout, "\nbackends:")
				keys := make([]string, 0, len(r.Backends))
				for k := range r.Backends {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					fmt.Fprintf(e.stdout, "  %-12s %s\n", k, r.Backends[k])
				}
			}
			if !r.CanRun {
				return errors.New("this machine cannot run emu (see FAIL above)")
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
