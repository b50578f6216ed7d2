package analysis

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestRunReportIsSelfContained(t *testing.T) {
	fsys := os.DirFS("testdata/run-latency")
	ra, err := AnalyzeRun(fsys, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	figs, notes, err := RunFigures(ra)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteRunReport(&b, fsys, ra, figs, notes); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, `<img class="figure" src="data:image/svg&#43;xml;base64,`); n != len(figs) || n < 5 {
		t.Errorf("%d inlined figures, want all %d", n, len(figs))
	}
	for _, f := range figs {
		if FigureCaption(f.Name) == "" {
			t.Errorf("figure %s has no caption", f.Name)
		}
	}
	for _, want := range []string{
		"<title>Run r-mix</title>",
		`<a href="flows/link1.tcpinfo.csv">`, `<a href="summary.json">`,
		"tcp_info",                     // the TCP flow's RTT source
		"run.tcpinfo_interval",         // the configuration
		"queue delay: nothing to plot", // a figure left out says why
		"FLOW   RTT P50",               // emu run's terminal summary
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Nothing is fetched from elsewhere: every src and href is inline data
	// or a file of the run directory.
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if u := m[1]; strings.Contains(u, "//") && !strings.HasPrefix(u, "data:") {
			t.Errorf("external reference %q", u)
		}
	}
}
