package results

import "testing"

// TestSeriesNamesRoundTrip: every column a constructor builds reads back
// to its flow or link direction, and no other column does.
func TestSeriesNamesRoundTrip(t *testing.T) {
	for _, q := range []string{SeriesGoodput, SeriesRTT, SeriesOWD, SeriesLatency} {
		col := FlowSeries("dc.1", q)
		if f, ok := SeriesFlow(col, q); !ok || f != "dc.1" {
			t.Errorf("SeriesFlow(%q, %q) = %q, %v; want dc.1", col, q, f, ok)
		}
		if _, ok := SeriesDir(col, q); ok {
			t.Errorf("SeriesDir(%q, %q) took a flow's column", col, q)
		}
	}
	for _, q := range []string{SeriesCapacity, SeriesThroughput, SeriesQueueBytes, SeriesQueueDelay, SeriesLateMax, SeriesTraceDelay} {
		col := DirSeries("link2.up", q)
		if d, ok := SeriesDir(col, q); !ok || d != "link2.up" {
			t.Errorf("SeriesDir(%q, %q) = %q, %v; want link2.up", col, q, d, ok)
		}
		if _, ok := SeriesFlow(col, q); ok {
			t.Errorf("SeriesFlow(%q, %q) took a link's column", col, q)
		}
	}
	if _, ok := SeriesDir(PDCPBufferSeries("down"), "buffer_pkts"); ok {
		t.Error("SeriesDir took the PDCP buffer column")
	}
	if got := FlowSeries("a", SeriesGoodput); got != FlowGoodput("a") {
		t.Errorf("a flow's goodput column %q and its metric %q differ", got, FlowGoodput("a"))
	}
}
