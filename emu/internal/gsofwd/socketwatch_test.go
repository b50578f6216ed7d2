package gsofwd

import (
	"testing"
	"time"
)

// TestSocketWatchEstimatesTheWait feeds SocketWatch looks 10 ms apart at
// a loop reading 10 MB/s: a queue that stands at 100 KB is a 10 ms wait;
// a loop that stalls 200 ms of a second, the bytes arriving meanwhile
// piling up and read at once when it resumes, is a fifth of the bytes
// waiting 100 ms on average, 20 ms (21 with the looks' steps), and the
// two seconds' mean is 15.5 ms; a second with less than
// socketWindowBytes read gives no estimate.
func TestSocketWatchEstimatesTheWait(t *testing.T) {
	const rate = 10e6 // bytes a second
	t0 := time.Unix(1000, 0)
	var w SocketWatch
	w.Start(t0, 0)
	now, read := t0, uint64(0)
	// second runs one window of looks; queueAt gives the queue at look i
	// (1..100), readAt the bytes the loop read by then.
	second := func(queueAt func(i int) int, readAt func(i int) uint64) (time.Duration, bool) {
		base := read
		var wait time.Duration
		var ok bool
		for i := 1; i <= 100; i++ {
			now = now.Add(SocketPeriod)
			read = base + readAt(i)
			if d, done := w.Look(now, queueAt(i), read); done {
				wait, ok = d, true
			}
		}
		return wait, ok
	}
	perLook := uint64(rate * SocketPeriod.Seconds())

	wait, ok := second(func(int) int { return 100e3 }, func(i int) uint64 { return uint64(i) * perLook })
	if !ok || wait < 9900*time.Microsecond || wait > 10100*time.Microsecond {
		t.Errorf("a steady 100 KB at 10 MB/s: %v (%v), want 10 ms", wait, ok)
	}
	stall := func(i int) int {
		if i <= 20 {
			return i * int(perLook)
		}
		return 0
	}
	stalledRead := func(i int) uint64 {
		if i <= 20 {
			return 0
		}
		return uint64(i) * perLook
	}
	wait, ok = second(stall, stalledRead)
	if !ok || wait < 20*time.Millisecond || wait > 22*time.Millisecond {
		t.Errorf("a 200 ms stall in a second at 10 MB/s: %v (%v), want 21 ms", wait, ok)
	}
	mean := w.Mean()
	if mean < 15*time.Millisecond || mean > 16*time.Millisecond {
		t.Errorf("mean over both seconds %v, want 15.5 ms", mean)
	}
	// One datagram caught at one look of a quiet second.
	wait, ok = second(func(i int) int {
		if i == 50 {
			return 2048
		}
		return 0
	}, func(i int) uint64 { return uint64(i) * 1000 })
	if ok {
		t.Errorf("a second with 100 KB read gave an estimate, %v", wait)
	}
	if w.most != 20*int(perLook) {
		t.Errorf("most queued %d, want %d", w.most, 20*perLook)
	}
}
