package mptcp

import (
	"encoding/binary"
	"net/netip"

	"github.com/dc-emu/emu/emu/internal/tcpinfo"
)

// Info is the connection-level state of an MPTCP socket (struct
// mptcp_info). Byte counters are of the MPTCP data stream, all subflows
// together, without retransmissions across subflows counted twice in
// BytesAcked.
type Info struct {
	// Len is how many bytes of struct mptcp_info the kernel returned;
	// fields past it read as zero (HasBytes says whether the byte counters,
	// Linux 6.7+, were among them).
	Len int

	Subflows, SubflowsMax               uint8
	AddAddrSignal, AddAddrSignalMax     uint8
	AddAddrAccepted, AddAddrAcceptedMax uint8
	LocalAddrUsed, LocalAddrMax         uint8
	// Flags holds InfoFlagFallback and InfoFlagRemoteKeyReceived.
	Flags uint32
	Token uint32

	WriteSeq, SndUna, RcvNxt uint64
	CsumEnabled              bool

	Retransmits                                        uint32
	BytesRetrans, BytesSent, BytesReceived, BytesAcked uint64
	// SubflowsTotal counts subflows including the initial one, also when
	// it has closed (Linux 6.10+).
	SubflowsTotal uint8
}

// Bits of Info.Flags (MPTCP_INFO_FLAG_*).
const (
	InfoFlagFallback          = 1 << 0
	InfoFlagRemoteKeyReceived = 1 << 1
)

// Fallback reports whether the connection fell back to plain TCP.
func (i Info) Fallback() bool { return i.Flags&InfoFlagFallback != 0 }

// HasBytes reports whether the kernel returned the byte counters.
func (i Info) HasBytes() bool { return i.Len >= 80 }

// infoSize is struct mptcp_info as of Linux 6.10 (up to
// mptcpi_last_ack_recv); the tests check the kernel returns this much.
const infoSize = 96

// decodeInfo reads struct mptcp_info (include/uapi/linux/mptcp.h).
func decodeInfo(b []byte) Info {
	var i Info
	i.Len = len(b)
	var full [infoSize]byte
	copy(full[:], b)
	ne := binary.NativeEndian
	i.Subflows, i.AddAddrSignal, i.AddAddrAccepted = full[0], full[1], full[2]
	i.SubflowsMax, i.AddAddrSignalMax, i.AddAddrAcceptedMax = full[3], full[4], full[5]
	i.Flags = ne.Uint32(full[8:])
	i.Token = ne.Uint32(full[12:])
	i.WriteSeq, i.SndUna, i.RcvNxt = ne.Uint64(full[16:]), ne.Uint64(full[24:]), ne.Uint64(full[32:])
	i.LocalAddrUsed, i.LocalAddrMax, i.CsumEnabled = full[40], full[41], full[42] != 0
	i.Retransmits = ne.Uint32(full[44:])
	i.BytesRetrans, i.BytesSent = ne.Uint64(full[48:]), ne.Uint64(full[56:])
	i.BytesReceived, i.BytesAcked = ne.Uint64(full[64:]), ne.Uint64(full[72:])
	i.SubflowsTotal = full[80]
	return i
}

// Subflow is one subflow of an MPTCP connection.
type Subflow struct {
	// ID is the kernel's subflow id, unique within the connection and
	// counted from 1 (MPTCP_FULL_INFO); 0 when the kernel has no
	// MPTCP_FULL_INFO and only the position in the list is known (Index).
	ID    uint32
	Index int
	// Local and Remote are the subflow's addresses.
	Local, Remote netip.AddrPort
	// TCP is the subflow's tcp_info.
	TCP tcpinfo.Info
}

// sockaddrStorage is sizeof(struct __kernel_sockaddr_storage).
const sockaddrStorage = 128

// subflowAddrsSize is sizeof(struct mptcp_subflow_addrs): local then
// remote, each in a sockaddr_storage.
const subflowAddrsSize = 2 * sockaddrStorage

// decodeAddrs reads a struct mptcp_subflow_addrs.
func decodeAddrs(b []byte) (local, remote netip.AddrPort) {
	if len(b) < subflowAddrsSize {
		return
	}
	return decodeSockaddr(b[:sockaddrStorage]), decodeSockaddr(b[sockaddrStorage:subflowAddrsSize])
}

// decodeSockaddr reads a sockaddr_in or sockaddr_in6; anything else is the
// zero AddrPort.
func decodeSockaddr(b []byte) netip.AddrPort {
	const afInet, afInet6 = 2, 10
	if len(b) < 28 {
		return netip.AddrPort{}
	}
	port := binary.BigEndian.Uint16(b[2:])
	switch binary.NativeEndian.Uint16(b) {
	case afInet:
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), port)
	case afInet6:
		// A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
		return netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[8:24])).Unmap(), port)
	}
	return netip.AddrPort{}
}
