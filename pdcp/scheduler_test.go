package pdcp

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func mustScheduler(t testing.TB, cfg SchedulerConfig) Scheduler {
	t.Helper()
	s, err := NewScheduler(cfg)
	if err != nil {
		t.Fatalf("NewScheduler(%+v): %v", cfg, err)
	}
	return s
}

// pattern returns the links Pick chose for counts [from, from+n) as a
// string of '0', '1' and 'B' (both).
func pattern(s Scheduler, from uint64, n int, now time.Duration) string {
	var b strings.Builder
	for c := from; c < from+uint64(n); c++ {
		switch s.Pick(c, 1500, now) {
		case Link0:
			b.WriteByte('0')
		case Link1:
			b.WriteByte('1')
		case BothLinks:
			b.WriteByte('B')
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

func TestBatchScheduler(t *testing.T) {
	cases := []struct {
		batch int
		split Split
		want  []string // consecutive batches; the pattern then repeats
	}{
		{0, Split{}, []string{strings.Repeat("0", 50) + strings.Repeat("1", 50)}}, // defaults: 100, 1:1
		{100, Split{9, 1}, []string{strings.Repeat("0", 90) + strings.Repeat("1", 10)}},
		{100, Split{1, 0}, []string{strings.Repeat("0", 100)}},
		{100, Split{0, 1}, []string{strings.Repeat("1", 100)}},
		// A share that is not a whole number of PDUs alternates between the
		// nearest counts, so the long-run split is exact.
		{3, Split{1, 1}, []string{"001", "011"}},                // 1.5: 2, 1
		{10, Split{1, 3}, []string{"0001111111", "0011111111"}}, // 2.5: 3, 2
		{1, Split{1, 1}, []string{"0", "1"}},                    // one PDU per link in turn
		{25, Split{7, 3}, []string{strings.Repeat("0", 18) + strings.Repeat("1", 7), strings.Repeat("0", 17) + strings.Repeat("1", 8)}},
	}
	for _, tc := range cases {
		s := mustScheduler(t, SchedulerConfig{Kind: KindBatch, Batch: tc.batch, Split: tc.split})
		n := len(tc.want[0])
		for k := uint64(0); k < 4*uint64(len(tc.want)); k++ {
			want := tc.want[k%uint64(len(tc.want))]
			if got := pattern(s, k*uint64(n), n, 0); got != want {
				t.Errorf("batch %d split %v, batch %d: got %s, want %s", tc.batch, tc.split, k, got, want)
			}
		}
	}
	// Over many batches the split is exact: batch 25 at 1:1 puts 12.5 of
	// every 25 PDUs on each link, not 13 and 12.
	s := mustScheduler(t, SchedulerConfig{Kind: KindBatch, Batch: 25, Split: Split{1, 1}})
	on0 := strings.Count(pattern(s, 0, 25*1000, 0), "0")
	if on0 != 12500 {
		t.Errorf("batch 25 at 1:1: %d of 25000 PDUs on link 0, want 12500", on0)
	}
}

func TestDuplicateScheduler(t *testing.T) {
	s := mustScheduler(t, SchedulerConfig{Kind: KindDuplicate})
	if got := pattern(s, 0, 5, 0); got != "BBBBB" {
		t.Errorf("duplicate: %s", got)
	}
}

func TestWeightedScheduler(t *testing.T) {
	cases := []struct {
		split Split
		want  string // one period
	}{
		{Split{1, 1}, "01"},
		{Split{3, 1}, "0010"},
		{Split{9, 1}, "0000010000"},
		{Split{1, 0}, "0"},
		{Split{0, 2}, "1"},
		{Split{0.3, 0.7}, "1011011101"}, // 3:7, worked by hand
		{Split{2, 3}, "10101"},
	}
	for _, tc := range cases {
		s := mustScheduler(t, SchedulerConfig{Kind: KindWeighted, Split: tc.split})
		n := len(tc.want)
		for k := 0; k < 4; k++ {
			if got := pattern(s, 0, n, 0); got != tc.want {
				t.Errorf("weighted %v period %d: got %s, want %s", tc.split, k, got, tc.want)
			}
		}
	}
	// Irrational-ish ratio: the long-run share is exact to 1e-6.
	s := mustScheduler(t, SchedulerConfig{Kind: KindWeighted, Split: Split{1, 3.14159265358979}})
	p := pattern(s, 0, 1_000_000, 0)
	got := float64(strings.Count(p, "0")) / 1e6
	if want := 1 / 4.14159265358979; got < want-2e-6 || got > want+2e-6 {
		t.Errorf("weighted 1:π: link 0 share %.7f, want %.7f", got, want)
	}
}

func TestSmallestDelayScheduler(t *testing.T) {
	s := mustScheduler(t, SchedulerConfig{Kind: KindSmallestDelay})
	// Nothing known: both links count as down, everything on link 0.
	if got := pattern(s, 0, 3, 0); got != "000" {
		t.Errorf("no link state: %s", got)
	}

	// 20 Mbit/s each, 10 ms and 30 ms: link 1 is worth it only once link 0
	// has 20 ms of backlog (50 kB). A burst of 100 × 1500 B at one instant
	// splits 2:1 so both arrive about together.
	s = mustScheduler(t, SchedulerConfig{Kind: KindSmallestDelay})
	s.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * time.Millisecond})
	s.SetLinkState(1, LinkState{RateBps: 20e6, Delay: 30 * time.Millisecond})
	p := pattern(s, 0, 100, time.Second)
	if !strings.HasPrefix(p, strings.Repeat("0", 34)) {
		t.Errorf("first 34 PDUs should fill link 0's 20 ms head start: %s", p)
	}
	if n0 := strings.Count(p, "0"); n0 < 65 || n0 > 68 {
		t.Errorf("burst of 100: %d on link 0, want 65–68 (%s)", n0, p)
	}
	// One second later both backlogs have drained: link 0 again.
	if got := pattern(s, 100, 1, 2*time.Second); got != "0" {
		t.Errorf("after draining: %s, want 0", got)
	}

	// A steady 30 Mbit/s over two equal 20 Mbit/s links shares the load and
	// keeps both backlogs bounded.
	s = mustScheduler(t, SchedulerConfig{Kind: KindSmallestDelay})
	for i := range 2 {
		s.SetLinkState(i, LinkState{RateBps: 20e6, Delay: 10 * time.Millisecond})
	}
	var n [2]int
	for c := range 30000 {
		now := time.Duration(c) * 400 * time.Microsecond // 1500 B every 400 µs
		if s.Pick(uint64(c), 1500, now) == Link0 {
			n[0]++
		} else {
			n[1]++
		}
	}
	if n[0] < 14000 || n[1] < 14000 {
		t.Errorf("steady load split %v, want about even", n)
	}
	sd := s.(*smallestDelay)
	for i, b := range sd.backlog {
		if b > 3000 {
			t.Errorf("link %d backlog estimate %.0f B, want at most 2 PDUs", i, b)
		}
	}

	// The caller's queue report counts: a full link 0 sends traffic to link 1.
	s.SetLinkState(0, LinkState{RateBps: 20e6, Delay: 10 * time.Millisecond, QueuedBytes: 1 << 20})
	if got := pattern(s, 0, 3, 20*time.Second); got != "111" {
		t.Errorf("link 0 queue 1 MiB: %s, want 111", got)
	}
	// A down link is never chosen.
	s.SetLinkState(1, LinkState{RateBps: 0, Delay: time.Millisecond})
	if got := pattern(s, 0, 3, 20*time.Second); got != "000" {
		t.Errorf("link 1 down: %s, want 000", got)
	}
}

func TestActiveStandbyScheduler(t *testing.T) {
	up := LinkState{RateBps: 10e6}
	down := LinkState{}
	for _, active := range []int{0, 1} {
		s := mustScheduler(t, SchedulerConfig{Kind: KindActiveStandby, Active: active})
		a, b := byte('0'+active), byte('0'+1-active)
		steps := []struct {
			act, stby LinkState
			want      byte
		}{
			{down, down, a}, // nothing known yet
			{up, up, a},
			{down, up, b}, // outage: standby
			{down, up, b},
			{up, up, a}, // back
			{up, down, a},
			{down, down, a},
		}
		for i, st := range steps {
			s.SetLinkState(active, st.act)
			s.SetLinkState(1-active, st.stby)
			if got := pattern(s, uint64(i), 1, 0); got[0] != st.want {
				t.Errorf("active %d step %d: %s, want %c", active, i, got, st.want)
			}
		}
	}
}

func TestAdaptiveScheduler(t *testing.T) {
	s := mustScheduler(t, SchedulerConfig{Kind: KindAdaptive, Batch: 100})
	// No rates yet: the configured split (1:1).
	if got := pattern(s, 0, 50, 0); got != strings.Repeat("0", 50) {
		t.Errorf("first half batch: %s", got)
	}
	// New rates mid-batch apply from the next batch on.
	s.SetLinkState(0, LinkState{RateBps: 30e6})
	s.SetLinkState(1, LinkState{RateBps: 10e6})
	if got := pattern(s, 50, 50, 0); got != strings.Repeat("1", 50) {
		t.Errorf("rest of first batch: %s", got)
	}
	if got := pattern(s, 100, 100, 0); got != strings.Repeat("0", 75)+strings.Repeat("1", 25) {
		t.Errorf("second batch at 30:10: %s", got)
	}
	// Link 0 fails in the middle of a batch: its remaining slots go to link 1,
	// and the next batch is all link 1.
	if got := pattern(s, 200, 10, 0); got != strings.Repeat("0", 10) {
		t.Errorf("third batch start: %s", got)
	}
	s.SetLinkState(0, LinkState{})
	if got := pattern(s, 210, 90, 0); got != strings.Repeat("1", 90) {
		t.Errorf("third batch after outage: %s", got)
	}
	if got := pattern(s, 300, 100, 0); got != strings.Repeat("1", 100) {
		t.Errorf("batch during outage: %s", got)
	}
	// Configured split used as fallback: 9:1 with batch 10.
	s = mustScheduler(t, SchedulerConfig{Kind: KindAdaptive, Batch: 10, Split: Split{9, 1}})
	if got := pattern(s, 0, 10, 0); got != "0000000001" {
		t.Errorf("fallback 9:1: %s", got)
	}
}

func TestSchedulerConfigErrors(t *testing.T) {
	cases := []struct {
		cfg  SchedulerConfig
		want string
	}{
		{SchedulerConfig{Kind: "round-robin"}, `pdcp: Kind: unknown scheduler (want one of batch, duplicate,`},
		{SchedulerConfig{Batch: -1}, "pdcp: Batch: must be at least 1 (got -1)"},
		{SchedulerConfig{Split: Split{-1, 1}}, "pdcp: Split: weights must be finite and non-negative (got -1:1)"},
		{SchedulerConfig{Kind: KindActiveStandby, Active: 2}, "pdcp: Active: must be 0 or 1 (got 2)"},
	}
	for _, tc := range cases {
		_, err := NewScheduler(tc.cfg)
		var fe *FieldError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &fe) {
			t.Errorf("NewScheduler(%+v) error %v, want a *FieldError %q", tc.cfg, err, tc.want)
		}
	}
	// Validate checks a configuration as it is: a zero batch is out of
	// range there, and only NewScheduler reads it as the default.
	if err := (SchedulerConfig{Kind: KindBatch, Split: Split{1, 1}}).Validate(); err == nil || !strings.Contains(err.Error(), "Batch: must be at least 1 (got 0)") {
		t.Errorf("Validate with batch 0: %v", err)
	}
	if err := DefaultSchedulerConfig().Validate(); err != nil {
		t.Errorf("the default scheduler configuration: %v", err)
	}
	for _, k := range append(SchedulerKinds(), "") {
		if _, err := NewScheduler(SchedulerConfig{Kind: k}); err != nil {
			t.Errorf("kind %q with defaults: %v", k, err)
		}
	}
}
