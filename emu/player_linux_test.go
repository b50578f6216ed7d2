package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/internal/nfq/nfqtest"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/replay"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// The replay tests run the whole emulation (emu.Start) with link1's
// downlink driven by a trace, saturate it with paced UDP from srv to the DC
// client (PDCP proxies off, so the client uses link1 alone; no delay line)
// and count what arrives, IP bytes per one-second bin of trace time.
//
// Bins are aligned with the trace by em.Epoch and NOT shifted by the
// queueing delay: the sender always offers more than the capacity, so the
// rate limiter's queue never runs dry and its output rate is the capacity in
// force at each instant, whatever the packets' sojourn time. Arrival times
// are the kernel's receive timestamps (SO_TIMESTAMPNS) at the client, one
// veth hop after the rate limiter, so a busy receiver goroutine cannot move
// packets across bin edges. Queueing delay only matters for which packets
// are delivered (the outage test checks those by their send times). The
// player sets each rate replay.DriveLead (0.3 ms) early, well inside a bin.

// replayPacket is the UDP payload: with 28 bytes of headers, a 1500-byte IP
// packet, the size whose IP rate the shaper sets exactly (and the size of a
// Mahimahi delivery opportunity).
const replayPacket = 1472

const replayIPBits = (replayPacket + 28) * 8

// replayStall is the longest the sender may pause before a second counts as
// not saturated: the queue may have run dry behind it.
const replayStall = 10 * time.Millisecond

// startReplay starts an emulation of the throughput scenario whose link1
// downlink replays trace; extra settings come last.
func startReplay(tb testing.TB, trace string, extra ...config.Setting) *network.Emulation {
	tb.Helper()
	emutest.RequireRoot(tb)
	sets := append([]config.Setting{
		{Key: "link1.trace", Value: trace}, {Key: "link2.trace", Value: "none"},
		{Key: "link1.delay", Value: "0"}, {Key: "link1.jitter", Value: "0"},
		{Key: "dc.enabled", Value: "false"},
	}, extra...)
	cfg, err := config.Resolve("throughput", sets)
	if err != nil {
		tb.Fatal(err)
	}
	em, err := network.Start(context.Background(), cfg, network.Options{ID: emutest.RunID(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		select {
		case err := <-em.Failed():
			tb.Errorf("emulation failed: %v", err)
		default:
		}
		if err := em.Close(); err != nil {
			tb.Error(err)
		}
	})
	return em
}

// replayDir returns the link direction named name (link1.down).
func replayDir(tb testing.TB, em *network.Emulation, name string) *link.Dir {
	tb.Helper()
	for _, d := range em.Dirs() {
		if d.Name == name {
			return d
		}
	}
	tb.Fatalf("no link direction %s", name)
	return nil
}

// stampedFlow is a paced UDP flow whose receiver records the kernel's
// receive timestamp of each datagram and the send time it carries.
type stampedFlow struct {
	recv, send *net.UDPConn
	mu         sync.Mutex
	arrivals   []stamped
	done       chan struct{}
	sent       atomic.Uint64 // datagrams sent so far
	// origin and slots count what pace sent in each millisecond since
	// origin, to tell a stalled sender from a link that under-delivers.
	origin time.Time
	slots  []uint32
}

type stamped struct {
	sent, at time.Time
}

// startStampedFlow opens a flow from srv to the DC client of em and starts
// receiving.
func startStampedFlow(tb testing.TB, em *network.Emulation) *stampedFlow {
	tb.Helper()
	from, err := em.Net.Node("srv")
	if err != nil {
		tb.Fatal(err)
	}
	to, err := em.Net.Node(topo.ClientNode(topo.PathDC))
	if err != nil {
		tb.Fatal(err)
	}
	dst := topo.ClientAddr(topo.PathDC)
	f := &stampedFlow{done: make(chan struct{}), arrivals: make([]stamped, 0, 1<<16), origin: em.Epoch}
	if err := to.Do(func() (err error) {
		if f.recv, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IP(dst.AsSlice())}); err != nil {
			return err
		}
		if err := f.recv.SetReadBuffer(8 << 20); err != nil {
			return err
		}
		rc, err := f.recv.SyscallConn()
		if err != nil {
			return err
		}
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		}); err != nil {
			return err
		}
		return serr
	}); err != nil {
		tb.Fatal(err)
	}
	f.send = dialFrom(tb, from, f.recv)
	tb.Cleanup(func() { f.recv.Close(); f.send.Close(); <-f.done })
	go f.receive()
	return f
}

func (f *stampedFlow) receive() {
	defer close(f.done)
	buf := make([]byte, 2048)
	oob := make([]byte, 128)
	for {
		n, oobn, _, _, err := f.recv.ReadMsgUDP(buf, oob)
		if err != nil {
			return
		}
		at := time.Now()
		if ts, ok := nfqtest.RecvStamp(oob[:oobn]); ok {
			at = ts
		}
		if n < 16 {
			continue
		}
		a := stamped{at: at, sent: time.Unix(0, int64(binary.BigEndian.Uint64(buf[8:])))}
		f.mu.Lock()
		f.arrivals = append(f.arrivals, a)
		f.mu.Unlock()
	}
}

// pace sends at rate bit/s (IP bytes), in bursts every millisecond, until
// the deadline, and returns the number of datagrams sent. A late wake-up
// sends what is due, so the offered rate holds on average.
func (f *stampedFlow) pace(rate float64, until time.Time) uint64 {
	buf := make([]byte, replayPacket)
	f.slots = make([]uint32, max(0, until.Sub(f.origin).Milliseconds())+1)
	start := time.Now()
	var seq uint64
	for {
		now := time.Now()
		if !now.Before(until) {
			return seq
		}
		due := uint64(rate / replayIPBits * now.Sub(start).Seconds())
		if ms := now.Sub(f.origin).Milliseconds(); due > seq && ms >= 0 && ms < int64(len(f.slots)) {
			f.slots[ms] += uint32(due - seq)
		}
		for ; seq < due; seq++ {
			binary.BigEndian.PutUint64(buf, seq)
			binary.BigEndian.PutUint64(buf[8:], uint64(time.Now().UnixNano()))
			f.send.Write(buf)
			f.sent.Store(seq + 1)
		}
		time.Sleep(time.Millisecond)
	}
}

// senderStalled reports, for each second [first, last) since the origin,
// whether pace went more than gap without sending in it (or in the 100 ms
// before it): the queue may then have run dry, and what the link delivered
// says nothing about its capacity. Call it after pace returns.
func (f *stampedFlow) senderStalled(first, last int, gap time.Duration) []bool {
	out := make([]bool, last)
	for k := first; k < last; k++ {
		from, to := k*1000-100, (k+1)*1000
		run := 0
		for ms := max(from, 0); ms < to && ms < len(f.slots); ms++ {
			if f.slots[ms] == 0 {
				run++
			} else {
				run = 0
			}
			if time.Duration(run)*time.Millisecond > gap {
				out[k] = true
				break
			}
		}
	}
	return out
}

// snapshot returns a copy of the arrivals so far.
func (f *stampedFlow) snapshot() []stamped {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.arrivals)
}

// replayFidelity compares delivered rate with trace capacity per one-second bin.
type replayFidelity struct {
	Steps, Within int
	MAEPct        float64 // mean |delivered − capacity| / capacity
	P95Pct        float64 // 95th percentile of the same
	MaxPct        float64
	Delivered     float64 // mean delivered rate over all bins, bit/s
	Capacity      float64 // mean capacity over all bins, bit/s
	Worst         string  // the worst bin, for messages
	Skipped       int     // bins left out (the flow did not keep the link busy in them)
}

func (f replayFidelity) WithinPct() float64 { return 100 * float64(f.Within) / float64(f.Steps) }

// MeanErrPct is the error of the delivered mean over the whole window.
func (f replayFidelity) MeanErrPct() float64 { return 100 * (f.Delivered - f.Capacity) / f.Capacity }

func (f replayFidelity) String() string {
	return fmt.Sprintf("%d/%d steps within tolerance (%.1f%%), mean abs error %.2f%%, p95 %.2f%%, max %.2f%% (%s); delivered mean %.3f Mbit/s vs capacity %.3f (%+.2f%%); %d s left out",
		f.Within, f.Steps, f.WithinPct(), f.MAEPct, f.P95Pct, f.MaxPct, f.Worst, f.Delivered/1e6, f.Capacity/1e6, f.MeanErrPct(), f.Skipped)
}

// replayTolerance is the criterion: 5% of the capacity or 0.1
// Mbit/s, whichever is larger.
func replayTolerance(capacity float64) float64 { return max(0.05*capacity, 0.1e6) }

// measureFidelity bins arrivals into seconds [first, last) of trace time
// and compares each bin's IP rate with the player's mean capacity over it,
// leaving out the bins skip marks (skip may be nil).
func measureFidelity(p *replay.Player, as []stamped, epoch time.Time, first, last int, skip []bool) replayFidelity {
	counts := make([]int, last)
	for _, a := range as {
		k := int(math.Floor(a.at.Sub(epoch).Seconds()))
		if k >= first && k < last {
			counts[k]++
		}
	}
	var f replayFidelity
	var errs []float64
	for k := first; k < last; k++ {
		if skip != nil && skip[k] {
			f.Skipped++
			continue
		}
		capacity := p.MeanRate(time.Duration(k)*time.Second, time.Duration(k+1)*time.Second)
		got := float64(counts[k]) * replayIPBits
		f.Steps++
		f.Delivered += got
		f.Capacity += capacity
		if math.Abs(got-capacity) <= replayTolerance(capacity) {
			f.Within++
		}
		if capacity > 0 {
			e := 100 * math.Abs(got-capacity) / capacity
			errs = append(errs, e)
			if e > f.MaxPct {
				f.MaxPct = e
				f.Worst = fmt.Sprintf("second %d: %.3f Mbit/s delivered, capacity %.3f", k, got/1e6, capacity/1e6)
			}
		}
	}
	f.Delivered /= float64(f.Steps)
	f.Capacity /= float64(f.Steps)
	if len(errs) > 0 {
		var sum float64
		for _, e := range errs {
			sum += e
		}
		f.MAEPct = sum / float64(len(errs))
		f.P95Pct = percentileOf(errs, 95)
	}
	return f
}

// percentileOf returns the p-th percentile (nearest rank) of xs.
func percentileOf(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// peakRate is the largest step rate of the player over [from, to).
func peakRate(p *replay.Player, from, to time.Duration) float64 {
	var peak float64
	for t := from; t < to; {
		_, r, next, ok := p.At(t)
		peak = max(peak, r)
		if !ok {
			break
		}
		t = next
	}
	return peak
}

// replayResult is what replayRun measured.
type replayResult struct {
	fid      replayFidelity  // every second
	clean    replayFidelity  // the seconds in which the flow kept the link busy
	landing  []time.Duration // when each rate change was seen, relative to its step (polled)
	missed   int             // steps whose rate was never observed
	changes  int             // steps with a rate change
	wakeLate []time.Duration // of the player's wake-ups for outages (exact)
}

// replayRun replays the first secs seconds of a trace on link1's downlink
// under a saturating flow (1.3 times the trace's peak rate over them) and
// measures the delivered rate per second; with watch, also the timing of
// the rate changes.
func replayRun(tb testing.TB, trace string, secs int, watch bool, extra ...config.Setting) replayResult {
	tb.Helper()
	em := startReplay(tb, trace, extra...)
	d := replayDir(tb, em, "link1.down")
	var w *rateWatch
	if watch {
		w = watchRate(d.Shaper, em.Epoch)
	}
	q := sampleBacklog(d.Shaper, em.Epoch)
	f := startStampedFlow(tb, em)
	dur := time.Duration(secs) * time.Second
	offered := 1.3 * peakRate(d.Player, 0, dur)
	f.pace(offered, em.Epoch.Add(dur+200*time.Millisecond))
	var res replayResult
	if w != nil {
		res.landing, res.missed, res.changes = w.landing(d.Player, dur)
		res.wakeLate = w.wakeLateness(d.Player, dur)
	}
	dry := q.ranDry(d.Player, secs)
	time.Sleep(100 * time.Millisecond) // the queue drains into the receiver
	as := f.snapshot()
	stalled := f.senderStalled(0, secs, replayStall)
	skip := make([]bool, secs)
	var nStalled, nDry int
	for k := range skip {
		skip[k] = stalled[k] || dry[k]
		if stalled[k] {
			nStalled++
		}
		if dry[k] {
			nDry++
		}
	}
	res.fid = measureFidelity(d.Player, as, em.Epoch, 0, secs, nil)
	res.clean = measureFidelity(d.Player, as, em.Epoch, 0, secs, skip)
	tb.Logf("%s, %d s, offered %.1f Mbit/s: %v", trace, secs, offered/1e6, res.fid)
	if res.clean.Skipped > 0 {
		tb.Logf("not saturated in %d s (the sender paused over %v in %d, the queue ran dry in %d); without them: %v",
			res.clean.Skipped, replayStall, nStalled, nDry, res.clean)
	}
	return res
}

// backlogSampler reads the rate limiter's queue every 10 ms, to tell a
// link that was not kept busy (its queue ran dry: the flow did not
// saturate it then) from one that under-delivers.
type backlogSampler struct {
	stopc   chan struct{}
	done    chan struct{}
	samples []backlogSample
}

type backlogSample struct {
	at      time.Duration // since the epoch
	packets uint64
}

func sampleBacklog(sh *link.Shaper, epoch time.Time) *backlogSampler {
	q := &backlogSampler{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(q.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-q.stopc:
				return
			case <-tick.C:
			}
			if st, err := sh.Stats(); err == nil {
				q.samples = append(q.samples, backlogSample{time.Since(epoch), st.BacklogPackets})
			}
		}
	}()
	return q
}

// ranDry stops the sampler and reports, for each second [0, secs), whether
// the queue was seen empty while the link had capacity (after the first
// 100 ms, which fill it).
func (q *backlogSampler) ranDry(p *replay.Player, secs int) []bool {
	close(q.stopc)
	<-q.done
	out := make([]bool, secs)
	for _, s := range q.samples {
		k := int(s.at / time.Second)
		if s.at < 100*time.Millisecond || k >= secs || s.packets > 0 {
			continue
		}
		if _, r, _, _ := p.At(s.at); r > 0 {
			out[k] = true
		}
	}
	return out
}

// TestTraceReplayStaticA: 5 s of the paper's LTE trace (one step a
// second) through link1 under a saturating flow deliver the trace's mean
// capacity within 30 %. The per-second figure is
// TestFidelityTraceReplayStaticA's, the tight one (95 % over 120 s)
// BenchmarkTraceReplay's.
func TestTraceReplayStaticA(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	res := replayRun(t, "StaticA", 5, false, config.Setting{Key: "link1.queue", Value: "30p"})
	if e := res.fid.MeanErrPct(); res.fid.Steps != 5 || math.Abs(e) > 30 {
		t.Errorf("StaticA replay: %v; want the trace's mean within 30%%", res.fid)
	}
}

// TestFidelityTraceReplayStaticA: 10 s of the paper's LTE trace through
// link1 under a saturating flow: at least 90% of the seconds deliver
// within 5% (or 0.1 Mbit/s) of the trace's capacity.
func TestFidelityTraceReplayStaticA(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	h.Witness(t)
	res := replayRun(t, "StaticA", 10, false, config.Setting{Key: "link1.queue", Value: "30p"})
	if res.fid.WithinPct() < 90 {
		h.Errorf(t, "StaticA replay: %v; want at least 90%% of steps within tolerance", res.fid)
	}
}

// rateWatch polls a shaper's configured rate, which SetRate updates once
// the kernel has acknowledged the class change, and records when each new
// rate appeared (time since the epoch). It naps in nanosleep (Go's timers
// would make it a millisecond coarse), so what it sees is up to its poll
// interval, plus wake-up lateness, after the fact.
type rateWatch struct {
	stopc chan struct{}
	done  chan struct{}
	seen  []rateSeen
}

type rateSeen struct {
	at   time.Duration
	rate float64
}

const ratePoll = 200 * time.Microsecond

func watchRate(sh *link.Shaper, epoch time.Time) *rateWatch {
	w := &rateWatch{stopc: make(chan struct{}), done: make(chan struct{}), seen: make([]rateSeen, 0, 1<<15)}
	go func() {
		defer close(w.done)
		last := sh.ClassRate()
		nap := unix.NsecToTimespec(int64(ratePoll))
		for {
			select {
			case <-w.stopc:
				return
			default:
			}
			if r := sh.ClassRate(); r != last {
				w.seen = append(w.seen, rateSeen{time.Since(epoch), r})
				last = r
			}
			_ = unix.Nanosleep(&nap, nil)
		}
	}()
	return w
}

// halt ends the watch; w.seen is complete once it returns.
func (w *rateWatch) halt() {
	close(w.stopc)
	<-w.done
}

// landing ends the watch and matches what it saw with the rate changes the
// player is due to make over [0, until): the schedule Drive gives when it
// is called exactly at each wake-up, less the outage holds (their value
// depends on the moment they are computed; see wakeLateness). Each observed
// rate belongs to the latest change the player may have made by then with
// that rate (it applies what is in force when it wakes, replay.DriveLead ahead).
// For each matched change it returns when it was seen relative to the
// start of its step in the trace (negative: before it), how many changes
// were never seen, and how many there were.
func (w *rateWatch) landing(p *replay.Player, until time.Duration) (offsets []time.Duration, missed, changes int) {
	w.halt()
	type due struct {
		aim  time.Duration // when the player means to set it
		step time.Duration // when its step begins
		rate float64
		hit  bool
	}
	var steps []due
	_, prev, wake, ok := p.Drive(0)
	for ok && wake < until {
		el := wake
		_, r, w, more := p.Drive(el)
		_, stepRate, stepEnd, _ := p.At(el + replay.DriveLead)
		_, nextRate, _, _ := p.At(stepEnd)
		if r != prev && r > 0 && (r == stepRate || (stepRate == 0 && r == nextRate)) {
			start := el + replay.DriveLead
			if stepRate == 0 { // the rate after an outage, set as it ends
				start = stepEnd
			}
			steps = append(steps, due{aim: el, step: start, rate: r})
		}
		prev, wake, ok = r, w, more
	}
	j := 0
	for _, s := range w.seen {
		for j+1 < len(steps) && steps[j+1].aim <= s.at {
			j++
		}
		for k := j; k >= 0 && k < len(steps); k-- {
			if steps[k].aim <= s.at && steps[k].rate == s.rate {
				if !steps[k].hit {
					steps[k].hit = true
					offsets = append(offsets, s.at-steps[k].step)
				}
				break
			}
		}
	}
	for _, s := range steps {
		if !s.hit {
			missed++
		}
	}
	return offsets, missed, len(steps)
}

// wakeLateness measures how late the player woke, exactly, from the first
// hold it sets in each outage: Drive's hold rate encodes the elapsed time
// it was computed at (rate = packet / (end − elapsed + packet/resume)), and
// the first hold is due replay.DriveLead before the outage. An outage whose first
// hold the watch missed (it saw a later one, computed at least one recheck
// later) is not counted. The netlink call that follows is not included.
func (w *rateWatch) wakeLateness(p *replay.Player, until time.Duration) []time.Duration {
	type outage struct {
		start, end time.Duration
		resume     float64
		done       bool
	}
	var outs []outage
	for t := time.Duration(0); t < until; {
		_, r, next, ok := p.At(t)
		if !ok {
			break
		}
		if r == 0 {
			o := outage{start: t}
			for {
				_, r2, n2, more := p.At(next)
				if !more || r2 > 0 {
					o.end, o.resume = next, r2
					break
				}
				next = n2
			}
			outs = append(outs, o)
		}
		t = next
	}
	var late []time.Duration
	k := 0
	for _, s := range w.seen {
		for k+1 < len(outs) && outs[k+1].start-replay.DriveLead <= s.at {
			k++
		}
		if k >= len(outs) || outs[k].done || outs[k].resume == 0 || s.rate <= 0 || s.rate == outs[k].resume {
			continue // not a hold (the last is the rate after the outage)
		}
		o := &outs[k]
		o.done = true
		el := o.end + time.Duration((replay.HoldPacketBits/o.resume-replay.HoldPacketBits/s.rate)*1e9)
		aim := o.start - replay.DriveLead
		if d := el - aim; d >= 0 && d < replay.HoldRecheck(o.end-aim) {
			late = append(late, d)
		}
	}
	return late
}

// TestTraceReplayOutageHolds: a zero-capacity step holds the queue. With
// outage-10mbit-2s.csv from 3 s in (10 Mbit/s, a 2 s outage at 2 s, 10
// Mbit/s from 4 s) and a 30-packet queue under a 13 Mbit/s flow: nothing
// arrives during the outage but what HTB lets go as it starts (see
// replay.Player.Drive); the queue holds packets through it, at most its
// limit of them sent before its end arrive after it, and no more packets
// were lost than the queue dropped. That the outage came on time, the
// queue was full and all of it was held, and every packet not delivered
// was a queue-limit drop are TestFidelityTraceReplayOutageHolds'.
func TestTraceReplayOutageHolds(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	r := outageHolds(t)
	// Only what HTB itself lets cross the hold fails outright: a late
	// watcher moves applied later, which can only lower during.
	if r.during > 1 {
		t.Errorf("%d packets arrived during the outage after it was applied; want at most the one HTB lets go", r.during)
	}
	if r.heldThrough < 1 || r.heldThrough > outageQueue {
		t.Errorf("%d packets sent before the outage ended were delivered after it, want some, at most the queue limit (%d)", r.heldThrough, outageQueue)
	}
	if r.p1.BacklogPackets == 0 || r.p2.BacklogPackets == 0 {
		t.Errorf("backlog in the outage %d then %d packets, want the queue held", r.p1.BacklogPackets, r.p2.BacklogPackets)
	}
	// A receiver behind loses more than the queue dropped, never less.
	if lost := int64(r.sent) - int64(r.delivered); lost < int64(r.after.Drops) {
		t.Errorf("sent %d, delivered %d: %d lost, but the qdisc dropped %d", r.sent, r.delivered, lost, r.after.Drops)
	}
}

// TestFidelityTraceReplayOutageHolds: in TestTraceReplayOutageHolds' run
// the outage is applied within 20 ms of its start, the link carried the
// flow up to it and from its end (within 20 ms); the full queue stays
// through the outage and is delivered after it, what arrives meanwhile
// overflows it (equal within 2); and every packet not delivered was a
// queue-limit drop. These are the machine's figures as much as emu's: a
// late player or watcher, a sender that paused, a probe that woke late
// (its two readings then straddle packets still between the socket and
// the qdisc, or the outage's end), a receiver that had not drained its
// socket 200 ms after the flow stopped.
func TestFidelityTraceReplayOutageHolds(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	h.Witness(t)
	r := outageHolds(t)
	var missed []string
	if r.during > 1 {
		missed = append(missed, fmt.Sprintf("%d packets arrived during the outage after it was applied; want at most the one HTB lets go", r.during))
	}
	if r.heldThrough < outageQueue-1 || r.heldThrough > outageQueue {
		missed = append(missed, fmt.Sprintf("%d packets sent before the outage ended were delivered after it, want the queue limit (%d)", r.heldThrough, outageQueue))
	}
	if r.late > 20*time.Millisecond {
		missed = append(missed, fmt.Sprintf("the outage was applied %v late, want ≤ 20 ms", r.late))
	}
	if r.lastBefore < 0 || r.lastBefore > 20*time.Millisecond {
		missed = append(missed, fmt.Sprintf("last arrival before the outage %v before it began, want ≤ 20 ms: the link was not carrying the flow", r.lastBefore))
	}
	if r.firstAfter < 0 || r.firstAfter > 20*time.Millisecond {
		missed = append(missed, fmt.Sprintf("first arrival after the outage %v after it ended, want ≤ 20 ms", r.firstAfter))
	}
	// Held, not dropped: the full queue stays through the outage and is
	// delivered after it; what arrives meanwhile overflows it.
	if r.p1.BacklogPackets < outageQueue-1 || r.p2.BacklogPackets != r.p1.BacklogPackets {
		missed = append(missed, fmt.Sprintf("backlog in the outage %d then %d packets, want the full queue (%d) held", r.p1.BacklogPackets, r.p2.BacklogPackets, outageQueue))
	}
	if diff := int64(r.dropsIn) - int64(r.sentIn); diff < -2 || diff > 2 {
		missed = append(missed, fmt.Sprintf("in the outage %d packets were sent and %d dropped between the probes, want equal within 2: with the queue full all of them should overflow it", r.sentIn, r.dropsIn))
	}
	// Every packet not delivered was a queue-limit drop.
	if lost := int64(r.sent) - int64(r.delivered); lost != int64(r.after.Drops) || r.after.BacklogPackets != 0 {
		missed = append(missed, fmt.Sprintf("sent %d, delivered %d: %d lost, but the qdisc dropped %d (backlog %d) 200 ms after the flow stopped", r.sent, r.delivered, lost, r.after.Drops, r.after.BacklogPackets))
	}
	h.Check(t, missed)
}

// outageQueue is TestTraceReplayOutageHolds' queue, packets.
const outageQueue = 30

// outage is what outageHolds measured.
type outage struct {
	sent        uint64
	delivered   int
	p1, p2      link.ShaperStats // 100 ms into the outage and 100 ms before its end
	after       link.ShaperStats // 200 ms after the flow stopped
	sentIn      uint64           // sent between the two probes
	dropsIn     uint64           // dropped between the two probes
	during      int              // arrivals during the outage once the hold was seen
	heldThrough int              // packets sent before the outage's end delivered after it
	late        time.Duration    // when the hold was seen after the outage began
	lastBefore  time.Duration    // the last arrival before the outage, before it; -1: none
	firstAfter  time.Duration    // the first arrival after the outage, after it; -1: none
}

// outageHolds runs TestTraceReplayOutageHolds' flow through the outage and
// returns what it measured.
func outageHolds(t *testing.T) outage {
	t.Helper()
	em := startReplay(t, "outage-10mbit-2s.csv", config.Setting{Key: "trace.offset", Value: "3s"}, config.Setting{Key: "link1.queue", Value: fmt.Sprintf("%dp", outageQueue)})
	d := replayDir(t, em, "link1.down")
	w := watchRate(d.Shaper, em.Epoch)
	f := startStampedFlow(t, em)
	outStart, outEnd := em.Epoch.Add(2*time.Second), em.Epoch.Add(4*time.Second)

	// Counters 100 ms into the outage and 100 ms before its end.
	type probe struct {
		st   link.ShaperStats
		sent uint64
		err  error
	}
	probes := make(chan probe, 2)
	go func() {
		for _, at := range []time.Time{outStart.Add(100 * time.Millisecond), outEnd.Add(-100 * time.Millisecond)} {
			time.Sleep(time.Until(at))
			st, err := d.Shaper.Stats()
			probes <- probe{st, f.sent.Load(), err}
		}
	}()
	r := outage{sent: f.pace(13e6, em.Epoch.Add(5*time.Second))}
	p1, p2 := <-probes, <-probes
	time.Sleep(200 * time.Millisecond)
	after, err := d.Shaper.Stats()
	if err != nil || p1.err != nil || p2.err != nil {
		t.Fatal(err, p1.err, p2.err)
	}
	as := f.snapshot()
	w.halt()
	r.p1, r.p2, r.after, r.delivered = p1.st, p2.st, after, len(as)
	r.dropsIn, r.sentIn = p2.st.Drops-p1.st.Drops, p2.sent-p1.sent
	// The hold (a rate under 1 Mbit/s here) is set replay.DriveLead before the
	// outage; if it is seen only after the outage began (the player was
	// late), packets in between left at the old rate. After it HTB may let
	// one packet go (replay.Player.Drive); nothing else may cross.
	applied := outEnd
	for _, s := range w.seen {
		if s.at >= outStart.Sub(em.Epoch)-5*time.Millisecond && s.rate < 1e6 {
			applied = em.Epoch.Add(s.at)
			break
		}
	}
	if applied.Before(outStart) {
		applied = outStart
	}
	r.late = applied.Sub(outStart)

	beforeHold := 0
	var lastBefore, firstAfter time.Time
	for _, a := range as {
		switch {
		case a.at.Before(outStart):
			lastBefore = a.at
		case a.at.Before(applied):
			beforeHold++
		case a.at.Before(outEnd):
			r.during++
			t.Logf("arrival during the outage at %v (sent %v)", a.at.Sub(em.Epoch), a.sent.Sub(em.Epoch))
		default:
			if firstAfter.IsZero() {
				firstAfter = a.at
			}
			if a.sent.Before(outEnd) {
				r.heldThrough++
			}
		}
	}
	r.lastBefore, r.firstAfter = -1, -1
	if !lastBefore.IsZero() {
		r.lastBefore = outStart.Sub(lastBefore)
	}
	if !firstAfter.IsZero() {
		r.firstAfter = firstAfter.Sub(outEnd)
	}
	t.Logf("sent %d, delivered %d, qdisc drops %d, backlog %d after draining", r.sent, len(as), after.Drops, after.BacklogPackets)
	t.Logf("in the outage: backlog %d then %d packets; %d sent and %d dropped between the two probes", p1.st.BacklogPackets, p2.st.BacklogPackets, r.sentIn, r.dropsIn)
	t.Logf("hold seen %v after the outage began; last arrival %v before the outage, %d before the hold, %d after it; first %v after the outage; %d packets sent before its end delivered after it",
		r.late, r.lastBefore, beforeHold, r.during, r.firstAfter, r.heldThrough)
	return r
}

// TestTraceReplayMahimahi: 4 s of a Mahimahi LTE trace in 10 ms windows
// (a rate change every 10 ms, empty windows as outages) under a saturating
// flow: the player makes the rate changes (at least half are seen in the
// kernel class) and the delivered mean is within 30 % of the trace's. The
// timing and the tighter figures are TestFidelityTraceReplayMahimahi's.
func TestTraceReplayMahimahi(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	res := replayRun(t, "mahimahi-verizon-lte-short", 4, true, config.Setting{Key: "link1.queue", Value: "100p"})
	logLateness(t, res)
	if res.changes == 0 || len(res.landing) < res.changes/2 {
		t.Errorf("%d of %d rate changes seen in the kernel class, want at least half", len(res.landing), res.changes)
	}
	if e := res.fid.MeanErrPct(); math.Abs(e) > 30 {
		t.Errorf("delivered mean %.3f Mbit/s is %+.2f%% off the trace's %.3f Mbit/s (want within 30%%)", res.fid.Delivered/1e6, e, res.fid.Capacity/1e6)
	}
}

// TestFidelityTraceReplayMahimahi: 10 s of TestTraceReplayMahimahi's
// trace. The player wakes on time (p99 under 5 ms late here; the benchmark
// reports the figures), every rate change is in the kernel class within
// 10 ms of its step's start (as seen by polling, itself a little late), the
// delivered mean is within 5% of the trace's and at least 80% of the
// seconds are within tolerance.
func TestFidelityTraceReplayMahimahi(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	h.Witness(t)
	res := replayRun(t, "mahimahi-verizon-lte-short", 10, true, config.Setting{Key: "link1.queue", Value: "100p"})
	logLateness(t, res)
	var missed []string
	if p99 := percentileDur(res.wakeLate, 99); len(res.wakeLate) == 0 || p99 > 5*time.Millisecond {
		missed = append(missed, fmt.Sprintf("player wake-up lateness p99 %v over %d wake-ups, want under 5 ms", p99, len(res.wakeLate)))
	}
	if p99 := percentileDur(res.landing, 99); p99 > 10*time.Millisecond {
		missed = append(missed, fmt.Sprintf("rate changes seen up to %v (p99) after their step began, want under 10 ms", p99))
	}
	if res.missed > res.changes/20 {
		missed = append(missed, fmt.Sprintf("%d of %d rate changes never seen", res.missed, res.changes))
	}
	if e := res.fid.MeanErrPct(); math.Abs(e) > 5 {
		missed = append(missed, fmt.Sprintf("delivered mean %.3f Mbit/s is %+.2f%% off the trace's %.3f Mbit/s (want within 5%%)", res.fid.Delivered/1e6, e, res.fid.Capacity/1e6))
	}
	if res.fid.WithinPct() < 80 {
		missed = append(missed, fmt.Sprintf("Mahimahi replay: %v; want at least 80%% of steps within tolerance", res.fid))
	}
	// A clean-clone CI run at 05:45 on a noisy host: the sender paused
	// over 10 ms in 5 of the 10 s, 70 % of steps within tolerance;
	// without those seconds 100 %.
	h.Check(t, missed)
}

func logLateness(tb testing.TB, res replayResult) {
	tb.Helper()
	tb.Logf("player wake-up lateness (exact, at %d outages): p50 %v p99 %v max %v", len(res.wakeLate),
		percentileDur(res.wakeLate, 50), percentileDur(res.wakeLate, 99), percentileDur(res.wakeLate, 100))
	late := 0
	for _, d := range res.landing {
		if d > 0 {
			late++
		}
	}
	tb.Logf("rate changes in the class (polled every %v; the player aims %v early): %d due, %d seen, %d never seen; seen relative to their step: p1 %v p50 %v p99 %v max %v; %d seen after the step began",
		ratePoll, replay.DriveLead, res.changes, len(res.landing), res.missed, percentileDur(res.landing, 1), percentileDur(res.landing, 50),
		percentileDur(res.landing, 99), percentileDur(res.landing, 100), late)
}

func percentileDur(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	return time.Duration(percentileOf(xs, p))
}

// BenchmarkTraceReplay replays a shipped LTE trace on link1 under a
// saturating UDP flow: 120 s of StaticA (one step a second) and the whole
// 140 s of a Mahimahi trace in 10 ms windows (a rate change every 10 ms,
// empty windows as outages). Per one-second step of trace time it reports
// the share of steps delivered within 5% (or 0.1 Mbit/s) of the trace's
// capacity, the mean and 95th-percentile absolute error, and the error of
// the delivered mean over the whole run; for the Mahimahi trace also the
// player's wake-up lateness and when the rate changes landed in the kernel.
// The figures are over the seconds in which the flow kept the link's queue
// busy ("saturated"); the raw figures over every second are reported too.
// It fails unless at least 95% of the saturated seconds are within
// tolerance, at most 5% of the seconds are left out, and (the token-bucket
// concern behind choosing HTB) the Mahimahi replay delivers its trace's
// mean capacity within 2%. Run with -benchtime 1x.
func BenchmarkTraceReplay(b *testing.B) {
	emutest.RequireRoot(b)
	emutest.Exclusive(b)
	for _, c := range []struct {
		name, trace, queue string
		secs               int
		watch              bool
	}{
		{"StaticA", "StaticA", "30p", 120, false},
		{"mahimahi-verizon-10ms", "mahimahi-verizon-lte-short", "100p", 140, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			var res replayResult
			for range b.N {
				res = replayRun(b, c.trace, c.secs, c.watch, config.Setting{Key: "link1.queue", Value: c.queue})
			}
			b.ReportMetric(res.clean.WithinPct(), "%within")
			b.ReportMetric(res.clean.MAEPct, "mae%")
			b.ReportMetric(res.clean.P95Pct, "p95err%")
			b.ReportMetric(res.clean.MeanErrPct(), "meanerr%")
			b.ReportMetric(float64(res.clean.Skipped), "unsaturated-s")
			b.ReportMetric(res.fid.WithinPct(), "%within-raw")
			b.ReportMetric(res.fid.MeanErrPct(), "meanerr%-raw")
			if c.watch {
				b.ReportMetric(float64(percentileDur(res.wakeLate, 50).Microseconds()), "wake-p50-µs")
				b.ReportMetric(float64(percentileDur(res.wakeLate, 99).Microseconds()), "wake-p99-µs")
				b.ReportMetric(float64(percentileDur(res.landing, 50).Microseconds()), "seen-p50-µs")
				b.ReportMetric(float64(percentileDur(res.landing, 99).Microseconds()), "seen-p99-µs")
				logLateness(b, res)
			}
			if res.clean.WithinPct() < 95 {
				b.Errorf("%s: %.1f%% of saturated steps within tolerance, want at least 95%%", c.name, res.clean.WithinPct())
			}
			if res.clean.Skipped > c.secs/20 {
				b.Errorf("%s: the flow did not saturate the link in %d of %d s", c.name, res.clean.Skipped, c.secs)
			}
			if e := res.clean.MeanErrPct(); c.watch && math.Abs(e) > 2 {
				b.Errorf("%s: delivered mean %+.2f%% off the trace's, want within 2%%", c.name, e)
			}
		})
	}
}
