package emu

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
	"github.com/dc-emu/emu/tracefmt"
)

// constantDir is a link direction at rate bit/s whose rate limiter sent
// full-size frames at that rate for secs seconds, read every 10 ms.
func constantDir(name string, link int, up bool, rate float64, secs int) dirRecord {
	d := dirRecord{name: name, link: link, up: up,
		capacity:   func(from, to time.Duration) float64 { return rate },
		traceDelay: func(from, to time.Duration) (float64, bool) { return 0, false },
		delayJumps: func(time.Duration) tracefmt.Jumps { return tracefmt.Jumps{} },
	}
	frame := float64(linkstats.MaxFrame)
	for k := 0; k <= secs*100; k++ {
		t := time.Duration(k) * 10 * time.Millisecond
		pkts := uint64(rate / 8 / linkstats.IPMTU * t.Seconds())
		d.samples = append(d.samples, linkstats.Sample{T: t, Packets: pkts, Bytes: uint64(float64(pkts) * frame), Rate: rate, Drops: uint64(k / 100)})
	}
	return d
}

// received is a receive log of rate bytes/s for secs seconds, a line
// every 100 ms.
func received(rate float64, secs int) []results.FlowSample {
	var out []results.FlowSample
	for k := 0; k <= secs*10; k++ {
		out = append(out, results.FlowSample{TS: float64(k) / 10, Bytes: int64(rate * float64(k) / 10)})
	}
	return out
}

// testRecord is a finished run of two bulk flows (dc done, link1 failed)
// and an objects flow over two constant links.
func testRecord(t *testing.T) *record {
	t.Helper()
	cfg := testConfig(t, "flows.count=3", "flows.1.path=link1", "flows.1.proto=tcp", "flows.1.cc=cubic",
		"flows.2.path=link2", "flows.2.kind=objects", "flows.2.objects=1MB", "flows.2.count=2",
		"link.rate=20mbit", "flow.size=0", "flow.duration=3s")
	rec := &record{cfg: cfg, name: "r1", started: time.Date(2026, 12, 7, 2, 0, 0, 0, time.UTC), took: 4200 * time.Millisecond,
		outcome: runloop.OK, sampled: 10 * time.Millisecond, warnings: []string{"the network's"}}
	for i, name := range []string{"link1.down", "link1.up", "link2.down", "link2.up"} {
		rec.dirs = append(rec.dirs, constantDir(name, i/2, i%2 == 1, 20e6, 3))
	}
	done := runloop.Done{Bytes: 6e6, Complete: true, Result: endpoint.Event{Kind: endpoint.EventDone, Seconds: 3, GoodputMbps: 16}}
	rec.flows = []flowRecord{
		{state: runloop.FlowState{Bytes: 6e6, Done: &done, ServerCC: "newreno"},
			recv: received(2e6, 3)},
		{state: runloop.FlowState{Bytes: 1e6, Failure: "server exited"}},
		{objects: []results.ObjectRow{
			{Index: 0, Size: 1e6, Start: 100 * time.Millisecond, FCT: 500 * time.Millisecond, Bytes: 1e6},
			{Index: 1, Size: 1e6, Start: 1 * time.Second, FCT: 500 * time.Millisecond, Bytes: 1e6}}},
	}
	return rec
}

// TestSummarize: summary.json from a record alone: each flow's figures as
// its client reported them, a failure named, an objects flow's transfers
// against its bottleneck, the links' capacity, throughput, utilization and
// drops, the warnings in order.
func TestSummarize(t *testing.T) {
	rec := testRecord(t)
	s, _ := summarize(rec)
	if s.Run != "r1" || s.Status != results.StatusOK || s.DurationS != 4.2 || len(s.Flows) != 3 {
		t.Fatalf("summary %+v", s)
	}
	dc, l1, obj := s.Flows[0], s.Flows[1], s.Flows[2]
	if dc.GoodputMbps != 16 || !dc.Complete || dc.Bytes != 6e6 || dc.CC != "newreno" || dc.Kind != "bulk" {
		t.Errorf("dc: %+v", dc)
	}
	if l1.Error != "server exited" || l1.Bytes != 1e6 || l1.CC != "cubic" || l1.GoodputMbps != 0 {
		t.Errorf("link1: %+v", l1)
	}
	// Each object moved 1 MB in 500 ms over link2's 20 Mbit/s: 16 Mbit/s,
	// 0.8 of the bottleneck.
	if len(obj.Objects) != 2 || math.Abs(obj.Objects[0].Utilization-0.8) > 1e-3 {
		t.Errorf("objects: %+v", obj.Objects)
	}
	// JFI over the bulk flows' goodput: 16 and 0.
	if s.JFI != 0.5 {
		t.Errorf("JFI %v, want 0.5", s.JFI)
	}
	if len(s.Links) != 4 {
		t.Fatalf("links %+v", s.Links)
	}
	for _, l := range s.Links {
		if l.CapacityMbps != 20 || math.Abs(l.Utilization-1) > 0.01 || l.Drops != 3 || l.RateSource != "constant" ||
			l.QueueDelayMs != nil && l.QueueDelayMethod != "rate limiter counters, sampled every 10ms" {
			t.Errorf("%s %s: %+v", l.Name, l.Dir, l)
		}
	}
	if len(s.Warnings) != 1 || s.Warnings[0] != "the network's" {
		t.Errorf("warnings %q", s.Warnings)
	}
	rec.outcome, rec.err = runloop.Interrupted, errors.New("interrupted")
	if s, _ := summarize(rec); s.Status != results.StatusInterrupted || s.Error != "interrupted" {
		t.Errorf("interrupted: %s %q", s.Status, s.Error)
	}
}

// TestSeriesTable: timeseries.csv from a record alone: a row per bin,
// each flow's goodput from its receive log, each direction's capacity and
// throughput; nothing without readings; a log that did not read fails it.
func TestSeriesTable(t *testing.T) {
	rec := testRecord(t)
	_, queue, _ := linkResults(rec.dirs, rec.cfg, rec.sampled)
	tab, err := seriesTable(rec, queue)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 30 || tab.Header[0] != results.SeriesTime || tab.Header[1] != results.FlowSeries("dc", results.SeriesGoodput) {
		t.Fatalf("%d rows, header %v", len(tab.Rows), tab.Header)
	}
	col := func(name string) int {
		for i, h := range tab.Header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s in %v", name, tab.Header)
		return -1
	}
	good, capa, thr := col(results.FlowSeries("dc", results.SeriesGoodput)), col(results.DirSeries("link2.down", results.SeriesCapacity)), col(results.DirSeries("link2.down", results.SeriesThroughput))
	for k, row := range tab.Rows {
		if math.Abs(row[good]-16) > 0.01 || row[capa] != 20 || math.Abs(row[thr]-20) > 0.2 {
			t.Errorf("bin %d: goodput %v, capacity %v, throughput %v", k, row[good], row[capa], row[thr])
		}
	}
	if strings.Contains(strings.Join(tab.Header, ","), "late_max") {
		t.Errorf("a late_max column without delay lines: %v", tab.Header)
	}
	rec.flows[0].recvErr = errors.New("recv log: line 3: bad")
	if _, err := seriesTable(rec, queue); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("a damaged log: %v", err)
	}
	for i := range rec.dirs {
		rec.dirs[i].samples = nil
	}
	if tab, err := seriesTable(&record{cfg: rec.cfg, dirs: rec.dirs, flows: rec.flows}, nil); tab != nil || err != nil {
		t.Errorf("no readings: %v, %v", tab, err)
	}
}
