package pdcp

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func newTestFlowControl(t testing.TB, buffer, bits int) *FlowControl {
	t.Helper()
	fc, err := NewFlowControl(FlowControlConfig{Buffer: buffer}, bits)
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

func TestWidenSN(t *testing.T) {
	cases := []struct {
		sn     uint32
		bits   int
		near   uint64
		want   uint64
		wantOK bool
	}{
		{0, 12, 0, 0, true},
		{4095, 12, 0, 0, false},   // just before COUNT 0
		{2047, 12, 0, 2047, true}, // W−1 ahead
		{2048, 12, 0, 0, false},   // W ahead is behind
		{900, 12, 5000, 4996, true},
		{0, 12, 4095, 4096, true},
		{4095, 12, 4096, 4095, true},
		{0x3FFFF, 18, 1 << 18, 1<<18 - 1, true},
		{5, 24, 1<<24 + 1<<23 + 10, 2<<24 + 5, true},
		{5, 0, 7, 0, false},
		{5, 63, 7, 0, false},
	}
	for _, tc := range cases {
		got, ok := WidenSN(tc.sn, tc.bits, tc.near)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("WidenSN(%d, %d, %d) = %d, %v; want %d, %v", tc.sn, tc.bits, tc.near, got, ok, tc.want, tc.wantOK)
		}
	}

	// The receiver's rule, exactly: WidenSN around RX_DELIV is the
	// receiver's COUNT for the SN.
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{SNBits12, SNBits18} {
		r := newTestReceiver(t, bits)
		for range 100000 {
			near := rng.Uint64N(1 << 40)
			if rng.IntN(4) == 0 {
				near = rng.Uint64N(1 << (bits + 1)) // near COUNT 0
			}
			sn := rng.Uint32N(1 << bits)
			r.deliv = int64(near)
			want := r.count(sn)
			got, ok := WidenSN(sn, bits, near)
			if ok != (want >= 0) || ok && got != uint64(want) {
				t.Fatalf("%d-bit: WidenSN(%d, near %d) = %d, %v; the receiver says %d", bits, sn, near, got, ok, want)
			}
		}
	}
}

func TestLegWiden(t *testing.T) {
	l := newTestFlowControl(t, 1<<20, SNBits12).Leg(0)
	if _, ok := l.Widen(0); ok {
		t.Error("Widen with nothing sent gave a COUNT")
	}
	l.Sent(8000, 100, 0)
	cases := []struct {
		count  uint64 // the COUNT whose SN is reported
		want   uint64
		wantOK bool
	}{
		{8000, 8000, true},
		{7999, 7999, true},
		{5000, 5000, true},  // 3000 back: beyond the receiver's W, still right
		{3905, 3905, true},  // 4095 back, the farthest
		{8001, 3905, true},  // cannot be ahead of what was sent: 2^12 back
		{10000, 5904, true}, // ditto
	}
	for _, tc := range cases {
		got, ok := l.Widen(SN(tc.count, SNBits12))
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("Widen(SN(%d)) = %d, %v; want %d, %v", tc.count, got, ok, tc.want, tc.wantOK)
		}
	}
	l = newTestFlowControl(t, 1<<20, SNBits12).Leg(1)
	l.Sent(3, 100, 0)
	if _, ok := l.Widen(SN(5, SNBits12)); ok {
		t.Error("an SN ahead of COUNT 3 widened though 2^12 back is negative")
	}
}

func TestLegCredit(t *testing.T) {
	fc := newTestFlowControl(t, 10000, SNBits12)
	l := fc.Leg(0)
	if l.Credit() != 10000 || !l.CanSend(10000, 0) || l.CanSend(10001, 0) {
		t.Fatalf("fresh leg: credit %d; the DBS before any report is Buffer", l.Credit())
	}
	for c := uint64(0); c < 12; c += 2 { // COUNTs 0 2 … 10; the other leg has the odd ones
		if !l.CanSend(1500, 0) {
			t.Fatalf("COUNT %d refused at credit %d", c, l.Credit())
		}
		l.Sent(c, 1500, 0)
	}
	if l.Credit() != 1000 || l.CanSend(1500, 0) || !l.CanSend(1000, 0) {
		t.Errorf("after 9000 B: credit %d, want 1000", l.Credit())
	}
	steps := []struct {
		r        Report
		inFlight int
	}{
		{Report{DesiredBuffer: 10000, Delivered: 4, HasDelivered: true}, 4500},   // 0 2 4 delivered
		{Report{DesiredBuffer: 10000, Delivered: 5, HasDelivered: true}, 4500},   // nothing more of ours
		{Report{DesiredBuffer: 3000, Delivered: 7, HasDelivered: true}, 3000},    // DBS down, 6 delivered
		{Report{DesiredBuffer: 3000, Delivered: 99, HasDelivered: true}, 0},      // beyond the highest sent: all
		{Report{DesiredBuffer: 8000, Delivered: 10, HasDelivered: true}, 0},      // same point (clamped): applies
		{Report{DesiredBuffer: 9000, Delivered: 9, HasDelivered: true}, 0},       // behind: stale
		{Report{DesiredBuffer: 9000}, 0},                                         // no point after one: stale
		{Report{DesiredBuffer: 7000, Delivered: 10, HasDelivered: true}, 0},      // same point again
		{Report{DesiredBuffer: 7000, Delivered: 11, HasDelivered: true}, 0},      // 11 not sent on this leg
		{Report{DesiredBuffer: 7000, Delivered: 1 << 40, HasDelivered: true}, 0}, // clamped to 10
	}
	wantDBS := []int{10000, 10000, 3000, 3000, 8000, 8000, 8000, 7000, 7000, 7000}
	for i, st := range steps {
		l.Report(st.r)
		if l.InFlight() != st.inFlight || l.Counters.BytesInFlight != st.inFlight || l.DesiredBuffer() != wantDBS[i] {
			t.Errorf("step %d %+v: in flight %d (counter %d), DBS %d; want %d, %d", i, st.r,
				l.InFlight(), l.Counters.BytesInFlight, l.DesiredBuffer(), st.inFlight, wantDBS[i])
		}
	}
	if l.Counters.Reports != 8 || l.Counters.StaleReports != 2 {
		t.Errorf("counters %+v, want 8 reports and 2 stale", l.Counters)
	}
	// The clamp kept the point at 10: COUNT 12 sent now is in flight.
	l.Sent(12, 500, 0)
	l.Report(Report{DesiredBuffer: 7000, Delivered: 10, HasDelivered: true})
	if l.InFlight() != 500 {
		t.Errorf("COUNT 12 after a clamped report: in flight %d, want 500", l.InFlight())
	}
}

// TestLegDBSZero: DBS 0 stops the leg at once, with nothing in flight, and
// the next report with room starts it at once.
func TestLegDBSZero(t *testing.T) {
	l := newTestFlowControl(t, 50000, SNBits18).Leg(1)
	l.Sent(0, 1000, 0)
	l.Report(Report{DesiredBuffer: 0, Delivered: 0, HasDelivered: true})
	if l.InFlight() != 0 || l.CanSend(1, ms) || l.Credit() != 0 {
		t.Errorf("DBS 0: in flight %d, credit %d; the leg must be stopped", l.InFlight(), l.Credit())
	}
	l.Report(Report{DesiredBuffer: 1500, Delivered: 0, HasDelivered: true})
	if !l.CanSend(1500, 2*ms) || l.CanSend(1501, 2*ms) {
		t.Errorf("DBS 1500 after 0: credit %d", l.Credit())
	}
	l.ReportStatus(DeliveryStatus{DesiredBuffer: 0, HighestTransmitted: 0, HasTransmitted: true})
	if l.CanSend(1, 3*ms) {
		t.Error("DBS 0 through ReportStatus: the leg still sends")
	}
	if l.Counters.CreditLimited != 2*ms-ms || l.Counters.Refused != 3 {
		t.Errorf("counters %+v: want 1 ms credit-limited, 3 refusals", l.Counters)
	}
}

// TestLegReportStatus: the frame's delivered SN wins over the transmitted
// one; either is widened around the highest COUNT sent.
func TestLegReportStatus(t *testing.T) {
	l := newTestFlowControl(t, 1<<20, SNBits12).Leg(0)
	for c := uint64(4090); c < 4110; c++ {
		l.Sent(c, 100, 0)
	}
	l.ReportStatus(DeliveryStatus{DesiredBuffer: 1 << 20, HighestDelivered: SN(4095, 12), HasDelivered: true,
		HighestTransmitted: SN(4105, 12), HasTransmitted: true})
	if l.InFlight() != 14*100 {
		t.Errorf("delivered 4095: in flight %d, want 1400", l.InFlight())
	}
	l.ReportStatus(DeliveryStatus{DesiredBuffer: 1 << 20, HighestTransmitted: SN(4105, 12), HasTransmitted: true})
	if l.InFlight() != 4*100 {
		t.Errorf("transmitted 4105 (SN 9): in flight %d, want 400", l.InFlight())
	}
	// A report with an SN but nothing sent applies its DBS only.
	l = newTestFlowControl(t, 1<<20, SNBits12).Leg(0)
	l.ReportStatus(DeliveryStatus{DesiredBuffer: 7, HighestTransmitted: 3, HasTransmitted: true})
	if l.DesiredBuffer() != 7 || l.Counters.Reports != 1 {
		t.Errorf("nothing sent: DBS %d, %+v", l.DesiredBuffer(), l.Counters)
	}
}

// legModel is the credit rule written plainly: every PDU sent, and the
// applied report.
type legModel struct {
	sent     []legPDU
	dbs      int64
	point    uint64
	hasPoint bool
}

func (m *legModel) beyond(point uint64, has bool) int64 {
	var b int64
	for _, p := range m.sent {
		if !has || p.count > point {
			b += p.size
		}
	}
	return b
}

// TestLegCreditProperty drives a leg with random sends and in-order
// reports and checks it against legModel: the bytes in flight are exactly
// the bytes beyond the applied delivered point, and no admitted PDU ever
// takes the leg beyond the DBS.
func TestLegCreditProperty(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		buffer := 1500 + rng.IntN(100000)
		l := newTestFlowControl(t, buffer, SNBits12).Leg(0)
		m := legModel{dbs: int64(buffer)}
		var count, duPoint uint64
		var now time.Duration
		small := seed%4 == 0 // tiny PDUs: the ring fills before the DBS does
		for step := range 20000 {
			now += time.Duration(rng.IntN(1000)) * time.Microsecond
			op := rng.IntN(10)
			if small && op >= 7 && rng.IntN(20) != 0 {
				op = 0 // rare reports: let the ring fill
			}
			switch op {
			case 0, 1, 2, 3, 4, 5, 6: // a PDU for this leg, if it has credit
				count += 1 + uint64(rng.IntN(3)) // the other leg takes some COUNTs
				size := 40 + rng.IntN(1500)
				if small {
					size = 1 + rng.IntN(4)
				}
				if l.CanSend(size, now) {
					l.Sent(count, size, now)
					m.sent = append(m.sent, legPDU{count, int64(size)})
					if b := m.beyond(m.point, m.hasPoint); b > m.dbs {
						t.Fatalf("seed %d step %d: %d B beyond the delivered point, DBS %d", seed, step, b, m.dbs)
					}
				} else if got := m.beyond(m.point, m.hasPoint); got+int64(size) <= m.dbs && m.dbs > 0 && len(l.ring) > l.n {
					t.Fatalf("seed %d step %d: refused %d B with %d in flight of DBS %d", seed, step, size, got, m.dbs)
				}
			default: // a report: the DU moved its point and picked a DBS
				if count > duPoint {
					adv := rng.IntN(int(count-duPoint) + 1)
					if small {
						adv = min(adv, 8) // a slow leg: the ring fills
					}
					duPoint += uint64(adv)
				}
				dbs := uint32(rng.IntN(buffer + 1))
				if small {
					dbs = uint32(buffer)
				}
				if rng.IntN(5) == 0 {
					dbs = 0
				}
				l.Report(Report{DesiredBuffer: dbs, Delivered: duPoint, HasDelivered: true})
				m.dbs, m.point, m.hasPoint = int64(dbs), duPoint, true
				m.sent = slices.DeleteFunc(m.sent, func(p legPDU) bool { return p.count <= duPoint })
			}
			if want := m.beyond(m.point, m.hasPoint); int64(l.InFlight()) != want || int64(l.Credit()) != m.dbs-want {
				t.Fatalf("seed %d step %d: in flight %d, credit %d; the model has %d, %d",
					seed, step, l.InFlight(), l.Credit(), want, m.dbs-want)
			}
		}
		if small && l.Counters.Full == 0 {
			t.Errorf("seed %d: the ring never filled", seed)
		}
	}
}

// TestLegOutOfOrderReports applies reports in a random order: a late
// report never gives back credit the newest applied one took away. The
// reports' points increase, so "newest" is the one with the highest point
// so far, and the credit must be exactly what it allows.
func TestLegOutOfOrderReports(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 11))
		l := newTestFlowControl(t, 1<<20, SNBits18).Leg(0)
		var m legModel
		for c := uint64(0); c < 1000; c += 1 + uint64(rng.IntN(3)) {
			size := 100 + rng.IntN(1400)
			l.Sent(c, size, 0)
			m.sent = append(m.sent, legPDU{c, int64(size)})
		}
		reports := make([]Report, 30)
		point := uint64(0)
		for i := range reports {
			point += 1 + uint64(rng.IntN(30))
			reports[i] = Report{DesiredBuffer: uint32(rng.IntN(1 << 20)), Delivered: point, HasDelivered: true}
		}
		order := rng.Perm(len(reports))
		newest, stale := -1, 0
		for _, i := range order {
			l.Report(reports[i])
			if i < newest {
				stale++
			}
			newest = max(newest, i)
			r := reports[newest]
			if want := int64(r.DesiredBuffer) - m.beyond(r.Delivered, true); int64(l.Credit()) != want {
				t.Fatalf("seed %d: after report %d (newest %d) credit %d, want %d", seed, i, newest, l.Credit(), want)
			}
		}
		if l.Counters.StaleReports != uint64(stale) {
			t.Errorf("seed %d: %d stale reports counted, want %d", seed, l.Counters.StaleReports, stale)
		}
	}
}

// TestLegRingFull: a full ring is no credit, whatever the DBS; a PDU sent
// anyway is charged to the newest entry, so its bytes and the newest
// entry's leave together, late rather than early.
func TestLegRingFull(t *testing.T) {
	l := newTestFlowControl(t, 1<<20, SNBits12).Leg(0)
	n := len(l.ring)
	if n != Window(SNBits12) {
		t.Fatalf("12-bit ring of %d entries, want W = %d", n, Window(SNBits12))
	}
	for c := range uint64(n) {
		l.Sent(c, 10, 0)
	}
	if l.CanSend(10, 0) || l.Counters.Full != 1 || l.Credit() != 1<<20-10*n {
		t.Fatalf("full ring: CanSend admits, or counters %+v", l.Counters)
	}
	l.Sent(uint64(n)+5, 7, 0) // the caller ignored CanSend
	l.Report(Report{DesiredBuffer: 1 << 20, Delivered: uint64(n) - 2, HasDelivered: true})
	if l.InFlight() != 17 { // the newest entry (COUNT n−1, 10 B) now waits for n+5 with the 7 B
		t.Errorf("in flight %d, want 17", l.InFlight())
	}
	l.Report(Report{DesiredBuffer: 1 << 20, Delivered: uint64(n) + 5, HasDelivered: true})
	if l.InFlight() != 0 || !l.CanSend(10, 0) {
		t.Errorf("all delivered: in flight %d", l.InFlight())
	}
	// 18-bit SNs: the ring is capped at MaxLegPDUs.
	if l := newTestFlowControl(t, 1<<20, SNBits18).Leg(1); len(l.ring) != MaxLegPDUs {
		t.Errorf("18-bit ring of %d entries, want %d", len(l.ring), MaxLegPDUs)
	}
	// A COUNT not above the highest sent joins the newest entry, or with
	// none left waits for the next COUNT.
	l = newTestFlowControl(t, 1<<20, SNBits12).Leg(0)
	l.Sent(10, 100, 0)
	l.Sent(10, 50, 0)
	l.Report(Report{DesiredBuffer: 1 << 20, Delivered: 10, HasDelivered: true})
	l.Sent(3, 20, 0)
	l.Report(Report{DesiredBuffer: 1 << 20, Delivered: 10, HasDelivered: true})
	if l.InFlight() != 20 {
		t.Errorf("COUNT 3 after 10: in flight %d, want 20 (held until COUNT 11)", l.InFlight())
	}
	l.Report(Report{DesiredBuffer: 1 << 20, Delivered: 11, HasDelivered: true})
	if l.InFlight() != 0 {
		t.Errorf("COUNT 11 delivered: in flight %d, want 0", l.InFlight())
	}
}

// TestLegCreditLimited steps a fake clock through refusals: the time from
// a refusal to the next admission or send adds up.
func TestLegCreditLimited(t *testing.T) {
	l := newTestFlowControl(t, 3000, SNBits12).Leg(0)
	l.Sent(0, 3000, 0)
	steps := []struct {
		at   time.Duration
		do   string
		want time.Duration
	}{
		{10 * ms, "refused", 0},
		{15 * ms, "refused", 0}, // still the same interval
		{20 * ms, "report", 0},  // credit back, but nobody asked yet
		{30 * ms, "admitted", 20 * ms},
		{31 * ms, "admitted", 20 * ms},
		{40 * ms, "fill", 20 * ms},
		{41 * ms, "refused", 20 * ms},
		{45 * ms, "sent", 24 * ms}, // sent on anyway: the interval ends too
	}
	count := uint64(0)
	for _, st := range steps {
		switch st.do {
		case "refused":
			if l.CanSend(1500, st.at) {
				t.Fatalf("%v: admitted", st.at)
			}
		case "admitted":
			if !l.CanSend(1500, st.at) {
				t.Fatalf("%v: refused", st.at)
			}
		case "report":
			l.Report(Report{DesiredBuffer: 3000, Delivered: count, HasDelivered: true})
		case "fill":
			count++
			l.Sent(count, 3000, st.at)
		case "sent":
			count++
			l.Sent(count, 100, st.at)
		}
		if l.Counters.CreditLimited != st.want {
			t.Errorf("%v %s: credit-limited %v, want %v", st.at, st.do, l.Counters.CreditLimited, st.want)
		}
	}
}

func TestLegAllocs(t *testing.T) {
	l := newTestFlowControl(t, 1<<20, SNBits18).Leg(0)
	var count uint64
	var now time.Duration
	if a := testing.AllocsPerRun(1000, func() {
		for range 8 {
			now += 100 * time.Microsecond
			count += 2
			if l.CanSend(1500, now) {
				l.Sent(count, 1500, now)
			}
		}
		l.ReportStatus(DeliveryStatus{DesiredBuffer: 1 << 20, HighestTransmitted: SN(count-4, SNBits18), HasTransmitted: true})
	}); a != 0 {
		t.Errorf("CanSend/Sent/ReportStatus allocate %.1f times per run", a)
	}
}
