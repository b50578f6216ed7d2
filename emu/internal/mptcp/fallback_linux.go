//go:build linux

package mptcp

import (
	"fmt"
	"strings"

	"github.com/dc-emu/emu/internal/mib"
)

// fallbackCounters are the MPTcpExt MIB counters (/proc/net/netstat) that
// count a connection falling back to plain TCP, with what each means.
var fallbackCounters = []struct{ name, why string }{
	{"MPCapableFallbackSYNACK", "the server's SYN/ACK carried no MP_CAPABLE (it does not speak MPTCP, or a middlebox stripped the option)"},
	{"MPCapableFallbackACK", "the client's ACK carried no MP_CAPABLE"},
	{"MPCapableSYNTXDrop", "SYNs with MP_CAPABLE went unanswered, so the kernel retried without (net.mptcp.syn_retrans_before_tcp_fallback)"},
	{"MPCapableSYNTXDisabled", "MPTCP was disabled for new connections after earlier MP_CAPABLE SYNs were dropped (net.mptcp.blackhole_timeout)"},
	{"MPFallbackTokenInit", "the kernel could not create an MPTCP token"},
	{"MPCapableDataFallback", "the first data carried no DSS mapping"},
	{"DssFallback", "a packet carried no DSS option where one was required"},
	{"DSSCorruptionFallback", "data-sequence mappings were corrupt"},
	{"InfiniteMapTx", "this side sent an infinite mapping (fallback after an MP_FAIL)"},
	{"InfiniteMapRx", "the peer sent an infinite mapping (fallback after an MP_FAIL)"},
	{"MD5SigFallback", "the socket uses TCP MD5 signatures"},
	{"SimultConnectFallback", "a simultaneous connect"},
}

// FallbackReason says, as well as the calling thread's namespace can tell,
// why an MPTCP socket fell back to plain TCP: MPTCP disabled by
// net.mptcp.enabled, or the non-zero fallback counters of the namespace's
// MPTcpExt MIB (which count every connection of the namespace, so in a
// namespace with one connection they say why that one fell back).
func FallbackReason() string {
	if en, err := readSysctl("enabled"); err == nil && en != "1" {
		return "net.mptcp.enabled is " + en + " in this namespace, so the socket was made as plain TCP"
	}
	counts, err := mptcpMIB()
	if err != nil {
		return "reason unknown (" + err.Error() + ")"
	}
	var why []string
	for _, c := range fallbackCounters {
		if n := counts[c.name]; n > 0 {
			why = append(why, fmt.Sprintf("%s (MPTcpExt%s=%d)", c.why, c.name, n))
		}
	}
	if len(why) == 0 {
		return "reason unknown (no MPTcpExt fallback counter is set)"
	}
	return strings.Join(why, "; ")
}

// mptcpMIB reads the MPTcpExt counters of the calling thread's namespace.
func mptcpMIB() (map[string]uint64, error) {
	g, err := mib.Group(mib.Netstat, "MPTcpExt")
	if err != nil {
		return nil, err
	}
	m := make(map[string]uint64, len(g))
	for name, v := range g {
		m[name] = uint64(v)
	}
	return m, nil
}
