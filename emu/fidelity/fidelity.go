package fidelity

// Fidelity is a run's verdict, summary.json's "fidelity" object.
type Fidelity struct {
	Status Status  `json:"status"`
	Checks []Check `json:"checks"`
}

// Status is a run's or a check's verdict.
type Status string

const (
	// OK: every check passed (or had nothing to check).
	OK Status = "ok"
	// Degraded: at least one check failed: the run's figures may reflect
	// the host rather than the emulated network.
	Degraded Status = "degraded"
)

// Check is one figure against its threshold.
type Check struct {
	// Name is the kind of check, e.g. delay_line.late_p99; Subject what
	// it is about (a link direction, a thread, a flow's endpoint, host).
	Name    string `json:"name"`
	Subject string `json:"subject"`
	// Value and Threshold are in Unit; the check fails when Value is
	// beyond Threshold (above it; for rate.ratio, outside 1 ± Threshold).
	Value     float64 `json:"value"`
	Threshold float64 `json:"threshold"`
	Unit      string  `json:"unit"`
	OK        bool    `json:"ok"`
	// Skipped is set when there was nothing to judge (a rate limiter
	// that was never provably saturated); such a check is OK.
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`
}

// Failed returns the checks that failed.
func (f Fidelity) Failed() []Check {
	var out []Check
	for _, c := range f.Checks {
		if !c.OK {
			out = append(out, c)
		}
	}
	return out
}
