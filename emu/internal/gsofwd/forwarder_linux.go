package gsofwd

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync/atomic"
)

// A Forwarder moves packets between one TUN device and UDP peers.
type Forwarder struct {
	Ends

	// Counters, for a benchmark's report: packets (wire segments) and
	// batches each way.
	ToUDP, ToUDPBatches, ToTUN, ToTUNBatches atomic.Uint64
}

// Open creates, inside the network namespace ns (a descriptor), a TUN
// device named name with the given MTU and a UDP socket on port, whose
// packets read from the TUN go to peers (round robin, a read batch at a
// time). The TUN is left down: the caller brings it up and routes to it.
func Open(ns int, name string, mtu int, port uint16, peers []netip.AddrPort) (*Forwarder, error) {
	e, err := OpenEnds(ns, name, mtu, port, peers)
	if err != nil {
		return nil, err
	}
	return &Forwarder{Ends: e}, nil
}

// Run forwards until ctx ends or a loop fails, then closes the device and
// the socket.
func (f *Forwarder) Run(ctx context.Context) error {
	return f.Ends.Run(ctx, f.tunToUDP, f.udpToTUN)
}

// tunToUDP reads super-packets from the TUN, split into wire segments by
// the library, and sends each read's segments to the next peer in one
// batch (UDP_SEGMENT where the kernel has it).
func (f *Forwarder) tunToUDP() error {
	n := f.TUN.BatchSize()
	bufs, sizes, out := make([][]byte, n), make([]int, n), make([][]byte, n)
	for i := range bufs {
		bufs[i] = make([]byte, BufSize)
	}
	next := 0
	for {
		k, err := f.TUN.Read(bufs, sizes, Headroom)
		if err != nil {
			return err
		}
		for i := range k {
			out[i] = bufs[i][Headroom : Headroom+sizes[i]]
		}
		if err := f.Bind.Send(out[:k], f.Peers[next]); err != nil {
			return fmt.Errorf("gsofwd: send: %w", err)
		}
		next = (next + 1) % len(f.Peers)
		f.ToUDP.Add(uint64(k))
		f.ToUDPBatches.Add(1)
	}
}

// udpToTUN receives UDP_GRO batches, split into datagrams, and writes
// them to the TUN, which coalesces TCP segments back into super-packets.
func (f *Forwarder) udpToTUN() error {
	n := f.Bind.BatchSize()
	bufs, sizes, out := make([][]byte, n), make([]int, n), make([][]byte, n)
	for i := range bufs {
		bufs[i] = make([]byte, BufSize)
	}
	for {
		k, err := f.UDP.Read(bufs, sizes, Headroom)
		if err != nil {
			return err
		}
		m := 0
		for i := range k {
			if sizes[i] > 0 {
				out[m] = bufs[i][:Headroom+sizes[i]]
				m++
			}
		}
		if m == 0 {
			continue
		}
		// A packet the kernel refuses (a malformed one) is dropped, as a
		// router would; the others went through.
		if _, err := f.TUN.Write(out[:m], Headroom); err != nil && errors.Is(err, os.ErrClosed) {
			return err
		}
		f.ToTUN.Add(uint64(m))
		f.ToTUNBatches.Add(1)
	}
}
