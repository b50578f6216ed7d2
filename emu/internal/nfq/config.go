package nfq

import (
	"fmt"
	"time"
)

// CopyMode says how much of each packet the kernel copies to userspace.
type CopyMode uint8

const (
	// CopyMeta copies metadata only (id, mark, devices, timestamp): the
	// cheapest mode, but the kernel then reports no packet length.
	CopyMeta CopyMode = 1
	// CopyPacket copies the first CopyRange bytes of each packet and reports
	// its full length.
	CopyPacket CopyMode = 2
)

// Config configures a queue. The zero value of each field selects the
// default named in its comment.
type Config struct {
	// NetNS is an open file descriptor of the network namespace whose queue
	// to bind (a netlink socket stays in the namespace it was created in).
	// 0 means the caller's current namespace.
	NetNS int
	// Num is the queue number the rules send packets to.
	Num uint16
	// CopyMode: default CopyMeta.
	CopyMode CopyMode
	// CopyRange is how many bytes of each packet CopyPacket copies, from the
	// network header on. 0 copies whole packets (up to 65531 bytes, the
	// kernel's limit). Ignored by CopyMeta.
	CopyRange uint32
	// MaxQueueLen is how many packets the kernel holds for this queue
	// before it drops new ones (counted in Stats.QueueDropped). A delay line
	// holds rate×delay packets: 1 Gbit/s × 300 ms is about 25 000 packets of
	// 1500 bytes. Default 65536.
	MaxQueueLen uint32
	// GSO asks the kernel to queue GSO super-packets whole
	// (NFQA_CFG_F_GSO) instead of segmenting them first. Whole is cheaper
	// when the verdict does not depend on the bytes (a delay line); per
	// segment is needed to rewrite packets (PDCP).
	GSO bool
	// FailOpen makes the kernel accept packets instead of dropping them
	// when the queue is full or the receive buffer overflows.
	FailOpen bool
	// RcvBuf is the socket receive buffer in bytes (SO_RCVBUFFORCE). It
	// absorbs bursts while the reader is busy. Default 8 MiB when little of
	// each packet is copied (CopyMeta, or CopyRange up to 1024), else 64 MiB.
	RcvBuf int
	// Batch is the most messages one Recv reads in one system call.
	// Default 64; at most 1024.
	Batch int
	// Timestamps makes the kernel stamp every packet it receives, so
	// Packet.Time is set: the time a packet entered the namespace, which a
	// reader that fell behind can still use. The switch is host-wide (the
	// kernel stamps while any socket asks for stamps; it costs a clock
	// read per packet); Open turns it on with a socket inside the queue's
	// namespace and Close turns it off.
	Timestamps bool
	// Spin makes Recv and Sleep wake this long before their deadline and
	// spin until it, trading CPU for precision: on the development VM at
	// 1000 packets/s, 20 µs of spin cut the median lateness of a release
	// from about 40 µs to 7 µs. But a real-time thread that spins keeps
	// everything else off its CPU, kernel threads included: under a flood
	// of 50 000+ packets/s, 20 µs of spin made releases milliseconds late.
	// 0 (default) sleeps until the deadline. At most 10 ms.
	Spin time.Duration
}

const maxCopyRange = 0xffff - nlaHdrLen

// withDefaults returns cfg with defaults filled in, or an error naming the
// field that is out of range.
func (cfg Config) withDefaults() (Config, error) {
	switch cfg.CopyMode {
	case 0:
		cfg.CopyMode = CopyMeta
	case CopyMeta, CopyPacket:
	default:
		return cfg, fmt.Errorf("nfq: queue %d: CopyMode %d: want CopyMeta or CopyPacket", cfg.Num, cfg.CopyMode)
	}
	if cfg.CopyMode == CopyMeta {
		cfg.CopyRange = 0
	} else if cfg.CopyRange == 0 || cfg.CopyRange > maxCopyRange {
		cfg.CopyRange = maxCopyRange
	}
	if cfg.MaxQueueLen == 0 {
		cfg.MaxQueueLen = 65536
	}
	if cfg.RcvBuf == 0 {
		cfg.RcvBuf = 8 << 20
		if cfg.CopyRange > 1024 {
			cfg.RcvBuf = 64 << 20
		}
	}
	if cfg.RcvBuf < 0 {
		return cfg, fmt.Errorf("nfq: queue %d: RcvBuf %d: negative", cfg.Num, cfg.RcvBuf)
	}
	if cfg.Batch == 0 {
		cfg.Batch = 64
	}
	if cfg.Batch < 0 || cfg.Batch > 1024 {
		return cfg, fmt.Errorf("nfq: queue %d: Batch %d: want 1..1024", cfg.Num, cfg.Batch)
	}
	if cfg.Spin < 0 || cfg.Spin > 10*time.Millisecond {
		return cfg, fmt.Errorf("nfq: queue %d: Spin %v: want 0..10ms", cfg.Num, cfg.Spin)
	}
	return cfg, nil
}

// slotSize is the receive buffer per message: the attributes before the
// payload take well under 512 bytes.
func (cfg *Config) slotSize() int {
	return 512 + align4(int(cfg.CopyRange))
}
