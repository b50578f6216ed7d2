package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
	"github.com/dc-emu/emu/internal/stats"
)

// runMetrics is RunMetrics and, from the run directory's timeseries.csv
// when it has one, SeriesMetrics.
func runMetrics(runDir string, s *results.Summary) (map[string]float64, error) {
	m := RunMetrics(s)
	ts, err := readTimeseries(runDir)
	if err != nil {
		return nil, err
	}
	for k, v := range SeriesMetrics(s, ts) {
		m[k] = v
	}
	return m, nil
}

// readTimeseries reads a run's timeseries.csv; nil without an error when
// the run has none.
func readTimeseries(runDir string) (*results.Timeseries, error) {
	path := results.RunDir(runDir).File(results.TimeseriesFile)
	f, err := invoker.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ts, err := results.ReadTimeseries(f, path)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return ts, nil
}

// SeriesMetrics returns the metrics of the paper's findings that the
// summary and the time series give (ts nil: the summary's only). A metric
// a run cannot give is left out (no downlinks, one flow) or NaN (no bin
// with goodput).
func SeriesMetrics(s *results.Summary, ts *results.Timeseries) map[string]float64 {
	m := map[string]float64{}
	down := false
	var links float64
	for _, l := range s.Links {
		if l.Dir == "down" {
			down = true
			links += l.ThroughputMbps
		}
	}
	if down {
		m[results.MetricLinksDown] = links
	}
	if ts == nil {
		return m
	}
	first, last := goodputSpan(ts)
	used := usedLinks(s)
	var downs []string
	for _, p := range ts.Links() {
		if name, ok := strings.CutSuffix(p, ".down"); ok {
			downs = append(downs, name)
		}
	}
	if len(downs) > 0 {
		m[results.MetricUnderused] = underused(ts, first, last, downs, used)
		for _, name := range downs {
			m[results.LinkUtilizationP99(name)] = utilizationP99(ts, first, last, name)
		}
	}
	if len(ts.Flows()) >= 2 {
		m[results.MetricJFI1s] = windowJFI(ts, time1s)
		m[results.MetricJFI10s] = windowJFI(ts, time10s)
	}
	return m
}

const (
	time1s  = 1.0
	time10s = 10.0
)

// goodputSpan returns the first and last bins in which some flow has
// goodput (-1, -1 if none).
func goodputSpan(ts *results.Timeseries) (first, last int) {
	first, last = -1, -1
	for i := range ts.T {
		for _, f := range ts.Flows() {
			if ts.Column(results.FlowSeries(f, results.SeriesGoodput))[i] > 0 {
				if first < 0 {
					first = i
				}
				last = i
				break
			}
		}
	}
	return first, last
}

// underused is the fraction of bins first..last in which a used downlink
// with capacity carried less than half of it; NaN without such bins.
func underused(ts *results.Timeseries, first, last int, downs []string, used map[string]bool) float64 {
	if first < 0 {
		return math.NaN()
	}
	under, bins := 0, 0
	for i := first; i <= last; i++ {
		bins++
		for _, name := range downs {
			if len(used) > 0 && !used[name] {
				continue
			}
			c, th := ts.Column(results.DirSeries(name+".down", results.SeriesCapacity)), ts.Column(results.DirSeries(name+".down", results.SeriesThroughput))
			if c == nil || th == nil || !(c[i] > 0) || math.IsNaN(th[i]) {
				continue
			}
			if th[i] < 0.5*c[i] {
				under++
				break
			}
		}
	}
	return float64(under) / float64(bins)
}

// utilizationP99 is the 99th percentile of a downlink's throughput over
// capacity in bins first..last that have capacity; NaN without any.
func utilizationP99(ts *results.Timeseries, first, last int, name string) float64 {
	c, th := ts.Column(results.DirSeries(name+".down", results.SeriesCapacity)), ts.Column(results.DirSeries(name+".down", results.SeriesThroughput))
	if first < 0 || c == nil || th == nil {
		return math.NaN()
	}
	var u []float64
	for i := first; i <= last; i++ {
		if c[i] > 0 && !math.IsNaN(th[i]) {
			u = append(u, th[i]/c[i])
		}
	}
	if len(u) == 0 {
		return math.NaN()
	}
	return stats.Percentile(u, 99)
}

// windowJFI is the mean JFI of the flows' goodput over consecutive whole
// windows of window seconds, within the bins where every flow has
// goodput; NaN when that span holds no whole window.
func windowJFI(ts *results.Timeseries, window float64) float64 {
	flows := ts.Flows()
	first, last := analysis.ActiveBins(ts)
	if first < 0 || len(ts.T) < 2 {
		return math.NaN()
	}
	bin := ts.T[1] - ts.T[0]
	per := int(math.Round(window / bin))
	if per < 1 {
		per = 1
	}
	var jfis []float64
	share := make([]float64, len(flows))
	for start := first; start+per-1 <= last; start += per {
		for k, f := range flows {
			col := ts.Column(results.FlowSeries(f, results.SeriesGoodput))
			share[k] = 0
			for i := start; i < start+per; i++ {
				if !math.IsNaN(col[i]) {
					share[k] += col[i]
				}
			}
		}
		jfis = append(jfis, stats.JFI(share))
	}
	return stats.MeanOmitNaN(jfis) // windows without a share to compare are left out
}
