package link

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/emu/replay"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/topo"
	"github.com/dc-emu/emu/tracefmt"
)

// Dir is one direction of one link, in the order a packet meets its parts:
// the rate limiter where the packet leaves a gateway (Shaper), the trace
// player that drives the limiter's rate (Player, nil for a constant rate),
// and the delay line where the packet arrives at the other gateway (Line
// and Loop, nil without delay, jitter or loss), whose delay and loss traces
// drive (Impair, nil where both are constant).
type Dir struct {
	Name  string // link1.down
	Link  int    // 0 for link1, 1 for link2
	Up    bool
	Shape Shape

	Shaper *Shaper
	Player *replay.Player
	Impair *replay.Impairments
	Line   *delayline.Line
	Loop   *delayline.Loop

	delayNow atomic.Int64 // ns; the delay a delay trace gives now

	// rateLate and impairLate are how late each trace change took effect
	// (Play's and PlayImpairments'; one writer each): a rate change late
	// by a fifth of a 10 ms window moves a fifth of its bytes.
	rateLate, impairLate delayline.Histogram
}

// NewDir installs the rate limiter of a direction on iface of node, at the
// trace's first rate when a player drives it.
func NewDir(node *topo.NodeNS, iface, name string, link int, up bool, shape Shape, sched replay.Schedule) (*Dir, error) {
	player := sched.Rate
	d := &Dir{Name: name, Link: link, Up: up, Shape: shape, Player: player, Impair: sched.Impair}
	rate := shape.Rate
	if player != nil {
		_, rate, _, _ = player.At(0)
	}
	var err error
	if d.Shaper, err = NewShaper(node, iface, rate, shape.Queue, shape.Encap); err != nil {
		return nil, err
	}
	return d, nil
}

// NeedsDelayLine reports whether the direction delays, jitters or drops
// packets, configured or driven by a trace.
func (d *Dir) NeedsDelayLine() bool {
	return d.Shape.Impaired() || d.Impair != nil
}

// StartDelayLine binds NFQUEUE num in node (the gateway where the direction
// arrives) and starts the delay line on it, seeded from the run's seed so
// each direction draws its own loss and jitter and a run repeats exactly.
func (d *Dir) StartDelayLine(node *topo.NodeNS, num uint16, runSeed uint64) error {
	p := d.shapeAt(0).delayParams()
	d.delayNow.Store(int64(p.Delay))
	line, err := delayline.New(dirSeed(runSeed, d.Name), p)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	// A trace's loss arrives later, through SetParams: the queue must
	// segment from the start.
	perPacket := p.PerPacket() || d.Impair != nil && d.Impair.Loss != nil
	q, err := nfq.Open(delayline.QueueConfig(int(node.NS), num, perPacket))
	if err != nil {
		return fmt.Errorf("%s: delay line queue %d in %s: %w", d.Name, num, node.NSName, err)
	}
	d.Line = line
	// "dl link1.down": a thread name holds 15 bytes.
	d.Loop = delayline.StartWith(q, line, delayline.Options{Name: "dl " + d.Name})
	return nil
}

// WaitDelayLine returns when ctx ends (nil) or the delay line's loop stops
// on its own (its error).
func (d *Dir) WaitDelayLine(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case <-d.Loop.Done():
		return d.Loop.Err()
	}
}

// dirSeed derives a direction's seed from the run's.
func dirSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	return h.Sum64()
}

// Play applies the trace's rate changes (and delay and loss, when the trace
// carries them) to the direction, each at its time since epoch, calling
// changed after each one (the PDCP schedulers follow the links' rates). It
// returns when ctx ends or a trace that does not loop has ended.
func (d *Dir) Play(ctx context.Context, epoch time.Time, changed func()) error {
	restore, _, err := nfq.LockThreadPriority(nfq.SchedRealtime, rtsched.PlayerPriority)
	if err != nil {
		return err
	}
	defer restore()
	due := time.Duration(-1) // the first state applies at once, not on time
	for {
		el := time.Since(epoch)
		st, rate, next, ok := d.Player.Drive(el) // not At: see Drive on outages
		set := d.Shaper.SetRate
		if d.Player.Rate(st) == 0 && rate > 0 {
			set = d.Shaper.Hold
		}
		if err := set(rate); err != nil {
			return err
		}
		if due >= 0 {
			d.rateLate.Add(time.Since(epoch) - due)
		}
		changed()
		if !ok || !sleepUntil(ctx, epoch.Add(next)) {
			return nil
		}
		due = next
	}
}

// PlayImpairments applies the delay and loss traces' changes to the delay
// line, each at its time since epoch (the rate player's epoch: both
// timelines run on one clock). It returns when ctx ends or traces that do
// not loop have ended. A packet takes the delay in force when it arrives;
// as the delay falls, packets still leave in order (a link is a FIFO), and
// the line counts those it held back (delayline.Counters.FIFOHeld).
// changed is called after each change (the PDCP schedulers that weigh the
// links' delays follow them).
func (d *Dir) PlayImpairments(ctx context.Context, epoch time.Time, changed func()) error {
	restore, _, err := nfq.LockThreadPriority(nfq.SchedRealtime, rtsched.PlayerPriority)
	if err != nil {
		return err
	}
	defer restore()
	due := time.Duration(-1)
	for {
		el := time.Since(epoch)
		_, _, next, ok := d.Impair.At(el)
		s := d.shapeAt(el)
		if err := d.Line.SetParams(s.delayParams()); err != nil {
			return fmt.Errorf("%s: %w", d.Name, err)
		}
		d.delayNow.Store(int64(s.Delay))
		if due >= 0 {
			d.impairLate.Add(time.Since(epoch) - due)
		}
		changed()
		if !ok || !sleepUntil(ctx, epoch.Add(next)) {
			return nil
		}
		due = next
	}
}

// Delay is the direction's one-way delay now: its delay trace's current
// value, or its constant delay.
func (d *Dir) Delay() time.Duration {
	if d.Impair == nil || d.Impair.Delay == nil {
		return d.Shape.Delay
	}
	return time.Duration(d.delayNow.Load())
}

// TraceDelay is the mean one-way delay (ms) the direction's delay trace
// gave over [from, to) since the epoch; ok is false without a delay trace.
func (d *Dir) TraceDelay(from, to time.Duration) (ms float64, ok bool) {
	if d.Impair == nil || d.Impair.Delay == nil {
		return 0, false
	}
	return float64(d.Impair.MeanDelay(from, to)) / 1e6, true
}

// DelayJumps are the direction's delay-trace jumps over [0, to) since the
// epoch; none without a delay trace.
func (d *Dir) DelayJumps(to time.Duration) tracefmt.Jumps {
	if d.Impair == nil {
		return tracefmt.Jumps{}
	}
	return d.Impair.Jumps(to)
}

// NominalDelay is the direction's typical one-way delay: its delay trace's
// time-weighted median, or its constant delay.
func (d *Dir) NominalDelay() time.Duration {
	if d.Impair == nil || d.Impair.Delay == nil {
		return d.Shape.Delay
	}
	st := d.Impair.Delay.Stats()
	ms := st.Delay.P50
	if d.Up && st.HasUpDelay {
		ms = st.UpDelay.P50
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// shapeAt is the direction's shape with the delay and loss its traces give
// at elapsed.
func (d *Dir) shapeAt(elapsed time.Duration) Shape {
	s := d.Shape
	if d.Impair == nil {
		return s
	}
	delay, loss, _, _ := d.Impair.At(elapsed)
	if d.Impair.Delay != nil {
		s.Delay = delay
	}
	if d.Impair.Loss != nil {
		s.Loss = loss
	}
	return s
}

// sleepUntil waits for deadline in nanosleep rather than on a Go timer: the
// runtime's timers fire up to a millisecond or two late here (it sleeps in
// epoll with millisecond timeouts), a fifth of a 10 ms Mahimahi window, and
// HTB turns a rate change that comes after the class's next send into a
// lost window (the replay tests measure both). It wakes at least every
// 20 ms to see ctx end, and reports whether it reached the deadline.
func sleepUntil(ctx context.Context, deadline time.Time) bool {
	for ctx.Err() == nil {
		d := time.Until(deadline)
		if d <= 0 {
			return true
		}
		ts := unix.NsecToTimespec(int64(min(d, 20*time.Millisecond)))
		_ = unix.Nanosleep(&ts, nil) // EINTR only cuts the nap short
	}
	return false
}

// PlayerLate is how late the direction's trace changes took effect: its
// rate trace's (Play) and its delay and loss traces' (PlayImpairments),
// each change from the time it was due to the end of applying it. Empty
// for a player that did not run.
func (d *Dir) PlayerLate() (rate, impair delayline.HistogramSnapshot) {
	return d.rateLate.Snapshot(), d.impairLate.Snapshot()
}

// Capacity returns the direction's mean capacity (bit/s) over [from, to)
// since the epoch.
func (d *Dir) Capacity(from, to time.Duration) float64 {
	if d.Player != nil {
		return d.Player.MeanRate(from, to)
	}
	return d.Shape.Rate
}

// Counters reads the direction's rate limiter and delay line counters, for
// counters.json.
func (d *Dir) Counters() results.LinkCounters {
	c := results.LinkCounters{RateBps: d.Shaper.Rate()}
	if st, err := d.Shaper.Stats(); err == nil {
		c.Qdisc = &results.QdiscCounters{Bytes: st.Bytes, Packets: st.Packets, Drops: st.Drops,
			BacklogBytes: st.BacklogBytes, BacklogPackets: st.BacklogPackets}
	}
	rate, impair := d.PlayerLate()
	if rate.Count+impair.Count > 0 {
		c.TracePlayer = &results.TracePlayerCounters{Rate: playerFigures(rate), Impairments: playerFigures(impair)}
	}
	if d.Loop != nil {
		s := d.Loop.Snapshot()
		c.DelayLine = &results.DelayLineCounters{In: s.In, Lost: s.Lost, Released: s.Released, Overflow: s.Overflow, FIFOHeld: s.FIFOHeld,
			LateUs: map[string]float64{
				"p50": float64(s.Late.Quantile(0.5).Microseconds()),
				"p99": float64(s.Late.Quantile(0.99).Microseconds()),
			},
			ReadLagUs: map[string]float64{
				"p50": float64(s.ReadLag.Quantile(0.5).Microseconds()),
				"p99": float64(s.ReadLag.Quantile(0.99).Microseconds()),
				"max": float64(s.ReadLag.Max.Microseconds()),
			}}
	}
	return c
}

// Close stops the delay line; the trace player stops with Play's context.
func (d *Dir) Close() {
	if d.Loop != nil {
		d.Loop.Close()
	}
}

// playerFigures are one player's changes and their lateness for
// counters.json; nil when it made none.
func playerFigures(h delayline.HistogramSnapshot) *results.PlayerCounters {
	if h.Count == 0 {
		return nil
	}
	return &results.PlayerCounters{Changes: h.Count, LateUs: map[string]float64{
		"p50": float64(h.Quantile(0.5).Microseconds()),
		"p99": float64(h.Quantile(0.99).Microseconds()),
		"max": float64(h.Max.Microseconds()),
	}}
}
