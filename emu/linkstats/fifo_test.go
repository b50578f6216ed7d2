package linkstats

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// The tests check the counter-based figures against a simulated rate
// limiter whose every packet's arrival and departure are known: a FIFO
// bounded in bytes (bfifo: a packet that does not fit is dropped), served
// at a piecewise-constant rate that may be zero (an outage), and sampled
// the way a run samples the kernel's counters.

// step is a configured IP-layer rate from a time on.
type step struct {
	from time.Duration
	rate float64 // bit/s, IP layer
}

// simPkt is one packet offered to the queue.
type simPkt struct {
	arr, dep float64 // seconds; dep only when accepted
	size     int     // Ethernet frame bytes
	dropped  bool
}

// fifo is the simulated limiter. served scales the service rate against
// the configured one (1: a working limiter; 0.8: one starved of 20 %).
type fifo struct {
	limit  int
	steps  []step
	served float64

	lastDep float64
	queue   []*simPkt // accepted and not yet departed, in order
	pkts    []*simPkt
}

func newFIFO(limit int, steps []step) *fifo {
	return &fifo{limit: limit, steps: steps, served: 1}
}

// wireAt is the service rate (bit/s of frames) at t and the time the rate
// next changes (+Inf if never).
func (f *fifo) wireAt(t float64) (float64, float64) {
	r, next := 0.0, math.Inf(1)
	for _, s := range f.steps {
		if s.from.Seconds() > t {
			next = s.from.Seconds()
			break
		}
		r = s.rate
	}
	return WireRate(r, FrameHeader) * f.served, next
}

// finish is when a packet of size bytes whose service starts at t departs.
func (f *fifo) finish(t float64, size int) float64 {
	bits := float64(size) * 8
	for {
		r, next := f.wireAt(t)
		if r > 0 && t+bits/r <= next {
			return t + bits/r
		}
		bits -= r * (next - t)
		t = next
	}
}

// offer puts a packet into the queue at time t (times must not go back).
func (f *fifo) offer(t float64, size int) *simPkt {
	for len(f.queue) > 0 && f.queue[0].dep <= t {
		f.queue = f.queue[1:]
	}
	backlog := 0
	for _, p := range f.queue {
		backlog += p.size
	}
	p := &simPkt{arr: t, size: size}
	f.pkts = append(f.pkts, p)
	if backlog+size > f.limit {
		p.dropped = true
		return p
	}
	p.dep = f.finish(max(t, f.lastDep), size)
	f.lastDep = p.dep
	f.queue = append(f.queue, p)
	return p
}

// rateAt is the configured IP-layer rate at t.
func (f *fifo) rateAt(t time.Duration) float64 {
	r := 0.0
	for _, s := range f.steps {
		if s.from <= t {
			r = s.rate
		}
	}
	return r
}

// meanRate is the mean configured rate over [a, b).
func (f *fifo) meanRate(a, b time.Duration) float64 {
	const n = 1000
	var sum float64
	for i := range n {
		sum += f.rateAt(a + (b-a)*time.Duration(i)/n + (b-a)/(2*n))
	}
	return sum / n
}

// sample reads the simulated counters every interval (each reading up to
// jitter late, as a ticker's are) from 0 to end.
func (f *fifo) sample(interval, jitter, end time.Duration, seed uint64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 1))
	var accepted []*simPkt // in arrival order, which is departure order
	for _, p := range f.pkts {
		if !p.dropped {
			accepted = append(accepted, p)
		}
	}
	var out []Sample
	var in, inPkts, drops uint64 // bytes and packets accepted, packets dropped so far
	var sent, sentPkts uint64
	ia, id := 0, 0
	for k := time.Duration(0); k*interval <= end; k++ {
		t := k * interval
		if k > 0 && jitter > 0 {
			t += time.Duration(rng.Int64N(int64(jitter)))
		}
		ts := t.Seconds()
		for ; ia < len(f.pkts) && f.pkts[ia].arr <= ts; ia++ {
			if f.pkts[ia].dropped {
				drops++
			} else {
				in += uint64(f.pkts[ia].size)
				inPkts++
			}
		}
		for ; id < len(accepted) && accepted[id].dep <= ts; id++ {
			sent += uint64(accepted[id].size)
			sentPkts++
		}
		out = append(out, Sample{T: t, Bytes: sent, Packets: sentPkts, Backlog: in - sent, Queued: inPkts - sentPkts, Drops: drops, Rate: f.rateAt(t)})
	}
	return out
}

// exact is the true byte-weighted distribution of the sojourns of packets
// that left by end, plus every packet's sojourn for other checks.
func (f *fifo) exact(end time.Duration) Dist {
	type w struct {
		d    float64
		size int
	}
	var ws []w
	var total, sum float64
	for _, p := range f.pkts {
		if !p.dropped && p.dep <= end.Seconds() {
			ws = append(ws, w{p.dep - p.arr, p.size})
			total += float64(p.size)
			sum += float64(p.size) * (p.dep - p.arr)
		}
	}
	slices.SortFunc(ws, func(a, b w) int { return cmpFloat(a.d, b.d) })
	q := func(q float64) time.Duration {
		var c float64
		for _, x := range ws {
			c += float64(x.size)
			if c >= q*total {
				return seconds(x.d)
			}
		}
		return 0
	}
	if len(ws) == 0 {
		return Dist{}
	}
	return Dist{Bytes: uint64(total), P50: q(0.5), P95: q(0.95), P99: q(0.99), Max: seconds(ws[len(ws)-1].d), Mean: seconds(sum / total)}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cbr offers full-size packets at rate (IP bit/s) over [from, to).
func (f *fifo) cbr(from, to time.Duration, rate float64) {
	gap := float64(IPMTU*8) / rate
	for t := from.Seconds(); t < to.Seconds(); t += gap {
		f.offer(t, MaxFrame)
	}
}

// mixedScenario is a limiter's hard day, 12 s: overload with drops at a
// full queue, rate changes, a 300 ms outage, idle periods and light load.
func mixedScenario() *fifo {
	ms := time.Millisecond
	f := newFIFO(125_000, []step{ // 50 ms at 20 Mbit/s
		{0, 20e6}, {3 * time.Second, 10e6}, {4 * time.Second, 30e6},
		{5500 * ms, 0}, {5800 * ms, 20e6}, {8 * time.Second, 5e6}, {9 * time.Second, 20e6},
	})
	type burst struct {
		from, to time.Duration
		rate     float64
	}
	var events []burst
	events = append(events,
		burst{0, 2 * time.Second, 25e6},            // overload: fills, drops
		burst{2500 * ms, 5 * time.Second, 18e6},    // after idle; rate drops under it, then rises
		burst{5 * time.Second, 6500 * ms, 22e6},    // through the outage
		burst{7 * time.Second, 7500 * ms, 8e6},     // light load: short queues
		burst{7600 * ms, 9500 * ms, 21e6},          // across a slow step
		burst{10 * time.Second, 10200 * ms, 100e6}, // a burst that overflows the queue
		burst{10500 * ms, 11 * time.Second, 1e6},   // sparse packets on an idle link
	)
	for _, e := range events {
		f.cbr(e.from, e.to, e.rate)
	}
	return f
}

// event is a simulated sender's pending event.
type event struct {
	t    float64
	loss bool
}

type events []event

func (e events) Len() int           { return len(e) }
func (e events) Less(i, j int) bool { return e[i].t < e[j].t }
func (e events) Swap(i, j int)      { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)        { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// reno offers the packets of an ack-clocked Reno-like sender (slow start,
// additive increase, halving once per round trip on loss) with base round
// trip rtt through f for dur: the saw-tooth a saturating TCP flow puts into
// the rate limiter's queue.
func (f *fifo) reno(rtt, dur time.Duration) {
	end := dur.Seconds()
	cwnd, ssthresh, inflight := 2.0, math.Inf(1), 0
	lastCut := -1.0
	var ev events
	send := func(t float64) {
		for float64(inflight) < cwnd && t < end {
			inflight++
			p := f.offer(t, MaxFrame)
			if p.dropped {
				// Duplicate acks reveal the loss about a round trip
				// and the queue's delay later.
				qd := max(0, f.lastDep-t)
				heap.Push(&ev, event{t: t + rtt.Seconds() + qd, loss: true})
			} else {
				heap.Push(&ev, event{t: p.dep + rtt.Seconds()})
			}
		}
	}
	send(0)
	for ev.Len() > 0 {
		e := heap.Pop(&ev).(event)
		if e.t >= end {
			break
		}
		inflight--
		switch {
		case e.loss && e.t-lastCut > rtt.Seconds()+max(0, f.lastDep-e.t):
			ssthresh = max(2, cwnd/2)
			cwnd = ssthresh
			lastCut = e.t
		case e.loss:
		case cwnd < ssthresh:
			cwnd++
		default:
			cwnd += 1 / cwnd
		}
		send(e.t)
	}
}
