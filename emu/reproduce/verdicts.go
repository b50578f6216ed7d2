package reproduce

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dc-emu/emu/emu/findings"
)

// WriteVerdicts prints the gist of a report, as emu reproduce ends with
// it: each finding's figures and verdict, then the counts.
func WriteVerdicts(w io.Writer, rep *findings.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FINDING\tFIGURES\tVERDICT")
	for _, f := range rep.Findings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.ID, f.Figures, f.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var counts []string
	for _, v := range findings.Verdicts() {
		if n := rep.Counts[v]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, v))
		}
	}
	_, err := fmt.Fprintf(w, "%d findings: %s\n", len(rep.Findings), strings.Join(counts, ", "))
	return err
}
