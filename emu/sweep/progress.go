package sweep

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// progress prints the sweep's progress: a line when a run starts (its
// place, point, seed, how many run, the ETA) and one when it ends (status,
// goodput, runs done, running and degraded, the ETA). The ETA is
// EstimateWall's model of the runs still to do, scaled by how long the
// runs done took against what the model expected of them (Elapsed: those
// of earlier sessions in the directory too).
type progress struct {
	w       io.Writer
	p       *results.Plan
	total   int
	done    int // ended for good (skipped ones included)
	started int
	pred    map[string]time.Duration // by point: EstimateRun
	el      Elapsed
}

// state is what a finish line reports besides the run.
type state struct {
	done, running, degraded int
	eta                     string
}

func newProgress(w io.Writer, p *results.Plan, total, skipped int, el Elapsed) *progress {
	pr := &progress{w: w, p: p, total: total, done: skipped, started: skipped, pred: map[string]time.Duration{}, el: el}
	for _, pt := range p.Points {
		pr.pred[pt.ID] = estimatePoint(p, pt.ID)
	}
	return pr
}

func (pr *progress) printf(format string, args ...any) {
	if pr.w != nil {
		fmt.Fprintf(pr.w, format, args...)
	}
}

func (pr *progress) note(line string) { pr.printf("sweep: %s\n", line) }

func (pr *progress) begin(s Shard, j Jobs, todo []results.Run, g *governor) {
	pr.printf("sweep: %s × %s = %s", plural(len(pr.p.Points), "point"), plural(pr.p.Repeat, "repeat"), plural(len(pr.p.Runs), "run"))
	if s.N > 1 {
		pr.printf(", %d in shard %s", pr.total, s)
	}
	pr.printf(": %d to do", len(todo))
	if skipped := pr.total - len(todo); skipped > 0 {
		pr.printf(", %d already done", skipped)
	}
	switch {
	case len(todo) == 0:
	case j.Auto && g.Calibrating():
		pr.printf("; jobs auto: the first run runs alone to measure its CPU; expected wall time %s", WallTimes(pr.p, todo, g.cores))
	default:
		pr.printf("; %s at once: expected wall time %s", plural(g.Limit(), "run"), round(pr.el.Scale(EstimateWall(pr.p, todo, Schedule{Jobs: g.Limit()}))))
		if pr.el.Runs > 0 {
			pr.printf(" (the model scaled by the %s done: %.2f×)", plural(pr.el.Runs, "run"), float64(pr.el.Scale(time.Hour))/float64(time.Hour))
		}
	}
	pr.printf("\n")
}

// WallTimes describes the expected wall time of runs with one to 2 × cores
// jobs, the first run alone (as --jobs auto does it): "9m0s with 1 job, 4m50s
// with 2, …". --dry-run and --jobs auto print it.
func WallTimes(p *results.Plan, runs []results.Run, cores int) string {
	var parts []string
	for n := 1; n <= 2*max(cores, 1); n++ {
		d := round(EstimateWall(p, runs, Schedule{Jobs: n, Calibrate: n > 1}))
		if n == 1 {
			parts = append(parts, fmt.Sprintf("%s with 1 job", d))
		} else {
			parts = append(parts, fmt.Sprintf("%s with %d", d, n))
		}
	}
	return strings.Join(parts, ", ")
}

// start reports attempt n of at most of (1 + reruns) of run r.
func (pr *progress) start(r results.Run, point string, n, of, running int) {
	if n > 1 {
		pr.printf("[attempt %d] %s: %s, seed %d (%s; %s", n, r.ID, point, r.Seed, before(n), remaining(of-n))
	} else {
		pr.started++
		pr.printf("[%d/%d] %s: %s, seed %d", pr.started, pr.total, r.ID, point, r.Seed)
	}
	switch {
	case running > 1 && n > 1:
		pr.printf("; %d running)\n", running)
	case running > 1:
		pr.printf(" (%d running)\n", running)
	case n > 1:
		pr.printf(")\n")
	default:
		pr.printf("\n")
	}
}

// before says which attempts before attempt n were degraded.
func before(n int) string {
	switch n {
	case 2:
		return "the first was degraded"
	case 3:
		return "both before were degraded"
	}
	return fmt.Sprintf("the %d before were degraded", n-1)
}

// remaining says how many attempts may follow this one if it is degraded.
func remaining(left int) string {
	if left <= 0 {
		return "the last attempt"
	}
	return plural(left, "more attempt") + " if degraded"
}

// observe adds a run that ended ok to the ETA's scale.
func (pr *progress) observe(r results.Run, took time.Duration) { pr.el.Add(pr.p, r.Point, took) }

// eta is the expected time until the runs queued and running have ended,
// with limit at once.
func (pr *progress) eta(now time.Time, queued []results.Run, running map[string]*live, limit int) string {
	var busy, rest []time.Duration
	for _, l := range running {
		busy = append(busy, max(0, pr.el.Scale(pr.pred[l.run.Point])-now.Sub(l.started)))
	}
	for _, r := range queued {
		rest = append(rest, pr.el.Scale(pr.pred[r.Point]))
	}
	if len(busy)+len(rest) == 0 {
		return ""
	}
	return "ETA " + round(makespan(limit, busy, rest)).String()
}

func (pr *progress) finish(r results.Run, status, msg string, sum *results.Summary, took time.Duration, st state) {
	pr.done++
	line := fmt.Sprintf("[%d/%d] %s %s in %s", pr.done, pr.total, r.ID, status, took.Round(100*time.Millisecond))
	if status == results.StatusOK && sum != nil {
		line += ": " + goodputs(sum)
	} else if msg != "" {
		line += ": " + msg
	}
	pr.printf("%s%s\n", line, st.suffix())
}

// degraded reports attempt n of a run that ended ok with a degraded
// emulation; left attempts remain (it is run again), or none and it is
// final.
func (pr *progress) degraded(r results.Run, why string, sum *results.Summary, took time.Duration, n, left int, st state) {
	place := fmt.Sprintf("[attempt %d]", n)
	what := fmt.Sprintf("running it again (%s left)", plural(left, "attempt"))
	if left <= 0 {
		pr.done++
		place = fmt.Sprintf("[%d/%d]", pr.done, pr.total)
		what = "left out of the statistics (--keep-degraded keeps it)"
		if n > 1 {
			what = fmt.Sprintf("degraded in all %d attempts, %s", n, what)
		}
	}
	pr.printf("%s %s degraded in %s: %s; %s; %s%s\n", place, r.ID, took.Round(100*time.Millisecond), goodputs(sum), why, what, st.suffix())
}

func (s state) suffix() string {
	parts := []string{}
	if s.running > 0 {
		parts = append(parts, fmt.Sprintf("%d running", s.running))
	}
	if s.degraded > 0 {
		parts = append(parts, fmt.Sprintf("%d degraded", s.degraded))
	}
	if s.eta != "" {
		parts = append(parts, s.eta)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func goodputs(sum *results.Summary) string {
	if sum == nil {
		return "no summary"
	}
	var parts []string
	total := 0.0
	for _, f := range sum.Flows {
		total += f.GoodputMbps
		parts = append(parts, fmt.Sprintf("%s %.2f", f.Name, f.GoodputMbps))
	}
	line := fmt.Sprintf("goodput %.2f Mbit/s", total)
	if len(sum.Flows) > 1 {
		line += fmt.Sprintf(" (%s), JFI %.3f", strings.Join(parts, ", "), sum.JFI)
	}
	return line
}

func round(d time.Duration) time.Duration { return d.Round(time.Second) }

// plural writes a count with its noun, "1 point", "2 points".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
