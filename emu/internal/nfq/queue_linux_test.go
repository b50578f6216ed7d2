package nfq_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/nfq/nfqtest"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/internal/emutest"
)

const port = 9000

// queueSetup builds the line, binds queue 1 in B with cfg and sends every
// packet entering B from A to it.
func queueSetup(t *testing.T, cfg nfq.Config) (*nfqtest.Line, *nfq.Queue) {
	t.Helper()
	l := nfqtest.NewLine(t)
	cfg.NetNS = int(l.B.NS)
	cfg.Num = 1
	q, err := nfq.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	chains := []nft.Chain{{Name: "pre", Hook: nft.Prerouting, Priority: -300,
		Rules: []nft.QueueRule{{IIf: l.BFromA, Proto: unix.IPPROTO_UDP, Queue: 1}}}}
	if _, err := nft.Apply(int(l.B.NS), "emutest", chains); err != nil {
		t.Fatal(err)
	}
	return l, q
}

// recvN collects n packets or fails after timeout. Payloads are copied.
func recvN(t *testing.T, q *nfq.Queue, n int, timeout time.Duration) []nfq.Packet {
	t.Helper()
	var out []nfq.Packet
	buf := make([]nfq.Packet, 64)
	deadline := time.Now().Add(timeout)
	for len(out) < n {
		k, err := q.Recv(buf, deadline)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 && !time.Now().Before(deadline) {
			t.Fatalf("received %d of %d packets within %v", len(out), n, timeout)
		}
		for _, p := range buf[:k] {
			p.Payload = bytes.Clone(p.Payload)
			out = append(out, p)
		}
	}
	return out
}

// readAll reads datagrams from fd until it has want of them and then none
// arrives for quiet, or none arrives for 5 s. The packets a test expects
// cross two veths and the kernel's softirqs, which a busy machine can
// hold for longer than a quiet period: waiting for them by count, and
// only for more by quiet, fails a short count on emu, not on the machine.
func readAll(t *testing.T, fd int, want int, quiet time.Duration) [][]byte {
	t.Helper()
	var got [][]byte
	buf := make([]byte, 2048)
	for {
		wait := quiet
		if len(got) < want {
			wait = 5 * time.Second
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		ts := unix.NsecToTimespec(int64(wait))
		n, err := unix.Ppoll(pfd, &ts, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return got
		}
		k, err := unix.Read(fd, buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, bytes.Clone(buf[:k]))
	}
}

func msg(i int) []byte { return fmt.Appendf(nil, "packet-%04d", i) }

func sockets(t *testing.T, l *nfqtest.Line) (send, recv int) {
	recv = nfqtest.UDPSocket(t, l.C, port, netip.AddrPort{})
	send = nfqtest.UDPSocket(t, l.A, 0, netip.AddrPortFrom(l.CAddr, port))
	return send, recv
}

func TestRecvAcceptDeliversPackets(t *testing.T) {
	l, q := queueSetup(t, nfq.Config{CopyMode: nfq.CopyPacket})
	send, recv := sockets(t, l)
	const n = 10
	for i := range n {
		if _, err := unix.Write(send, msg(i)); err != nil {
			t.Fatal(err)
		}
	}
	pkts := recvN(t, q, n, 5*time.Second)
	if got := readAll(t, recv, 0, 50*time.Millisecond); len(got) != 0 {
		t.Fatalf("%d packets passed the queue before any verdict", len(got))
	}
	for i, p := range pkts {
		want := msg(i)
		if p.Len != uint32(28+len(want)) || len(p.Payload) != int(p.Len) {
			t.Errorf("packet %d: Len %d, payload %d bytes; want %d", i, p.Len, len(p.Payload), 28+len(want))
		}
		if !bytes.Equal(p.Payload[28:], want) {
			t.Errorf("packet %d: payload %q, want %q", i, p.Payload[28:], want)
		}
		if p.HwProto != unix.ETH_P_IP || p.InDev == 0 {
			t.Errorf("packet %d: HwProto %#x InDev %d", i, p.HwProto, p.InDev)
		}
		if i > 0 && p.ID != pkts[i-1].ID+1 {
			t.Errorf("packet %d: id %d after %d, want consecutive ids", i, p.ID, pkts[i-1].ID)
		}
		q.Accept(p.ID)
	}
	if err := q.Flush(); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, recv, n, 200*time.Millisecond)
	if len(got) != n {
		t.Fatalf("receiver got %d packets, want %d", len(got), n)
	}
	for i, g := range got {
		if !bytes.Equal(g, msg(i)) {
			t.Errorf("received %q, want %q", g, msg(i))
		}
	}
}

func TestDropAndAcceptUpTo(t *testing.T) {
	l, q := queueSetup(t, nfq.Config{CopyMode: nfq.CopyMeta})
	send, recv := sockets(t, l)
	const n = 20
	for i := range n {
		if _, err := unix.Write(send, msg(i)); err != nil {
			t.Fatal(err)
		}
	}
	pkts := recvN(t, q, n, 5*time.Second)
	if pkts[0].Len != 0 || pkts[0].Payload != nil {
		t.Errorf("CopyMeta packet has Len %d and %d payload bytes, want none", pkts[0].Len, len(pkts[0].Payload))
	}
	// Drop every third packet first, then accept all the rest with one
	// batch verdict, all in one write: the drops must win.
	var want [][]byte
	for i, p := range pkts {
		if i%3 == 0 {
			q.Drop(p.ID)
		} else {
			want = append(want, msg(i))
		}
	}
	q.AcceptUpTo(pkts[n-1].ID)
	if err := q.Flush(); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, recv, len(want), 200*time.Millisecond)
	if len(got) != len(want) {
		t.Fatalf("receiver got %d packets, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("packet %d: %q, want %q", i, got[i], want[i])
		}
	}
	st, err := q.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Held != 0 || st.VerdictErrors != 0 {
		t.Errorf("after verdicts: %+v, want nothing held and no verdict errors", st)
	}
}

func TestAcceptUpToLeavesLaterPacketsHeld(t *testing.T) {
	l, q := queueSetup(t, nfq.Config{})
	send, recv := sockets(t, l)
	for i := range 6 {
		unix.Write(send, msg(i))
	}
	pkts := recvN(t, q, 6, 5*time.Second)
	q.AcceptUpTo(pkts[2].ID)
	if err := q.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, recv, 3, 100*time.Millisecond); len(got) != 3 {
		t.Fatalf("got %d packets after accepting up to the third, want 3", len(got))
	}
	st, _ := q.Stats()
	if st.Held != 3 {
		t.Errorf("kernel holds %d packets, want 3", st.Held)
	}
	q.AcceptUpTo(pkts[5].ID)
	q.Flush()
	if got := readAll(t, recv, 3, 100*time.Millisecond); len(got) != 3 {
		t.Fatalf("got %d packets after the second batch, want 3", len(got))
	}
}

// TestMarkAndModify: a verdict's mark is seen by a later chain (queued
// again there, to a second queue that reports it), and a modified payload
// is what the receiver gets.
func TestMarkAndModify(t *testing.T) {
	l := nfqtest.NewLine(t)
	q1, err := nfq.Open(nfq.Config{NetNS: int(l.B.NS), Num: 1, CopyMode: nfq.CopyPacket})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q1.Close() })
	q2, err := nfq.Open(nfq.Config{NetNS: int(l.B.NS), Num: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q2.Close() })
	chains := []nft.Chain{
		{Name: "first", Hook: nft.Prerouting, Priority: -300, Rules: []nft.QueueRule{{IIf: l.BFromA, Proto: unix.IPPROTO_UDP, Queue: 1}}},
		{Name: "second", Hook: nft.Prerouting, Priority: -150, Rules: []nft.QueueRule{{IIf: l.BFromA, Proto: unix.IPPROTO_UDP, Queue: 2}}},
	}
	if _, err := nft.Apply(int(l.B.NS), "emutest", chains); err != nil {
		t.Fatal(err)
	}
	send, recv := sockets(t, l)
	unix.Write(send, []byte("original-0"))
	unix.Write(send, []byte("original-1"))
	pkts := recvN(t, q1, 2, 5*time.Second)

	q1.AcceptWithMark(pkts[0].ID, 0x2a)
	mod := bytes.Clone(pkts[1].Payload)
	copy(mod[28:], "modified-1")
	binary.BigEndian.PutUint16(mod[26:], 0) // UDP checksum: none
	q1.AcceptModified(pkts[1].ID, 0x2b, mod)
	if err := q1.Flush(); err != nil {
		t.Fatal(err)
	}
	again := recvN(t, q2, 2, 5*time.Second)
	if again[0].Mark != 0x2a || again[1].Mark != 0x2b {
		t.Errorf("marks seen by the later chain: %#x, %#x; want 0x2a, 0x2b", again[0].Mark, again[1].Mark)
	}
	q2.AcceptUpTo(again[1].ID)
	q2.Flush()
	got := readAll(t, recv, 2, 200*time.Millisecond)
	if len(got) != 2 || string(got[0]) != "original-0" || string(got[1]) != "modified-1" {
		t.Fatalf("receiver got %q, want [original-0 modified-1]", got)
	}
}

func TestQueueFullCountsDrops(t *testing.T) {
	l, q := queueSetup(t, nfq.Config{MaxQueueLen: 4})
	send, _ := sockets(t, l)
	for i := range 10 {
		unix.Write(send, msg(i))
	}
	recvN(t, q, 4, 5*time.Second)
	// The writes return once A has handed the packets to its veth; B
	// queues them in its softirq, which may not have run for the last
	// ones when the first four are read: the counts settle, then they are
	// exact.
	var st nfq.Stats
	emutest.WaitFor(t, 5*time.Second, func() error {
		var err error
		if st, err = q.Stats(); err != nil {
			return err
		}
		if st.Held+st.QueueDropped < 10 {
			return fmt.Errorf("stats %+v: %d of the 10 packets seen", st, st.Held+st.QueueDropped)
		}
		return nil
	})
	if st.Held != 4 || st.QueueDropped != 6 {
		t.Errorf("stats %+v: want 4 held and 6 dropped for a full queue", st)
	}
}

func TestSecondBindFails(t *testing.T) {
	l, _ := queueSetup(t, nfq.Config{})
	q, err := nfq.Open(nfq.Config{NetNS: int(l.B.NS), Num: 1})
	if err == nil {
		q.Close()
		t.Fatal("a second socket bound the same queue")
	}
	if !errors.Is(err, unix.EPERM) {
		t.Errorf("error %v, want EPERM (the kernel's answer to a bound queue)", err)
	}
}

func TestCloseUnblocksRecv(t *testing.T) {
	_, q := queueSetup(t, nfq.Config{})
	done := make(chan error, 1)
	go func() {
		_, err := q.Recv(make([]nfq.Packet, 4), time.Time{})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let Recv block; the test holds either way
	q.Close()
	select {
	case err := <-done:
		if !errors.Is(err, nfq.ErrClosed) {
			t.Errorf("Recv returned %v after Close, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second): // a busy machine may take seconds; a Recv Close does not end, forever
		t.Fatal("Recv still blocked 10s after Close")
	}
	if err := q.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// interruptAndDeadline is how long a Recv that Interrupt wakes takes, and
// how late a Recv with nothing to read returns after its deadline, 5 ms
// out. A Recv that returns before its deadline is emu's on any machine and
// fails the test.
func interruptAndDeadline(t *testing.T) (interrupted, late time.Duration) {
	t.Helper()
	_, q := queueSetup(t, nfq.Config{})
	pkts := make([]nfq.Packet, 4)
	q.Interrupt()
	start := time.Now()
	if n, err := q.Recv(pkts, time.Time{}); n != 0 || err != nil {
		t.Fatalf("interrupted Recv: %d, %v", n, err)
	}
	interrupted = time.Since(start)
	deadline := time.Now().Add(5 * time.Millisecond)
	if n, err := q.Recv(pkts, deadline); n != 0 || err != nil {
		t.Fatalf("Recv until deadline: %d, %v", n, err)
	}
	if late = time.Since(deadline); late < 0 {
		t.Errorf("Recv returned %v before its deadline", -late)
	}
	t.Logf("interrupted Recv took %v; Recv returned %v after its deadline", interrupted, late)
	return interrupted, late
}

// TestInterruptAndDeadline: Interrupt wakes a Recv without a deadline, and
// a Recv with one returns, with nothing read, not before it and within a
// second of it (TestFidelityInterruptAndDeadline: 100 ms and 20 ms).
func TestInterruptAndDeadline(t *testing.T) {
	emutest.RequireRoot(t)
	interrupted, late := interruptAndDeadline(t)
	if interrupted > time.Second {
		t.Errorf("interrupted Recv took %v, want at most 1s", interrupted)
	}
	if late > time.Second {
		t.Errorf("Recv returned %v after its deadline, want within a second", late)
	}
}

// TestFidelityInterruptAndDeadline: an interrupted Recv returns within
// 100 ms, and one with a deadline within 20 ms of it; late can be the
// machine's, so a miss goes through the watch.
func TestFidelityInterruptAndDeadline(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	interrupted, late := interruptAndDeadline(t)
	if interrupted > 100*time.Millisecond {
		h.Errorf(t, "interrupted Recv took %v, want at most 100ms", interrupted)
	}
	if late > 20*time.Millisecond {
		h.Errorf(t, "Recv returned %v after its deadline, want within [0, 20ms]", late)
	}
}

// TestSteadyStateAllocatesNothing: send, receive and batch-accept one packet
// per round without a single allocation.
func TestSteadyStateAllocatesNothing(t *testing.T) {
	l, q := queueSetup(t, nfq.Config{CopyMode: nfq.CopyPacket, CopyRange: 64})
	send, _ := sockets(t, l)
	pkts := make([]nfq.Packet, 16)
	payload := []byte("steady")
	var failed error
	round := func() {
		if _, err := unix.Write(send, payload); err != nil {
			failed = err
			return
		}
		n, err := q.Recv(pkts, time.Now().Add(2*time.Second))
		if err != nil || n == 0 {
			failed = fmt.Errorf("recv: %d packets, %v", n, err)
			return
		}
		q.AcceptUpTo(pkts[n-1].ID)
		q.Drop(pkts[n-1].ID + 1000) // rejected by the kernel: exercises the error path
		if err := q.Flush(); err != nil {
			failed = err
		}
	}
	round()
	if a := testing.AllocsPerRun(200, round); a != 0 {
		t.Errorf("%v allocations per packet, want 0", a)
	}
	if failed != nil {
		t.Fatal(failed)
	}
	st, _ := q.Stats()
	if st.VerdictErrors == 0 || st.LastVerdictErrno != int32(unix.ENOENT) {
		t.Errorf("verdict errors %d (errno %d), want the unknown ids counted with ENOENT", st.VerdictErrors, st.LastVerdictErrno)
	}
}
