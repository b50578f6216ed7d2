package mptcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// loopbackPair connects two sockets over lo inside a fresh namespace,
// MPTCP on both sides when mptcp is set.
func loopbackPair(t testing.TB, mptcp bool) (server, client *net.TCPConn) {
	t.Helper()
	requireMPTCP(t)
	s, c, _ := loopbackPairIn(t, emutest.NewNetNS(t), mptcp)
	return s, c
}

func loopbackPairIn(t testing.TB, ns *emutest.NetNS, mptcp bool) (server, client *net.TCPConn, _ *emutest.NetNS) {
	t.Helper()
	var ln net.Listener
	var c net.Conn
	err := ns.Do(func() error {
		var lc net.ListenConfig
		lc.SetMultipathTCP(mptcp)
		var err error
		if ln, err = lc.Listen(context.Background(), "tcp", "127.0.0.1:0"); err != nil {
			return err
		}
		var d net.Dialer
		d.SetMultipathTCP(mptcp)
		c, err = d.Dial("tcp", ln.Addr().String())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); c.Close() })
	return s.(*net.TCPConn), c.(*net.TCPConn), ns
}

func newReader(t testing.TB, c *net.TCPConn) *Reader {
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return NewReader(rc, 0)
}

// TestReaderSingleSubflow checks the struct layouts against what this
// kernel returns: sizes, the subflow's id and addresses, and tcp_info
// counters that match the connection-level ones.
func TestReaderSingleSubflow(t *testing.T) {
	s, c := loopbackPair(t, true)
	const n = 4 << 20
	done := make(chan int64)
	go func() { m, _ := io.Copy(io.Discard, c); done <- m }()
	if _, err := s.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	s.CloseWrite()
	if m := <-done; m != n {
		t.Fatalf("read %d of %d", m, n)
	}
	var snap Snapshot
	emutest.WaitFor(t, 5e9, func() error {
		var err error
		if snap, err = newReader(t, s).Read(); err != nil {
			return err
		}
		// The subflow's ACKs and the connection's DATA_ACK of the
		// DATA_FIN are separate: the reader has the DATA_FIN (its copy
		// ended) before the writer learns it was acknowledged, and
		// nothing stops the last TCP-level ACK from coming first. Until
		// both, the counters still move.
		if len(snap.Subflows) != 1 {
			return fmt.Errorf("%d subflows, want 1", len(snap.Subflows))
		}
		if snap.Subflows[0].TCP.BytesAcked < n || snap.Info.BytesAcked < n+1 {
			return fmt.Errorf("data not yet acknowledged: %d bytes at the subflow, %d (DATA_FIN included) at the connection", snap.Subflows[0].TCP.BytesAcked, snap.Info.BytesAcked)
		}
		return nil
	})
	t.Logf("mptcp_info (%d bytes): %+v", snap.Info.Len, snap.Info)
	sf := snap.Subflows[0]
	t.Logf("subflow: id %d %s → %s, tcp_info %d bytes", sf.ID, sf.Local, sf.Remote, sf.TCP.Len)
	if snap.Info.Len != infoSize {
		t.Errorf("kernel returned %d bytes of mptcp_info, want %d", snap.Info.Len, infoSize)
	}
	if snap.Info.Fallback() || snap.Info.Subflows != 0 || snap.Info.SubflowsTotal != 1 {
		t.Errorf("one direct subflow expected: %+v", snap.Info)
	}
	// bytes_acked counts the DATA_FIN's sequence number too.
	if snap.Info.BytesSent != n || snap.Info.BytesAcked != n+1 {
		t.Errorf("connection: sent %d acked %d, want %d and %d", snap.Info.BytesSent, snap.Info.BytesAcked, n, n+1)
	}
	if sf.ID != 1 || sf.Local != netip.MustParseAddrPort(s.LocalAddr().String()) || sf.Remote != netip.MustParseAddrPort(s.RemoteAddr().String()) {
		t.Errorf("subflow id %d %s → %s, want 1 %s → %s", sf.ID, sf.Local, sf.Remote, s.LocalAddr(), s.RemoteAddr())
	}
	// The subflow carried everything; MPTCP-level retransmissions (data
	// the peer acknowledged at TCP level but not yet at the MPTCP level,
	// sent again) count as new bytes on the subflow. TCP's own
	// retransmissions (loopback has them too: a burst that overflows a
	// backlog, a timer that fires before a delayed ACK) are in bytes_sent
	// as well, and in bytes_retrans: left out, so the bound is on what
	// MPTCP sent again, however much TCP did.
	extra := sf.TCP.BytesSent - sf.TCP.BytesRetrans - n
	if sf.TCP.Len < 232 || sf.TCP.BytesSent < n || sf.TCP.BytesAcked < n || extra > n/10 || sf.TCP.SRTT <= 0 {
		t.Errorf("subflow tcp_info: %+v", sf.TCP)
	}

	legacy := newReader(t, s)
	legacy.legacy = true
	ls, err := legacy.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Subflows) != 1 || ls.Subflows[0].Local != sf.Local || ls.Subflows[0].Remote != sf.Remote ||
		ls.Subflows[0].TCP.BytesSent != sf.TCP.BytesSent || ls.Info.Token != snap.Info.Token {
		t.Errorf("MPTCP_TCPINFO + MPTCP_SUBFLOW_ADDRS read %+v, MPTCP_FULL_INFO %+v", ls, snap)
	}
}

func TestReaderPlainTCP(t *testing.T) {
	s, c := loopbackPair(t, false)
	for _, conn := range []*net.TCPConn{s, c} {
		if _, err := newReader(t, conn).Read(); !errors.Is(err, ErrNotMPTCP) {
			t.Errorf("plain TCP socket: %v, want ErrNotMPTCP", err)
		}
		rc, _ := conn.SyscallConn()
		if _, err := ReadInfo(rc); !errors.Is(err, ErrNotMPTCP) {
			t.Errorf("ReadInfo on plain TCP: %v", err)
		}
	}
}

func TestReaderAllocatesNothing(t *testing.T) {
	s, _ := loopbackPair(t, true)
	for _, legacy := range []bool{false, true} {
		r := newReader(t, s)
		r.legacy = legacy
		if n := testing.AllocsPerRun(200, func() {
			if _, err := r.Read(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("legacy %v: %v allocations per Read", legacy, n)
		}
	}
}

// TestDiagCongestion: the congestion control set on an MPTCP socket is the
// subflow's, as sock_diag reports it for the subflow itself.
func TestDiagCongestion(t *testing.T) {
	requireMPTCP(t)
	ns := emutest.NewNetNS(t)
	s, _, _ := loopbackPairIn(t, ns, true)
	d, err := OpenDiag(int(ns.NS))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rc, _ := s.SyscallConn()
	for _, cc := range []string{"reno", "cubic"} {
		var serr error
		rc.Control(func(fd uintptr) { serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc) })
		if serr != nil {
			t.Fatal(serr)
		}
		snap, err := NewReader(rc, 0).Read()
		if err != nil || len(snap.Subflows) != 1 {
			t.Fatalf("%+v, %v", snap, err)
		}
		got, err := d.Congestion(snap.Subflows[0].Local, snap.Subflows[0].Remote)
		if err != nil || got != cc {
			t.Errorf("subflow congestion control %q, %v; set %q on the MPTCP socket", got, err, cc)
		}
	}
	if _, err := d.Congestion(netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2")); err == nil {
		t.Error("congestion control of a socket that does not exist")
	}
}

// BenchmarkReaderRead is one MPTCP_FULL_INFO snapshot of a one-subflow
// connection (and, legacy, the three-call path).
func BenchmarkReaderRead(b *testing.B) {
	for _, legacy := range []bool{false, true} {
		name := "full_info"
		if legacy {
			name = "three_calls"
		}
		b.Run(name, func(b *testing.B) {
			s, _ := loopbackPair(b, true)
			r := newReader(b, s)
			r.legacy = legacy
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
