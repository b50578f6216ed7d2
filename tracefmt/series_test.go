package tracefmt

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestReadDelaySeries(t *testing.T) {
	tr, err := Read(strings.NewReader("12\n12\n\n16\n14.5\n12\n"), "x.delay", ReadOptions{Format: FormatDelay})
	if err != nil {
		t.Fatal(err)
	}
	// Equal neighbours merge: 12 (0-20 ms), 16, 14.5, 12; five lines of 10 ms.
	want := []Step{
		{At: 0, Delay: 12 * time.Millisecond},
		{At: 20 * time.Millisecond, Delay: 16 * time.Millisecond},
		{At: 30 * time.Millisecond, Delay: 14500 * time.Microsecond},
		{At: 40 * time.Millisecond, Delay: 12 * time.Millisecond},
	}
	if !tr.HasDelay || tr.HasUpDelay || tr.HasLoss || tr.End != 50*time.Millisecond || len(tr.Steps) != len(want) {
		t.Fatalf("got %+v", tr)
	}
	for i, w := range want {
		if tr.Steps[i] != w {
			t.Errorf("step %d = %+v, want %+v", i, tr.Steps[i], w)
		}
	}
	// The step is an option.
	tr, err = Read(strings.NewReader("5\n6\n"), "x.delay", ReadOptions{Format: FormatDelay, Step: time.Second})
	if err != nil || tr.End != 2*time.Second || tr.Steps[1].At != time.Second {
		t.Fatalf("1 s steps: %+v, %v", tr, err)
	}
}

func TestReadLossSeries(t *testing.T) {
	tr, err := Read(strings.NewReader("0\n0.5\n1\n"), "x.loss", ReadOptions{Format: FormatLoss, Step: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.HasLoss || tr.HasDelay || tr.End != 15*time.Second || tr.Steps[1].Loss != 0.5 || tr.Steps[2].Loss != 1 {
		t.Fatalf("got %+v", tr)
	}
}

func TestSeriesErrorsNameLineAndValue(t *testing.T) {
	for _, c := range []struct {
		f        Format
		in, want string
		sentinel error
	}{
		{FormatDelay, "10\n-3\n", `x:2: delay_ms: "-3": negative value`, ErrNegative},
		{FormatDelay, "10\nabc\n", `x:2: delay_ms: "abc"`, nil},
		{FormatLoss, "0\n0.1\n1.5\n", `x:3: loss: "1.5": value out of range`, ErrOutOfRange},
		{FormatDelay, "\n\n", `x:3: delay_ms: trace is empty`, ErrEmpty},
	} {
		_, err := Read(strings.NewReader(c.in), "x", ReadOptions{Format: c.f})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: err = %v, want %q", c.f, c.in, err, c.want)
		}
		if c.sentinel != nil && !errors.Is(err, c.sentinel) {
			t.Errorf("%s %q: err = %v, want it to wrap %v", c.f, c.in, err, c.sentinel)
		}
	}
}

func TestWithImpairments(t *testing.T) {
	// Rate steps at 0 and 25 ms, 40 ms long; delay steps every 10 ms for 30 ms.
	rate := &Trace{Steps: []Step{{At: 0, Down: 1e6}, {At: 25 * time.Millisecond, Down: 2e6}}, End: 40 * time.Millisecond}
	delay, err := Read(strings.NewReader("10\n20\n30\n"), "d", ReadOptions{Format: FormatDelay})
	if err != nil {
		t.Fatal(err)
	}
	m := rate.WithImpairments(delay)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	want := []struct {
		at    time.Duration
		down  float64
		delay time.Duration
	}{{0, 1e6, 10 * ms}, {10 * ms, 1e6, 20 * ms}, {20 * ms, 1e6, 30 * ms}, {25 * ms, 2e6, 30 * ms}}
	if m.End != 40*ms || !m.HasDelay || len(m.Steps) != len(want) {
		t.Fatalf("merged: %+v", m)
	}
	for i, w := range want {
		s := m.Steps[i]
		if s.At != w.at || s.Down != w.down || s.Delay != w.delay {
			t.Errorf("step %d = %+v, want at %v down %v delay %v", i, s, w.at, w.down, w.delay)
		}
	}
}

func TestCSVDirectionDelays(t *testing.T) {
	in := "time_s,down_delay_ms,up_delay_ms\n0,10,30\n1,12,30\n2\n"
	tr, err := Read(strings.NewReader(in), "d.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.HasDelay || !tr.HasUpDelay || tr.Steps[0].Delay != 10*time.Millisecond || tr.Steps[0].UpDelay != 30*time.Millisecond || tr.Steps[1].Down != 0 {
		t.Fatalf("got %+v", tr)
	}
	var b strings.Builder
	if err := WriteCSV(&b, tr); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "time_s,down_mbps,down_delay_ms,up_delay_ms\n") {
		t.Errorf("WriteCSV wrote %q", b.String())
	}
	back, err := Read(strings.NewReader(b.String()), "back", ReadOptions{})
	if err != nil || back.Steps[1].UpDelay != 30*time.Millisecond || back.Steps[1].Delay != 12*time.Millisecond {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	// delay_ms beside a direction's column is ambiguous; a rate-less file
	// without delay or loss is not a trace.
	for _, bad := range []string{"time_s,delay_ms,up_delay_ms\n0,1,2\n1\n", "time_s,up_mbps\n0,1\n1\n", "time_s,up_delay_ms\n0,1\n1\n"} {
		if _, err := Read(strings.NewReader(bad), "bad.csv", ReadOptions{}); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestJumps(t *testing.T) {
	// 11 ms, with a 40 ms spike of 50 ms every 15 s for 70 s.
	var b strings.Builder
	for i := 0; i < 7000; i++ {
		v := "11"
		if i%1500 >= 500 && i%1500 < 504 {
			v = "50"
		}
		b.WriteString(v + "\n")
	}
	tr, err := Read(strings.NewReader(b.String()), "j", ReadOptions{Format: FormatDelay})
	if err != nil {
		t.Fatal(err)
	}
	j := tr.Stats().Jumps
	if len(j.At) != 5 || j.At[0] != 5*time.Second || j.Period != 15*time.Second {
		t.Errorf("jumps %v, period %v; want 5 from 5 s every 15 s", j.At, j.Period)
	}
	if j.Threshold != 16*time.Millisecond {
		t.Errorf("threshold %v, want 16ms (median 11 ms + 5 ms)", j.Threshold)
	}
}

// TestCSVDirectionLosses: down_loss and up_loss split the loss as
// down_delay_ms and up_delay_ms split the delay, by the same rules.
func TestCSVDirectionLosses(t *testing.T) {
	in := "time_s,down_mbps,down_loss,up_loss\n0,10,0.01,0.25\n1,10,0,0.25\n2\n"
	tr, err := Read(strings.NewReader(in), "l.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.HasLoss || !tr.HasUpLoss || tr.HasDelay || tr.Steps[0].Loss != 0.01 || tr.Steps[0].UpLoss != 0.25 || tr.Steps[1].Loss != 0 {
		t.Fatalf("got %+v", tr)
	}
	var b strings.Builder
	if err := WriteCSV(&b, tr); err != nil {
		t.Fatal(err)
	}
	if want := "time_s,down_mbps,down_loss,up_loss\n0,10,0.01,0.25\n1,10,0,0.25\n2,10,0,0.25\n"; b.String() != want {
		t.Errorf("WriteCSV wrote %q, want %q", b.String(), want)
	}
	back, err := Read(strings.NewReader(b.String()), "back", ReadOptions{})
	if err != nil || !back.HasUpLoss || back.Steps[1].UpLoss != 0.25 || back.Steps[1].Loss != 0 {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	// Both splits together, in any order, and a rate-less file.
	in = "up_loss,time_s,up_delay_ms,down_loss,down_delay_ms\n0.5,0,30,0.1,10\n0.5,1,30,0.1,10\n"
	tr, err = Read(strings.NewReader(in), "both.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w := (Step{Delay: 10 * time.Millisecond, UpDelay: 30 * time.Millisecond, Loss: 0.1, UpLoss: 0.5}); tr.Steps[0] != w || !tr.HasUpDelay || !tr.HasUpLoss {
		t.Errorf("got %+v, want step %+v", tr, w)
	}
	b.Reset()
	if err := WriteCSV(&b, tr); err != nil {
		t.Fatal(err)
	}
	if want := "time_s,down_mbps,down_delay_ms,up_delay_ms,down_loss,up_loss\n0,0,10,30,0.1,0.5\n1,0,10,30,0.1,0.5\n"; b.String() != want {
		t.Errorf("WriteCSV wrote %q, want %q", b.String(), want)
	}
	// One loss column still writes as one.
	tr, err = Read(strings.NewReader("time_s,loss\n0,0.5\n1\n"), "one.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteCSV(&b, tr); err != nil || tr.HasUpLoss || b.String() != "time_s,down_mbps,loss\n0,0,0.5\n1,0,0.5\n" {
		t.Errorf("one loss column: %+v wrote %q, %v", tr, b.String(), err)
	}
	for _, bad := range []string{"time_s,loss,down_loss\n0,1,0\n1\n", "time_s,up_loss\n0,1\n1\n", "time_s,down_loss\n0,1\n1\n"} {
		if _, err := Read(strings.NewReader(bad), "bad.csv", ReadOptions{}); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// TestLossStatsAndReshaping: the uplink's loss has its own statistics, and
// Transform and WithImpairments keep the split.
func TestLossStatsAndReshaping(t *testing.T) {
	split := read(t, "time_s,down_loss,up_loss\n0,0.1,0.4\n3,0.2,0\n4\n", ReadOptions{})
	st := split.Stats()
	if !st.HasLoss || !st.HasUpLoss || !close(st.Loss.Mean, 0.125) || !close(st.UpLoss.Mean, 0.3) || st.UpLoss.Max != 0.4 || st.UpLoss.Min != 0 {
		t.Errorf("stats %+v / %+v", st.Loss, st.UpLoss)
	}
	if st := read(t, "time_s,loss\n0,0.1\n1\n", ReadOptions{}).Stats(); !st.HasLoss || st.HasUpLoss {
		t.Errorf("one loss column: HasLoss %v HasUpLoss %v", st.HasLoss, st.HasUpLoss)
	}
	cut, err := split.Transform(Options{Offset: 2 * s, TimeScale: 2})
	if err != nil {
		t.Fatal(err)
	}
	sameSteps(t, cut, []Step{{Loss: 0.1, UpLoss: 0.4}, {At: 2 * s, Loss: 0.2}}, 4*s)
	if !cut.HasUpLoss {
		t.Error("Transform dropped HasUpLoss")
	}
	rate := &Trace{Steps: []Step{{Down: 1e6}, {At: 2 * s, Down: 2e6}}, End: 5 * s}
	m := rate.WithImpairments(split)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	sameSteps(t, m, []Step{{Down: 1e6, Loss: 0.1, UpLoss: 0.4}, {At: 2 * s, Down: 2e6, Loss: 0.1, UpLoss: 0.4}, {At: 3 * s, Down: 2e6, Loss: 0.2}}, 5*s)
	if !m.HasLoss || !m.HasUpLoss || m.HasDelay {
		t.Errorf("merged flags: %+v", m)
	}
	// A delay series over the split-loss trace keeps its losses.
	d := read(t, "7\n", ReadOptions{Format: FormatDelay, Step: 5 * s})
	if m := split.WithImpairments(d); !m.HasUpLoss || !m.HasDelay || m.Steps[0].UpLoss != 0.4 || m.Steps[0].Delay != 7*time.Millisecond {
		t.Errorf("delay over split loss: %+v", m)
	}
}

// TestWriteSeries: one line per step with the value in force at its start,
// the uplink's own column where there is one, and the reader gives the
// values back.
func TestWriteSeries(t *testing.T) {
	ms := time.Millisecond
	tr := &Trace{
		Source: "rec",
		Steps: []Step{
			{Delay: 12 * ms, UpDelay: 30 * ms, Loss: 0, UpLoss: 0.5},
			{At: 25 * ms, Delay: 12500 * time.Microsecond, UpDelay: 31*ms + 7, Loss: 0.125, UpLoss: 0.5},
			{At: 30 * ms, Delay: 14 * ms, UpDelay: 30 * ms, Loss: 1, UpLoss: 0},
		},
		End:      45 * ms,
		HasDelay: true, HasUpDelay: true, HasLoss: true, HasUpLoss: true,
	}
	// Lines start at 0, 10, 20, 30, 40 ms: 45 ms takes five. The change at
	// 25 ms shows from 30 ms, where the third step has begun, so the
	// second step shows nowhere in 10 ms steps; 5 ms steps show it.
	for _, c := range []struct {
		f    Format
		up   bool
		step time.Duration
		want string
	}{
		{FormatDelay, false, 0, "12\n12\n12\n14\n14\n"},
		{FormatDelay, true, 10 * ms, "30\n30\n30\n30\n30\n"},
		{FormatDelay, false, 5 * ms, "12\n12\n12\n12\n12\n12.5\n14\n14\n14\n"},
		{FormatDelay, true, 5 * ms, "30\n30\n30\n30\n30\n31.000007\n30\n30\n30\n"},
		{FormatLoss, false, 5 * ms, "0\n0\n0\n0\n0\n0.125\n1\n1\n1\n"},
		{FormatLoss, true, 15 * ms, "0.5\n0.5\n0\n"},
		{FormatDelay, false, 45 * ms, "12\n"},
		{FormatDelay, false, time.Hour, "12\n"},
	} {
		var b strings.Builder
		if err := WriteSeries(&b, tr, c.f, c.up, c.step); err != nil {
			t.Errorf("%s up=%v step %v: %v", c.f, c.up, c.step, err)
			continue
		}
		if b.String() != c.want {
			t.Errorf("%s up=%v step %v: wrote %q, want %q", c.f, c.up, c.step, b.String(), c.want)
		}
		checkSeriesRoundTrip(t, tr, c.f, c.up, c.step, b.String())
	}
	// One shared column serves the uplink too (mm-delay's rule).
	shared := read(t, "time_s,delay_ms,loss\n0,20,0.01\n0.02\n", ReadOptions{})
	for _, f := range []Format{FormatDelay, FormatLoss} {
		var down, up strings.Builder
		if err := WriteSeries(&down, shared, f, false, 0); err != nil {
			t.Fatal(err)
		}
		if err := WriteSeries(&up, shared, f, true, 0); err != nil {
			t.Fatal(err)
		}
		if down.String() != up.String() || strings.Count(down.String(), "\n") != 2 {
			t.Errorf("%s: down %q, up %q; want the same two lines", f, down.String(), up.String())
		}
	}
	rateOnly := &Trace{Source: "rate", Steps: []Step{{Down: 1e6}}, End: s}
	for name, c := range map[string]struct {
		tr   *Trace
		f    Format
		step time.Duration
		want string
	}{
		"no delay":       {rateOnly, FormatDelay, 0, "rate: trace carries no delay to write as a delay series"},
		"no loss":        {rateOnly, FormatLoss, 0, "rate: trace carries no loss to write as a loss series"},
		"not a series":   {tr, FormatCSV, 0, `rec: WriteSeries writes a delay or loss series, not "csv"`},
		"negative step":  {tr, FormatDelay, -ms, "must not be negative"},
		"too many lines": {&Trace{Steps: []Step{{}}, End: s, HasDelay: true}, FormatDelay, 1, "would take 1000000000 lines, more than 100000000"},
		"invalid trace":  {&Trace{Source: "x"}, FormatDelay, 0, "invalid trace"},
		"past MaxDuration": {&Trace{Steps: []Step{{}}, End: MaxDuration, HasDelay: true}, FormatDelay, time.Hour,
			"longer than a trace may last"},
	} {
		err := WriteSeries(&strings.Builder{}, c.tr, c.f, false, c.step)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", name, err, c.want)
		}
	}
}

// checkSeriesRoundTrip reads a written series back with the same step and
// compares it with the trace at each line's start.
func checkSeriesRoundTrip(t *testing.T, tr *Trace, f Format, up bool, step time.Duration, written string) {
	t.Helper()
	back, err := Read(strings.NewReader(written), "back", ReadOptions{Format: f, Step: step})
	if err != nil {
		t.Fatalf("reading %s back: %v", f, err)
	}
	if step == 0 {
		step = DefaultStep
	}
	if back.End < tr.End || back.End-tr.End >= step {
		t.Fatalf("read back %v long, trace %v in steps of %v", back.End, tr.End, step)
	}
	for at := time.Duration(0); at < back.End; at += step {
		w, _, _ := tr.StepAt(at, false)
		g, _, _ := back.StepAt(at, false)
		wd, wl := w.Delay, w.Loss
		if up && tr.HasUpDelay {
			wd = w.UpDelay
		}
		if up && tr.HasUpLoss {
			wl = w.UpLoss
		}
		if f == FormatDelay && g.Delay != wd || f == FormatLoss && g.Loss != wl {
			t.Fatalf("%s up=%v at %v: read back %+v, trace %+v", f, up, at, g, w)
		}
	}
}
