package results

// SamplerCounters say how a run's link sampler did (counters.json
// "sampler"): how often it read the rate limiters, how many readings went
// wrong, and what its thread cost.
type SamplerCounters struct {
	IntervalMs float64 `json:"interval_ms"`
	// Rounds is how many times every direction was read; Missed the
	// deadlines skipped because a round overran; Failed the readings the
	// kernel refused; Slow those that took over 1 ms (left out of the
	// figures), MaxTookUs the longest.
	Rounds    int     `json:"rounds"`
	Missed    int     `json:"missed"`
	Failed    int     `json:"failed"`
	Slow      int     `json:"slow"`
	MaxTookUs float64 `json:"max_took_us"`
	// CPU is the sampler thread's CPU time over the wall time (1: a whole
	// core), Wait its run-queue wait likewise and MeanWaitUs per wake-up;
	// CPUPerRoundUs its CPU per round of readings.
	CPU           float64 `json:"cpu"`
	Wait          float64 `json:"wait"`
	MeanWaitUs    float64 `json:"mean_wait_us"`
	CPUPerRoundUs float64 `json:"cpu_per_round_us"`
}
