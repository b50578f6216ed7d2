package gsofwd

import (
	"github.com/dc-emu/emu/internal/mib"
	"github.com/dc-emu/emu/internal/nsthread"
)

// SocketDrops returns how many datagrams UDP dropped in the proxy's
// namespace because a socket's receive buffer was full (Udp RcvbufErrors
// of /proc/net/snmp, the namespace's own count): PDUs lost between the
// link and the receiver. The gateways run no other UDP socket, so the
// count is the proxy's.
func (p *Proxy) SocketDrops() (uint64, error) {
	var n int64
	err := nsthread.Do(p.ns, func() error {
		var err error
		n, err = mib.Counter(mib.SNMP, "Udp", "RcvbufErrors")
		return err
	})
	return uint64(n), err
}
