package sweep

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/internal/invoker"
	"github.com/dc-emu/emu/pdcp"
)

// The run-time model's two figures, measured on the 2-core development VM
// with the batch preset at 20 MB, one run at a time (18 runs: quic-go with
// both buffers and TCP NewReno, batch 25 to 500, seed 7; docs/sweeps.md,
// "Time estimate").
const (
	// RunOverhead is a run's wall time beyond its flows: building the
	// namespaces, links, delay lines and proxies, starting the endpoints,
	// tearing it all down, writing the run directory. Measured: the
	// sweep's wall time minus the flows' (start to last byte), 0.30 s per
	// run.
	RunOverhead = 300 * time.Millisecond
	// FlowEfficiency is the goodput a size-limited flow reaches, as a
	// share of the capacity of its path, handshake and slow start
	// included. Measured: 20 MB in 4.28–6.64 s at 2 × 20 Mbit/s
	// (utilization 0.60–0.93, batch 500 the slowest); the runs' total
	// time gives 0.81.
	FlowEfficiency = 0.81
)

// Schedule is how a sweep's runs are spread over time.
type Schedule struct {
	// Jobs is how many runs run at once (0 means 1).
	Jobs int
	// Calibrate: the first run runs alone (--jobs auto measures it) and
	// Jobs at once only after it.
	Calibrate bool
}

// EstimateWall returns the expected wall time of doing runs, of plan p
// (from NewPlan: it carries the resolved configurations; a point without
// one counts RunOverhead), in the given schedule: each run takes
// EstimateRun of its point's configuration, and runs start in order, each
// as soon as one of the schedule's jobs is free. It is the one time
// estimate: the dry run, the first progress line and the ETA use it.
func EstimateWall(p *results.Plan, runs []results.Run, s Schedule) time.Duration {
	per := map[string]time.Duration{}
	durs := make([]time.Duration, 0, len(runs))
	for _, r := range runs {
		d, ok := per[r.Point]
		if !ok {
			d = estimatePoint(p, r.Point)
			per[r.Point] = d
		}
		durs = append(durs, d)
	}
	if s.Calibrate && len(durs) > 0 {
		return durs[0] + makespan(s.Jobs, nil, durs[1:])
	}
	return makespan(s.Jobs, nil, durs)
}

// estimatePoint is EstimateRun of a point's configuration.
func estimatePoint(p *results.Plan, id string) time.Duration {
	cfg, err := PointConfig(p, id)
	if err != nil {
		return RunOverhead
	}
	return EstimateRun(cfg)
}

// EstimateRun returns the expected wall time of one run of cfg:
// RunOverhead plus the time until its last flow ends. A flow limited by
// time ends at its start plus its duration; a counted cbr flow after its
// datagrams' intervals, a counted rr flow after its transactions (each at
// least a round trip of link1's delays, or its interval); the bulk flows
// limited by size share the capacity of the links they use in their
// direction (FlowEfficiency of it, less the share of time-limited flows
// running beside them) from the first one's start. An objects flow
// without a duration takes, per object, a connection set-up and slow
// start (each object on a new connection unless it reuses one) and its
// bytes at the path's rate, plus a first connection when it resumes (its
// sizes drawn from a CSV file count nothing: the file is read by the run).
func EstimateRun(cfg config.Config) time.Duration {
	var end time.Duration
	var sized [2]struct {
		bytes float64
		first time.Duration
		used  map[string]bool
		n     int
		// lossCap sums the flows' loss-bound rates; ramp is the longest
		// handshake and slow start.
		lossCap float64
		ramp    time.Duration
	}
	timed := 0
	for _, f := range cfg.Flows {
		switch {
		case f.Duration > 0:
			end = max(end, f.Start+f.Duration)
			timed++
		case f.Kind == config.KindCBR && f.Count > 0:
			end = max(end, f.Start+time.Duration(f.Count)*f.CBRInterval())
		case f.Kind == config.KindRR && f.Count > 0:
			l := cfg.Links[0]
			end = max(end, f.Start+time.Duration(f.Count)*max(f.Interval, l.Down.Delay+l.Up.Delay))
		case f.Kind == config.KindObjects:
			end = max(end, f.Start+estimateObjects(cfg, f))
		case f.Size > 0 && (f.Kind == "" || f.Kind == config.KindBulk):
			d := 0
			if f.Direction == config.DirUp {
				d = 1
			}
			g := &sized[d]
			if g.used == nil || f.Start < g.first {
				g.first = f.Start
			}
			if g.used == nil {
				g.used = map[string]bool{}
			}
			g.bytes += float64(f.Size)
			g.used[f.Path] = true
			g.n++
			rtt, loss := pathRTTLoss(cfg, f, d == 1)
			g.lossCap += lossBoundRate(segment(f), rtt, loss)
			g.ramp = max(g.ramp, slowStart(segment(f), rtt, pathsRate(cfg, linkRates(cfg, d == 1), map[string]bool{f.Path: true})))
		}
	}
	for d, g := range sized {
		if g.n == 0 {
			continue
		}
		rate := pathsRate(cfg, linkRates(cfg, d == 1), g.used) * FlowEfficiency * float64(g.n) / float64(g.n+timed)
		rate = min(rate, g.lossCap)
		if rate > 0 {
			end = max(end, g.first+g.ramp+time.Duration(g.bytes*8/rate*float64(time.Second)))
		}
	}
	return RunOverhead + end
}

// The loss model's figures, fitted to the loss preset at 20 MB over 2 ×
// 20 Mbit/s with a 20 ms RTT (loss 0.08 % to 5 % on every link and
// direction; docs/sweeps.md, "Time estimate"): with these the model's
// rate was 0.57–0.88 × the measured one for quic-go and 0.84–1.43 × for
// TCP NewReno (the timeouts of TCP at 1–5 % loss take longer than the
// model's).
const (
	// ackedPerACK is Padhye's b: data packets one ACK acknowledges.
	ackedPerACK = 2
	// minRTO is the shortest retransmission timeout (Linux TCP's 200 ms).
	minRTO = 200 * time.Millisecond
	// initialWindow is the congestion window a flow starts with, in
	// segments (RFC 6928; quic-go's too).
	initialWindow = 10
)

// segment is the payload of a flow's full-sized packet: QUIC's 1200
// bytes (quic-go grows it with path MTU discovery, which the model does
// not count), TCP's 1448 over a 1500-byte MTU with timestamps.
func segment(f config.Flow) float64 {
	if f.Proto == "tcp" {
		return 1448
	}
	return 1200
}

// lossBoundRate is the rate (bit/s) a Reno-like flow keeps at packet
// loss rate p and round-trip time rtt: Padhye et al.'s model (SIGCOMM
// 1998), whose timeout term Mathis's square root lacks; at 2 % loss
// timeouts take most of the time. Without loss it is unbounded.
func lossBoundRate(seg float64, rtt time.Duration, p float64) float64 {
	if p <= 0 || rtt <= 0 {
		return math.Inf(1)
	}
	r, t0, b := rtt.Seconds(), max(minRTO, 2*rtt).Seconds(), float64(ackedPerACK)
	return seg * 8 / (r*math.Sqrt(2*b*p/3) + t0*min(1, 3*math.Sqrt(3*b*p/8))*p*(1+32*p*p))
}

// slowStart is the time a flow loses before it runs at rate: a round
// trip of handshake, then slow start from the initial window to the
// path's window, less the two round trips' worth of data slow start
// itself delivers.
func slowStart(seg float64, rtt time.Duration, rate float64) time.Duration {
	if rtt <= 0 || rate <= 0 {
		return rtt
	}
	rounds := math.Log2(rate*rtt.Seconds()/8/(initialWindow*seg)) - 1
	return rtt + time.Duration(max(0, rounds)*float64(rtt))
}

// pathRTTLoss is the base round-trip time and data loss rate of a flow's
// path in its direction: a single link's delays and loss; a DC flow's
// those of the links its scheduler uses — the longer round trip (the
// receiver waits for the slower link) and the loss weighted by each
// link's share, or both links' for duplication; MPTCP's both links evenly.
func pathRTTLoss(cfg config.Config, f config.Flow, up bool) (time.Duration, float64) {
	rtt := [2]time.Duration{cfg.Links[0].Down.Delay + cfg.Links[0].Up.Delay, cfg.Links[1].Down.Delay + cfg.Links[1].Up.Delay}
	loss := [2]float64{cfg.Links[0].Down.Loss, cfg.Links[1].Down.Loss}
	if up {
		loss = [2]float64{cfg.Links[0].Up.Loss, cfg.Links[1].Up.Loss}
	}
	share := 1.0 // of link1
	switch {
	case f.Path == config.PathLink2:
		share = 0
	case f.Path == config.PathMPTCP:
		share = 0.5
	case f.Path != config.PathDC || !cfg.DC.Enabled:
	default:
		var dup bool
		if share, dup, _ = dcShare(cfg.DC.Sched); dup {
			return max(rtt[0], rtt[1]), loss[0] * loss[1]
		}
	}
	switch share {
	case 0:
		return rtt[1], loss[1]
	case 1:
		return rtt[0], loss[0]
	}
	return max(rtt[0], rtt[1]), share*loss[0] + (1-share)*loss[1]
}

// linkRates is each link's rate (bit/s) in one direction: the configured
// one, or the mean of its trace over the first two minutes.
func linkRates(cfg config.Config, up bool) [2]float64 {
	rates := [2]float64{cfg.Links[0].Down.Rate, cfg.Links[1].Down.Rate}
	dir := 0
	if up {
		rates, dir = [2]float64{cfg.Links[0].Up.Rate, cfg.Links[1].Up.Rate}, 1
	}
	scheds, err := config.SchedulesFrom(invoker.Disk{}, &cfg) // under sudo, as the user: the estimate shows what a trace holds
	if err != nil {
		return rates
	}
	for i := range rates {
		if pl := scheds[i][dir].Rate; pl != nil {
			rates[i] = pl.MeanRate(0, 2*time.Minute)
		}
	}
	return rates
}

// pathsRate is the rate the paths in used get together: link1 and
// link2 their links', a DC client what its scheduler makes of both (a
// split a:b fills the first link that runs out, duplication the slower
// link, the rate-aware schedulers both), an MPTCP client both.
func pathsRate(cfg config.Config, r [2]float64, used map[string]bool) float64 {
	onLink := [2]bool{used[config.PathLink1], used[config.PathLink2]}
	total := 0.0
	if used[config.PathDC] {
		if !cfg.DC.Enabled {
			onLink[0] = true
		} else {
			total += dcRate(cfg.DC.Sched, r)
			// A single-link client beside the DC one shares its link.
			onLink = [2]bool{}
		}
	}
	if used[config.PathMPTCP] {
		return r[0] + r[1]
	}
	for i, on := range onLink {
		if on {
			total += r[i]
		}
	}
	return total
}

func dcRate(sc pdcp.SchedulerConfig, r [2]float64) float64 {
	share, dup, free := dcShare(sc)
	switch {
	case dup:
		return min(r[0], r[1])
	case free:
		return r[0] + r[1] // as much as both links take
	case share == 0:
		return r[1]
	case share == 1:
		return r[0]
	}
	return min(r[0]/share, r[1]/(1-share))
}

// dcShare is the share of a DC client's packets the scheduler sc puts on
// link1; dup when it sends every packet on both links, free when it
// follows the links' state (adaptive, smallest-delay: share 0.5).
func dcShare(sc pdcp.SchedulerConfig) (share float64, dup, free bool) {
	sc = sc.WithDefaults()
	switch sc.Kind {
	case pdcp.KindDuplicate:
		return 1, true, false
	case pdcp.KindActiveStandby:
		return float64(1 - sc.Active), false, false
	case pdcp.KindBatch, pdcp.KindWeighted:
		return sc.Split.Share0(), false, false
	}
	return 0.5, false, true
}

// makespan is when the last of queued ends if they start in order, each
// as soon as one of slots is free, with busy the time each job already
// running still needs.
func makespan(slots int, busy, queued []time.Duration) time.Duration {
	slots = max(slots, 1, len(busy))
	free := make([]time.Duration, slots)
	copy(free, busy)
	for _, d := range queued {
		i := slices.Index(free, slices.Min(free))
		free[i] += d
	}
	return slices.Max(free)
}

// Elapsed is how long runs took against what EstimateRun expected of
// them: the model's error on this host for one plan, which scales the
// estimate of the plan's runs still to do. Flows the model does not
// capture (long round trips with reordering, receive windows) are its
// usual cause.
type Elapsed struct {
	Took, Expected time.Duration
	Runs           int
}

// Add counts a run of point that took took.
func (e *Elapsed) Add(p *results.Plan, point string, took time.Duration) {
	e.Took += took
	e.Expected += estimatePoint(p, point)
	e.Runs++
}

// Scale is d, an estimate of the model, scaled by the error of the runs
// counted so far (d itself without any).
func (e Elapsed) Scale(d time.Duration) time.Duration {
	if e.Expected <= 0 {
		return d
	}
	return time.Duration(float64(d) * float64(e.Took) / float64(e.Expected))
}

// ElapsedIn counts the runs of plan p that dir holds with status ok (its
// latest attempt, degraded or not: each took the time it took), each as
// its flows' duration (summary.json) and RunOverhead: a resumed sweep's
// estimate starts from what the earlier sessions saw (the record's runs
// among them).
func ElapsedIn(dir string, p *results.Plan) Elapsed {
	var e Elapsed
	rec := recordFor(dir, p)
	for _, r := range p.Runs {
		if sum, ok := okRun(filepath.Join(dir, results.RunsDir, r.ID), p, r); ok {
			e.Add(p, r.Point, RunOverhead+time.Duration(sum.DurationS*float64(time.Second)))
		} else if row, ok := rec.done(dir, r); ok && row.DurationS > 0 {
			e.Add(p, r.Point, RunOverhead+time.Duration(row.DurationS*float64(time.Second)))
		}
	}
	return e
}

// ModelText says in a line what EstimateRun counts, for the dry runs.
func ModelText() string {
	return fmt.Sprintf("each run %v of set-up and tear-down, then its flows: a download at %.0f %% of its path's rate after its handshake and slow start, "+
		"or the rate Padhye's model gives its path's loss if lower; a flow of fixed duration its duration",
		RunOverhead, 100*FlowEfficiency)
}

// estimateObjects is how long an objects flow without a duration takes
// (EstimateRun); 0 when its objects cannot be counted.
func estimateObjects(cfg config.Config, f config.Flow) time.Duration {
	o := f.Objects
	n, bytes := f.Count, 0.0
	switch o.Dist {
	case workload.DistList:
		if n == 0 {
			n = len(o.Sizes)
		}
		for i := range n {
			bytes += float64(o.Sizes[i%len(o.Sizes)])
		}
	case workload.DistFixed, workload.DistExp, workload.DistLogNormal:
		bytes = float64(n) * float64(o.Size) // the median stands in for a log-normal's mean
	}
	if n == 0 {
		return 0
	}
	up := f.Direction == config.DirUp
	rtt, _ := pathRTTLoss(cfg, f, up)
	rate := pathsRate(cfg, linkRates(cfg, up), map[string]bool{f.Path: true}) * FlowEfficiency
	if rate <= 0 {
		return 0
	}
	setup := 2*rtt + slowStart(segment(f), rtt, rate) // handshake, request, slow start
	conns := n
	if f.Reuse {
		conns = 1
	}
	if f.Resume != config.ResumeOff {
		conns++
	}
	return time.Duration(conns)*setup + time.Duration(bytes*8/rate*float64(time.Second))
}
