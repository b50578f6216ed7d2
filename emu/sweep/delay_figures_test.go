package sweep

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep/sweeptest"
)

// fakeDelays are flow i's p95 RTT and one-way delay in a run: they grow
// with the batch size and vary with the seed. The last flow has no
// one-way delays (as an ngtcp2 client).
func fakeDelays(cfg config.Config, i int) (rtt, owd float64) {
	rtt = 20 + float64(cfg.DC.Sched.Batch)/10 + float64(cfg.Seed%89)/8.9 + float64(i)
	return rtt, rtt / 2
}

// delayRunner is the fake runner with rtt_ms and owd_ms in the summaries.
func delayRunner(f *sweeptest.Runner) Runner {
	f.Edit = func(cfg config.Config, s *results.Summary) {
		for i := range s.Flows {
			rtt, owd := fakeDelays(cfg, i)
			s.Flows[i].RTTMs = &results.DelayStats{P50: rtt / 2, P95: rtt, P99: rtt, Max: rtt, Mean: rtt / 2, N: 100}
			if i < len(s.Flows)-1 {
				s.Flows[i].OWDMs = &results.DelayStats{P50: owd / 2, P95: owd, P99: owd, Max: owd, Mean: owd / 2, N: 50}
			}
		}
	}
	return f.Run
}

func TestDelayMetricsAndFigures(t *testing.T) {
	p := testPlan(t, Spec{Scenario: "fairness", Axes: axes(t, "dc.batch=25,100,500"), Repeat: 3})
	dir := prepared(t, p)
	f := &sweeptest.Runner{}
	if _, err := Execute(context.Background(), dir, p, Options{Runner: delayRunner(f)}); err != nil {
		t.Fatal(err)
	}
	tab, err := Finish(dir, AggregateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"flow.dc.rtt_p95_ms", "flow.dc.owd_p95_ms", "flow.link2.rtt_p95_ms"} {
		if !slices.Contains(tab.Metrics, m) {
			t.Errorf("metrics %v lack %s", tab.Metrics, m)
		}
	}
	if slices.Contains(tab.Metrics, "flow.link2.owd_p95_ms") {
		t.Error("a flow without one-way delays has an owd metric")
	}
	// sweep.csv's mean, sd and CI of a point are those of the runs' p95s.
	rows := sweeptest.ReadCSV(t, dir)
	col := sweeptest.Column(t, rows[0], "flow.dc.rtt_p95_ms_mean")
	for _, want := range []string{"flow.dc.rtt_p95_ms_sd", "flow.dc.rtt_p95_ms_ci95", "flow.dc.owd_p95_ms_mean"} {
		if !slices.Contains(rows[0], want) {
			t.Errorf("sweep.csv has no %s", want)
		}
	}
	for i, pt := range p.Points {
		var sum float64
		n := 0
		for _, r := range p.Runs {
			if r.Point != pt.ID {
				continue
			}
			cfg, err := config.Resolve(p.Scenario, pointSettings(t, p, pt.ID))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Seed = r.Seed
			rtt, _ := fakeDelays(cfg, 0)
			sum += rtt
			n++
		}
		got, err := strconv.ParseFloat(rows[i+1][col], 64)
		if err != nil || math.Abs(got-sum/float64(n)) > 1e-3 {
			t.Errorf("point %s: mean p95 RTT %s, want %.4f", pt.ID, rows[i+1][col], sum/float64(n))
		}
	}
	// Pantheon's view, once per delay kind, with a marker per point and flow.
	for _, name := range []string{"tput-delay-rtt", "tput-delay-owd"} {
		svg, err := os.ReadFile(filepath.Join(dir, results.FiguresDir, name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		s := string(svg)
		for _, want := range []string{"reversed: better is to the right", "goodput (Mbit/s)", "flow dc", ">25<", ">500<"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s.svg lacks %q", name, want)
			}
		}
		if name == "tput-delay-rtt" && !strings.Contains(s, "flow link2") {
			t.Error("every flow of a fairness run gets its own markers")
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !strings.Contains(string(html), "Goodput vs p95 one-way delay") {
		t.Errorf("report.html lacks the delay figure: %v", err)
	}
}

// pointSettings returns the settings that make point id's configuration.
func pointSettings(t *testing.T, p *results.Plan, id string) []config.Setting {
	t.Helper()
	pt, ok := p.Point(id)
	if !ok {
		t.Fatalf("no point %s", id)
	}
	ss, err := config.ParseSettings(append(slices.Clone(p.Settings), pt.Settings...))
	if err != nil {
		t.Fatal(err)
	}
	return ss
}
