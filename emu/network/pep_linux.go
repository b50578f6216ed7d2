package network

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/emu/internal/tcpinfo"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/topo"
)

// The PEP's plumbing in gws: the port it listens on, the mark TPROXY puts
// on the segments it delivers to the proxy's sockets, the routing table
// that delivers marked segments locally, and that rule's priority (before
// the links' mark rules, though the marks differ).
const (
	pepPort     = 7470
	pepMark     = 0x70
	pepTable    = 100
	pepRulePrio = 50
	pepNFTable  = "emu-pep"
)

// pep is a split-TCP performance-enhancing proxy in gws. TPROXY hands it
// each TCP connection a client opens to the server over link1 or link2:
// it accepts it as if it were the server (the accepted socket is the
// satellite segment, with pep.cc, pep.buffer and the routes' pep.initcwnd)
// and opens its own connection to the server from the client's address
// (IP_TRANSPARENT), so the server sees the client and the client the
// server. Bytes move between the two sockets through the kernel (io.Copy
// between TCP connections is splice(2) on Linux): no copy through user
// space per byte.
type pep struct {
	node   *topo.NodeNS
	ln     *net.TCPListener
	buffer int

	// dials ends with close: a connection to a server that does not
	// answer would otherwise hold close for the kernel's SYN retries
	// (about two minutes).
	dials  context.Context
	cancel context.CancelFunc

	wg     sync.WaitGroup
	mu     sync.Mutex
	open   map[*net.TCPConn]struct{} // both sockets of live splits
	closed bool
	done   []results.PEPConn

	conns, failed, down, up atomic.Uint64
}

// startPEP installs the PEP's rules and routes in gws and starts it.
func (e *Emulation) startPEP(ctx context.Context) error {
	gws, err := e.Net.Node("gws")
	if err != nil {
		return err
	}
	c := e.set.pep
	if err := pepRouting(gws, c.initCwnd); err != nil {
		return fmt.Errorf("pep: %w", err)
	}
	err = nft.ApplyTProxy(int(gws.NS), pepNFTable, nft.TProxyChain{
		Name: "pep", Priority: prioPEP,
		Proxy: nft.TProxy{IIfs: []string{"l1", "l2"}, Dst: topo.ServerAddr, Port: pepPort, Mark: pepMark},
	})
	if err != nil {
		return fmt.Errorf("pep: %w", err)
	}
	p := &pep{node: gws, buffer: c.buffer, open: map[*net.TCPConn]struct{}{}}
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		return sockopts(rc, true, c.cc, c.buffer)
	}}
	err = gws.Do(func() error {
		ln, err := lc.Listen(ctx, "tcp4", fmt.Sprintf("0.0.0.0:%d", pepPort))
		if err != nil {
			return err
		}
		p.ln = ln.(*net.TCPListener)
		return nil
	})
	if err != nil {
		return fmt.Errorf("pep: listen in gws (pep.cc=%q: the kernel must offer it, see /proc/sys/net/ipv4/tcp_available_congestion_control): %w", c.cc, err)
	}
	p.dials, p.cancel = context.WithCancel(context.Background())
	e.pep = p
	what := "cc " + c.cc
	if c.cc == "" {
		what = "the kernel's cc"
	}
	e.Backends["pep"] = fmt.Sprintf("split-TCP proxy in gws (nft tproxy, IP_TRANSPARENT, splice), satellite side: %s, initcwnd %d, buffer %d B", what, c.initCwnd, c.buffer)
	p.wg.Add(1)
	go p.accept()
	return nil
}

// pepRouting delivers the marked segments locally (the TPROXY recipe:
// a policy rule and a local default route in a table of its own) and sets
// the initial window of the gateway's routes to the link clients, which
// only the PEP's own connections use (forwarded packets have no window).
func pepRouting(gws *topo.NodeNS, initCwnd int) error {
	h := gws.Handle
	rule := netlink.NewRule()
	rule.Priority, rule.Table, rule.Family = pepRulePrio, pepTable, unix.AF_INET
	mask := uint32(0xffffffff)
	rule.Mark, rule.Mask = pepMark, &mask
	if err := h.RuleAdd(rule); err != nil {
		return fmt.Errorf("policy rule fwmark %#x lookup %d: %w", pepMark, pepTable, err)
	}
	lo, err := gws.Link("lo")
	if err != nil {
		return err
	}
	_, all, _ := net.ParseCIDR("0.0.0.0/0")
	local := &netlink.Route{Dst: all, Type: unix.RTN_LOCAL, Table: pepTable, LinkIndex: lo.Attrs().Index, Scope: unix.RT_SCOPE_HOST}
	if err := h.RouteReplace(local); err != nil {
		return fmt.Errorf("local route in table %d: %w", pepTable, err)
	}
	if initCwnd == 0 {
		return nil
	}
	for _, path := range []string{config.PathLink1, config.PathLink2} {
		dst := topo.ClientSubnet(path)
		routes, err := h.RouteListFiltered(unix.AF_INET, &netlink.Route{Dst: prefixNet(dst)}, netlink.RT_FILTER_DST)
		if err != nil {
			return fmt.Errorf("routes to %s: %w", dst, err)
		}
		for _, r := range routes {
			r.InitCwnd = initCwnd
			if err := h.RouteReplace(&r); err != nil {
				return fmt.Errorf("initcwnd %d on the route to %s: %w", initCwnd, dst, err)
			}
		}
	}
	return nil
}

func prefixNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

// sockopts sets a PEP socket's options before it binds: IP_TRANSPARENT
// (to accept for, and connect from, addresses not its own), its
// congestion control (cc, the satellite side only) and its buffers.
func sockopts(rc syscall.RawConn, transparent bool, cc string, buffer int) error {
	var err error
	cerr := rc.Control(func(fd uintptr) {
		if transparent {
			if err = unix.SetsockoptInt(int(fd), unix.SOL_IP, unix.IP_TRANSPARENT, 1); err != nil {
				err = fmt.Errorf("IP_TRANSPARENT: %w", err)
				return
			}
		}
		if cc != "" {
			if err = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc); err != nil {
				err = fmt.Errorf("TCP_CONGESTION %s: %w", cc, err)
				return
			}
		}
		if buffer > 0 {
			for _, opt := range []int{unix.SO_SNDBUF, unix.SO_RCVBUF} {
				if err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, opt, buffer); err != nil {
					err = fmt.Errorf("socket buffer %d B: %w", buffer, err)
					return
				}
			}
		}
	})
	return errors.Join(cerr, err)
}

func (p *pep) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.AcceptTCP()
		if err != nil {
			return // closed
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.wg.Add(1)
		go p.split(c)
	}
}

// track registers a live socket, unless the PEP is closing.
func (p *pep) track(c *net.TCPConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.open[c] = struct{}{}
	return true
}

func (p *pep) untrack(c *net.TCPConn) {
	p.mu.Lock()
	delete(p.open, c)
	p.mu.Unlock()
	c.Close()
}

// split connects to the server from the client's address and carries the
// connection's bytes both ways until both have ended.
func (p *pep) split(sat *net.TCPConn) {
	defer p.wg.Done()
	defer p.untrack(sat)
	client := sat.RemoteAddr().(*net.TCPAddr)
	server := sat.LocalAddr().(*net.TCPAddr) // the original destination
	d := net.Dialer{
		LocalAddr: &net.TCPAddr{IP: client.IP},
		Control:   func(_, _ string, rc syscall.RawConn) error { return sockopts(rc, true, "", p.buffer) },
	}
	var srv *net.TCPConn
	err := p.node.Do(func() error {
		c, err := d.DialContext(p.dials, "tcp4", server.String())
		if err == nil {
			srv = c.(*net.TCPConn)
		}
		return err
	})
	if err != nil || !p.track(srv) {
		p.failed.Add(1)
		if srv != nil {
			srv.Close()
		}
		return
	}
	defer p.untrack(srv)
	p.conns.Add(1)
	var up, down int64
	var copies sync.WaitGroup
	copies.Add(1)
	go func() {
		defer copies.Done()
		up, _ = io.Copy(srv, sat)
		srv.CloseWrite()
	}()
	down, _ = io.Copy(sat, srv)
	sat.CloseWrite()
	copies.Wait()
	p.up.Add(uint64(up))
	p.down.Add(uint64(down))
	pc := results.PEPConn{Client: client.String(), BytesDown: uint64(down), BytesUp: uint64(up)}
	if rc, err := sat.SyscallConn(); err == nil {
		if in, err := tcpinfo.NewReader(rc).Read(); err == nil {
			pc.SRTTMs, pc.MinRTTMs = ms(in.SRTT), ms(in.MinRTT)
			pc.CwndSegments, pc.TotalRetrans = in.SndCwnd, in.TotalRetrans
			pc.DeliveryRateMbps = float64(in.DeliveryRate) * 8 / 1e6
		}
	}
	p.mu.Lock()
	p.done = append(p.done, pc)
	p.mu.Unlock()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// counters is what the PEP did so far.
func (p *pep) counters() *results.PEPCounters {
	p.mu.Lock()
	defer p.mu.Unlock()
	return &results.PEPCounters{
		Connections: p.conns.Load(), Failed: p.failed.Load(),
		BytesDown: p.down.Load(), BytesUp: p.up.Load(),
		Conns: append([]results.PEPConn(nil), p.done...),
	}
}

// close stops accepting, ends the live splits and waits for them.
func (p *pep) close() {
	p.cancel()
	p.mu.Lock()
	p.closed = true
	for c := range p.open {
		c.Close()
	}
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
}

// PEP returns the split-TCP proxy's counters; nil without pep.enabled.
func (e *Emulation) PEP() *results.PEPCounters {
	if e.pep == nil {
		return nil
	}
	return e.pep.counters()
}
