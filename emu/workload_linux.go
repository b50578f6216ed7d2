package emu

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/internal/invoker"
)

// Flow kinds in a run: what each kind's server and client are told, where
// their per-flow logs go, and what the summary gets from them.

// kindLog is flow f's per-kind log in the run directory: flows/<flow>.rr.csv,
// .cbr.csv or .objects.csv; "" for a bulk flow.
func kindLog(out string, f config.Flow) string {
	if f.Kind == config.KindBulk {
		return ""
	}
	return results.RunDir(out).File(results.KindLogFile(f.Name, f.Kind))
}

// checkWorkloads reads what the flows need from files before anything is
// built: a CSV of object sizes, whose errors name the file and line.
func checkWorkloads(cfg config.Config) error {
	for i, f := range cfg.Flows {
		if f.Kind != config.KindObjects {
			continue
		}
		spec := f.Objects
		if spec.Dist != workload.DistCSV {
			continue
		}
		data, err := invoker.ReadFile(spec.File) // the user's file, with the user's permissions
		if err == nil {
			_, err = workload.ParseSizesCSV(spec.File, data)
		}
		if err != nil {
			return fmt.Errorf("flows.%d.objects: %w", i, err)
		}
	}
	return nil
}

// summarizeWork fills a flow's kind and figures from its client's done
// event and its per-kind log.
func (r *runner) summarizeWork(fr *results.FlowResult, f config.Flow, ev *endpoint.Event) {
	if ev != nil && ev.Work != nil {
		fr.FlowWorkload = *ev.Work
	}
	fr.Kind, fr.Direction = f.Kind, f.Direction
	if f.Proto == config.ProtoUDP {
		fr.CC = "none" // plain UDP datagrams at the flow's own pace
	}
	if ev != nil && fr.OWDMs == nil {
		fr.OWDMs = ev.OWD
	}
	if f.Kind != config.KindObjects {
		return
	}
	rows, err := results.ReadObjectsFile(kindLog(r.o.Out, f))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			r.em.Warnings = append(r.em.Warnings, fmt.Sprintf("flow %s: %v", f.Name, err))
		}
		return
	}
	fr.Objects, _, _ = results.ObjectResults(rows, func(from, to time.Duration) float64 {
		return r.bottleneck(f, from, to) / 1e6
	})
	var hs []float64
	for _, o := range fr.Objects {
		if o.HandshakeMs != nil {
			hs = append(hs, *o.HandshakeMs)
		}
	}
	if st, ok := results.SummarizeDelays(hs); ok {
		fr.HandshakeMs = &st
	}
}

// bottleneck is the capacity (bit/s) of the links that carry flow f's
// data, averaged over [from, to) since the epoch: the downlinks (uplinks
// for an upload) of its path, both for a DC flow with DC on (the uplink
// only with dc.uplink=split).
func (r *runner) bottleneck(f config.Flow, from, to time.Duration) float64 {
	up := f.Direction == config.DirUp
	uses := func(link int) bool {
		name := fmt.Sprintf("link%d", link+1)
		switch {
		case f.Path == config.PathMPTCP:
			return true // a subflow per link
		case f.Path != config.PathDC:
			return f.Path == name
		case !r.cfg.DC.Enabled:
			return link == 0
		case up && r.cfg.DC.Uplink != "split":
			return r.cfg.DC.Uplink == name
		}
		return true
	}
	c := 0.0
	for _, d := range r.em.Dirs() {
		if d.Up == up && uses(d.Link) {
			c += d.Capacity(from, to)
		}
	}
	return c
}

// workColumns are the per-kind columns of timeseries.csv: an rr flow's
// mean transaction latency (by request time) and a cbr flow's mean
// one-way delay (by arrival), per bin; empty where nothing happened.
func (r *runner) workColumns(t *results.SeriesTable) error {
	bins := len(t.Rows)
	for _, f := range r.cfg.Flows {
		var at []time.Duration
		var v []float64
		var name string
		switch f.Kind {
		case config.KindRR:
			rows, err := results.ReadRRFile(kindLog(r.o.Out, f))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			for _, row := range rows {
				at, v = append(at, row.T), append(v, float64(row.Latency)/1e6)
			}
			name = results.FlowSeries(f.Name, results.SeriesLatency)
		case config.KindCBR:
			pkts, err := results.ReadCBRFile(kindLog(r.o.Out, f))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			for _, p := range pkts {
				at, v = append(at, p.Recv), append(v, float64(p.Recv-p.Sent)/1e6)
			}
			name = results.FlowSeries(f.Name, results.SeriesOWD)
		default:
			continue
		}
		// A cbr flow's owd_ms may have a column already (the one every flow
		// gets from its stamp log, empty for datagrams): fill that one.
		col := slices.Index(t.Header, name)
		if col < 0 {
			t.Header = append(t.Header, name)
		}
		means := results.BinMeans(at, v, bins, results.BinWidth)
		for k := range t.Rows {
			m := means[k]
			if !math.IsNaN(m) {
				m = results.Round3(m)
			}
			if col < 0 {
				t.Rows[k] = append(t.Rows[k], m)
			} else {
				t.Rows[k][col] = m
			}
		}
	}
	return nil
}
