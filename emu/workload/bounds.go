package workload

import (
	"fmt"
	"time"

	"github.com/dc-emu/emu/emu/units"
)

// The range checks of the workload parameters, written once for the
// configuration (which names the key) and the endpoints (which check what
// they are told, across the process boundary).

// CheckTransaction reports an rr request or response body of n bytes out
// of range.
func CheckTransaction(n int64) error {
	if n < 0 || n > MaxTransaction {
		return fmt.Errorf("%s out of range (0 B to %s)", units.FormatSize(n), units.FormatSize(MaxTransaction))
	}
	return nil
}

// CheckCBRPacket reports a cbr payload of n bytes out of range.
func CheckCBRPacket(n int) error {
	if n < CBRHeader || n > MaxCBRPacket {
		return fmt.Errorf("%d B out of range (%d B, the datagram header, to %d B)", n, CBRHeader, MaxCBRPacket)
	}
	return nil
}

// CheckCBRInterval reports a time between cbr datagrams of packet bytes
// out of range.
func CheckCBRInterval(packet int, every time.Duration) error {
	if every < MinCBRInterval || every > MaxCBRInterval {
		return fmt.Errorf("%d B datagrams every %v: out of range (%v to %v between datagrams)", packet, every, MinCBRInterval, MaxCBRInterval)
	}
	return nil
}

// CheckEnd reports a flow that would never end: an rr or cbr flow, or an
// objects flow whose sizes are drawn (or all the same), needs a count or a
// duration; objects of a list end with the list.
func CheckEnd(kind string, objects ObjectSpec, count int, duration time.Duration) error {
	if count > 0 || duration > 0 {
		return nil
	}
	switch {
	case kind == KindRR || kind == KindCBR:
		return fmt.Errorf("an %s flow needs a count or a duration", kind)
	case kind == KindObjects && objects.Dist != DistList:
		return fmt.Errorf("objects drawn from %s need a count or the flow's duration", objects.Dist)
	}
	return nil
}
