package tracefmt

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// stepTrace is 10 Mbit/s for 10 s, 30 for 10 s, 10 for 10 s.
func stepTrace() *Trace {
	return &Trace{Source: "step", Steps: []Step{{Down: 10e6}, {At: 10 * s, Down: 30e6}, {At: 20 * s, Down: 10e6}}, End: 30 * s}
}

func TestStepAt(t *testing.T) {
	tr := stepTrace()
	for _, c := range []struct {
		d    time.Duration
		loop bool
		down float64
		next time.Duration
		ok   bool
	}{
		{0, false, 10e6, 10 * s, true},
		{-s, false, 10e6, 10 * s, true},
		{10*s - 1, false, 10e6, 10 * s, true},
		{10 * s, false, 30e6, 20 * s, true},
		{25 * s, false, 10e6, 30 * s, true},
		{30 * s, false, 0, 30 * s, false},
		{time.Hour, false, 0, 30 * s, false},
		{30 * s, true, 10e6, 40 * s, true},
		{55 * s, true, 10e6, 60 * s, true},
		{95 * s, true, 10e6, 100 * s, true},
		{71 * s, true, 30e6, 80 * s, true},
	} {
		st, next, ok := tr.StepAt(c.d, c.loop)
		if st.Down != c.down || next != c.next || ok != c.ok {
			t.Errorf("StepAt(%v, loop=%v) = %v, %v, %v; want %v, %v, %v", c.d, c.loop, st.Down, next, ok, c.down, c.next, c.ok)
		}
	}
	if _, _, ok := (&Trace{}).StepAt(0, true); ok {
		t.Error("empty trace has a step")
	}
}

// The trace player calls StepAt at every step; it must not allocate.
func TestStepAtDoesNotAllocate(t *testing.T) {
	tr := stepTrace()
	var d time.Duration
	if n := testing.AllocsPerRun(1000, func() {
		_, next, _ := tr.StepAt(d, true)
		d = next
	}); n != 0 {
		t.Errorf("StepAt allocates %v times per call", n)
	}
}

func BenchmarkStepAt(b *testing.B) {
	tr := &Trace{End: 100000 * time.Millisecond}
	for i := range 10000 {
		tr.Steps = append(tr.Steps, Step{At: time.Duration(i) * 10 * time.Millisecond, Down: float64(i)})
	}
	b.ReportAllocs()
	var d time.Duration
	for b.Loop() {
		_, d, _ = tr.StepAt(d, true)
	}
}

func TestValidate(t *testing.T) {
	if err := stepTrace().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Trace){
		"no steps":       func(tr *Trace) { tr.Steps = nil },
		"late start":     func(tr *Trace) { tr.Steps[0].At = 1 },
		"unsorted":       func(tr *Trace) { tr.Steps[2].At = 10 * s },
		"end too early":  func(tr *Trace) { tr.End = 20 * s },
		"negative rate":  func(tr *Trace) { tr.Steps[1].Down = -1 },
		"NaN rate":       func(tr *Trace) { tr.Steps[1].Down = math.NaN() },
		"huge rate":      func(tr *Trace) { tr.Steps[1].Down = 2 * MaxRate },
		"negative up":    func(tr *Trace) { tr.HasUp, tr.Steps[1].Up = true, -1 },
		"negative delay": func(tr *Trace) { tr.HasDelay, tr.Steps[1].Delay = true, -1 },
		"loss above 1":   func(tr *Trace) { tr.HasLoss, tr.Steps[1].Loss = true, 1.5 },
		"up loss NaN":    func(tr *Trace) { tr.HasLoss, tr.HasUpLoss, tr.Steps[1].UpLoss = true, true, math.NaN() },
		"too long":       func(tr *Trace) { tr.End = MaxDuration + 1 },
	} {
		tr := stepTrace()
		mutate(tr)
		err := tr.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "step") {
			t.Errorf("%s: Validate() = %v", name, err)
		}
	}
}

func TestStats(t *testing.T) {
	st := stepTrace().Stats()
	want := RateStats{Mean: 50.0 / 3, Min: 10, Max: 30, P5: 10, P50: 10, P95: 30}
	if math.Abs(st.Down.Mean-want.Mean) > 1e-12 || st.Down.Min != want.Min || st.Down.Max != want.Max ||
		st.Down.P5 != want.P5 || st.Down.P50 != want.P50 || st.Down.P95 != want.P95 {
		t.Errorf("Stats().Down = %+v, want %+v", st.Down, want)
	}
	if st.Duration != 30*s || st.Steps != 3 || st.HasUp {
		t.Errorf("Stats() = %+v", st)
	}
	// Equal steps: P50 of an even count is the mean of the middle two, like
	// the median PROVENANCE.md prints; splitting a step changes nothing.
	even := &Trace{Steps: []Step{{Down: 4e6}, {At: s, Down: 1e6}, {At: 2 * s, Down: 3e6}, {At: 3 * s, Down: 2e6}}, End: 4 * s}
	if p := even.Stats().Down.P50; p != 2.5 {
		t.Errorf("median of 1,2,3,4 = %v, want 2.5", p)
	}
	split := &Trace{Steps: []Step{{Down: 4e6}, {At: s, Down: 1e6}, {At: 1500 * time.Millisecond, Down: 1e6}, {At: 2 * s, Down: 3e6}, {At: 3 * s, Down: 2e6}}, End: 4 * s}
	if got, want := split.Stats().Down, even.Stats().Down; got != want {
		t.Errorf("split step changes stats: %+v vs %+v", got, want)
	}
	// Time-weighted: 1 Mbit/s for 9 s, 100 for 1 s.
	skew := &Trace{Steps: []Step{{Down: 1e6, Up: 2e6}, {At: 9 * s, Down: 100e6, Up: 2e6}}, End: 10 * s, HasUp: true}
	st = skew.Stats()
	if st.Down.P50 != 1 || st.Down.P95 != 100 || math.Abs(st.Down.Mean-10.9) > 1e-12 || st.Up.Mean != 2 || !st.HasUp {
		t.Errorf("skewed stats %+v", st)
	}
}
