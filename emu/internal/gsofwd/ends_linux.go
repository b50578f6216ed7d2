package gsofwd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"

	"golang.org/x/sys/unix"
	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/tun"

	"github.com/dc-emu/emu/internal/nsthread"
)

// Ends are what a Forwarder and a PDCP proxy (emu/dcproxy) move packets
// between: a TUN device with offloads and a UDP socket in one network
// namespace, and the peers the socket sends to. A loop reads TUN (a
// super-packet split into wire segments, each at Headroom of its buffer)
// or UDP (a GRO batch split into datagrams), and sends with Bind (a
// batch per send, UDP_SEGMENT) or writes TUN (coalesced again).
type Ends struct {
	NS    int // the namespace's descriptor
	TUN   tun.Device
	Bind  conn.Bind
	UDP   *UDPReceiver // reads Bind's IPv4 socket
	Port  uint16       // the socket's
	Peers []conn.Endpoint
	// stop is an eventfd that close writes: it ends a real-time loop's
	// wait in poll (see RTLoop), which closing the descriptor it polls
	// does not.
	stop int
}

// OpenEnds creates, inside the network namespace ns (a descriptor), a TUN
// device named name with the given MTU and a UDP socket on port, sending
// to peers. The TUN is left down. Run the ends, or Close them.
func OpenEnds(ns int, name string, mtu int, port uint16, peers []netip.AddrPort) (Ends, error) {
	if len(peers) == 0 {
		return Ends{}, errors.New("gsofwd: no peer")
	}
	e := Ends{NS: ns, Bind: conn.NewStdNetBind()}
	for _, p := range peers {
		ep, err := e.Bind.ParseEndpoint(p.String())
		if err != nil {
			return Ends{}, fmt.Errorf("gsofwd: peer %v: %w", p, err)
		}
		e.Peers = append(e.Peers, ep)
	}
	var err error
	if e.stop, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return Ends{}, fmt.Errorf("gsofwd: eventfd: %w", err)
	}
	// The device and the socket belong to the namespace of the thread
	// that creates them, and stay there.
	err = nsthread.Do(ns, func() error {
		var err error
		if e.TUN, err = tun.CreateTUN(name, mtu); err != nil {
			return fmt.Errorf("gsofwd: TUN %s: %w", name, err)
		}
		if err := growTUNQueue(name); err != nil {
			e.TUN.Close()
			return err
		}
		_, bound, err := e.Bind.Open(port)
		if err != nil {
			e.TUN.Close()
			return fmt.Errorf("gsofwd: UDP port %d: %w", port, err)
		}
		fd, err := boundUDP(bound)
		if err == nil {
			growReceiveBuffer(fd)
			e.UDP, err = newUDPReceiver(fd, e.Bind.BatchSize())
		}
		e.Port = bound
		if err != nil {
			e.Bind.Close()
			e.TUN.Close()
		}
		return err
	})
	if err != nil {
		unix.Close(e.stop)
	}
	return e, err
}

// Run runs fromTUN, fromUDP and the timers until ctx ends or one of the
// first two fails; then it closes the device and the socket (which ends
// them and any RTLoop's wait), stops the timers and waits. It returns
// the first loop's error, nil for a closed device or socket.
func (e *Ends) Run(ctx context.Context, fromTUN, fromUDP func() error, timers ...func(stop <-chan struct{})) error {
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	stop := make(chan struct{})
	wg.Go(func() { errs <- fromTUN() })
	wg.Go(func() { errs <- fromUDP() })
	for _, t := range timers {
		wg.Go(func() { t(stop) })
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	close(stop)
	e.close()
	wg.Wait()
	unix.Close(e.stop)
	if errors.Is(err, os.ErrClosed) || errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Close releases the device, the socket and the stop descriptor of ends
// that will not Run (Run releases them itself).
func (e *Ends) Close() {
	e.close()
	unix.Close(e.stop)
}

// close closes the device and the socket, and tells the real-time loops
// (the stop descriptor).
func (e *Ends) close() {
	unix.Write(e.stop, []byte{1, 0, 0, 0, 0, 0, 0, 0}) // a counter of 1; the byte order does not matter
	e.TUN.Close()
	e.UDP.Close()
	e.Bind.Close()
}
