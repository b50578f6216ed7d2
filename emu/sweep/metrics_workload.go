package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/units"
)

// Metrics of the flow kinds other than bulk, one value per run each:
//
//	flow.<name>.latency_p50_ms, _p95_ms, _p99_ms   rr transaction latency
//	flow.<name>.owd_p50_ms, _p95_ms, _p99_ms       cbr one-way delay (and an upload's)
//	flow.<name>.jitter_ms, flow.<name>.loss        cbr RFC 3550 jitter, fraction lost
//	flow.<name>.fct_p50_s, _p95_s                  objects: completion time
//	flow.<name>.fct_s.<size>                       mean completion time of the run's objects of one size (500kB, 1MB, …)
//	flow.<name>.utilization.<size>                 their mean utilization
func addWorkloadMetrics(m map[string]float64, s *results.Summary) {
	for _, f := range s.Flows {
		p := "flow." + f.Name + "."
		quant := func(name, unit string, st *results.DelayStats) {
			if st == nil {
				return
			}
			m[p+name+"_p50_"+unit], m[p+name+"_p95_"+unit], m[p+name+"_p99_"+unit] = st.P50, st.P95, st.P99
		}
		switch f.Kind {
		case config.KindRR:
			quant("latency", "ms", f.LatencyMs)
		case config.KindCBR:
			quant("owd", "ms", f.OWDMs)
			if f.JitterMs != nil {
				m[p+"jitter_ms"] = *f.JitterMs
			}
			if f.Loss != nil {
				m[p+"loss"] = *f.Loss
			}
		case config.KindObjects:
			if f.FCTS != nil {
				m[p+"fct_p50_s"], m[p+"fct_p95_s"] = f.FCTS.P50, f.FCTS.P95
			}
			type acc struct {
				fct, util float64
				n         int
			}
			bySize := map[int64]*acc{}
			for _, o := range f.Objects {
				if !o.Complete {
					continue
				}
				a := bySize[o.Size]
				if a == nil {
					a = &acc{}
					bySize[o.Size] = a
				}
				a.fct, a.util, a.n = a.fct+o.FCTS, a.util+o.Utilization, a.n+1
			}
			for size, a := range bySize {
				m[p+"fct_s."+units.FormatSize(size)] = a.fct / float64(a.n)
				m[p+"utilization."+units.FormatSize(size)] = a.util / float64(a.n)
			}
		default:
			if f.Direction == config.DirUp {
				quant("owd", "ms", f.OWDMs)
			}
		}
	}
}

// addTransferMetrics sets results.MetricTransferTime and
// MetricTransferUtilization for a run of one flow that moves a known
// amount: the mean over its complete objects, or its sized bulk download.
func addTransferMetrics(m map[string]float64, s *results.Summary) {
	if len(s.Flows) != 1 {
		return
	}
	f := s.Flows[0]
	switch {
	case f.Kind == config.KindObjects:
		var fct, util float64
		n := 0
		for _, o := range f.Objects {
			if o.Complete {
				fct, util, n = fct+o.FCTS, util+o.Utilization, n+1
			}
		}
		if n > 0 {
			m[results.MetricTransferTime], m[results.MetricTransferUtilization] = fct/float64(n), util/float64(n)
		}
	case f.Kind == config.KindBulk && f.Complete && f.Bytes > 0 && f.Seconds > 0 && s.Config["flows.0.size"] != "0B":
		m[results.MetricTransferTime] = f.Seconds
		if u, ok := m[results.MetricUtilization]; ok && !math.IsNaN(u) {
			m[results.MetricTransferUtilization] = u
		}
	}
}

// workloadLabel is the axis label of a workload metric, "" for others.
func workloadLabel(m string) string {
	rest, ok := strings.CutPrefix(m, "flow.")
	if !ok {
		return ""
	}
	i := strings.Index(rest, ".")
	if i < 0 {
		return ""
	}
	name, q := rest[:i], rest[i+1:]
	for _, l := range []struct{ prefix, what, unit string }{
		{"latency_", "transaction latency", "ms"},
		{"owd_", "one-way delay", "ms"},
		{"fct_p", "completion time", "s"},
	} {
		if pq, ok := strings.CutPrefix(q, l.prefix); ok {
			return fmt.Sprintf("%s %s of %s (%s)", strings.TrimSuffix(strings.TrimSuffix(pq, "_ms"), "_s"), l.what, name, l.unit)
		}
	}
	switch {
	case q == "jitter_ms":
		return "RFC 3550 jitter of " + name + " (ms)"
	case q == "loss":
		return "datagrams lost by " + name + " (fraction)"
	case strings.HasPrefix(q, "fct_s."):
		return "mean completion time of " + strings.TrimPrefix(q, "fct_s.") + " objects of " + name + " (s)"
	case strings.HasPrefix(q, "utilization."):
		return "utilization by " + strings.TrimPrefix(q, "utilization.") + " objects of " + name
	}
	return ""
}

// workloadSpecs are the figures of the workload metrics the sweep has
// along one axis: each flow's p95 latency or one-way delay, jitter, loss,
// and the completion time and utilization of each object size.
func workloadSpecs(t *results.SweepTable, slug, key string) []figSpec {
	var out []figSpec
	for _, m := range t.Metrics {
		if workloadLabel(m) == "" || strings.HasSuffix(m, "_p50_ms") || strings.HasSuffix(m, "_p99_ms") || strings.HasSuffix(m, "_p50_s") {
			continue
		}
		out = append(out, figSpec{name: results.FileSlug(m) + "-" + slug, title: workloadLabel(m) + " vs " + key, metric: m, perGroup: true})
	}
	slices.SortFunc(out, func(a, b figSpec) int { return strings.Compare(a.name, b.name) })
	return out
}

// uploadLinks names the links whose uplink the run's uploads (bulk or cbr
// with direction up) use: a DC flow's dc.uplink (both with split and DC
// on), a single-link flow's link.
func uploadLinks(s *results.Summary) map[string]bool {
	up := map[string]bool{}
	for _, f := range s.Flows {
		if f.Direction != config.DirUp {
			continue
		}
		switch {
		case f.Path == config.PathMPTCP:
			up[config.PathLink1], up[config.PathLink2] = true, true
		case f.Path != config.PathDC:
			up[f.Path] = true
		case s.Config["dc.enabled"] == "false":
			up[config.PathLink1] = true
		case s.Config["dc.uplink"] == "split":
			up[config.PathLink1], up[config.PathLink2] = true, true
		case s.Config["dc.uplink"] == config.PathLink2:
			up[config.PathLink2] = true
		default:
			up[config.PathLink1] = true
		}
	}
	return up
}
