package analysis

import (
	"os"
	"testing"
)

// TestQlogCountsAcks: the ACK frames a side sent and the packets with
// stream data it received, as counted independently from the ngtcp2
// client fixture (the ACK threshold's figures).
func TestQlogCountsAcks(t *testing.T) {
	f, err := os.Open("testdata/ngtcp2-client.qlog")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := AnalyzeQlog(f, "ngtcp2-client.qlog", QlogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Totals.AckFramesSent != 160 || a.Totals.DataPacketsReceived != 1502 {
		t.Errorf("ACK frames sent %d, data packets received %d; want 160 and 1502", a.Totals.AckFramesSent, a.Totals.DataPacketsReceived)
	}
}
