package emu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/link"
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
		cfg: r.cfg, name: filepath.Base(r.o.Out), started: r.started, took: time.Since(r.started),
		outcome: outcome, err: runErr, versions: host.CollectVersions(),
		pdcp: r.em.PDCP(), pdcpDirs: r.em.PDCPDirs(), pdcpHeld: r.meas.pdcp, sampled: link.SampleInterval,
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
	rec.warnings = slices.Concat(r.em.Warnings, r.meas.warnings)
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
		var err error
		if fl.objects, err = readKindLog(path, results.ReadObjectsFile); err != nil {
			r.em.Warnings = append(r.em.Warnings, fmt.Sprintf("flow %s: %v", f.Name, err))
		}
	case config.KindRR:
		fl.rr, fl.kindErr = readKindLog(path, results.ReadRRFile)
	case config.KindCBR:
		fl.cbr, fl.kindErr = readKindLog(path, results.ReadCBRFile)
	}
	return fl
}

// readKindLog reads a flow's per-kind log: nil without error when there is
// none, an empty slice when it is there but empty.
func readKindLog[T any](path string, read func(string) ([]T, error)) ([]T, error) {
	rows, err := read(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case rows == nil:
		return []T{}, nil
	}
	return rows, nil
}
