package pdcp

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestFlowControlConfig(t *testing.T) {
	d := FlowControlConfig{}.WithDefaults()
	if d != (FlowControlConfig{Interval: 10 * ms, WhenFull: "hold"}) || d.Enabled() || d.Validate() != nil {
		t.Errorf("defaults %+v (enabled %v, %v): want off, 10 ms, hold", d, d.Enabled(), d.Validate())
	}
	if c := (FlowControlConfig{Buffer: 1 << 20, Interval: 20 * ms, Delay: 5 * ms, WhenFull: "drop"}); c.WithDefaults() != c ||
		!c.Enabled() || c.Policy() != DropWhenFull || c.Validate() != nil {
		t.Errorf("%+v: defaults changed it, or it is invalid: %v", c, c.Validate())
	}
	if p := (FlowControlConfig{}).Policy(); p != HoldWhenFull {
		t.Errorf(`policy of "": %q`, p)
	}
	if got := strings.Join(HoldPolicies(), ","); got != "hold,drop" {
		t.Errorf("HoldPolicies() = %s", got)
	}
	ok := FlowControlConfig{Buffer: 1 << 20}.WithDefaults()
	cases := []struct {
		edit  func(*FlowControlConfig)
		field string
		msg   string
	}{
		{func(c *FlowControlConfig) { c.Buffer = 1499 }, "Buffer", "pdcp: Buffer: must be 0 (off) or 1500 to 4294967295 bytes (got 1499)"},
		{func(c *FlowControlConfig) { c.Buffer = -1 }, "Buffer", "(got -1)"},
		{func(c *FlowControlConfig) { c.Buffer = 1 << 32 }, "Buffer", "(got 4294967296)"},
		{func(c *FlowControlConfig) { c.Interval = 0 }, "Interval", "pdcp: Interval: must be at least 1ms (got 0s)"},
		{func(c *FlowControlConfig) { c.Interval = 999 * time.Microsecond }, "Interval", "(got 999µs)"},
		{func(c *FlowControlConfig) { c.Delay = -ms }, "Delay", "pdcp: Delay: must not be negative (got -1ms)"},
		{func(c *FlowControlConfig) { c.WhenFull = "" }, "WhenFull", `pdcp: WhenFull: want one of hold, drop (got "")`},
		{func(c *FlowControlConfig) { c.WhenFull = "queue" }, "WhenFull", `(got "queue")`},
		{func(c *FlowControlConfig) { c.BufferTime = 50 * ms }, "BufferTime", "not both"},
		{func(c *FlowControlConfig) { c.Buffer, c.BufferTime = 0, -ms }, "BufferTime", "must be 0 (Buffer gives it) to 3s (got -1ms)"},
		{func(c *FlowControlConfig) { c.Buffer, c.BufferTime = 0, 4*time.Second }, "BufferTime", "(got 4s)"},
	}
	for _, tc := range cases {
		c := ok
		tc.edit(&c)
		err := c.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want a *FieldError for %s containing %q", c, err, tc.field, tc.msg)
		}
	}
	if c := (FlowControlConfig{Buffer: 0, Interval: ms, WhenFull: "drop"}); c.Validate() != nil {
		t.Errorf("flow control off is a valid configuration: %v", c.Validate())
	}
	if _, err := NewFlowControl(FlowControlConfig{}, SNBits12); err == nil || !strings.Contains(err.Error(), "Buffer: flow control is off") {
		t.Errorf("NewFlowControl with Buffer 0: %v", err)
	}
	if _, err := NewFlowControl(FlowControlConfig{Buffer: 5000}, 7); !errors.Is(err, ErrSNBits) {
		t.Errorf("NewFlowControl with 7-bit SNs: %v", err)
	}
	fc := newTestFlowControl(t, 5000, SNBits12)
	if fc.Config() != (FlowControlConfig{Buffer: 5000, Interval: 10 * ms, WhenFull: "hold"}) {
		t.Errorf("Config() = %+v, want the defaults filled in", fc.Config())
	}
}

// TestBufferAt: a buffer given as a time follows the leg's rate, never
// below one PDU while the leg is up, and is 0 while it is down; one given
// in bytes does not move.
func TestBufferAt(t *testing.T) {
	c := FlowControlConfig{BufferTime: 50 * ms}
	if !c.Enabled() || c.WithDefaults().Validate() != nil {
		t.Fatalf("%+v: enabled %v, %v", c, c.Enabled(), c.WithDefaults().Validate())
	}
	for _, tc := range []struct {
		rate float64
		want int
	}{{100e6, 625000}, {1e6, 6250}, {100e3, MinFCBuffer}, {0, 0}, {-1, 0}, {1e15, 1<<32 - 1}} {
		if got := c.BufferAt(tc.rate); got != tc.want {
			t.Errorf("BufferAt(%g) = %d, want %d", tc.rate, got, tc.want)
		}
	}
	if got := (FlowControlConfig{Buffer: 9000}).BufferAt(0); got != 9000 {
		t.Errorf("a buffer in bytes at rate 0: %d, want 9000", got)
	}
	r, err := NewReporter(c, SNBits12)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := r.Poll(0, QueueState{}); s.DesiredBuffer != 0 {
		t.Errorf("before SetRate: DBS %d, want 0", s.DesiredBuffer)
	}
	r.SetRate(100e6)
	if s, due := r.Poll(ms, QueueState{Bytes: 25000}); !due || s.DesiredBuffer != 600000 {
		t.Errorf("at 100 Mbit/s with 25000 B queued: DBS %d (due %v), want 600000 at once (left 0)", s.DesiredBuffer, due)
	}
	r.SetLimit(400000)
	if r.Buffer() != 400000 {
		t.Errorf("under a queue limit of 400000 B: buffer %d", r.Buffer())
	}
	r.SetLimit(0)
	if r.Buffer() != 625000 {
		t.Errorf("without a limit: buffer %d, want 625000", r.Buffer())
	}
	r.SetRate(0)
	if s, due := r.Poll(2*ms, QueueState{}); !due || s.DesiredBuffer != 0 {
		t.Errorf("at rate 0: DBS %d (due %v), want 0 at once", s.DesiredBuffer, due)
	}
}

// TestGate: a pick keeps the legs with credit; a single leg without
// credit moves to the other if it has some; else NoLinks.
func TestGate(t *testing.T) {
	cases := []struct {
		room [2]bool // leg has credit for the PDU
		pick Links
		want Links
	}{
		{[2]bool{true, true}, Link0, Link0},
		{[2]bool{true, true}, Link1, Link1},
		{[2]bool{true, true}, BothLinks, BothLinks},
		{[2]bool{false, true}, Link0, Link1},
		{[2]bool{true, false}, Link1, Link0},
		{[2]bool{false, true}, BothLinks, Link1},
		{[2]bool{true, false}, BothLinks, Link0},
		{[2]bool{false, false}, Link0, NoLinks},
		{[2]bool{false, false}, Link1, NoLinks},
		{[2]bool{false, false}, BothLinks, NoLinks},
		{[2]bool{true, true}, NoLinks, NoLinks},
	}
	for _, tc := range cases {
		fc := newTestFlowControl(t, 5000, SNBits12)
		for i, room := range tc.room {
			dbs := uint32(5000)
			if !room {
				dbs = 1000 * uint32(i) // 0 (stopped) or 1000 (too little)
			}
			fc.Leg(i).Report(Report{DesiredBuffer: dbs})
		}
		if got := fc.Gate(tc.pick, 1500, 0); got != tc.want {
			t.Errorf("room %v, pick %v: %v, want %v", tc.room, tc.pick, got, tc.want)
		}
		if got := fc.Admits(1500, 0); got != (tc.room[0] || tc.room[1]) {
			t.Errorf("room %v: Admits %v", tc.room, got)
		}
		if fc.Leg(0).InFlight()+fc.Leg(1).InFlight() != 0 {
			t.Errorf("Gate recorded a send")
		}
	}
	fc := newTestFlowControl(t, 5000, SNBits12)
	fc.Sent(BothLinks, 0, 1000, 0)
	fc.Sent(Link1, 1, 500, 0)
	fc.Sent(NoLinks, 2, 700, 0)
	if fc.Leg(0).InFlight() != 1000 || fc.Leg(1).InFlight() != 1500 {
		t.Errorf("Sent: in flight %d, %d; want 1000, 1500", fc.Leg(0).InFlight(), fc.Leg(1).InFlight())
	}
}

// TestWrapRespectsCredit runs every scheduler under flow control against
// two emulated legs (fcSim) whose reports arrive 5 ms late, the host
// offering more than the legs carry: no pick is NoLinks once Admits said
// yes, no send takes a leg beyond its DBS, no backlog exceeds the buffer,
// and a leg whose DU reports DBS 0 gets nothing more (fcSim checks all of
// it). Overloaded, every scheduler fills both legs to their credit.
func TestWrapRespectsCredit(t *testing.T) {
	for _, kind := range append(SchedulerKinds(), kindCredit) {
		sim := fcSim{kind: kind, cfg: FlowControlConfig{Buffer: 150000, Delay: 5 * ms},
			legs: [2]LinkState{{RateBps: 20e6, Delay: 10 * ms}, {RateBps: 5e6, Delay: 30 * ms}},
			dur:  2 * time.Second, stop1: [2]time.Duration{time.Second, 1500 * ms}}
		r := sim.run(t)
		t.Logf("%-14s %v", kind, r)
		// 20 Mbit/s for 2 s and 5 Mbit/s for 1.5 s: 95 % of 25 Mbit/s.
		if r.mbps < 0.9*0.95*25 {
			t.Errorf("%s: %.1f Mbit/s, want about 23.75", kind, r.mbps)
		}
	}
}

func TestFlowControlAllocs(t *testing.T) {
	for _, kind := range append(SchedulerKinds(), kindCredit) {
		fc := newTestFlowControl(t, 1<<20, SNBits18)
		sched := fc.Wrap(schedulerOrCredit(t, kind))
		sched.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * ms})
		sched.SetLinkState(1, LinkState{RateBps: 10e6, Delay: 30 * ms})
		var count uint64
		var now time.Duration
		if a := testing.AllocsPerRun(1000, func() {
			now += 100 * time.Microsecond
			if fc.Admits(1500, now) {
				sched.Pick(count, 1500, now)
			}
			count++
			for i := range 2 {
				fc.Leg(i).Report(Report{DesiredBuffer: 1 << 20, Delivered: count - 1, HasDelivered: true})
			}
		}); a != 0 {
			t.Errorf("%s: Admits/Pick/Report under flow control allocate %.1f times per PDU", kind, a)
		}
	}
}

// BenchmarkFlowControlPick is one PDU under flow control: Admits, the
// wrapped credit scheduler's pick and Sent, and a report per 8 PDUs.
func BenchmarkFlowControlPick(b *testing.B) {
	fc := newTestFlowControl(b, 1<<20, SNBits18)
	sched := fc.CreditScheduler()
	sched.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * ms})
	sched.SetLinkState(1, LinkState{RateBps: 10e6, Delay: 30 * ms})
	b.ReportAllocs()
	var now time.Duration
	for c := uint64(0); b.Loop(); c++ {
		now += 10 * time.Microsecond
		if fc.Admits(1500, now) {
			sched.Pick(c, 1500, now)
		}
		if c%8 == 7 {
			for i := range 2 {
				fc.Leg(i).Report(Report{DesiredBuffer: 1 << 20, Delivered: c - 4, HasDelivered: true})
			}
		}
	}
}
