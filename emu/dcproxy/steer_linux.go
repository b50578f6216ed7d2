package dcproxy

import (
	"fmt"

	"github.com/dc-emu/emu/pdcp"
)

// Per-flow steering: the rules and the classifier are package pdcp's
// (SteerRule, Classifier); each proxy keeps an entity per rule.

// Steer gives each rule's flow an entity and scheduler of its own. It must
// be called before Run.
func (t *Tx) Steer(rules []pdcp.SteerRule) error {
	if err := t.cls.Set(rules); err != nil {
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
func (r *Rx) Steer(rules []pdcp.SteerRule) error {
	if err := r.cls.Set(rules); err != nil {
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
