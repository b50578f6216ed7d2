package results

import (
	"fmt"
	"io"
)

// MeanSD is a mean and sample standard deviation over runs.
type MeanSD struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// CalibrationSide is one variant's RTT and throughput over the runs.
type CalibrationSide struct {
	RTTMs          MeanSD `json:"rtt_ms"`
	ThroughputMbps MeanSD `json:"throughput_mbps"`
	// EmulatorCores is the CPU emu's own process took while the flow
	// ran (delay lines, proxies, players, samplers and the kernel work
	// of their system calls; not the endpoints), over the wall time;
	// EmulatorCoresPerGbps the same per Gbit/s of the flow's goodput.
	EmulatorCores        MeanSD `json:"emulator_cores"`
	EmulatorCoresPerGbps MeanSD `json:"emulator_cores_per_gbps"`
}

// Calibration is calibration.json: it reproduces the paper's Table 2 on this machine: the default
// link (20 Mbit/s, 10 ms one-way delay with 10% coefficient of variation)
// measured without and with the two PDCP proxies in the path.
type Calibration struct {
	WithoutPDCP CalibrationSide `json:"without_pdcp"`
	WithPDCP    CalibrationSide `json:"with_pdcp"`
	Runs        int             `json:"runs"`
	// What the proxies cost: RTT added and throughput lost.
	AddedRTTMs        float64 `json:"added_rtt_ms"`
	ThroughputLossPct float64 `json:"throughput_loss_pct"`
	// AddedCoresPerGbps is what the proxies add to the emulator's CPU per
	// Gbit/s of goodput (at this link's rate, where the delay lines' and
	// samplers' fixed cost weighs more than at high rates).
	AddedCoresPerGbps float64 `json:"added_cores_per_gbps"`
	Method            string  `json:"method"`
}

// CalibrationMethod says how Calibrate measures, recorded with the figures.
const CalibrationMethod = "Both variants send everything over link1 (20 Mbit/s, 10 ms ±10% one way each direction, constant rate): without PDCP the DC client is routed over link1 directly; with PDCP its traffic passes both proxies (dc.split=1:0). RTT: mean of UDP ping-pong probes (64 B, 10 ms apart) on the idle path; throughput: goodput of a quic-go download for the measurement window. Run i of both variants uses the same seed, so both see the same jitter. Emulator CPU: emu's own process (delay lines, proxies, players, samplers and the kernel work of their system calls, not the endpoints) over the flow's run, per Gbit/s of its goodput."

// WriteCalibration prints a calibration as the paper's Table 2.
func WriteCalibration(w io.Writer, c *Calibration) {
	fmt.Fprintf(w, "\nPDCP proxy overhead on this machine (%d runs each, mean ± sd)\n\n", c.Runs)
	fmt.Fprintf(w, "%-14s %-22s %-22s %s\n", "", "RTT (ms)", "throughput (Mbit/s)", "emulator CPU (cores per Gbit/s)")
	for _, r := range []struct {
		name string
		s    CalibrationSide
	}{{"without PDCP", c.WithoutPDCP}, {"with PDCP", c.WithPDCP}} {
		fmt.Fprintf(w, "%-14s %7.3f ± %-12.3f %7.2f ± %-12.2f %7.3f ± %.3f\n", r.name, r.s.RTTMs.Mean, r.s.RTTMs.SD,
			r.s.ThroughputMbps.Mean, r.s.ThroughputMbps.SD, r.s.EmulatorCoresPerGbps.Mean, r.s.EmulatorCoresPerGbps.SD)
	}
	fmt.Fprintf(w, "%-14s %+7.3f ms %19.2f%% throughput %+9.3f cores per Gbit/s\n", "proxies cost", c.AddedRTTMs, -c.ThroughputLossPct, c.AddedCoresPerGbps)
	fmt.Fprintf(w, "\npaper (Table 2): +2 ms RTT, 18.28 → 17.00 Mbit/s (−7.0%%)\n")
	fmt.Fprintf(w, "method: %s\n", c.Method)
}
