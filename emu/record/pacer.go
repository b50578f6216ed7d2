package record

import "time"

// The pacer's constants. The sender aims a little above what the path
// delivered, so a queue stands at the bottleneck and every delivery
// opportunity is taken (Saturatr's idea), and pauses once a cycle for as
// long as it reckons the queue is, plus a margin, so that the first
// packet after the pause finds the queue empty and carries the path's
// own delay. The receiver says how each pause ended (the link's idle
// time after it, or that the queue outlasted it) and the margin follows,
// aiming at targetIdle: a little idle time, which a token bucket gives
// back and a link without one loses.
const (
	initialRate  = 4e6  // bit/s at the start
	startupGain  = 2    // rate over delivered while no queue has formed
	steadyGain   = 1.25 // rate over delivered once one has
	drainGain    = 0.75 // rate over delivered while the queue is over drainQueue
	drainQueue   = cycle / 2
	startupQueue = 5 * time.Millisecond
	cycle        = 100 * time.Millisecond
	maxPause     = 60 * time.Millisecond
	targetIdle   = 500 * time.Microsecond
	maxMargin    = 30 * time.Millisecond
	maxBurst     = 2 * time.Millisecond // credit beyond this is lost: the sender fell behind
	rateBucket   = cycle
)

// pacer decides when a sender sends a load packet. It is pure: the
// caller passes `now` (time since the sender started) and feedback, and
// asks how many packets are due and when to ask again.
type pacer struct {
	packet  float64 // bytes a packet
	maxRate float64 // bit/s

	rate      float64 // bit/s
	gain      float64 // rate over delivered, as last set
	startup   bool
	credit    float64 // bytes the sender may send now
	last      time.Duration
	delivered float64       // the receiver's word on the rate delivered, bit/s
	queue     time.Duration // and on the queue standing

	// The receiver's word on the queue, as it stood when the packet sent
	// at queueRef passed; the sender carries it forward with what it sent
	// since (history) and what the path delivered meanwhile. The margin
	// corrects what remains, so the pauses end targetIdle after the queue
	// has emptied.
	queueRef time.Duration
	history  sendHistory
	margin   time.Duration
	drains   uint32 // the drain reports acted on

	bucket            time.Duration
	curBest, prevBest float64

	nextCycle, pauseEnd time.Duration
	pauseEnds           [8]time.Duration // the last pauses' ends, for dry
	pauses              int
	pausing             bool
	// pause is the pause to stamp on the next packet sent (0: none).
	pause time.Duration

	// owed is the credit the rate gave since the caller last cleared it,
	// lost what overflowed maxBurst of it: the sender could not keep its
	// pace for that much (a timer that fired late, a CPU too busy).
	owed, lost float64
}

func newPacer(packet int, maxRate float64) *pacer {
	return &pacer{packet: float64(packet), maxRate: maxRate, rate: min(initialRate, maxRate), startup: true, nextCycle: cycle, margin: 2 * time.Millisecond}
}

// feedback applies what the receiver reported: the rate it saw delivered,
// the queue it sees standing and how the last pause ended (see datagram).
func (p *pacer) feedback(now time.Duration, delivered float64, queue, ref time.Duration, drain int64, drains uint32) {
	p.queue, p.queueRef, p.delivered = queue, ref, delivered
	if drains != p.drains {
		p.drains = drains
		if drain == noDrain {
			p.margin += 5 * time.Millisecond
		} else {
			p.margin += (targetIdle - time.Duration(drain)) / 2
		}
		p.margin = min(max(p.margin, -maxMargin), maxMargin)
	}
	if p.startup {
		if queue >= startupQueue || p.rate >= p.maxRate {
			p.startup = false
		} else {
			p.rate = min(max(p.rate, startupGain*delivered), p.maxRate)
			return
		}
	}
	gain, rate := steadyGain, p.best(now, delivered)
	switch {
	case queue > drainQueue:
		// Far more queue than a cycle builds: the path got slower. Send
		// below what it delivers now (not the best of late, which would
		// overfill its queue) until the queue is back.
		gain, rate = drainGain, delivered
		p.curBest, p.prevBest = delivered, 0
	case p.dry(queue, ref):
		// Less queue than the sending rate builds: the path got faster.
		gain = startupGain
	}
	p.gain = gain
	p.rate = min(max(gain*rate, initialRate/4), p.maxRate)
}

// dry says whether the queue the receiver saw when the packet sent at
// ref passed is under half what sending at steadyGain builds from the
// pause before it: the path carries more than it was given. (The
// feedback may be a cycle old when it arrives, behind the other
// direction's queue, so the pause it follows is looked up.)
func (p *pacer) dry(queue, ref time.Duration) bool {
	var since time.Duration = -1
	for _, end := range p.pauseEnds {
		if end != 0 && end <= ref && (since < 0 || ref-end < since) {
			since = ref - end
		}
	}
	return since > 20*time.Millisecond && queue < time.Duration(float64(since)*(steadyGain-1)/2)
}

// best is the most the path delivered over the last two rateBuckets,
// with delivered added at now: the rate follows it, as BBR's does its
// windowed maximum, so that one short dip (a pause's idle link, a burst
// of late feedback) does not cut the rate, which would cut what is
// delivered next.
func (p *pacer) best(now time.Duration, delivered float64) float64 {
	if b := now / rateBucket; b != p.bucket {
		p.prevBest, p.curBest = p.curBest, 0
		if b != p.bucket+1 {
			p.prevBest = 0
		}
		p.bucket = b
	}
	p.curBest = max(p.curBest, delivered)
	return max(p.curBest, p.prevBest)
}

// due returns how many packets the sender sends at now and when to ask
// again. The caller sends them and calls sent for each.
func (p *pacer) due(now time.Duration) (n int, next time.Duration) {
	elapsed := (now - p.last).Seconds()
	p.last = now
	if p.pausing {
		if now < p.pauseEnd {
			return 0, p.pauseEnd
		}
		p.pausing, p.credit = false, 0
		p.nextCycle = now + cycle
	} else if now >= p.nextCycle && !p.startup && p.delivered > 0 {
		d := p.queueNow(now) + p.margin
		d = min(max(d, targetIdle), maxPause)
		p.pausing, p.pauseEnd, p.pause = true, now+d, d
		p.pauseEnds[p.pauses%len(p.pauseEnds)] = p.pauseEnd
		p.pauses++
		return 0, p.pauseEnd
	}
	p.credit += p.rate / 8 * elapsed
	p.owed += p.rate / 8 * elapsed
	if limit := max(p.rate/8*maxBurst.Seconds(), 2*p.packet); p.credit > limit {
		p.lost += p.credit - limit
		p.credit = limit
	}
	n = int(p.credit / p.packet)
	p.credit -= float64(n) * p.packet
	wait := time.Duration((p.packet - p.credit) * 8 / p.rate * float64(time.Second))
	return n, now + max(wait, 0)
}

// queueNow carries the receiver's last word on the queue forward to now:
// what was sent since the packet it measured joined the queue, less what
// the path delivered in that time.
// The sender sends at most steadyGain times what the path delivers, so
// the queue cannot have grown faster than steadyGain-1: a bound that
// keeps a rate underestimated for a moment from reading as a long queue
// (a long pause, less delivered, a lower rate: a spiral).
func (p *pacer) queueNow(now time.Duration) time.Duration {
	since := p.history.since(p.queueRef)
	age := now - p.queueRef
	q := p.queue + time.Duration(since*8/p.delivered*float64(time.Second)) - age
	bound := p.queue + time.Duration(float64(age)*(max(p.gain, steadyGain)-1)) + 5*time.Millisecond
	return min(max(q, 0), bound)
}

// behind says whether the sender lost more than a tenth of what its
// rate gave since the last call, and starts counting again.
func (p *pacer) behind() bool {
	b := p.lost > 0.1*p.owed
	p.owed, p.lost = 0, 0
	return b
}

// sent accounts one packet sent at now and returns the pause to stamp on
// it.
func (p *pacer) sent(now time.Duration) time.Duration {
	p.history.add(now, p.packet)
	d := p.pause
	p.pause = 0
	return d
}

// sendHistory is how many bytes a sender had sent at each of its recent
// sends: a ring, enough for the feedback's age.
type sendHistory struct {
	at    [4096]time.Duration
	total [4096]float64
	n     int // entries written
	sum   float64
}

func (h *sendHistory) add(at time.Duration, bytes float64) {
	h.sum += bytes
	i := h.n % len(h.at)
	if h.n > 0 && h.at[(h.n-1)%len(h.at)] == at {
		h.total[(h.n-1)%len(h.at)] = h.sum
		return
	}
	h.at[i], h.total[i] = at, h.sum
	h.n++
}

// since is the bytes sent after at (all that is remembered, if at is
// older than the ring).
func (h *sendHistory) since(at time.Duration) float64 {
	lo := max(0, h.n-len(h.at))
	// The last entry at or before at.
	i, j := lo, h.n
	for i < j {
		m := (i + j) / 2
		if h.at[m%len(h.at)] <= at {
			i = m + 1
		} else {
			j = m
		}
	}
	if i == lo {
		if lo == 0 {
			return h.sum
		}
		return h.sum - h.total[lo%len(h.at)]
	}
	return h.sum - h.total[(i-1)%len(h.at)]
}
