package record_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/record"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/internal/stats"
	"github.com/dc-emu/emu/topo"
	"github.com/dc-emu/emu/tracefmt"
)

// recordFor is how long the loop tests record: long enough in tier 1 for
// a recording's mean rate, in tier 2 for its correlation per second with
// the original.
const (
	recordFor         = 5 * time.Second
	recordForFidelity = 10 * time.Second
)

// original writes a known trace of n seconds to dir: the rate changes
// every second (seeded), the delay every 4 s, the loss every 5 s, and the
// uplink has rates of its own; base scales the rates, so that two links
// can share a pattern (mix of link1's draws, the rest their own).
func original(t *testing.T, dir, name string, seed uint64, base float64, shared []float64) (string, []float64) {
	t.Helper()
	const n = 40
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("time_s,down_mbps,up_mbps,delay_ms,loss\n")
	draws := make([]float64, n)
	delays := []float64{20, 32, 26, 40, 24}
	losses := []float64{0, 0.01, 0.005, 0.02}
	for s := range n {
		draws[s] = rng.Float64()
		d := draws[s]
		if shared != nil {
			d = 0.6*shared[s] + 0.4*d
		}
		fmt.Fprintf(&b, "%d,%.3f,%.3f,%g,%g\n", s, base*(0.4+1.6*d), base/2*(0.5+rng.Float64()), delays[(s/4)%len(delays)], losses[(s/5)%len(losses)])
	}
	fmt.Fprintf(&b, "%d,%.3f,%.3f,20,0\n", n, base, base/2)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, draws
}

// start brings up an emulation of kv and removes it when the test ends.
func start(t *testing.T, kv ...string) *network.Emulation {
	t.Helper()
	sets, err := config.ParseSettings(append([]string{"link.trace=none", "link.jitter=0", "trace.up=true", "trace.loop=true"}, kv...))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve("throughput", sets)
	if err != nil {
		t.Fatal(err)
	}
	em, err := network.Start(context.Background(), cfg, network.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { em.Close() })
	return em
}

// recordIn runs the far end in srv and records from node through vias.
func recordIn(t *testing.T, em *network.Emulation, node string, vias []string, d time.Duration) *record.Recording {
	t.Helper()
	srv, err := em.Net.Node("srv")
	if err != nil {
		t.Fatal(err)
	}
	cli, err := em.Net.Node(node)
	if err != nil {
		t.Fatal(err)
	}
	var s *record.Server
	if err := srv.Do(func() (err error) {
		s, err = record.Listen(netip.AddrPortFrom(topo.ServerAddr, record.DefaultPort).String(), nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	var rec *record.Recording
	if err := cli.Do(func() (err error) {
		rec, err = record.Record(context.Background(), record.Options{To: topo.ServerAddr.String(), Via: vias, Duration: d})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return rec
}

// compared is how a recorded trace matches the original over the same
// span of time.
type compared struct {
	corr, meanErr         float64 // per-second downlink rates: Pearson's r, relative error of the mean
	upCorr, upMeanErr     float64 // the same for the uplink
	delayMAE              float64 // median absolute error of the downlink's one-way delay per step, ms
	upDelayMAE            float64
	lossErr, upLossErr    float64   // largest error of the loss over a 5 s window, percentage points
	lossExcess            float64   // largest error beyond the window's tolerance (see compare)
	perSecond, origSecond []float64 // downlink Mbit/s
	upSecond, origUp      []float64
}

// compare samples the original (looping, as replayed) from at, the time
// the recording's first step began since the emulation's epoch.
func compare(t *testing.T, orig, rec *tracefmt.Trace, at time.Duration) compared {
	t.Helper()
	var c compared
	secs := int(rec.End / time.Second)
	origAt := func(d time.Duration) tracefmt.Step {
		s, _, _ := orig.StepAt(at+d, true)
		return s
	}
	recAt := func(d time.Duration) tracefmt.Step {
		s, _, _ := rec.StepAt(d, false)
		return s
	}
	var downR, downO, upR, upO []float64
	for s := range secs {
		var dr, do, ur, uo float64
		for k := range 100 {
			d := time.Duration(s)*time.Second + time.Duration(k)*10*time.Millisecond
			r, o := recAt(d), origAt(d)
			dr, do, ur, uo = dr+r.Down/100, do+o.Down/100, ur+r.Up/100, uo+o.Up/100
		}
		downR, downO, upR, upO = append(downR, dr/1e6), append(downO, do/1e6), append(upR, ur/1e6), append(upO, uo/1e6)
	}
	c.corr, c.meanErr = pearson(downR, downO), relErr(downR, downO)
	c.upCorr, c.upMeanErr = pearson(upR, upO), relErr(upR, upO)
	c.perSecond, c.origSecond, c.upSecond, c.origUp = downR, downO, upR, upO
	var de, ue []float64
	for k := range int(rec.End / (10 * time.Millisecond)) {
		d := time.Duration(k) * 10 * time.Millisecond
		r, o := recAt(d), origAt(d)
		de = append(de, math.Abs(float64(r.Delay-o.Delay))/1e6)
		ue = append(ue, math.Abs(float64(r.UpDelay-o.Delay))/1e6)
	}
	c.delayMAE, c.upDelayMAE = stats.Percentile(de, 50), stats.Percentile(ue, 50)
	// A window's loss is a sample of the line's seeded draws: a window of
	// n packets may be off by 3 sd of the binomial beside the 0.5
	// points (the uplink carries a few thousand packets a window).
	for w := 0; w+5 <= secs; w += 5 {
		var lr, lo, ulr, bits, upBits float64
		for k := range 500 {
			d := time.Duration(w)*time.Second + time.Duration(k)*10*time.Millisecond
			r, o := recAt(d), origAt(d)
			lr, lo, ulr = lr+r.Loss/500, lo+o.Loss/500, ulr+r.UpLoss/500
			bits, upBits = bits+r.Down*0.01, upBits+r.Up*0.01
		}
		tol := func(bits float64) float64 {
			n := max(bits/(1500*8), 1)
			return max(0.5, 300*math.Sqrt(lo*(1-lo)/n))
		}
		c.lossErr = max(c.lossErr, 100*math.Abs(lr-lo))
		c.upLossErr = max(c.upLossErr, 100*math.Abs(ulr-lo))
		c.lossExcess = max(c.lossExcess, 100*math.Abs(lr-lo)-tol(bits), 100*math.Abs(ulr-lo)-tol(upBits))
	}
	return c
}

func relErr(a, b []float64) float64 {
	var sa, sb float64
	for i := range a {
		sa, sb = sa+a[i], sb+b[i]
	}
	return (sa - sb) / sb
}

func pearson(a, b []float64) float64 {
	n := float64(len(a))
	var ma, mb float64
	for i := range a {
		ma, mb = ma+a[i]/n, mb+b[i]/n
	}
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

// checkLoose applies what no load moves: the mean rates within 30 % of
// the original's (ten times the 3 %), the delay's median error
// within 10 ms (ten times its 1 ms).
func (c compared) checkLoose(t *testing.T, what string) {
	t.Helper()
	t.Logf("%s: down mean %+.2f %%, up mean %+.2f %%; delay MAE %.3f / %.3f ms", what, 100*c.meanErr, 100*c.upMeanErr, c.delayMAE, c.upDelayMAE)
	if math.Abs(c.meanErr) > 0.3 || math.Abs(c.upMeanErr) > 0.3 {
		t.Errorf("%s: mean rate off by %.2f / %.2f %%, want ≤ 30 %%", what, 100*c.meanErr, 100*c.upMeanErr)
	}
	if c.delayMAE > 10 || c.upDelayMAE > 10 {
		t.Errorf("%s: one-way delay median absolute error %.3f / %.3f ms, want ≤ 10 ms", what, c.delayMAE, c.upDelayMAE)
	}
}

// missed logs the comparison and returns where it missed the issue's
// bars.
func (c compared) missed(t *testing.T, what string) []string {
	t.Helper()
	t.Logf("%s: down r %.3f mean %+.2f %%, up r %.3f mean %+.2f %%; delay MAE %.3f / %.3f ms; loss error %.2f / %.2f pp",
		what, c.corr, 100*c.meanErr, c.upCorr, 100*c.upMeanErr, c.delayMAE, c.upDelayMAE, c.lossErr, c.upLossErr)
	var missed []string
	if c.corr < 0.95 || c.upCorr < 0.95 {
		missed = append(missed, fmt.Sprintf("%s: per-second rate correlation %.3f / %.3f, want ≥ 0.95", what, c.corr, c.upCorr))
	}
	// The recordings read low, never high: −0.45 to −1.6 % in 11 runs
	// here, and −2.13 % on one link in a fresh-clone CI run of two paths.
	if math.Abs(c.meanErr) > 0.03 || math.Abs(c.upMeanErr) > 0.03 {
		missed = append(missed, fmt.Sprintf("%s: mean rate off by %.2f / %.2f %%, want ≤ 3 %%", what, 100*c.meanErr, 100*c.upMeanErr))
	}
	if c.delayMAE > 1 || c.upDelayMAE > 1 {
		missed = append(missed, fmt.Sprintf("%s: one-way delay median absolute error %.3f / %.3f ms, want ≤ 1 ms", what, c.delayMAE, c.upDelayMAE))
	}
	if c.lossExcess > 0 {
		missed = append(missed, fmt.Sprintf("%s: loss over a 5 s window off by %.2f / %.2f points, %.2f beyond the larger of 0.5 and 3 sd of the window's sample", what, c.lossErr, c.upLossErr, c.lossExcess))
	}
	return missed
}

// recordOnePath records link1 for d replaying a known trace (rate, delay
// and loss changing, both directions), checks that the recording is
// written and parses, and compares it with the trace.
func recordOnePath(t *testing.T, d time.Duration) compared {
	dir := t.TempDir()
	path, _ := original(t, dir, "orig.csv", 1, 40, nil)
	em := start(t, "link1.trace="+path, "dc.enabled=false", "flow.path=link1")
	rec := recordIn(t, em, topo.ClientNode(topo.PathLink1), nil, d)
	files, err := record.WriteFiles(rec, filepath.Join(dir, "rec"), []string{"test"})
	if k := os.Getenv("EMU_RECORD_KEEP"); k != "" {
		record.WriteFiles(rec, k, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range files[0].Warnings {
		t.Logf("warning: %s", w)
	}
	orig, err := tracefmt.ReadFile(path, tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := tracefmt.ReadFile(filepath.Join(dir, "rec.csv"), tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := rec.Started.Sub(em.Epoch)
	c := compare(t, orig, back, at)
	t.Logf("down: recorded %.1f, original %.1f", c.perSecond, c.origSecond)
	t.Logf("up: recorded %.1f, original %.1f", c.upSecond, c.origUp)
	return c
}

// TestRecordOnePath: a recording of link1 replaying a known trace
// parses, and its rates and delays are the trace's within what no load
// moves (recordOnePath, checkLoose).
func TestRecordOnePath(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t) // the recorder's streams load both cores
	recordOnePath(t, recordFor).checkLoose(t, "link1")
}

// TestFidelityRecordOnePath: a recording of link1 replaying a known
// trace matches it within the bars (compared.missed).
func TestFidelityRecordOnePath(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	h.Witness(t)
	h.Check(t, recordOnePath(t, recordForFidelity).missed(t, "link1"))
}

// downloadTrace writes the trace the downloads over a recording run on to
// dir and returns its path and the trace: the loop tests' with two
// changes, each for what one download over one stretch of trace can show:
//   - no loss: with random loss two downloads over one trace differ by
//     more than the bar;
//   - the downlink rate within ±20 % of 40 Mbit/s (downloadBase), not
//     0.4-2 times it: over the wide one, CUBIC's RTT p95 (the queue in
//     the slowest second) took one of two values from one download to
//     the next over the same trace and offset (126-127 or 147 ms).
func downloadTrace(t *testing.T, dir string) (string, *tracefmt.Trace) {
	path, _ := original(t, dir, "orig.csv", 5, downloadBase, nil)
	orig, err := tracefmt.ReadFile(path, tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range orig.Steps {
		s := &orig.Steps[i]
		s.Loss = 0
		draw := (s.Down/(downloadBase*1e6) - 0.4) / 1.6 // original's draw, in [0, 1)
		s.Down = downloadBase * 1e6 * (0.8 + 0.4*draw)
	}
	var b strings.Builder
	if err := tracefmt.WriteCSV(&b, orig); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, orig
}

// downloadBase is downloadTrace's downlink rate, Mbit/s, ±20 %.
const downloadBase = 40

// TestRecordingDownloadsLikeTheOriginal: a recording of link1 replaying
// downloadTrace replays as a link's trace, and a TCP download over it
// carries over a fifth of the trace's slowest rate.
func TestRecordingDownloadsLikeTheOriginal(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t) // the recorder's streams, then a download, load both cores
	dir := t.TempDir()
	path, _ := downloadTrace(t, dir)
	em := start(t, "link1.trace="+path, "dc.enabled=false", "flow.path=link1")
	rec := recordIn(t, em, topo.ClientNode(topo.PathLink1), nil, recordFor)
	em.Close()
	recPath := filepath.Join(dir, "rec")
	if _, err := record.WriteFiles(rec, recPath, []string{"test"}); err != nil {
		t.Fatal(err)
	}
	const window = 3 * time.Second
	f := download(t, "tcp", downloadAt, window, "link1.trace="+recPath+".csv")
	t.Logf("tcp over the recording: %.2f Mbit/s, RTT p95 %.1f ms", f.GoodputMbps, f.RTTMs.P95)
	if low := 0.8 * downloadBase / 5; f.GoodputMbps < low {
		t.Errorf("tcp over the recording: %.2f Mbit/s, want at least %.1f (a fifth of the trace's slowest rate)", f.GoodputMbps, low)
	}
}

// TestFidelityLongRecordingDownloadsLikeTheOriginal records link1 replaying
// downloadTrace and runs downloads over the original, from where the
// recording began, and over the recording: goodput within 5 %, RTT p95
// within 10 % (quic-go's within 20 %), over TCP and quic-go for 10 s:
// about 2 minutes, so it is in the long tier (scripts/fidelity-long ./emu/record),
// and tier 1's TestRecordingDownloadsLikeTheOriginal checks a short TCP
// download over a recording.
//
// The delay still steps 20-40 ms every 4 s, and where a step falls
// moves a download's goodput by more than the bar (37.2 Mbit/s over the
// original, 31.7 over a recording whose delays were moved 150 ms
// earlier): TestRecordingPlacesDelaySteps holds the recorder to placing
// them. Three runs of the long form: TCP goodput within 0.6-2.4 % and
// RTT p95 within 0.5-2.7 %, quic-go within 0.1-2.3 % and 0.5-4.4 %.
//
// In a fresh-clone CI run (327bd15) on a host measured quiet both
// downloads over one recording read low (TCP −22.8 %, quic-go −33.7 %)
// while the original's pairs, downloaded between them, agreed within 0.1
// and 3.6 %; twelve recordings of this trace here since were within
// 0.2-0.6 % of its mean rate (per second ≥ 0.95 of it, delay error
// 0.06-0.09 ms), and three tests passed within 0.6 %. That recording was
// not kept, so a recording that misses logs itself against the original
// second by second.
func TestFidelityLongRecordingDownloadsLikeTheOriginal(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.FidelityLong(t)
	h.Witness(t)
	dir := t.TempDir()
	path, orig := downloadTrace(t, dir)
	h.Check(t, downloadsOverARecording(t, dir, path, orig, []string{"tcp", "quic"}, 10*time.Second))
}

// downloadsOverARecording records link1 replaying the trace at path
// (orig, as read) and downloads of window with each of protos over the
// original from where the recording began, twice, and over the recording:
// what it returns is where the recording's downloads missed the bars.
func downloadsOverARecording(t *testing.T, dir, path string, orig *tracefmt.Trace, protos []string, window time.Duration) []string {
	em := start(t, "link1.trace="+path, "dc.enabled=false", "flow.path=link1")
	rec := recordIn(t, em, topo.ClientNode(topo.PathLink1), nil, downloadAt+delayEvery+window+time.Second)
	at := rec.Started.Sub(em.Epoch)
	from := downloadStart(at)
	em.Close()
	recPath := filepath.Join(dir, "rec")
	if _, err := record.WriteFiles(rec, recPath, []string{"test"}); err != nil {
		t.Fatal(err)
	}
	if k := os.Getenv("EMU_RECORD_KEEP"); k != "" {
		record.WriteFiles(rec, k, nil)
		if b, err := os.ReadFile(path); err == nil {
			os.WriteFile(k+".orig.csv", b, 0o644)
		}
		t.Logf("kept at %s", k)
	}
	back, err := tracefmt.ReadFile(recPath+".csv", tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := compare(t, orig, back, at)
	t.Logf("the recording began %v into the original: down r %.3f, mean %+.2f %%, delay MAE %.3f ms", at, c.corr, 100*c.meanErr, c.delayMAE)
	// A download over one trace varies from run to run: the original is
	// downloaded over twice, and the recording's figure must be within
	// 5 %, or within that spread, of their mean.
	var missed []string
	for _, proto := range protos {
		var got [3]results.FlowResult
		for i, kv := range [][]string{
			{"link1.trace=" + path, fmt.Sprintf("trace.offset=%dms", at.Milliseconds())},
			{"link1.trace=" + path, fmt.Sprintf("trace.offset=%dms", at.Milliseconds())},
			{"link1.trace=" + recPath + ".csv"},
		} {
			got[i] = download(t, proto, from, window, kv...)
		}
		for _, m := range []struct {
			name string
			v    func(results.FlowResult) float64
		}{
			{"goodput", func(f results.FlowResult) float64 { return f.GoodputMbps }},
			{"RTT p95", func(f results.FlowResult) float64 { return f.RTTMs.P95 }},
		} {
			a, b, r := m.v(got[0]), m.v(got[1]), m.v(got[2])
			mean := (a + b) / 2
			tol := max(0.05, math.Abs(a-b)/mean)
			switch {
			case proto == "quic" && m.name == "RTT p95":
				// quic-go's RTT p95 over the original itself read
				// 113.8-119.5 ms in six downloads, 97.6-109.9 in six
				// over the same trace with lower delay steps.
				tol = max(tol, 0.2)
			case m.name == "RTT p95":
				// CUBIC's, 110.2-128.3 ms in ten downloads over the
				// original (five pairs, each from one offset and
				// start); a pair differed by up to 6.7 %, so a third
				// download missed 5 % with no fault of the recording's
				// (+5.9 % against a pair 5.9 % apart).
				tol = max(tol, 0.1)
			}
			t.Logf("%s %s: %.2f and %.2f over the original, %.2f over the recording (%+.1f %%, tolerance %.1f %%)", proto, m.name, a, b, r, 100*(r/mean-1), 100*tol)
			if math.Abs(r/mean-1) > tol {
				missed = append(missed, fmt.Sprintf("%s %s over the recording %+.1f %% off the original's, beyond %.1f %%", proto, m.name, 100*(r/mean-1), 100*tol))
			}
		}
	}
	if len(missed) > 0 {
		t.Logf("down Mbit/s per second: recorded %.1f, original %.1f", c.perSecond, c.origSecond)
		var rd, od []float64
		for s := range len(c.perSecond) {
			d := time.Duration(s)*time.Second + time.Second/2
			r, _, _ := back.StepAt(d, false)
			o, _, _ := orig.StepAt(at+d, true)
			rd, od = append(rd, float64(r.Delay)/1e6), append(od, float64(o.Delay)/1e6)
		}
		t.Logf("down delay ms mid-second: recorded %.1f, original %.1f", rd, od)
	}
	return missed
}

// downloadAt is the earliest a download starts, after its emulation's:
// the trace plays from the emulation's start, and a download that began
// when its server was ready would begin as late as its processes took to
// start, on another stretch of the trace than the others.
const downloadAt = 2 * time.Second

// delayEvery is how often the original's delay steps (a row of its every
// 4 s).
const delayEvery = 4 * time.Second

// downloadStart is when the downloads start, after their emulation's,
// given that the recording began at into the original: the first time
// from downloadAt on that falls midway between two of the original's
// delay steps. A slow start that meets a step hinges on where it falls
// to tens of milliseconds: with a 20-to-32 ms step 19 ms after the start
// (the original) quic-go carried 36.6-36.8 Mbit/s, with the recording's
// 40 ms after it 22.1 (its hybrid slow start, HyStart, ended slow start
// on the jump in the RTT and the window grew linearly from 9 Mbit/s; three
// runs of the recording made 1.98 s into the original).
func downloadStart(at time.Duration) time.Duration {
	phase := (at + downloadAt) % delayEvery
	return downloadAt + (delayEvery/2-phase+delayEvery)%delayEvery
}

// downloadQueue is the links' queue in the downstream downloads: 200
// packets (60 ms at 40 Mbit/s), so that the RTT is the recorded delay's
// as much as the queue's; the default 1000 would add up to 300 ms.
const downloadQueue = "200p"

// download runs one download of proto (TCP CUBIC, quic-go NewReno) for
// window from from over link1 configured by kv and returns its result.
func download(t *testing.T, proto string, from, window time.Duration, kv ...string) results.FlowResult {
	t.Helper()
	cc := "cubic"
	if proto == "quic" {
		cc = "newreno" // quic-go's only one
	}
	// The binary first: the trace plays from the emulation's start, and a
	// download that waited for the build (the first, seconds in a fresh
	// clone) would cross another stretch of it.
	bin := emuBin.Path(t)
	em := start(t, append([]string{"dc.enabled=false", "flow.path=link1", "flow.proto=" + proto, "flow.cc=" + cc,
		"flow.size=10GB", "flow.start=" + from.String(), "flow.duration=" + window.String(), "link.queue=" + downloadQueue}, kv...)...)
	sum, err := emu.RunFlows(context.Background(), em, emu.RunOptions{Out: t.TempDir(), Binary: bin})
	em.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Flows) != 1 || sum.Flows[0].RTTMs == nil || sum.Flows[0].GoodputMbps <= 0 {
		t.Fatalf("%s download: %+v", proto, sum.Flows)
	}
	return sum.Flows[0]
}

// twoPathTraces writes TestRecordTwoPaths's traces to dir: link1's and
// link2's, whose rates share part of their draws. Half the one-path
// test's rates each: with four streams at 40 and 30 Mbit/s through four
// delay lines, this 2-core VM was 80 % busy (/proc/stat), the far end's
// sender fell behind its pace in 44 % of the steps (its warning) and the
// downlinks were recorded 5-10 % low: the sender measured, not the path.
func twoPathTraces(t *testing.T, dir string) (p1, p2 string) {
	p1, shared := original(t, dir, "orig1.csv", 3, 20, nil)
	p2, _ = original(t, dir, "orig2.csv", 4, 15, shared)
	return p1, p2
}

// TestRecordTwoPaths records link1 and link2 at once from the MPTCP
// client (one address routed over each link), each replaying its own
// known trace: each path's recording is written and parses, and its rates
// and delays are its trace's within what no load moves (checkLoose).
func TestRecordTwoPaths(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t) // two paths load this 2-core VM to about 80 %
	dir := t.TempDir()
	p1, p2 := twoPathTraces(t, dir)
	cs := recordTwoPaths(t, dir, p1, p2, recordFor)
	for i, c := range cs {
		c.checkLoose(t, fmt.Sprintf("link%d", i+1))
	}
}

// TestFidelityRecordTwoPaths records two paths at once (recordTwoPaths)
// and compares each recording with its trace against the bars,
// and the two recordings' correlation with the two traces'. Two paths
// load this 2-core VM to about 80 %, and a fresh-clone CI run on a quiet
// machine once read one downlink 3.49 % low with a correlation of 0.948
// (11 runs here: −0.45 to −1.6 %, 0.994–0.999), while a fault of the
// recorder's misses every time: CI's rerun tells them apart.
func TestFidelityRecordTwoPaths(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	h.Witness(t)
	dir := t.TempDir()
	p1, p2 := twoPathTraces(t, dir)
	cs := recordTwoPaths(t, dir, p1, p2, recordForFidelity)
	var missed []string
	for i, c := range cs {
		missed = append(missed, c.missed(t, fmt.Sprintf("link%d", i+1))...)
	}
	recR, origR := pearson(cs[0].perSecond, cs[1].perSecond), pearson(cs[0].origSecond, cs[1].origSecond)
	t.Logf("the two downlinks' per-second correlation: recorded %.3f, traces %.3f", recR, origR)
	if math.Abs(recR-origR) > 0.1 {
		missed = append(missed, fmt.Sprintf("cross-correlation of the two links' rates: recorded %.3f, traces %.3f, want within 0.1", recR, origR))
	}
	h.Check(t, missed)
}

// recordTwoPaths records for d, in dir, link1 replaying p1 and link2
// replaying p2, checks that the recording is written as one file per path
// and parses, and compares each with its trace.
func recordTwoPaths(t *testing.T, dir, p1, p2 string, d time.Duration) [2]compared {
	em := start(t, "link1.trace="+p1, "link2.trace="+p2, "dc.enabled=false", "flows.0.path=mptcp", "flow.proto=tcp")
	defer em.Close()
	var vias []string
	for _, a := range topo.ClientAddrs(topo.PathMPTCP) {
		vias = append(vias, a.String())
	}
	rec := recordIn(t, em, topo.ClientNode(topo.PathMPTCP), vias, d)
	files, err := record.WriteFiles(rec, filepath.Join(dir, "rec"), []string{"test"})
	if err != nil {
		t.Fatal(err)
	}
	if k := os.Getenv("EMU_RECORD_KEEP"); k != "" {
		record.WriteFiles(rec, k, nil)
		for i, p := range []string{p1, p2} {
			b, _ := os.ReadFile(p)
			os.WriteFile(fmt.Sprintf("%s-%d.orig.csv", k, i+1), b, 0o644)
		}
		t.Logf("kept at %s; the recording began %v into the originals", k, rec.Started.Sub(em.Epoch))
	}
	for _, f := range files {
		for _, w := range f.Warnings {
			t.Logf("%s: warning: %s", filepath.Base(f.Prefix), w)
		}
	}
	if len(files) != 2 || files[0].Prefix != filepath.Join(dir, "rec-1") || files[1].Prefix != filepath.Join(dir, "rec-2") {
		t.Fatalf("files %+v, want rec-1 and rec-2", files)
	}
	at := rec.Started.Sub(em.Epoch)
	var cs [2]compared
	for i, p := range []string{p1, p2} {
		orig, err := tracefmt.ReadFile(p, tracefmt.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		back, err := tracefmt.ReadFile(files[i].Prefix+record.SuffixCSV, tracefmt.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = compare(t, orig, back, at)
	}
	return cs
}
