package capture

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// requireTshark returns tshark's path or skips the test.
func requireTshark(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed (Debian package tshark; CI installs it): the pcapng files are checked with an independent reader")
	}
	return p
}

// tsharkFields runs tshark over file and returns the fields of every
// packet that matches filter, one slice per packet.
func tsharkFields(t *testing.T, file, filter string, extra []string, fields ...string) [][]string {
	t.Helper()
	args := []string{"-n", "-r", file, "-T", "fields", "-E", "separator=|"}
	args = append(args, extra...)
	if filter != "" {
		args = append(args, "-Y", filter)
	}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	out, err := exec.Command(requireTshark(t), args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("tshark %q: %v\n%s", args, err, msg)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if l != "" {
			rows = append(rows, strings.Split(l, "|"))
		}
	}
	return rows
}

// pair is two test namespaces joined by a veth: a (va, 192.168.91.1) and
// b (vb, 192.168.91.2).
func pair(t *testing.T) (a, b *emutest.NetNS) {
	a, b = emutest.NewNetNS(t), emutest.NewNetNS(t)
	emutest.Veth(t, a, "va", "192.168.91.1/24", b, "vb", "192.168.91.2/24")
	return a, b
}

// startIn starts a capture of iface in ns; the test closes it.
func startIn(t *testing.T, ns *emutest.NetNS, iface string, snaplen int) (*Capture, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), iface+".pcapng")
	c, err := Start(context.Background(), int(ns.NS), iface, snaplen, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, path
}

// captureUDP sends a known number of datagrams over a veth, captures
// both ends, and checks with tshark: every datagram is in both files once,
// with the right direction, a sender-side timestamp between the send
// call's start and end, and a receiver-side one no earlier; the files hold
// exactly the packets Stats counts. It returns how much later than the
// sender's the latest receiver-side stamp was.
//
// The ring holds every packet of this test (32 MiB; a block retires
// 10 ms after its first packet, so 32 blocks are over 300 ms of a reader
// that does not read), so a drop is a fault on any machine.
func captureUDP(t *testing.T) (worst time.Duration) {
	a, b := pair(t)
	const n, port = 2000, 9999
	dst := netip.MustParseAddrPort(fmt.Sprintf("192.168.91.2:%d", port))
	rx, tx := udpPair(t, a, b, dst)
	// Neighbour resolution first, so every counted datagram leaves at once.
	emutest.WaitFor(t, 5*time.Second, func() error {
		tx.Write([]byte("hello"))
		rx.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := rx.Read(make([]byte, 64))
		return err
	})
	ca, pa := startIn(t, a, "va", 128)
	cb, pb := startIn(t, b, "vb", MaxSnaplen)
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, err := rx.Read(buf); err != nil && !isTimeout(err) {
				return
			}
		}
	}()
	rx.SetReadDeadline(time.Time{})
	sent := make([][2]int64, n)
	payload := make([]byte, 200)
	for i := range n {
		binary.BigEndian.PutUint64(payload, uint64(i))
		sent[i][0] = time.Now().UnixNano()
		if _, err := tx.Write(payload); err != nil {
			t.Fatal(err)
		}
		sent[i][1] = time.Now().UnixNano()
	}
	sa, sb := closeBoth(t, ca, cb)
	for _, side := range []struct {
		name string
		path string
		st   Stats
		dir  string
		cap  string
	}{{"va", pa, sa, "0x00000002", "128"}, {"vb", pb, sb, "0x00000001", "242"}} {
		if side.st.Dropped != 0 {
			t.Fatalf("%s: the kernel dropped %d packets (ring full: the capture's reader fell behind), want none", side.name, side.st.Dropped)
		}
		all := tsharkFields(t, side.path, "", nil, "frame.number")
		if uint64(len(all)) != side.st.Packets || side.st.Received != side.st.Packets {
			t.Errorf("%s: tshark reads %d packets, Stats %+v", side.name, len(all), side.st)
		}
		rows := tsharkFields(t, side.path, fmt.Sprintf("udp.dstport==%d && udp.length==208", port), nil,
			"frame.time_epoch", "data.data", "frame.packet_flags_direction", "frame.cap_len")
		if len(rows) != n {
			out, _ := exec.Command("tshark", "-n", "-r", side.path, "-c", "5", "-V").CombinedOutput()
			t.Fatalf("%s: %d of the %d datagrams in the capture; the first packets:\n%s", side.name, len(rows), n, out)
		}
		for i, r := range rows {
			seq, err := strconv.ParseUint(r[1][:16], 16, 64)
			if err != nil || seq != uint64(i) {
				t.Fatalf("%s: packet %d carries %q", side.name, i, r[1][:16])
			}
			ts := epochNanos(t, r[0])
			if r[2] != side.dir || r[3] != side.cap {
				t.Fatalf("%s: packet %d: direction %s, captured %s bytes; want %s, %s", side.name, i, r[2], r[3], side.dir, side.cap)
			}
			switch side.name {
			case "va":
				if ts < sent[i][0] || ts > sent[i][1] {
					t.Fatalf("va: packet %d stamped %d, sent between %d and %d", i, ts, sent[i][0], sent[i][1])
				}
				sent[i][0] = ts
			case "vb":
				if d := ts - sent[i][0]; d < 0 {
					t.Fatalf("vb: packet %d stamped %v before va", i, time.Duration(-d))
				} else {
					worst = max(worst, time.Duration(d))
				}
			}
		}
	}
	t.Logf("vb stamped a packet at most %v after va", worst)
	return worst
}

// TestCaptureUDP: captureUDP, with receive stamps within 200 ms of the
// sender's, ten times what a softirq that waited makes of the few
// microseconds a veth takes.
func TestCaptureUDP(t *testing.T) {
	requireTshark(t)
	emutest.Exclusive(t) // 2000 datagrams as fast as they go
	if worst := captureUDP(t); worst > 200*time.Millisecond {
		t.Errorf("vb stamped a packet %v after va, want at most 200ms", worst)
	}
}

// TestFidelityCaptureUDP: captureUDP, with receive stamps within 20 ms of
// the sender's. A late receive stamp is a softirq that waited, which a
// busy host makes happen: a miss goes through the watch.
func TestFidelityCaptureUDP(t *testing.T) {
	requireTshark(t)
	h := emutest.Fidelity(t)
	if worst := captureUDP(t); worst > 20*time.Millisecond {
		h.Errorf(t, "vb stamped a packet %v after va, want at most 20ms", worst)
	}
}

// closeBoth ends the captures of va and vb and returns their counts.
func closeBoth(t *testing.T, ca, cb *Capture) (sa, sb Stats) {
	t.Helper()
	var err error
	if sa, err = ca.Close(); err != nil {
		t.Fatal(err)
	}
	if sb, err = cb.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("va: %+v; vb: %+v", sa, sb)
	return sa, sb
}

// udpPair is a socket bound to dst in b and one connected to it from a,
// closed when the test ends.
func udpPair(tb testing.TB, a, b *emutest.NetNS, dst netip.AddrPort) (rx, tx *net.UDPConn) {
	tb.Helper()
	if err := b.Do(func() (err error) { rx, err = net.ListenUDP("udp4", net.UDPAddrFromAddrPort(dst)); return }); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { rx.Close() })
	if err := a.Do(func() (err error) { tx, err = net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(dst)); return }); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { tx.Close() })
	return rx, tx
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// epochNanos parses tshark's frame.time_epoch (seconds with 9 decimals).
func epochNanos(t *testing.T, s string) int64 {
	t.Helper()
	sec, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) != 9 {
		t.Fatalf("time %q: want seconds with 9 decimals", s)
	}
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("time %q", s)
	}
	return a*1e9 + b
}

// TestCaptureGSO sends a TCP bulk transfer and UDP_SEGMENT datagrams over
// a veth (which passes GSO super-packets on whole) and checks with tshark
// that the files hold wire-sized segments: UDP datagrams of the segment
// size, TCP segments of at most one MSS that cover the bytes sent without
// a gap, repeating only what the sender retransmitted.
func TestCaptureGSO(t *testing.T) {
	requireTshark(t)
	emutest.Exclusive(t) // a bulk transfer
	a, b := pair(t)
	ca, pa := startIn(t, a, "va", MaxSnaplen)
	cb, pb := startIn(t, b, "vb", 96)

	// UDP: 20 segments of 1000 bytes handed down in one sendmsg.
	dst := netip.MustParseAddrPort("192.168.91.2:9998")
	_, tx := udpPair(t, a, b, dst)
	if err := setUDPSegment(tx, 1000); err != nil {
		t.Skipf("UDP_SEGMENT: %v", err)
	}
	const udpSegs = 20
	if _, err := tx.Write(make([]byte, udpSegs*1000)); err != nil {
		t.Fatal(err)
	}

	// TCP: 4 MB.
	const tcpBytes = 4 << 20
	var ln net.Listener
	if err := b.Do(func() (err error) { ln, err = net.Listen("tcp4", "192.168.91.2:9997"); return }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.Copy(io.Discard, c)
		c.Close()
		got <- n
	}()
	var conn net.Conn
	if err := a.Do(func() (err error) { conn, err = net.Dial("tcp4", "192.168.91.2:9997"); return }); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(make([]byte, tcpBytes)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if n := <-got; n != tcpBytes {
		t.Fatalf("receiver got %d bytes", n)
	}
	// The sender's retransmissions (a veth reorders when the sender moves
	// between CPUs, and enough reordering is taken for loss) are on the
	// wire too: the capture holds their bytes twice. They are counted once
	// the captures end: the receiver having every byte does not stop the
	// sender, whose ACKs may still be on their way, from retransmitting
	// (a tail loss probe, a timeout) while the captures run.
	sa, sb := closeBoth(t, ca, cb)
	retrans := emutest.SNMP(t, a.Do, "Tcp", "RetransSegs")
	if sa.Split == 0 {
		t.Error("no super-packet on the sending side: GSO off on this veth?")
	}
	for _, side := range []struct {
		name, path string
		st         Stats
	}{{"va", pa, sa}, {"vb", pb, sb}} {
		if side.st.Dropped != 0 {
			t.Fatalf("%s: the kernel dropped %d packets (ring full: the capture's reader fell behind), want none", side.name, side.st.Dropped)
		}
		udp := tsharkFields(t, side.path, "udp.dstport==9998", nil, "udp.length", "ip.len")
		if len(udp) != udpSegs {
			t.Errorf("%s: %d UDP packets, want %d", side.name, len(udp), udpSegs)
		}
		for _, r := range udp {
			if r[0] != "1008" || r[1] != "1028" {
				t.Errorf("%s: UDP packet with udp.length %s, ip.len %s; want 1008, 1028", side.name, r[0], r[1])
				break
			}
		}
		// A data segment rebuilt with a wrong sequence number or length
		// leaves a gap in the byte ranges the segments cover, or carries
		// more bytes than the sent ones and their retransmissions. Their
		// order in the file is not checked: a veth delivers from the
		// backlog of whichever CPU the sender ran on, so a sender that
		// moves between CPUs is received, and captured, out of order
		// (tshark then flags lost and out-of-order segments that the
		// receiver's TCP reorders).
		type span struct{ seq, n int }
		var spans []span
		sum := 0
		tcp := tsharkFields(t, side.path, "tcp.dstport==9997 && tcp.len > 0", nil, "tcp.seq", "tcp.len")
		for _, r := range tcp {
			seq, _ := strconv.Atoi(r[0])
			n, _ := strconv.Atoi(r[1])
			if n > 1448 {
				t.Errorf("%s: TCP segment of %d bytes, more than one MSS", side.name, n)
			}
			spans = append(spans, span{seq, n})
			sum += n
		}
		sort.Slice(spans, func(i, j int) bool { return spans[i].seq < spans[j].seq })
		if len(spans) > 0 {
			lo, end := spans[0].seq, spans[0].seq
			for _, sp := range spans {
				if sp.seq > end {
					t.Errorf("%s: TCP data segment at seq %d after the bytes up to %d: a gap", side.name, sp.seq, end)
					break
				}
				end = max(end, sp.seq+sp.n)
			}
			if end-lo != tcpBytes {
				t.Errorf("%s: TCP segments cover %d bytes, %d were sent", side.name, end-lo, tcpBytes)
			}
		}
		if extra := sum - tcpBytes; extra < 0 || extra > int(retrans)*1448 {
			t.Errorf("%s: TCP segments carry %d bytes for %d sent, with %d segments retransmitted", side.name, sum, tcpBytes, retrans)
		}
		t.Logf("%s: %d UDP and %d TCP data segments (%d bytes; %d segments retransmitted)", side.name, len(udp), len(tcp), sum, retrans)
	}
}

func setUDPSegment(c *net.UDPConn, size int) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_UDP, unix.UDP_SEGMENT, size) }); err != nil {
		return err
	}
	return serr
}

// TestPacketAllocs: writing a captured packet, whole or split into its
// segments, allocates nothing.
func TestPacketAllocs(t *testing.T) {
	c := &Capture{nw: newNgWriter(discard{}, "va", linkTypeEthernet, MaxSnaplen), snaplen: 200, ethernet: true}
	super := superPacket(false, true, make([]byte, 60000))
	plain := superPacket(false, false, make([]byte, 1200))
	vnetTSO := make([]byte, vnetHdrLen)
	vnetTSO[1] = gsoTCPv4
	native.PutUint16(vnetTSO[4:], 1448)
	vnetNone := make([]byte, vnetHdrLen)
	if n := testing.AllocsPerRun(100, func() {
		c.packet(super, len(super), vnetTSO)
		c.packet(plain, len(plain), vnetNone)
	}); n != 0 {
		t.Errorf("%.1f allocations per packet", n)
	}
	if c.stats.Split == 0 || c.stats.Packets < 42*c.stats.Split {
		t.Errorf("stats %+v: the super-packet was not split", c.stats)
	}
}

// TestCaptureStopsCounting: packets that keep coming while the capture
// closes are either in the file or not counted as received — the file and
// its statistics block agree (pcapng's isb_ifrecv). Without the filter
// that stops the socket taking packets, those arriving after the drain
// were counted and never written.
func TestCaptureStopsCounting(t *testing.T) {
	requireTshark(t)
	a, b := pair(t)
	dst := netip.MustParseAddrPort("192.168.91.2:9998")
	_, tx := udpPair(t, a, b, dst)
	c, path := startIn(t, b, "vb", 128)
	stop := make(chan struct{})
	sent := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				sent <- n
				return
			default:
			}
			tx.Write(make([]byte, 100))
			n++
			time.Sleep(100 * time.Microsecond)
		}
	}()
	time.Sleep(50 * time.Millisecond)
	st, err := c.Close()
	time.Sleep(20 * time.Millisecond) // packets after the close, too
	close(stop)
	n := <-sent
	if err != nil {
		t.Fatal(err)
	}
	if st.Dropped != 0 {
		t.Fatalf("the kernel dropped %d packets (ring full: the capture's reader fell behind), want none", st.Dropped)
	}
	got := tsharkFields(t, path, "", nil, "frame.number")
	t.Logf("sent %d, stats %+v, tshark reads %d", n, st, len(got))
	if st.Received != st.Packets || uint64(len(got)) != st.Packets {
		t.Errorf("the kernel counted %d received, the capture wrote %d, tshark reads %d", st.Received, st.Packets, len(got))
	}
}
