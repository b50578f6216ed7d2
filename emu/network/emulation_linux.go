package network

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/replay"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/invoker"
	"github.com/dc-emu/emu/topo"
)

// machinery is what an Emulation runs on Linux: its links, proxies and
// background loops.
type machinery struct {
	dirs []*link.Dir
	// proxies are the PDCP directions: down, and up when split.
	proxies []*batchDir
	pep     *pep // nil without pep.enabled
	loopPs  int  // packet loops counted in GOMAXPROCS (reservePs)
	pinned  bool // run.rt_cpus holds the real-time threads (keepRealtimeOn)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	failed chan error // first fatal error of a background loop
	log    io.Writer

	closeOnce sync.Once
	closeErr  error
}

// Start builds the network of cfg and starts emulating it. cfg must be
// valid, as config.Resolve returns it: Start compiles it into the
// components' settings without checking it again (each component still
// refuses what it cannot do). On error nothing is left behind. The caller
// must Close the emulation.
func Start(ctx context.Context, cfg config.Config, o Options) (*Emulation, error) {
	pickID := o.ID == ""
	if o.Log == nil {
		o.Log = io.Discard
	}
	if cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()>>1 | 1
	}
	set := compile(&cfg)
	scheds, err := config.SchedulesFrom(invoker.Disk{}, &cfg) // the user's traces, with the user's permissions
	if err != nil {
		return nil, err
	}
	// The state file comes first: whatever happens next, emu clean can find
	// this run's namespaces. Claiming it also makes the id this run's alone
	// among the runs on the host (a sweep's parallel jobs, shards).
	var spec topo.Spec
	for try := 0; ; try++ {
		if pickID {
			o.ID = runstate.NewRunID()
		}
		spec = TopologyOf(cfg, o.ID, o.ExtraClients...)
		if err := spec.Validate(); err != nil {
			return nil, err
		}
		err := runstate.ClaimState(runstate.RunState{ID: o.ID, Command: o.Command, Started: time.Now(), Nodes: nodeInfos(spec)})
		if err == nil {
			break
		}
		if !pickID || !errors.Is(err, runstate.ErrIDInUse) || try == 10 {
			if errors.Is(err, runstate.ErrIDInUse) {
				err = fmt.Errorf("%w (by a live run, or a killed one: emu clean removes what it left)", err)
			}
			return nil, err
		}
	}
	e := &Emulation{Config: cfg, set: set, ID: o.ID, Backends: map[string]string{"rate": "htb"}, machinery: machinery{failed: make(chan error, 1), log: o.Log}}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.Net, err = topo.Build(ctx, spec)
	if err != nil {
		runstate.RemoveState(o.ID)
		return nil, err
	}
	if err := e.setup(ctx, scheds, o); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	return e, nil
}

// Nodes describes the nodes for users.
func (e *Emulation) Nodes() []runstate.NodeInfo { return nodeInfos(e.Net.Spec) }

func (e *Emulation) setup(ctx context.Context, scheds [2][2]replay.Schedule, o Options) error {
	if err := e.keepRealtimeOn(e.set.rtCPUs); err != nil {
		return err
	}
	gws, err := e.Net.Node("gws")
	if err != nil {
		return err
	}
	gwc, err := e.Net.Node("gwc")
	if err != nil {
		return err
	}
	// Downlink is limited where it leaves gws, uplink where it leaves gwc.
	for i, l := range e.set.links {
		iface := fmt.Sprintf("l%d", i+1)
		down, err := link.NewDir(gws, iface, fmt.Sprintf("link%d.down", i+1), i, false, l[0], scheds[i][0])
		if err != nil {
			return err
		}
		e.dirs = append(e.dirs, down)
		up, err := link.NewDir(gwc, iface, fmt.Sprintf("link%d.up", i+1), i, true, l[1], scheds[i][1])
		if err != nil {
			return err
		}
		e.dirs = append(e.dirs, up)
	}
	if err := e.startDatapath(ctx, o); err != nil {
		return err
	}
	if err := e.setupMPTCP(); err != nil {
		return err
	}
	if e.set.pep != nil {
		if err := e.startPEP(ctx); err != nil {
			return err
		}
	}
	e.Epoch = time.Now()
	for _, d := range e.dirs {
		if d.Player != nil {
			e.goLoop(d.Name+" trace player", func(ctx context.Context) error { return d.Play(ctx, e.Epoch, e.updateSchedulers) })
		}
		if d.Impair != nil && d.Line != nil {
			fmt.Fprintf(e.log, "emu: %s: %s\n", d.Name, d.Impair)
			e.goLoop(d.Name+" delay and loss player", func(ctx context.Context) error { return d.PlayImpairments(ctx, e.Epoch, e.updateSchedulers) })
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

// Close stops every loop, deletes the namespaces (and with them every
// kernel object of the run) and the state file. It is idempotent.
func (e *Emulation) Close() error {
	e.closeOnce.Do(func() {
		e.cancel()
		e.wg.Wait()
		if e.pep != nil {
			e.pep.close()
		}
		e.closeDatapath()
		if e.pinned {
			rtsched.SetCPUs(unix.CPUSet{}, 0) // cannot fail: an empty set
		}
		var err error
		if e.Net != nil {
			err = e.Net.Close()
		}
		// Keep the state file if a namespace survived: emu clean finds the
		// run's leftovers through it.
		if err == nil {
			err = runstate.RemoveState(e.ID)
		}
		e.closeErr = err
	})
	return e.closeErr
}

// Dirs are the emulated link directions, in the order link1.down,
// link1.up, link2.down, link2.up: what a run samples, judges and reports.
func (e *Emulation) Dirs() []*link.Dir { return e.dirs }

// keepRealtimeOn keeps the delay lines' and proxies' real-time threads
// (those at rtsched.PacketPriority and up, not the players or the sampler
// below them) and the runtime's monitor on cpus, for the emulation's
// life (run.rt_cpus; none: any CPU). It is the process's setting: of two
// emulations at once, the later one's holds until either ends.
func (e *Emulation) keepRealtimeOn(cpus []int) error {
	if len(cpus) == 0 {
		return nil
	}
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	if err := rtsched.SetCPUs(set, rtsched.PacketPriority); err != nil {
		return fmt.Errorf("run.rt_cpus=%s: %w", config.FormatCPUs(cpus), err)
	}
	e.pinned = true
	return nil
}
