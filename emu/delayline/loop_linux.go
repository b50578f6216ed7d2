package delayline

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/procstat"
)

// Loop runs a Line on an NFQUEUE, configured as QueueConfig says.
//
// Each loop is a goroutine locked to its own thread, which needs one of the
// Go scheduler's Ps whenever it wakes. If every P is held by goroutines the
// OS has descheduled (a busy machine), the loop waits for them however high
// its own priority. A program running loops should set GOMAXPROCS to at
// least the number of CPUs plus the number of loops (and other locked
// packet threads) so that an idle P is there.
type Loop struct {
	q    *nfq.Queue
	l    *Line
	stop atomic.Bool
	done chan struct{}
	err  error
	once sync.Once
	tid  atomic.Int32 // OS thread of the loop, for CPUTime and TID

	lastArrival time.Time
	lastStamped bool // the last arrival's kernel timestamp was believed

	want    nfq.Sched
	name    string
	sched   nfq.Sched // set before started is closed
	started chan struct{}
}

// QueueConfig is the queue configuration a delay line wants, for queue num
// in namespace nsFd. perPacket (Params.PerPacket, or a trace that carries
// loss) has the kernel segment GSO super-packets before queueing them, so
// every wire packet gets its own loss draw and delay.
func QueueConfig(nsFd int, num uint16, perPacket bool) nfq.Config {
	return nfq.Config{
		NetNS: nsFd, Num: num,
		// The kernel reports packet lengths only when it copies something;
		// the payload itself is not needed.
		CopyMode: nfq.CopyPacket, CopyRange: 1,
		// Otherwise GSO super-packets stay whole: one verdict for up to
		// 64 KB, which a line that only delays (in order) can give.
		GSO: !perPacket, MaxQueueLen: 65536,
		Batch: batch,
		// Arrival times from the kernel, independent of when the loop gets
		// to read the packets (see Loop.arrival).
		Timestamps: true,
	}
}

// batch is how many packets one wake-up reads at most.
const batch = 256

// Options tune a Loop; the zero value is the default.
type Options struct {
	// Sched is how the loop's thread is scheduled; default (zero)
	// nfq.SchedRealtime, the policy that keeps release times under load.
	Sched nfq.Sched
	// Name names the loop's OS thread (procstat.NameThread: at most 15
	// bytes, so top -H and the run's readings show it); "" leaves the
	// name the process gave it.
	Name string
}

// Start runs l on q until Close, on a goroutine locked to its own OS thread
// with a 1 ns timer slack and real-time scheduling (Options.Sched). Each
// wake-up reads every queued packet's metadata, releases what is due and
// answers with one write of verdicts. While the line holds packets in
// order, the loop sleeps until the next due time (at most deferMax) and
// leaves new arrivals in the kernel meanwhile: none of them can be due
// earlier, and their kernel timestamps keep their arrival times. With
// nothing held, with reordering, or without kernel timestamps, it also
// wakes for each arrival.
func Start(q *nfq.Queue, l *Line) *Loop { return StartWith(q, l, Options{}) }

// StartWith is Start with options.
func StartWith(q *nfq.Queue, l *Line, o Options) *Loop {
	lp := &Loop{q: q, l: l, done: make(chan struct{}), want: o.Sched, name: o.Name, started: make(chan struct{})}
	go lp.run()
	<-lp.started
	return lp
}

// Sched returns the scheduling the loop's thread actually got.
func (lp *Loop) Sched() nfq.Sched { return lp.sched }

func (lp *Loop) run() {
	defer close(lp.done)
	restore, got, err := nfq.LockThreadPrecise(lp.want)
	lp.sched = got
	if err == nil {
		lp.tid.Store(int32(procstat.TID()))
		if lp.name != "" {
			_ = procstat.NameThread(lp.name) // a name is a convenience
		}
	}
	close(lp.started)
	if err != nil {
		lp.err = err
		return
	}
	defer restore()
	lp.err = lp.serve()
	// Stopping: hand every held packet to the kernel rather than strand it.
	lp.l.ReleaseAll(lp.q)
	if err := lp.q.Flush(); err != nil && lp.err == nil && !errors.Is(err, nfq.ErrClosed) {
		lp.err = err
	}
}

// deferMax bounds how long the loop leaves arrivals unread while it holds
// packets: the socket buffer must not fill, and lost packets get their drop
// verdicts in time.
const deferMax = 2 * time.Millisecond

// maxLag is the oldest kernel timestamp the loop believes (see arrival).
const maxLag = 100 * time.Millisecond

func (lp *Loop) serve() error {
	pkts := make([]nfq.Packet, batch)
	var next time.Time // due time of the next held packet; zero: none held
	full := false      // the last read filled pkts: read again at once
	stamped := false   // the last packets read carried kernel timestamps
	for !lp.stop.Load() {
		var n int
		var err error
		switch {
		case full:
			n, err = lp.q.Poll(pkts)
		case !next.IsZero() && stamped && lp.l.InOrder():
			// No arrival can be due before next, and each one's kernel
			// timestamp keeps its arrival time: sleep until next without
			// waking for every packet, then read everything at once.
			wake := next
			if lim := time.Now().Add(deferMax); lim.Before(wake) {
				wake = lim
			}
			if err = lp.q.Sleep(wake); err == nil {
				n, err = lp.q.Poll(pkts)
			}
		default:
			n, err = lp.q.Recv(pkts, next)
		}
		if err != nil {
			if errors.Is(err, nfq.ErrClosed) && lp.stop.Load() {
				return nil
			}
			return fmt.Errorf("delayline: queue %d: %w", lp.q.Num(), err)
		}
		now := time.Now()
		for i := range pkts[:n] {
			lp.l.Arrive(lp.arrival(now, &pkts[i]), pkts[i].ID, pkts[i].Len)
		}
		if n > 0 {
			stamped = lp.lastStamped
		}
		full = n == len(pkts)
		var ok bool
		next, ok = lp.l.Release(now, lp.q)
		if !ok {
			next = time.Time{}
		}
		if err := lp.q.Flush(); err != nil {
			return fmt.Errorf("delayline: queue %d: %w", lp.q.Num(), err)
		}
	}
	return nil
}

// arrival is when packet p reached the queue: the kernel's receive
// timestamp when it has one (packets waiting while the loop was busy or
// not yet scheduled are not delayed by that wait), else now, the time the
// loop read it. A stamp from the future, or older than maxLag, is not
// believed: the loop reads every packet within deferMax plus any time the
// machine kept it from running, and a larger lag means the wall clock
// stepped (the kernel stamps with it). Arrivals never go backwards: the
// line needs them in order.
func (lp *Loop) arrival(now time.Time, p *nfq.Packet) time.Time {
	t := now
	lp.lastStamped = false
	if !p.Time.IsZero() {
		// p.Time has no monotonic reading: now.Sub compares wall clocks,
		// and the result moves onto now's monotonic clock.
		if lag := now.Sub(p.Time); lag >= 0 && lag < maxLag {
			lp.l.c.ReadLag.Add(lag)
			t = now.Add(-lag)
			lp.lastStamped = true
		}
	}
	if t.Before(lp.lastArrival) {
		t = lp.lastArrival
	}
	lp.lastArrival = t
	return t
}

// Snapshot returns the line's counters and the kernel queue's overflow
// drops. Safe from any goroutine.
func (lp *Loop) Snapshot() Snapshot {
	s := lp.l.Counters().Snapshot()
	if st, err := lp.q.Stats(); err == nil {
		s.Overflow = uint64(st.QueueDropped) + uint64(st.UserDropped)
	}
	return s
}

// TakeLatePeak is the line's Counters.TakePeak: the largest release
// lateness since the previous call.
func (lp *Loop) TakeLatePeak() time.Duration { return lp.l.Counters().TakePeak() }

// CPUTime returns the CPU time the loop's thread has used so far, in user
// and kernel mode. The kernel time includes the forwarding of the packets
// the loop accepts, which runs inside its verdict writes. 0 before the loop
// starts or after it ends.
func (lp *Loop) CPUTime() time.Duration {
	tid := lp.tid.Load()
	if tid == 0 {
		return 0
	}
	select {
	case <-lp.done:
		return 0
	default:
	}
	// The per-thread CPU clock of tid (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)).
	clock := int32(^uint32(tid)<<3) | 4 | 2
	var ts unix.Timespec
	if err := unix.ClockGettime(clock, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// TID is the id of the loop's OS thread (procstat.ReadThread reads its
// CPU time and run-queue wait), known once Start has returned; 0 if the
// loop could not lock a thread.
func (lp *Loop) TID() int { return int(lp.tid.Load()) }

// Done is closed when the loop has stopped, by Close or by an error (Err).
func (lp *Loop) Done() <-chan struct{} { return lp.done }

// Err returns the error that stopped the loop, once Done is closed.
func (lp *Loop) Err() error {
	select {
	case <-lp.done:
		return lp.err
	default:
		return nil
	}
}

// Close stops the loop, releases every held packet, waits for the loop to
// end and returns its error. It does not close the queue. Idempotent.
func (lp *Loop) Close() error {
	lp.once.Do(func() {
		lp.stop.Store(true)
		lp.q.Interrupt()
	})
	<-lp.done
	return lp.err
}
