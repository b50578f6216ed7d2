package tcpinfo

import (
	"io"
	"net"
	"testing"
	"time"
)

// pair returns both ends of a loopback TCP connection (no root needed).
func pair(t testing.TB) (server, client *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-acc
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return s.(*net.TCPConn), c.(*net.TCPConn)
}

func reader(t testing.TB, c *net.TCPConn) *Reader {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return NewReader(rc)
}

// TestReadLiveConnection writes a known number of bytes and checks the
// sender's tcp_info: bytes_acked plus what is still unacknowledged accounts
// for exactly the bytes written, and the other fields are what a loopback
// connection has.
func TestReadLiveConnection(t *testing.T) {
	s, c := pair(t)
	r := reader(t, s)
	const n = 8 << 20
	got := make(chan int64, 1)
	go func() {
		m, _ := io.Copy(io.Discard, c)
		got <- m
	}()
	buf := make([]byte, 64<<10)
	for w := 0; w < n; w += len(buf) {
		if _, err := s.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	i, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kernel returned %d bytes of tcp_info; after the last write: %+v", i.Len, i)
	if i.Len < 232 {
		t.Errorf("kernel returned only %d bytes of tcp_info", i.Len)
	}
	// Every written byte is acknowledged, in flight (sent, not yet
	// acknowledged) or not yet sent; the unacknowledged bytes fit in the
	// segments the kernel counts unacknowledged (packets_out, each at
	// most an MSS; the segments in flight may be fewer, as those marked
	// lost or SACKed leave the count). bytes_sent counts a
	// retransmitted byte each time it goes out (RFC 4898's
	// HCDataOctetsOut), and the kernel may retransmit even on loopback
	// (a tail loss probe, a timer that fired while the receiver was not
	// scheduled), so the bytes sent once are bytes_sent − bytes_retrans.
	unique := int64(i.BytesSent - i.BytesRetrans)
	if got := unique + int64(i.NotsentBytes); got != n || unique < int64(i.BytesAcked) {
		t.Errorf("after writing %d: acked %d + in flight %d + not sent %d = %d (sent %d, of them retransmitted %d)", n, i.BytesAcked, unique-int64(i.BytesAcked), i.NotsentBytes, got, i.BytesSent, i.BytesRetrans)
	}
	if unacked, segs := unique-int64(i.BytesAcked), int64(i.Unacked)*int64(i.SndMSS); unacked > segs {
		t.Errorf("%d bytes unacknowledged, but only %d segments of %d bytes", unacked, i.Unacked, i.SndMSS)
	}
	if i.State != StateEstablished || i.SndMSS == 0 || i.SndCwnd == 0 || i.SRTT <= 0 || i.SRTT > time.Second ||
		i.MinRTT <= 0 || i.MinRTT > i.SRTT+i.RTTVar || i.RTO < 200*time.Millisecond {
		t.Errorf("implausible: %+v", i)
	}

	s.CloseWrite()
	if m := <-got; m != n {
		t.Fatalf("client read %d of %d", m, n)
	}
	// Once the client has read everything and the FIN is acknowledged,
	// nothing is in flight and bytes_acked is the bytes written plus one
	// for the FIN's sequence number.
	deadline := time.Now().Add(5 * time.Second)
	for {
		i, err = r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if f, _ := i.InFlight(); f == 0 && i.BytesAcked > n || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// A retransmission (CI once saw two on loopback) adds to bytes_sent
	// and bytes_retrans alike: what was sent once is still n.
	if i.BytesAcked != n+1 || i.BytesSent-i.BytesRetrans != n || i.NotsentBytes != 0 {
		t.Errorf("after the transfer: acked %d, sent %d of which retransmitted %d, not sent %d; want %d acked, %d sent once, 0 not sent", i.BytesAcked, i.BytesSent, i.BytesRetrans, i.NotsentBytes, n+1, n)
	}
	if i.DeliveryRate == 0 || i.PacingRate == 0 {
		t.Errorf("no rates: delivery %d, pacing %d", i.DeliveryRate, i.PacingRate)
	}
}

func TestReadAllocatesNothing(t *testing.T) {
	s, _ := pair(t)
	r := reader(t, s)
	if n := testing.AllocsPerRun(200, func() {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Read: %v allocations per sample", n)
	}
}

func TestReadClosedFails(t *testing.T) {
	s, _ := pair(t)
	r := reader(t, s)
	s.Close()
	if _, err := r.Read(); err == nil {
		t.Error("read from a closed socket succeeded")
	}
}

func BenchmarkRead(b *testing.B) {
	s, _ := pair(b)
	r := reader(b, s)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Read(); err != nil {
			b.Fatal(err)
		}
	}
}
