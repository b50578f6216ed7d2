package reproduce

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dc-emu/emu/emu/sweep"
)

// WritePlan prints the reproduction's plan with its estimate: per preset
// its figure, scenario, points, runs, runs already done in root and the
// expected wall time of the runs still to do (jobs at once), then the
// totals.
func WritePlan(w io.Writer, p *Plan, root string, jobs int) error {
	per, total, todo := p.Estimate(root, jobs)
	fmt.Fprintf(w, "reproduce: scale %s (%d repeats, fairness runs of %s, downloads of %s), parts %s: %d presets, %d runs\n",
		p.Scale.Name, p.Scale.Repeat, p.Scale.Duration, p.Scale.Size, strings.Join(p.Parts, ","), len(p.Sweeps), total.Runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PRESET\tFIGURE\tSCENARIO\tPOINTS\tRUNS\tDONE\tTIME LEFT")
	held := 0
	for i, s := range p.Sweeps {
		all, left := per[i][0], per[i][1]
		wall := FormatWall(left.Wall)
		if s.Held {
			wall = "held (" + wall + ")"
			held += left.Runs
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", s.Preset.Name, s.Preset.Figure, s.Preset.Scenario,
			len(s.Plan.Points), all.Runs, all.Runs-left.Runs, wall)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	at := "one at a time"
	if jobs > 1 {
		at = fmt.Sprintf("%d at once", jobs)
	}
	heldText := ""
	if held > 0 {
		heldText = fmt.Sprintf("; %d more in presets held by --presets", held)
	}
	_, err := fmt.Fprintf(w, "expected wall time: %s for %d of %d runs still to do, %s (%s for all of them%s)\n(%s; a preset begun: scaled by how long its runs took against this)\n",
		FormatWall(todo.Wall), todo.Runs, total.Runs, at, FormatWall(total.Wall), heldText, sweep.ModelText())
	return err
}

// FormatWall writes a wall time to the minute ("3h05m", "12m"), to the
// second below a minute.
func FormatWall(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	d = d.Round(time.Minute)
	h, m := d/time.Hour, (d%time.Hour)/time.Minute
	if h == 0 {
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%dh%02dm", h, m)
}
