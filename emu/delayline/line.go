package delayline

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// Verdicts receives a Line's decisions. *nfq.Queue implements it; tests
// record the calls.
type Verdicts interface {
	// AcceptUpTo accepts every held packet with this id or an earlier one.
	AcceptUpTo(id uint32)
	// Accept accepts one packet.
	Accept(id uint32)
	// Drop drops one packet.
	Drop(id uint32)
}

// Line is one direction of one link: it decides loss and due times and
// holds packets until they are due. Arrive and Release belong to one
// goroutine (the queue's loop); SetParams and Counters are safe from any.
type Line struct {
	p       Params
	pending atomic.Pointer[Params]

	lossRng, jitRng *rand.Rand
	jit             smoothJitter
	bad             bool // the burst-loss model's state

	epoch   time.Time
	started bool
	lastDue int64 // due of the last packet put in the FIFO

	fifo ring
	heap minHeap

	c Counters
}

// New returns a line with parameters p and randomness from seed.
func New(seed uint64, p Params) (*Line, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Line{
		p:       p.withDefaults(),
		lossRng: rand.New(rand.NewPCG(seed, 0x6c6f7373)), // "loss"
		jitRng:  rand.New(rand.NewPCG(seed, 0x6a697474)), // "jitt"
	}, nil
}

// SetParams changes the parameters for packets arriving from now on.
// Safe from any goroutine; the loop picks the change up at the next arrival.
// Switching Reorder on or off applies to new packets: those already held
// are still released in their own mode.
func (l *Line) SetParams(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	p = p.withDefaults()
	l.pending.Store(&p)
	return nil
}

// Counters returns the line's live counters.
func (l *Line) Counters() *Counters { return &l.c }

func (l *Line) ns(now time.Time) int64 {
	if !l.started {
		l.epoch, l.started = now, true
	}
	return int64(now.Sub(l.epoch))
}

func (l *Line) time(ns int64) time.Time { return l.epoch.Add(time.Duration(ns)) }

// Arrive takes packet id of size bytes, arrived at now, and reports
// whether it is lost. The packet is held either way: a lost one until its
// drop verdict can be given cheaply (see the package documentation), a
// delivered one until it is due. Arrivals must come in id order with
// non-decreasing now.
func (l *Line) Arrive(now time.Time, id, size uint32) (lost bool) {
	if np := l.pending.Load(); np != nil {
		if np = l.pending.Swap(nil); np != nil {
			l.p = *np
		}
	}
	t := l.ns(now)
	l.c.In.Add(1)
	l.c.InBytes.Add(uint64(size))
	l.c.Backlog.Add(1)
	l.c.BacklogBytes.Add(int64(size))

	lost = l.lose()
	if lost {
		l.c.Lost.Add(1)
	}
	p := &l.p
	if p.Reorder {
		due := t
		if !lost {
			d := float64(p.Delay)
			if p.Jitter > 0 {
				d += float64(p.Jitter) * l.jitRng.NormFloat64()
			}
			due = t + int64(math.Max(0, d))
		}
		l.heap.push(held{due: due, id: id, size: size, lost: lost})
		return lost
	}
	d := float64(p.Delay)
	if p.Jitter > 0 {
		d += float64(p.Jitter) * l.jit.at(t, float64(p.JitterCorr), l.jitRng)
	}
	due := t + int64(math.Max(0, d))
	if !lost {
		// A link is a FIFO: a packet whose delay fell (a trace's step,
		// jitter) leaves behind the one before it.
		if due < l.lastDue {
			due = l.lastDue
			l.c.FIFOHeld.Add(1)
		}
		l.lastDue = due
	}
	l.fifo.push(held{due: due, id: id, size: size, lost: lost})
	return lost
}

// lose draws an arrival's fate: one draw per arrival, always, and two with
// the burst-loss model, so the loss pattern depends on the seed and the
// arrival index only.
func (l *Line) lose() bool {
	u := l.lossRng.Float64()
	g := &l.p.Bursts
	if g.P == 0 {
		return u < l.p.Loss
	}
	v := l.lossRng.Float64()
	if l.bad {
		l.bad = v >= g.R
		return u < g.BadLoss
	}
	l.bad = v < g.P
	return u < g.GoodLoss
}

// Release gives the verdicts of every packet due at now: in FIFO order,
// drops for lost packets and one AcceptUpTo for each run of delivered ones;
// in reorder mode, one Accept or Drop per packet in order of due time. It
// returns the due time of the next held packet, and ok = false when none is
// held.
func (l *Line) Release(now time.Time, v Verdicts) (next time.Time, ok bool) {
	t := l.ns(now)
	for l.heap.len() > 0 && l.heap.min().due <= t {
		e := l.heap.min()
		if e.lost {
			v.Drop(e.id)
			l.c.out(e.size)
		} else {
			v.Accept(e.id)
			l.c.release(e.size, time.Duration(t-e.due))
		}
		l.heap.pop()
	}
	// A batch verdict covers every earlier id in the kernel's queue, so it
	// is only safe while no reordering packet (held by id, out of order)
	// remains: after a switch from reordering, FIFO packets go one by one
	// until the heap is empty.
	l.releaseFIFO(t, v, l.heap.len() == 0, false)
	return l.nextDue()
}

// releaseFIFO gives the FIFO's packets their verdicts from the front: the
// lost ones a drop, the others an accept, runs of them as one batch
// verdict when batch. It stops at the first packet due after t, unless
// all: then every packet goes now, and none counts as released at its due
// time (Counters.Released).
func (l *Line) releaseFIFO(t int64, v Verdicts, batch, all bool) {
	var upto uint32
	run := false
	for l.fifo.size > 0 {
		e := l.fifo.front()
		if e.lost {
			if run {
				v.AcceptUpTo(upto)
				run = false
			}
			v.Drop(e.id)
			l.c.out(e.size)
			l.fifo.pop()
			continue
		}
		if !all && e.due > t {
			break
		}
		if batch {
			upto, run = e.id, true
		} else {
			v.Accept(e.id)
		}
		if all {
			l.c.out(e.size)
		} else {
			l.c.release(e.size, time.Duration(t-e.due))
		}
		l.fifo.pop()
	}
	if run {
		v.AcceptUpTo(upto)
	}
}

func (l *Line) nextDue() (time.Time, bool) {
	var n int64
	ok := false
	if l.fifo.size > 0 {
		n, ok = l.fifo.front().due, true
	}
	if l.heap.len() > 0 && (!ok || l.heap.min().due < n) {
		n, ok = l.heap.min().due, true
	}
	if !ok {
		return time.Time{}, false
	}
	return l.time(n), true
}

// ReleaseAll gives every held packet its verdict now, due or not (lost
// ones are still dropped): for shutting down without stranding packets.
// Reordering packets go first, one by one, so the FIFO's batch verdicts
// cannot cover a lost one among them.
func (l *Line) ReleaseAll(v Verdicts) {
	for l.heap.len() > 0 {
		e := l.heap.min()
		if e.lost {
			v.Drop(e.id)
		} else {
			v.Accept(e.id)
		}
		l.c.out(e.size)
		l.heap.pop()
	}
	l.releaseFIFO(0, v, true, true)
}

// InOrder reports that no packet arriving from now on can be due before
// the next held one: the line holds no reordering packets and reordering
// is not about to be switched on. A loop can then leave arrivals in the
// kernel until that next due time.
func (l *Line) InOrder() bool {
	if l.heap.len() > 0 || l.p.Reorder {
		return false
	}
	if np := l.pending.Load(); np != nil && np.Reorder {
		return false
	}
	return true
}

// Held returns how many packets the line holds.
func (l *Line) Held() int { return l.fifo.size + l.heap.len() }
