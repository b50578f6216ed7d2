package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/topo"
)

func newUpCmd(e *env) *cobra.Command {
	var sf scenarioFlags
	var asJSON, dryRun bool
	c := &cobra.Command{
		Use:         "up",
		Annotations: needsRoot("dry-run"),
		Short:       "Build the emulated network and keep it up until Ctrl-C or emu down",
		Long: `up builds the scenario's network (namespaces, two shaped links, delay lines,
PDCP proxies, trace replay), prints every node and stays up until Ctrl-C or
emu down. Run any tool inside a node with emu exec, e.g.

  emu exec srv -- iperf3 -s
  emu exec cli -- iperf3 -c $(emu addr srv) -R`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := sf.resolve()
			if err != nil {
				return err
			}
			if dryRun {
				for _, op := range topo.Plan(network.TopologyOf(cfg, "<id>")) {
					fmt.Fprintln(e.stdout, op)
				}
				return nil
			}
			em, err := network.Start(e.ctx, cfg, network.Options{Command: "up", Log: e.stderr})
			if err != nil {
				return err
			}
			defer em.Close()
			nodes := em.Nodes()
			if asJSON {
				type node struct {
					Name  string   `json:"name"`
					Role  string   `json:"role"`
					Addrs []string `json:"addrs"`
					Path  string   `json:"path,omitempty"`
					NS    string   `json:"namespace"`
				}
				out := struct {
					Run   string `json:"run"`
					Nodes []node `json:"nodes"`
				}{Run: em.ID}
				for _, n := range nodes {
					out.Nodes = append(out.Nodes, node{n.Name, n.Role, n.Addrs, n.Path, n.Namespace})
				}
				if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
					return err
				}
			} else {
				printNodes(e, em.ID, nodes)
				fmt.Fprintf(e.stdout, "rates: %s\n", em.Config.RateSources())
			}
			select {
			case <-e.ctx.Done():
				fmt.Fprintln(e.stderr, "emu: stopping")
				// What the proxies did while it was up: what emu run's
				// summary says of a run.
				results.WritePDCP(e.stdout, em.PDCP())
				return em.Close()
			case err := <-em.Failed():
				return fmt.Errorf("emulation failed: %w", err)
			}
		},
	}
	sf.register(c, true)
	c.Flags().BoolVar(&asJSON, "json", false, "print the nodes as JSON on stdout")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the kernel operations that would build the topology, build nothing")
	return c
}

func printNodes(e *env, id string, nodes []runstate.NodeInfo) {
	fmt.Fprintf(e.stdout, "emulation %s is up\n\n", id)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tROLE\tPATH\tADDRESSES\tNAMESPACE")
	for _, n := range nodes {
		path := n.Path
		if path == "" {
			path = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", n.Name, n.Role, path, strings.Join(n.Addrs, " "), n.Namespace)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "\nrun a command in a node: emu exec NODE -- CMD ARGS…   (stop: Ctrl-C or emu down)\n")
}

func newDownCmd(e *env) *cobra.Command {
	var run string
	c := &cobra.Command{
		Use:         "down",
		Annotations: needsRoot(),
		Short:       "Stop the emulations emu up keeps up (or the run given with --run)",
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			stopped, err := runstate.Down(e.ctx, run)
			for _, id := range stopped {
				fmt.Fprintf(e.stdout, "stopped %s\n", id)
			}
			if err == nil && len(stopped) == 0 {
				fmt.Fprintln(e.stdout, "no emulation of emu up running (emu down --run ID stops a run or sweep)")
			}
			return err
		},
	}
	c.Flags().StringVar(&run, "run", "", "stop only this run id (any emulation: up, run, sweep, calibrate)")
	return c
}
