package delayline

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/nfq/nfqtest"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/internal/durhist"
	"github.com/dc-emu/emu/internal/emutest"
)

// The line TestDelayFidelity and TestFidelityDelayFidelity run: delay
// 10 ms with 10 % jitter. The jitter's time constant is 5 ms, not the
// default 20 ms, so a run still sees many independent stretches of it.
const delaySeed = 42

var delayParams = Params{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, JitterCorr: 5 * time.Millisecond}

// delayRun is one run of probes through a line with delayParams, each
// delivered probe's one-way delay compared with the delay the model gave
// it: the pure Line, with the same seed, fed the probes' send times.
//
// The comparison is with the model's draws, not with the process's mean
// of 10 ms: a few seconds of a correlated process have a mean of their
// own (seed 42 at 2000 pkt/s: 10.18 ms over 4 s), which the pure tests
// check over 200 s of model time; here it would eat most of a tight
// tolerance.
type delayRun struct {
	n int // probes sent
	// s is the delivered delays', model the model's delays', err emu's
	// error's (delivered − model), all in ms; minErr is the smallest
	// error.
	s, model, err delayStats
	minErr        float64
	late          HistogramSnapshot // the loop's release lateness
}

// measureDelay sends rate × dur probes through a fresh line with
// delayParams and compares them with the model, whose arrivals it puts
// bareMs (the bare path's one-way delay) after each send.
func measureDelay(t *testing.T, rate float64, dur time.Duration, bareMs float64) delayRun {
	t.Helper()
	r := newRig(t, delaySeed, &delayParams, nil)
	d := delayRun{n: int(rate * dur.Seconds()), minErr: math.Inf(1)}
	delays, sent := oneWay(t, r, rate, d.n, 64)
	intended := modelDelays(t, delaySeed, delayParams, sent, bareMs)
	errs := make([]float64, len(delays))
	for i, v := range delays {
		errs[i] = v - intended[i]
		if !math.IsNaN(errs[i]) {
			d.minErr = min(d.minErr, errs[i])
		}
	}
	d.s, d.model, d.err = summarize(delays), summarize(intended), summarize(errs)
	d.late = r.loops[0].Snapshot().Late
	t.Logf("%5.0f pkt/s: %d of %d delivered, mean %.3f ms (the model's %.3f), std %.3f ms, CV %.2f %% (the model's %.2f %%); emu's error mean %.3f ms, min %.3f ms, p99 %.3f ms; release lateness p50 %v p99 %v max %v",
		rate, d.s.n, d.n, d.s.mean, d.model.mean, d.s.std, d.cv(), d.model.std/d.model.mean*100, d.err.mean, d.minErr, d.err.p99,
		d.late.Quantile(0.5), d.late.Quantile(0.99), d.late.Quantile(1))
	return d
}

// cv is the delivered delays' coefficient of variation in %.
func (d delayRun) cv() float64 { return d.s.std / d.s.mean * 100 }

// TestDelayFidelity: probes through a line at delay 10 ms with 10 %
// jitter all arrive, none earlier than the model's delay for it, on
// average within 10 ms of it, and with the jitter applied (a spread of at
// least a fifth of the model's). Load makes releases late, never early;
// TestFidelityDelayFidelity holds the line to its tight figures.
func TestDelayFidelity(t *testing.T) {
	emutest.RequireRoot(t)
	d := measureDelay(t, 1000, time.Second, 0)
	if d.s.n != d.n {
		t.Errorf("%d of %d delivered without loss configured", d.s.n, d.n)
	}
	// The model's arrivals are the send times: a probe's true arrival a
	// few µs later moves its draw of the correlated jitter by far less.
	if d.minErr < -3 {
		t.Errorf("a probe arrived %.3f ms before the model's delay for it: the line released it early", -d.minErr)
	}
	if d.err.mean < -1 || d.err.mean > 10 {
		t.Errorf("delays %.3f ms from the model's on average, want within [-1, 10] ms", d.err.mean)
	}
	if d.s.std < d.model.std/5 {
		t.Errorf("delays' std %.3f ms, the model's %.3f: the jitter was not applied", d.s.std, d.model.std)
	}
}

// TestFidelityDelayFidelity: at a low and a moderate packet rate, the
// mean of the difference between each probe's delay and the model's is
// within 0.3 ms of the bare path's delay, the delays' coefficient of
// variation within 2 points of the model's own, and at most 1 % of
// releases are more than 1 ms late.
//
// A miss is reported through the watch: it skips, naming the evidence,
// when the machine was busy (a witness that could not run counts too),
// and fails otherwise, as a miss on a quiet machine is the line's. A late
// tail is the host's when the witnesses were held that long for at least
// half as much of the time.
func TestFidelityDelayFidelity(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	bareDelays, _ := oneWay(t, newRig(t, 1, nil, nil), 1000, 1000, 64)
	bare := summarize(bareDelays)
	t.Logf("bare path: mean %.3f ms, p99 %.3f ms", bare.mean, bare.p99)
	for _, tc := range []struct {
		rate float64
		dur  time.Duration
	}{{200, 4 * time.Second}, {2000, 3 * time.Second}} {
		// Each rate is judged on what the host took while it ran: a fresh
		// witness and watch from its start.
		h.Witness(t)
		d := measureDelay(t, tc.rate, tc.dur, bare.mean)
		var missed []string
		if d.s.n != d.n {
			missed = append(missed, fmt.Sprintf("%v pkt/s: %d of %d delivered without loss configured", tc.rate, d.s.n, d.n))
		}
		if math.Abs(d.err.mean-bare.mean) > 0.3 {
			missed = append(missed, fmt.Sprintf("%v pkt/s: delays %.3f ms from the model's on average, want the bare path's %.3f ± 0.3", tc.rate, d.err.mean, bare.mean))
		}
		if modelCV := d.model.std / d.model.mean * 100; math.Abs(d.cv()-modelCV) > 2 {
			missed = append(missed, fmt.Sprintf("%v pkt/s: CV %.2f %%, want the model's %.2f ± 2", tc.rate, d.cv(), modelCV))
		}
		if q := d.late.Quantile(0.99); q > time.Millisecond {
			missed = append(missed, fmt.Sprintf("%v pkt/s: 99th percentile release lateness %v, want under 1 ms", tc.rate, q))
			h.SkipIfHostHeld(t, time.Millisecond, shareAbove(d.late, time.Millisecond)/2, strings.Join(missed, "; "))
		}
		h.Check(t, missed)
	}
}

// modelDelays is the delay in ms the pure line with seed and p gives each
// probe, sent at sent[i] (ns since the epoch; 0: not delivered, NaN) and
// arriving bareMs later, as the rig's forward line (seed + 0) saw them.
func modelDelays(tb testing.TB, seed uint64, p Params, sent []int64, bareMs float64) []float64 {
	tb.Helper()
	l, err := New(seed, p)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]float64, len(sent))
	for i, at := range sent {
		if at == 0 {
			out[i] = math.NaN()
			continue
		}
		now := time.Unix(0, at+int64(bareMs*1e6))
		l.Arrive(now, uint32(i), 64)
		h := l.fifo.buf[(l.fifo.head+l.fifo.size-1)&(len(l.fifo.buf)-1)]
		out[i] = float64(h.due-l.ns(now)) / 1e6
	}
	return out
}

// shareAbove is the share of the durations in s recorded in bins wholly
// above d.
func shareAbove(s HistogramSnapshot, d time.Duration) float64 {
	if s.Count == 0 {
		return 0
	}
	var n uint64
	for b, c := range s.Bins {
		if lo, _ := durhist.Range(b); lo >= d {
			n += c
		}
	}
	return float64(n) / float64(s.Count)
}

// overheadAtZero measures n round trips of a small packet on the bare path
// and through delay lines at delay 0 in both directions, and returns both
// medians in µs and the forward line's counters.
func overheadAtZero(t *testing.T, n int) (bare, through float64, fwd Snapshot) {
	t.Helper()
	bare = median(pingPong(t, newRig(t, 1, nil, nil), n))
	zero := Params{}
	r := newRig(t, 1, &zero, &zero)
	through = median(pingPong(t, r, n))
	t.Logf("RTT median over %d: bare %.1f µs, through two delay lines %.1f µs (+%.1f µs)", n, bare, through, through-bare)
	return bare, through, r.loops[0].Snapshot()
}

// TestOverheadAtZeroDelay: with delay lines in both directions and no
// delay, every ping is released and a small packet's median round trip is
// within 2 ms of the bare path's (TestFidelityOverheadAtZeroDelay: 0.2 ms).
func TestOverheadAtZeroDelay(t *testing.T) {
	emutest.RequireRoot(t)
	const n = 300
	bare, through, fwd := overheadAtZero(t, n)
	if through-bare > 2000 {
		t.Errorf("delay lines at delay 0 add %.1f µs of median RTT, want under 2 ms", through-bare)
	}
	if fwd.Released < n || fwd.Backlog != 0 {
		t.Errorf("forward line: %+v; want every ping released", fwd)
	}
}

// TestFidelityOverheadAtZeroDelay: with delay lines in both directions and
// no delay, a small packet's median round trip is within 0.2 ms of the
// bare path's.
func TestFidelityOverheadAtZeroDelay(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	bare, through, _ := overheadAtZero(t, 1000)
	if through-bare > 200 {
		h.Errorf(t, "delay lines at delay 0 add %.1f µs of median RTT, want under 200 µs", through-bare)
	}
}

// TestLossPattern: at 1 % loss the real line loses exactly the packets
// the pure line with the same seed loses (lostIndices), counted by
// arrival. At 5000 packets/s the kernel holds over a second of them for
// the loop, a real-time thread, so a kernel drop before the line, which
// would shift the arrival indices, is no loaded machine's.
func TestLossPattern(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	p := Params{Loss: 0.01}
	const seed, n = 77, 20_000
	r := newRig(t, seed, &p, nil)
	d, _ := oneWay(t, r, 5000, n, 32)
	var lost []int
	for i, v := range d {
		if math.IsNaN(v) {
			lost = append(lost, i)
		}
	}
	s := r.loops[0].Snapshot()
	t.Logf("lost %d of %d (%.3f %%); line: in %d, lost %d, kernel overflow %d", len(lost), n, 100*float64(len(lost))/n, s.In, s.Lost, s.Overflow)
	if s.In != n || s.Overflow != 0 {
		t.Fatalf("the line saw %d of %d packets, the kernel dropped %d before it: the pattern is meaningless", s.In, n, s.Overflow)
	}
	if want := lostIndices(seed, p, n); !slices.Equal(lost, want) {
		t.Errorf("lost %d packets, the pure line with the same seed %d: not the same sequence numbers", len(lost), len(want))
	}
}

// TestLossPerWirePacket: a UDP GSO sender hands the kernel super-packets
// of four 1000-byte datagrams, and at 10 % loss each datagram is lost on
// its own: the line sees every datagram, loses 10 ± 1.5 % of them, and
// about a third of the super-packets arrive in part (1 − 0.9⁴ − 0.1⁴ =
// 34 %). A line that kept super-packets whole would lose them four at a
// time and never deliver part of one.
func TestLossPerWirePacket(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	const groups, segs, segSize = 4000, 4, 1000
	p := Params{Loss: 0.1}
	r := newRig(t, 5, &p, nil)
	rx := nfqtest.UDPSocket(t, r.net.C, probePort, netip.AddrPort{})
	if err := unix.SetsockoptInt(rx, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 64<<20); err != nil {
		t.Fatal(err)
	}
	tx := nfqtest.UDPSocket(t, r.net.A, 0, netip.AddrPortFrom(r.net.CAddr, probePort))
	if err := unix.SetsockoptInt(tx, unix.SOL_UDP, unix.UDP_SEGMENT, segSize); err != nil {
		t.Skipf("no UDP GSO here (UDP_SEGMENT: %v)", err)
	}
	buf := make([]byte, segs*segSize)
	err := nfqtest.OnRealtimeThread(func() error {
		start := time.Now()
		for g := range groups {
			nfqtest.SleepUntil(start.Add(time.Duration(g) * 500 * time.Microsecond))
			for s := range segs {
				binary.LittleEndian.PutUint32(buf[s*segSize:], uint32(g*segs+s))
			}
			if _, err := unix.Write(tx, buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	got := make([]int, groups) // datagrams received of each super-packet
	received := 0
	rbuf := make([]byte, 2048)
	for {
		n, _, err := unix.Recvfrom(rx, rbuf, unix.MSG_DONTWAIT)
		if err == unix.EAGAIN {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seq := binary.LittleEndian.Uint32(rbuf)
		if n != segSize || seq >= groups*segs {
			t.Fatalf("received %d bytes, sequence number %d: want %d bytes, below %d", n, seq, segSize, groups*segs)
		}
		got[seq/segs]++
		received++
	}
	partial := 0
	for _, k := range got {
		if k > 0 && k < segs {
			partial++
		}
	}
	s := r.loops[0].Snapshot()
	loss := 1 - float64(received)/(groups*segs)
	t.Logf("line: in %d, lost %d, kernel overflow %d; received %d of %d datagrams (loss %.2f %%); %d of %d super-packets in part", s.In, s.Lost, s.Overflow, received, groups*segs, 100*loss, partial, groups)
	// A datagram the line never saw overflowed the kernel's queue while
	// the loop was late to read it, by a second or more at this rate; the
	// loss figures would count it too.
	if s.In != groups*segs {
		t.Fatalf("the line saw %d packets, want every datagram (%d): the kernel dropped %d before it", s.In, groups*segs, s.Overflow)
	}
	if math.Abs(loss-0.1) > 0.015 {
		t.Errorf("loss %.2f %%, want 10 ± 1.5 %%", 100*loss)
	}
	if frac := float64(partial) / groups; frac < 0.25 {
		t.Errorf("%.1f %% of the super-packets arrived in part, want about 34 %% (at least 25 %%): losses come a super-packet at a time", 100*frac)
	}
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}

// TestLoopAllocatesNothingPerPacket pushes 20 000 packets through a delay
// line (10 ms) from a sender that allocates nothing and counts the
// process's allocations meanwhile.
func TestLoopAllocatesNothingPerPacket(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	p := Params{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.01}
	r := newRig(t, 1, &p, nil)
	nfqtest.UDPSocket(t, r.net.C, probePort, netip.AddrPort{})
	tx := nfqtest.UDPSocket(t, r.net.A, 0, netip.AddrPortFrom(r.net.CAddr, probePort))
	buf := make([]byte, 100)
	send := func(n int) {
		for i := range n {
			if _, err := unix.Write(tx, buf); err != nil {
				t.Fatal(err)
			}
			if i%100 == 99 {
				time.Sleep(time.Millisecond) // stay below the queue's limits
			}
		}
	}
	send(2000) // warm up: the ring grows to its working size
	emutest.WaitFor(t, 5*time.Second, func() error {
		if s := r.loops[0].Snapshot(); s.Backlog != 0 {
			return fmt.Errorf("%d held", s.Backlog)
		}
		return nil
	})
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	s0 := r.loops[0].Snapshot()
	send(20_000)
	emutest.WaitFor(t, 10*time.Second, func() error {
		if s := r.loops[0].Snapshot(); s.In-s0.In < 20_000 || s.Backlog != 0 {
			return fmt.Errorf("%d of 20000 in, %d held", s.In-s0.In, s.Backlog)
		}
		return nil
	})
	runtime.ReadMemStats(&m1)
	if s := r.loops[0].Snapshot(); s.ReadLag.Count == 0 {
		t.Error("no packet carried a kernel timestamp: the queue's Timestamps switch did not work")
	}
	allocs := m1.Mallocs - m0.Mallocs
	t.Logf("%d allocations in the process while 20000 packets passed the line", allocs)
	// time.Sleep and WaitFor allocate a little; per packet would be ≥ 20000.
	if allocs > 2000 {
		t.Errorf("%d allocations for 20000 packets", allocs)
	}
}

// TestKernelStampIsArrivalHere guards the assumption Loop.arrival rests on:
// the kernel timestamp a queue reports is the time the packet entered the
// queue's own namespace, not an earlier hop's. A packet held 5 ms by a
// delay line in B and queued again in C carries C's arrival time.
func TestKernelStampIsArrivalHere(t *testing.T) {
	emutest.RequireRoot(t)
	p := Params{Delay: 5 * time.Millisecond}
	r := newRig(t, 1, &p, nil)
	q, err := nfq.Open(nfq.Config{NetNS: int(r.net.C.NS), Num: 5, Timestamps: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	chains := []nft.Chain{{Name: "in", Hook: nft.Prerouting, Rules: []nft.QueueRule{{Proto: unix.IPPROTO_UDP, Queue: 5}}}}
	if _, err := nft.Apply(int(r.net.C.NS), "stamp", chains); err != nil {
		t.Fatal(err)
	}
	nfqtest.UDPSocket(t, r.net.C, 7777, netip.AddrPort{})
	tx := nfqtest.UDPSocket(t, r.net.A, 0, netip.AddrPortFrom(r.net.CAddr, 7777))
	pkts := make([]nfq.Packet, 4)
	for i := range 5 {
		sent := time.Now()
		if _, err := unix.Write(tx, []byte("x")); err != nil {
			t.Fatal(err)
		}
		n, err := q.Recv(pkts, time.Now().Add(2*time.Second))
		if err != nil || n != 1 {
			t.Fatalf("packet %d: %d received, %v", i, n, err)
		}
		read := time.Now()
		if pkts[0].Time.IsZero() {
			t.Fatal("no kernel timestamp with Timestamps set")
		}
		age, travel := read.Sub(pkts[0].Time), read.Sub(sent)
		if travel < 5*time.Millisecond || age < 0 || age > travel-4*time.Millisecond {
			t.Errorf("packet %d: read %v after sending, stamped %v before the read; want the stamp from C, after B's 5 ms", i, travel, age)
		}
		q.Accept(pkts[0].ID)
		q.Flush()
	}
}
