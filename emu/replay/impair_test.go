package replay

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/tracefmt"
)

const ms = time.Millisecond

func series(t *testing.T, f tracefmt.Format, step time.Duration, lines string) *tracefmt.Trace {
	t.Helper()
	tr, err := tracefmt.Read(strings.NewReader(lines), t.Name(), tracefmt.ReadOptions{Format: f, Step: step})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestImpairmentsAt plays a delay and a loss series on one clock: each
// value at its time, the next change the earlier of the two, both looping
// on their own lengths.
func TestImpairmentsAt(t *testing.T) {
	im := Impairments{
		Delay: series(t, tracefmt.FormatDelay, 10*ms, "10\n30\n20\n"), // 30 ms long
		Loss:  series(t, tracefmt.FormatLoss, 25*ms, "0\n0.5\n"),      // 50 ms long
		Loop:  true,
	}
	for _, c := range []struct {
		el    time.Duration
		delay time.Duration
		loss  float64
		next  time.Duration
	}{
		{0, 10 * ms, 0, 10 * ms},
		{9 * ms, 10 * ms, 0, 10 * ms},
		{10 * ms, 30 * ms, 0, 20 * ms},
		{22 * ms, 20 * ms, 0, 25 * ms}, // the loss changes first
		{25 * ms, 20 * ms, 0.5, 30 * ms},
		{31 * ms, 10 * ms, 0.5, 40 * ms}, // the delay series looped
		{55 * ms, 20 * ms, 0, 60 * ms},   // both looped
	} {
		d, l, next, ok := im.At(c.el)
		if !ok || d != c.delay || l != c.loss || next != c.next {
			t.Errorf("At(%v) = %v, %v, next %v, %v; want %v, %v, next %v", c.el, d, l, next, ok, c.delay, c.loss, c.next)
		}
	}
	// Without loop the last values hold and the schedule ends.
	im.Loop = false
	if d, l, _, ok := im.At(time.Second); ok || d != 20*ms || l != 0.5 {
		t.Errorf("after the end: %v, %v, ok %v; want the last values held, ok false", d, l, ok)
	}
	// The uplink reads its own column.
	csv, err := tracefmt.Read(strings.NewReader("time_s,down_delay_ms,up_delay_ms\n0,10,40\n1\n"), "d.csv", tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	up := Impairments{Delay: csv, Up: true}
	if d, _, _, _ := up.At(0); d != 40*ms {
		t.Errorf("uplink delay %v, want 40ms", d)
	}
}

// TestSchedulesFollowTheSources: a configuration's delay and loss sources
// become each direction's schedule; a direction's own trace beside a link
// trace that carries the same column is an error naming both keys.
func TestSchedulesFollowTheSources(t *testing.T) {
	dir := t.TempDir()
	delay := filepath.Join(dir, "d.delay")
	os.WriteFile(delay, []byte("10\n20\n"), 0o644)
	resolve := func(sets ...string) *config.Config {
		t.Helper()
		var ss []config.Setting
		for _, s := range sets {
			st, err := config.ParseSetting(s)
			if err != nil {
				t.Fatal(err)
			}
			ss = append(ss, st)
		}
		c, err := config.Resolve("throughput", ss)
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}

	s, err := Schedules(resolve("link1.trace=starlink", "link2.trace=none", "link2.down.delay="+delay))
	if err != nil {
		t.Fatal(err)
	}
	for d := range 2 {
		if im := s[0][d].Impair; im == nil || im.Delay == nil || im.Delay != s[0][0].Rate.Trace || im.Loss != nil {
			t.Errorf("link1 dir %d: %+v; want the Starlink trace's delay", d, im)
		}
	}
	if im := s[1][0].Impair; im == nil || im.Delay == nil || im.Delay.Source != delay || s[1][0].Rate != nil {
		t.Errorf("link2.down: %+v; want %s's delay at a constant rate", im, delay)
	}
	if s[1][1].Impair != nil {
		t.Errorf("link2.up: %+v; want constant", s[1][1].Impair)
	}
	// StaticA carries no delay: the constants hold.
	if s, err := Schedules(resolve()); err != nil || s[0][0].Impair != nil {
		t.Errorf("default configuration: %v, %+v", err, s[0][0].Impair)
	}
	// A constant holds the delay of a direction its link's trace would drive.
	if s, err := Schedules(resolve("link1.trace=starlink", "link1.up.delay=11ms")); err != nil || s[0][1].Impair != nil || s[0][0].Impair == nil {
		t.Errorf("explicit constant: %v, down %+v, up %+v", err, s[0][0].Impair, s[0][1].Impair)
	}

	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"link1.trace=starlink", "link1.down.delay=" + delay}, "link1.down.delay_trace=" + delay + " and link1.trace=starlink both set the delay"},
		{[]string{"link1.down.delay=nosuch.delay"}, "link1.down.delay_trace: no such trace"},
		{[]string{"link1.down.delay=StaticA"}, "link1.down.delay_trace: StaticA carries no delay"},
	} {
		_, err := Schedules(resolve(c.sets...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to contain %q", c.sets, err, c.want)
		}
	}
}

// TestImpairmentTraceOptions: offset, duration and time scale reshape a
// delay trace as they do a rate trace.
func TestImpairmentTraceOptions(t *testing.T) {
	dir := t.TempDir()
	delay := filepath.Join(dir, "d.delay")
	os.WriteFile(delay, []byte("10\n20\n30\n40\n"), 0o644)
	tr, err := LoadTrace(delay, config.TraceOptions{Offset: 10 * ms, Duration: 20 * ms, TimeScale: 2, Step: 10 * ms})
	if err != nil {
		t.Fatal(err)
	}
	im := Impairments{Delay: tr, Loop: true}
	for _, c := range []struct{ el, want time.Duration }{{0, 20 * ms}, {19 * ms, 20 * ms}, {20 * ms, 30 * ms}, {40 * ms, 20 * ms}} {
		if d, _, _, _ := im.At(c.el); d != c.want {
			t.Errorf("At(%v) = %v, want %v", c.el, d, c.want)
		}
	}
}

// TestImpairmentsJumps: the jumps are those of the delay as played,
// looping, at times since the epoch; without loop the trace's last value
// holds and no jump follows.
func TestImpairmentsJumps(t *testing.T) {
	lines := strings.Repeat("10\n", 5) + "40\n" + strings.Repeat("10\n", 19) // 25 s, one jump at 5 s
	im := Impairments{Delay: series(t, tracefmt.FormatDelay, time.Second, lines), Loop: true}
	j := im.Jumps(80 * time.Second)
	want := []time.Duration{5 * time.Second, 30 * time.Second, 55 * time.Second}
	if !slices.Equal(j.At, want) || j.Period != 25*time.Second || j.Threshold != 15*ms {
		t.Errorf("looping: jumps %v every %v above %v; want %v every 25s above 15ms", j.At, j.Period, j.Threshold, want)
	}
	im.Loop = false
	if j := im.Jumps(80 * time.Second); !slices.Equal(j.At, want[:1]) || j.Period != 0 {
		t.Errorf("without loop: jumps %v every %v; want [5s], no period", j.At, j.Period)
	}
	if j := (&Impairments{}).Jumps(time.Minute); len(j.At) != 0 {
		t.Errorf("no delay trace: jumps %v", j.At)
	}
}
