package emu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
)

// record gathers what the run recorded once its flows have ended, for
// summarize and seriesTable: the run loop's view of each flow, the logs
// its endpoints wrote (each read once), the rate limiters' readings and
// what each direction's trace gave, the PDCP counters, the captures and
// the fidelity verdict.
func (r *runner) record(outcome runloop.Outcome, runErr error) *record {
	rec := &record{
		cfg: r.cfg, run: filepath.Base(r.o.Out), started: r.started, took: time.Since(r.started),
		outcome: outcome, err: runErr, versions: host.CollectVersions(),
		pdcp: r.em.PDCP(), pdcpDirs: r.em.PDCPDirs(), pdcpHeld: r.meas.pdcp,
		captures: r.captureList(),
	}
	for i, d := range r.em.Dirs() {
		dr := dirRecord{name: d.Name, link: d.Link, up: d.Up, traced: d.Player != nil, delayLine: d.Loop != nil,
			capacity: d.Capacity, traceDelay: d.TraceDelay, delayJumps: d.DelayJumps}
		if i < len(r.meas.series) {
			dr.samples = r.meas.series[i]
		}
		rec.dirs = append(rec.dirs, dr)
	}
	for i, f := range r.cfg.Flows {
		rec.flows = append(rec.flows, r.flowRecord(i, f))
	}
	rec.fidelity = r.judgeFidelity()
	rec.warnings = append(append([]string(nil), r.em.Warnings...), r.meas.warnings...)
	return rec
}

// flowRecord reads what flow i's endpoints logged. The network's warnings
// get a line for a log that exists but does not read.
func (r *runner) flowRecord(i int, f config.Flow) flowRecord {
	fl := flowRecord{state: r.state.Flow(i), delays: r.readFlowDelays(i)}
	fl.recv, fl.recvErr = readLog(r.file(results.RecvLogFile(f.Name)), results.ReadFlowSamples)
	if errors.Is(fl.recvErr, os.ErrNotExist) {
		fl.recvErr = nil
	}
	fl.tcpInfo, fl.infoErr = r.tcpInfoRows(f)
	path := kindLog(r.o.Out, f)
	switch f.Kind {
	case config.KindObjects:
		rows, err := results.ReadObjectsFile(path)
		switch {
		case err == nil:
			fl.objects = nonNil(rows)
		case !errors.Is(err, os.ErrNotExist):
			r.em.Warnings = append(r.em.Warnings, fmt.Sprintf("flow %s: %v", f.Name, err))
		}
	case config.KindRR:
		rows, err := results.ReadRRFile(path)
		if err == nil {
			fl.rr = nonNil(rows)
		} else if !errors.Is(err, os.ErrNotExist) {
			fl.kindErr = err
		}
	case config.KindCBR:
		pkts, err := results.ReadCBRFile(path)
		if err == nil {
			fl.cbr = nonNil(pkts)
		} else if !errors.Is(err, os.ErrNotExist) {
			fl.kindErr = err
		}
	}
	return fl
}

// nonNil is s, or an empty slice for a log that was there but empty:
// nil means no log.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
