package emu

import (
	"context"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestCalibrateReportsEmulatorCPU: one pair of calibration runs on the
// batch path reports, for each variant, the emulator's own CPU over the
// flow (more than nothing: its delay lines and samplers run; at most the
// machine) and the same per Gbit/s of the goodput it reports beside it.
func TestCalibrateReportsEmulatorCPU(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	cal, err := Calibrate(context.Background(), testConfig(t),
		CalibrateOptions{Runs: 1, Duration: 2 * time.Second, Pings: 20, Out: t.TempDir(), Binary: emuBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]struct{ cores, perGbps, mbps float64 }{
		"without PDCP": {cal.WithoutPDCP.EmulatorCores.Mean, cal.WithoutPDCP.EmulatorCoresPerGbps.Mean, cal.WithoutPDCP.ThroughputMbps.Mean},
		"with PDCP":    {cal.WithPDCP.EmulatorCores.Mean, cal.WithPDCP.EmulatorCoresPerGbps.Mean, cal.WithPDCP.ThroughputMbps.Mean},
	} {
		t.Logf("%s: %.2f Mbit/s, emulator %.3f cores, %.2f cores per Gbit/s", name, s.mbps, s.cores, s.perGbps)
		if s.cores <= 0 || s.cores > float64(runtime.NumCPU()) {
			t.Errorf("%s: emulator CPU %.3f cores, want in (0, %d]", name, s.cores, runtime.NumCPU())
		}
		if s.mbps <= 0 || math.Abs(s.perGbps-s.cores/(s.mbps/1000)) > 0.01*s.perGbps { // the figures are rounded to 3 decimals
			t.Errorf("%s: %.3f cores per Gbit/s at %.2f Mbit/s and %.3f cores", name, s.perGbps, s.mbps, s.cores)
		}
	}
	if want := cal.WithPDCP.EmulatorCoresPerGbps.Mean - cal.WithoutPDCP.EmulatorCoresPerGbps.Mean; math.Abs(cal.AddedCoresPerGbps-want) > 0.001 {
		t.Errorf("added %.3f cores per Gbit/s, want %.3f", cal.AddedCoresPerGbps, want)
	}
}
