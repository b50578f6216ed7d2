package emu

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// These tests check the delays a run reports against what they must be:
// the RTT against ping through the same link during the flow, the one-way
// delay against a link without a queue. The tier-1 tests check that the
// delays are there and of the right size on short flows; the
// TestFidelity… ones judge them to a few per cent (the machine is shared,
// so the thresholds are still loose there). EMU_LATENCY_DURATION=30s runs
// the fidelity tests as long as docs/results.md's figures were measured,
// and -v prints the figures.

// latencyShort is how long the flows of the tier-1 tests run.
const latencyShort = 4 * time.Second

// latencyFlow is how long the flows of the fidelity tests run: def
// unless EMU_LATENCY_DURATION says.
func latencyFlow(t *testing.T, def time.Duration) time.Duration {
	if v := os.Getenv("EMU_LATENCY_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 5*time.Second {
			t.Fatalf("EMU_LATENCY_DURATION=%q: want a duration of at least 5s", v)
		}
		return d
	}
	return def
}

// oneLink is a single flow on link1 alone: 20 Mbit/s, 10 ms ± 10 % each
// way, the given queue.
func oneLink(t *testing.T, proto, cc, queue string, d time.Duration) config.Config {
	kv := []string{"link.trace=none", "flows.0.path=link1", "flows.0.name=f", "flow.size=0", "flow.duration=" + d.String(),
		"link1.rate=20mbit", "link1.delay=10ms", "link1.queue=" + queue, "flow.proto=" + proto}
	if cc != "" {
		kv = append(kv, "flow.cc="+cc)
	}
	return testConfig(t, kv...)
}

// pingRun is a run with ping sent through the flow's link while it ran.
type pingRun struct {
	out        string
	sum        *results.Summary
	ping       []float64 // RTTs, ms
	from, to   float64   // the ping window, seconds since the epoch
	emulation  *network.Emulation
	snmpOutTCP int64 // srv's Tcp OutSegs at the end (before the namespaces go)
}

// runWithPing runs cfg's flows and, from `after` until 1 s before the
// flows end, pings the server from the flow's client every 100 ms with
// the system's ping (an independent measurement; the emulation's UDP echo
// where ping is missing).
func runWithPing(t *testing.T, cfg config.Config, after time.Duration, prepare ...func(*network.Emulation)) pingRun {
	t.Helper()
	emutest.RequireRoot(t)
	ctx := context.Background()
	bin := emuBinary(t) // before the start: the flow and the ping keep time from it
	em, err := network.Start(ctx, cfg, network.Options{Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { em.Close() })
	for _, p := range prepare {
		p(em)
	}
	pr := pingRun{out: t.TempDir(), emulation: em}
	type result struct {
		sum *results.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := RunFlows(ctx, em, RunOptions{Out: pr.out, Binary: bin})
		done <- result{sum, err}
	}()
	if after > 0 {
		f := cfg.Flows[0]
		count := int((f.Start + f.Duration - after - time.Second) / (100 * time.Millisecond))
		node := topo.ClientNode(f.Path)
		start := time.NewTimer(time.Until(em.Epoch.Add(f.Start + after)))
		<-start.C // a measurement window, not a condition: the flow is in its steady state by then
		pr.from = time.Since(em.Epoch).Seconds()
		pr.ping = systemPing(t, em, node, count)
		pr.to = time.Since(em.Epoch).Seconds()
	}
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	pr.sum = res.sum
	return pr
}

var pingTime = regexp.MustCompile(`time=([0-9.]+) ms`)

func systemPing(t *testing.T, em *network.Emulation, node string, count int) []float64 {
	t.Helper()
	if _, err := exec.LookPath("ping"); err != nil {
		t.Log("no ping (Debian package iputils-ping): using the emulation's UDP echo")
		rtts, _, err := em.Ping(context.Background(), node, "srv", count, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		var ms []float64
		for _, r := range rtts {
			ms = append(ms, float64(r)/float64(time.Millisecond))
		}
		return ms
	}
	n, err := em.Net.Node(node)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ping", "-n", "-i", "0.1", "-c", strconv.Itoa(count), topo.ServerAddr.String())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := topo.StartIn(n.NS, cmd); err != nil {
		t.Fatal(err)
	}
	var ms []float64
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := pingTime.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			ms = append(ms, v)
		}
	}
	cmd.Wait()
	if len(ms) < count/2 {
		t.Fatalf("ping: %d of %d answered", len(ms), count)
	}
	return ms
}

// window is the part of a series inside [from, to].
func window(s analysis.DelaySeries, from, to float64) analysis.DelaySeries {
	var w analysis.DelaySeries
	for i, t := range s.T {
		if t >= from && t <= to {
			w.T = append(w.T, t)
			w.MS = append(w.MS, s.MS[i])
		}
	}
	return w
}

func medianMs(ms []float64) float64 {
	st, ok := results.SummarizeDelays(slices.Clone(ms))
	if !ok {
		return math.NaN()
	}
	return st.P50
}

// flowSeries reads the flow's RTT and one-way delay series back from the
// run directory, as the run itself did.
func flowSeries(t *testing.T, pr pingRun) (rtt, owd analysis.DelaySeries) {
	t.Helper()
	r := &runner{em: pr.emulation, cfg: pr.emulation.Config, o: RunOptions{Out: pr.out}}
	d := r.readFlowDelays(0)
	return d.rtt, d.owd
}

// pingMedians are what a test comparing a flow's delays with ping's needs:
// the flow's results (which must have rtt_ms and owd_ms), the medians of
// its RTT and one-way delay series inside the ping window, and ping's.
func pingMedians(t *testing.T, pr pingRun) (f results.FlowResult, rttWin, owdWin, pingMed float64) {
	t.Helper()
	f = pr.sum.Flows[0]
	if f.RTTMs == nil || f.OWDMs == nil {
		t.Fatalf("flow has rtt_ms %v owd_ms %v", f.RTTMs, f.OWDMs)
	}
	rtt, owd := flowSeries(t, pr)
	rttWin, owdWin = medianMs(window(rtt, pr.from, pr.to).MS), medianMs(window(owd, pr.from, pr.to).MS)
	return f, rttWin, owdWin, medianMs(pr.ping)
}

func within(got, want, frac float64) bool { return math.Abs(got-want) <= frac*want }

// TestLatencyTCPAgreesWithPing: over 20 Mbit/s with 10 ms each way and a
// 50 ms queue, a cubic flow's run reports an RTT from TCP_INFO and a
// one-way delay, and both are of the size ping measures through the same
// queue during the flow (within a factor of 3; the one-way delay between
// the link's 10 ms and three times ping's RTT: it also holds the wait in
// the sender). TestFidelityLatencyTCPAgreesWithPing
// judges them to 25 %, for cubic and bbr over two queues.
func TestLatencyTCPAgreesWithPing(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	pr := runWithPing(t, oneLink(t, "tcp", "cubic", "50ms", latencyShort), 2*time.Second)
	f, rttWin, owdWin, pingMed := pingMedians(t, pr)
	logPingMedians(t, "cubic 50ms", pr, f, rttWin, owdWin, pingMed)
	if !(rttWin >= pingMed/3 && rttWin <= 3*pingMed) {
		t.Errorf("TCP_INFO's median RTT %.1f ms during ping, ping's %.1f ms: want within a factor of 3", rttWin, pingMed)
	}
	if !(f.RTTMs.P95 >= 20 && f.RTTMs.P95 <= 10*(20+50)) {
		t.Errorf("p95 RTT %.1f ms over 2 × 10 ms and a 50 ms queue, want between 20 ms and ten times 70", f.RTTMs.P95)
	}
	if !(owdWin >= 9.5 && owdWin <= 3*pingMed) {
		t.Errorf("median one-way delay %.1f ms during ping, want between the link's 10 ms and three times ping's RTT %.1f ms", owdWin, pingMed)
	}
}

// TestFidelityLatencyTCPAgreesWithPing: over 20 Mbit/s with 10 ms each
// way, a TCP flow's RTT from TCP_INFO matches ping's through the same
// queue during the flow within 25 %, for cubic and bbr, with a 1000-packet
// and a 50 ms queue; cubic fills the 1000-packet queue (bufferbloat) and
// the 50 ms queue bounds it. Cubic's queue over 1000 packets is a sawtooth
// of seconds: in a window in which it collapses after a loss the smoothed
// RTT and the data's one-way delay (sent before the collapse) lag above
// ping, which follows the queue at once (a clean run here: ping p50 91.2
// ms, TCP_INFO 112.0, OWD 113.3, where two more runs agreed within 1 %);
// the tier's rerun absorbs such a window, a wrong figure misses again.
func TestFidelityLatencyTCPAgreesWithPing(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	// 8 s: cubic takes seconds to fill the 1000-packet queue, and its
	// median RTT over a 6 s flow (146 ms here) was still below the
	// bufferbloat's 200.
	d := latencyFlow(t, 8*time.Second)
	for _, tc := range []struct{ cc, queue string }{{"cubic", "1000p"}, {"bbr", "1000p"}, {"cubic", "50ms"}, {"bbr", "50ms"}} {
		t.Run(tc.cc+"-"+tc.queue, func(t *testing.T) {
			if tc.cc == "bbr" && !kernelHasCC("bbr") {
				t.Skip("the kernel has no tcp_bbr")
			}
			h.Reset() // the evidence is this subtest's run alone
			h.Check(t, tcpAgreesWithPing(t, tc.cc, tc.queue, d))
		})
	}
}

// tcpAgreesWithPing makes one run of TestFidelityLatencyTCPAgreesWithPing
// and says what missed.
func tcpAgreesWithPing(t *testing.T, cc, queue string, d time.Duration) []string {
	pr := runWithPing(t, oneLink(t, "tcp", cc, queue, d), 3*time.Second)
	f, rttWin, owdWin, pingMed := pingMedians(t, pr)
	logPingMedians(t, cc+" "+queue, pr, f, rttWin, owdWin, pingMed)
	var misses []string
	if !within(rttWin, pingMed, 0.25) {
		misses = append(misses, fmt.Sprintf("TCP_INFO's median RTT %.1f ms differs from ping's %.1f ms by more than 25 %%", rttWin, pingMed))
	}
	switch {
	case queue == "1000p" && cc == "cubic" && f.RTTMs.P50 < 200:
		misses = append(misses, fmt.Sprintf("cubic over a 1000-packet queue (600 ms at 20 Mbit/s): p50 RTT %.1f ms, want the bufferbloat (> 200 ms)", f.RTTMs.P50))
	case queue == "50ms" && f.RTTMs.P95 > 20+50+30:
		misses = append(misses, fmt.Sprintf("a 50 ms queue: p95 RTT %.1f ms, want at most 20 + 50 ms and some", f.RTTMs.P95))
	}
	// One way is the RTT less the uplink's 10 ms, plus at most the
	// TCP server's unsent 16 KiB (6.5 ms at 20 Mbit/s).
	if owdWin < pingMed-10-5 || owdWin > pingMed-10+15 {
		misses = append(misses, fmt.Sprintf("median one-way delay %.1f ms during ping, want ping's %.1f ms less the 10 ms uplink (+ the sender's wait)", owdWin, pingMed))
	}
	return misses
}

// logPingMedians logs what pingMedians returned for a TCP flow's run.
func logPingMedians(t *testing.T, what string, pr pingRun, f results.FlowResult, rttWin, owdWin, pingMed float64) {
	t.Helper()
	t.Logf("%s: goodput %.2f Mbit/s; RTT (TCP_INFO) p50 %.1f p95 %.1f ms; OWD p50 %.1f p95 %.1f ms; during ping (%.1f-%.1f s): ping p50 %.1f ms (%d), TCP_INFO p50 %.1f ms (%+.1f %%), OWD p50 %.1f ms",
		what, f.GoodputMbps, f.RTTMs.P50, f.RTTMs.P95, f.OWDMs.P50, f.OWDMs.P95,
		pr.from, pr.to, pingMed, len(pr.ping), rttWin, 100*(rttWin-pingMed)/pingMed, owdWin)
}

// TestLatencyQUICAgreesWithPing: a quic-go flow's run reports an RTT from
// the server's qlog and a one-way delay, of the size ping measures during
// the flow (within a factor of 3; the one-way delay between the link's
// 10 ms and three times ping's RTT). TestFidelityLatencyQUICAgreesWithPing
// judges them to 25 %.
func TestLatencyQUICAgreesWithPing(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	f, rttWin, owdWin, pingMed := quicWithPing(t, latencyShort, 2*time.Second)
	if !(rttWin >= pingMed/3 && rttWin <= 3*pingMed) {
		t.Errorf("qlog's median sRTT %.1f ms during ping, ping's %.1f ms: want within a factor of 3", rttWin, pingMed)
	}
	if !(owdWin >= 9.5 && owdWin <= 3*pingMed) {
		t.Errorf("median one-way delay %.1f ms during ping, want between the link's 10 ms and three times ping's RTT %.1f ms", owdWin, pingMed)
	}
	if f.GoodputMbps <= 0 {
		t.Errorf("goodput %.2f Mbit/s", f.GoodputMbps)
	}
}

// TestFidelityLatencyQUICAgreesWithPing: a quic-go flow's sRTT from the
// server's qlog matches ping's during the flow, and its one-way delay
// ping's less the uplink, within 25 %.
func TestFidelityLatencyQUICAgreesWithPing(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	_, rttWin, owdWin, pingMed := quicWithPing(t, latencyFlow(t, 6*time.Second), 3*time.Second)
	var missed []string
	if !within(rttWin, pingMed, 0.25) {
		missed = append(missed, fmt.Sprintf("qlog's median sRTT %.1f ms differs from ping's %.1f ms by more than 25 %%", rttWin, pingMed))
	}
	if !within(owdWin, pingMed-10, 0.25) {
		missed = append(missed, fmt.Sprintf("median one-way delay %.1f ms, want ping's %.1f ms less the 10 ms uplink within 25 %%", owdWin, pingMed))
	}
	h.Check(t, missed)
}

// quicWithPing runs a quic-go flow over oneLink's link for d with ping
// from after, and returns pingMedians' figures.
func quicWithPing(t *testing.T, d, after time.Duration) (f results.FlowResult, rttWin, owdWin, pingMed float64) {
	t.Helper()
	pr := runWithPing(t, oneLink(t, "quic", "", "1000p", d), after)
	f, rttWin, owdWin, pingMed = pingMedians(t, pr)
	t.Logf("quic-go: goodput %.2f Mbit/s; RTT (qlog) p50 %.1f p95 %.1f ms; OWD p50 %.1f p95 %.1f ms; during ping: ping p50 %.1f ms (%d), qlog sRTT p50 %.1f ms (%+.1f %%), OWD p50 %.1f ms (ping - 10 ms: %+.1f %%)",
		f.GoodputMbps, f.RTTMs.P50, f.RTTMs.P95, f.OWDMs.P50, f.OWDMs.P95, pingMed, len(pr.ping), rttWin,
		100*(rttWin-pingMed)/pingMed, owdWin, 100*(owdWin-(pingMed-10))/(pingMed-10))
	return f, rttWin, owdWin, pingMed
}

// TestOWDWithoutQueueing: a window-bound TCP flow over a 12 Gbit/s link
// never queues, so its one-way delay is the link's 10 ms and what the
// endpoints add: never below the link's, at most ten times it; with 10 %
// jitter, p95 − p50 shows the jitter (at least a fifth of its 1.645 σ).
// TestFidelityOWDWithoutQueueing judges the figures.
func TestOWDWithoutQueueing(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	for _, tc := range owdJitters {
		t.Run("jitter="+tc.jitter, func(t *testing.T) {
			o := owdWithoutQueueing(t, tc.jitter, tc.sigma, 3*time.Second)
			if o.P50 < 9.8-tc.sigma || o.P50 > 100 {
				t.Errorf("p50 one-way delay %.3f ms, want the link's 10 ms and what the endpoints add (%.1f to 100)", o.P50, 9.8-tc.sigma)
			}
			if spread := o.P95 - o.P50; spread < 1.645*tc.sigma/5 {
				t.Errorf("p95 - p50 = %.3f ms, want about %.3f (≥ a fifth of it)", spread, 1.645*tc.sigma)
			}
		})
	}
}

// owdJitters are the jitters TestOWDWithoutQueueing runs with, and their σ
// in ms.
var owdJitters = []struct {
	jitter string
	sigma  float64
}{{"0s", 0}, {"10%", 1}}

// TestFidelityOWDWithoutQueueing: TestOWDWithoutQueueing's flow's one-way
// delay is the link's 10 ms and what the endpoints add (a stamp waits for
// its TLS record and HTTP/2 frame, and for the reader to wake: 0.5 ms on
// the development VM until 2026-12-05, 1.3-1.7 ms on the one of
// 2026-12-07, where ping through the same link read 20.0-20.5 ms
// meanwhile). Without jitter the median is 10 ms and that much; with 10 %
// jitter, which is symmetric, the median is the jitter-free run's within
// 0.75 ms (measured +0.08 to +0.37) and p95 − p50 is 1.645 σ.
func TestFidelityOWDWithoutQueueing(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	d := min(latencyFlow(t, 5*time.Second), 10*time.Second)
	var still float64 // the jitter-free run's median, ms; 0 until measured
	for _, tc := range owdJitters {
		t.Run("jitter="+tc.jitter, func(t *testing.T) {
			h.Reset() // the evidence is this subtest's run alone
			o := owdWithoutQueueing(t, tc.jitter, tc.sigma, d)
			var missed []string
			switch {
			case tc.sigma == 0 && (o.P50 < 9.8 || o.P50 > 12.5):
				missed = append(missed, fmt.Sprintf("p50 one-way delay %.3f ms, want the link's 10 ms and the endpoints' 0.5-1.7 (9.8 to 12.5)", o.P50))
			case tc.sigma == 0:
				still = o.P50
			case still > 0 && math.Abs(o.P50-still) > 0.75*tc.sigma:
				missed = append(missed, fmt.Sprintf("p50 one-way delay %.3f ms with jitter, %.3f without: want the same within %.2f ms (jitter is symmetric)", o.P50, still, 0.75*tc.sigma))
			case still == 0 && (o.P50 < 10-0.75*tc.sigma || o.P50 > 12.5):
				// The jitter-free run missed or was skipped: the loose bound alone.
				missed = append(missed, fmt.Sprintf("p50 one-way delay %.3f ms, want the link's 10 ms and the endpoints' 0.5-1.7 (%.2f to 12.5)", o.P50, 10-0.75*tc.sigma))
			}
			// Loose: the client reads window-sized bursts and the delay
			// line releases late when the machine is busy; with other
			// work on both cores that added 3-13 ms at p95 here, more than
			// the jitter's 1.645 σ. The median holds.
			if spread := o.P95 - o.P50; spread < 1.645*tc.sigma-0.8 || spread > 1.645*tc.sigma+8 {
				missed = append(missed, fmt.Sprintf("p95 - p50 = %.3f ms, want %.3f (−0.8, +8)", spread, 1.645*tc.sigma))
			}
			h.Check(t, missed)
		})
	}
}

// owdWithoutQueueing runs TestOWDWithoutQueueing's flow for d with the
// given jitter (sigma ms) and returns its one-way delay.
func owdWithoutQueueing(t *testing.T, jitter string, sigma float64, d time.Duration) *results.DelayStats {
	t.Helper()
	cfg := testConfig(t, "flows.0.path=link1", "flows.0.name=f", "flow.size=0", "flow.duration="+d.String(),
		"flow.proto=tcp", "link1.rate=12gbit", "link1.delay=10ms", "link1.jitter="+jitter)
	var prepare []func(*network.Emulation)
	if os.Getenv("EMU_LATENCY_DURATION") == "" {
		// On a shared machine a 2.7 Gbit/s flow can outrun the
		// delay line and the client (the queue then forms there);
		// a 1 MiB receive window keeps it near 400 Mbit/s.
		prepare = append(prepare, func(em *network.Emulation) { setSysctl(t, em, "cli1", "net/ipv4/tcp_rmem", "4096 131072 1048576") })
	}
	pr := runWithPing(t, cfg, 0, prepare...)
	f := pr.sum.Flows[0]
	if f.OWDMs == nil {
		t.Fatal("no owd_ms")
	}
	o := f.OWDMs
	t.Logf("jitter %s: goodput %.0f Mbit/s; OWD p50 %.3f p95 %.3f p99 %.3f ms over %d stamps; p95 - p50 = %.3f ms (1.645 σ = %.3f)",
		jitter, f.GoodputMbps, o.P50, o.P95, o.P99, o.N, o.P95-o.P50, 1.645*sigma)
	return o
}

// TestRunPcapDecrypts: with run.pcap=true a QUIC and a TCP run leave
// captures that tshark decrypts with the run's key logs (HTTP/3, HTTP/2),
// and the server-side capture holds every packet the server sent (within
// the drops the capture reports).
func TestRunPcapDecrypts(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed (Debian package tshark; CI installs it)")
	}
	for _, proto := range []string{"quic", "tcp"} {
		t.Run(proto, func(t *testing.T) {
			cfg := testConfig(t, "flows.0.path=link1", "flows.0.name=f", "flow.size=3MB", "flow.proto="+proto, "run.pcap=true")
			em, err := network.Start(context.Background(), cfg, network.Options{Command: "test"})
			if err != nil {
				t.Fatal(err)
			}
			defer em.Close()
			out := t.TempDir()
			sum, err := RunFlows(context.Background(), em, RunOptions{Out: out, Binary: emuBinary(t)})
			if err != nil {
				t.Fatal(err)
			}
			var outSegs int64
			if proto == "tcp" {
				// OutSegs leaves out retransmitted segments (tcp_output.c
				// counts only new data and control there).
				outSegs = snmpCounter(t, em, "srv", "Tcp", "OutSegs") + snmpCounter(t, em, "srv", "Tcp", "RetransSegs")
			}
			if len(sum.Captures) != 6 { // srv:gws, both ends of two links, cli1:gwc
				t.Fatalf("captures %+v", sum.Captures)
			}
			var srv results.CaptureResult
			for _, c := range sum.Captures {
				if c.Node == "srv" {
					srv = c
				}
				if c.Error != "" || c.Packets == 0 && !strings.HasSuffix(c.File, "l2.pcapng") { // the flow takes link1
					t.Errorf("capture %+v", c)
				}
			}
			keys := filepath.Join(out, "tls", "all.keys")
			var all []byte
			for _, side := range []string{"server", "client"} {
				b, err := os.ReadFile(filepath.Join(out, results.KeyLogFile("f", side)))
				if err != nil || len(b) == 0 {
					t.Fatalf("key log of the %s: %v", side, err)
				}
				all = append(all, b...)
			}
			if err := os.WriteFile(keys, all, 0o600); err != nil {
				t.Fatal(err)
			}
			pcap := filepath.Join(out, srv.File)
			filter := map[string]string{"quic": "http3", "tcp": "http2"}[proto]
			frames := tsharkLines(t, tshark, pcap, keys, filter, "frame.number")
			var sent, captured int64
			if proto == "quic" {
				// quic-go's qlog logs every packet it sends once; a closed
				// connection resends its last packet as it was (same
				// number, not logged), and ICMP errors quote packets: count
				// the distinct QUIC packets the server sent.
				a, err := readQlog(filepath.Join(out, results.QlogFile("f", "server")))
				if err != nil {
					t.Fatal(err)
				}
				sent = a.Totals.PacketsSent
				captured = int64(len(distinctQUICPackets(t, tshark, pcap, keys, "quic && !icmp && ip.src=="+topo.ServerAddr.String())))
			} else {
				sent = outSegs
				captured = int64(len(tsharkLines(t, tshark, pcap, keys, "tcp && !icmp && ip.src=="+topo.ServerAddr.String(), "frame.number")))
			}
			t.Logf("%s: %d decrypted %s frames in %s; server sent %d packets, the capture holds %d (dropped %d, %d GSO packets split)",
				proto, len(frames), filter, srv.File, sent, captured, srv.Dropped, srv.Split)
			if len(frames) < 3 {
				t.Errorf("tshark decrypted %d %s frames", len(frames), filter)
			}
			if diff := sent - captured; diff < 0 || diff > int64(45*srv.Dropped) {
				t.Errorf("server sent %d packets, capture holds %d with %d drops reported", sent, captured, srv.Dropped)
			}
		})
	}
}

// distinctQUICPackets returns the QUIC packets of the capture's datagrams
// that match filter, each once, by packet number space and number.
func distinctQUICPackets(t *testing.T, tshark, pcap, keys, filter string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, l := range tsharkLines(t, tshark, pcap, keys, filter, "quic.header_form", "quic.long.packet_type", "quic.packet_number") {
		cols := strings.Split(l, "\t")
		if len(cols) != 3 {
			t.Fatalf("tshark line %q", l)
		}
		forms, types, pns := strings.Split(cols[0], ","), strings.Split(cols[1], ","), strings.Split(cols[2], ",")
		k := 0
		for j, form := range forms {
			space := "1rtt"
			if form == "1" && k < len(types) {
				space, k = "long"+types[k], k+1
			}
			if j < len(pns) {
				seen[space+":"+pns[j]] = true
			}
		}
	}
	return seen
}

func tsharkLines(t *testing.T, tshark, pcap, keys, filter string, fields ...string) []string {
	t.Helper()
	args := []string{"-n", "-r", pcap, "-o", "tls.keylog_file:" + keys, "-Y", filter, "-T", "fields"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	out, err := exec.Command(tshark, args...).Output()
	if err != nil {
		t.Fatalf("tshark -Y %q: %v", filter, err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

// snmpCounter reads a /proc/net/snmp counter as a node's namespace sees it.
func snmpCounter(t *testing.T, em *network.Emulation, node, group, field string) int64 {
	t.Helper()
	n, err := em.Net.Node(node)
	if err != nil {
		t.Fatal(err)
	}
	return emutest.SNMP(t, n.Do, group, field)
}

// setSysctl writes a sysctl in a node's namespace.
func setSysctl(t *testing.T, em *network.Emulation, node, key, value string) {
	t.Helper()
	n, err := em.Net.Node(node)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Do(func() error { return os.WriteFile("/proc/sys/"+key, []byte(value), 0o644) }); err != nil {
		t.Fatalf("%s: %s: %v", node, key, err)
	}
}

func kernelHasCC(name string) bool {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err == nil && slices.Contains(regexp.MustCompile(`\S+`).FindAllString(string(b), -1), name) {
		return true
	}
	_, err = os.Stat("/sys/module/tcp_" + name)
	return err == nil
}
