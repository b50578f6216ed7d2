package gsofwd

import (
	"bytes"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestReceiverSplitsGRO sends, inside a namespace of its own, three
// UDP_SEGMENT batches (one with a short last datagram) and one lone
// datagram to a socket with UDP_GRO and reads them with a UDPReceiver:
// every datagram comes out whole and in order, the socket's queue counts
// at least their bytes before the reads, and a read allocates nothing.
func TestReceiverSplitsGRO(t *testing.T) {
	n := emutest.NewNetNS(t)
	var rfd, sfd int
	err := n.Do(func() error {
		lo, err := n.Handle.LinkByName("lo")
		if err == nil {
			err = n.Handle.LinkSetUp(lo)
		}
		if err != nil {
			return err
		}
		if rfd, err = emutest.LoopbackUDP(2152); err != nil {
			return err
		}
		sfd, err = emutest.LoopbackUDP(0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sfd)
	r, err := newUDPReceiver(rfd, 128)
	unix.Close(rfd) // the receiver holds a duplicate
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	const seg = 1000
	var want [][]byte
	dst := &unix.SockaddrInet4{Port: 2152, Addr: [4]byte{127, 0, 0, 1}}
	send := func(count, last int) {
		var b []byte
		for i := range count {
			size := seg
			if i == count-1 {
				size = last
			}
			d := bytes.Repeat([]byte{byte(len(want))}, size)
			want = append(want, d)
			b = append(b, d...)
		}
		var oob []byte
		if count > 1 {
			oob = make([]byte, unix.CmsgSpace(2))
			h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
			h.Level, h.Type = unix.SOL_UDP, unix.UDP_SEGMENT
			h.SetLen(unix.CmsgLen(2))
			*(*uint16)(unsafe.Pointer(&oob[unix.CmsgLen(0)])) = seg
		}
		if err := unix.Sendmsg(sfd, b, oob, dst, 0); err != nil {
			t.Fatalf("sendmsg of %d datagrams: %v", count, err)
		}
	}
	send(10, seg)
	send(7, 321)
	send(1, 77)
	send(20, seg)
	sent := 0
	for _, d := range want {
		sent += len(d)
	}
	sq, err := OpenSocketQueue(int(n.NS), 2152)
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	if q, err := sq.Queued(); err != nil || q < sent {
		t.Errorf("socket queue %d bytes (%v) with %d bytes of datagrams in it", q, err, sent)
	}

	bufs, sizes := make([][]byte, 128), make([]int, 128)
	for i := range bufs {
		bufs[i] = make([]byte, BufSize)
	}
	var got [][]byte
	for len(got) < len(want) {
		k, err := r.Read(bufs, sizes, Headroom)
		if err != nil {
			t.Fatal(err)
		}
		for i := range k {
			got = append(got, append([]byte(nil), bufs[i][Headroom:Headroom+sizes[i]]...))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("read %d datagrams, sent %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("datagram %d: %d bytes of %v, want %d of %v", i, len(got[i]), got[i][:1], len(want[i]), want[i][:1])
		}
	}

	// AllocsPerRun reads 11 times, two GRO buffers a read; 24 of 5 KB
	// fit the socket's default buffer.
	for range 24 {
		send(5, seg)
	}
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := r.Read(bufs, sizes, Headroom); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("a read allocates %.1f times", allocs)
	}
}
