package analysis

import (
	"fmt"
	"io"
	"io/fs"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dc-emu/emu/emu/results"
)

// WorkloadAnalysis is a flow of a kind other than bulk: what its per-kind
// log says (rr latencies, cbr one-way delays) and the summary's objects.
type WorkloadAnalysis struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Delay is the rr transactions' latency or the cbr datagrams' one-way
	// delay (ms) as in the flow's log; DelayStats summarises it.
	DelayStats *results.DelayStats `json:"delay_ms,omitempty"`
	// cbr: datagrams in the log, RFC 3550 jitter over them, and those
	// that arrived after a higher sequence number.
	Datagrams int      `json:"datagrams,omitempty"`
	JitterMs  *float64 `json:"jitter_ms,omitempty"`
	Reordered *int64   `json:"reordered,omitempty"`
	// Objects are the summary's objects.
	Objects []results.ObjectResult `json:"objects,omitempty"`

	delays []float64 // sorted, for the CDF figures
}

// readWorkloads reads the per-kind logs of the summary's non-bulk flows.
func (ra *RunAnalysis) readWorkloads(fsys fs.FS, sum *results.Summary) error {
	if sum == nil {
		return nil
	}
	for _, f := range sum.Flows {
		if f.IsBulk() {
			continue
		}
		wa := WorkloadAnalysis{Name: f.Name, Kind: f.Kind, Objects: f.Objects}
		name := results.KindLogFile(f.Name, f.Kind)
		err := ifExists(fsys, name, func() error {
			file, err := fsys.Open(name)
			if err != nil {
				return err
			}
			defer file.Close()
			switch f.Kind {
			case "rr":
				rows, err := results.ReadRR(file, name)
				if err != nil {
					return err
				}
				for _, r := range rows {
					wa.delays = append(wa.delays, float64(r.Latency)/1e6)
				}
			case "cbr":
				pkts, err := results.ReadCBR(file, name)
				if err != nil {
					return err
				}
				st := results.SummarizeCBR(pkts, 0)
				wa.Datagrams, wa.JitterMs, wa.Reordered = len(pkts), &st.JitterMs, &st.Reordered
				for _, p := range pkts {
					wa.delays = append(wa.delays, float64(p.Recv-p.Sent)/1e6)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(wa.delays) > 0 {
			st, _ := results.SummarizeDelays(wa.delays) // sorts them
			wa.DelayStats = &st
		} else if f.Kind != "objects" {
			ra.warn("flow %s (%s): no %s", f.Name, f.Kind, name)
		}
		ra.Workloads = append(ra.Workloads, wa)
	}
	return nil
}

// writeWorkloads prints the workload table of emu analyze RUN.
func writeWorkloads(w io.Writer, ra *RunAnalysis) {
	if len(ra.Workloads) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := unitTable(w, "flow\tkind\tsamples\tp50\tp95\tp99\tmax\tmean\tjitter\treordered\t",
		"\t\t\tms\tms\tms\tms\tms\tms\t\t")
	for _, wa := range ra.Workloads {
		if st := wa.DelayStats; st != nil {
			jit, reord := "-", "-"
			if wa.JitterMs != nil {
				jit = fmt.Sprintf("%.3f", *wa.JitterMs)
			}
			if wa.Reordered != nil {
				reord = fmt.Sprint(*wa.Reordered)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\t\n", wa.Name, wa.Kind, st.N, st.P50, st.P95, st.P99, st.Max, st.Mean, jit, reord)
		}
	}
	tw.Flush()
	for _, wa := range ra.Workloads {
		if len(wa.Objects) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nobjects of %s:\n", wa.Name)
		tw := unitTable(w, "#\tsize\tstart\tfct\tgoodput\tutilization\tset-up\tresumed\t0-RTT\t",
			"\tB\ts\ts\tMbit/s\t\tms\t\t\t")
		for _, o := range wa.Objects {
			hs := "-"
			if o.HandshakeMs != nil {
				hs = fmt.Sprintf("%.1f", *o.HandshakeMs)
			}
			fmt.Fprintf(tw, "%d\t%d\t%.3f\t%.3f\t%.2f\t%.1f%%\t%s\t%v\t%v\t\n", o.Index, o.Size, o.StartS, o.FCTS, o.GoodputMbps, 100*o.Utilization, hs, o.Resumed, o.ZeroRTT)
		}
		tw.Flush()
	}
}

// workloadFigures are the CDFs of rr latency and cbr one-way delay (one
// line per flow) and each objects flow's completion time against size.
func workloadFigures(ra *RunAnalysis) []*Figure {
	var figs []*Figure
	for _, k := range []struct{ kind, name, title, axis string }{
		{"rr", "rr-latency-cdf", "CDF of transaction latency", "latency from request to the response's last byte (ms)"},
		{"cbr", "cbr-owd-cdf", "CDF of datagram one-way delay", "one-way delay (ms)"},
	} {
		p := newPlot(titled(k.title, ra.Run), k.axis, "fraction of samples")
		n := 0
		for _, wa := range ra.Workloads {
			if wa.Kind != k.kind || len(wa.delays) == 0 {
				continue
			}
			addSeries(p, series{label: wa.Name, xy: cdfXY(wa.delays), color: colorAt(palette, n), step: true})
			n++
		}
		if n == 0 {
			continue
		}
		p.Y.Min, p.Y.Max = 0, 1
		figs = append(figs, &Figure{Name: k.name, Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight})
	}
	for i, wa := range ra.Workloads {
		if len(wa.Objects) == 0 {
			continue
		}
		p := newPlot(titled("completion time against object size, "+wa.Name, ra.Run), "object size (bytes, log scale)", "flow completion time (s, log scale)")
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
		var xy plotter.XYs
		for _, o := range wa.Objects {
			if o.Complete && o.FCTS > 0 && o.Size > 0 {
				xy = append(xy, plotter.XY{X: float64(o.Size), Y: o.FCTS})
			}
		}
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			continue
		}
		sc.GlyphStyle.Color = colorAt(palette, i)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(3)
		p.Add(sc)
		figs = append(figs, &Figure{Name: "fct-size-" + wa.Name, Panels: []*plot.Plot{p}, Width: figWidth, Height: figHeight})
	}
	return figs
}

// cdfXY is the empirical CDF of sorted values.
func cdfXY(sorted []float64) plotter.XYs {
	xy := make(plotter.XYs, 0, len(sorted))
	for i, v := range sorted {
		if math.IsNaN(v) {
			continue
		}
		xy = append(xy, plotter.XY{X: v, Y: float64(i+1) / float64(len(sorted))})
	}
	return decimate(xy, 4000)
}
