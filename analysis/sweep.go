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
// a sweep can aggregate (emu analyze adds them to the summary's metrics),
// named like timeseries.csv columns: "jfi", "jfi_active",
// "total.goodput_mbps", "flow.<name>.goodput_mbps" (and reordered_packets,
// reordered_ratio, packets_lost, mean_srtt_ms, p95_srtt_ms),
// "link.<dir>.utilization", "<link>.<dir>.utilization",
// "pdcp.<dir>.repairs". Unknown figures are left out.
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
	put("jfi", ra.JFI)
	put("jfi_active", ra.JFIActive)
	total, all := 0.0, len(ra.Flows) > 0
	for _, f := range ra.Flows {
		p := "flow." + f.Name + "."
		put(p+"goodput_mbps", f.GoodputMbps)
		putInt(p+"reordered_packets", f.ReorderedPackets)
		put(p+"reordered_ratio", f.ReorderedRatio)
		putInt(p+"packets_lost", f.PacketsLost)
		put(p+"mean_srtt_ms", f.MeanSRTTMs)
		put(p+"p95_srtt_ms", f.P95SRTTMs)
		if f.GoodputMbps.Valid() {
			total += float64(f.GoodputMbps)
		} else {
			all = false
		}
	}
	if all {
		m["total.goodput_mbps"] = total
	}
	for dir, u := range ra.Utilization {
		put("link."+dir+".utilization", u)
	}
	for _, l := range ra.Links {
		put(l.Name+"."+l.Dir+".utilization", l.Utilization)
	}
	for dir, p := range ra.PDCP {
		m["pdcp."+dir+".repairs"] = float64(p.Repairs)
	}
	return m
}
