package emu

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/analysis/qlog"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
	"github.com/dc-emu/emu/internal/invoker"
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

// readFlowDelays reads the delay series of flow i: RTT from its server's
// TCP_INFO log (TCP) or the sender's qlog (QUIC, sampled at
// run.tcpinfo_interval), one-way delay from its client's log. A log that
// is missing gives an empty series; one that is unreadable, a warning too.
func (r *runner) readFlowDelays(i int) flowDelays {
	f := r.cfg.Flows[i]
	var d flowDelays
	warn := func(err error) {
		if !errors.Is(err, os.ErrNotExist) {
			r.em.Warnings = append(r.em.Warnings, fmt.Sprintf("flow %s: %v", f.Name, err))
		}
	}
	if f.Proto == "tcp" {
		rows, err := readLog(r.file(results.TCPInfoFile(f.Name)), results.ReadTCPInfo)
		if err != nil {
			warn(err)
		}
		d.rtt = analysis.TCPInfoSeries(rows)
	} else {
		for _, side := range []string{"server", "client"} {
			a, err := readQlog(r.file(results.QlogFile(f.Name, side)))
			if err != nil {
				warn(err)
			}
			if a == nil {
				continue
			}
			// quic-go anchors its qlog to the wall clock; ngtcp2's starts
			// when the connection does, about the flow's start.
			offset := f.Start.Seconds()
			if !a.WallClock.IsZero() {
				offset = a.WallClock.Sub(r.em.Epoch).Seconds()
			}
			if d.rtt = analysis.QlogSRTTSeries(a, r.cfg.Observe.TCPInfoInterval, offset); d.rtt.Len() > 0 {
				break // the sender's, else the client's own estimate
			}
		}
	}
	{ // written by the client, or the server of an upload
		rows, err := results.ReadOWDFile(r.file(results.OWDFile(f.Name)))
		if err != nil {
			warn(err)
		}
		d.owd = analysis.OWDSeries(rows)
	}
	return d
}

// readQlog analyses a qlog file; a file cut short still gives its
// complete records.
func readQlog(path string) (*analysis.ConnAnalysis, error) {
	a, err := readLog(path, func(r io.Reader, name string) (*analysis.ConnAnalysis, error) {
		return analysis.AnalyzeQlog(r, name, analysis.QlogOptions{})
	})
	if errors.Is(err, qlog.ErrTruncated) {
		return a, nil
	}
	return a, err
}

// readLog reads the log at path with read, which names it by its path in
// errors (results.ReadFlowSamples, results.ReadTCPInfo, a qlog analysis).
func readLog[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	f, err := invoker.Open(path) // the user's run directory: as the user
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f, path)
}

// tcpInfoRows reads the server's TCP_INFO log of flow f; nil without
// error when the flow has none (not MPTCP, or it never connected).
func (r *runner) tcpInfoRows(f config.Flow) ([]results.TCPInfoRow, error) {
	if f.Path != config.PathMPTCP {
		return nil, nil
	}
	path := r.file(results.TCPInfoFile(f.Name))
	fh, err := invoker.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return results.ReadTCPInfo(fh, filepath.FromSlash(results.TCPInfoFile(f.Name)))
}

// kindLog is flow f's per-kind log in the run directory: flows/<flow>.rr.csv,
// .cbr.csv or .objects.csv; "" for a bulk flow.
func kindLog(out string, f config.Flow) string {
	if f.Kind == config.KindBulk {
		return ""
	}
	return results.RunDir(out).File(results.KindLogFile(f.Name, f.Kind))
}
