package replay

import (
	"slices"
	"strings"
	"testing"
	"time"

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

// TestImpairmentsUpLoss: with down_loss and up_loss each direction plays
// its own column, on the one clock; a shared loss column plays in both.
func TestImpairmentsUpLoss(t *testing.T) {
	split, err := tracefmt.Read(strings.NewReader("time_s,down_loss,up_loss\n0,0.01,0.5\n0.02,0,0.25\n0.05\n"), "l.csv", tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	down := Impairments{Loss: split, Loop: true}
	up := Impairments{Loss: split, Up: true, Loop: true}
	for _, c := range []struct {
		el       time.Duration
		down, up float64
		next     time.Duration
	}{
		{0, 0.01, 0.5, 20 * ms},
		{20 * ms, 0, 0.25, 50 * ms},
		{55 * ms, 0.01, 0.5, 70 * ms}, // looped
	} {
		_, l, next, ok := down.At(c.el)
		if !ok || l != c.down || next != c.next {
			t.Errorf("downlink At(%v) = loss %v, next %v, %v; want %v, next %v", c.el, l, next, ok, c.down, c.next)
		}
		_, l, next, ok = up.At(c.el)
		if !ok || l != c.up || next != c.next {
			t.Errorf("uplink At(%v) = loss %v, next %v, %v; want %v, next %v", c.el, l, next, ok, c.up, c.next)
		}
	}
	shared := series(t, tracefmt.FormatLoss, 10*ms, "0.1\n0.2\n")
	for _, dirUp := range []bool{false, true} {
		im := Impairments{Loss: shared, Up: dirUp}
		if _, l, _, _ := im.At(15 * ms); l != 0.2 {
			t.Errorf("shared loss column, up=%v: %v, want 0.2", dirUp, l)
		}
	}
	// A delay trace beside it keeps its own column choice.
	both, err := tracefmt.Read(strings.NewReader("time_s,down_delay_ms,up_delay_ms,down_loss,up_loss\n0,10,40,0,1\n1\n"), "b.csv", tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	im := Impairments{Delay: both, Loss: both, Up: true}
	if d, l, _, _ := im.At(0); d != 40*ms || l != 1 {
		t.Errorf("uplink of a split trace: delay %v loss %v, want 40ms and 1", d, l)
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
