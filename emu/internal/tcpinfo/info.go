package tcpinfo

import (
	"encoding/binary"
	"time"
)

// Field names one decoded member of struct tcp_info.
type Field int

// Fields Info decodes, in the kernel's order.
const (
	State Field = iota
	CAState
	Retransmits
	AppLimited
	RTO
	SndMSS
	Unacked
	Sacked
	Lost
	Retrans
	SRTT
	RTTVar
	SndSsthresh
	SndCwnd
	TotalRetrans
	PacingRate
	BytesAcked
	NotsentBytes
	MinRTT
	DeliveryRate
	BytesSent
	BytesRetrans
	numFields
)

// layout is each field's byte offset and size in struct tcp_info
// (include/uapi/linux/tcp.h). Members only ever get appended, so an offset
// never changes between kernel versions.
var layout = [numFields]struct{ off, size int }{
	State:        {0, 1},
	CAState:      {1, 1},
	Retransmits:  {2, 1},
	AppLimited:   {7, 1}, // tcpi_delivery_rate_app_limited, bit 0
	RTO:          {8, 4},
	SndMSS:       {16, 4},
	Unacked:      {24, 4},
	Sacked:       {28, 4},
	Lost:         {32, 4},
	Retrans:      {36, 4},
	SRTT:         {68, 4},
	RTTVar:       {72, 4},
	SndSsthresh:  {76, 4},
	SndCwnd:      {80, 4},
	TotalRetrans: {100, 4},
	PacingRate:   {104, 8},
	BytesAcked:   {120, 8},
	NotsentBytes: {144, 4},
	MinRTT:       {148, 4},
	DeliveryRate: {160, 8},
	BytesSent:    {200, 8},
	BytesRetrans: {208, 8},
}

// Size is the buffer a reader offers the kernel: more than any kernel's
// struct tcp_info so far (Linux 6.18 returns 280 bytes, see the tests), so
// the returned length is the kernel's own and nothing is cut.
const Size = 512

// Linux TCP states (tcpi_state) and congestion-avoidance states
// (tcpi_ca_state) that callers compare with.
const (
	StateEstablished = 1
	StateClose       = 7

	CAOpen     = 0
	CADisorder = 1
	CACWR      = 2
	CARecovery = 3
	CALoss     = 4
)

// Info is one decoded tcp_info. Times are durations, rates bytes per
// second, windows and counters what the kernel counts (segments unless the
// name says bytes). Use Has before trusting a field: one the kernel did not
// return reads as zero.
type Info struct {
	// Len is the number of bytes the kernel returned.
	Len int

	State, CAState, Retransmits uint8
	// AppLimited: the delivery rate sample was limited by the application,
	// not the network.
	AppLimited bool

	RTO    time.Duration
	SndMSS uint32 // bytes

	Unacked uint32 // segments sent and not yet acknowledged (packets_out)
	Sacked  uint32
	Lost    uint32
	Retrans uint32 // segments retransmitted and not yet acknowledged

	SRTT, RTTVar, MinRTT time.Duration

	SndCwnd, SndSsthresh uint32 // segments
	TotalRetrans         uint32

	PacingRate, DeliveryRate uint64 // bytes per second

	BytesAcked, BytesSent, BytesRetrans uint64
	NotsentBytes                        uint32
}

// Has reports whether f lies within the bytes the kernel returned.
func (i Info) Has(f Field) bool {
	if f < 0 || f >= numFields {
		return false
	}
	l := layout[f]
	return l.off+l.size <= i.Len
}

// InFlight is the number of segments the kernel counts as in the network
// (tcp_packets_in_flight: unacked − sacked − lost + retransmitted), and
// whether the fields it needs were returned.
func (i Info) InFlight() (uint32, bool) {
	if !i.Has(Retrans) {
		return 0, false
	}
	left := uint64(i.Sacked) + uint64(i.Lost)
	if left > uint64(i.Unacked) {
		return i.Retrans, true
	}
	return i.Unacked - uint32(left) + i.Retrans, true
}

// InFlightBytes is InFlight in bytes, counting each segment as one MSS (the
// kernel counts segments; the last one of a burst may be shorter).
func (i Info) InFlightBytes() (uint64, bool) {
	n, ok := i.InFlight()
	return uint64(n) * uint64(i.SndMSS), ok
}

// CwndBytes is the congestion window in bytes (snd_cwnd × snd_mss).
func (i Info) CwndBytes() (uint64, bool) {
	if !i.Has(SndCwnd) {
		return 0, false
	}
	return uint64(i.SndCwnd) * uint64(i.SndMSS), true
}

// Decode reads a tcp_info of len(b) bytes, as the kernel returned it. It
// never fails: whatever b is too short for stays zero and Has says so.
func Decode(b []byte) Info {
	var i Info
	i.Len = len(b)
	u8 := func(f Field) uint8 {
		if !i.Has(f) {
			return 0
		}
		return b[layout[f].off]
	}
	u32 := func(f Field) uint32 {
		if !i.Has(f) {
			return 0
		}
		return binary.NativeEndian.Uint32(b[layout[f].off:])
	}
	u64 := func(f Field) uint64 {
		if !i.Has(f) {
			return 0
		}
		return binary.NativeEndian.Uint64(b[layout[f].off:])
	}
	us := func(f Field) time.Duration { return time.Duration(u32(f)) * time.Microsecond }

	i.State, i.CAState, i.Retransmits = u8(State), u8(CAState), u8(Retransmits)
	i.AppLimited = u8(AppLimited)&1 != 0
	i.RTO = us(RTO)
	i.SndMSS = u32(SndMSS)
	i.Unacked, i.Sacked, i.Lost, i.Retrans = u32(Unacked), u32(Sacked), u32(Lost), u32(Retrans)
	i.SRTT, i.RTTVar, i.MinRTT = us(SRTT), us(RTTVar), us(MinRTT)
	i.SndCwnd, i.SndSsthresh = u32(SndCwnd), u32(SndSsthresh)
	i.TotalRetrans = u32(TotalRetrans)
	i.PacingRate, i.DeliveryRate = u64(PacingRate), u64(DeliveryRate)
	i.BytesAcked, i.BytesSent, i.BytesRetrans = u64(BytesAcked), u64(BytesSent), u64(BytesRetrans)
	i.NotsentBytes = u32(NotsentBytes)
	return i
}
