package fidelity

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText renders the verdict for the terminal summary: a status line,
// then the failed checks, or every check when all is set.
func WriteText(w io.Writer, f Fidelity, all bool) error {
	failed := f.Failed()
	var b strings.Builder
	switch {
	case len(f.Checks) == 0:
		fmt.Fprintf(&b, "fidelity: %s (nothing to check)\n", f.Status)
	case len(failed) == 0:
		fmt.Fprintf(&b, "fidelity: %s (%d checks passed)\n", f.Status, len(f.Checks))
	default:
		fmt.Fprintf(&b, "fidelity: %s (%d of %d checks failed)\n", f.Status, len(failed), len(f.Checks))
	}
	show := failed
	if all {
		show = f.Checks
	}
	if len(show) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, c := range show {
			verdict := "ok"
			switch {
			case c.Skipped:
				verdict = "-"
			case !c.OK:
				verdict = "FAIL"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", verdict, c.Name, c.Subject, value(c.Value, c.Unit, c.Skipped), limit(c), c.Detail)
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func value(v float64, unit string, skipped bool) string {
	if skipped {
		return "-"
	}
	switch unit {
	case UnitMs:
		return fmt.Sprintf("%.3f ms", v)
	case UnitUs:
		return fmt.Sprintf("%.1f µs", v)
	case UnitPercent:
		return fmt.Sprintf("%.2f %%", v)
	case UnitCores:
		return fmt.Sprintf("%.2f cores", v)
	case UnitRatio:
		return fmt.Sprintf("%.4f", v)
	case UnitPackets:
		return fmt.Sprintf("%.0f packets", v)
	}
	return fmt.Sprintf("%g %s", v, unit)
}

func limit(c Check) string {
	if c.Unit == UnitRatio {
		return fmt.Sprintf("1 ± %.3g", c.Threshold)
	}
	op := "≤ "
	if c.Name == CheckEndpointCPU {
		op = "< "
	}
	return op + value(c.Threshold, c.Unit, false)
}
