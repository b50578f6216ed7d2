package endpoint

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/dc-emu/emu/emu/internal/mptcp"
	"github.com/dc-emu/emu/emu/internal/tcpinfo"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
)

// DefaultTCPInfoInterval is the TCP_INFO sampling interval when
// ServerConfig.TCPInfoInterval is zero.
const DefaultTCPInfoInterval = 10 * time.Millisecond

// tcpInfoLogs gives each accepted connection of the Go TCP server its own
// TCP_INFO log (the first to path, later ones numbered like qlog files) and
// one sampler goroutine that stops with the connection.
type tcpInfoLogs struct {
	path     string
	interval time.Duration
	t0       time.Time
	diag     *mptcp.Diag // subflows' congestion control; nil: not recorded
	log      io.Writer

	mu sync.Mutex
	n  int
	wg sync.WaitGroup
}

// start opens the connection's log and starts sampling it every interval.
// The returned stop takes a last sample, closes the log and waits; call it
// before the socket is closed.
func (l *tcpInfoLogs) start(c *net.TCPConn, cc string, isMPTCP bool) (stop func(), err error) {
	l.mu.Lock()
	l.n++
	name := numberedPath(l.path, l.n)
	l.mu.Unlock()
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	f, err := invoker.Create(name)
	if err != nil {
		return nil, fmt.Errorf("tcpinfo log: %w", err)
	}
	s := &sampler{f: f, w: results.NewTCPInfoWriter(f), t0: l.t0, diag: l.diag, cc: cc, log: l.log, rc: rc}
	s.local, _ = netip.ParseAddrPort(c.LocalAddr().String())
	s.remote, _ = netip.ParseAddrPort(c.RemoteAddr().String())
	if isMPTCP {
		s.mp = mptcp.NewReader(rc, 0)
	} else {
		s.tcp = tcpinfo.NewReader(rc)
	}
	done := make(chan struct{})
	quit := make(chan struct{})
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer close(done)
		s.run(l.interval, quit)
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-done }) }, nil
}

// wait blocks until every sampler has written and closed its log.
func (l *tcpInfoLogs) wait() { l.wg.Wait() }

// sampler samples one connection. It belongs to its goroutine.
type sampler struct {
	f   *os.File
	w   *results.TCPInfoWriter
	t0  time.Time
	log io.Writer

	rc            syscall.RawConn
	tcp           *tcpinfo.Reader // plain TCP
	mp            *mptcp.Reader   // MPTCP
	local, remote netip.AddrPort
	cc            string // plain TCP: the connection's controller

	diag  *mptcp.Diag
	ccs   []subflowCC // MPTCP: controllers of the subflows seen so far
	lastT float64     // t_s of the last sample
	err   error
}

type subflowCC struct {
	id uint32
	cc string
}

func (s *sampler) run(interval time.Duration, quit <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for s.err == nil {
		select {
		case <-t.C:
			// The reading's own time: a tick's value can be older than a
			// late tick delivered before it, and rows must not go back.
			s.sample(time.Now())
		case <-quit:
			s.sample(time.Now())
			s.close()
			return
		}
	}
	// The socket went away under the sampler (or the disk filled): keep
	// what was written and say why sampling stopped.
	fmt.Fprintf(s.log, "endpoint: tcpinfo log %s: %v\n", s.f.Name(), s.err)
	s.close()
	<-quit
}

func (s *sampler) close() {
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(s.log, "endpoint: tcpinfo log %s: %v\n", s.f.Name(), err)
	}
}

// sample writes one row per subflow (one row for plain TCP). It does not
// allocate, except once for each new subflow's congestion control.
func (s *sampler) sample(now time.Time) {
	t := max(now.Sub(s.t0).Seconds(), s.lastT) // the wall clock may step back
	s.lastT = t
	if s.tcp != nil {
		i, err := s.tcp.Read()
		if err != nil {
			s.err = err
			return
		}
		s.err = s.w.Write(tcpInfoRow(t, 0, s.local, s.remote, i, s.cc))
		return
	}
	snap, err := s.mp.Read()
	if errors.Is(err, mptcp.ErrNotMPTCP) {
		// Fell back to plain TCP mid-connection (an infinite mapping):
		// the socket is now its one subflow; go on sampling it as TCP.
		fmt.Fprintf(s.log, "endpoint: tcpinfo log %s: %v; %s\n", s.f.Name(), ErrMPTCPFallback, mptcp.FallbackReason())
		s.mp, s.tcp = nil, tcpinfo.NewReader(s.rc)
		s.sample(now)
		return
	}
	if err != nil {
		s.err = err
		return
	}
	for _, sf := range snap.Subflows {
		if st := sf.TCP.State; st == 0 || st == tcpinfo.StateClose {
			// A subflow already torn down (all counters zero), or the
			// unconnected socket the kernel keeps as the first subflow
			// after the connection closed: no sample of the flow.
			continue
		}
		if s.err = s.w.Write(tcpInfoRow(t, sf.ID, sf.Local, sf.Remote, sf.TCP, s.subflowCC(sf))); s.err != nil {
			return
		}
	}
}

// subflowCC returns the congestion control of a subflow, asking the kernel
// the first time the subflow is seen.
func (s *sampler) subflowCC(sf mptcp.Subflow) string {
	for _, c := range s.ccs {
		if c.id == sf.ID {
			return c.cc
		}
	}
	var cc string
	if s.diag != nil {
		var err error
		if cc, err = s.diag.Congestion(sf.Local, sf.Remote); err != nil {
			fmt.Fprintf(s.log, "endpoint: tcpinfo log: subflow %d: %v\n", sf.ID, err)
		}
	}
	s.ccs = append(s.ccs, subflowCC{sf.ID, cc})
	return cc
}

// tcpInfoRow is one log row of a tcp_info; fields the kernel did not
// return are unknown, not zero.
func tcpInfoRow(t float64, subflow uint32, local, remote netip.AddrPort, i tcpinfo.Info, cc string) results.TCPInfoRow {
	ms := func(f tcpinfo.Field, d time.Duration) float64 {
		if !i.Has(f) {
			return math.NaN()
		}
		return float64(d) / float64(time.Millisecond)
	}
	n := func(f tcpinfo.Field, v uint64) int64 {
		if !i.Has(f) {
			return results.Unknown
		}
		return int64(v)
	}
	mbps := func(f tcpinfo.Field, bytesPerSec uint64) float64 {
		if !i.Has(f) {
			return math.NaN()
		}
		return float64(bytesPerSec) * 8 / 1e6
	}
	r := results.TCPInfoRow{T: t, Subflow: subflow, Local: local, Remote: remote, CC: cc,
		SRTTMs: ms(tcpinfo.SRTT, i.SRTT), RTTVarMs: ms(tcpinfo.RTTVar, i.RTTVar), MinRTTMs: ms(tcpinfo.MinRTT, i.MinRTT),
		BytesAcked: n(tcpinfo.BytesAcked, i.BytesAcked), BytesSent: n(tcpinfo.BytesSent, i.BytesSent),
		BytesRetrans: n(tcpinfo.BytesRetrans, i.BytesRetrans), TotalRetrans: n(tcpinfo.TotalRetrans, uint64(i.TotalRetrans)),
		Lost:             n(tcpinfo.Lost, uint64(i.Lost)),
		DeliveryRateMbps: mbps(tcpinfo.DeliveryRate, i.DeliveryRate), PacingRateMbps: mbps(tcpinfo.PacingRate, i.PacingRate),
		CwndBytes: results.Unknown, InFlightBytes: results.Unknown}
	if v, ok := i.CwndBytes(); ok {
		r.CwndBytes = int64(v)
	}
	if v, ok := i.InFlightBytes(); ok {
		r.InFlightBytes = int64(v)
	}
	return r
}

// newTCPInfoLogs prepares the TCP_INFO logs of a server; nil when it has
// none. It opens the sock_diag socket for the subflows' congestion control
// here, on the thread that will listen, so it sees the listener's
// namespace also when the server runs in-process inside one.
func newTCPInfoLogs(cfg *ServerConfig) (*tcpInfoLogs, error) {
	if cfg.TCPInfoLog == "" {
		return nil, nil
	}
	l := &tcpInfoLogs{path: cfg.TCPInfoLog, interval: cfg.TCPInfoInterval, t0: cfg.T0, log: cfg.Log}
	if l.t0.IsZero() {
		l.t0 = time.Now()
	}
	if cfg.MPTCP {
		d, err := mptcp.OpenDiag(0)
		if err != nil {
			return nil, fmt.Errorf("tcpinfo log: %w", err)
		}
		l.diag = d
	}
	return l, nil
}

// close waits for the samplers and releases the sock_diag socket.
func (l *tcpInfoLogs) close() {
	if l == nil {
		return
	}
	l.wait()
	if l.diag != nil {
		l.diag.Close()
	}
}

// sample starts sampling c and returns the connection the server serves:
// c itself without logs, else c with a Close that ends the sampler first.
func (l *tcpInfoLogs) sample(c *net.TCPConn, cc string, isMPTCP bool) (net.Conn, error) {
	if l == nil {
		return c, nil
	}
	stop, err := l.start(c, cc, isMPTCP)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("accepted %s: %w", c.RemoteAddr(), err)
	}
	return &sampledConn{TCPConn: c, stop: stop}, nil
}

// sampledConn is a served connection whose TCP_INFO is being logged.
type sampledConn struct {
	*net.TCPConn
	stop func()
}

// Close takes the last sample and closes the log before the socket.
func (c *sampledConn) Close() error {
	c.stop()
	return c.TCPConn.Close()
}
