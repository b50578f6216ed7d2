package dcproxy

import (
	"encoding/binary"
	"fmt"

	"github.com/dc-emu/emu/pdcp"
)

// Per-flow steering. A SteerRule gives the packets of one flow their own
// PDCP entity (COUNTs, receive window, t-Reordering) and their own
// scheduler, as 3GPP does when it maps a QoS flow to a bearer of its own:
// the split of a bearer is configured per bearer, and reordering couples
// only the packets of one bearer, so a flow steered to the faster link is
// not held back behind another flow's packets on the slower one. Packets of
// no rule stay in the DC client's entity 0, as before. Both proxies of a
// direction must be given the same rules.

// MaxSteered bounds the flows with their own entity.
const MaxSteered = 64

// SteerRule is one steered flow: its packets are those with Port as their
// source or destination port (the flow's server port; clients use
// ephemeral ports, which never collide with emu's server ports), TCP or
// UDP over IPv4.
type SteerRule struct {
	Port  uint16
	Sched pdcp.SchedulerConfig
}

// classifier maps a packet to its entity: rule i's packets to i+1, all
// others to 0. It does not allocate.
type classifier struct {
	ports []uint16
}

func (c *classifier) entity(pkt []byte) int {
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

func (c *classifier) set(rules []SteerRule) error {
	if len(rules) > MaxSteered {
		return fmt.Errorf("pdcp: %d steered flows (at most %d)", len(rules), MaxSteered)
	}
	c.ports = c.ports[:0]
	for _, r := range rules {
		c.ports = append(c.ports, r.Port)
	}
	return nil
}

// Steer gives each rule's flow an entity and scheduler of its own. It must
// be called before Run.
func (t *Tx) Steer(rules []SteerRule) error {
	if err := t.cls.set(rules); err != nil {
		return err
	}
	for _, r := range rules {
		s, err := pdcp.NewScheduler(r.Sched)
		if err != nil {
			return fmt.Errorf("flow on port %d: %w", r.Port, err)
		}
		snd, err := pdcp.NewSender(t.bits, s)
		if err != nil {
			return err
		}
		t.senders, t.scheds = append(t.senders, snd), append(t.scheds, s)
	}
	t.observers = nil
	if len(rules) > 0 {
		for _, s := range t.scheds {
			o, _ := s.(pdcp.Observer)
			t.observers = append(t.observers, o)
		}
	}
	return nil
}

// Steer gives each rule's flow a receiving entity of its own, matching
// the transmit side's. It must be called before Run.
func (r *Rx) Steer(rules []SteerRule) error {
	if err := r.cls.set(rules); err != nil {
		return err
	}
	for range rules {
		rc, err := pdcp.NewReceiver(r.bits, r.tReordering)
		if err != nil {
			return err
		}
		r.recvs = append(r.recvs, rc)
	}
	return nil
}
