package runloop

import "time"

// Periods and timeouts of a run.
const (
	// SamplePeriod is how often the links are sampled (time series,
	// utilization).
	SamplePeriod = 100 * time.Millisecond
	// StatusPeriod is how often the live line is printed.
	StatusPeriod = time.Second
	// ReadyTimeout is how long a server may take to report ready.
	ReadyTimeout = 15 * time.Second
	// StopTimeout is how long an endpoint asked to end may take before it
	// is killed.
	StopTimeout = 5 * time.Second
)

// Plan is what a run is asked to do.
type Plan struct {
	// Epoch is the run's time zero: flows start at offsets from it, and the
	// live line counts from it.
	Epoch time.Time
	// Flows are the run's flows; events and actions name them by index.
	Flows []Flow
	// Grace is how long a started flow may go without new data, and how
	// long a run whose flows all have durations may last past their end
	// (run.grace).
	Grace time.Duration
	// Status asks for the live line (PrintStatus actions).
	Status bool
}

// Flow is one flow of a plan.
type Flow struct {
	Name string
	// Start is when the flow's client starts, from the epoch.
	Start time.Duration
	// Size is how many bytes the flow is to move; 0 when it is not
	// size-limited. The live line shows how much of it is done.
	Size int64
	// Duration is how long the flow runs; 0 when it ends by itself. When
	// every flow has one, the run has a deadline.
	Duration time.Duration
}

// deadline is when a run whose flows all have durations must be over; zero
// when some flow ends by itself (then the stall watchdog guards the run).
func (p *Plan) deadline() time.Time {
	var end time.Duration
	for _, f := range p.Flows {
		if f.Duration <= 0 {
			return time.Time{}
		}
		end = max(end, f.Start+f.Duration)
	}
	return p.Epoch.Add(end + p.Grace)
}
