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

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/record"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/internal/stats"
	"github.com/dc-emu/emu/topo"
	"github.com/dc-emu/emu/tracefmt"
)

// recordFor is how long the loop tests record.
const recordFor = 20 * time.Second

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
	losses := []float64{0, 0.02, 0.005, 0.04}
	for s := range n {
		draws[s] = rng.Float64()
		d := draws[s]
		if shared != nil {
			d = 0.6*shared[s] + 0.4*d
		}
		fmt.Fprintf(&b, "%d,%.3f,%.3f,%g,%g\n", s, base*(0.4+1.6*d), base/4*(0.5+rng.Float64()), delays[(s/4)%len(delays)], losses[(s/5)%len(losses)])
	}
	fmt.Fprintf(&b, "%d,%.3f,%.3f,20,0\n", n, base, base/4)
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
	for w := 0; w+5 <= secs; w += 5 {
		var lr, lo, ulr float64
		for k := range 500 {
			d := time.Duration(w)*time.Second + time.Duration(k)*10*time.Millisecond
			r, o := recAt(d), origAt(d)
			lr, lo, ulr = lr+r.Loss/500, lo+o.Loss/500, ulr+r.UpLoss/500
		}
		c.lossErr = max(c.lossErr, 100*math.Abs(lr-lo))
		c.upLossErr = max(c.upLossErr, 100*math.Abs(ulr-lo))
	}
	return c
}

func relErr(a, b []float64) float64 {
	var sa, sb float64
	for i := range a {
		sa, sb = sa+a[i], sb+b[i]
	}
	return math.Abs(sa-sb) / sb
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

// check applies the bars.
func (c compared) check(t *testing.T, h *emutest.HostWatch, what string) {
	t.Helper()
	t.Logf("%s: down r %.3f mean %+.2f %%, up r %.3f mean %+.2f %%; delay MAE %.3f / %.3f ms; loss error %.2f / %.2f pp",
		what, c.corr, 100*c.meanErr, c.upCorr, 100*c.upMeanErr, c.delayMAE, c.upDelayMAE, c.lossErr, c.upLossErr)
	var missed []string
	if c.corr < 0.95 || c.upCorr < 0.95 {
		missed = append(missed, fmt.Sprintf("%s: per-second rate correlation %.3f / %.3f, want ≥ 0.95", what, c.corr, c.upCorr))
	}
	if c.meanErr > 0.02 || c.upMeanErr > 0.02 {
		missed = append(missed, fmt.Sprintf("%s: mean rate off by %.2f / %.2f %%, want ≤ 2 %%", what, 100*c.meanErr, 100*c.upMeanErr))
	}
	if c.delayMAE > 1 || c.upDelayMAE > 1 {
		missed = append(missed, fmt.Sprintf("%s: one-way delay median absolute error %.3f / %.3f ms, want ≤ 1 ms", what, c.delayMAE, c.upDelayMAE))
	}
	if c.lossErr > 0.5 || c.upLossErr > 0.5 {
		missed = append(missed, fmt.Sprintf("%s: loss over a 5 s window off by %.2f / %.2f points, want ≤ 0.5", what, c.lossErr, c.upLossErr))
	}
	h.Check(t, missed)
}

// TestRecordOnePath records link1 replaying a known trace (rate, delay
// and loss changing, both directions) and compares the recording with
// the trace.
func TestRecordOnePath(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Exclusive(t)
	dir := t.TempDir()
	path, _ := original(t, dir, "orig.csv", 1, 40, nil)
	em := start(t, "link1.trace="+path, "dc.enabled=false", "flow.path=link1")
	rec := recordIn(t, em, topo.ClientNode(topo.PathLink1), nil, recordFor)
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
	c := compare(t, orig, back, rec.Started.Sub(em.Epoch))
	t.Logf("down: recorded %.1f, original %.1f", c.perSecond, c.origSecond)
	t.Logf("up: recorded %.1f, original %.1f", c.upSecond, c.origUp)
	c.check(t, h, "link1")
}
