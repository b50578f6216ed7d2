package results

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// JobsCalibration is calibration-jobs.json (emu calibrate --jobs N): what
// running 1, 2, …, N emulations at once costs on this machine, so a user
// sees where its limit is before choosing a sweep's --jobs.
type JobsCalibration struct {
	Levels []JobsLevel `json:"levels"`
	// Cores is the machine's CPU count.
	Cores  int    `json:"cores"`
	Method string `json:"method"`
}

// JobsLevel is one number of emulations run at once, over all of them.
type JobsLevel struct {
	Jobs int `json:"jobs"`
	// GoodputMbps is the loaded flow's goodput, mean ± sd over the
	// emulations; LinkMbps the rate it was offered.
	GoodputMbps MeanSD  `json:"goodput_mbps"`
	LinkMbps    float64 `json:"link_mbps"`
	// RTTMs is the idle link's probe RTT, mean ± sd over the emulations'
	// means; RTTP99Ms the highest of their 99th percentiles; Lost the
	// probes that got no answer, all emulations together.
	RTTMs    MeanSD  `json:"rtt_ms"`
	RTTP99Ms float64 `json:"rtt_p99_ms"`
	Lost     int     `json:"probes_lost"`
	// LateP99Us and LateMaxUs are the delay lines' release lateness: the
	// highest 99th percentile and the highest maximum of any delay line
	// of any of the emulations (µs; the p99 is read from the middle of
	// its histogram bin, within 6.25 %; the maximum is exact).
	LateP99Us float64 `json:"late_p99_us"`
	LateMaxUs float64 `json:"late_max_us"`
	// CPU is the machine's busy share over the level (all cores: 1 is
	// every core busy), Steal the share the hypervisor took.
	CPU   float64 `json:"cpu"`
	Steal float64 `json:"steal"`
	// Degraded counts the emulations whose run's fidelity verdict said
	// degraded (absent where runs give no verdict); Checks names the
	// checks that failed, each once.
	Degraded int      `json:"degraded"`
	Checks   []string `json:"failed_checks,omitempty"`
}

// JobsMethod says how CalibrateJobs measures, recorded with the figures.
const JobsMethod = "For N = 1, 2, …: N emulations of the same configuration at once, each with its flow over link1 through both PDCP proxies (dc.split=1:0) for the measurement window, and UDP probes (64 B, 10 ms apart) from a client on link2, which carries only them: the probes' RTT is what the delay lines of an emulation give while it and the others are loaded. Lateness: release time minus due time of every packet of every delay line. CPU and steal: /proc/stat over the level."

// WriteJobsCalibration prints a jobs calibration as a table, one row per
// number of emulations at once.
func WriteJobsCalibration(w io.Writer, c *JobsCalibration) {
	fmt.Fprintf(w, "\nEmulations at once on this machine (%d cores)\n\n", c.Cores)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "jobs\tgoodput (Mbit/s)\tof the link\tidle RTT (ms)\tRTT p99\tlost\tlate p99 (µs)\tlate max (µs)\tCPU\tsteal\tdegraded\t")
	for _, l := range c.Levels {
		share := 0.0
		if l.LinkMbps > 0 {
			share = l.GoodputMbps.Mean / l.LinkMbps
		}
		fmt.Fprintf(tw, "%d\t%.2f ± %.2f\t%.1f %%\t%.3f ± %.3f\t%.3f\t%d\t%.0f\t%.0f\t%.0f %%\t%.1f %%\t%d/%d\t\n",
			l.Jobs, l.GoodputMbps.Mean, l.GoodputMbps.SD, 100*share, l.RTTMs.Mean, l.RTTMs.SD, l.RTTP99Ms, l.Lost,
			l.LateP99Us, l.LateMaxUs, 100*l.CPU, 100*l.Steal, l.Degraded, l.Jobs)
	}
	tw.Flush()
	for _, l := range c.Levels {
		if len(l.Checks) > 0 {
			fmt.Fprintf(w, "%d at once: failed checks: %v\n", l.Jobs, l.Checks)
		}
	}
	fmt.Fprintf(w, "\nmethod: %s\n", c.Method)
}
