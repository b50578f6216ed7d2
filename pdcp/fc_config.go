package pdcp

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// HoldPolicy is what the PDCP host does with an SDU when flow control gives
// no leg credit for it.
type HoldPolicy string

const (
	// HoldWhenFull keeps the SDU, without an SN, in the host's bounded
	// buffer until a report gives a leg credit for it (the caller's buffer;
	// what overflows it is dropped).
	HoldWhenFull HoldPolicy = "hold"
	// DropWhenFull drops the SDU before it gets an SN, as srsRAN's CU-UP
	// does (and the OAI fork's budget check): no COUNT is used, so the
	// receiver has no hole to wait out with t-Reordering.
	DropWhenFull HoldPolicy = "drop"
)

// HoldPolicies lists the valid FlowControlConfig.WhenFull values, default
// first, for the configuration's key table and documentation.
func HoldPolicies() []string { return []string{string(HoldWhenFull), string(DropWhenFull)} }

// Defaults and limits of FlowControlConfig.
const (
	DefaultFCInterval = 10 * time.Millisecond // srsRAN's DDDS timer
	// MinFCBuffer is the smallest Buffer that turns flow control on: one
	// PDU on a 1500 B MTU link. A PDU larger than the buffer never gets
	// credit (it waits for ever, or is dropped).
	MinFCBuffer = 1500
	// MinFCInterval is the shortest report interval, far below any real
	// DU's (10–20 ms) and above a report per packet.
	MinFCInterval = time.Millisecond
	// MaxFCBufferTime bounds BufferTime: t-Reordering's largest NR value,
	// beyond which a leg's queue outlasts any receiver's patience.
	MaxFCBufferTime = 3 * time.Second
)

// FlowControlConfig configures DC flow control (TS 38.425 §5.4.2.1): each
// leg reports a desired buffer size (DBS) and the PDCP host sends a leg no
// more than that beyond what the leg reported delivered (FlowControl,
// Reporter). Field comments give the default for the zero value and the
// valid range; WithDefaults and Validate each do their part in one place,
// as for SchedulerConfig.
type FlowControlConfig struct {
	// Buffer is each leg's buffer in bytes, the cap on its DBS: a leg's
	// Reporter reports DBS = Buffer − queued bytes (at least 0), and a Leg
	// starts with Buffer as its DBS, as if the leg had reported an empty
	// queue at the start. 0 means flow control is off unless BufferTime
	// is set (Enabled); otherwise at least MinFCBuffer and at most
	// 2^32 − 1 (the DBS field's range).
	Buffer int
	// BufferTime, instead of Buffer, gives each leg's buffer as a time at
	// the leg's current rate (BufferAt): a leg whose rate collapses wants
	// less, and a leg that is down (rate 0) wants nothing, so its DBS is
	// 0 and the host stops it. A leg starts with no credit until its
	// first report. 0 means Buffer gives it; at most MaxFCBufferTime.
	BufferTime time.Duration
	// Interval is the time between a leg's periodic reports; 0 means
	// DefaultFCInterval (10 ms); at least MinFCInterval. A report is also
	// sent at once when the DBS reaches or leaves 0.
	Interval time.Duration
	// Delay is how long a report takes to reach the PDCP host (the caller
	// applies it); 0, the default, means at once; not negative.
	Delay time.Duration
	// WhenFull is one of HoldPolicies(): what the host does with an SDU no
	// leg has credit for; "" means "hold".
	WhenFull string
}

// WithDefaults returns c with its zero fields set to their defaults; a zero
// Buffer stays 0 (flow control off).
func (c FlowControlConfig) WithDefaults() FlowControlConfig {
	if c.Interval == 0 {
		c.Interval = DefaultFCInterval
	}
	if c.WhenFull == "" {
		c.WhenFull = string(HoldWhenFull)
	}
	return c
}

// Enabled reports whether c turns flow control on (Buffer or BufferTime
// above 0).
func (c FlowControlConfig) Enabled() bool { return c.Buffer > 0 || c.BufferTime > 0 }

// BufferAt is a leg's buffer in bytes while its rate is rateBps (bit/s):
// Buffer, or BufferTime's worth of the rate, at least MinFCBuffer while the
// rate is above 0 and 0 when it is not, at most 2^32 − 1.
func (c FlowControlConfig) BufferAt(rateBps float64) int {
	if c.BufferTime <= 0 {
		return c.Buffer
	}
	if !(rateBps > 0) {
		return 0
	}
	b := rateBps / 8 * c.BufferTime.Seconds()
	return int(min(max(b, MinFCBuffer), math.MaxUint32))
}

// Policy returns WhenFull as a HoldPolicy ("" is HoldWhenFull).
func (c FlowControlConfig) Policy() HoldPolicy {
	if c.WhenFull == "" {
		return HoldWhenFull
	}
	return HoldPolicy(c.WhenFull)
}

// Validate reports the first field of c out of its range as a *FieldError
// naming it (Buffer, BufferTime, Interval, Delay, WhenFull). It checks c
// as it is, zero fields included; NewFlowControl validates WithDefaults'
// result.
func (c FlowControlConfig) Validate() error {
	if c.Buffer != 0 && (c.Buffer < MinFCBuffer || int64(c.Buffer) > math.MaxUint32) {
		return &FieldError{Field: "Buffer", Value: strconv.Itoa(c.Buffer),
			Err: fmt.Errorf("must be 0 (off) or %d to %d bytes", MinFCBuffer, uint32(math.MaxUint32))}
	}
	if c.BufferTime < 0 || c.BufferTime > MaxFCBufferTime {
		return &FieldError{Field: "BufferTime", Value: c.BufferTime.String(),
			Err: fmt.Errorf("must be 0 (Buffer gives it) to %v", MaxFCBufferTime)}
	}
	if c.Buffer != 0 && c.BufferTime != 0 {
		return &FieldError{Field: "BufferTime", Value: c.BufferTime.String(),
			Err: errors.New("set the buffer in bytes (Buffer) or as a time (BufferTime), not both")}
	}
	if c.Interval < MinFCInterval {
		return &FieldError{Field: "Interval", Value: c.Interval.String(),
			Err: fmt.Errorf("must be at least %v", MinFCInterval)}
	}
	if c.Delay < 0 {
		return &FieldError{Field: "Delay", Value: c.Delay.String(), Err: errors.New("must not be negative")}
	}
	if !slices.Contains(HoldPolicies(), c.WhenFull) {
		return &FieldError{Field: "WhenFull", Value: strconv.Quote(c.WhenFull),
			Err: fmt.Errorf("want one of %s", strings.Join(HoldPolicies(), ", "))}
	}
	return nil
}
