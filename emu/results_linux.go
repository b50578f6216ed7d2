package emu

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
)

// sample reads every rate limiter (and the PDCP buffers) once.
func (r *runner) sample(el time.Duration) {
	s := linkSample{T: el}
	for i, d := range r.em.dirs {
		st, err := d.Shaper.Stats()
		if err != nil && len(r.samples) > 0 {
			// A failed reading repeats the last one: a flat spot in the
			// series is better than a failed run.
			s.Dirs = append(s.Dirs, r.samples[len(r.samples)-1].Dirs[i])
			continue
		}
		s.Dirs = append(s.Dirs, dirSample{Bytes: st.Bytes, Packets: st.Packets, BacklogBytes: st.BacklogBytes, Drops: st.Drops})
	}
	s.PDCP = r.em.pdcpBuffered()
	r.samples = append(r.samples, s)
}

// summarize turns what the run measured into its summary: the run loop's
// outcome and what each flow reported to it, and the link samples.
func (r *runner) summarize(outcome runloop.Outcome, runErr error) *results.Summary {
	s := &results.Summary{
		Run: filepath.Base(r.o.Out), Scenario: r.cfg.Scenario, Status: results.StatusOK, Seed: r.cfg.Seed,
		Started: r.started.UTC(), DurationS: results.Round3(time.Since(r.started).Seconds()),
		Config: config.Values(&r.cfg), Versions: host.CollectVersions(),
	}
	switch outcome {
	case runloop.Interrupted:
		s.Status, s.Error = results.StatusInterrupted, runErr.Error()
	case runloop.Failed:
		s.Status, s.Error = results.StatusFailed, runErr.Error()
	}
	var goodputs []float64
	for i, f := range r.cfg.Flows {
		fr := results.FlowResult{Name: f.Name, Path: f.Path, Proto: f.Proto, ServerImpl: f.ServerImpl,
			ClientImpl: f.ClientImpl, CC: flowCC(f), RcvBuf: f.RcvBuf, StartS: f.Start.Seconds()}
		st := r.state.Flow(i)
		fr.Bytes = st.Bytes
		if st.ServerCC != "" {
			fr.CC = st.ServerCC
		}
		var done *endpoint.Event
		if d := st.Done; d != nil {
			fr.Bytes, fr.Complete = d.Bytes, d.Complete
			if ev, ok := d.Result.(endpoint.Event); ok {
				fr.Seconds, fr.GoodputMbps = ev.Seconds, ev.GoodputMbps
				done = &ev
			}
		}
		fr.RTTMs, fr.OWDMs = r.delayStats(i, done)
		fr.Error = st.Failure
		fr.Seconds, fr.GoodputMbps = results.Round3(fr.Seconds), results.Round3(fr.GoodputMbps)
		goodputs = append(goodputs, fr.GoodputMbps)
		s.Flows = append(s.Flows, fr)
	}
	s.Captures = r.captureList()
	s.JFI = results.Round3(analysis.JFI(goodputs))
	if math.IsNaN(s.JFI) {
		s.JFI = 0
	}
	if len(r.samples) > 0 {
		last := r.samples[len(r.samples)-1]
		for i, d := range r.em.dirs {
			capacity := d.Capacity(0, last.T)
			thr := float64(last.Dirs[i].ipBytes()) * 8 / last.T.Seconds()
			lr := results.LinkResult{Name: fmt.Sprintf("link%d", d.Link+1), Dir: dirName(d.Up), RateSource: "constant",
				CapacityMbps: results.Round3(capacity / 1e6), ThroughputMbps: results.Round3(thr / 1e6), Drops: last.Dirs[i].Drops}
			if capacity > 0 {
				lr.Utilization = results.Round3(thr / capacity)
			}
			if d.Player != nil {
				lr.RateSource, lr.Trace = "trace", r.cfg.Links[d.Link].Trace
			}
			s.Links = append(s.Links, lr)
		}
	}
	s.PDCP = r.em.PDCP()
	s.Warnings = r.em.Warnings
	return s
}

func dirName(up bool) string {
	if up {
		return "up"
	}
	return "down"
}

// flowCC is the congestion control of a flow's sender (the server) as
// configured; the Go servers report what the kernel actually uses, which
// replaces it. An empty TCP cc means the kernel's default.
func flowCC(f config.Flow) string {
	switch {
	case f.CC != "":
		return f.CC
	case f.Proto == "tcp":
		return "kernel default"
	case f.ServerImpl == "ngtcp2":
		return "cubic"
	}
	return "newreno"
}

// writeResults writes summary.json, timeseries.csv and counters.json.
func (r *runner) writeResults(s *results.Summary) error {
	var errs []error
	if err := results.WriteJSON(filepath.Join(r.o.Out, "summary.json"), s); err != nil {
		errs = append(errs, err)
	}
	if err := r.writeSeries(); err != nil {
		errs = append(errs, fmt.Errorf("timeseries: %w", err))
	}
	counters := results.Counters{PDCP: r.em.PDCP(), Links: r.em.linkCounters()}
	if len(counters.PDCP) == 0 {
		counters.PDCP = nil // written as null, as before
	}
	counters.Captures = r.captureMap()
	if err := results.WriteJSON(filepath.Join(r.o.Out, "counters.json"), counters); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (r *runner) writeSeries() error {
	if len(r.samples) == 0 {
		return nil
	}
	t := &results.SeriesTable{Header: []string{"t_s"}}
	logs := make([][]results.FlowSample, len(r.cfg.Flows))
	for i, f := range r.cfg.Flows {
		t.Header = append(t.Header, "flow."+f.Name+".goodput_mbps")
		fl, err := readRecvLog(filepath.Join(r.o.Out, "flows", f.Name+".csv"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		logs[i] = fl
	}
	for _, d := range r.em.dirs {
		t.Header = append(t.Header, d.Name+".capacity_mbps", d.Name+".throughput_mbps", d.Name+".queue_bytes")
	}
	pdcpDirs := r.em.pdcpDirs()
	for _, name := range pdcpDirs {
		t.Header = append(t.Header, "pdcp."+name+".buffer_pkts")
	}
	bin := results.BinWidth
	end := r.samples[len(r.samples)-1].T
	bins := int((end + bin - 1) / bin)
	for k := 0; k < bins; k++ {
		from, to := time.Duration(k)*bin, time.Duration(k+1)*bin
		row := []float64{results.Round3(to.Seconds())}
		for _, fl := range logs {
			got := results.BytesAt(fl, to.Seconds()) - results.BytesAt(fl, from.Seconds())
			row = append(row, results.Round3(float64(got)*8/bin.Seconds()/1e6))
		}
		s0, s1 := sampleAt(r.samples, from), sampleAt(r.samples, to)
		dt := (s1.T - s0.T).Seconds()
		for i, d := range r.em.dirs {
			thr := 0.0
			if dt > 0 {
				thr = float64(s1.Dirs[i].ipBytes()-s0.Dirs[i].ipBytes()) * 8 / dt / 1e6
			}
			row = append(row, results.Round3(d.Capacity(from, to)/1e6), results.Round3(thr), float64(s1.Dirs[i].BacklogBytes))
		}
		for i := range pdcpDirs {
			v := 0.0
			if i < len(s1.PDCP) {
				v = float64(s1.PDCP[i])
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	r.addDelayColumns(t)
	f, err := os.Create(filepath.Join(r.o.Out, "timeseries.csv"))
	if err != nil {
		return err
	}
	if err := t.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readRecvLog reads a flow's receive log.
func readRecvLog(path string) ([]results.FlowSample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return results.ReadFlowSamples(f, path)
}
