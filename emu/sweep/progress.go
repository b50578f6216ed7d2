package sweep

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// progress prints one line when a run starts (runs done of the total, the
// run, its point, the ETA from the mean duration of the runs done so far)
// and one when it ends.
type progress struct {
	w     io.Writer
	total int
	done  int
	spent time.Duration // wall time of the runs done in this session
	ran   int
}

func (pr *progress) printf(format string, args ...any) {
	if pr.w != nil {
		fmt.Fprintf(pr.w, format, args...)
	}
}

func (pr *progress) begin(p *results.Plan, s Shard, skipped int) {
	where := ""
	if s.N > 1 {
		where = fmt.Sprintf(", shard %s", s)
	}
	pr.printf("sweep: %s × %s = %s%s: %d to do here", plural(len(p.Points), "point"), plural(p.Repeat, "repeat"), plural(len(p.Runs), "run"), where, pr.total)
	if skipped > 0 {
		pr.printf(", %d already done", skipped)
	}
	pr.printf("\n")
}

func (pr *progress) start(r results.Run, point string) {
	eta := "ETA after the first run"
	if pr.ran > 0 {
		left := time.Duration(pr.total-pr.done) * (pr.spent / time.Duration(pr.ran))
		eta = "ETA " + left.Round(time.Second).String()
	}
	pr.printf("[%d/%d] %s: %s, seed %d (%s)\n", pr.done+1, pr.total, r.ID, point, r.Seed, eta)
}

func (pr *progress) finish(r results.Run, status, msg string, sum *results.Summary, took time.Duration) {
	pr.done++
	pr.ran++
	pr.spent += took
	line := fmt.Sprintf("[%d/%d] %s %s in %s", pr.done, pr.total, r.ID, status, took.Round(100*time.Millisecond))
	if status == results.StatusOK && sum != nil {
		var parts []string
		total := 0.0
		for _, f := range sum.Flows {
			total += f.GoodputMbps
			parts = append(parts, fmt.Sprintf("%s %.2f", f.Name, f.GoodputMbps))
		}
		line += fmt.Sprintf(": goodput %.2f Mbit/s", total)
		if len(sum.Flows) > 1 {
			line += fmt.Sprintf(" (%s), JFI %.3f", strings.Join(parts, ", "), sum.JFI)
		}
	} else if msg != "" {
		line += ": " + msg
	}
	pr.printf("%s\n", line)
}

// plural writes a count with its noun, "1 point", "2 points".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
