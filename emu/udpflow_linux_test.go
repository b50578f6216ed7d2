package emu

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// udpFlow sends datagrams of size bytes (UDP payload) from one node to
// another at a paced rate and counts what arrives, for fidelity tests.
type udpFlow struct {
	recv       *net.UDPConn
	send       *net.UDPConn
	size       int
	mu         sync.Mutex
	arrivals   []arrival
	done       chan struct{}
	stopSender chan struct{}
}

type arrival struct {
	seq  uint64
	at   time.Time
	sent time.Time
}

func startUDPFlow(t testing.TB, from, to *topo.NodeNS, dst netip.Addr, size int) *udpFlow {
	t.Helper()
	f := &udpFlow{size: size, done: make(chan struct{}), stopSender: make(chan struct{})}
	if err := to.Do(func() (err error) {
		f.recv, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IP(dst.AsSlice())})
		if err == nil {
			err = f.recv.SetReadBuffer(8 << 20)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	f.send = dialFrom(t, from, f.recv)
	t.Cleanup(func() { f.recv.Close(); f.send.Close() })
	go f.receive()
	return f
}

// dialFrom connects a UDP socket in the node from to recv's address, the
// sending end of a test flow.
func dialFrom(tb testing.TB, from *topo.NodeNS, recv *net.UDPConn) *net.UDPConn {
	tb.Helper()
	var send *net.UDPConn
	if err := from.Do(func() (err error) {
		send, err = net.DialUDP("udp4", nil, recv.LocalAddr().(*net.UDPAddr))
		return err
	}); err != nil {
		tb.Fatal(err)
	}
	return send
}

func (f *udpFlow) receive() {
	defer close(f.done)
	buf := make([]byte, 65536)
	for {
		n, err := f.recv.Read(buf)
		if err != nil {
			return
		}
		now := time.Now()
		if n < 16 {
			continue
		}
		a := arrival{seq: binary.BigEndian.Uint64(buf), at: now,
			sent: time.Unix(0, int64(binary.BigEndian.Uint64(buf[8:])))}
		f.mu.Lock()
		f.arrivals = append(f.arrivals, a)
		f.mu.Unlock()
	}
}

// pace sends at rate bit/s (counting IP bytes) for d, in bursts every
// millisecond, and returns the number of datagrams sent.
func (f *udpFlow) pace(rate float64, d time.Duration) uint64 {
	buf := make([]byte, f.size)
	ipBytes := float64(f.size + 28)
	start := time.Now()
	var seq uint64
	for {
		now := time.Now()
		el := now.Sub(start)
		if el >= d {
			return seq
		}
		due := uint64(rate / 8 / ipBytes * el.Seconds())
		for ; seq < due; seq++ {
			binary.BigEndian.PutUint64(buf, seq)
			binary.BigEndian.PutUint64(buf[8:], uint64(time.Now().UnixNano()))
			f.send.Write(buf)
		}
		time.Sleep(time.Millisecond)
	}
}

// snapshot returns a copy of the arrivals so far.
func (f *udpFlow) snapshot() []arrival {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]arrival(nil), f.arrivals...)
}

// ipRate returns the IP-layer rate (bit/s) of arrivals between from and to.
func (f *udpFlow) ipRate(as []arrival, from, to time.Time) float64 {
	var n int
	for _, a := range as {
		if !a.at.Before(from) && a.at.Before(to) {
			n++
		}
	}
	return float64(n) * float64(f.size+28) * 8 / to.Sub(from).Seconds()
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// waitArrived waits until all sent datagrams have arrived, failing the
// test after timeout.
func (f *udpFlow) waitArrived(t *testing.T, sent uint64, timeout time.Duration) {
	t.Helper()
	emutest.WaitFor(t, timeout, func() error {
		if n := len(f.snapshot()); uint64(n) < sent {
			return errorf("%d of %d datagrams arrived", n, sent)
		}
		return nil
	})
}

// completeInOrder waits until all sent datagrams have arrived and fails
// the test if any was lost or overtaken; it returns the arrivals.
func (f *udpFlow) completeInOrder(t *testing.T, sent uint64) []arrival {
	t.Helper()
	f.waitArrived(t, sent, 5*time.Second)
	as := f.snapshot()
	for i := 1; i < len(as); i++ {
		if as[i].seq != as[i-1].seq+1 {
			t.Fatalf("datagram %d arrived after %d: lost or reordered", as[i].seq, as[i-1].seq)
		}
	}
	return as
}
