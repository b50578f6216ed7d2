package analysis

import (
	"io/fs"

	"github.com/dc-emu/emu/emu/results"
)

// IsSweepDir reports whether fsys looks like a sweep directory.
func IsSweepDir(fsys fs.FS) bool {
	for _, name := range []string{results.PlanFile, results.RunsDir} {
		if _, err := fs.Stat(fsys, name); err == nil {
			return true
		}
	}
	return false
}

// RunMetrics returns the one-value-per-run figures of a run's analysis that
// a sweep can aggregate, named as results names them: jfi, jfi_active,
// total.goodput_mbps, each flow's goodput, reordered packets and ratio,
// packets lost, mean and p95 sRTT, each link direction's and each
// direction's utilization, each direction's PDCP repairs. emu analyze
// SWEEP adds those a run's summary.json and timeseries.csv do not give
// (sweep.AggregateOptions.Extra: the summary's win). Unknown figures are
// left out.
func RunMetrics(ra *RunAnalysis) map[string]float64 {
	m := map[string]float64{}
	put := func(name string, v NullFloat) {
		if v.Valid() {
			m[name] = float64(v)
		}
	}
	putInt := func(name string, v *int64) {
		if v != nil {
			m[name] = float64(*v)
		}
	}
	put(results.MetricJFI, ra.JFI)
	put(results.MetricJFIActive, ra.JFIActive)
	total, all := 0.0, len(ra.Flows) > 0
	for _, f := range ra.Flows {
		put(results.FlowGoodput(f.Name), f.GoodputMbps)
		putInt(results.FlowMetric(f.Name, results.QReorderedPackets), f.ReorderedPackets)
		put(results.FlowMetric(f.Name, results.QReorderedRatio), f.ReorderedRatio)
		putInt(results.FlowMetric(f.Name, results.QPacketsLost), f.PacketsLost)
		put(results.FlowMetric(f.Name, results.QMeanSRTT), f.MeanSRTTMs)
		put(results.FlowMetric(f.Name, results.QP95SRTT), f.P95SRTTMs)
		if f.AcksPerDataPacket != nil {
			m[results.FlowMetric(f.Name, results.QAcksPerDataPacket)] = *f.AcksPerDataPacket
		}
		if f.GoodputMbps.Valid() {
			total += float64(f.GoodputMbps)
		} else {
			all = false
		}
	}
	if all {
		m[results.MetricGoodput] = total
	}
	for dir, u := range ra.Utilization {
		put(results.DirUtilization(dir), u)
	}
	for _, l := range ra.Links {
		put(results.LinkDirUtilization(l.Name, l.Dir), l.Utilization)
	}
	for dir, p := range ra.PDCP {
		m[results.PDCPRepairs(dir)] = float64(p.Repairs)
	}
	return m
}
