package pdcp

import (
	"errors"
	"testing"
	"time"
)

// TestReporter steps a fake clock through a leg's queue: a report at the
// first Poll, then every Interval, and at once when the DBS reaches or
// leaves 0, each restarting the interval.
func TestReporter(t *testing.T) {
	r, err := NewReporter(FlowControlConfig{Buffer: 10000}, SNBits12)
	if err != nil {
		t.Fatal(err)
	}
	if r.Deadline() != 0 {
		t.Errorf("first deadline %v, want 0", r.Deadline())
	}
	type want struct {
		due      bool
		dbs      uint32
		sn       uint32
		hasSN    bool
		deadline time.Duration
	}
	steps := []struct {
		at time.Duration
		q  QueueState
		want
	}{
		{0, QueueState{}, want{true, 10000, 0, false, 10 * ms}},
		{5 * ms, QueueState{Bytes: 4000, Left: 3, HasLeft: true}, want{false, 0, 0, false, 10 * ms}},
		{10 * ms, QueueState{Bytes: 4000, Left: 7, HasLeft: true}, want{true, 6000, 7, true, 20 * ms}},
		{12 * ms, QueueState{Bytes: 10000, Left: 7, HasLeft: true}, want{true, 0, 7, true, 22 * ms}}, // reaches 0
		{13 * ms, QueueState{Bytes: 12000, Left: 8, HasLeft: true}, want{false, 0, 0, false, 22 * ms}},
		{14 * ms, QueueState{Bytes: 9000, Left: 9, HasLeft: true}, want{true, 1000, 9, true, 24 * ms}}, // leaves 0
		{20 * ms, QueueState{Bytes: 500, Left: 20, HasLeft: true}, want{false, 0, 0, false, 24 * ms}},
		{24 * ms, QueueState{Bytes: 500, Left: 4096 + 5, HasLeft: true}, want{true, 9500, 5, true, 34 * ms}},
		{60 * ms, QueueState{Bytes: 0, Left: 4200, HasLeft: true}, want{true, 10000, 104, true, 70 * ms}}, // late Poll
	}
	for _, st := range steps {
		s, due := r.Poll(st.at, st.q)
		got := want{due, s.DesiredBuffer, s.HighestTransmitted, s.HasTransmitted, r.Deadline()}
		if got != st.want {
			t.Errorf("%v %+v: got %+v, want %+v", st.at, st.q, got, st.want)
		}
		if due && (s.HasDelivered || s.DesiredRate != 0 || s.Final) {
			t.Errorf("%v: report %+v carries more than DBS and the transmitted SN", st.at, s)
		}
	}
	if r.Counters != (ReporterCounters{Reports: 6, OnZero: 2}) {
		t.Errorf("counters %+v, want 6 reports, 2 on zero", r.Counters)
	}
}

func TestNewReporterErrors(t *testing.T) {
	cases := []struct {
		cfg   FlowControlConfig
		bits  int
		field string
	}{
		{FlowControlConfig{}, SNBits12, "Buffer"},
		{FlowControlConfig{Buffer: 100}, SNBits12, "Buffer"},
		{FlowControlConfig{Buffer: 5000, Interval: time.Microsecond}, SNBits12, "Interval"},
		{FlowControlConfig{Buffer: 5000}, 16, "SNBits"},
	}
	for _, tc := range cases {
		_, err := NewReporter(tc.cfg, tc.bits)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("NewReporter(%+v, %d): %v, want a *FieldError for %s", tc.cfg, tc.bits, err, tc.field)
		}
	}
}

func TestReporterAllocs(t *testing.T) {
	r, _ := NewReporter(FlowControlConfig{Buffer: 10000}, SNBits18)
	buf := make([]byte, 0, MaxDeliveryStatusLen)
	var now time.Duration
	var left uint64
	if a := testing.AllocsPerRun(1000, func() {
		now += ms
		left += 3
		if s, due := r.Poll(now, QueueState{Bytes: int(left % 12000), Left: left, HasLeft: true}); due {
			buf = AppendDeliveryStatus(buf[:0], s)
		}
	}); a != 0 {
		t.Errorf("Poll allocates %.1f times per call", a)
	}
}
