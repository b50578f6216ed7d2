package emu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/topo"
)

// Emulation is a running emulated network: the topology of a configuration
// with its links shaped, its delay lines and PDCP proxies running and its
// traces replaying. `emu up` keeps one until Ctrl-C; `emu run` runs flows
// over one.
type Emulation struct {
	Config Config
	ID     string
	Net    *topo.Net
	// Epoch is when trace replay started; time series count from it.
	Epoch time.Time
	// Backends says which mechanism emulates what (recorded in results).
	Backends map[string]string

	// Warnings are configuration warnings recorded in results.
	Warnings []string

	dirs    []*linkDir
	proxies []*proxyPair

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	failed chan error // first fatal error of a background loop
	log    io.Writer

	closeOnce sync.Once
	closeErr  error
}

// linkDir is one direction of one link: its rate limiter, delay line and
// trace player.
type linkDir struct {
	name   string // link1.down
	link   int    // 0 or 1
	up     bool
	shape  Shape
	shaper *Shaper
	player *Player
	line   *delayline.Line // nil without delay, jitter or loss
	loop   *delayline.Loop
}

// Start builds the network of cfg and starts emulating it. On error nothing
// is left behind. The caller must Close the emulation.
func Start(ctx context.Context, cfg Config, o StartOptions) (*Emulation, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if o.ID == "" {
		o.ID = NewRunID()
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()>>1 | 1
	}
	players, err := loadTraces(&cfg)
	if err != nil {
		return nil, err
	}
	spec := TopologyOf(cfg, o.ID)
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	e := &Emulation{Config: cfg, ID: o.ID, Backends: map[string]string{"rate": "htb"}, failed: make(chan error, 1), log: o.Log}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	// The state file comes first: whatever happens next, emu clean can find
	// this run's namespaces.
	if err := WriteState(RunState{ID: o.ID, Command: o.Command, Started: time.Now(), Nodes: nodeInfos(spec)}); err != nil {
		return nil, err
	}
	e.Net, err = topo.Build(ctx, spec)
	if err != nil {
		RemoveState(o.ID)
		return nil, err
	}
	if err := e.setup(ctx, players, o); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	return e, nil
}

// Nodes describes the nodes for users.
func (e *Emulation) Nodes() []NodeInfo { return nodeInfos(e.Net.Spec) }

func (e *Emulation) setup(ctx context.Context, players [2][2]*Player, o StartOptions) error {
	gws, err := e.Net.Node("gws")
	if err != nil {
		return err
	}
	gwc, err := e.Net.Node("gwc")
	if err != nil {
		return err
	}
	// Downlink is limited where it leaves gws, uplink where it leaves gwc.
	for i := range e.Config.Links {
		for _, up := range []bool{false, true} {
			d := &linkDir{link: i, up: up}
			node, shape, dir := gws, e.Config.Links[i].Down, "down"
			if up {
				node, shape, dir = gwc, e.Config.Links[i].Up, "up"
				d.player = players[i][1]
			} else {
				d.player = players[i][0]
			}
			d.name, d.shape = fmt.Sprintf("link%d.%s", i+1, dir), shape
			rate := shape.Rate
			if d.player != nil {
				_, rate, _, _ = d.player.At(0)
			}
			if d.shaper, err = NewShaper(node, fmt.Sprintf("l%d", i+1), rate, shape.Queue); err != nil {
				return err
			}
			e.dirs = append(e.dirs, d)
		}
	}
	if err := e.startDatapath(ctx, o); err != nil {
		return err
	}
	e.Epoch = time.Now()
	for _, d := range e.dirs {
		if d.player != nil {
			e.goLoop(d.name+" trace player", func(ctx context.Context) error { return e.play(ctx, d) })
		}
	}
	return nil
}

// goLoop runs a background loop; its error (other than cancellation) fails
// the emulation.
func (e *Emulation) goLoop(name string, f func(ctx context.Context) error) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		if err := f(e.ctx); err != nil && e.ctx.Err() == nil {
			select {
			case e.failed <- fmt.Errorf("%s: %w", name, err):
			default:
			}
		}
	}()
}

// Failed delivers the first fatal error of the emulation's background
// loops (a delay line or proxy that stopped, a rate change the kernel
// refused).
func (e *Emulation) Failed() <-chan error { return e.failed }

// play applies a trace's rate changes to a link direction, each at its
// time since Epoch.
func (e *Emulation) play(ctx context.Context, d *linkDir) error {
	for {
		el := time.Since(e.Epoch)
		st, rate, next, ok := d.player.Drive(el) // not At: see Drive on outages
		set := d.shaper.SetRate
		if d.player.rate(st) == 0 && rate > 0 {
			set = d.shaper.Hold
		}
		if err := set(rate); err != nil {
			return err
		}
		e.applyTraceImpairments(d, st)
		e.updateSchedulers()
		if !ok || !sleepUntil(ctx, e.Epoch.Add(next)) {
			return nil
		}
	}
}

// sleepUntil waits for deadline in nanosleep rather than on a Go timer: the
// runtime's timers fire up to a millisecond or two late here (it sleeps in
// epoll with millisecond timeouts), a fifth of a 10 ms Mahimahi window, and
// HTB turns a rate change that comes after the class's next send into a
// lost window (player_linux_test.go measures both). It wakes at least every
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

// Close stops every loop, deletes the namespaces (and with them every
// kernel object of the run) and the state file. It is idempotent.
func (e *Emulation) Close() error {
	e.closeOnce.Do(func() {
		e.cancel()
		e.wg.Wait()
		e.closeDatapath()
		var err error
		if e.Net != nil {
			err = e.Net.Close()
		}
		// Keep the state file if a namespace survived: emu clean finds the
		// run's leftovers through it.
		if err == nil {
			err = RemoveState(e.ID)
		}
		e.closeErr = err
	})
	return e.closeErr
}
