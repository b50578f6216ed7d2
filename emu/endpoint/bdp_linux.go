//go:build linux

package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/tcpinfo"
)

// noPacingCap is SO_MAX_PACING_RATE's "no limit" (~0U). Once a cap was
// set the kernel keeps pacing the socket itself (at 2 × cwnd / srtt in
// slow start), as it does for every socket under fq or BBR.
const noPacingCap = ^uint32(0)

// bdpServer is the path state a resume=bdp server remembers, one per
// client address, and the routes it set for it.
type bdpServer struct {
	check bool
	log   io.Writer

	mu     sync.Mutex
	states map[netip.Addr]pathState
	undo   map[netip.Addr]func() error
}

type bdpServerKey struct{}
type bdpConnKey struct{}

func newBDPServer(cfg *ServerConfig) *bdpServer {
	if !cfg.ResumeBDP {
		return nil
	}
	return &bdpServer{check: cfg.ResumeCheck, log: cfg.Log,
		states: map[netip.Addr]pathState{}, undo: map[netip.Addr]func() error{}}
}

// close removes the routes the server set.
func (b *bdpServer) close() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	for a, undo := range b.undo {
		errs = append(errs, undo())
		delete(b.undo, a)
	}
	return errors.Join(errs...)
}

// connContext starts a connection from a client whose path state the
// server remembers: its pacing is capped at the remembered rate, and its
// first response is watched (bdpConn). The route's initcwnd has already
// given it its first window.
func (b *bdpServer) connContext(ctx context.Context, c net.Conn) context.Context {
	if b == nil {
		return ctx
	}
	ctx = context.WithValue(ctx, bdpServerKey{}, b)
	addr, ok := remoteAddr(c.RemoteAddr().String())
	if !ok {
		return ctx
	}
	b.mu.Lock()
	s, ok := b.states[addr]
	b.mu.Unlock()
	if !ok {
		return ctx
	}
	rc, err := socketOf(c)
	if errors.Is(err, errNoSocket) {
		return ctx
	}
	if err == nil {
		err = setPacingCap(rc, uint32(min(s.rate, uint64(noPacingCap-1))))
	}
	if err != nil {
		fmt.Fprintf(b.log, "resume bdp: %s: %v\n", addr, err)
		return ctx
	}
	return context.WithValue(ctx, bdpConnKey{}, &bdpConn{srv: b, addr: addr, state: s, rc: rc, done: make(chan struct{})})
}

// servePathState measures the path of the request's connection (the
// flow's first), remembers it for the client and sets the route that
// gives the client's next connections their first window.
func servePathState(w http.ResponseWriter, r *http.Request) {
	b, _ := r.Context().Value(bdpServerKey{}).(*bdpServer)
	rc, _ := r.Context().Value(sendWaitKey{}).(syscall.RawConn)
	addr, ok := remoteAddr(r.RemoteAddr)
	if b == nil || rc == nil || !ok {
		http.Error(w, "no path state here (not a TCP server with resume bdp)", http.StatusNotFound)
		return
	}
	ti, err := tcpinfo.NewReader(rc).Read()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s, err := newPathState(ti)
	if err == nil {
		err = b.remember(addr, s)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writePathState(w, s.result(b.check))
}

// remember keeps s for addr and sets the initcwnd of the route to it.
func (b *bdpServer) remember(addr netip.Addr, s pathState) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if undo := b.undo[addr]; undo != nil {
		if err := undo(); err != nil {
			return err
		}
		delete(b.undo, addr)
	}
	undo, err := setRouteWindow(addr, s.initCwnd, 0)
	if err != nil {
		return err
	}
	b.states[addr], b.undo[addr] = s, undo
	return nil
}

// forget drops the state of addr and its route: a connection failed the
// check, so the state no longer describes the path.
func (b *bdpServer) forget(addr netip.Addr) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.states, addr)
	if undo := b.undo[addr]; undo != nil {
		if err := undo(); err != nil {
			fmt.Fprintf(b.log, "resume bdp: %s: %v\n", addr, err)
		}
		delete(b.undo, addr)
	}
}

// bdpConn is a measured connection started from a remembered state.
type bdpConn struct {
	srv   *bdpServer
	addr  netip.Addr
	state pathState
	rc    syscall.RawConn

	once    sync.Once
	done    chan struct{}
	verdict string // set before done is closed
}

func bdpConnFrom(ctx context.Context) *bdpConn {
	bc, _ := ctx.Value(bdpConnKey{}).(*bdpConn)
	return bc
}

// start watches the connection's first round trip once its first response
// (size bytes) begins.
func (bc *bdpConn) start(size int64) {
	bc.once.Do(func() { go bc.watch(size) })
}

// result is the check trailer of a response: at once without the check,
// else once the first round trip is decided (or ctx ends).
func (bc *bdpConn) result(ctx context.Context) string {
	if !bc.srv.check {
		return checkOff
	}
	select {
	case <-bc.done:
		return bc.verdict
	case <-ctx.Done():
		return ""
	}
}

// watch samples TCP_INFO every 2 ms from the start of the first response:
// the first round trip is over when the ACKs of the first window have had
// the time they need at the remembered rate (checkSpan) after the first
// of them arrived. Then the pacing cap is lifted; with the check, an ACK
// rate under half the remembered one makes the connection fall back
// instead: Linux lets userspace neither shrink cwnd nor recall what is in
// flight, so the fallback caps the pacing rate at what a normal start
// would send per round trip and doubles the cap each round until it
// reaches the remembered rate, and the server forgets the state (later
// connections start normally).
func (bc *bdpConn) watch(size int64) {
	low := bc.firstRoundLow(size)
	fallback := bc.srv.check && low
	bc.verdict = checkOK
	if fallback {
		bc.verdict = checkFallback
		bc.srv.forget(bc.addr)
	}
	close(bc.done)
	if fallback {
		for _, c := range normalStartCaps(bc.state) {
			if setPacingCap(bc.rc, uint32(min(c, uint64(noPacingCap-1)))) != nil {
				return // closed
			}
			time.Sleep(bc.state.minRTT)
		}
	}
	setPacingCap(bc.rc, noPacingCap)
}

// firstRoundLow reports whether the first round trip's ACKs came at under
// half the remembered rate (no ACK within two RTTs and a second counts as
// low; a closed connection as not).
func (bc *bdpConn) firstRoundLow(size int64) bool {
	r := tcpinfo.NewReader(bc.rc)
	ti, err := r.Read()
	if err != nil {
		return false
	}
	a0, s0, t0 := ti.BytesAcked, ti.BytesSent, time.Now()
	// The log shows whether the kernel paces: unpaced, the whole first
	// window leaves within a few milliseconds.
	fmt.Fprintf(bc.srv.log, "resume bdp: %s: initcwnd %d, cwnd %d, pacing rate %d B/s (cap %d B/s) at the first response\n",
		bc.addr, bc.state.initCwnd, ti.SndCwnd, ti.PacingRate, bc.state.rate)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := t0.Add(2*bc.state.minRTT + time.Second)
	var firstAck time.Time
	logged := false
	for firstAck.IsZero() {
		now := <-tick.C
		if ti, err = r.Read(); err != nil {
			return false
		}
		if !logged && now.Sub(t0) >= 100*time.Millisecond {
			logged = true
			fmt.Fprintf(bc.srv.log, "resume bdp: %s: %d B sent in the first %v of the response, no ACK yet\n", bc.addr, ti.BytesSent-s0, now.Sub(t0).Round(time.Millisecond))
		}
		switch {
		case ti.BytesAcked > a0:
			firstAck = now
		case now.After(deadline):
			return true
		}
	}
	aA := ti.BytesAcked
	end := firstAck.Add(checkSpan(bc.state, size))
	now := firstAck
	for now.Before(end) && int64(ti.BytesAcked-a0) < size {
		now = <-tick.C
		if ti, err = r.Read(); err != nil {
			return false
		}
	}
	low := ackRateLow(int64(ti.BytesAcked-aA), now.Sub(firstAck), bc.state.rate)
	fmt.Fprintf(bc.srv.log, "resume bdp: %s: first round acknowledged at %.0f B/s (%d B in %v), remembered %d B/s, low %v\n",
		bc.addr, float64(ti.BytesAcked-aA)/max(now.Sub(firstAck).Seconds(), 1e-9), ti.BytesAcked-aA, now.Sub(firstAck).Round(time.Millisecond), bc.state.rate, low)
	return low
}

// setPacingCap sets SO_MAX_PACING_RATE (bytes per second). A cap other
// than noPacingCap also makes the kernel pace the socket itself (TCP's
// internal pacing: sock_setsockopt moves sk_pacing_status to NEEDED),
// whatever the congestion control, without an fq qdisc.
func setPacingCap(rc syscall.RawConn, rate uint32) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_MAX_PACING_RATE, int(int32(rate)))
	})
	if err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("setsockopt SO_MAX_PACING_RATE %d: %w", rate, serr)
	}
	return nil
}

func remoteAddr(hostPort string) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(hostPort)
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// setRouteWindow sets, in this process's network namespace, a route to
// dst alone (the way the kernel routes to it now: same gateway and
// device) with the given initcwnd and initrwnd (segments; 0 leaves the
// kernel's). A /32 route that already exists gets the windows and is put
// back as it was by undo; otherwise undo deletes the new one. Root (or
// CAP_NET_ADMIN in the namespace) is needed.
func setRouteWindow(dst netip.Addr, initCwnd, initRwnd int) (undo func() error, err error) {
	ip := net.IP(dst.AsSlice())
	bits := dst.BitLen()
	family := netlink.FAMILY_V4
	if dst.Is6() {
		family = netlink.FAMILY_V6
	}
	host := &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)}
	existing, err := netlink.RouteListFiltered(family, &netlink.Route{Dst: host}, netlink.RT_FILTER_DST)
	if err != nil {
		return nil, fmt.Errorf("routes to %s: %w", dst, err)
	}
	var r netlink.Route
	if len(existing) > 0 {
		r = existing[0]
	} else {
		got, err := netlink.RouteGet(ip)
		if err != nil || len(got) == 0 {
			return nil, fmt.Errorf("route to %s: %w", dst, err)
		}
		r = netlink.Route{Dst: host, Gw: got[0].Gw, LinkIndex: got[0].LinkIndex}
	}
	orig := r
	r.InitCwnd, r.InitRwnd = initCwnd, initRwnd
	if err := netlink.RouteReplace(&r); err != nil {
		return nil, fmt.Errorf("route to %s with initcwnd %d, initrwnd %d: %w", dst, initCwnd, initRwnd, err)
	}
	undo = func() error { return wrapRoute(dst, netlink.RouteDel(&r)) }
	if len(existing) > 0 {
		undo = func() error { return wrapRoute(dst, netlink.RouteReplace(&orig)) }
	}
	// What summary.json reports as applied is what the kernel holds.
	got, err := netlink.RouteListFiltered(family, &netlink.Route{Dst: host}, netlink.RT_FILTER_DST)
	if err == nil && (len(got) != 1 || got[0].InitCwnd != initCwnd || got[0].InitRwnd != initRwnd) {
		err = fmt.Errorf("the kernel holds %+v", got)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("route to %s with initcwnd %d, initrwnd %d: %w", dst, initCwnd, initRwnd, err), undo())
	}
	return undo, nil
}

func wrapRoute(dst netip.Addr, err error) error {
	if err != nil {
		return fmt.Errorf("restore the route to %s: %w", dst, err)
	}
	return nil
}

// setRcvBufFD sets a socket's receive buffer before it connects (see
// setRcvBuf).
func setRcvBufFD(fd, n int) error {
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, n); err != nil {
		return fmt.Errorf("setsockopt SO_RCVBUFFORCE %d: %w", n, err)
	}
	return nil
}
