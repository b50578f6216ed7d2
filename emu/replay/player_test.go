package replay

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/tracefmt"
	"github.com/dc-emu/emu/traces"
)

// playerTrace builds a validated trace from (start, down, up) triples.
func playerTrace(t testing.TB, end time.Duration, steps ...tracefmt.Step) *tracefmt.Trace {
	t.Helper()
	tr := &tracefmt.Trace{Source: t.Name(), Format: tracefmt.FormatCSV, Steps: steps, End: end, HasUp: true}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	return tr
}

// playerTestTrace: 10 Mbit/s, 20 Mbit/s for 2 s, a 1 s outage, 5 Mbit/s; 6 s.
func playerTestTrace(t testing.TB) *tracefmt.Trace {
	return playerTrace(t, 6*time.Second,
		tracefmt.Step{At: 0, Down: 10e6, Up: 1e6},
		tracefmt.Step{At: 1 * time.Second, Down: 20e6, Up: 2e6},
		tracefmt.Step{At: 3 * time.Second, Down: 0, Up: 3e6},
		tracefmt.Step{At: 4 * time.Second, Down: 5e6, Up: 4e6},
	)
}

func TestPlayerAtAcrossSteps(t *testing.T) {
	p := Player{Trace: playerTestTrace(t)}
	for _, c := range []struct {
		el   time.Duration
		rate float64
		next time.Duration
	}{
		{-time.Second, 10e6, 1 * time.Second}, // before the start: the first step
		{0, 10e6, 1 * time.Second},
		{999 * time.Millisecond, 10e6, 1 * time.Second},
		{1 * time.Second, 20e6, 3 * time.Second}, // a step starts exactly at its At
		{2500 * time.Millisecond, 20e6, 3 * time.Second},
		{3 * time.Second, 0, 4 * time.Second}, // the outage is a rate of 0, not skipped
		{3999 * time.Millisecond, 0, 4 * time.Second},
		{4 * time.Second, 5e6, 6 * time.Second},
		{6*time.Second - 1, 5e6, 6 * time.Second}, // the last step ends at End
	} {
		st, rate, next, ok := p.At(c.el)
		if !ok || rate != c.rate || next != c.next || st.Down != c.rate {
			t.Errorf("At(%v) = step %+v, rate %g, next %v, ok %v; want rate %g, next %v, ok", c.el, st, rate, next, ok, c.rate, c.next)
		}
	}
}

func TestPlayerEndWithoutLoop(t *testing.T) {
	p := Player{Trace: playerTestTrace(t)}
	for _, el := range []time.Duration{6 * time.Second, 6*time.Second + 1, time.Hour} {
		st, rate, _, ok := p.At(el)
		if ok {
			t.Errorf("At(%v): ok after the end of a trace that does not loop", el)
		}
		if rate != 5e6 || st.Down != 5e6 {
			t.Errorf("At(%v) = rate %g; want the last step (5 Mbit/s) to hold", el, rate)
		}
	}
}

func TestPlayerLoopWrap(t *testing.T) {
	p := Player{Trace: playerTestTrace(t), Loop: true}
	for _, c := range []struct {
		el   time.Duration
		rate float64
		next time.Duration
	}{
		{6 * time.Second, 10e6, 7 * time.Second}, // the period starts over
		{6*time.Second - 1, 5e6, 6 * time.Second},
		{7500 * time.Millisecond, 20e6, 9 * time.Second},
		{13500 * time.Millisecond, 20e6, 15 * time.Second}, // third period: 13.5 s = 2×6 s + 1.5 s
		{100*6*time.Second + 3*time.Second, 0, 100*6*time.Second + 4*time.Second},
	} {
		_, rate, next, ok := p.At(c.el)
		if !ok || rate != c.rate || next != c.next {
			t.Errorf("At(%v) = rate %g, next %v, ok %v; want %g, %v, ok", c.el, rate, next, ok, c.rate, c.next)
		}
	}
}

func TestPlayerUplinkColumn(t *testing.T) {
	p := Player{Trace: playerTestTrace(t), Up: true, Loop: true}
	for el, want := range map[time.Duration]float64{0: 1e6, 1500 * time.Millisecond: 2e6, 3500 * time.Millisecond: 3e6, 5 * time.Second: 4e6, 7 * time.Second: 2e6} {
		if _, rate, _, _ := p.At(el); rate != want {
			t.Errorf("uplink At(%v) = %g, want %g", el, rate, want)
		}
	}
	if got := p.MeanRate(0, 6*time.Second); !playerNear(got, (1e6+2*2e6+3e6+2*4e6)/6) {
		t.Errorf("uplink MeanRate over the trace = %g", got)
	}
}

func playerNear(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestPlayerMeanRatePartialSteps(t *testing.T) {
	loop := Player{Trace: playerTestTrace(t), Loop: true}
	once := Player{Trace: playerTestTrace(t)}
	for _, c := range []struct {
		p        *Player
		from, to time.Duration
		want     float64
	}{
		{&once, 0, 1 * time.Second, 10e6},
		{&once, 500 * time.Millisecond, 1500 * time.Millisecond, 15e6},                          // half of each step
		{&once, 900 * time.Millisecond, 3100 * time.Millisecond, (0.1*10e6 + 2*20e6 + 0) / 2.2}, // three steps, an outage among them
		{&once, 3 * time.Second, 4 * time.Second, 0},
		{&once, 0, 6 * time.Second, (10e6 + 2*20e6 + 2*5e6) / 6},
		{&once, 5500 * time.Millisecond, 6500 * time.Millisecond, 5e6}, // the last step holds past the end
		{&once, 7 * time.Second, 8 * time.Second, 5e6},
		{&loop, 5500 * time.Millisecond, 6500 * time.Millisecond, (0.5*5e6 + 0.5*10e6)}, // across the wrap
		{&loop, 6 * time.Second, 12 * time.Second, (10e6 + 2*20e6 + 2*5e6) / 6},
		{&loop, 0, 60 * time.Second, (10e6 + 2*20e6 + 2*5e6) / 6},
		{&once, 2 * time.Second, 2 * time.Second, 20e6}, // empty interval: the rate at from
		{&once, 2 * time.Second, 1 * time.Second, 20e6},
	} {
		if got := c.p.MeanRate(c.from, c.to); !playerNear(got, c.want) {
			t.Errorf("MeanRate(%v, %v) loop=%v = %g, want %g", c.from, c.to, c.p.Loop, got, c.want)
		}
	}
}

// playFake drives a player as Emulation.play does, on a fake clock that
// wakes exactly at each deadline, and returns the changes it applied.
func playFake(p *Player, until time.Duration) (at []time.Duration, rates []float64) {
	now := time.Duration(0)
	for now < until {
		_, rate, next, ok := p.At(now)
		at, rates = append(at, now), append(rates, rate)
		if !ok {
			break
		}
		if next <= now {
			panic("next deadline not in the future")
		}
		now = next
	}
	return at, rates
}

// TestPlayerReplaySchedule: driven at its own deadlines, a player applies
// every step of the trace exactly at its start, period after period, and
// stops at the end of a trace that does not loop.
func TestPlayerReplaySchedule(t *testing.T) {
	tr := playerTestTrace(t)
	at, rates := playFake(&Player{Trace: tr, Loop: true}, 3*tr.End)
	if len(at) != 3*len(tr.Steps) {
		t.Fatalf("%d changes over three periods, want %d: %v", len(at), 3*len(tr.Steps), at)
	}
	for i := range at {
		s := tr.Steps[i%len(tr.Steps)]
		if want := time.Duration(i/len(tr.Steps))*tr.End + s.At; at[i] != want || rates[i] != s.Down {
			t.Errorf("change %d at %v rate %g, want %v rate %g", i, at[i], rates[i], want, s.Down)
		}
	}
	at, rates = playFake(&Player{Trace: tr}, time.Hour)
	if len(at) != len(tr.Steps)+1 || at[len(at)-1] != tr.End || rates[len(rates)-1] != 5e6 {
		t.Errorf("without loop: changes at %v rates %v; want each step, then the last one held at the end", at, rates)
	}
}

// mahimahiText makes a Mahimahi trace: n packets in each of the given
// milliseconds.
func mahimahiText(perMs map[int]int, last int) string {
	var b strings.Builder
	for m := 0; m <= last; m++ {
		for range perMs[m] {
			b.WriteString(strconv.Itoa(m))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestPlayerMahimahiWindows: a Mahimahi trace read with 10 time.Millisecond windows plays
// one rate per window (empty windows are outages), and MeanRate over the
// whole trace is the trace's own mean: packets × 1500 bytes / duration.
func TestPlayerMahimahiWindows(t *testing.T) {
	// 3 packets in [0,10) time.Millisecond, none in [10,20), 1 in [20,30), 5 in [30,40].
	text := mahimahiText(map[int]int{0: 2, 5: 1, 21: 1, 30: 2, 39: 2, 40: 1}, 40)
	tr, err := tracefmt.Read(strings.NewReader(text), "synthetic.down", tracefmt.ReadOptions{Format: tracefmt.FormatMahimahi, Window: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p := Player{Trace: tr, Loop: true}
	const pkt = tracefmt.MahimahiPacketBits
	for _, c := range []struct {
		el   time.Duration
		rate float64
		next time.Duration
	}{
		{0, 3 * pkt / 0.010, 10 * time.Millisecond},
		{15 * time.Millisecond, 0, 20 * time.Millisecond},
		{20 * time.Millisecond, 1 * pkt / 0.010, 30 * time.Millisecond},
		{35 * time.Millisecond, 5 * pkt / 0.010, 40 * time.Millisecond},
		{45 * time.Millisecond, 3 * pkt / 0.010, 50 * time.Millisecond}, // looped
	} {
		_, rate, next, ok := p.At(c.el)
		if !ok || !playerNear(rate, c.rate) || next != c.next {
			t.Errorf("At(%v) = %g, next %v, ok %v; want %g, next %v", c.el, rate, next, ok, c.rate, c.next)
		}
	}
	if got, want := p.MeanRate(0, tr.End), 9*pkt/0.040; !playerNear(got, want) {
		t.Errorf("MeanRate over the trace = %g, want %g (9 packets in 40 time.Millisecond)", got, want)
	}
}

// TestPlayerMeanRateAdditive: on random traces, MeanRate over [a,c) is the
// time-weighted combination of [a,b) and [b,c), and over one period it is
// the trace's own mean (Stats), looped or not.
func TestPlayerMeanRateAdditive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + rng.IntN(20)
		var steps []tracefmt.Step
		at := time.Duration(0)
		for range n {
			steps = append(steps, tracefmt.Step{At: at, Down: float64(rng.IntN(4)) * 1e6 * rng.Float64()})
			at += time.Duration(1+rng.IntN(2000)) * time.Millisecond
		}
		tr := playerTrace(t, at, steps...)
		p := Player{Trace: tr, Loop: rng.IntN(2) == 0}
		if got, want := p.MeanRate(0, tr.End), tr.Stats().Down.Mean*1e6; math.Abs(got-want) > 1e-6*math.Max(want, 1) {
			t.Fatalf("MeanRate over the trace = %g, Stats mean %g (steps %v, end %v)", got, want, steps, tr.End)
		}
		span := 3 * tr.End
		a := time.Duration(rng.Int64N(int64(span)))
		b := a + time.Duration(rng.Int64N(int64(span)))
		c := b + 1 + time.Duration(rng.Int64N(int64(span)))
		whole := p.MeanRate(a, c) * (c - a).Seconds()
		parts := p.MeanRate(a, b)*(b-a).Seconds() + p.MeanRate(b, c)*(c-b).Seconds()
		if b == a {
			parts = p.MeanRate(b, c) * (c - b).Seconds()
		}
		if math.Abs(whole-parts) > 1e-6*math.Max(whole, 1) {
			t.Fatalf("loop=%v: MeanRate(%v,%v) gives %g bits, the parts at %v give %g", p.Loop, a, c, whole, b, parts)
		}
	}
}

// TestPlayerAtNoAlloc: the player runs at every step of a 10 time.Millisecond trace;
// looking up a step must not allocate.
func TestPlayerAtNoAlloc(t *testing.T) {
	p := Player{Trace: playerTestTrace(t), Loop: true}
	el := time.Duration(0)
	if n := testing.AllocsPerRun(1000, func() {
		p.At(el)
		el += 7 * time.Millisecond
	}); n != 0 {
		t.Errorf("At allocates %v times per call", n)
	}
}

// TestPlayerDriveOutsideOutages: away from outages Drive is At DriveLead
// ahead: each step is due DriveLead before it begins.
func TestPlayerDriveOutsideOutages(t *testing.T) {
	p := Player{Trace: playerTestTrace(t), Loop: true}
	for el := time.Duration(0); el < 20*time.Second; el += 37 * time.Millisecond {
		st, rate, next, ok := p.At(el + DriveLead)
		if rate == 0 {
			continue
		}
		dst, drate, wake, dok := p.Drive(el)
		if dst != st || drate != rate || wake != next-DriveLead || dok != ok {
			t.Fatalf("Drive(%v) = %+v %g %v %v; At(%v) gives %+v %g %v %v", el, dst, drate, wake, dok, el+DriveLead, st, rate, next, ok)
		}
	}
	if _, rate, wake, _ := p.Drive(time.Second - DriveLead); rate != 20e6 || wake != 3*time.Second-DriveLead {
		t.Errorf("Drive(1 s − lead) = rate %g, wake %v; want the 20 Mbit/s step, next due at 3 s − lead", rate, wake)
	}
}

// holdCost is what one full-size packet costs at a hold rate.
func holdCost(rate float64) time.Duration { return time.Duration(1500 * 8 / rate * 1e9) }

// TestPlayerDriveHoldsOutage: in an outage Drive returns the rate at which
// one full-size packet (1500 IP bytes, what the shaper charges exactly)
// costs the rest of the outage plus one packet time at the rate after it,
// recomputes it more often as the end nears, and sets the following rate
// DriveLead before the outage ends.
func TestPlayerDriveHoldsOutage(t *testing.T) {
	p := Player{Trace: playerTestTrace(t)} // outage [3 s, 4 s), then 5 Mbit/s
	extra := time.Duration(1500 * 8 / 5e6 * 1e9)
	for _, c := range []struct {
		el, wake time.Duration
	}{
		{3*time.Second - DriveLead, 3*time.Second - DriveLead + 10*time.Millisecond},
		{3500 * time.Millisecond, 3510 * time.Millisecond},
		{3950 * time.Millisecond, 3955 * time.Millisecond},      // a tenth of what is left
		{3990 * time.Millisecond, 3991 * time.Millisecond},      // at least 1 ms
		{3999200 * time.Microsecond, 4*time.Second - DriveLead}, // then the following rate
	} {
		st, rate, wake, ok := p.Drive(c.el)
		if !ok || st.Down != 0 || wake != c.wake {
			t.Errorf("Drive(%v) = step %+v, wake %v, ok %v; want the outage step, wake %v", c.el, st, wake, ok, c.wake)
		}
		if got, want := holdCost(rate), 4*time.Second-c.el+extra; got-want < -time.Microsecond || got-want > time.Microsecond {
			t.Errorf("Drive(%v): rate %g bit/s, a full packet costs %v, want %v", c.el, rate, got, want)
		}
	}
	for _, el := range []time.Duration{4*time.Second - DriveLead, 4 * time.Second} {
		if st, rate, wake, ok := p.Drive(el); !ok || st.Down != 5e6 || rate != 5e6 || wake != 6*time.Second-DriveLead {
			t.Errorf("Drive(%v) = step %+v, rate %g, wake %v, ok %v; want the following step (5 Mbit/s)", el, st, rate, wake, ok)
		}
	}
	// Driven on its own deadlines, whenever a packet leaves during the
	// outage it is held to its end plus one packet at 5 Mbit/s, and at
	// most one recheck interval longer.
	n := 0
	for el := 3*time.Second - DriveLead; el < 4*time.Second-DriveLead; n++ {
		_, rate, wake, _ := p.Drive(el)
		if wake <= el {
			t.Fatalf("Drive(%v) wakes at %v", el, wake)
		}
		// The worst moment to let a packet go is just before the wake.
		if over := el + holdCost(rate) - (4*time.Second + extra); over < -time.Microsecond || over > wake-el {
			t.Errorf("hold set at %v: a packet let go then is held %v past the end, want within [0, %v]", el, over, wake-el)
		}
		el = wake
	}
	if n > 150 {
		t.Errorf("a 1 s outage took %d rate settings", n)
	}
}

func TestPlayerDriveConsecutiveAndPermanentOutages(t *testing.T) {
	tr := playerTrace(t, 5*time.Second,
		tracefmt.Step{At: 0, Down: 10e6},
		tracefmt.Step{At: 1 * time.Second, Down: 0},
		tracefmt.Step{At: 2 * time.Second, Down: 0}, // one outage of 2 s
		tracefmt.Step{At: 3 * time.Second, Down: 4e6},
		tracefmt.Step{At: 4 * time.Second, Down: 0}, // to the end
	)
	once, loop := Player{Trace: tr}, Player{Trace: tr, Loop: true}
	_, rate, _, _ := once.Drive(1500 * time.Millisecond)
	if got, want := holdCost(rate), 1500*time.Millisecond+time.Duration(1500*8/4e6*1e9); got != want {
		t.Errorf("consecutive zero steps: a packet costs %v, want %v (held to the end of both)", got, want)
	}
	if _, rate, wake, ok := once.Drive(4500 * time.Millisecond); rate != 0 || wake != 5*time.Second-DriveLead || !ok {
		t.Errorf("outage to the end of a trace that does not loop: rate %g wake %v ok %v; want 0 (permanent)", rate, wake, ok)
	}
	if _, rate, _, ok := once.Drive(time.Hour); rate != 0 || ok {
		t.Errorf("after the end: rate %g ok %v; want the last step (0) to hold", rate, ok)
	}
	_, rate, _, _ = loop.Drive(4500 * time.Millisecond)
	if got, want := holdCost(rate), 500*time.Millisecond+time.Duration(1500*8/10e6*1e9); got != want {
		t.Errorf("outage at the end of a looped trace: a packet costs %v, want %v (held to the wrap)", got, want)
	}
	dead := Player{Trace: playerTrace(t, time.Second, tracefmt.Step{At: 0, Down: 0}, tracefmt.Step{At: 500 * time.Millisecond, Down: 0}), Loop: true}
	if _, rate, _, ok := dead.Drive(700 * time.Millisecond); rate != 0 || !ok {
		t.Errorf("a looped trace with no capacity: rate %g ok %v, want 0", rate, ok)
	}
}

// htbModel is the kernel's HTB class with a saturated queue, reduced to what
// the trace player depends on: a packet leaves whenever the class's credit
// (time, in ns) is not negative, and is charged afterwards at the rate then
// in force; credit is capped at the burst and the debt at 60 s; a rate
// change keeps the credit. It replays a schedule of rate settings and
// returns the packets sent in [0, until).
func htbModel(settings func(el time.Duration) (rate float64, wake time.Duration, ok bool), until time.Duration) int {
	const frameBits = 1514 * 8
	const mbuffer = 60 * time.Second
	var (
		tokens, tc time.Duration // credit at the last charge, and its time
		sent       int
		now        time.Duration
		rate       float64 // wire bit/s
		wake       time.Duration
	)
	apply := func() {
		r, w, ok := settings(now)
		rate = max(r, 8) * 1514 / 1500 // as Shaper.class
		wake = w
		if !ok {
			wake = until
		}
	}
	apply()
	for now < until {
		if now >= wake {
			apply()
			continue
		}
		credit := tokens + min(now-tc, mbuffer)
		if credit < 0 { // wait for credit, or for the next setting
			now = min(tc-tokens, wake)
			continue
		}
		burst := time.Duration(max(2*frameBits, rate/1000) / rate * 1e9)
		tokens = min(credit, burst) - time.Duration(frameBits/rate*1e9)
		tokens = max(tokens, 1-mbuffer)
		tc = now
		sent++
	}
	return sent
}

// TestPlayerDriveHTBModel: through a model of HTB's charging, replaying a
// Mahimahi trace (10 ms windows, many empty) with At's rates stalls the
// link at the first empty window, while Drive's delivers the trace's
// capacity. TestFidelityTraceReplayMahimahi checks the same on the kernel.
func TestPlayerDriveHTBModel(t *testing.T) {
	full, err := traces.Load("mahimahi-verizon-lte-short", tracefmt.ReadOptions{Window: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := full.Transform(tracefmt.Options{Duration: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := Player{Trace: tr}
	want := p.MeanRate(0, tr.End) * tr.End.Seconds() / (1500 * 8)
	naive := htbModel(func(el time.Duration) (float64, time.Duration, bool) {
		_, r, next, ok := p.At(el)
		return r, next, ok
	}, tr.End)
	drive := htbModel(func(el time.Duration) (float64, time.Duration, bool) {
		_, r, next, ok := p.Drive(el)
		return r, next, ok
	}, tr.End)
	t.Logf("trace capacity %.0f packets in %v; model HTB delivers %d with At's rates, %d with Drive's", want, tr.End, naive, drive)
	if float64(naive) > 0.2*want {
		t.Errorf("the model does not show the stall that Drive avoids: %d of %.0f packets with At's rates", naive, want)
	}
	if e := (float64(drive) - want) / want; math.Abs(e) > 0.01 {
		t.Errorf("with Drive the model delivers %d packets, %+.2f%% off the trace's %.0f", drive, 100*e, want)
	}
}
