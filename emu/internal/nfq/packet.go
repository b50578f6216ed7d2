package nfq

import "time"

// Packet is one queued packet as the kernel reported it.
type Packet struct {
	// ID is the kernel's packet id, the handle for its verdict. Ids grow by
	// one per queued packet in arrival order (wrapping at 2^32).
	ID uint32
	// Len is the packet's length in bytes (a GSO super-packet counts whole)
	// when the queue copies packets (CopyPacket). The kernel does not report
	// the length in CopyMeta mode; Len is 0 there.
	Len uint32
	// Mark is the packet's netfilter mark (0 when unset).
	Mark uint32
	// InDev and OutDev are interface indexes; 0 when not known at this hook.
	InDev, OutDev uint32
	// HwProto is the EtherType of the packet (0x0800 IPv4, 0x86dd IPv6).
	HwProto uint16
	// Hook is the netfilter hook the packet was queued from.
	Hook uint8
	// Flags carries the kernel's skb info (GSO, checksum not ready).
	Flags PacketFlags
	// Time is the kernel's receive timestamp of the packet when it has one
	// (only while some socket on the host asked for timestamps); else zero.
	Time time.Time
	// Payload is the copied part of the packet, starting at the network
	// header. It aliases the queue's receive buffer and is valid only until
	// the next Recv or Poll: copy what must outlive it.
	Payload []byte
}

// PacketFlags is the kernel's NFQA_SKB_INFO.
type PacketFlags uint32

const (
	// FlagCsumNotReady: the checksum is left to the device (CHECKSUM_PARTIAL).
	FlagCsumNotReady PacketFlags = 1 << 0
	// FlagGSO: a GSO super-packet (only delivered whole with Config.GSO).
	FlagGSO PacketFlags = 1 << 1
	// FlagCsumNotVerified: the checksum has not been verified yet.
	FlagCsumNotVerified PacketFlags = 1 << 2
)

// Stats are the kernel's and this client's counters for one queue.
type Stats struct {
	// Held is the number of packets waiting for a verdict in the kernel.
	Held uint32
	// QueueDropped counts packets dropped because Held reached MaxQueueLen.
	QueueDropped uint32
	// UserDropped counts packets dropped because the socket's receive buffer
	// was full (the reader fell behind).
	UserDropped uint32
	// IDSequence is the id of the last packet queued.
	IDSequence uint32
	// NoBufs counts ENOBUFS reported on receive (messages the kernel could
	// not deliver; with NETLINK_NO_ENOBUFS set they show in UserDropped).
	NoBufs uint64
	// VerdictErrors counts verdicts the kernel rejected (for example an id
	// that is no longer queued); LastVerdictErrno is the last error number.
	VerdictErrors    uint64
	LastVerdictErrno int32
}
