package runloop

import (
	"fmt"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// statusLine is the live line: the time since the epoch, each flow's bytes
// and rate since the last line (or that it waits or is done), and the time
// left when the run has a deadline.
func (r *Run) statusLine(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%6.1fs]", now.Sub(r.plan.Epoch).Seconds())
	for i := range r.flows {
		f := &r.flows[i]
		rate := 0.0
		if !f.statusAt.IsZero() {
			rate = float64(f.bytes-f.statusBytes) * 8 / now.Sub(f.statusAt).Seconds() / 1e6
		}
		f.statusBytes, f.statusAt = f.bytes, now
		switch f.client {
		case procRunning:
			fmt.Fprintf(&b, " | %s %s %5.1f Mbit/s", f.Name, results.HumanBytes(f.bytes), rate)
			if f.Size > 0 {
				fmt.Fprintf(&b, " %3.0f%%", 100*float64(f.bytes)/float64(f.Size))
			}
		case procExited:
			fmt.Fprintf(&b, " | %s done %s", f.Name, results.HumanBytes(f.bytes))
		default:
			fmt.Fprintf(&b, " | %s waiting", f.Name)
		}
	}
	if !r.deadline.IsZero() {
		fmt.Fprintf(&b, " | ≤%.0fs left", max(0, r.deadline.Sub(now).Seconds()))
	}
	return b.String()
}
