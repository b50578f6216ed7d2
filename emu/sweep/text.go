package sweep

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dc-emu/emu/emu/results"
)

// WriteSummary prints the gist of sweep.csv, as emu sweep and emu sweep
// merge end with it: per point the total goodput (and JFI when points have
// several flows) as mean ± 95 % CI; then the studies' own tables
// (Study.Tables).
func WriteSummary(w io.Writer, t *results.SweepTable, studies Catalog) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "POINT")
	for _, a := range t.Plan.Vary {
		fmt.Fprintf(tw, "\t%s", strings.ToUpper(a.Key))
	}
	multi := MaxFlows(t) > 1
	degraded := t.DegradedRuns() > 0
	fmt.Fprint(tw, "\tRUNS OK")
	if degraded {
		fmt.Fprint(tw, "\tDEGRADED")
	}
	fmt.Fprint(tw, "\tGOODPUT (Mbit/s)")
	if multi {
		fmt.Fprint(tw, "\tJFI")
	}
	fmt.Fprintln(tw, "\tUTILIZATION")
	for _, r := range t.Rows {
		fmt.Fprint(tw, r.Point.ID)
		for _, a := range t.Plan.Vary {
			fmt.Fprintf(tw, "\t%s", t.Plan.Label(r.Point, a))
		}
		fmt.Fprintf(tw, "\t%d/%d", r.OK, r.OK+r.Degraded+r.Failed+r.Missing)
		if degraded {
			fmt.Fprintf(tw, "\t%d", r.Degraded)
		}
		fmt.Fprintf(tw, "\t%s", meanCI(r.Stats[results.MetricGoodput], "%.2f"))
		if multi {
			fmt.Fprintf(tw, "\t%s", meanCI(r.Stats[results.MetricJFI], "%.3f"))
		}
		fmt.Fprintf(tw, "\t%s\n", meanCI(r.Stats[results.MetricUtilization], "%.3f"))
	}
	tw.Flush()
	if degraded {
		what := "left out of the statistics (--keep-degraded keeps them)"
		if t.KeptDegraded {
			what = "kept in the statistics (--keep-degraded)"
		}
		fmt.Fprintf(w, "%s whose emulation was degraded: %s\n", plural(t.DegradedRuns(), "run"), what)
	}
	studies.tables(w, t)
}

func meanCI(s results.Stat, format string) string {
	if s.N == 0 {
		return "–"
	}
	if s.N < 2 {
		return fmt.Sprintf(format, s.Mean)
	}
	return fmt.Sprintf(format+" ± "+format, s.Mean, s.CI95)
}

// WritePlan prints what --dry-run resolved: the points, what each changes
// from the base, and the runs of this shard with their seeds.
func WritePlan(w io.Writer, p *results.Plan, shard Shard) error {
	method := "one axis at a time"
	if p.Grid {
		method = "grid"
	}
	fmt.Fprintf(w, "plan: %s × %s = %s (%s), scenario %s, base seed %d\n",
		plural(len(p.Points), "point"), plural(p.Repeat, "repeat"), plural(len(p.Runs), "run"), method, p.Scenario, p.Seed)
	if len(p.Settings) > 0 {
		fmt.Fprintf(w, "base: %s\n", strings.Join(p.Settings, " "))
	}
	runs := shard.Runs(p)
	seeds := map[string][]string{}
	for _, r := range runs {
		seeds[r.Point] = append(seeds[r.Point], fmt.Sprintf("r%d=%d", r.Repeat, r.Seed))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "POINT\tVALUES\tCHANGES FROM THE BASE")
	for i := range p.Points {
		pt := &p.Points[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\n", pt.ID, p.Describe(pt), joinSorted(pt.Params))
	}
	tw.Flush()
	fmt.Fprintf(w, "runs of shard %s: %d\n", shard, len(runs))
	for i := range p.Points {
		if s := seeds[p.Points[i].ID]; len(s) > 0 {
			fmt.Fprintf(w, "  %s seeds %s\n", p.Points[i].ID, strings.Join(s, " "))
		}
	}
	return nil
}

func joinSorted(m map[string]string) string {
	if len(m) == 0 {
		return "(the base)"
	}
	return results.JoinSorted(m)
}

// WritePresets prints the catalog's presets (--list-presets): name,
// figure, what is varied and set, and why the sizes are what they are.
func WritePresets(w io.Writer, c Catalog) error {
	for i, pr := range c.Presets() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		points := 1
		method := "one axis at a time"
		if pr.Grid {
			method = "grid"
			for _, a := range pr.Axes {
				points *= len(a.Values)
			}
		} else {
			points = 0
			for _, a := range pr.Axes {
				points += len(a.Values)
			}
		}
		fmt.Fprintf(w, "%s — %s\n", pr.Name, pr.Figure)
		fmt.Fprintf(w, "    %s\n", pr.Title)
		fmt.Fprintf(w, "    scenario %s, %s × %s (%s)\n", pr.Scenario, plural(points, "point"), plural(pr.Repeat, "repeat"), method)
		fmt.Fprintf(w, "    set   %s\n", strings.Join(pr.Settings, " "))
		for _, a := range pr.Axes {
			fmt.Fprintf(w, "    vary  %s\n", describeAxis(a))
		}
		for _, line := range wrap(pr.Notes, 84) {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	return nil
}

// describeAxis writes an axis in --vary syntax when it is one, else as
// labels with the settings they stand for.
func describeAxis(a results.Axis) string {
	if a.Plain() {
		return a.Key + "=" + strings.Join(a.Values, ",")
	}
	var parts []string
	for i, v := range a.Values {
		parts = append(parts, v+" ("+strings.Join(a.Settings[i], " ")+")")
	}
	return a.Key + ": " + strings.Join(parts, ", ")
}

func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
