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
