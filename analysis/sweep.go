package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// Plan mirrors a sweep's plan.json (docs/results.md).
type Plan struct {
	Vary []struct {
		Key    string `json:"key"`
		Values []any  `json:"values"`
	} `json:"vary"`
	Grid   bool           `json:"grid"`
	Repeat int            `json:"repeat"`
	Base   map[string]any `json:"base"`
	Points []PlanPoint    `json:"points"`
	Runs   []PlanRun      `json:"runs"`
}

// PlanPoint is one parameter combination of a sweep.
type PlanPoint struct {
	ID     string         `json:"id"`
	Params map[string]any `json:"params"`
}

// PlanRun is one repeat of one point.
type PlanRun struct {
	ID     string `json:"id"`
	Point  string `json:"point"`
	Repeat int    `json:"repeat"`
	Seed   any    `json:"seed"`
}

// SweepAnalysis aggregates a sweep: per point, each metric of RunMetrics
// summarized over the point's runs that finished with status ok.
type SweepAnalysis struct {
	Vary     []string        `json:"vary"`
	Points   []PointAnalysis `json:"points"`
	Runs     []SweepRun      `json:"runs"`
	Warnings []string        `json:"warnings"`

	// RunAnalyses holds each analysed run by id, for callers that write the
	// runs' own analysis.json. Not part of the JSON.
	RunAnalyses map[string]*RunAnalysis `json:"-"`
}

// PointAnalysis is one sweep point.
type PointAnalysis struct {
	ID      string          `json:"id"`
	Params  map[string]any  `json:"params"`
	Runs    int             `json:"runs"` // runs included in the statistics
	Metrics map[string]Stat `json:"metrics"`
}

// SweepRun says what happened to one run of the plan.
type SweepRun struct {
	ID       string `json:"id"`
	Point    string `json:"point"`
	Repeat   int    `json:"repeat"`
	Seed     any    `json:"seed,omitempty"`
	Status   string `json:"status"`
	Included bool   `json:"included"`
	Reason   string `json:"reason,omitempty"`
}

const (
	planFile = "plan.json"
	runsDir  = "runs"
)

// IsSweepDir reports whether fsys looks like a sweep directory.
func IsSweepDir(fsys fs.FS) bool {
	for _, name := range []string{planFile, runsDir} {
		if _, err := fs.Stat(fsys, name); err == nil {
			return true
		}
	}
	return false
}

// RunMetrics returns the one-value-per-run figures a sweep aggregates,
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

// AnalyzeSweep analyses every run of a sweep directory (fsys rooted at it)
// and summarizes RunMetrics per point. Runs that are missing, failed or
// interrupted are listed and left out of the statistics. A run directory
// that cannot be read is an error naming it.
func AnalyzeSweep(fsys fs.FS, opt RunOptions) (*SweepAnalysis, error) {
	if !IsSweepDir(fsys) {
		return nil, fmt.Errorf("not a sweep directory: no %s or %s/", planFile, runsDir)
	}
	sa := &SweepAnalysis{Vary: []string{}, Points: []PointAnalysis{}, Runs: []SweepRun{}, Warnings: []string{},
		RunAnalyses: map[string]*RunAnalysis{}}
	plan, err := readPlan(fsys, sa)
	if err != nil {
		return nil, err
	}
	for _, v := range plan.Vary {
		sa.Vary = append(sa.Vary, v.Key)
	}
	values := map[string]map[string][]float64{} // point → metric → one value per run
	for _, pr := range plan.Runs {
		run := SweepRun{ID: pr.ID, Point: pr.Point, Repeat: pr.Repeat, Seed: pr.Seed}
		dir := runsDir + "/" + pr.ID
		sub, err := fs.Sub(fsys, dir)
		if err != nil {
			return nil, err
		}
		if _, err := fs.Stat(fsys, dir); errors.Is(err, fs.ErrNotExist) {
			run.Status, run.Reason = "missing", "no directory "+dir
			sa.Runs = append(sa.Runs, run)
			continue
		}
		ra, err := AnalyzeRun(sub, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		sa.RunAnalyses[pr.ID] = ra
		run.Status = ra.Status
		switch {
		case ra.Status == "":
			run.Status, run.Reason = "unknown", "no summary.json"
		case ra.Status != "ok":
			run.Reason = ra.Error
		default:
			run.Included = true
			if values[pr.Point] == nil {
				values[pr.Point] = map[string][]float64{}
			}
			for name, v := range RunMetrics(ra) {
				values[pr.Point][name] = append(values[pr.Point][name], v)
			}
		}
		sa.Runs = append(sa.Runs, run)
	}
	for _, p := range plan.Points {
		pa := PointAnalysis{ID: p.ID, Params: p.Params, Metrics: map[string]Stat{}}
		for _, r := range sa.Runs {
			if r.Point == p.ID && r.Included {
				pa.Runs++
			}
		}
		for name, v := range values[p.ID] {
			pa.Metrics[name] = Summarize(v)
			if len(v) < pa.Runs {
				sa.Warnings = append(sa.Warnings, fmt.Sprintf("point %s: %s known in %d of %d runs", p.ID, name, len(v), pa.Runs))
			}
		}
		if pa.Runs < 2 {
			sa.Warnings = append(sa.Warnings, fmt.Sprintf("point %s: %d usable runs, no confidence interval", p.ID, pa.Runs))
		}
		sa.Points = append(sa.Points, pa)
	}
	sort.Strings(sa.Warnings)
	return sa, nil
}

// readPlan reads plan.json. Without one, every directory under runs/ is a
// point of its own (with a warning), so a sweep interrupted before writing
// its plan can still be summarized run by run.
func readPlan(fsys fs.FS, sa *SweepAnalysis) (*Plan, error) {
	plan := &Plan{}
	if _, err := fs.Stat(fsys, planFile); err == nil {
		if err := readJSONFile(fsys, planFile, plan); err != nil {
			return nil, err
		}
		known := map[string]bool{}
		for i, p := range plan.Points {
			if p.ID == "" {
				return nil, fmt.Errorf("%s: points[%d] has no id", planFile, i)
			}
			known[p.ID] = true
		}
		for i, r := range plan.Runs {
			if r.ID == "" || strings.ContainsAny(r.ID, "/\\") || r.ID == ".." || r.ID == "." {
				return nil, fmt.Errorf("%s: runs[%d]: id %q is not a directory name", planFile, i, r.ID)
			}
			if !known[r.Point] {
				return nil, fmt.Errorf("%s: runs[%d] (%s): point %q is not in points", planFile, i, r.ID, r.Point)
			}
		}
		return plan, nil
	}
	entries, err := fs.ReadDir(fsys, runsDir)
	if err != nil {
		return nil, fmt.Errorf("no %s and %w", planFile, err)
	}
	sa.Warnings = append(sa.Warnings, "no "+planFile+": every run is its own point")
	for _, e := range entries {
		if e.IsDir() {
			plan.Points = append(plan.Points, PlanPoint{ID: e.Name(), Params: map[string]any{}})
			plan.Runs = append(plan.Runs, PlanRun{ID: e.Name(), Point: e.Name(), Repeat: 1})
		}
	}
	return plan, nil
}

// MetricNames returns the metric names of all points, sorted, for tables.
func (sa *SweepAnalysis) MetricNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range sa.Points {
		for n := range p.Metrics {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
