package analysis

import (
	"math"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/stats"
)

// The per-run figures computed from the flows, timeseries.csv,
// summary.json and counters.json: fairness, link utilization, PDCP.

func (ra *RunAnalysis) computeFairness() {
	var g []float64
	bulk := 0
	for _, f := range ra.Flows {
		if f.Kind != "" {
			continue // fairness is a share of what bulk flows could take
		}
		bulk++
		if f.GoodputMbps.Valid() {
			g = append(g, float64(f.GoodputMbps))
		}
	}
	if len(g) > 0 && len(g) == bulk {
		ra.JFI = NullFloat(stats.JFI(g))
	} else if bulk > 0 {
		ra.warn("JFI left out: %d of %d flows have no goodput", bulk-len(g), bulk)
	}
	ts := ra.Timeseries
	if ts == nil {
		return
	}
	flows := slices.DeleteFunc(ts.Flows(), func(name string) bool {
		i := slices.IndexFunc(ra.Flows, func(f FlowAnalysis) bool { return f.Name == name })
		return i >= 0 && ra.Flows[i].Kind != ""
	})
	if len(flows) < 2 {
		return
	}
	first, last := ActiveBins(ts)
	if first < 0 {
		ra.warn("no %s bin has all %d flows active; jfi_active left out", results.TimeseriesFile, len(flows))
		return
	}
	means := make([]float64, len(flows))
	for k, f := range flows {
		col := ts.Column(results.FlowSeries(f, results.SeriesGoodput))
		var s float64
		for i := first; i <= last; i++ {
			if !math.IsNaN(col[i]) {
				s += col[i]
			}
		}
		means[k] = s / float64(last-first+1)
	}
	ra.JFIActive = NullFloat(stats.JFI(means))
	binS := 0.1
	if len(ts.T) > 1 {
		binS = ts.T[1] - ts.T[0]
	}
	start := math.Round((ts.T[first]-binS)*1e6) / 1e6 // t_s is the end of a bin
	ra.ActiveWindowS = [2]NullFloat{NullFloat(start), NullFloat(ts.T[last])}
}

// ActiveBins returns the first and last bins of timeseries.csv in which
// every flow has goodput (-1, -1 if there is none): the span of jfi_active.
func ActiveBins(ts *results.Timeseries) (first, last int) {
	first, last = -1, -1
	flows := ts.Flows()
	for i := range ts.T {
		all := true
		for _, f := range flows {
			if v := ts.Column(results.FlowSeries(f, results.SeriesGoodput))[i]; !(v > 0) {
				all = false
				break
			}
		}
		if all {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

func (ra *RunAnalysis) computeLinks(sum *results.Summary) {
	if sum != nil && len(sum.Links) > 0 {
		for _, l := range sum.Links {
			u := NullFloat(l.Utilization)
			if u == 0 && l.CapacityMbps > 0 {
				u = NullFloat(l.ThroughputMbps / l.CapacityMbps)
			}
			ra.Links = append(ra.Links, LinkUsage{Name: l.Name, Dir: l.Dir, CapacityMbps: NullFloat(l.CapacityMbps),
				ThroughputMbps: NullFloat(l.ThroughputMbps), Utilization: u, Source: "summary",
				DelayJumpsS: l.DelayJumpsS, DelayJumpPeriodS: l.DelayJumpPeriodS})
		}
	} else if ts := ra.Timeseries; ts != nil {
		for _, p := range ts.Links() {
			name, dir, _ := strings.Cut(p, ".")
			c := NullFloat(stats.MeanOmitNaN(ts.Column(results.DirSeries(p, results.SeriesCapacity))))
			th := NullFloat(stats.MeanOmitNaN(ts.Column(results.DirSeries(p, results.SeriesThroughput))))
			u := unknown()
			if c > 0 {
				u = th / c
			}
			ra.Links = append(ra.Links, LinkUsage{Name: name, Dir: dir, CapacityMbps: c, ThroughputMbps: th,
				Utilization: u, Source: "timeseries"})
		}
	}
	if ra.Links == nil {
		ra.Links = []LinkUsage{}
	}
	capSum, thrSum := map[string]float64{}, map[string]float64{}
	for _, l := range ra.Links {
		if l.CapacityMbps.Valid() && l.ThroughputMbps.Valid() {
			capSum[l.Dir] += float64(l.CapacityMbps)
			thrSum[l.Dir] += float64(l.ThroughputMbps)
		}
	}
	for dir, c := range capSum {
		if c > 0 {
			ra.Utilization[dir] = NullFloat(thrSum[dir] / c)
		}
	}
}

func (ra *RunAnalysis) computePDCP(sum *results.Summary, counters *results.Counters) {
	src, m := "summary", map[string]results.PDCPCounters(nil)
	if sum != nil && len(sum.PDCP) > 0 {
		m = sum.PDCP
	} else if counters != nil && len(counters.PDCP) > 0 {
		src, m = "counters", counters.PDCP
	}
	for dir, c := range m {
		ra.PDCP[dir] = PDCPSummary{PDCPCounters: c, Repairs: int64(c.Reordered), Source: src}
	}
}

// delayJumps are the times (s) any link's delay trace jumped during the
// run, in order, each once (both directions of a link replay one trace).
func (ra *RunAnalysis) delayJumps() []float64 {
	var out []float64
	for _, l := range ra.Links {
		out = append(out, l.DelayJumpsS...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
