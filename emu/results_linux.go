package emu

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
	"github.com/dc-emu/emu/internal/stats"
)

// summarize turns what the run measured into its summary: the run loop's
// outcome and what each flow reported to it, the link readings and the
// fidelity verdict.
func (r *runner) summarize(outcome runloop.Outcome, runErr error) *results.Summary {
	s := &results.Summary{
		Scenario: r.cfg.Scenario, Status: results.StatusOK, Seed: r.cfg.Seed,
		Started: r.started.UTC(), DurationS: results.Round3(time.Since(r.started).Seconds()),
		Config: config.Values(&r.cfg), Versions: host.CollectVersions(),
	}
	s.Run = filepath.Base(r.o.Out) // the run's name: its directory's
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
				fr.Seconds, fr.GoodputMbps, fr.RcvBufBytes = ev.Seconds, ev.GoodputMbps, ev.RcvBufBytes
				done = &ev
			}
		}
		fr.RTTMs, fr.OWDMs = r.delayStats(i, done)
		r.summarizeWork(&fr, f, done)
		fr.Error = st.Failure
		fr.Seconds, fr.GoodputMbps = results.Round3(fr.Seconds), results.Round3(fr.GoodputMbps)
		r.addSubflows(s, &fr, f)
		if f.Kind == config.KindBulk { // fairness is a share of what bulk flows could take
			goodputs = append(goodputs, fr.GoodputMbps)
		}
		s.Flows = append(s.Flows, fr)
	}
	s.Captures = r.captureList()
	s.JFI = results.Round3(stats.JFI(goodputs))
	if math.IsNaN(s.JFI) {
		s.JFI = 0
	}
	s.Links = r.linkResults()
	s.PDCP = r.em.PDCP()
	s.Fidelity = r.judgeFidelity()
	s.Warnings = slices.Concat(r.em.Warnings, r.meas.warnings, s.Warnings)
	return s
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

// writeResults writes summary.json, timeseries.csv and counters.json, and
// hands the run directory, with what the endpoints wrote into it, to the
// user who ran emu through sudo.
func (r *runner) writeResults(s *results.Summary) error {
	var errs []error
	dir := results.RunDir(r.o.Out)
	if err := dir.WriteSummary(s); err != nil {
		errs = append(errs, err)
	}
	if err := r.writeSeries(); err != nil {
		errs = append(errs, fmt.Errorf("timeseries: %w", err))
	}
	counters := results.Counters{PDCP: r.em.PDCP(), Links: r.em.LinkCounters(), Sampler: r.samplerCounters(), PEP: r.em.PEP()}
	if len(counters.PDCP) == 0 {
		counters.PDCP = nil // written as null, as before
	}
	counters.Captures = r.captureMap()
	for _, c := range rtsched.Collections(r.em.Epoch) {
		counters.GC = append(counters.GC, results.GCCollection{TS: results.Round3(c.Start.Sub(r.em.Epoch).Seconds()),
			TookMs: results.Round3(float64(c.Took) / 1e6), Demoted: c.Demoted})
	}
	if err := dir.WriteCounters(&counters); err != nil {
		errs = append(errs, err)
	}
	if err := results.HandOver(r.o.Out); err != nil {
		errs = append(errs, fmt.Errorf("hand the run directory to its user: %w", err))
	}
	return errors.Join(errs...)
}

func (r *runner) writeSeries() error {
	series := r.meas.series
	if len(r.meas.pdcp) == 0 && lastT(series) == 0 {
		return nil
	}
	t := &results.SeriesTable{Header: []string{results.SeriesTime}}
	logs := make([][]results.FlowSample, len(r.cfg.Flows))
	for i, f := range r.cfg.Flows {
		t.Header = append(t.Header, results.FlowSeries(f.Name, results.SeriesGoodput))
		fl, err := readLog(results.RunDir(r.o.Out).File(results.RecvLogFile(f.Name)), results.ReadFlowSamples)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		logs[i] = fl
	}
	for _, d := range r.em.Dirs() {
		t.Header = append(t.Header, results.DirSeries(d.Name, results.SeriesCapacity), results.DirSeries(d.Name, results.SeriesThroughput),
			results.DirSeries(d.Name, results.SeriesQueueBytes), results.DirSeries(d.Name, results.SeriesQueueDelay))
		if d.Loop != nil {
			t.Header = append(t.Header, results.DirSeries(d.Name, results.SeriesLateMax))
		}
		if _, ok := d.TraceDelay(0, 0); ok {
			t.Header = append(t.Header, results.DirSeries(d.Name, results.SeriesTraceDelay))
		}
	}
	pdcpDirs := r.em.PDCPDirs()
	for _, name := range pdcpDirs {
		t.Header = append(t.Header, results.PDCPBufferSeries(name))
	}
	bin := results.BinWidth
	end := lastT(series)
	if n := len(r.meas.pdcp); n > 0 {
		end = max(end, r.meas.pdcp[n-1].T)
	}
	bins := int((end + bin - 1) / bin)
	for k := 0; k < bins; k++ {
		from, to := time.Duration(k)*bin, time.Duration(k+1)*bin
		row := []float64{results.Round3(to.Seconds())}
		for _, fl := range logs {
			got := results.BytesAt(fl, to.Seconds()) - results.BytesAt(fl, from.Seconds())
			row = append(row, results.Round3(float64(got)*8/bin.Seconds()/1e6))
		}
		for i, d := range r.em.Dirs() {
			var ser []linkstats.Sample
			var q linkstats.QueueDelay
			if i < len(series) {
				ser, q = series[i], r.meas.queue[i]
			}
			thr := (ipSentAt(ser, to) - ipSentAt(ser, from)) * 8 / bin.Seconds() / 1e6
			row = append(row, results.Round3(d.Capacity(from, to)/1e6), results.Round3(thr), float64(backlogAt(ser, to)), binQueueDelay(q, k))
			if d.Loop != nil {
				row = append(row, latePeakIn(ser, from, to))
			}
			if v, ok := d.TraceDelay(from, to); ok {
				row = append(row, results.Round3(v))
			}
		}
		for i := range pdcpDirs {
			v := 0.0
			if len(r.meas.pdcp) > 0 {
				if s := pdcpAt(r.meas.pdcp, to); i < len(s.PDCP) {
					v = float64(s.PDCP[i])
				}
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	r.addDelayColumns(t)
	if err := r.addSubflowSeries(t); err != nil {
		return err
	}
	if err := r.workColumns(t); err != nil {
		return err
	}
	return results.RunDir(r.o.Out).WriteTimeseries(t)
}
