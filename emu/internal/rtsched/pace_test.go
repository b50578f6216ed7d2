package rtsched

import "testing"

func TestNextTarget(t *testing.T) {
	for _, c := range []struct {
		live    uint64
		percent int
		want    uint64
		on      bool
	}{
		{live: 10 << 20, percent: 100, want: 20 << 20, on: true},
		{live: 10 << 20, percent: 50, want: 15 << 20, on: true},
		{live: 1 << 20, percent: 100, want: heapMinimum, on: true},     // the runtime's floor
		{live: 1 << 20, percent: 200, want: 2 * heapMinimum, on: true}, // scaled as GOGC scales it
		{live: 0, percent: 100, want: heapMinimum, on: true},
		{live: 10 << 20, percent: 0, want: 10 << 20, on: true},
		{live: 10 << 20, percent: -1, on: false}, // GOGC=off stays off
	} {
		got, on := nextTarget(c.live, c.percent)
		if got != c.want || on != c.on {
			t.Errorf("nextTarget(%d, %d) = %d, %v; want %d, %v", c.live, c.percent, got, on, c.want, c.on)
		}
	}
}
