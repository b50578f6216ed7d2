package gsofwd

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/dc-emu/emu/internal/nsthread"
)

// SocketDrops returns how many datagrams UDP dropped in the proxy's
// namespace because a socket's receive buffer was full (Udp RcvbufErrors
// of /proc/net/snmp, the namespace's own count): PDUs lost between the
// link and the receiver. The gateways run no other UDP socket, so the
// count is the proxy's.
func (p *Proxy) SocketDrops() (uint64, error) {
	var n uint64
	err := nsthread.Do(p.ns, func() error {
		var err error
		n, err = snmpCounter("/proc/thread-self/net/snmp", "Udp", "RcvbufErrors")
		return err
	})
	return n, err
}

// snmpCounter reads field of group from an snmp file, which holds each
// group as a line of names and a line of values.
func snmpCounter(path, group, field string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var names []string
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || fs[0] != group+":" {
			continue
		}
		if names == nil {
			names = fs
			continue
		}
		for i, name := range names {
			if name == field && i < len(fs) {
				return strconv.ParseUint(fs[i], 10, 64)
			}
		}
		break
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("gsofwd: no %s %s in %s", group, field, path)
}
