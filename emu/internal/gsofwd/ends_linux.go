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

// ends is what a Forwarder and a Proxy move packets between: a TUN device
// and a UDP socket in one network namespace, and the peers the socket
// sends to.
type ends struct {
	ns    int // the namespace's descriptor
	tun   tun.Device
	bind  conn.Bind
	udp   *udpReceiver // reads the bind's IPv4 socket
	port  uint16       // the socket's
	peers []conn.Endpoint
	// stop is an eventfd that close writes: it ends a real-time loop's
	// wait in poll (see rtLoop), which closing the descriptor it polls
	// does not.
	stop int
}

// openEnds creates, inside the network namespace ns (a descriptor), a TUN
// device named name with the given MTU and a UDP socket on port, sending
// to peers. The TUN is left down.
func openEnds(ns int, name string, mtu int, port uint16, peers []netip.AddrPort) (ends, error) {
	if len(peers) == 0 {
		return ends{}, errors.New("gsofwd: no peer")
	}
	e := ends{ns: ns, bind: conn.NewStdNetBind()}
	for _, p := range peers {
		ep, err := e.bind.ParseEndpoint(p.String())
		if err != nil {
			return ends{}, fmt.Errorf("gsofwd: peer %v: %w", p, err)
		}
		e.peers = append(e.peers, ep)
	}
	var err error
	if e.stop, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return ends{}, fmt.Errorf("gsofwd: eventfd: %w", err)
	}
	// The device and the socket belong to the namespace of the thread
	// that creates them, and stay there.
	err = nsthread.Do(ns, func() error {
		var err error
		if e.tun, err = tun.CreateTUN(name, mtu); err != nil {
			return fmt.Errorf("gsofwd: TUN %s: %w", name, err)
		}
		if err := growTUNQueue(name); err != nil {
			e.tun.Close()
			return err
		}
		before := socketFDs()
		_, bound, err := e.bind.Open(port)
		if err != nil {
			e.tun.Close()
			return fmt.Errorf("gsofwd: UDP port %d: %w", port, err)
		}
		fd, err := boundUDP(before, socketFDs(), bound)
		if err == nil {
			growReceiveBuffer(fd)
			e.udp, err = newUDPReceiver(fd, e.bind.BatchSize())
		}
		e.port = bound
		if err != nil {
			e.bind.Close()
			e.tun.Close()
		}
		return err
	})
	if err != nil {
		unix.Close(e.stop)
	}
	return e, err
}

// run runs fromTUN, fromUDP and the timers until ctx ends or one of the
// first two fails; then it closes the device and the socket (which ends
// them), stops the timers and waits.
func (e *ends) run(ctx context.Context, fromTUN, fromUDP func() error, timers ...func(stop <-chan struct{})) error {
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

// close closes the device and the socket, and tells the real-time loops
// (the stop descriptor).
func (e *ends) close() {
	unix.Write(e.stop, []byte{1, 0, 0, 0, 0, 0, 0, 0}) // a counter of 1; the byte order does not matter
	e.tun.Close()
	e.udp.Close()
	e.bind.Close()
}
