package emu

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// traceFidelity is how long the Starlink fidelity tests measure: 10 s in
// the test suite, 60 s for the figures in traces/PROVENANCE.md's companion
// notes (EMU_FIDELITY=1 go test -run FidelityStarlink -trace-fidelity=60s).
var traceFidelity = flag.Duration("trace-fidelity", 10*time.Second, "how long TestFidelityStarlink* measure")

// traceShort is how long the tier-1 Starlink tests measure.
const traceShort = 3 * time.Second

// irttRoundTrip is what this test reads of one entry of irtt's JSON
// round_trips: times in ns since the Unix epoch, on the host's one clock.
type irttRoundTrip struct {
	Seqno      int    `json:"seqno"`
	Lost       string `json:"lost"`
	Timestamps struct {
		Client struct {
			Send    struct{ Wall int64 } `json:"send"`
			Receive struct{ Wall int64 } `json:"receive"`
		} `json:"client"`
		Server struct {
			Send    struct{ Wall int64 } `json:"send"`
			Receive struct{ Wall int64 } `json:"receive"`
		} `json:"server"`
	} `json:"timestamps"`
}

// runIrtt probes the server from node every interval for d with irtt
// (Debian's package), and returns its round trips.
func runIrtt(t *testing.T, em *network.Emulation, node string, interval, d time.Duration) []irttRoundTrip {
	t.Helper()
	srv, err := em.Net.Node("srv")
	if err != nil {
		t.Fatal(err)
	}
	cli, err := em.Net.Node(node)
	if err != nil {
		t.Fatal(err)
	}
	s := exec.Command("irtt", "server", "-b", topo.ServerAddr.String()+":2112", "-i", "0")
	var slog strings.Builder
	s.Stdout, s.Stderr = &slog, &slog
	if err := topo.StartIn(srv.NS, s); err != nil {
		t.Fatal(err)
	}
	defer func() { s.Process.Kill(); s.Wait() }()
	out := filepath.Join(t.TempDir(), "irtt.json")
	var clog strings.Builder
	for try := 0; ; try++ { // the server needs a moment to listen
		c := exec.Command("irtt", "client", "-Q", "-i", interval.String(), "-d", d.String(), "-o", out, topo.ServerAddr.String()+":2112")
		c.Stdout, c.Stderr = &clog, &clog
		if err := topo.StartIn(cli.NS, c); err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(); err == nil {
			break
		} else if try == 20 {
			t.Fatalf("irtt client: %v: %s (server: %s)", err, clog.String(), slog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		RoundTrips []irttRoundTrip `json:"round_trips"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("irtt's JSON: %v", err)
	}
	return res.RoundTrips
}

func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (apt-get install %s)", tool, tool)
		}
	}
}

// quantile is the q-quantile of sorted xs.
func quantile(xs []float64, q float64) float64 {
	return xs[min(len(xs)-1, int(q*float64(len(xs))))]
}

// TestStarlinkDelayAgainstIrtt replays the shipped Starlink trace's rate
// and one-way delay on link1 and probes it with irtt every 10 ms for 3 s,
// a light load: most probes come back, and their one-way delay server to
// client (irtt's stamps, one clock) follows the trace's delay when the
// probe reached the downlink's delay line, FIFO-adjusted (median within
// 10 ms). The figures, and the reconfiguration jumps, are
// TestFidelityStarlinkDelayAgainstIrtt's.
func TestStarlinkDelayAgainstIrtt(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	r := starlinkDelay(t, traceShort)
	if len(r.errs) < len(r.rts)/2 {
		t.Fatalf("%d of %d probes came back, want most", len(r.errs), len(r.rts))
	}
	if p50 := quantile(r.errs, 0.5); p50 > 10 {
		t.Errorf("one-way delay against the trace: median %.3f ms off, want well under 10", p50)
	}
}

// TestFidelityStarlinkDelayAgainstIrtt: TestStarlinkDelayAgainstIrtt's
// probes over 10 s: their one-way delay is the trace's within 1 ms at the
// median and 4 ms at p95, and the reconfiguration jumps show in the
// series.
func TestFidelityStarlinkDelayAgainstIrtt(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	// A witness beside the probes: a jump lasts a few 10 ms steps, and a
	// probe the machine holds up for milliseconds between irtt's stamp and
	// the delay line arrives after it.
	h.Witness(t)
	r := starlinkDelay(t, *traceFidelity)
	// Nothing on the link loses them: a probe not back is one answered
	// or read too late for irtt.
	if len(r.errs) < len(r.rts)*9/10 {
		h.Fatalf(t, "%d of %d probes came back, want ≥ 90 %%", len(r.errs), len(r.rts))
	}
	p50, p95 := quantile(r.errs, 0.5), quantile(r.errs, 0.95)
	down, series := r.down, r.series
	// The 15-second jumps: the measured delay's peaks where the trace's are.
	jumps := down.Impair.Delay.Stats().Jumps
	var seen []string
	for _, j := range jumps.At {
		if j.Seconds() > series[len(series)-1][0] {
			break
		}
		// A jump lasts a few 10 ms steps: a probe shows it only if one
		// reached the delay line while the trace was above the threshold.
		// irtt held up longer than that (its client or server late, not
		// the link) leaves the jump unprobed, which says nothing of emu.
		end := j
		for end < j+time.Second {
			if d, _, _, _ := down.Impair.At(end); d < jumps.Threshold {
				break
			}
			end += time.Millisecond
		}
		before, after, probed := math.Inf(-1), math.Inf(1), false
		for _, p := range series {
			switch at := p[0]; {
			case at < j.Seconds():
				before = at
			case at < end.Seconds():
				probed = true
			default:
				after = min(after, at)
			}
		}
		if !probed {
			seen = append(seen, fmt.Sprintf("%.2f s: not probed (probes left at %.3f and %.3f s, the trace above %v for %v)",
				j.Seconds(), before, after, jumps.Threshold, end-j))
			continue
		}
		peak := 0.0
		for _, p := range series {
			if p[0] >= j.Seconds()-0.05 && p[0] <= j.Seconds()+0.5 {
				peak = max(peak, p[1])
			}
		}
		seen = append(seen, fmt.Sprintf("%.2f s: %.1f ms", j.Seconds(), peak))
		if peak*1e6 < float64(jumps.Threshold) {
			what := fmt.Sprintf("the trace's jump at %.2f s does not show: the measured delay peaked at %.1f ms (threshold %v)", j.Seconds(), peak, jumps.Threshold)
			// On Mono's clock: the jump's span, and a step either side.
			at := func(el time.Duration) time.Duration { return emutest.Mono() - time.Since(r.em.Epoch.Add(el)) }
			h.SkipIfHostHeldDuring(t, at(j-10*time.Millisecond), at(end+10*time.Millisecond), time.Millisecond, 0, what)
			h.Errorf(t, "%s", what)
		}
	}
	t.Logf("jumps (trace time: measured peak) %s", strings.Join(seen, ", "))
	// The aims are 0.5 and 2 ms; the suite allows a busy machine
	// more (design.md, timing tests).
	if p50 > 1 || p95 > 4 {
		h.Errorf(t, "one-way delay against the trace: median %.3f ms, p95 %.3f ms off (want at most 1 and 4)", p50, p95)
	}
}

// starlinkProbes is what starlinkDelay measured.
type starlinkProbes struct {
	em     *network.Emulation
	down   *link.Dir
	rts    []irttRoundTrip
	errs   []float64    // |one-way delay - the trace's|, ms, of the probes back, sorted
	series [][2]float64 // (time since epoch s, measured ms) of the probes back
}

// starlinkDelay probes TestStarlinkDelayAgainstIrtt's link for d and
// compares each probe's one-way delay with the trace's.
func starlinkDelay(t *testing.T, d time.Duration) starlinkProbes {
	t.Helper()
	requireTools(t, "irtt")
	em := startEmulation(t, "link1.trace=starlink", "link.jitter=0", "dc.enabled=false", "flow.path=link1", "link1.up.rate=10mbit")
	r := starlinkProbes{em: em, down: em.Dirs()[0]}
	if r.down.Impair == nil || r.down.Impair.Delay == nil {
		t.Fatal("link1.down follows no delay trace")
	}
	const interval = 10 * time.Millisecond
	r.rts = runIrtt(t, em, "cli1", interval, d)
	var lastDue time.Duration
	for _, rt := range r.rts {
		if rt.Lost != "false" {
			continue
		}
		sent, recv := rt.Timestamps.Server.Send.Wall, rt.Timestamps.Client.Receive.Wall
		at := time.Unix(0, sent).Sub(em.Epoch) // on the wire to the delay line: microseconds
		d, _, _, _ := r.down.Impair.At(at)
		due := max(at+d, lastDue)
		lastDue = due
		owd := time.Duration(recv - sent)
		r.series = append(r.series, [2]float64{at.Seconds(), float64(owd) / 1e6})
		r.errs = append(r.errs, math.Abs(float64(owd-(due-at)))/1e6)
	}
	if len(r.errs) == 0 {
		t.Fatalf("none of %d probes came back", len(r.rts))
	}
	slices.Sort(r.errs)
	t.Logf("%d of %d probes over %v: |one-way delay - trace| median %.3f ms, p95 %.3f ms, max %.3f ms; FIFO held %d",
		len(r.errs), len(r.rts), d, quantile(r.errs, 0.5), quantile(r.errs, 0.95), r.errs[len(r.errs)-1], r.down.Loop.Snapshot().FIFOHeld)
	return r
}

// TestLossTraceAgainstIrtt replays a loss trace on link1's downlink (0 %,
// 10 %, 3 %, 20 % in 2 s windows, in 10 ms steps) and counts irtt's probes
// lost on the way down in each window: never too few (4 σ): the machine
// can only add loss (an answer read after irtt gave up on it), so too
// little is emu's. Too much is TestFidelityLossTraceAgainstIrtt's.
func TestLossTraceAgainstIrtt(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	for _, w := range lossWindows(t, 2*time.Second, 8*time.Second) {
		if w.want-w.got > w.bound {
			t.Errorf("%s: too few lost", w)
		}
	}
}

// TestFidelityLossTraceAgainstIrtt: TestLossTraceAgainstIrtt's trace in
// 5 s windows over 10 s: no window loses more than the trace says (4 σ).
func TestFidelityLossTraceAgainstIrtt(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	var missed []string
	for _, w := range lossWindows(t, 5*time.Second, max(*traceFidelity, 10*time.Second)) {
		if w.got-w.want > w.bound {
			missed = append(missed, fmt.Sprintf("%s: too many lost", w))
		}
	}
	h.Check(t, missed)
}

// lossWindow is the loss irtt's probes met in one window of the trace.
type lossWindow struct {
	k                int
	sent             int
	got, want, bound float64 // the loss measured, the trace's, the tolerance (4 σ and 0.5 %)
}

func (w lossWindow) String() string {
	return fmt.Sprintf("window %d: lost %.2f%% of %d probes, the trace says %.0f%% (±%.2f%%)", w.k, 100*w.got, w.sent, 100*w.want, 100*w.bound)
}

// lossWindows replays the loss levels 0 %, 10 %, 3 %, 20 % in windows of
// window, probes the link with irtt every 10 ms for d, and returns the
// loss in each window (at least two).
func lossWindows(t *testing.T, window, d time.Duration) []lossWindow {
	t.Helper()
	requireTools(t, "irtt")
	levels := []float64{0, 0.10, 0.03, 0.20}
	steps := int(window / (10 * time.Millisecond))
	file := writeSeries(t, "windows.loss", len(levels)*steps, func(i int) string {
		return fmt.Sprint(levels[(i/steps)%len(levels)])
	})
	em := startEmulation(t, "link.jitter=0", "dc.enabled=false", "flow.path=link1", "link1.delay=5ms", "link1.down.loss="+file)
	rts := runIrtt(t, em, "cli1", 10*time.Millisecond, d)
	type count struct{ sent, lost int }
	per := map[int]*count{}
	for _, r := range rts {
		// A probe meets the downlink's loss when the server answers; for a
		// lost request (none here: the uplink loses nothing) irtt has no
		// server stamp.
		at := time.Unix(0, r.Timestamps.Client.Send.Wall).Sub(em.Epoch) + 5*time.Millisecond
		if r := at % window; r < 30*time.Millisecond || window-r < 30*time.Millisecond {
			continue
		}
		k := int(at / window)
		if per[k] == nil {
			per[k] = &count{}
		}
		per[k].sent++
		switch r.Lost {
		case "true_down", "true":
			per[k].lost++
		}
	}
	var out []lossWindow
	var rows []string
	for k := 0; per[k] != nil; k++ {
		c := per[k]
		w := lossWindow{k: k, sent: c.sent, want: levels[k%len(levels)], got: float64(c.lost) / float64(c.sent)}
		w.bound = 4*math.Sqrt(w.want*(1-w.want)/float64(c.sent)) + 0.005
		out = append(out, w)
		rows = append(rows, fmt.Sprintf("%v-%v: %.2f%% of %d (trace %.0f%%)", time.Duration(k)*window, time.Duration(k+1)*window, 100*w.got, c.sent, 100*w.want))
	}
	t.Logf("downlink loss per window: %s", strings.Join(rows, "; "))
	if len(out) < 2 {
		t.Errorf("only %d windows measured", len(out))
	}
	return out
}

// TestStarlinkRateAgainstIperf3: iperf3 UDP, saturating, through link1
// replaying the Starlink trace for 3 s: its receiver's rate over the run is
// of the trace's mean over the same stretch (between a fifth and 1.3
// times). Within 10 % is TestFidelityStarlinkRateAgainstIperf3's.
func TestStarlinkRateAgainstIperf3(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	emutest.SkipUnderRace(t)
	r := starlinkRate(t, traceShort)
	if r.got < r.want/5 || r.got > 1.3*r.want {
		t.Errorf("iperf3 measured %.2f Mbit/s, the trace's mean is %.2f (want between a fifth and 1.3 times)", r.got/1e6, r.want/1e6)
	}
}

// TestFidelityStarlinkRateAgainstIperf3: TestStarlinkRateAgainstIperf3's
// receiver over 10 s gets the trace's mean rate within 10 % (IP layer:
// iperf3 counts 1472-byte payloads of 1500-byte packets).
func TestFidelityStarlinkRateAgainstIperf3(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	r := starlinkRate(t, *traceFidelity)
	// Loose, as a timing test's bound must be: a clean-clone run on a
	// quiet machine (others 0.00 CPUs) read 55.52 of the trace's 59.51
	// Mbit/s (-6.7 %), and a re-run beside a busy loop -0.18 % with no
	// datagram dropped by the socket. The cause of the first is not
	// known; iperf3's intervals are placed on the trace by the client's
	// start, which its set-up shifts by tens of milliseconds, and the
	// Starlink trace steps by tens of Mbit/s from one second to the next.
	// A units error or a rate the player never set misses by far more.
	const tol = 0.10
	got, want := r.got, r.want
	if math.Abs(got-want) > tol*want && got < want && got+r.dropped >= (1-tol)*want {
		t.Skipf("%siperf3 measured %.2f Mbit/s of the trace's %.2f, and its socket dropped %d datagrams the link delivered (%.2f Mbit/s): the receiver fell behind, not the link", emutest.BusyHost, got/1e6, want/1e6, r.overflow, r.dropped/1e6)
	}
	if math.Abs(got-want) > tol*want {
		h.Errorf(t, "iperf3 measured %.2f Mbit/s, the trace's mean is %.2f (want within %.0f %%)", got/1e6, want/1e6, 100*tol)
	}
}

// iperf3Rate is what starlinkRate measured, bit/s at the IP layer.
type iperf3Rate struct {
	got, want float64 // iperf3's receiver, the trace's mean
	overflow  int64   // datagrams the receiver's socket dropped over the run
	dropped   float64 // their rate over the measured seconds
}

// starlinkRate runs iperf3 UDP at 150 Mbit/s through link1 replaying the
// Starlink trace for d and compares its receiver's rate over the whole
// seconds in between the first and last with the trace's mean over them.
func starlinkRate(t *testing.T, d time.Duration) iperf3Rate {
	t.Helper()
	requireTools(t, "iperf3")
	em := startEmulation(t, "link1.trace=starlink", "link.jitter=0", "dc.enabled=false", "flow.path=link1", "link1.up.rate=10mbit")
	srv, _ := em.Net.Node("srv")
	cli, _ := em.Net.Node("cli1")
	s := exec.Command("iperf3", "-s", "-1")
	if err := topo.StartIn(srv.NS, s); err != nil {
		t.Fatal(err)
	}
	defer func() { s.Process.Kill(); s.Wait() }()
	secs := int(d.Seconds())
	// A datagram the link delivered but iperf3's socket had no room for
	// (the receiver not scheduled in time, beside a sender at 150 Mbit/s
	// on the same two CPUs) is the tool's loss, not the link's.
	rcvbuf0 := emutest.SNMP(t, cli.Do, "Udp", "RcvbufErrors")
	var out strings.Builder
	var start time.Time
	var res struct {
		Intervals []struct {
			Sum struct {
				Start, End float64
				Bytes      int64
			} `json:"sum"`
		} `json:"intervals"`
		Error string `json:"error"`
	}
	for try := 0; ; try++ {
		out.Reset()
		res.Intervals, res.Error = nil, ""
		c := exec.Command("iperf3", "-c", topo.ServerAddr.String(), "-R", "-u", "-b", "150M", "-l", "1472", "-t", fmt.Sprint(secs), "-J")
		c.Stdout = &out
		start = time.Now()
		if err := topo.StartIn(cli.NS, c); err != nil {
			t.Fatal(err)
		}
		err := c.Wait()
		if jerr := json.Unmarshal([]byte(out.String()), &res); err == nil {
			err = jerr
		}
		if err == nil && res.Error == "" {
			break
		}
		// A server not listening yet refuses the connection, and
		// iperf3 3.12 with -J says so in its JSON and exits 0 (a
		// fresh-clone CI run read it as a run of 0 intervals). Any other
		// failure is the run's: the one-off server has gone with it.
		if !strings.Contains(res.Error, "Connection refused") || try == 20 {
			t.Fatalf("iperf3: %v %s: %s", err, res.Error, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(res.Intervals) < 3 {
		t.Fatalf("iperf3 -J: %d intervals: %s", len(res.Intervals), out.String())
	}
	// Leave out the first second (the queue fills) and the last (the
	// sender stops): whole seconds in between.
	var bytes int64
	iv := res.Intervals[1 : len(res.Intervals)-1]
	for _, i := range iv {
		bytes += i.Sum.Bytes
	}
	from := start.Sub(em.Epoch) + time.Duration(iv[0].Sum.Start*1e9)
	to := start.Sub(em.Epoch) + time.Duration(iv[len(iv)-1].Sum.End*1e9)
	r := iperf3Rate{overflow: emutest.SNMP(t, cli.Do, "Udp", "RcvbufErrors") - rcvbuf0}
	r.got = float64(bytes) * 8 * 1500 / 1472 / (to - from).Seconds()
	// Over the whole run, not only the measured seconds: an upper bound
	// on what the receiver's socket dropped within them.
	r.dropped = float64(r.overflow) * 1500 * 8 / (to - from).Seconds()
	r.want = em.Dirs()[0].Capacity(from, to)
	t.Logf("iperf3 over %.1f-%.1f s since the epoch: %.2f Mbit/s at the IP layer, the trace %.2f Mbit/s (%+.2f %%); the receiver's socket dropped %d datagrams (%.2f Mbit/s)",
		from.Seconds(), to.Seconds(), r.got/1e6, r.want/1e6, 100*(r.got-r.want)/r.want, r.overflow, r.dropped/1e6)
	return r
}
