package emu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// TestQueueDelayOfSaturatedLink: a 20 Mbit/s link1 with a 50 ms queue,
// kept saturated by paced UDP at 30 Mbit/s from the server to the link1
// client beside a TCP flow on the same path, run through RunFlows, reports
// a queueing delay (from the rate limiter's counters) of the queue's size,
// of the size of the datagrams' own one-way delay (no delay line: the
// queue is all the delay there is), judges the rate limiter's rate, and
// timeseries.csv carries the per-bin delay. The figures are
// TestFidelityQueueDelayOfSaturatedLink's.
func TestQueueDelayOfSaturatedLink(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	r := saturatedQueue(t, 3*time.Second)
	q := r.link.QueueDelayMs
	if q.P95 < 10 || q.P95 > 100 {
		t.Errorf("p95 queueing delay %.2f ms, want about 50 ms (10 to 100)", q.P95)
	}
	if len(r.owd) < 100 {
		t.Fatalf("only %d datagrams in the window, want ≥ 100", len(r.owd))
	}
	if ref := r.owd[len(r.owd)/2]; q.P50 < ref/5 || q.P50 > 5*ref {
		t.Errorf("counters give p50 %.2f ms, the datagrams %.2f ms: want within a factor of 5", q.P50, ref)
	}
	if r.full == 0 {
		t.Errorf("no bin of %d with departures shows a full queue: %v", r.measured, r.col)
	}
}

// TestFidelityQueueDelayOfSaturatedLink is issue 12's queueing-delay
// figure: in TestQueueDelayOfSaturatedLink's run, the p95 queueing delay
// summary.json reports (rate limiter counters read every 10 ms) is 50 ms
// ± 10 %, and its median agrees with the UDP datagrams' own median one-way
// delay within 2 ms + 5 % (the datagrams' tail also holds the receiver's
// scheduling on a loaded machine, so p95 is only logged). The rate limiter
// is judged saturated and delivering its rate, and 3/4 of the bins show a
// full queue.
func TestFidelityQueueDelayOfSaturatedLink(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	h.Witness(t)
	r := saturatedQueue(t, 6*time.Second)
	q := r.link.QueueDelayMs
	// Every figure is the machine's as much as emu's: a sender or
	// receiver held off the CPU empties the queue or shifts the
	// datagrams' delays.
	var missed []string
	if math.Abs(q.P95-50) > 5 {
		missed = append(missed, fmt.Sprintf("p95 queueing delay %.2f ms, want 50 ms ± 10 %%", q.P95))
	}
	if len(r.owd) < 1000 {
		missed = append(missed, fmt.Sprintf("only %d datagrams in the window, want ≥ 1000", len(r.owd)))
		h.Check(t, missed)
		t.FailNow()
	}
	ref := r.owd[len(r.owd)/2]
	if tol := 2 + 0.05*ref; math.Abs(q.P50-ref) > tol {
		missed = append(missed, fmt.Sprintf("counters give p50 %.2f ms, the datagrams %.2f ms (tolerance %.2f ms)", q.P50, ref, tol))
	}
	if !r.rate.OK || r.rate.Skipped {
		missed = append(missed, fmt.Sprintf("rate check of a saturated link1.down: %+v", r.rate))
	}
	if r.full < r.measured*3/4 {
		missed = append(missed, fmt.Sprintf("only %d of %d bins with departures show a full queue (want ≥ 3/4): %v", r.full, r.measured, r.col))
	}
	h.Check(t, missed)
}

// saturated is what saturatedQueue measured.
type saturated struct {
	link           *results.LinkResult // link1.down's, with its queueing delays
	owd            []float64           // the datagrams' one-way delays in the window, ms, sorted
	rate           fidelity.Check      // the rate check of link1.down
	col            []float64           // link1.down.queue_delay_ms over time
	full, measured int                 // bins of col with a full queue, with departures
}

// saturatedQueue runs TestQueueDelayOfSaturatedLink's flows for d and
// returns what they measured; the datagrams' window leaves out the first
// third of the run (the queue fills) and the last second.
func saturatedQueue(t *testing.T, d time.Duration) saturated {
	t.Helper()
	bin := emuBinary(t)
	em := startEmulation(t, "link.delay=0", "link.jitter=0", "link1.down.queue=50ms",
		"flows.0.path=link1", "flow.proto=tcp", "flow.size=0", "flow.duration="+d.String())
	srv, cli1 := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli1")
	udp := startUDPFlow(t, srv, cli1, topo.ClientAddr(topo.PathLink1), 1472)
	var pacing sync.WaitGroup
	var quit atomic.Bool
	pacing.Add(1)
	go func() { defer pacing.Done(); udp.paceRT(t, 30e6, &quit) }()
	stop := func() { quit.Store(true); pacing.Wait() }
	t.Cleanup(stop) // before the flow's sockets close

	out := t.TempDir()
	start := time.Now()
	sum, err := RunFlows(context.Background(), em, RunOptions{Out: out, Binary: bin})
	end := time.Now()
	stop()
	if err != nil {
		t.Fatal(err)
	}
	var r saturated
	for i := range sum.Links {
		if sum.Links[i].Name == "link1" && sum.Links[i].Dir == "down" {
			r.link = &sum.Links[i]
		}
	}
	if r.link == nil || r.link.QueueDelayMs == nil || r.link.QueueDelayDerivedMs == nil {
		t.Fatalf("no queueing delay for link1.down in %+v", sum.Links)
	}
	l, q, dq := r.link, r.link.QueueDelayMs, r.link.QueueDelayDerivedMs
	t.Logf("link1.down: %d drops; queueing delay p50 %.2f p95 %.2f p99 %.2f max %.2f mean %.2f ms over %d readings (%s); derived p50 %.2f p95 %.2f p99 %.2f max %.2f mean %.2f ms",
		l.Drops, q.P50, q.P95, q.P99, q.Max, q.Mean, q.N, l.QueueDelayMethod, dq.P50, dq.P95, dq.P99, dq.Max, dq.Mean)
	if !strings.Contains(l.QueueDelayMethod, "rate limiter counters") {
		t.Errorf("queue_delay_method %q", l.QueueDelayMethod)
	}

	// The datagrams' one-way delay over the middle of the run, when the
	// queue had long been full.
	for _, a := range udp.snapshot() {
		if a.at.After(start.Add(d/3)) && a.at.Before(end.Add(-time.Second)) {
			r.owd = append(r.owd, float64(a.at.Sub(a.sent))/1e6)
		}
	}
	slices.Sort(r.owd)
	if len(r.owd) > 0 {
		t.Logf("UDP one-way delay over %d datagrams: p50 %.2f p95 %.2f ms", len(r.owd), r.owd[len(r.owd)/2], r.owd[int(0.95*float64(len(r.owd)-1))])
	}

	found := false
	for _, c := range sum.Fidelity.Checks {
		if c.Name == fidelity.CheckRate && c.Subject == "link1.down" {
			r.rate, found = c, true
		}
	}
	if !found {
		t.Fatalf("no rate check of link1.down in %+v", sum.Fidelity.Checks)
	}
	t.Logf("rate check: %+v", r.rate)

	ts := readTimeseries(t, out)
	if r.col = ts.Column("link1.down.queue_delay_ms"); r.col == nil {
		t.Fatalf("no link1.down.queue_delay_ms column in %v", ts.Columns)
	}
	for _, v := range r.col {
		if !math.IsNaN(v) {
			r.measured++
		}
		if v > 45 && v < 55 {
			r.full++
		}
	}
	return r
}

// paceRT sends like pace until quit, in bursts every 200 µs from a
// real-time thread, so that a loaded machine does not stall the sender and
// let the queue run empty.
func (f *udpFlow) paceRT(t testing.TB, rate float64, quit *atomic.Bool) uint64 {
	restore, _, err := nfq.LockThreadPrecise(nfq.SchedRealtime)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer restore()
	buf := make([]byte, f.size)
	ipBytes := float64(f.size + 28)
	tick := unix.NsecToTimespec(int64(200 * time.Microsecond))
	start := time.Now()
	var seq uint64
	for {
		if quit.Load() {
			return seq
		}
		el := time.Since(start)
		for due := uint64(rate / 8 / ipBytes * el.Seconds()); seq < due; seq++ {
			binary.BigEndian.PutUint64(buf, seq)
			binary.BigEndian.PutUint64(buf[8:], uint64(time.Now().UnixNano()))
			f.send.Write(buf)
		}
		unix.Nanosleep(&tick, nil)
	}
}

// TestQuietRunFidelity: a short DC run over constant links (delay lines
// and PDCP proxies on) gets a verdict with every kind of check, for every
// delay line, rate limiter, packet thread and endpoint; each delay line's
// lateness over time agrees with the verdict's, and the sampler reports
// what it did and cost. That the verdict is ok on a quiet machine is
// TestFidelityQuietRunFidelity's.
func TestQuietRunFidelity(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	sum, out := quietRun(t)
	checkEveryCheck(t, sum.Fidelity)
	// Each delay line's lateness over time: its longest lateness per bin,
	// never beyond the verdict's late_max, and above 0 for a line that
	// released packets (every release is some µs late).
	ts := readTimeseries(t, out)
	for _, c := range sum.Fidelity.Checks {
		if c.Name != fidelity.CheckLateMax || c.Skipped {
			continue
		}
		col := ts.Column(c.Subject + ".late_max_ms")
		if col == nil {
			t.Fatalf("no %s.late_max_ms column in %v", c.Subject, ts.Columns)
		}
		top := slices.Max(col)
		if top <= 0 || top > c.Value+0.001 {
			t.Errorf("%s: longest lateness over time %.3f ms, the verdict's late_max %.3f ms", c.Subject, top, c.Value)
		}
	}
	// The sampler reports what it did and cost.
	var c results.Counters
	if err := results.ReadJSON(os.DirFS(out), results.CountersFile, &c); err != nil {
		t.Fatal(err)
	}
	s := c.Sampler
	if s == nil || s.Rounds < 100 || s.CPU <= 0 {
		t.Fatalf("sampler counters %+v, want ≥ 100 rounds and its CPU", s)
	}
	t.Logf("sampler: %d rounds (%d missed, %d slow, longest %.0f µs), %.2f %% of a core, %.0f µs per round",
		s.Rounds, s.Missed, s.Slow, s.MaxTookUs, 100*s.CPU, s.CPUPerRoundUs)
}

// TestFidelityQuietRunFidelity: on a quiet machine TestQuietRunFidelity's
// run is ok. When the machine was not quiet during a degraded run
// (emutest.HostWatch: others' work, the hypervisor's steal, a stall of
// the whole machine), degraded is the right verdict and the test skips.
// A stall of emu's own can make one run on a quiet machine degraded
// (design.md): the tier's rerun absorbs it.
//
// The delay lines are judged at 1 ms of p99 lateness (the default
// ceiling), not at the default floor of 0.5 ms: a fresh-clone CI run on
// a host measured quiet read 0.504 and 0.528 ms in two runs in a row
// (one line each, of 3065 and 1384 releases), while loaded hosts read
// 1.4-31 ms (fidelity.Thresholds). The floor's own figure, 0.14-0.38 ms
// quiet, is BenchmarkHostLoad's.
func TestFidelityQuietRunFidelity(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	h.Witness(t)
	sum, _ := quietRun(t)
	if f := sum.Fidelity; f.Status != fidelity.OK {
		h.Errorf(t, "a run was degraded: %v", f.Failed())
	}
}

// quietRun makes TestQuietRunFidelity's run and returns its summary, which
// has a verdict, and its directory.
func quietRun(t *testing.T) (*results.Summary, string) {
	t.Helper()
	cfg := testConfig(t, "flow.size=8MB", "fidelity.late_floor=1ms")
	out := t.TempDir()
	sum, err := Run(context.Background(), cfg, RunOptions{Out: out, Binary: emuBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Fidelity
	if f == nil {
		t.Fatal("no fidelity verdict in the summary")
	}
	var b strings.Builder
	fidelity.WriteText(&b, *f, false)
	t.Log(b.String())
	return sum, out
}

// readTimeseries reads run directory dir's timeseries.csv.
func readTimeseries(t *testing.T, dir string) *results.Timeseries {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.TimeseriesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts, err := results.ReadTimeseries(f, results.TimeseriesFile)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// checkEveryCheck fails unless f has the checks a DC run over constant
// links with delay lines must have.
func checkEveryCheck(t *testing.T, f *fidelity.Fidelity) {
	t.Helper()
	have := map[string]bool{}
	for _, c := range f.Checks {
		have[c.Name+" "+c.Subject] = true
	}
	want := []string{fidelity.CheckSoftirq + " host", fidelity.CheckSteal + " host",
		fidelity.CheckEndpointCPU + " dc server", fidelity.CheckEndpointCPU + " dc client",
		fidelity.CheckEndpointWait + " dc server", fidelity.CheckEndpointWait + " dc client"}
	for _, d := range []string{"link1.down", "link1.up", "link2.down", "link2.up"} {
		want = append(want, fidelity.CheckLateP99+" "+d, fidelity.CheckLateMax+" "+d, fidelity.CheckRate+" "+d)
		for _, n := range []string{fidelity.CheckThreadWait, fidelity.CheckThreadMeanWait, fidelity.CheckThreadCPU} {
			want = append(want, n+" delay "+d)
		}
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("no %s check", w)
		}
	}
}

// TestSamplerAgreesWithShaperStats: the sampler's one-dump readings (the
// HTB root qdisc's counters) count what Shaper.Stats counts from the class
// and the leaf: after 1 s of 30 Mbit/s into 20 Mbit/s with a 50 ms queue
// and the queue drained, the last reading's bytes, packets and drops equal
// Shaper.Stats' exactly, and the readings saw the queue filling, never
// beyond its limit. The sampler and packet threads carry their names. It
// logs the sampler thread's CPU per round of readings under that load.
// That the readings saw the queue full, and dropping, is
// TestFidelitySamplerAgreesWithShaperStats'.
func TestSamplerAgreesWithShaperStats(t *testing.T) {
	emutest.Exclusive(t)
	r := samplerAgrees(t, time.Second)
	if r.top < uint64(r.limit)/5 {
		t.Errorf("link1.down: largest backlog read %d bytes, want about a full queue of %d (≥ a fifth)", r.top, r.limit)
	}
}

// TestFidelitySamplerAgreesWithShaperStats: under
// TestSamplerAgreesWithShaperStats' load for 2 s the readings saw
// link1.down's queue full (≥ 90 %) and the queue dropped.
func TestFidelitySamplerAgreesWithShaperStats(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	r := samplerAgrees(t, 2*time.Second)
	// A queue never full, or never overflowing, is a sender held off the
	// CPU (it is not real-time) as much as emu.
	var missed []string
	if r.top < uint64(r.limit)*9/10 {
		missed = append(missed, fmt.Sprintf("link1.down: largest backlog read %d bytes, want a full queue of %d (≥ 90 %%)", r.top, r.limit))
	}
	if r.drops == 0 {
		missed = append(missed, "link1.down: no drops at 150 % load")
	}
	h.Check(t, missed)
}

// samplerReadings is what samplerAgrees measured of link1.down.
type samplerReadings struct {
	top   uint64 // the largest backlog read, bytes
	limit int64  // the queue's limit, bytes
	drops uint64 // Shaper.Stats' drops
}

// samplerAgrees runs TestSamplerAgreesWithShaperStats' load for d,
// checking the threads' names and the sampler's last readings against
// Shaper.Stats, and returns what it read of link1.down.
func samplerAgrees(t *testing.T, d time.Duration) samplerReadings {
	t.Helper()
	// Delay lines (1 ms) run too, to check their threads' names, and the
	// PDCP proxies (a DC client), which have none of their own.
	em := startEmulation(t, "link.delay=1ms", "link1.down.queue=50ms", "flows.0.path=link1", "flows.count=2", "flows.1.path=dc")
	srv, cli1 := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli1")
	udp := startUDPFlow(t, srv, cli1, topo.ClientAddr(topo.PathLink1), 1472)
	s, err := link.StartSampler(em.Dirs(), time.Now(), link.SampleInterval)
	if err != nil {
		t.Fatal(err)
	}
	cpu0, err := procstat.ReadThread(os.Getpid(), s.TID())
	if err != nil || cpu0.Stat.Name != "emu sampler" || cpu0.Stat.Policy != 1 || cpu0.Stat.RTPriority != rtsched.PlayerPriority {
		t.Errorf("sampler thread %+v (%v), want emu sampler, SCHED_FIFO %d", cpu0.Stat, err, rtsched.PlayerPriority)
	}
	if n := len(em.PacketThreads()); n != 4 {
		t.Errorf("%d packet threads, want the 4 delay lines", n)
	}
	for _, th := range em.PacketThreads() {
		if rd, err := procstat.ReadThread(os.Getpid(), th.TID); err != nil || !strings.HasPrefix(rd.Stat.Name, "dl link") {
			t.Errorf("%s: thread %d named %q (%v)", th.Name, th.TID, rd.Stat.Name, err)
		}
	}
	udp.pace(30e6, d)
	waitDrained(t, em)
	cpu1, _ := procstat.ReadThread(os.Getpid(), s.TID())
	series, st := s.Stop()
	u := procstat.Between(cpu0, cpu1)
	t.Logf("sampler: %d rounds, %d failed, %d missed, %d slow (longest %v); thread %.2f %% of a core, %.0f µs per round of %d directions, run-queue wait %.1f µs per wake-up",
		st.Rounds, st.Failed, st.Missed, st.Slow, st.MaxTook, 100*u.CPU, u.CPU*u.Wall.Seconds()*1e6/float64(st.Rounds), len(em.Dirs()), float64(u.MeanWait)/1e3)
	if st.Failed > 0 {
		t.Fatalf("%d readings failed: %v", st.Failed, st.FirstError)
	}
	var r samplerReadings
	for i, d := range em.Dirs() {
		want, err := d.Shaper.Stats()
		if err != nil {
			t.Fatal(err)
		}
		got := series[i][len(series[i])-1]
		if got.Bytes != want.Bytes || got.Packets != want.Packets || got.Drops != want.Drops || got.Backlog != want.BacklogBytes {
			t.Errorf("%s: sampler read %d bytes, %d packets, %d drops, backlog %d; Shaper.Stats %d, %d, %d, %d",
				d.Name, got.Bytes, got.Packets, got.Drops, got.Backlog, want.Bytes, want.Packets, want.Drops, want.BacklogBytes)
		}
		if d.Name != "link1.down" {
			continue
		}
		for _, rd := range series[i] {
			r.top = max(r.top, rd.Backlog)
		}
		r.limit = d.Shape.Queue.LimitBytes(d.Shape.Rate, link.IPMTU+link.EtherHeader)
		r.drops = want.Drops
		t.Logf("%s: largest backlog read %d bytes of a %d-byte queue; %d drops", d.Name, r.top, r.limit, r.drops)
		// Over the limit is the qdisc's or the reading's fault.
		if r.top > uint64(r.limit) {
			t.Errorf("%s: largest backlog read %d bytes, over the queue's limit of %d", d.Name, r.top, r.limit)
		}
	}
	return r
}
