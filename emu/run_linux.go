package emu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/topo"
)

// Port bases of the flows' servers; flow i listens on base+i.
const (
	quicPortBase = 4433
	tcpPortBase  = 8443
)

// flowRun is one flow's endpoints and what they reported.
type flowRun struct {
	config.Flow
	index  int
	server *process
	client *process

	mu        sync.Mutex
	started   bool
	bytes     int64
	lastBytes time.Time // when bytes last grew
	done      *endpoint.Event
	failure   string
	finished  bool
	serverCC  string // as the server reported it
	// bytes and time at the last status line, for the live rate
	statusBytes int64
	statusAt    time.Time
}

// Run builds the network of cfg, runs its flows and writes the run
// directory (docs/results.md). It returns the summary even when the run
// failed or was interrupted, together with the error.
func Run(ctx context.Context, cfg config.Config, o RunOptions) (*results.Summary, error) {
	if err := checkEndpoints(cfg); err != nil {
		return nil, err
	}
	em, err := Start(ctx, cfg, StartOptions{ID: o.ID, Command: "run", Log: o.Log})
	if err != nil {
		return nil, err
	}
	defer em.Close()
	return em.RunFlows(ctx, o)
}

// RunFlows runs the configuration's flows over a started emulation and
// writes the run directory. An emulation runs its flows once.
func (em *Emulation) RunFlows(ctx context.Context, o RunOptions) (*results.Summary, error) {
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
	for _, d := range []string{"", "flows", "qlog", "logs", "tls"} {
		if err := os.MkdirAll(filepath.Join(o.Out, d), 0o755); err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
	}
	// Endpoints keep scratch files (ngtcp2's document root and downloads)
	// in their own TMPDIR, removed here even if they were killed.
	scratch, err := os.MkdirTemp("", "emu-run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	r := &runner{em: em, cfg: em.Config, o: o, started: time.Now(), scratch: scratch}
	return r.run(ctx)
}

// checkEndpoints fails early when a flow needs a binary that is missing.
func checkEndpoints(cfg config.Config) error {
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

type runner struct {
	em      *Emulation
	cfg     config.Config
	o       RunOptions
	started time.Time
	flows   []*flowRun
	samples []linkSample
	certs   struct{ cert, key string }
	scratch string
}

func (r *runner) run(ctx context.Context) (*results.Summary, error) {
	if err := results.WriteJSON(filepath.Join(r.o.Out, "config.json"), r.configRecord()); err != nil {
		return nil, err
	}
	cert, key, err := endpoint.WriteSelfSigned(filepath.Join(r.o.Out, "tls"), topo.ServerAddr)
	if err != nil {
		return nil, err
	}
	r.certs.cert, r.certs.key = cert, key
	for i, f := range r.cfg.Flows {
		r.flows = append(r.flows, &flowRun{Flow: f, index: i})
	}
	runErr := r.startServers(ctx)
	if runErr == nil {
		runErr = r.monitor(ctx)
	}
	r.stopAll()
	sum := r.summarize(runErr)
	if err := r.writeResults(sum); err != nil {
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

// serverListen returns the listening address of flow i's server.
func serverListen(f config.Flow, i int) string {
	port := quicPortBase + i
	if f.Proto == "tcp" {
		port = tcpPortBase + i
	}
	return netip.AddrPortFrom(topo.ServerAddr, uint16(port)).String()
}

func (r *runner) startServers(ctx context.Context) error {
	srv, err := r.em.Net.Node("srv")
	if err != nil {
		return err
	}
	for _, f := range r.flows {
		sc := endpoint.ServerConfig{
			Impl: endpoint.Impl(f.ServerImpl), Proto: endpoint.Proto(f.Proto),
			Listen: serverListen(f.Flow, f.index), CertFile: r.certs.cert, KeyFile: r.certs.key,
			CC: f.CC,
		}
		if f.Proto == "quic" {
			sc.QlogFile = filepath.Join(r.o.Out, "qlog", f.Name+"-server.sqlog")
		}
		if f.Size > 0 {
			sc.Sizes = []int64{f.Size}
		}
		p, err := startProcess(srv, f.Name+" server", r.o.Binary, endpoint.ServerArgs(sc), filepath.Join(r.o.Out, "logs", f.Name+"-server.log"), r.scratch)
		if err != nil {
			return err
		}
		f.server = p
		if err := waitReady(ctx, p, 15*time.Second); err != nil {
			return fmt.Errorf("flow %s: server: %w", f.Name, err)
		}
		go f.followServer(p)
	}
	return nil
}

// waitReady waits for a server's ready event.
func waitReady(ctx context.Context, p *process, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				return errors.New(p.failure())
			}
			if ev.Kind == endpoint.EventReady {
				return nil
			}
		case <-t.C:
			return fmt.Errorf("not ready after %v", timeout)
		case <-ctx.Done():
			return ErrInterrupted
		}
	}
}

// followServer records the congestion control the server's connections
// use (the sender's, which is what a flow's cc means).
func (f *flowRun) followServer(p *process) {
	for ev := range p.events {
		if ev.Kind == endpoint.EventAccept && ev.CC != "" {
			f.mu.Lock()
			f.serverCC = ev.CC
			f.mu.Unlock()
		}
	}
}

// startClient starts flow f's client in the namespace of its path.
func (r *runner) startClient(f *flowRun) error {
	node, err := r.em.Net.Node(topo.ClientNode(f.Path))
	if err != nil {
		return err
	}
	size := f.Size
	if size == 0 {
		size = endpoint.UnboundedSize
	}
	cc := endpoint.ClientConfig{
		Impl: endpoint.Impl(f.ClientImpl), Proto: endpoint.Proto(f.Proto),
		URL:    endpoint.BytesURL(serverListen(f.Flow, f.index), size),
		CAFile: r.certs.cert, Size: size, Duration: f.Duration,
		RcvBuf:      endpoint.RcvBuf(f.RcvBuf),
		RecvLog:     filepath.Join(r.o.Out, "flows", f.Name+".csv"),
		T0:          r.em.Epoch,
		IdleTimeout: r.cfg.Grace,
	}
	if f.Proto == "tcp" {
		cc.CC = f.CC
	}
	if f.Proto == "quic" {
		cc.QlogFile = filepath.Join(r.o.Out, "qlog", f.Name+"-client.sqlog")
		if f.ClientImpl == "ngtcp2" {
			cc.CC = f.CC
		}
	}
	p, err := startProcess(node, f.Name+" client", r.o.Binary, endpoint.ClientArgs(cc), filepath.Join(r.o.Out, "logs", f.Name+"-client.log"), r.scratch)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.client, f.started, f.lastBytes = p, true, time.Now()
	f.mu.Unlock()
	go r.follow(f, p)
	return nil
}

// follow records a client's events until it exits.
func (r *runner) follow(f *flowRun, p *process) {
	for ev := range p.events {
		f.mu.Lock()
		switch ev.Kind {
		case endpoint.EventProgress:
			if ev.Bytes > f.bytes {
				f.bytes, f.lastBytes = ev.Bytes, time.Now()
			}
		case endpoint.EventDone:
			e := ev
			f.done = &e
			f.bytes = max(f.bytes, ev.Bytes)
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	f.finished = true
	if f.done == nil {
		f.failure = "client " + p.failure()
	} else if f.done.Error != "" && f.done.Error != "interrupted" {
		f.failure = f.done.Error
	} else if !f.done.Complete && f.done.Error == "" {
		f.failure = "client " + p.failure()
	}
	f.mu.Unlock()
}

// deadline is when a run whose flows all have durations must be over; zero
// when some flow is size-limited (then a stall watchdog guards the run).
func (r *runner) deadline() time.Time {
	var end time.Duration
	for _, f := range r.cfg.Flows {
		if f.Duration <= 0 {
			return time.Time{}
		}
		end = max(end, f.Start+f.Duration)
	}
	return r.em.Epoch.Add(end + r.cfg.Grace)
}

// monitor starts clients on time, samples the links every 100 ms, prints
// the live line every second and decides when the run is over.
func (r *runner) monitor(ctx context.Context) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := r.deadline()
	var lastStatus time.Time
	for {
		now := time.Now()
		el := now.Sub(r.em.Epoch)
		for _, f := range r.flows {
			f.mu.Lock()
			due := !f.started && el >= f.Start
			f.mu.Unlock()
			if due {
				if err := r.startClient(f); err != nil {
					return fmt.Errorf("flow %s: client: %w", f.Name, err)
				}
			}
		}
		r.sample(el)
		allDone := true
		for _, f := range r.flows {
			f.mu.Lock()
			finished, failure, stalled := f.finished, f.failure, f.started && !f.finished && now.Sub(f.lastBytes) > r.cfg.Grace
			f.mu.Unlock()
			if failure != "" {
				return fmt.Errorf("flow %s: %s", f.Name, failure)
			}
			if stalled {
				return fmt.Errorf("flow %s: no data for %v (run.grace)", f.Name, r.cfg.Grace)
			}
			if !finished {
				allDone = false
			}
			select {
			case <-f.server.done:
				if !finished {
					return fmt.Errorf("flow %s: server %s", f.Name, f.server.failure())
				}
			default:
			}
		}
		if allDone {
			return nil
		}
		if !deadline.IsZero() && now.After(deadline) {
			return fmt.Errorf("run did not end within its flows' duration plus run.grace (%v)", r.cfg.Grace)
		}
		if r.o.Status != nil && now.Sub(lastStatus) >= time.Second {
			lastStatus = now
			fmt.Fprintln(r.o.Status, r.statusLine(now, deadline))
		}
		select {
		case <-ctx.Done():
			return ErrInterrupted
		case err := <-r.em.Failed():
			return err
		case <-tick.C:
		}
	}
}

// stopAll interrupts clients (they report what they measured) and stops
// servers (their qlog files end cleanly).
func (r *runner) stopAll() {
	var wg sync.WaitGroup
	for _, f := range r.flows {
		f.mu.Lock()
		c := f.client
		f.mu.Unlock()
		if c != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-c.done:
				default:
					c.signal(syscall.SIGINT)
					select {
					case <-c.done:
					case <-time.After(5 * time.Second):
						c.signal(syscall.SIGKILL)
						<-c.done
					}
				}
			}()
		}
	}
	wg.Wait()
	for _, f := range r.flows {
		if f.server != nil {
			wg.Add(1)
			go func() { defer wg.Done(); f.server.stop(5 * time.Second) }()
		}
	}
	wg.Wait()
}

var execLookPath = exec.LookPath
