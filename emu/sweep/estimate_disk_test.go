package sweep

import (
	"math"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// TestEstimateRunDisk checks the disk model against run directories of the
// development VM: an ngtcp2 20 MB download left 15.5 MB with its qlogs
// kept, a TCP one 0.16 MB, and a 60 s ngtcp2 fairness run's six qlogs were
// 204 MB (10.3 MB gzipped) beside 2 MB of receive logs.
func TestEstimateRunDisk(t *testing.T) {
	mb := func(b float64) float64 { return b / 1e6 }
	for _, tc := range []struct {
		name   string
		sc     string
		sets   []string
		q      results.QlogPolicy
		lo, hi float64 // MB
	}{
		{"ngtcp2 20 MB, kept", "throughput", []string{"link.trace=none", "flow.size=20MB", "flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2"}, results.QlogsKeep, 14, 18},
		{"ngtcp2 20 MB, gzip", "throughput", []string{"link.trace=none", "flow.size=20MB", "flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2"}, results.QlogsGzip, 0.9, 2},
		{"tcp 20 MB: no qlog", "throughput", []string{"link.trace=none", "flow.size=20MB", "flow.proto=tcp"}, results.QlogsKeep, 0.3, 1},
		{"fairness 60 s, kept", "fairness", []string{"link.trace=none", "flow.duration=60s", "flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2"}, results.QlogsKeep, 150, 260},
		{"fairness 60 s, gzip", "fairness", []string{"link.trace=none", "flow.duration=60s", "flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2"}, results.QlogsGzip, 8, 20},
		{"fairness 60 s, drop", "fairness", []string{"link.trace=none", "flow.duration=60s"}, results.QlogsDrop, 3, 8},
	} {
		got := mb(EstimateRunDisk(resolved(t, tc.sc, tc.sets...), tc.q))
		if got < tc.lo || got > tc.hi || math.IsNaN(got) {
			t.Errorf("%s: %.2f MB, want %g–%g", tc.name, got, tc.lo, tc.hi)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for b, want := range map[float64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 12.3e6: "12 MB", 9.96e6: "10 MB", 1.6e12: "1.6 TB", 3e15: "3000 TB"} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%g) = %q, want %q", b, got, want)
		}
	}
}

func TestDiskText(t *testing.T) {
	est := func(q results.QlogPolicy) float64 {
		return map[results.QlogPolicy]float64{results.QlogsGzip: 8e9, results.QlogsKeep: 90e9, results.QlogsDrop: 3e9}[q]
	}
	if got, want := DiskText(est, "", 50e9), "expected disk use: 8.0 GB with --qlogs gzip (keep 90 GB, drop 3.0 GB); 50 GB free"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := DiskText(est, results.QlogsKeep, 50e9); got != "expected disk use: 90 GB with --qlogs keep (gzip 8.0 GB, drop 3.0 GB); 50 GB free: not enough, the sweep will stop when less than 6.0 GB is left" {
		t.Errorf("keep, not enough room: %q", got)
	}
	if got := DiskText(est, results.QlogsDrop, -1); got != "expected disk use: 3.0 GB with --qlogs drop (gzip 8.0 GB, keep 90 GB)" {
		t.Errorf("free unknown: %q", got)
	}
}
