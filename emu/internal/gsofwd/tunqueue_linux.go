package gsofwd

import (
	"fmt"

	"github.com/vishvananda/netlink"

	"github.com/dc-emu/emu/internal/nsthread"
)

// TUNQueueLen is the packets a TUN device holds for its reader: the
// kernel's ring of that size (tun's tx_queue_len, 500 by default) drops
// what arrives while it is full. 500 packets are 0.23 s of a 2,200
// packets/s flow: a proxy goroutine held up longer than that (a clean-clone
// CI run under the race detector lost 1,647 datagrams, 0.75 s of such a
// flow, before the transmitting proxy read them) lost them silently. The
// ring takes memory only for what it holds.
const TUNQueueLen = 8192

// growTUNQueue sets the TUN device name's queue, in the calling thread's
// namespace, to TUNQueueLen packets.
func growTUNQueue(name string) error {
	l, err := netlink.LinkByName(name)
	if err == nil {
		err = netlink.LinkSetTxQLen(l, TUNQueueLen)
	}
	if err != nil {
		return fmt.Errorf("gsofwd: TUN %s: queue of %d packets: %w", name, TUNQueueLen, err)
	}
	return nil
}

// TUNDrops returns how many packets the TUN device dropped before its
// reader read them (the device's tx_dropped: its queue of TUNQueueLen
// was full).
func (e *Ends) TUNDrops() (uint64, error) {
	name, err := e.TUN.Name()
	if err != nil {
		return 0, err
	}
	var n uint64
	err = nsthread.Do(e.NS, func() error {
		l, err := netlink.LinkByName(name)
		if err != nil {
			return err
		}
		if s := l.Attrs().Statistics; s != nil {
			n = s.TxDropped
		}
		return nil
	})
	return n, err
}
