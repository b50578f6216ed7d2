package analysis

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dc-emu/emu/emu/results"
)

// TCPInfoAnalysis is what a TCP flow's TCP_INFO log (the sender's kernel,
// sampled every run.tcpinfo_interval) says: the figures quic-go's qlog
// gives a QUIC flow, per subflow for MPTCP.
type TCPInfoAnalysis struct {
	File string `json:"file"`
	Flow string `json:"flow"`
	TCPFigures
	// BytesRetrans is the bytes retransmitted, summed over subflows at
	// their last sample.
	BytesRetrans int64               `json:"bytes_retrans"`
	Subflows     []TCPSubflowSummary `json:"subflows"`

	series DelaySeries
	rows   []results.TCPInfoRow
}

// TCPSubflowSummary is one subflow of a TCP_INFO log (id 0: plain TCP).
type TCPSubflowSummary struct {
	ID     uint32 `json:"id"`
	Local  string `json:"local,omitempty"`
	Remote string `json:"remote,omitempty"`
	CC     string `json:"cc,omitempty"`
	TCPFigures
	BytesAcked int64 `json:"bytes_acked"`
}

// TCPFigures are the figures of a TCP_INFO log, of one subflow or of the
// connection.
type TCPFigures struct {
	// Samples counts rows (one per subflow per sample).
	Samples int `json:"samples"`
	// Smoothed RTT over the samples while data was still acknowledged (see
	// TCPInfoSeries); MinRTTMs is the kernel's min_rtt at the end (of a
	// connection: the smallest of its subflows').
	MeanSRTTMs NullFloat `json:"mean_srtt_ms"`
	P95SRTTMs  NullFloat `json:"p95_srtt_ms"`
	MinRTTMs   NullFloat `json:"min_rtt_ms"`
	// MaxCwndBytes is the largest congestion window (of any subflow);
	// Retransmits the segments retransmitted (tcpi_total_retrans), at the
	// last sample (of a connection: summed over its subflows).
	MaxCwndBytes int64 `json:"max_cwnd_bytes"`
	Retransmits  int64 `json:"retransmits"`
}

// AnalyzeTCPInfo computes the figures of one TCP_INFO log.
func AnalyzeTCPInfo(rows []results.TCPInfoRow, file, flow string) *TCPInfoAnalysis {
	a := &TCPInfoAnalysis{File: file, Flow: flow, TCPFigures: TCPFigures{Samples: len(rows)}, rows: rows, series: TCPInfoSeries(rows)}
	a.MeanSRTTMs, a.P95SRTTMs, a.MinRTTMs = srttFigures(a.series)
	var ids []uint32
	by := map[uint32][]results.TCPInfoRow{}
	for _, r := range rows {
		if _, ok := by[r.Subflow]; !ok {
			ids = append(ids, r.Subflow)
		}
		by[r.Subflow] = append(by[r.Subflow], r)
	}
	slices.Sort(ids)
	minRTT := math.NaN()
	for _, id := range ids {
		rs := by[id]
		last := rs[len(rs)-1]
		sf := TCPSubflowSummary{ID: id, CC: last.CC, TCPFigures: TCPFigures{Samples: len(rs)}, BytesAcked: max(last.BytesAcked, 0)}
		if last.Local.IsValid() {
			sf.Local = last.Local.String()
		}
		if last.Remote.IsValid() {
			sf.Remote = last.Remote.String()
		}
		sf.MeanSRTTMs, sf.P95SRTTMs, _ = srttFigures(TCPInfoSeries(rs))
		sf.MinRTTMs = unknown()
		for _, r := range rs {
			sf.MaxCwndBytes = max(sf.MaxCwndBytes, r.CwndBytes)
			if r.MinRTTMs > 0 {
				sf.MinRTTMs = NullFloat(r.MinRTTMs)
			}
		}
		sf.Retransmits = max(last.TotalRetrans, 0)
		if sf.MinRTTMs.Valid() && !(minRTT <= float64(sf.MinRTTMs)) {
			minRTT = float64(sf.MinRTTMs)
		}
		a.MaxCwndBytes = max(a.MaxCwndBytes, sf.MaxCwndBytes)
		a.Retransmits += sf.Retransmits
		a.BytesRetrans += max(last.BytesRetrans, 0)
		a.Subflows = append(a.Subflows, sf)
	}
	a.MinRTTMs = NullFloat(minRTT)
	return a
}

// RTT is the log's smoothed-RTT series (TCPInfoSeries).
func (a *TCPInfoAnalysis) RTT() DelaySeries { return a.series }

func srttFigures(s DelaySeries) (mean, p95, minimum NullFloat) {
	st, ok := s.Stats()
	if !ok {
		return unknown(), unknown(), unknown()
	}
	m := slices.Min(s.MS)
	return NullFloat(st.Mean), NullFloat(st.P95), NullFloat(m)
}

// TCPCongestionFigure is the congestion view of a TCP flow from its
// TCP_INFO log, laid out like CongestionFigure's for QUIC: congestion
// window and bytes in flight (retransmissions marked) above, min and
// smoothed RTT below; one line of each per subflow for MPTCP.
func TCPCongestionFigure(a *TCPInfoAnalysis) (*Figure, error) {
	if len(a.rows) == 0 {
		return nil, fmt.Errorf("congestion %s: %w: no TCP_INFO samples", a.File, errNoData)
	}
	multi := len(a.Subflows) > 1
	label := func(id uint32, what string) string {
		if multi {
			return fmt.Sprintf("subflow %d %s", id, what)
		}
		return what
	}
	top := newPlot(fmt.Sprintf("Congestion window and RTT: %s (TCP_INFO, sender)", path.Base(a.File)), "", "window (kB)")
	bottom := newPlot("", "time since run start (s)", "RTT (ms)")
	bottom.Legend.Left = true
	var retrans plotter.XYs
	for k, sf := range a.Subflows {
		var cwnd, bif, srtt, minRTT plotter.XYs
		prevRetrans := int64(0)
		for _, r := range a.rows {
			if r.Subflow != sf.ID {
				continue
			}
			if r.CwndBytes >= 0 {
				cwnd = append(cwnd, plotter.XY{X: r.T, Y: float64(r.CwndBytes) / 1000})
			}
			if r.InFlightBytes >= 0 {
				bif = append(bif, plotter.XY{X: r.T, Y: float64(r.InFlightBytes) / 1000})
			}
			if r.SRTTMs > 0 {
				srtt = append(srtt, plotter.XY{X: r.T, Y: r.SRTTMs})
			}
			if r.MinRTTMs > 0 {
				minRTT = append(minRTT, plotter.XY{X: r.T, Y: r.MinRTTMs})
			}
			if r.TotalRetrans > prevRetrans {
				retrans = append(retrans, plotter.XY{X: r.T, Y: 0})
				prevRetrans = r.TotalRetrans
			}
		}
		c, light := colorAt(palette, 2*k), colorAt(palette, 2*k+5)
		if multi {
			light = c
		}
		if err := addSeries(top,
			series{label: label(sf.ID, "bytes in flight"), xy: decimate(bif, maxPlotPoints), color: light, step: true, width: vg.Points(1),
				dashes: dashIf(multi)},
			series{label: label(sf.ID, "congestion window"), xy: decimate(cwnd, maxPlotPoints), color: c, step: true, width: vg.Points(1.6)},
		); err != nil {
			return nil, fmt.Errorf("congestion %s: %w", a.File, err)
		}
		sc, mc := colorAt(palette, 2), colorAt(palette, 6)
		if multi {
			sc, mc = c, c
		}
		if err := addSeries(bottom,
			series{label: label(sf.ID, "smoothed RTT"), xy: decimate(srtt, maxPlotPoints), color: sc, step: true, width: vg.Points(1.6)},
			series{label: label(sf.ID, "min RTT"), xy: decimate(minRTT, maxPlotPoints), color: mc, step: true, width: vg.Points(1.2),
				dashes: []vg.Length{vg.Points(4), vg.Points(2)}},
		); err != nil {
			return nil, fmt.Errorf("congestion %s: %w", a.File, err)
		}
	}
	if len(retrans) > 0 {
		sc, err := plotter.NewScatter(decimate(retrans, maxPlotPoints))
		if err != nil {
			return nil, fmt.Errorf("congestion %s: retransmits: %w", a.File, err)
		}
		sc.GlyphStyle.Color = colorAt(palette, 1)
		sc.GlyphStyle.Shape = draw.CrossGlyph{}
		sc.GlyphStyle.Radius = vg.Points(3.5)
		top.Add(sc)
		top.Legend.Add(fmt.Sprintf("retransmission (%d segments)", a.Retransmits), sc)
	}
	yFromZero(top, 1.3+0.1*float64(len(a.Subflows)-1))
	yFromZero(bottom, 1.35+0.1*float64(len(a.Subflows)-1))
	lo, hi := math.Min(top.X.Min, bottom.X.Min), math.Max(top.X.Max, bottom.X.Max)
	top.X.Min, bottom.X.Min, top.X.Max, bottom.X.Max = lo, lo, hi, hi
	name := "congestion-" + strings.ReplaceAll(strings.TrimSuffix(path.Base(a.File), ".csv"), ".", "-")
	return &Figure{Name: name, Panels: []*plot.Plot{top, bottom}, Width: figWidth, Height: 2 * figPanelHeight}, nil
}

func dashIf(on bool) []vg.Length {
	if on {
		return []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return nil
}
