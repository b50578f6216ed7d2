package emu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/internal/invoker"
	"github.com/dc-emu/emu/topo"
)

// Run builds the network of cfg, runs its flows and writes the run
// directory (docs/results.md). It returns the summary even when the run
// failed or was interrupted, together with the error.
func Run(ctx context.Context, cfg config.Config, o RunOptions) (*results.Summary, error) {
	if err := checkEndpoints(cfg); err != nil {
		return nil, err
	}
	if err := checkPcap(cfg); err != nil {
		return nil, err
	}
	em, err := network.Start(ctx, cfg, network.Options{ID: o.ID, Command: "run", Log: o.Log})
	if err != nil {
		return nil, err
	}
	defer em.Close()
	return RunFlows(ctx, em, o)
}

// RunFlows runs the configuration's flows over a started emulation and
// writes the run directory. An emulation runs its flows once.
func RunFlows(ctx context.Context, em *network.Emulation, o RunOptions) (*results.Summary, error) {
	if o.Out == "" {
		return nil, errors.New("run: no output directory")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		o.Binary = exe
	}
	if err := results.RunDir(o.Out).Create(); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	// Endpoints keep scratch files (ngtcp2's document root and downloads)
	// in their own TMPDIR, removed here even if they were killed, and by
	// emu clean if this process is: the state file names it first.
	scratch := runstate.ScratchDir(em.ID)
	if err := runstate.RecordScratch(em.ID, scratch); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if err := os.Mkdir(scratch, 0o700); err != nil {
		return nil, fmt.Errorf("run: scratch: %w", err)
	}
	defer os.RemoveAll(scratch)
	r := &runner{em: em, cfg: em.Config, o: o, started: time.Now(), scratch: scratch}
	return r.run(ctx)
}

// checkEndpoints fails early when a flow needs a binary that is missing.
func checkEndpoints(cfg config.Config) error {
	if err := checkWorkloads(cfg); err != nil {
		return err
	}
	for i, f := range cfg.Flows {
		for _, impl := range []struct{ key, v, bin, pkg string }{
			{"server_impl", f.ServerImpl, "gtlsserver", "ngtcp2-server"},
			{"client_impl", f.ClientImpl, "gtlsclient", "ngtcp2-client"},
		} {
			if impl.v != "ngtcp2" {
				continue
			}
			if _, err := execLookPath(impl.bin); err != nil {
				return fmt.Errorf("flows.%d.%s=ngtcp2: %s not found (apt-get install %s)", i, impl.key, impl.bin, impl.pkg)
			}
		}
	}
	return nil
}

// checkWorkloads reads what the flows need from files before anything is
// built: a CSV of object sizes, whose errors name the file and line.
func checkWorkloads(cfg config.Config) error {
	for i, f := range cfg.Flows {
		if f.Kind != config.KindObjects {
			continue
		}
		spec := f.Objects
		if spec.Dist != workload.DistCSV {
			continue
		}
		data, err := invoker.ReadFile(spec.File) // the user's file, with the user's permissions
		if err == nil {
			_, err = workload.ParseSizesCSV(spec.File, data)
		}
		if err != nil {
			return fmt.Errorf("flows.%d.objects: %w", i, err)
		}
	}
	return nil
}

// runner runs the flows of one configuration. Everything in it belongs to
// the goroutine of loop: the goroutines that follow the endpoint processes
// only send events on events.
type runner struct {
	em      *network.Emulation
	cfg     config.Config
	flows   []flowEndpoints // compiled from cfg
	o       RunOptions
	started time.Time
	state   *runloop.Run
	events  chan runloop.Event
	servers []*process // by flow; nil until started
	clients []*process
	meas    measure
	scratch string
	obs     observation // pcap_linux.go
}

// file is a run-directory path (results' slash form) under the output.
func (r *runner) file(rel string) string { return results.RunDir(r.o.Out).File(rel) }

func (r *runner) run(ctx context.Context) (*results.Summary, error) {
	if err := results.RunDir(r.o.Out).WriteConfig(r.configRecord()); err != nil {
		return nil, err
	}
	cert, key, err := endpoint.WriteSelfSigned(r.file(results.TLSDir), topo.ServerAddr)
	if err != nil {
		return nil, err
	}
	if r.flows, err = compileFlows(&r.cfg, runFiles{out: r.o.Out, cert: cert, certKey: key, epoch: r.em.Epoch}); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	r.servers = make([]*process, len(r.cfg.Flows))
	r.clients = make([]*process, len(r.cfg.Flows))
	r.events = make(chan runloop.Event, 64)
	r.state = runloop.New(r.plan())
	if err := r.startCaptures(); err != nil {
		return nil, err
	}
	r.loop(ctx)
	r.stopMeasuring() // when the run ended before its outcome was decided
	outcome, runErr := r.state.End()
	runErr = errors.Join(runErr, r.stopCaptures())
	rec := r.record(outcome, runErr)
	sum, queue := summarize(rec)
	if err := r.writeResults(sum, rec, queue); err != nil {
		runErr = errors.Join(runErr, err)
	}
	return sum, runErr
}

func (r *runner) configRecord() results.ConfigRecord {
	return results.ConfigRecord{
		Run: filepath.Base(r.o.Out), ID: r.em.ID, Scenario: r.cfg.Scenario, Seed: r.cfg.Seed,
		Started: r.started.UTC(), Params: config.Values(&r.cfg), Versions: host.CollectVersions(), Backends: r.em.Backends,
	}
}

// plan is what the run loop needs to know of the configuration.
func (r *runner) plan() runloop.Plan {
	p := runloop.Plan{Epoch: r.em.Epoch, Grace: r.cfg.Grace, Status: r.o.Status != nil}
	for _, f := range r.cfg.Flows {
		fl := runloop.Flow{Name: f.Name, Start: f.Start, Size: f.Size, Duration: f.Duration}
		if f.Kind != config.KindBulk {
			fl.Size = 0 // the live line shows no share of a size that does not apply
		}
		p.Flows = append(p.Flows, fl)
	}
	return p
}

// loop carries out what the run's state asks for and feeds it what
// happens: the endpoint processes' events, Ctrl-C (ctx), a failure of the
// emulation, and the one timer for the state's next deadline. It returns
// when the run is over: decided, and every endpoint process exited.
func (r *runner) loop(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	interrupt, failed := ctx.Done(), r.em.Failed()
	for {
		now := time.Now()
		acts, next := r.state.Step(now)
		answered := false
		for _, a := range acts {
			answered = r.do(now, a) || answered
		}
		if answered {
			continue // a start's answer may make more due at once
		}
		if r.state.Over() {
			return
		}
		var wake <-chan time.Time
		if !next.IsZero() {
			timer.Reset(time.Until(next))
			wake = timer.C
		}
		select {
		case ev := <-r.events:
			r.state.Apply(ev)
			r.observe(ev)
		case <-interrupt:
			interrupt = nil
			r.state.Apply(runloop.Event{Kind: runloop.Interrupt, At: time.Now(), Err: ErrInterrupted})
		case err := <-failed:
			failed = nil
			r.state.Apply(runloop.Event{Kind: runloop.EmulationFailed, At: time.Now(), Err: err})
		case <-wake:
		}
	}
}

// do carries out one action; it reports whether it applied an answer to
// the state (a start's).
func (r *runner) do(now time.Time, a runloop.Action) bool {
	switch a.Kind {
	case runloop.StartServer:
		r.servers[a.Flow] = r.launch(a.Flow, r.startServer, runloop.ServerStarted, serverEvent, runloop.ServerExited)
		return true
	case runloop.StartClient:
		r.clients[a.Flow] = r.launch(a.Flow, r.startClient, runloop.ClientStarted, clientEvent, runloop.ClientExited)
		r.flowStarted(a.Flow)
		return true
	case runloop.SampleLinks:
		r.sample(now)
	case runloop.Stop:
		r.stopMeasuring()
	case runloop.PrintStatus:
		fmt.Fprintln(r.o.Status, a.Line)
	case runloop.EndClient:
		r.clients[a.Flow].signal(syscall.SIGINT) // the client reports what it measured
	case runloop.KillClient:
		r.clients[a.Flow].signal(syscall.SIGKILL)
	case runloop.EndServer:
		r.servers[a.Flow].signal(syscall.SIGTERM) // the server closes its connections and qlog files
	case runloop.KillServer:
		r.servers[a.Flow].signal(syscall.SIGKILL)
	}
	// Stop needs nothing more: the state holds the outcome, and asks for
	// the endpoints to be stopped next.
	return false
}

// launch starts an endpoint of flow i, answers the state with a started
// event and follows the process; nil if it could not be started.
func (r *runner) launch(i int, start func(int) (*process, error), started runloop.EventKind,
	translate func(endpoint.Event) (runloop.Event, bool), exited runloop.EventKind) *process {
	p, err := start(i)
	r.state.Apply(runloop.Event{Kind: started, Flow: i, At: time.Now(), Err: err})
	if err != nil {
		return nil
	}
	go r.follow(i, p, translate, exited)
	return p
}

// follow sends the run's events for process p of flow i until it exits,
// and then its exit. It is all its goroutine does.
func (r *runner) follow(i int, p *process, translate func(endpoint.Event) (runloop.Event, bool), exited runloop.EventKind) {
	for ev := range p.events {
		if e, ok := translate(ev); ok {
			e.Flow, e.At = i, time.Now()
			r.events <- e
		}
	}
	r.events <- runloop.Event{Kind: exited, Flow: i, At: time.Now(), Exit: p.failure()}
}

// serverEvent and clientEvent are the run's events for an endpoint's;
// the other kinds are not a server's or not a client's.
func serverEvent(ev endpoint.Event) (runloop.Event, bool) {
	switch ev.Kind {
	case endpoint.EventReady:
		return runloop.Event{Kind: runloop.ServerReady}, true
	case endpoint.EventAccept:
		return runloop.Event{Kind: runloop.ServerAccept, CC: ev.CC}, true
	}
	return runloop.Event{}, false
}

func clientEvent(ev endpoint.Event) (runloop.Event, bool) {
	switch ev.Kind {
	case endpoint.EventProgress:
		return runloop.Event{Kind: runloop.ClientProgress, Bytes: ev.Bytes}, true
	case endpoint.EventDone:
		return runloop.Event{Kind: runloop.ClientDone, Done: runloop.Done{Bytes: ev.Bytes, Complete: ev.Complete, Error: ev.Error, Result: ev}}, true
	}
	return runloop.Event{}, false
}

// startServer starts flow i's server in the server's namespace.
func (r *runner) startServer(i int) (*process, error) {
	srv, err := r.em.Net.Node("srv")
	if err != nil {
		return nil, err
	}
	name := r.cfg.Flows[i].Name
	return startProcess(srv, name+" server", r.o.Binary, endpoint.ServerArgs(r.flows[i].server), r.file(results.EndpointLogFile(name, "server")), r.scratch)
}

// startClient starts flow i's client in the namespace of its path.
func (r *runner) startClient(i int) (*process, error) {
	f := r.cfg.Flows[i]
	node, err := r.em.Net.Node(topo.ClientNode(f.Path))
	if err != nil {
		return nil, err
	}
	return startProcess(node, f.Name+" client", r.o.Binary, endpoint.ClientArgs(r.flows[i].client), r.file(results.EndpointLogFile(f.Name, "client")), r.scratch)
}

var execLookPath = exec.LookPath
