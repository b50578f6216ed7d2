package pdcp

import (
	"fmt"
	"strings"
	"time"
)

// Scheduler chooses the link(s) for each PDU on the transmit side. It is
// not safe for concurrent use: it belongs to the goroutine that runs the
// transmit queue. Pick does not allocate.
type Scheduler interface {
	// Pick returns the link(s) for the PDU with COUNT count and size bytes,
	// sent at now (any monotonic clock; only differences matter).
	Pick(count uint64, size int, now time.Duration) Links
	// SetLinkState tells the scheduler the current state of link i (0 or 1).
	// Schedulers that do not adapt ignore it.
	SetLinkState(i int, s LinkState)
}

// Scheduler kinds (dc.scheduler).
const (
	KindBatch         = "batch"          // batches of N split a:b (the paper's)
	KindDuplicate     = "duplicate"      // every PDU on both links
	KindWeighted      = "weighted"       // per-PDU ratio a:b, smooth weighted round robin
	KindSmallestDelay = "smallest-delay" // the link whose queue/rate + delay is lowest now
	KindActiveStandby = "active-standby" // the active link while it is up, else the standby
	KindAdaptive      = "adaptive"       // batches of N split by the links' current rates
)

// SchedulerKinds lists the valid dc.scheduler values, default first.
func SchedulerKinds() []string {
	return []string{KindBatch, KindDuplicate, KindWeighted, KindSmallestDelay, KindActiveStandby, KindAdaptive}
}

// Defaults of the DC parameters (the paper's testbed).
const (
	DefaultBatch       = 100
	DefaultSNBits      = SNBits12
	DefaultTReordering = 200 * time.Millisecond
)

// SchedulerConfig configures a Scheduler. Field comments give the
// user-facing key, the default for the zero value and the valid range.
type SchedulerConfig struct {
	// Kind is dc.scheduler, one of SchedulerKinds(); "" means batch.
	Kind string
	// Batch is dc.batch, the batch size N in PDUs for batch and adaptive;
	// 0 means 100; otherwise at least 1.
	Batch int
	// Split is dc.split, the ratio a:b of PDUs on link 0 and link 1 for
	// batch and weighted, and adaptive's ratio until a link rate is known;
	// the zero value means 1:1. See ParseSplit.
	Split Split
	// Active is dc.active, the link active-standby prefers: 0 (default) or 1.
	Active int
}

// withDefaults fills the zero values.
func (c SchedulerConfig) withDefaults() SchedulerConfig {
	if c.Kind == "" {
		c.Kind = KindBatch
	}
	if c.Batch == 0 {
		c.Batch = DefaultBatch
	}
	if c.Split == (Split{}) {
		c.Split = Split{1, 1}
	}
	return c
}

// Validate reports the first invalid field, naming its dc. key.
func (c SchedulerConfig) Validate() error {
	c = c.withDefaults()
	valid := false
	for _, k := range SchedulerKinds() {
		valid = valid || c.Kind == k
	}
	if !valid {
		return fmt.Errorf("dc.scheduler: %q: unknown scheduler (want one of %s)", c.Kind, strings.Join(SchedulerKinds(), ", "))
	}
	if c.Batch < 1 {
		return fmt.Errorf("dc.batch: %d: must be at least 1", c.Batch)
	}
	if err := c.Split.check(); err != nil {
		return fmt.Errorf("dc.split: %s: %w", c.Split, err)
	}
	if c.Active != 0 && c.Active != 1 {
		return fmt.Errorf("dc.active: %d: must be 0 or 1", c.Active)
	}
	return nil
}

// NewScheduler returns the scheduler cfg describes, or the error Validate
// reports.
func NewScheduler(cfg SchedulerConfig) (Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	switch cfg.Kind {
	case KindDuplicate:
		return duplicate{}, nil
	case KindWeighted:
		return newWeighted(cfg.Split), nil
	case KindSmallestDelay:
		return &smallestDelay{}, nil
	case KindActiveStandby:
		return &activeStandby{active: cfg.Active}, nil
	case KindAdaptive:
		return &adaptive{n: uint64(cfg.Batch), fallback: cfg.Split}, nil
	}
	return &batch{n: uint64(cfg.Batch), q0: float64(cfg.Batch) * cfg.Split.share0()}, nil
}
