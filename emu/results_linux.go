package emu

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dc-emu/emu/analysis"
)

// sample reads every rate limiter (and the PDCP buffers) once.
func (r *runner) sample(el time.Duration) {
	s := linkSample{T: el}
	for i, d := range r.em.dirs {
		st, err := d.shaper.Stats()
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

// capacity returns a direction's mean capacity (bit/s) over [from, to).
func (d *linkDir) capacity(from, to time.Duration) float64 {
	if d.player != nil {
		return d.player.MeanRate(from, to)
	}
	return d.shape.Rate
}

// statusLine is the live line: each flow's bytes and rate since the last
// line, and the time left when the run has a deadline.
func (r *runner) statusLine(now time.Time, deadline time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%6.1fs]", now.Sub(r.em.Epoch).Seconds())
	for _, f := range r.flows {
		f.mu.Lock()
		bytes, started, finished := f.bytes, f.started, f.finished
		rate := 0.0
		if !f.statusAt.IsZero() {
			rate = float64(bytes-f.statusBytes) * 8 / now.Sub(f.statusAt).Seconds() / 1e6
		}
		f.statusBytes, f.statusAt = bytes, now
		f.mu.Unlock()
		switch {
		case !started:
			fmt.Fprintf(&b, " | %s waiting", f.Name)
		case finished:
			fmt.Fprintf(&b, " | %s done %s", f.Name, humanBytes(bytes))
		default:
			fmt.Fprintf(&b, " | %s %s %5.1f Mbit/s", f.Name, humanBytes(bytes), rate)
			if f.Size > 0 {
				fmt.Fprintf(&b, " %3.0f%%", 100*float64(bytes)/float64(f.Size))
			}
		}
	}
	if !deadline.IsZero() {
		fmt.Fprintf(&b, " | ≤%.0fs left", max(0, deadline.Sub(now).Seconds()))
	}
	return b.String()
}

// summarize turns what the run measured into its summary.
func (r *runner) summarize(runErr error) *Summary {
	s := &Summary{
		Run: filepath.Base(r.o.Out), Scenario: r.cfg.Scenario, Status: StatusOK, Seed: r.cfg.Seed,
		Started: r.started.UTC(), DurationS: round3(time.Since(r.started).Seconds()),
		Config: Values(&r.cfg), Versions: CollectVersions(),
	}
	switch {
	case errors.Is(runErr, ErrInterrupted):
		s.Status, s.Error = StatusInterrupted, runErr.Error()
	case runErr != nil:
		s.Status, s.Error = StatusFailed, runErr.Error()
	}
	var goodputs []float64
	for _, f := range r.flows {
		fr := FlowResult{Name: f.Name, Path: f.Path, Proto: f.Proto, ServerImpl: f.ServerImpl,
			ClientImpl: f.ClientImpl, CC: flowCC(f.Flow), RcvBuf: f.RcvBuf, StartS: f.Start.Seconds()}
		f.mu.Lock()
		fr.Bytes = f.bytes
		if f.serverCC != "" {
			fr.CC = f.serverCC
		}
		if f.done != nil {
			fr.Bytes, fr.Seconds, fr.GoodputMbps, fr.Complete = f.done.Bytes, f.done.Seconds, f.done.GoodputMbps, f.done.Complete
		}
		fr.Error = f.failure
		f.mu.Unlock()
		fr.Seconds, fr.GoodputMbps = round3(fr.Seconds), round3(fr.GoodputMbps)
		goodputs = append(goodputs, fr.GoodputMbps)
		s.Flows = append(s.Flows, fr)
	}
	s.JFI = round3(analysis.JFI(goodputs))
	if math.IsNaN(s.JFI) {
		s.JFI = 0
	}
	if len(r.samples) > 0 {
		last := r.samples[len(r.samples)-1]
		for i, d := range r.em.dirs {
			capacity := d.capacity(0, last.T)
			thr := float64(last.Dirs[i].ipBytes()) * 8 / last.T.Seconds()
			lr := LinkResult{Name: fmt.Sprintf("link%d", d.link+1), Dir: dirName(d.up),
				CapacityMbps: round3(capacity / 1e6), ThroughputMbps: round3(thr / 1e6), Drops: last.Dirs[i].Drops}
			if capacity > 0 {
				lr.Utilization = round3(thr / capacity)
			}
			s.Links = append(s.Links, lr)
		}
	}
	s.PDCP = r.em.pdcpCounters()
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
func flowCC(f Flow) string {
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
func (r *runner) writeResults(s *Summary) error {
	var errs []error
	if err := writeJSON(filepath.Join(r.o.Out, "summary.json"), s); err != nil {
		errs = append(errs, err)
	}
	if err := r.writeSeries(); err != nil {
		errs = append(errs, fmt.Errorf("timeseries: %w", err))
	}
	counters := map[string]any{"pdcp": r.em.pdcpCounters(), "links": r.em.linkCounters()}
	if err := writeJSON(filepath.Join(r.o.Out, "counters.json"), counters); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (r *runner) writeSeries() error {
	if len(r.samples) == 0 {
		return nil
	}
	t := &seriesTable{header: []string{"t_s"}}
	logs := make([]flowLog, len(r.flows))
	for i, f := range r.flows {
		t.header = append(t.header, "flow."+f.Name+".goodput_mbps")
		fl, err := readFlowLog(filepath.Join(r.o.Out, "flows", f.Name+".csv"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		logs[i] = fl
	}
	for _, d := range r.em.dirs {
		t.header = append(t.header, d.name+".capacity_mbps", d.name+".throughput_mbps", d.name+".queue_bytes")
	}
	pdcpDirs := r.em.pdcpDirs()
	for _, name := range pdcpDirs {
		t.header = append(t.header, "pdcp."+name+".buffer_pkts")
	}
	end := r.samples[len(r.samples)-1].T
	bins := int((end + binWidth - 1) / binWidth)
	for k := 0; k < bins; k++ {
		from, to := time.Duration(k)*binWidth, time.Duration(k+1)*binWidth
		row := []float64{round3(to.Seconds())}
		for _, fl := range logs {
			row = append(row, round3(float64(fl.bytesAt(to)-fl.bytesAt(from))*8/binWidth.Seconds()/1e6))
		}
		s0, s1 := sampleAt(r.samples, from), sampleAt(r.samples, to)
		dt := (s1.T - s0.T).Seconds()
		for i, d := range r.em.dirs {
			thr := 0.0
			if dt > 0 {
				thr = float64(s1.Dirs[i].ipBytes()-s0.Dirs[i].ipBytes()) * 8 / dt / 1e6
			}
			row = append(row, round3(d.capacity(from, to)/1e6), round3(thr), float64(s1.Dirs[i].BacklogBytes))
		}
		for i := range pdcpDirs {
			v := 0.0
			if i < len(s1.PDCP) {
				v = float64(s1.PDCP[i])
			}
			row = append(row, v)
		}
		t.rows = append(t.rows, row)
	}
	f, err := os.Create(filepath.Join(r.o.Out, "timeseries.csv"))
	if err != nil {
		return err
	}
	if err := t.write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
