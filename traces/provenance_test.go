package traces

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/dc-emu/emu/tracefmt"
)

// want is a statistic PROVENANCE.md prints, with the precision it prints.
type want struct {
	what     string
	got      func(tracefmt.Stats) float64
	value    float64
	decimals int
}

func mean(s tracefmt.Stats) float64   { return s.Down.Mean }
func min_(s tracefmt.Stats) float64   { return s.Down.Min }
func max_(s tracefmt.Stats) float64   { return s.Down.Max }
func median(s tracefmt.Stats) float64 { return s.Down.P50 }
func upMean(s tracefmt.Stats) float64 { return s.Up.Mean }
func upMin(s tracefmt.Stats) float64  { return s.Up.Min }
func upMax(s tracefmt.Stats) float64  { return s.Up.Max }
func seconds(s tracefmt.Stats) float64 {
	return s.Duration.Seconds()
}

// check compares got with a number printed to w.decimals places, and checks
// that PROVENANCE.md does print it.
func (w want) check(t *testing.T, label string, s tracefmt.Stats) {
	t.Helper()
	got := w.got(s)
	tol := 0.5*math.Pow10(-w.decimals) + 1e-9
	if math.Abs(got-w.value) > tol {
		t.Errorf("%s: %s = %.6f, PROVENANCE.md says %.*f", label, w.what, got, w.decimals, w.value)
	}
	printed := fmt.Sprintf("%.*f", w.decimals, w.value)
	if w.decimals == 0 {
		printed = fmt.Sprintf("%.0f", w.value)
	}
	if !bytes.Contains(Provenance(), []byte(printed)) {
		t.Errorf("%s: %s %s does not appear in PROVENANCE.md", label, w.what, printed)
	}
}

func load(t *testing.T, name string, o tracefmt.ReadOptions, cut tracefmt.Options) tracefmt.Stats {
	t.Helper()
	tr, err := Load(name, o)
	if err != nil {
		t.Fatal(err)
	}
	if cut != (tracefmt.Options{}) {
		if tr, err = tr.Transform(cut); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Stats()
}

func TestRacaMatchesProvenance(t *testing.T) {
	type reading struct {
		rows                        int
		mean, min, max, median      float64
		upMean                      float64
		zeroRows                    int
		first200Rows, first200Times float64
		wholeTimes, spanSeconds     float64
	}
	for name, r := range map[string]reading{
		"raca4g-static-A.csv":          {794, 3.855, 0.458, 15.008, 2.796, 0.065, 0, 4.525, 4.736, 3.855, 882},
		"raca4g-static-A-20180127.csv": {856, 5.743, 0.123, 29.827, 3.976, 0.093, 0, 8.987, 9.344, 5.707, 952},
		"raca5g-static-B.csv":          {1013, 121.021, 0, 254.071, 150.335, 0.174, 43, 110.649, 125.032, 130.725, 1102},
		"raca5g-driving-B.csv":         {1741, 39.971, 0, 389.891, 16.248, 0.124, 51, 11.258, 11.843, 42.736, 1824},
		"raca4g-car-A.csv":             {1191, 19.264, 0, 81.307, 17.793, 0.361, 3, 20.730, 21.046, 19.174, 1312},
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := Load(name, tracefmt.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := tr.Stats()
			if s.Steps != r.rows || s.Duration != time.Duration(r.rows)*time.Second {
				t.Errorf("%d steps over %v, want one per row: %d", s.Steps, s.Duration, r.rows)
			}
			zeros := 0
			for _, st := range tr.Steps {
				if st.Down == 0 {
					zeros++
				}
			}
			if zeros != r.zeroRows {
				t.Errorf("%d zero-capacity steps, PROVENANCE.md counts %d zero rows", zeros, r.zeroRows)
			}
			for _, w := range []want{
				{"mean", mean, r.mean, 3}, {"min", min_, r.min, 3}, {"max", max_, r.max, 3},
				{"median", median, r.median, 3}, {"UL mean", upMean, r.upMean, 3},
			} {
				w.check(t, "rows", s)
			}
			w := want{"mean", mean, r.first200Rows, 3}
			w.check(t, "first 200 rows", load(t, name, tracefmt.ReadOptions{}, tracefmt.Options{Duration: 200 * time.Second}))
			byTime := tracefmt.ReadOptions{Timestamps: true}
			w = want{"mean", mean, r.first200Times, 3}
			w.check(t, "timestamps, first 200 s", load(t, name, byTime, tracefmt.Options{Duration: 200 * time.Second}))
			whole := load(t, name, byTime, tracefmt.Options{})
			w = want{"mean", mean, r.wholeTimes, 3}
			w.check(t, "timestamps, whole", whole)
			w = want{"span", seconds, r.spanSeconds, 0}
			w.check(t, "timestamps", whole)
		})
	}
	// Uplink min and max are printed for two traces only.
	s := load(t, "StaticA.csv", tracefmt.ReadOptions{}, tracefmt.Options{})
	for _, w := range []want{{"UL min", upMin, 0.009, 3}, {"UL max", upMax, 0.242, 3}} {
		w.check(t, "StaticA.csv", s)
	}
	s = load(t, "raca4g-car-A.csv", tracefmt.ReadOptions{}, tracefmt.Options{})
	for _, w := range []want{{"UL min", upMin, 0, 3}, {"UL max", upMax, 1.544, 3}} {
		w.check(t, "raca4g-car-A.csv", s)
	}
}

func TestMahimahiMatchesProvenance(t *testing.T) {
	type reading struct {
		lines                    int
		seconds, mean            float64
		binMin, binMedian, binMx float64
	}
	for name, r := range map[string]reading{
		"mahimahi-verizon-lte-short.down":    {58655, 140.000, 5.028, 0.288, 4.302, 16.776},
		"mahimahi-verizon-lte-short.up":      {69367, 140.000, 5.946, 0.000, 5.694, 12.948},
		"mahimahi-tmobile-lte-driving.down":  {505078, 474.609, 12.770, 0.012, 9.966, 59.460},
		"mahimahi-att-lte-driving.up":        {70336, 1012.472, 0.834, 0.000, 1.044, 1.296},
		"mahimahi-att-lte-driving-2016.down": {45604, 120.002, 4.560, 0.228, 3.738, 27.552},
	} {
		t.Run(name, func(t *testing.T) {
			// Read alone (tracefmt.Read does no pairing): the file fills Down.
			b, _, err := ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := tracefmt.Read(bytes.NewReader(b), name, tracefmt.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := tr.Stats()
			for _, w := range []want{{"mean", mean, r.mean, 3}, {"duration", seconds, r.seconds, 3}} {
				w.check(t, "10 ms windows", s)
			}
			// Every line is one packet: the rate integrates to the line count.
			if pkts := s.Down.Mean * 1e6 * s.Duration.Seconds() / tracefmt.MahimahiPacketBits; math.Abs(pkts-float64(r.lines)) > 1e-6*float64(r.lines) {
				t.Errorf("trace carries %.3f packets, file has %d lines", pkts, r.lines)
			}
			// PROVENANCE bins by whole seconds over full bins only.
			tr, err = tracefmt.Read(bytes.NewReader(b), name, tracefmt.ReadOptions{Window: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if tr, err = tr.Transform(tracefmt.Options{Duration: tr.End.Truncate(time.Second)}); err != nil {
				t.Fatal(err)
			}
			s = tr.Stats()
			for _, w := range []want{{"min", min_, r.binMin, 3}, {"median", median, r.binMedian, 3}, {"max", max_, r.binMx, 3}} {
				w.check(t, "1 s bins", s)
			}
		})
	}
}

func TestMahimahiPairMatchesProvenance(t *testing.T) {
	tr, err := Load("mahimahi-verizon-lte-short", tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.HasUp || tr.End != 140*time.Second {
		t.Fatalf("pair: HasUp %v, duration %v; want the .up paired and 140 s", tr.HasUp, tr.End)
	}
	s := tr.Stats()
	for _, w := range []want{{"down mean", mean, 5.028, 3}, {"up mean", upMean, 5.946, 3}} {
		w.check(t, "verizon pair", s)
	}
}

func TestOtherTracesMatchProvenance(t *testing.T) {
	for name, ws := range map[string][]want{
		"lumos5g-mmwave-driving-run1.csv": {{"duration", seconds, 230, 0}, {"mean", mean, 306.096, 3},
			{"min", min_, 0, 0}, {"max", max_, 969, 0}, {"median", median, 123.5, 1}},
		"5gophers-mmwave-walking.csv": {{"duration", seconds, 603, 0}, {"mean", mean, 332.886, 3},
			{"min", min_, 0, 0}, {"max", max_, 954, 0}, {"median", median, 178, 0}},
		"norway-hsdpa-bus-1.cooked": {{"duration", seconds, 154.76, 2}, {"time-weighted mean", mean, 2.953, 3},
			{"min", min_, 0.375, 3}, {"max", max_, 4.793, 3}},
		"fcc-2016-trace-10730.cooked": {{"duration", seconds, 1675, 0}, {"time-weighted mean", mean, 0.490, 3},
			{"min", min_, 0, 0}, {"max", max_, 0.569, 3}},
		"constant-20mbit.csv":    {{"mean", mean, 20, 0}, {"up mean", upMean, 20, 0}, {"duration", seconds, 60, 0}},
		"step-10-30-10mbit.csv":  {{"mean", mean, 16.667, 3}, {"duration", seconds, 30, 0}},
		"square-5-25mbit-2s.csv": {{"mean", mean, 15, 0}, {"duration", seconds, 20, 0}},
		"outage-10mbit-2s.csv":   {{"mean", mean, 8.333, 3}, {"min", min_, 0, 0}, {"duration", seconds, 12, 0}},
	} {
		s := load(t, name, tracefmt.ReadOptions{}, tracefmt.Options{})
		for _, w := range ws {
			w.check(t, name, s)
		}
	}
	for name, first200 := range map[string]float64{"lumos5g-mmwave-driving-run1.csv": 267.680, "5gophers-mmwave-walking.csv": 493.072} {
		w := want{"first 200 s mean", mean, first200, 3}
		w.check(t, name, load(t, name, tracefmt.ReadOptions{}, tracefmt.Options{Duration: 200 * time.Second}))
	}
}

func TestStarlinkMatchesProvenance(t *testing.T) {
	// The pair, by its alias: rate and delay on one trace, as long as the
	// rate file.
	tr, err := Load("starlink", tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.HasDelay || tr.HasLoss || tr.End != 120052*time.Millisecond {
		t.Fatalf("starlink: HasDelay %v HasLoss %v duration %v; want the .delay paired, 120.052 s (120.1 in PROVENANCE.md)", tr.HasDelay, tr.HasLoss, tr.End)
	}
	s := tr.Stats()
	want{"mean", mean, 48.744, 3}.check(t, "starlink rate", s)
	// Per second, as PROVENANCE.md bins it.
	b, _, err := ReadFile("starlink-leoreplayer-example.bw")
	if err != nil {
		t.Fatal(err)
	}
	sec, err := tracefmt.Read(bytes.NewReader(b), "bw", tracefmt.ReadOptions{Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if sec, err = sec.Transform(tracefmt.Options{Duration: 120 * time.Second}); err != nil {
		t.Fatal(err)
	}
	ss := sec.Stats()
	for _, w := range []want{{"p5", func(s tracefmt.Stats) float64 { return s.Down.P5 }, 36.108, 3},
		{"p50", median, 48.306, 3}, {"p95", func(s tracefmt.Stats) float64 { return s.Down.P95 }, 65.142, 3}} {
		w.check(t, "starlink per second", ss)
	}

	// The delay file alone: 11,999 steps of 10 ms.
	d, err := Load("starlink-leoreplayer-example.delay", tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != tracefmt.FormatDelay || d.End != 119990*time.Millisecond {
		t.Fatalf("delay: format %s, duration %v; want delay, 119.99 s", d.Format, d.End)
	}
	ds := d.Stats()
	ms := func(f func(tracefmt.RateStats) float64) func(tracefmt.Stats) float64 {
		return func(s tracefmt.Stats) float64 { return f(s.Delay) }
	}
	for _, w := range []want{
		{"delay mean", ms(func(r tracefmt.RateStats) float64 { return r.Mean }), 10.67, 2},
		{"delay min", ms(func(r tracefmt.RateStats) float64 { return r.Min }), 7, 0},
		{"delay p50", ms(func(r tracefmt.RateStats) float64 { return r.P50 }), 11, 0},
		{"delay p95", ms(func(r tracefmt.RateStats) float64 { return r.P95 }), 13, 0},
		{"delay max", ms(func(r tracefmt.RateStats) float64 { return r.Max }), 68, 0},
	} {
		w.check(t, "starlink delay", ds)
	}
	// The 15-second reconfigurations: PROVENANCE.md's first spikes, and
	// the period.
	if ds.Jumps.Period < 14900*time.Millisecond || ds.Jumps.Period > 15100*time.Millisecond {
		t.Errorf("delay jumps every %v (at %v), want 15 s", ds.Jumps.Period, ds.Jumps.At)
	}
	for i, at := range []float64{8.75, 23.73, 38.74, 53.73, 68.79, 83.74} {
		if i >= len(ds.Jumps.At) || abs(ds.Jumps.At[i].Seconds()-at) > 0.05 {
			t.Errorf("jump %d at %v, PROVENANCE.md says %.2f s", i, ds.Jumps.At, at)
			break
		}
	}
}
