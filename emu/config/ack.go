package config

import (
	"fmt"
	"strconv"
	"strings"
)

// The ACK threshold of a QUIC receiver (flow.ack_thresh): how many
// ack-eliciting packets it takes before it acknowledges at once. RFC 9000
// §13.2 leaves the number to the receiver and recommends 2;
// draft-ietf-quic-ack-frequency lets the sender ask for another. Of emu's
// endpoints only ngtcp2's client takes one (gtlsclient --ack-thresh, "the
// minimum number of the received ACK eliciting packets that triggers
// immediate acknowledgement"); ngtcp2 only downloads in emu, so the
// receiver is always the client. A flow whose receiver cannot honour a
// threshold other than the default is refused (validateAckThresh), the
// shorthand flow.ack_thresh included: a mixed run sets the ngtcp2 flows'
// own flows.N.ack_thresh.
const (
	DefaultAckThresh = 2
	// MaxAckThresh bounds the threshold: beyond a thousand packets a
	// receiver acknowledges on its max_ack_delay timer alone at any rate a
	// run reaches.
	MaxAckThresh = 1000
)

var ackThreshField = intField("ack_thresh", "packets",
	"QUIC receiver's ACK threshold: ack-eliciting packets received before an immediate ACK (RFC 9000 §13.2; default 2); "+
		"ngtcp2 clients only: quic-go has no such setting (quic-go #2482), kernel TCP acknowledges every second full segment, at once in quick-ack mode",
	func(f *Flow) *int { return &f.AckThresh })

// ackReceiver is the implementation that receives flow f's data and would
// have to honour an ACK threshold, and whether it can.
func ackReceiver(f Flow) (impl string, ok bool) {
	switch f.Proto {
	case "quic":
		return f.ClientImpl, f.ClientImpl == "ngtcp2"
	case "tcp":
		return "kernel TCP", false
	}
	return f.Proto, false
}

// validateAckThresh checks flow i's ACK threshold: a whole number of
// packets in 1..MaxAckThresh, and, away from the default, a receiver that
// honours it.
func validateAckThresh(i int, f Flow, bad func(key, format string, args ...any)) {
	k := fmt.Sprintf("flows.%d.ack_thresh", i)
	if f.AckThresh < 1 || f.AckThresh > MaxAckThresh {
		bad(k, "want 1 to %d ack-eliciting packets (got %d)", MaxAckThresh, f.AckThresh)
		return
	}
	if f.AckThresh == DefaultAckThresh {
		return
	}
	impl, ok := ackReceiver(f)
	if ok {
		return
	}
	why := ""
	switch {
	case f.Proto == "tcp":
		why = ": kernel TCP's delayed ACKs are the kernel's own (an ACK for every second full-sized segment, and at once in quick-ack mode)"
	case impl == "quic-go":
		why = ": quic-go has no ACK-frequency setting (quic-go issue #2482); use client_impl=ngtcp2"
	}
	bad(k, "%d: flow %s receives with %s, which cannot honour an ACK threshold%s", f.AckThresh, f.Name, impl, why)
}

// laterFlowKeys are per-flow keys added after sweeps had written plans,
// with the default that keeps the old behaviour. A plan leaves them out
// while they hold it (PlanValues), so a new key changes no existing plan's
// points or seeds.
var laterFlowKeys = map[string]string{
	"ack_thresh": strconv.Itoa(DefaultAckThresh),
}

// PlanValues are the values a sweep's plan names a configuration by:
// Values without run.seed (each run gets its own) and without the per-flow
// keys added since plans were first written while they hold their default
// (laterFlowKeys).
func PlanValues(c *Config) map[string]string {
	v := Values(c)
	delete(v, "run.seed")
	for k, x := range v {
		parts := strings.Split(k, ".")
		if len(parts) == 3 && parts[0] == "flows" {
			if d, ok := laterFlowKeys[parts[2]]; ok && d == x {
				delete(v, k)
			}
		}
	}
	return v
}
