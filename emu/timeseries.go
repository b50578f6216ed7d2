package emu

import (
	"errors"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/results"
)

// seriesTable is the run's timeseries.csv, one row per bin of
// results.BinWidth: each flow's goodput, each link direction's capacity,
// throughput, backlog and queueing delay (queue, from linkResults), its
// delay line's lateness and its delay trace where it has them, what the
// PDCP receivers held, then each flow's RTT and one-way delay, an MPTCP
// flow's subflows and the rr and cbr flows' figures. Nil when nothing was
// measured; an error when a log the table needs could not be read.
func seriesTable(rec *record, queue []linkstats.QueueDelay) (*results.SeriesTable, error) {
	end := time.Duration(0)
	for _, d := range rec.dirs {
		if n := len(d.samples); n > 0 {
			end = max(end, d.samples[n-1].T)
		}
	}
	if len(rec.pdcpHeld) == 0 && end == 0 {
		return nil, nil
	}
	if n := len(rec.pdcpHeld); n > 0 {
		end = max(end, rec.pdcpHeld[n-1].T)
	}
	var errs []error
	t := &results.SeriesTable{Header: []string{results.SeriesTime}}
	for i, f := range rec.cfg.Flows {
		t.Header = append(t.Header, results.FlowSeries(f.Name, results.SeriesGoodput))
		errs = append(errs, rec.flows[i].recvErr)
	}
	for _, d := range rec.dirs {
		t.Header = append(t.Header, results.DirSeries(d.name, results.SeriesCapacity), results.DirSeries(d.name, results.SeriesThroughput),
			results.DirSeries(d.name, results.SeriesQueueBytes), results.DirSeries(d.name, results.SeriesQueueDelay))
		if d.delayLine {
			t.Header = append(t.Header, results.DirSeries(d.name, results.SeriesLateMax))
		}
		if _, ok := d.traceDelay(0, 0); ok {
			t.Header = append(t.Header, results.DirSeries(d.name, results.SeriesTraceDelay))
		}
	}
	for _, name := range rec.pdcpDirs {
		t.Header = append(t.Header, results.PDCPBufferSeries(name))
	}
	credit := creditDirs(rec)
	for _, i := range credit {
		for _, l := range []string{config.PathLink1, config.PathLink2} {
			t.Header = append(t.Header, results.PDCPCreditSeries(rec.pdcpDirs[i], l))
		}
	}
	bin := results.BinWidth
	bins := int((end + bin - 1) / bin)
	for k := range bins {
		from, to := time.Duration(k)*bin, time.Duration(k+1)*bin
		row := []float64{results.Round3(to.Seconds())}
		for _, fl := range rec.flows {
			got := results.BytesAt(fl.recv, to.Seconds()) - results.BytesAt(fl.recv, from.Seconds())
			row = append(row, results.Round3(float64(got)*8/bin.Seconds()/1e6))
		}
		for i, d := range rec.dirs {
			var q linkstats.QueueDelay
			if i < len(queue) {
				q = queue[i]
			}
			thr := (ipSentAt(d.samples, to) - ipSentAt(d.samples, from)) * 8 / bin.Seconds() / 1e6
			row = append(row, results.Round3(d.capacity(from, to)/1e6), results.Round3(thr), float64(backlogAt(d.samples, to)), binQueueDelay(q, k))
			if d.delayLine {
				row = append(row, latePeakIn(d.samples, from, to))
			}
			if v, ok := d.traceDelay(from, to); ok {
				row = append(row, results.Round3(v))
			}
		}
		for i := range rec.pdcpDirs {
			v := 0.0
			if len(rec.pdcpHeld) > 0 {
				if s := pdcpAt(rec.pdcpHeld, to); i < len(s.PDCP) {
					v = float64(s.PDCP[i])
				}
			}
			row = append(row, v)
		}
		if len(credit) > 0 {
			s := pdcpAt(rec.pdcpHeld, to)
			for _, i := range credit {
				for l := range 2 {
					v := 0.0
					if i < len(s.Credit) && l < len(s.Credit[i]) {
						v = float64(s.Credit[i][l])
					}
					row = append(row, v)
				}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	addDelayColumns(t, rec)
	for _, fl := range rec.flows {
		errs = append(errs, fl.infoErr, fl.kindErr)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	addSubflowSeries(t, rec)
	workColumns(t, rec)
	return t, nil
}

// addDelayColumns appends flow.<name>.rtt_ms and flow.<name>.owd_ms
// (per-bin means, empty where a bin has no sample).
func addDelayColumns(t *results.SeriesTable, rec *record) {
	for i, f := range rec.cfg.Flows {
		d := rec.flows[i].delays
		for _, c := range []struct {
			name string
			s    analysis.DelaySeries
		}{{results.SeriesRTT, d.rtt}, {results.SeriesOWD, d.owd}} {
			t.Header = append(t.Header, results.FlowSeries(f.Name, c.name))
			means := c.s.BinMeans(results.BinWidth, len(t.Rows))
			for k := range t.Rows {
				t.Rows[k] = append(t.Rows[k], round3(means[k]))
			}
		}
	}
}

// addSubflowSeries appends the subflows' columns of every MPTCP flow
// (the table's rows start with their bin's end).
func addSubflowSeries(t *results.SeriesTable, rec *record) {
	ends := make([]float64, len(t.Rows))
	for k, row := range t.Rows {
		ends[k] = row[0]
	}
	for i, f := range rec.cfg.Flows {
		header, cols := results.SubflowSeries(f.Name, rec.flows[i].tcpInfo, ends, results.BinWidth.Seconds())
		t.Header = append(t.Header, header...)
		for _, c := range cols {
			for k := range t.Rows {
				t.Rows[k] = append(t.Rows[k], c[k])
			}
		}
	}
}

// workColumns are the per-kind columns: an rr flow's mean transaction
// latency (by request time) and a cbr flow's mean one-way delay (by
// arrival), per bin; empty where nothing happened.
func workColumns(t *results.SeriesTable, rec *record) {
	for i, f := range rec.cfg.Flows {
		fl := &rec.flows[i]
		var at []time.Duration
		var v []float64
		var name string
		switch {
		case f.Kind == config.KindRR && fl.rr != nil:
			for _, row := range fl.rr {
				at, v = append(at, row.T), append(v, float64(row.Latency)/1e6)
			}
			name = results.FlowSeries(f.Name, results.SeriesLatency)
		case f.Kind == config.KindCBR && fl.cbr != nil:
			for _, p := range fl.cbr {
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
		means := results.BinMeans(at, v, len(t.Rows), results.BinWidth)
		for k := range t.Rows {
			if col < 0 {
				t.Rows[k] = append(t.Rows[k], round3(means[k]))
			} else {
				t.Rows[k][col] = round3(means[k])
			}
		}
	}
}

// round3 rounds v to three decimals, leaving NaN (an empty cell) as it is.
func round3(v float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	return results.Round3(v)
}

// pdcpSample is how many packets each PDCP receive proxy held at T since
// the epoch, per direction in use; the run takes one every 100 ms
// (runloop.SampleLinks). The rate limiters have their own series, read
// every 10 ms (link.Sampler).
type pdcpSample struct {
	T    time.Duration
	PDCP []int
	// Credit is each direction's legs' flow-control credit in bytes (nil
	// for a direction without flow control).
	Credit [][]int
}

// creditDirs returns the indices of the PDCP directions with flow control:
// those whose samples carry credit.
func creditDirs(rec *record) []int {
	var out []int
	for i := range rec.pdcpDirs {
		for _, s := range rec.pdcpHeld {
			if i < len(s.Credit) && s.Credit[i] != nil {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// pdcpAt returns the last sample taken at or before t (the first one if
// none).
func pdcpAt(samples []pdcpSample, t time.Duration) pdcpSample {
	i := sort.Search(len(samples), func(i int) bool { return samples[i].T > t })
	if i == 0 {
		return samples[0]
	}
	return samples[i-1]
}
