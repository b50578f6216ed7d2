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
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// TestQueueDelayOfSaturatedLink is issue 12's queueing-delay figure: a
// 20 Mbit/s link1 with a 50 ms queue, kept saturated by paced UDP at
// 30 Mbit/s from the server to the link1 client beside a TCP flow on the
// same path, run through RunFlows. The p95 queueing delay summary.json
// reports (rate limiter counters read every 10 ms) is 50 ms ± 10 %, and
// its median agrees with the UDP datagrams' own median one-way delay (no
// delay line: the queue is all the delay there is) within 2 ms + 5 % (the
// datagrams' tail also holds the receiver's scheduling on a loaded
// machine, so p95 is only logged). The rate limiter is judged saturated
// and delivering its rate, and timeseries.csv carries the per-bin delay.
func TestQueueDelayOfSaturatedLink(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	bin := emuBinary(t)
	em := startEmulation(t, "link.delay=0", "link.jitter=0", "link1.down.queue=50ms",
		"flows.0.path=link1", "flow.proto=tcp", "flow.size=0", "flow.duration=6s")
	srv, cli1 := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli1")
	udp := startUDPFlow(t, srv, cli1, topo.ClientAddr(topo.PathLink1), 1472)
	var pacing sync.WaitGroup
	var quit atomic.Bool
	pacing.Add(1)
	go func() { defer pacing.Done(); udp.paceRT(t, 30e6, &quit) }()
	stop := func() { quit.Store(true); pacing.Wait() }
	t.Cleanup(stop) // before the flow's sockets close

	out := t.TempDir()
	start, host := time.Now(), emutest.WatchHost(t)
	sum, err := RunFlows(context.Background(), em, RunOptions{Out: out, Binary: bin})
	end := time.Now()
	stop()
	if err != nil {
		t.Fatal(err)
	}
	var l *results.LinkResult
	for i := range sum.Links {
		if sum.Links[i].Name == "link1" && sum.Links[i].Dir == "down" {
			l = &sum.Links[i]
		}
	}
	if l == nil || l.QueueDelayMs == nil || l.QueueDelayDerivedMs == nil {
		t.Fatalf("no queueing delay for link1.down in %+v", sum.Links)
	}
	q, dq := l.QueueDelayMs, l.QueueDelayDerivedMs
	t.Logf("link1.down: %d drops; queueing delay p50 %.2f p95 %.2f p99 %.2f max %.2f mean %.2f ms over %d readings (%s); derived p50 %.2f p95 %.2f p99 %.2f max %.2f mean %.2f ms",
		l.Drops, q.P50, q.P95, q.P99, q.Max, q.Mean, q.N, l.QueueDelayMethod, dq.P50, dq.P95, dq.P99, dq.Max, dq.Mean)
	// Every figure but the method's name is the machine's as much as
	// emu's: a sender or receiver held off the CPU empties the queue or
	// shifts the datagrams' delays.
	var missed []string
	if math.Abs(q.P95-50) > 5 {
		missed = append(missed, fmt.Sprintf("p95 queueing delay %.2f ms, want 50 ms ± 10 %%", q.P95))
	}
	if !strings.Contains(l.QueueDelayMethod, "rate limiter counters") {
		t.Errorf("queue_delay_method %q", l.QueueDelayMethod)
	}

	// The datagrams' one-way delay over the middle of the run, when the
	// queue had long been full.
	var owd []float64
	for _, a := range udp.snapshot() {
		if a.at.After(start.Add(2*time.Second)) && a.at.Before(end.Add(-time.Second)) {
			owd = append(owd, float64(a.at.Sub(a.sent))/1e6)
		}
	}
	if len(owd) < 1000 {
		missed = append(missed, fmt.Sprintf("only %d datagrams in the window, want ≥ 1000", len(owd)))
		host.Check(t, missed)
		t.FailNow()
	}
	slices.Sort(owd)
	ref := owd[len(owd)/2]
	t.Logf("UDP one-way delay over %d datagrams: p50 %.2f p95 %.2f ms", len(owd), ref, owd[int(0.95*float64(len(owd)-1))])
	if tol := 2 + 0.05*ref; math.Abs(q.P50-ref) > tol {
		missed = append(missed, fmt.Sprintf("counters give p50 %.2f ms, the datagrams %.2f ms (tolerance %.2f ms)", q.P50, ref, tol))
	}

	var rate *fidelity.Check
	for i, c := range sum.Fidelity.Checks {
		if c.Name == fidelity.CheckRate && c.Subject == "link1.down" {
			rate = &sum.Fidelity.Checks[i]
		}
	}
	if rate == nil {
		t.Errorf("no rate check of link1.down in %+v", sum.Fidelity.Checks)
	} else if rate.Skipped || !rate.OK {
		missed = append(missed, fmt.Sprintf("rate check of a saturated link1.down: %+v", *rate))
	} else {
		t.Logf("rate check: %s", rate.Detail)
	}

	ts := readTimeseries(t, out)
	col := ts.Column("link1.down.queue_delay_ms")
	if col == nil {
		t.Fatalf("no link1.down.queue_delay_ms column in %v", ts.Columns)
	}
	var full, measured int
	for _, v := range col {
		if !math.IsNaN(v) {
			measured++
		}
		if v > 45 && v < 55 {
			full++
		}
	}
	if full < measured*3/4 {
		missed = append(missed, fmt.Sprintf("only %d of %d bins with departures show a full queue (want ≥ 3/4): %v", full, measured, col))
	}
	host.Check(t, missed)
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
// delay line, rate limiter, packet thread and endpoint, and on a quiet
// machine it is ok. When the machine was not quiet during a degraded run
// (emutest.HostWatch: others' work, the hypervisor's steal, a stall of
// the whole machine), degraded is the right verdict and the test skips.
// A stall of emu's own can make one run on a quiet machine degraded
// (design.md), so that run alone is repeated once.
//
// The delay lines are judged at 1 ms of p99 lateness (the default
// ceiling), not at the default floor of 0.5 ms: a fresh-clone CI run on
// a host measured quiet read 0.504 and 0.528 ms in two runs in a row
// (one line each, of 3065 and 1384 releases), while loaded hosts read
// 1.4-31 ms (fidelity.Thresholds). The floor's own figure, 0.14-0.38 ms
// quiet, is BenchmarkHostLoad's.
func TestQuietRunFidelity(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	bin := emuBinary(t)
	var sum *results.Summary
	var out string
	for attempt := 1; attempt <= 2; attempt++ {
		// A watch, and witness, of this attempt alone: the first's
		// witness ends when its miss is judged.
		host := emutest.WatchHost(t)
		cfg := testConfig(t, "flow.size=8MB", "fidelity.late_floor=1ms")
		out = t.TempDir()
		var err error
		sum, err = Run(context.Background(), cfg, RunOptions{Out: out, Binary: bin})
		if err != nil {
			t.Fatal(err)
		}
		f := sum.Fidelity
		if f == nil {
			t.Fatal("no fidelity verdict in the summary")
		}
		checkEveryCheck(t, f)
		var b strings.Builder
		fidelity.WriteText(&b, *f, false)
		t.Logf("attempt %d: %s", attempt, b.String())
		if f.Status == fidelity.OK {
			break
		}
		// A clean-clone CI run at 06:00 had the first attempt at 5.8 %
		// steal: that attempt's verdict is the machine's, and a second
		// could only add a figure of the same kind.
		if attempt == 1 {
			host.SkipIfHostTook(t, fmt.Sprintf("a run degraded: %v", f.Failed()))
		} else {
			host.Errorf(t, "a run was degraded twice: %v", f.Failed())
		}
	}
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
	for _, p := range []string{"pdcp tx down", "pdcp rx down"} {
		for _, n := range []string{fidelity.CheckThreadWait, fidelity.CheckThreadMeanWait, fidelity.CheckThreadCPU} {
			want = append(want, n+" "+p)
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
// and the leaf: after 2 s of 30 Mbit/s into 20 Mbit/s with a 50 ms queue
// and the queue drained, the last reading's bytes, packets and drops equal
// Shaper.Stats' exactly, and the readings saw the queue full. The sampler
// and packet threads carry their names. It logs the sampler thread's CPU
// per round of readings under that load.
func TestSamplerAgreesWithShaperStats(t *testing.T) {
	h := emutest.Exclusive(t)
	// Delay lines (1 ms) and PDCP proxies (a DC client) run too, to check
	// their threads' names.
	em := startEmulation(t, "link.delay=1ms", "link1.down.queue=50ms", "flows.0.path=link1", "flows.count=2", "flows.1.path=dc")
	srv, cli1 := mustNode(t, em.Net, "srv"), mustNode(t, em.Net, "cli1")
	udp := startUDPFlow(t, srv, cli1, topo.ClientAddr(topo.PathLink1), 1472)
	s, err := link.StartSampler(em.Dirs(), time.Now(), link.SampleInterval)
	if err != nil {
		t.Fatal(err)
	}
	cpu0, err := procstat.ReadThread(os.Getpid(), s.TID())
	if err != nil || cpu0.Stat.Name != "emu sampler" || cpu0.Stat.Policy != 1 || cpu0.Stat.RTPriority != nfq.RealtimePriority-1 {
		t.Errorf("sampler thread %+v (%v), want emu sampler, SCHED_FIFO %d", cpu0.Stat, err, nfq.RealtimePriority-1)
	}
	if n := len(em.PacketThreads()); n != 6 {
		t.Errorf("%d packet threads, want 4 delay lines and 2 PDCP proxies", n)
	}
	for _, th := range em.PacketThreads() {
		if rd, err := procstat.ReadThread(os.Getpid(), th.TID); err != nil || !strings.HasPrefix(rd.Stat.Name, "dl link") && !strings.HasPrefix(rd.Stat.Name, "pdcp ") {
			t.Errorf("%s: thread %d named %q (%v)", th.Name, th.TID, rd.Stat.Name, err)
		}
	}
	udp.pace(30e6, 2*time.Second)
	waitDrained(t, em)
	cpu1, _ := procstat.ReadThread(os.Getpid(), s.TID())
	series, st := s.Stop()
	u := procstat.Between(cpu0, cpu1)
	t.Logf("sampler: %d rounds, %d failed, %d missed, %d slow (longest %v); thread %.2f %% of a core, %.0f µs per round of %d directions, run-queue wait %.1f µs per wake-up",
		st.Rounds, st.Failed, st.Missed, st.Slow, st.MaxTook, 100*u.CPU, u.CPU*u.Wall.Seconds()*1e6/float64(st.Rounds), len(em.Dirs()), float64(u.MeanWait)/1e3)
	if st.Failed > 0 {
		t.Fatalf("%d readings failed: %v", st.Failed, st.FirstError)
	}
	var missed []string
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
		var top uint64
		for _, r := range series[i] {
			top = max(top, r.Backlog)
		}
		limit := d.Shape.Queue.LimitBytes(d.Shape.Rate, link.IPMTU+link.EtherHeader)
		// Over the limit is the qdisc's or the reading's fault; a queue
		// never full, or never overflowing, is a sender held off the CPU
		// (it is not real-time) as much as emu.
		if top > uint64(limit) {
			t.Errorf("%s: largest backlog read %d bytes, over the queue's limit of %d", d.Name, top, limit)
		} else if top < uint64(limit)*9/10 {
			missed = append(missed, fmt.Sprintf("%s: largest backlog read %d bytes, want a full queue of %d (≥ 90 %%)", d.Name, top, limit))
		}
		if want.Drops == 0 {
			missed = append(missed, fmt.Sprintf("%s: no drops at 150 %% load", d.Name))
		}
	}
	h.Check(t, missed)
}
