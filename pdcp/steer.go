package pdcp

import (
	"encoding/binary"
	"fmt"
)

// Per-flow steering. A SteerRule gives the packets of one flow their own
// PDCP entity (COUNTs, receive window, t-Reordering) and their own
// scheduler, as 3GPP does when it maps a QoS flow to a bearer of its own:
// the split of a bearer is configured per bearer, and reordering couples
// only the packets of one bearer, so a flow steered to the faster link is
// not held back behind another flow's packets on the slower one. Packets of
// no rule stay in the DC client's entity 0. Both ends of a direction must
// be given the same rules; the receiving end finds a PDU's entity from the
// SDU it carries.

// MaxSteered bounds the flows with their own entity.
const MaxSteered = 64

// SteerRule is one steered flow: its packets are those with Port as their
// source or destination port (the flow's server port; clients use
// ephemeral ports, which never collide with emu's server ports), TCP or
// UDP over IPv4.
type SteerRule struct {
	Port  uint16
	Sched SchedulerConfig
}

// Classifier maps a packet to its entity: rule i's packets to i+1, all
// others to 0. The zero value has no rules.
type Classifier struct {
	ports []uint16
}

// Set replaces the rules.
func (c *Classifier) Set(rules []SteerRule) error {
	if len(rules) > MaxSteered {
		return fmt.Errorf("pdcp: %d steered flows (at most %d)", len(rules), MaxSteered)
	}
	c.ports = c.ports[:0]
	for _, r := range rules {
		c.ports = append(c.ports, r.Port)
	}
	return nil
}

// Entity returns the entity of the IP packet pkt. It does not allocate.
func (c *Classifier) Entity(pkt []byte) int {
	if len(c.ports) == 0 || len(pkt) < 20 || pkt[0]>>4 != 4 {
		return 0
	}
	if p := pkt[9]; p != 6 && p != 17 {
		return 0
	}
	ihl := int(pkt[0]&0x0f) * 4
	if binary.BigEndian.Uint16(pkt[6:8])&0x1fff != 0 || len(pkt) < ihl+4 {
		return 0 // a later fragment has no ports
	}
	src, dst := binary.BigEndian.Uint16(pkt[ihl:]), binary.BigEndian.Uint16(pkt[ihl+2:])
	for i, port := range c.ports {
		if port == src || port == dst {
			return i + 1
		}
	}
	return 0
}
