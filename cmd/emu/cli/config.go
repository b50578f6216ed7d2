package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/config"
)

// scenarioFlags are the flags every command that builds a configuration
// shares: the scenario, repeated --set key=value, and --trace.
type scenarioFlags struct {
	scenario string
	sets     []string
	trace    string
	seed     uint64
}

func (f *scenarioFlags) register(c *cobra.Command, defaultTrace bool) {
	c.Flags().StringVar(&f.scenario, "scenario", "throughput", "scenario: throughput or fairness")
	c.Flags().StringArrayVar(&f.sets, "set", nil, "set a parameter, key=value (repeatable; emu config lists the keys)")
	help := "bandwidth trace for both links: shipped name or file path; none for constant rates; A,B gives link1 A and link2 B (emu record's PREFIX-1.csv,PREFIX-2.csv)"
	if defaultTrace {
		help += " (default: the shipped LTE trace " + config.DefaultTrace + ")"
	}
	c.Flags().StringVar(&f.trace, "trace", "", help)
	c.Flags().Uint64Var(&f.seed, "seed", 0, "random seed (0 = pick one; recorded in the results)")
}

// settings turns the flags into ordered settings; --trace and --seed are
// shorthands for link.trace (link1.trace and link2.trace for A,B) and
// run.seed.
func (f *scenarioFlags) settings() ([]config.Setting, error) {
	var out []config.Setting
	if f.trace != "" {
		switch parts := strings.Split(f.trace, ","); {
		case len(parts) == 1:
			out = append(out, config.Setting{Key: "link.trace", Value: f.trace})
		case len(parts) == 2 && parts[0] != "" && parts[1] != "":
			out = append(out, config.Setting{Key: "link1.trace", Value: parts[0]}, config.Setting{Key: "link2.trace", Value: parts[1]})
		default:
			return nil, usagef("--trace %q: one trace for both links, or A,B for link1 and link2", f.trace)
		}
	}
	if f.seed != 0 {
		out = append(out, config.Setting{Key: "run.seed", Value: fmt.Sprint(f.seed)})
	}
	for _, s := range f.sets {
		st, err := config.ParseSetting(s)
		if err != nil {
			return nil, usagef("--set %v", err)
		}
		out = append(out, st)
	}
	return out, nil
}

// resolve builds and validates the configuration; configuration errors are
// usage errors (exit status 2) that name the key.
func (f *scenarioFlags) resolve() (config.Config, error) {
	sets, err := f.settings()
	if err != nil {
		return config.Config{}, err
	}
	c, err := config.Resolve(f.scenario, sets)
	if err != nil {
		return config.Config{}, usageError{err}
	}
	return c, nil
}

func newConfigCmd(e *env) *cobra.Command {
	var sf scenarioFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "config",
		Short: "List every parameter with its value, unit and meaning",
		Long: `config prints every dotted key that --set accepts, with the value it has
for the scenario after any --set given here, its unit and what it does.

Shorter keys set several at once: link1.delay sets link1.down.delay and
link1.up.delay; link.delay sets both links; flow.size sets every flow and
flows.N.size flow N (adding flows up to N).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := sf.resolve()
			if err != nil {
				return err
			}
			params := config.Params(&cfg)
			if asJSON {
				type row struct {
					Key   string `json:"key"`
					Value string `json:"value"`
					Unit  string `json:"unit,omitempty"`
					Doc   string `json:"doc"`
				}
				rows := []row{}
				for _, p := range params {
					rows = append(rows, row{p.Key, p.Get(&cfg), p.Unit, p.Doc})
				}
				for _, d := range config.DerivedKeys() {
					rows = append(rows, row{Key: d[0], Doc: d[1]})
				}
				return printJSON(e.stdout, map[string]any{"scenario": cfg.Scenario, "params": rows})
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "KEY\tVALUE\tUNIT\tMEANING\n")
			for _, p := range params {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Key, p.Get(&cfg), p.Unit, p.Doc)
			}
			for _, d := range config.DerivedKeys() {
				fmt.Fprintf(tw, "%s\t\t\t%s\n", d[0], d[1])
			}
			return tw.Flush()
		},
	}
	sf.register(c, true)
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
