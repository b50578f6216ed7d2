package record

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dc-emu/emu/tracefmt"
)

// Derive turns one path's recording into a trace of 10 ms steps (rates,
// each direction's one-way delay and loss) and the warnings a reader of
// it must see. It fails when a direction received nothing.
func Derive(p Path, source string) (*tracefmt.Trace, []string, error) {
	n := min(len(p.Down.Bins), len(p.Up.Bins))
	if n == 0 {
		return nil, nil, errors.New("nothing was recorded")
	}
	for _, d := range []struct {
		name string
		b    Bins
	}{{"downlink", p.Down}, {"uplink", p.Up}} {
		var got int64
		for _, b := range d.b.Bins[:n] {
			got += int64(b.Got) + int64(b.ProbeCount())
		}
		if got == 0 {
			return nil, nil, fmt.Errorf("no packet of the %s arrived in %v: the path loses everything (or a firewall drops UDP)", d.name, time.Duration(n)*Step)
		}
	}
	t := &tracefmt.Trace{Source: source, Format: tracefmt.FormatCSV, End: time.Duration(n) * Step,
		HasUp: true, HasDelay: true, HasUpDelay: true, HasLoss: true, HasUpLoss: true}
	t.Steps = make([]tracefmt.Step, n)
	// The raw one-way delays are differences of two clocks; the offset
	// (far minus near) comes off with the sign of each direction.
	down := series(p.Down, n, p.Offset)
	up := series(p.Up, n, -p.Offset)
	for i := range t.Steps {
		t.Steps[i] = tracefmt.Step{
			At:    time.Duration(i) * Step,
			Down:  down.rate[i],
			Up:    up.rate[i],
			Delay: down.delay[i], UpDelay: up.delay[i],
			Loss: down.loss[i], UpLoss: up.loss[i],
		}
	}
	if err := t.Validate(); err != nil {
		return nil, nil, err
	}
	var warn []string
	for _, s := range []struct {
		dir string
		st  SenderStat
	}{{"downlink", p.DownSender}, {"uplink", p.UpSender}} {
		if s.st.Steps == 0 {
			continue
		}
		if f := float64(s.st.Behind) / float64(s.st.Steps); f > 0.2 {
			warn = append(warn, fmt.Sprintf("the %s's sender fell behind its pace in %.0f %% of the steps (timers late, a CPU too busy): where no queue stood then, the recording measured the sender, not the path", s.dir, 100*f))
		}
		if f := float64(s.st.AtMax) / float64(s.st.Steps); f > 0.05 {
			warn = append(warn, fmt.Sprintf("the %s was held at the maximum rate (%.0f Mbit/s) with no queue in %.0f %% of the steps: the path may carry more (raise --max-rate)", s.dir, s.st.MaxRate/1e6, 100*f))
		}
	}
	if down.noDelay > n/10 || up.noDelay > n/10 {
		warn = append(warn, fmt.Sprintf("no packet found the queue empty within %v of %d (down) and %d (up) of %d steps: their delay is the nearest such packet's", time.Duration(baseReach)*Step, down.noDelay, up.noDelay, n))
	}
	if !p.SameHost && p.OffsetUncertainty > time.Millisecond {
		warn = append(warn, fmt.Sprintf("the two ends' clocks differ by %.3f ms, known within ±%.3f ms (half the least round trip): each direction's delay is as uncertain",
			float64(p.Offset)/1e6, float64(p.OffsetUncertainty)/1e6))
	}
	return t, warn, nil
}

// ProbeCount is how many probes arrived in the bin (0 or more; probes
// come every ProbeEvery, so at most a few).
func (b Bin) ProbeCount() int {
	if b.ProbeOWD == noDelay {
		return 0
	}
	return 1
}

// dirSeries is one direction's values, a step each.
type dirSeries struct {
	rate    []float64
	delay   []time.Duration
	loss    []float64
	noDelay int // steps without any delay sample in their window
}

// baseReach is how far from a step Derive takes a drained packet's delay
// for it: a few pacer cycles, so a drain that failed is bridged.
const baseReach = 3 * int(cycle/Step)

// lossWindow is how many steps on each side of a step its loss is
// estimated over: half a second.
const lossWindow = 50

// A drained packet's delay is kept when it is within baseSlack of the
// least delay within baseCheck steps on either side.
const (
	baseCheck = 3
	baseSlack = 500 * time.Microsecond
)

// stepAt is the first step that takes the delay of the drained packet in
// step j2 rather than that of the one in step j1 < j2 (j2 < 0: none). A
// drained packet comes once a pause cycle, and a rise is believed only at
// the second: the nearer one's delay put the steps of simulated links
// 200 ms off at the median (TestRecordingPlacesDelaySteps). Every packet
// between them says more: after a rise none is faster than the new
// delay, before a fall none is faster than the old one. So a rise is
// where the least delay per step stays at the new delay, within
// stepSlack, through j2; a fall is at the first step whose least delay is
// under the old one by stepSlack. Where the two differ by less than
// stepSlack, or no packet between tells, the nearer one's.
func stepAt(b Bins, j1, j2 int) int {
	if j2 < 0 {
		return math.MaxInt
	}
	d1, d2 := b.Bins[j1].Base, b.Bins[j2].Base
	switch {
	case d2 > d1+int64(stepSlack):
		k := j2
		for k > j1+1 && b.Bins[k-1].MinOWD >= d2-int64(stepSlack) {
			k--
		}
		return k
	case d2 < d1-int64(stepSlack):
		for k := j1 + 1; k < j2; k++ {
			if b.Bins[k].MinOWD < d1-int64(stepSlack) {
				return k
			}
		}
	}
	return j1 + (j2-j1)/2 + 1
}

// stepSlack is how far a packet's delay may be from a drained packet's
// and still be read as the same path delay: more than the queue a
// drained packet may still have met (idleTolerance) and the stamps'
// noise.
const stepSlack = time.Millisecond

// rateReach is how many steps on each side a step's pace is measured
// over: 30 ms in all.
const rateReach = 1

// minBusy is the least busy time in a step for its rate to be the
// link's pace; below it the step holds the pace measured before.
const minBusy = 2 * time.Millisecond

// series derives one direction. offset is added to each raw delay.
func series(b Bins, n int, offset int64) dirSeries {
	s := dirSeries{rate: make([]float64, n), delay: make([]time.Duration, n), loss: make([]float64, n)}
	// Steps with a drained packet's delay that is also the least delay
	// around it: a packet that found the queue empty is the fastest
	// there, and a judgement the queue's own pace fooled is not.
	var bases []int
	for i := range n {
		base := b.Bins[i].Base
		if base == noDelay {
			continue
		}
		least := base
		for k := max(0, i-baseCheck); k <= min(n-1, i+baseCheck); k++ {
			least = min(least, b.Bins[k].MinOWD)
		}
		if base <= least+int64(baseSlack) {
			bases = append(bases, i)
		}
	}
	// Loss over a sliding window: a step's own few dozen packets make a
	// noisy estimate, and replaying that noise (most steps 0, a few at
	// several per cent) gives a loss-based controller far more than the
	// path's mean loss would (its rate goes as 1/sqrt(p)).
	lostSum := make([]int64, n+1) // prefix sums
	totalSum := make([]int64, n+1)
	for i := range n {
		bin := b.Bins[i]
		l := max(int64(bin.Lost), 0)
		l -= min(max(int64(bin.Drops), 0), l)
		lostSum[i+1] = lostSum[i] + l
		totalSum[i+1] = totalSum[i] + int64(bin.Got) + l
	}
	// The pace over each step and its neighbours, each weighted by its
	// busy time (a step with a few packets in the queue, after a pause,
	// says little on its own); nextPace is the pace of the next step that
	// has one, or the last one measured.
	pace, nextPace := make([]float64, n), make([]float64, n)
	for i := range n {
		var busyBytes, busyTime int64
		for k := max(0, i-rateReach); k <= min(n-1, i+rateReach); k++ {
			busyBytes += b.Bins[k].BusyBytes
			busyTime += b.Bins[k].BusyTime
		}
		if busyTime >= int64(minBusy) {
			pace[i] = float64(busyBytes) * 8 / time.Duration(busyTime).Seconds()
		}
	}
	next := 0.0
	for i := n - 1; i >= 0; i-- {
		if pace[i] > 0 {
			next = pace[i]
		}
		nextPace[i] = next
	}
	last := 0.0
	for i := range n {
		if pace[i] > 0 {
			last = pace[i]
		}
		if nextPace[i] == 0 {
			nextPace[i] = last
		}
	}
	var lastDelay time.Duration
	lastLoss := 0.0
	nb := 0 // the first base at or after i
	// split is the first step that takes bases[nb]'s delay rather than
	// bases[nb-1]'s, computed for nb == splitFor.
	split, splitFor := 0, -1
	for i := range n {
		bin := b.Bins[i]
		lost := max(int64(bin.Lost), 0)
		drops := min(max(int64(bin.Drops), 0), lost)
		// A lost packet used the link's capacity: the loss comes after
		// the bottleneck in emu, as on a radio link; replaying the rate
		// and the loss gives back what arrived. The rate is the link's
		// pace while a queue stood, where the step had enough of it (what
		// arrived in a step overstates it where a token bucket let a
		// burst through); otherwise what arrived or the pace before.
		delivered := float64(bin.Bytes+(lost-drops)*int64(b.Packet)) * 8 / Step.Seconds()
		if pace[i] > 0 {
			s.rate[i] = pace[i]
		} else {
			// No queue stood: the link carried all that came, at least
			// (a token bucket's burst after idle time aside). A queue
			// runs dry when the path gets faster, before the sender
			// catches up: the pace measured next is the better guess.
			s.rate[i] = max(nextPace[i], delivered)
		}
		if from, to := max(0, i-lossWindow), min(n, i+lossWindow+1); totalSum[to] > totalSum[from] {
			lastLoss = float64(lostSum[to]-lostSum[from]) / float64(totalSum[to]-totalSum[from])
		}
		s.loss[i] = lastLoss
		for nb < len(bases) && bases[nb] < i {
			nb++
		}
		j := -1
		if nb < len(bases) {
			j = bases[nb]
		}
		if nb > 0 && splitFor != nb {
			splitFor, split = nb, stepAt(b, bases[nb-1], j)
		}
		if nb > 0 && i < split {
			j = bases[nb-1]
		}
		switch {
		case j >= 0:
			// The nearest drained packet's delay, however far: the least
			// delay around a step without one holds queueing.
			lastDelay = max(time.Duration(b.Bins[j].Base+offset), 0)
			if abs(j-i) > baseReach {
				s.noDelay++
			}
		default:
			// No packet ever found the queue empty: the least delay seen
			// around, which may hold some queue.
			least := int64(noDelay)
			for k := max(0, i-baseReach); k <= min(n-1, i+baseReach); k++ {
				least = min(least, b.Bins[k].MinOWD)
			}
			s.noDelay++
			if least != noDelay {
				lastDelay = max(time.Duration(least+offset), 0)
			}
		}
		s.delay[i] = lastDelay
	}
	return s
}

func abs(x int) int { return max(x, -x) }
