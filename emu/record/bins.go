package record

import (
	"math"
	"time"
)

// Step is the length of one bin and of one step of the recorded traces:
// LeoReplayer's 10 ms.
const Step = 10 * time.Millisecond

// ProbeEvery is how often each end sends a light probe.
const ProbeEvery = 10 * time.Millisecond

// noDelay marks a bin in which nothing arrived.
const noDelay = math.MaxInt64

// Bin is what a receiver saw in one Step of its own clock. One-way delays
// are the raw difference of the receiver's and the sender's clocks;
// Derive takes the clocks' offset off.
type Bin struct {
	Bytes int64 `json:"b"`           // IP bytes of the load that arrived
	Got   int32 `json:"n"`           // load packets that arrived
	Lost  int32 `json:"l,omitempty"` // load packets missing (sequence gaps), at the step the gap was seen
	// MinOWD is the least one-way delay of any packet (load or probe)
	// that arrived in the step, ns; noDelay if none.
	MinOWD int64 `json:"d"`
	// ProbeOWD is the least one-way delay of a probe that arrived in the
	// step, ns; noDelay if none.
	ProbeOWD   int64 `json:"p"`
	ProbesLost int32 `json:"pl,omitempty"`
	// BusyBytes over BusyTime is the rate the link served the stream at
	// while a queue stood: the IP bytes of packets that had waited in the
	// queue (and of those lost just before them) over the gaps between
	// their arrivals. Unlike Bytes it does not fall when the sender
	// leaves the link idle for a moment.
	BusyBytes int64 `json:"bb,omitempty"`
	BusyTime  int64 `json:"bt,omitempty"` // ns
	// Drops are the lost packets that took no time on the link between
	// two that waited in the queue: dropped at the queue's tail (the
	// recorder's own overload), not lost on the path.
	Drops int32 `json:"dr,omitempty"`
	// Base is the one-way delay of the first packet after a pause that
	// found the queue empty (the path's own delay), ns; noDelay if none
	// arrived in the step.
	Base int64 `json:"base"`
}

// Bins is one direction's recording.
type Bins struct {
	Start  int64 `json:"start_ns"` // the recording's start on the receiver's clock
	Packet int   `json:"packet_bytes"`
	Bins   []Bin `json:"bins"`
}

// rxLog accounts one direction's arrivals into bins and keeps what the
// receiver feeds back to the sender. It is used by one goroutine.
type rxLog struct {
	b Bins

	nextLoad, nextProbe uint64
	// missing maps a sequence number seen missing to its bin, so that a
	// packet that arrives late (reordered, not lost) is taken back.
	missing map[uint64]int

	// stall is, per bin, time without arrivals because the path's delay
	// rose (the packets behind the rise are late, not lost): the rate fed
	// back leaves it out, so a delay step does not read as a rate drop.
	stall []int64

	pace float64 // bytes per ns the link served lately, while backlogged
	// full is the deepest queue seen lately (ns; halved each second, at
	// fullAt): a queue that deep is full, and what is lost then was
	// dropped at its tail.
	full, fullAt int64

	lastOWD  int64
	lastSent int64 // the last load packet's send time
	base     int64 // the path's own delay: the last drained packet's, or any less
	raise    int64 // a higher delay one pause has suggested (noDelay: none)
	lastSeq  uint64
	lastRecv int64
	drain    int64  // how the last pause ended (datagram.drain)
	drains   uint32 // pauses judged
}

// maxMissing bounds rxLog.missing: a path that loses more than this many
// packets in a row gets its late arrivals counted as arrivals only.
const maxMissing = 1 << 16

func newRxLog(start int64, packet int, d time.Duration) *rxLog {
	n := int((d + Step - 1) / Step)
	l := &rxLog{b: Bins{Start: start, Packet: packet, Bins: make([]Bin, n)}, missing: map[uint64]int{}, base: noDelay, raise: noDelay, stall: make([]int64, n)}
	for i := range l.b.Bins {
		l.b.Bins[i].MinOWD, l.b.Bins[i].ProbeOWD, l.b.Bins[i].Base = noDelay, noDelay, noDelay
	}
	return l
}

// bin is the index of the bin that holds time at (receiver's clock), or
// -1 outside the recording.
func (l *rxLog) bin(at int64) int {
	if at < l.b.Start {
		return -1
	}
	i := int((at - l.b.Start) / int64(Step))
	if i >= len(l.b.Bins) {
		return -1
	}
	return i
}

// arrive accounts one datagram of the given kind and IP size that
// arrived at recv (receiver's clock).
func (l *rxLog) arrive(d *datagram, size int, recv int64) {
	i := l.bin(recv)
	if i < 0 {
		return
	}
	b := &l.b.Bins[i]
	owd := recv - d.sent
	b.MinOWD = min(b.MinOWD, owd)
	switch d.kind {
	case kindLoad:
		if d.pause > 0 && d.seq > 0 && d.seq-1 == l.lastSeq && l.lastRecv > 0 {
			l.drained(i, recv, recv-l.lastRecv, owd, size)
		} else if gap, rise := recv-l.lastRecv, owd-l.lastOWD; l.lastRecv > 0 && rise > int64(time.Millisecond) && rise > gap*4/5 {
			l.stall[i] += min(rise, gap)
		}
		l.backlog(b, d, size, recv, owd)
		b.Bytes += int64(size)
		b.Got++
		l.base = min(l.base, owd)
		l.lastOWD, l.lastSent, l.lastSeq, l.lastRecv = owd, d.sent, d.seq, recv
		l.sequence(d.seq, &l.nextLoad, i, func(b *Bin, n int32) { b.Lost += n })
	case kindProbe:
		b.ProbeOWD = min(b.ProbeOWD, owd)
		l.sequence(d.seq, &l.nextProbe, i, func(b *Bin, n int32) { b.ProbesLost += n })
	}
}

// backlog adds the gap since the last load packet to the step's busy
// time if both waited in the queue: then it left the bottleneck right
// after the one before it, and the gap is what the link took to
// carry it (and any lost between them after the bottleneck; one dropped
// at the queue's tail took no time, which the gap tells). A gap in which
// the path's delay rose counts too: it cannot be told from the host
// holding packets back and releasing them together, whose gap must count,
// or the burst after it reads as a pace far above the link's.
func (l *rxLog) backlog(b *Bin, d *datagram, size int, recv, owd int64) {
	if l.lastRecv == 0 || l.base == noDelay || d.seq <= l.lastSeq || d.pause > 0 {
		return
	}
	// Both this packet and the one before it must have waited: then the
	// link was busy between them. (One late packet alone may be the host
	// holding it back, not a queue.)
	gap := recv - l.lastRecv
	if owd-l.base < int64(backlogWait) || l.lastOWD-l.base < int64(backlogWait) || gap <= 0 {
		return
	}
	n := int64(d.seq - l.lastSeq) // this packet and those lost before it
	queue := owd - l.base
	if decay := l.fullAt; recv-decay > int64(time.Second) {
		l.full = max(queue, l.full/2) // the deepest queue of late, halving each second
		l.fullAt = recv
	}
	l.full = max(l.full, queue)
	switch {
	case n > 1 && queue > int64(fullQueue) && queue*10 >= l.full*9:
		// Lost while the queue stood at its deepest, deeper than the
		// pacer keeps it: it was full, and they were dropped at its tail.
		b.Drops += int32(n - 1)
		n = 1
	case n > 1 && l.pace > 0:
		// As many packets as the gap had room for at the link's pace;
		// the others were dropped at the queue's tail.
		k := min(n, max(1, int64(float64(gap)*l.pace/float64(size)+0.5)))
		b.Drops += int32(n - k)
		n = k
	}
	b.BusyBytes += n * int64(size)
	b.BusyTime += gap
	if d.seq-l.lastSeq == 1 {
		if pace := float64(size) / float64(gap); l.pace == 0 {
			l.pace = pace
		} else {
			l.pace += (pace - l.pace) / 16
		}
	}
}

// fullQueue is the queue above which losses at the deepest queue of late
// are taken for tail drops: more than the pacer builds in a cycle or lets
// stand (drainQueue), so only an overshoot (the path slowed before the
// feedback said so) reaches it.
const fullQueue = 60 * time.Millisecond

// backlogWait is the queueing delay above which a packet counts as having
// waited: more than the host's and the link's timers blur.
const backlogWait = time.Millisecond

// drained judges the first packet after a pause, which arrived gap
// after the one before it: if the link was idle between them (the gap is
// longer than the packet takes at the rate the link delivers), the queue
// had emptied and the packet carries the path's own delay. The idle time
// goes back to the pacer, which keeps it near targetIdle: a link with a
// token bucket (emu's HTB keeps a millisecond) gives it back in a burst,
// one without loses it, a bias of targetIdle per cycle.
func (l *rxLog) drained(i int, recv, gap, owd int64, size int) {
	// The packet's time on the link at the pace measured while a queue
	// stood (the delivered rate lags a rate step, and would read the
	// slower pace after a drop as idle time).
	if l.pace == 0 {
		return
	}
	serial := int64(float64(size) / l.pace)
	idle := gap - serial
	l.drains++
	// A delay back at the path's own says the queue had emptied (a
	// token bucket lets the first packet after a short idle time go at
	// once, so a gap alone misses a pause that ended just as the queue
	// did). A delay above it is the path's own only if the link was idle
	// before the packet (a gap of more than two packets' time at the
	// pace: a slower pace after a rate drop, which the estimate follows
	// late, is not idle time) after two pauses in a row, within
	// raiseAgree of each other: a host that holds one packet back makes
	// one such gap, and a base raised wrongly would vouch for the next
	// wrong judgement.
	switch {
	case l.base != noDelay && owd <= l.base+int64(idleTolerance):
		l.base = min(l.base, owd)
	case idle > int64(idleTolerance)+serial && l.raise != noDelay && abs64(owd-l.raise) <= int64(raiseAgree):
		// A second pause in a row says the path's delay is higher now.
		l.base, l.raise = owd, noDelay
	case idle > int64(idleTolerance)+serial:
		// One gap may be the host holding a packet back: wait for the
		// next pause to say the same before raising the base.
		l.raise, l.drain = owd, noDrain
		return
	default:
		l.raise, l.drain = noDelay, noDrain
		return
	}
	l.raise = noDelay
	l.drain = max(idle, 0)
	l.b.Bins[i].Base = min(l.b.Bins[i].Base, owd)
}

// raiseAgree is how close two pauses' delays must be to raise the base.
const raiseAgree = time.Millisecond

func abs64(x int64) int64 { return max(x, -x) }

// idleTolerance is the idle time below which a gap is the link's timer,
// not an empty queue.
const idleTolerance = 200 * time.Microsecond

// sequence counts the gap before seq as lost at bin i, or takes back a
// loss counted earlier when seq arrives late.
func (l *rxLog) sequence(seq uint64, next *uint64, i int, lost func(*Bin, int32)) {
	// Probes and load share the missing map; their sequence spaces are
	// kept apart by the top bit.
	key := seq
	if next == &l.nextProbe {
		key |= 1 << 63
	}
	switch {
	case seq == *next:
		*next = seq + 1
	case seq > *next:
		gap := seq - *next
		if len(l.missing)+int(min(gap, maxMissing)) <= maxMissing {
			for s := *next; s < seq; s++ {
				k := s
				if next == &l.nextProbe {
					k |= 1 << 63
				}
				l.missing[k] = i
			}
		}
		lost(&l.b.Bins[i], int32(min(gap, math.MaxInt32)))
		*next = seq + 1
	default:
		if j, ok := l.missing[key]; ok {
			delete(l.missing, key)
			lost(&l.b.Bins[j], -1)
		}
	}
}

// feedback is what the receiver tells the sender at now (receiver's
// clock): the rate delivered over the last feedbackWindow and the queue standing at the bottleneck when
// the last load packet passed (its delay above the path's own: the last
// drained packet's, or any less since).
func (l *rxLog) feedback(now int64) (rate uint64, queue int64) {
	i := l.bin(now)
	if i < 0 {
		if now < l.b.Start {
			return 0, 0
		}
		i = len(l.b.Bins) - 1
	}
	var bytes, stall int64
	n := int(feedbackWindow / Step)
	from := max(0, i-n+1)
	for j, b := range l.b.Bins[from : i+1] {
		// What arrived, not what was lost: a sender that overfills the
		// queue must not read its tail drops as rate.
		bytes += b.Bytes
		stall += l.stall[from+j]
	}
	// The current bin is partly over; count the time it has run.
	span := time.Duration(now-l.b.Start) - time.Duration(from)*Step - time.Duration(stall)
	if span > time.Millisecond {
		rate = uint64(float64(bytes) * 8 / span.Seconds())
	}
	if l.base != noDelay && l.lastOWD > l.base {
		queue = l.lastOWD - l.base
	}
	return rate, queue
}

// How far back the feedback's rate looks.
const feedbackWindow = 40 * time.Millisecond
