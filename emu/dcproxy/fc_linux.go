package dcproxy

import (
	"errors"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/pdcp"
)

// FlowControlPoll is how often a flow-controlled proxy reads its legs' queues: each
// leg's Reporter decides at every reading whether a report is due (every
// FlowControlConfig.Interval, and at once when the DBS reaches or leaves
// 0), so "at once" is within FlowControlPoll, and a report's backhaul delay is
// applied at the first reading after it is due. A reading is one qdisc
// dump of the gateway (20–40 µs, emu/link's BacklogReader): 1–2 % of a
// core at 2 ms.
const FlowControlPoll = 2 * time.Millisecond

// flowCtl is a transmitting proxy's flow control: the host's credit per leg
// (fc, which also gates Tx's scheduler), each leg's emulated DU (a
// Reporter fed by the leg's queue through its legMarks), the reports on
// their way, and the host buffer of SDUs waiting for credit. All of it is
// under Proxy.txMu: the TUN-to-UDP loop and fcLoop share it.
type flowCtl struct {
	fc        *pdcp.FlowControl
	cfg       pdcp.FlowControlConfig
	reporters [2]*pdcp.Reporter
	marks     [2]legMarks
	transit   transit
	held      hostBuffer
	// backlog reads the bytes queued in each leg's rate limiter; limit,
	// when not nil, is the most its queue holds (ProxyConfig.LegLimit).
	backlog func(*[2]int) error
	limit   func(int, float64) int
	frame   []byte // a report being encoded

	// hbufs and hsizes are drain's view of the held SDUs.
	hbufs  [][]byte
	hsizes []int

	c FlowCounters
}

// FlowCounters are a transmitting proxy's flow-control counters.
type FlowCounters struct {
	// Legs and Reporters are link 0's and link 1's: the host's account
	// (reports applied, refusals, time credit-limited) and the emulated
	// DU's (reports sent, of them at once on DBS 0).
	Legs      [2]pdcp.LegCounters
	Reporters [2]pdcp.ReporterCounters
	// DesiredBuffer and Credit are each leg's last applied DBS and its
	// credit now, bytes.
	DesiredBuffer, Credit [2]int
	// Held counts SDUs that waited in the host buffer, Wait how long;
	// Overflow those dropped because it was full, Dropped those dropped
	// for want of credit under pdcp.DropWhenFull (both before an SN).
	Held, Overflow, Dropped uint64
	Wait                    pdcp.Histogram
	// BufferMax is the most bytes the host buffer held.
	BufferMax int
	// BadFrames counts reports that did not parse (none should);
	// ReadErrors the queue readings that failed (the leg then reports
	// nothing until the next).
	BadFrames, ReadErrors uint64
}

// newFlowCtl returns flow control for SNs of bits bits by cfg, reading the
// legs' queues with backlog.
func newFlowCtl(cfg pdcp.FlowControlConfig, bits int, backlog func(*[2]int) error) (*flowCtl, error) {
	if backlog == nil {
		return nil, errors.New("dcproxy: flow control needs the legs' queues (ProxyConfig.Backlog)")
	}
	fc, err := pdcp.NewFlowControl(cfg, bits)
	if err != nil {
		return nil, err
	}
	f := &flowCtl{fc: fc, cfg: fc.Config(), backlog: backlog, hbufs: make([][]byte, maxWrite), hsizes: make([]int, maxWrite)}
	for i := range f.reporters {
		if f.reporters[i], err = pdcp.NewReporter(f.cfg, bits); err != nil {
			return nil, err
		}
		f.marks[i] = newLegMarks(min(pdcp.Window(bits), pdcp.MaxLegPDUs))
	}
	return f, nil
}

// holdLimit is the host buffer's size now: what the two legs' buffers hold
// together, at least a read's worth (64 KB).
func (f *flowCtl) holdLimit() int {
	return max(f.reporters[0].Buffer()+f.reporters[1].Buffer(), 64<<10)
}

// deliver applies the reports due at now to the legs.
func (f *flowCtl) deliver(now time.Duration) {
	for {
		leg, frame, ok := f.transit.due(now)
		if !ok {
			return
		}
		s, err := pdcp.ParseDeliveryStatus(frame)
		if err != nil {
			f.c.BadFrames++
			continue
		}
		f.fc.Leg(leg).ReportStatus(s)
	}
}

// counters returns the counters now.
func (f *flowCtl) counters() FlowCounters {
	c := f.c
	for i := range 2 {
		l := f.fc.Leg(i)
		c.Legs[i], c.Reporters[i] = l.Counters, f.reporters[i].Counters
		c.DesiredBuffer[i], c.Credit[i] = l.DesiredBuffer(), l.Credit()
	}
	c.BufferMax = f.held.max
	return c
}

// forward numbers and sends a read's segments under flow control: the
// reports due first, then the SDUs already waiting, then the new ones
// while a leg has credit; the rest wait in the host buffer (or are dropped
// when it is full), except tunnelled packets, which no credit holds back.
// p.txMu is held.
func (p *Proxy) forward(bufs [][]byte, sizes []int, now time.Duration) error {
	f := p.flow
	if f == nil {
		groups, _ := p.tx.Pack(bufs, sizes, headroom, now)
		return p.send(groups)
	}
	f.deliver(now)
	if err := p.drain(now); err != nil {
		return err
	}
	i := 0
	if f.held.len() == 0 {
		groups, n := p.tx.Pack(bufs, sizes, headroom, now)
		if err := p.send(groups); err != nil {
			return err
		}
		i = n
	}
	limit := f.holdLimit()
	for ; i < len(bufs); i++ {
		seg := bufs[i][headroom : headroom+sizes[i]]
		if l, ok := p.tx.tunnels.Link(seg); ok {
			p.tx.Tunnelled++
			if err := p.sendOne(l, seg); err != nil {
				return err
			}
			continue
		}
		if f.held.push(seg, now, limit) {
			f.c.Held++
		} else {
			f.c.Overflow++
		}
	}
	return nil
}

// drain sends the held SDUs, in order, while a leg has credit for the
// next. p.txMu is held.
func (p *Proxy) drain(now time.Duration) error {
	f := p.flow
	for f.held.len() > 0 {
		n := f.held.peek(f.hbufs, f.hsizes)
		groups, m := p.tx.Pack(f.hbufs[:n], f.hsizes[:n], headroom, now)
		err := p.send(groups)
		f.held.pop(m, now, &f.c.Wait)
		if err != nil || m < n {
			return err
		}
	}
	return nil
}

// fcLoop reads the legs' queues every FlowControlPoll until stop: each leg's
// Reporter sends a report when one is due, which reaches the host after
// the backhaul delay; the reports due are applied and the held SDUs they
// give credit to are sent.
//
// It runs on a real-time thread at the proxy's priority (a normal one
// with none), sleeping to absolute deadlines, as the link sampler does: a
// qdisc dump holds the kernel's RTNL lock, and a normal thread holding it
// while the real-time loops had both CPUs kept the trace players, whose
// rate changes need it, waiting: their changes were 2–37 ms late at p99
// over the mmWave traces with this loop a goroutine, 0.5–1.5 ms without
// flow control.
func (p *Proxy) fcLoop(stop <-chan struct{}) {
	if p.priority > 0 {
		runtime.LockOSThread()
		leave, err := rtsched.Enter(p.priority)
		if err != nil {
			runtime.UnlockOSThread() // without the privilege: a goroutine
		} else {
			defer func() {
				if leave() == nil {
					runtime.UnlockOSThread()
				}
			}()
		}
	}
	var mono unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono); err != nil {
		return
	}
	next := time.Duration(mono.Nano())
	for {
		select {
		case <-stop:
			return
		default:
		}
		next += FlowControlPoll
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono); err == nil && time.Duration(mono.Nano()) > next {
			next = time.Duration(mono.Nano()) // late: no burst of readings
		}
		ts := unix.NsecToTimespec(int64(next))
		for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
		}
		if p.pollLegs() != nil {
			return // the loops end with the ends
		}
	}
}

// pollLegs reads the legs' queues once, sends the reports due, applies
// those that arrived and sends what they give credit for.
func (p *Proxy) pollLegs() error {
	f := p.flow
	// The stream's counts are read before the queue: bytes written in
	// between are in the backlog and not in the counts, so the point
	// that left errs low.
	p.txMu.Lock()
	sent := [2]uint64{f.marks[0].sent, f.marks[1].sent}
	p.txMu.Unlock()
	var backlog [2]int
	err := f.backlog(&backlog)
	p.shared.Lock()
	links := p.shared.links
	p.shared.Unlock()
	p.txMu.Lock()
	defer p.txMu.Unlock()
	now := p.now()
	if err != nil {
		f.c.ReadErrors++
	} else {
		for i := range 2 {
			// The credit scheduler's backlog estimate starts afresh
			// from each reading (smallest-delay's rule).
			st := links[i]
			st.QueuedBytes = backlog[i]
			p.tx.SetLinkState(i, st)
			q := f.marks[i].queueState(sent[i], backlog[i])
			r := f.reporters[i]
			r.SetRate(links[i].RateBps)
			if f.limit != nil {
				// The limit counts wire bytes, the credit PDU bytes:
				// 42 bytes of headers on 1,400 is 3 %.
				l := f.limit(i, links[i].RateBps)
				r.SetLimit(l - l/32)
			}
			if s, due := r.Poll(now, q); due {
				f.frame = pdcp.AppendDeliveryStatus(f.frame[:0], s)
				f.transit.send(i, f.frame, now+f.cfg.Delay)
			}
		}
	}
	f.deliver(now)
	return p.drain(now)
}
