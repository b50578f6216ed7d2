package gsofwd

import (
	"fmt"

	"github.com/vishvananda/netlink"

	"github.com/dc-emu/emu/internal/nsthread"
)

// tunQueueLen is the packets a TUN device holds for its reader: the
// kernel's ring of that size (tun's tx_queue_len, 500 by default) drops
// what arrives while it is full. 500 packets are 0.23 s of a 2,200
// packets/s flow: a proxy goroutine held up longer than that (a clean-clone
// CI run under the race detector lost 1,647 datagrams, 0.75 s of such a
// flow, before the transmitting proxy read them) lost them silently. The
// ring takes memory only for what it holds.
const tunQueueLen = 8192

// growTUNQueue sets the TUN device name's queue, in the calling thread's
// namespace, to tunQueueLen packets.
func growTUNQueue(name string) error {
	l, err := netlink.LinkByName(name)
	if err == nil {
		err = netlink.LinkSetTxQLen(l, tunQueueLen)
	}
	if err != nil {
		return fmt.Errorf("gsofwd: TUN %s: queue of %d packets: %w", name, tunQueueLen, err)
	}
	return nil
}

// TUNDrops returns how many packets the proxy's TUN device dropped
// before the proxy read them (the device's tx_dropped: its queue was
// full): SDUs lost on their way into PDCP, the transmitting proxy's
// loss, not the link's.
func (p *Proxy) TUNDrops() (uint64, error) {
	name, err := p.tun.Name()
	if err != nil {
		return 0, err
	}
	var n uint64
	err = nsthread.Do(p.ns, func() error {
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
