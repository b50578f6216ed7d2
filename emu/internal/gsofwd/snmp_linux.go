package gsofwd

import (
	"github.com/dc-emu/emu/internal/mib"
	"github.com/dc-emu/emu/internal/nsthread"
)

// SocketDrops returns how many datagrams UDP dropped in the ends'
// namespace because a socket's receive buffer was full (Udp RcvbufErrors
// of /proc/net/snmp, the namespace's own count): the ends' socket's
// where it is the namespace's only UDP socket.
func (e *Ends) SocketDrops() (uint64, error) {
	var n int64
	err := nsthread.Do(e.NS, func() error {
		var err error
		n, err = mib.Counter(mib.SNMP, "Udp", "RcvbufErrors")
		return err
	})
	return uint64(n), err
}
