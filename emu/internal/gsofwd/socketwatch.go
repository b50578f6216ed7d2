package gsofwd

import "time"

// A SocketWatch estimates how long the bytes a receive loop reads had
// waited in its socket, from looks at the socket's queue: by Little's
// law the mean wait over a window is the bytes queued, averaged over the
// window, over the rate the loop read at. The packet path pays nothing
// for it, and the kernel's receive timestamps would not do: the kernel
// stamps a packet when it enters the gateway, before the delay line
// there holds it. The queue is kernel memory, which overstates the data
// by the buffers' overhead; against those timestamps where no delay line
// stands in front, the estimate read within 15 % of the mean wait.
//
// A window's estimate needs socketWindowBytes read in it: a look that
// catches one datagram on its way to a loop that reads a few a second
// would stand for the whole period.
type SocketWatch struct {
	last  time.Time
	bytes uint64 // the loop's count at the last look

	from   time.Time // the window's start
	queued float64   // bytes queued times how long they stood, this window
	read   uint64    // bytes read this window

	// Over the windows finished: bytes queued times how long they
	// stood, bytes read; and the most bytes a look found queued.
	allQueued float64
	allRead   uint64
	most      int
}

// SocketPeriod is how often a SocketWatch's user looks at the socket
// (SocketQueue.Queued), off the packet loops: a window takes a hundred
// looks.
const SocketPeriod = 10 * time.Millisecond

// The window SocketWatch estimates a wait over, and the bytes the loop
// must have read in it.
const (
	socketWindow      = time.Second
	socketWindowBytes = 128 << 10
)

// Start begins watching at now, when the loop had read received bytes.
func (w *SocketWatch) Start(now time.Time, received uint64) {
	w.last, w.from, w.bytes = now, now, received
}

// Look records a look at now that found queued bytes in the socket, with
// the loop's count of bytes read at received. When it ends a window in
// which the loop read enough, it returns the window's mean wait.
func (w *SocketWatch) Look(now time.Time, queued int, received uint64) (wait time.Duration, ok bool) {
	w.queued += float64(queued) * now.Sub(w.last).Seconds()
	w.read += received - w.bytes
	w.last, w.bytes = now, received
	w.most = max(w.most, queued)
	if now.Sub(w.from) < socketWindow {
		return 0, false
	}
	if w.read >= socketWindowBytes {
		wait, ok = time.Duration(w.queued/float64(w.read)*float64(time.Second)), true
	}
	w.allQueued += w.queued
	w.allRead += w.read
	w.from, w.queued, w.read = now, 0, 0
	return wait, ok
}

// Mean is the mean wait over the windows finished (0 before one).
func (w *SocketWatch) Mean() time.Duration {
	if w.allRead == 0 {
		return 0
	}
	return time.Duration(w.allQueued / float64(w.allRead) * float64(time.Second))
}

// Most is the most bytes a look found queued.
func (w *SocketWatch) Most() int { return w.most }
