package results

import (
	"math"
	"net/netip"
	"strings"
	"testing"
)

// subflowLog is a TCP_INFO log of an MPTCP connection: subflow 1 over
// link1 from 0.05 s, subflow 2 over link2 from 0.15 s, which stops being
// sampled after 0.25 s (it closed).
const subflowLog = TCPInfoHeader + `
0.050000,1,10.0.0.1:8443,10.2.3.2:4000,20.000,1.000,20.000,14480,0,0,1000,0,0,0,,,cubic
0.150000,1,10.0.0.1:8443,10.2.3.2:4000,22.000,1.000,20.000,28960,0,125000,130000,5000,2,0,,,cubic
0.150000,2,10.0.0.1:8443,10.2.4.2:4001,30.000,1.000,30.000,14480,0,0,2000,0,0,0,,,cubic
0.250000,1,10.0.0.1:8443,10.2.3.2:4000,24.000,1.000,20.000,43440,0,375000,380000,5000,2,0,,,cubic
0.250000,2,10.0.0.1:8443,10.2.4.2:4001,40.000,1.000,30.000,28960,0,125000,126000,0,0,0,,,cubic
0.350000,1,10.0.0.1:8443,10.2.3.2:4000,26.000,1.000,20.000,43440,0,500000,505000,5000,3,0,,,cubic
`

func readSubflowLog(t *testing.T) []TCPInfoRow {
	t.Helper()
	rows, err := ReadTCPInfo(strings.NewReader(subflowLog), "log")
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func linkByAddr(a netip.Addr) string {
	switch a.String() {
	case "10.2.3.2":
		return "link1"
	case "10.2.4.2":
		return "link2"
	}
	return ""
}

func TestSubflowsSummarisesEachSubflow(t *testing.T) {
	sfs, tot := Subflows(readSubflowLog(t), linkByAddr)
	if len(sfs) != 2 {
		t.Fatalf("%d subflows, want 2: %+v", len(sfs), sfs)
	}
	a, b := sfs[0], sfs[1]
	if a.ID != 1 || a.Link != "link1" || a.Remote != "10.2.3.2:4000" || a.Local != "10.0.0.1:8443" || a.CC != "cubic" ||
		a.BytesAcked != 500000 || a.BytesSent != 505000 || a.BytesRetrans != 5000 || a.TotalRetrans != 3 ||
		a.MaxCwndBytes != 43440 || a.FirstS != 0.05 || a.LastS != 0.35 {
		t.Errorf("subflow 1: %+v", a)
	}
	if a.SRTTMs.P50 != 22 || a.SRTTMs.P95 != 26 || a.SRTTMs.N != 4 {
		t.Errorf("subflow 1 srtt: %+v", a.SRTTMs)
	}
	if b.ID != 2 || b.Link != "link2" || b.BytesAcked != 125000 || b.LastS != 0.25 || b.SRTTMs.P95 != 40 {
		t.Errorf("subflow 2: %+v", b)
	}
	if a.Share != 0.8 || b.Share != 0.2 {
		t.Errorf("shares %v, %v; want 0.8, 0.2", a.Share, b.Share)
	}
	want := SubflowTotals{Subflows: 2, BytesAcked: 625000, BytesSent: 631000, BytesRetrans: 5000, TotalRetrans: 3}
	if tot != want {
		t.Errorf("totals %+v, want %+v", tot, want)
	}
}

func TestSubflowsOfPlainTCPAreNone(t *testing.T) {
	rows := []TCPInfoRow{{T: 0.1, Subflow: 0, BytesAcked: 10}}
	if sfs, tot := Subflows(rows, linkByAddr); len(sfs) != 0 || tot.Subflows != 0 {
		t.Errorf("plain TCP log gave subflows %+v, %+v", sfs, tot)
	}
}

func TestSubflowSeriesBinsEachSubflow(t *testing.T) {
	ends := []float64{0.1, 0.2, 0.3, 0.4}
	header, cols := SubflowSeries("mp", readSubflowLog(t), ends, 0.1)
	wantHeader := "flow.mp.sf1.mbps,flow.mp.sf1.srtt_ms,flow.mp.sf1.cwnd_bytes,flow.mp.sf1.retrans," +
		"flow.mp.sf2.mbps,flow.mp.sf2.srtt_ms,flow.mp.sf2.cwnd_bytes,flow.mp.sf2.retrans"
	if got := strings.Join(header, ","); got != wantHeader {
		t.Fatalf("header %s", got)
	}
	nan := math.NaN()
	want := [][]float64{
		{0, 10, 20, 10},  // sf1 Mbit/s: 125 kB, 250 kB, 125 kB per 0.1 s
		{20, 22, 24, 26}, // sf1 srtt
		{14480, 28960, 43440, 43440},
		{0, 2, 2, 3},
		{0, 0, 10, 0},      // sf2: nothing before its first sample
		{nan, 30, 40, nan}, // no sample after 0.25 s
		{nan, 14480, 28960, nan},
		{0, 0, 0, 0},
	}
	for i := range want {
		for k := range want[i] {
			g, w := cols[i][k], want[i][k]
			if !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("%s bin %d = %v, want %v", header[i], k, g, w)
			}
		}
	}
}
