package pdcp

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
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

// Scheduler kinds.
const (
	KindBatch         = "batch"          // batches of N split a:b (the paper's)
	KindDuplicate     = "duplicate"      // every PDU on both links
	KindWeighted      = "weighted"       // per-PDU ratio a:b, smooth weighted round robin
	KindSmallestDelay = "smallest-delay" // the link whose queue/rate + delay is lowest now
	KindActiveStandby = "active-standby" // the active link while it is up, else the standby
	KindAdaptive      = "adaptive"       // batches of N split by the links' current rates
	// KindCredit sends each PDU, among the legs whose flow-control credit
	// admits it, where it arrives first (creditScheduler). It needs flow
	// control: without a FlowControl's Wrap every leg admits and it is
	// smallest-delay.
	KindCredit = "credit"
)

// SchedulerKinds lists the valid SchedulerConfig.Kind values, default
// first. It is the one list: the configuration's key table and its
// documentation take it from here.
func SchedulerKinds() []string {
	return []string{KindBatch, KindDuplicate, KindWeighted, KindSmallestDelay, KindActiveStandby, KindAdaptive, KindCredit}
}

// Defaults of the DC parameters (the paper's testbed).
const (
	DefaultBatch       = 100
	DefaultSNBits      = SNBits12
	DefaultTReordering = 200 * time.Millisecond
)

// SchedulerConfig configures a Scheduler. Field comments give the default
// for the zero value and the valid range; WithDefaults fills the defaults
// and Validate checks the ranges, each in one place (as quic-go's
// populateConfig and validateConfig).
type SchedulerConfig struct {
	// Kind is one of SchedulerKinds(); "" means batch.
	Kind string
	// Batch is the batch size N in PDUs for batch and adaptive; 0 means
	// DefaultBatch; otherwise at least 1.
	Batch int
	// Split is the ratio a:b of PDUs on link 0 and link 1 for batch and
	// weighted, and adaptive's ratio until a link rate is known; the zero
	// value means 1:1. See ParseSplit.
	Split Split
	// Active is the link active-standby prefers: 0 (default) or 1.
	Active int
}

// DefaultSchedulerConfig is the paper's scheduler: batches of DefaultBatch
// split 1:1.
func DefaultSchedulerConfig() SchedulerConfig { return SchedulerConfig{}.WithDefaults() }

// WithDefaults returns c with its zero fields set to their defaults.
func (c SchedulerConfig) WithDefaults() SchedulerConfig {
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

// Validate reports the first field of c out of its range, as a
// *FieldError. It checks c as it is, zero fields included: NewScheduler
// validates WithDefaults' result, a configuration that holds every value
// explicitly (emu/config) validates its own.
func (c SchedulerConfig) Validate() error {
	if !slices.Contains(SchedulerKinds(), c.Kind) {
		return &FieldError{Field: "Kind", Value: strconv.Quote(c.Kind),
			Err: fmt.Errorf("unknown scheduler (want one of %s)", strings.Join(SchedulerKinds(), ", "))}
	}
	if c.Batch < 1 {
		return &FieldError{Field: "Batch", Value: strconv.Itoa(c.Batch), Err: errors.New("must be at least 1")}
	}
	if err := c.Split.check(); err != nil {
		return &FieldError{Field: "Split", Value: c.Split.String(), Err: err}
	}
	if c.Active != 0 && c.Active != 1 {
		return &FieldError{Field: "Active", Value: strconv.Itoa(c.Active), Err: errors.New("must be 0 or 1")}
	}
	return nil
}

// NewScheduler returns the scheduler cfg describes with its zero fields
// defaulted, or the error Validate reports.
func NewScheduler(cfg SchedulerConfig) (Scheduler, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
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
	case KindCredit:
		return newCreditScheduler(), nil
	}
	return &batch{n: uint64(cfg.Batch), q0: float64(cfg.Batch) * cfg.Split.Share0()}, nil
}
