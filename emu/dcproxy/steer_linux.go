package dcproxy

import "github.com/dc-emu/emu/pdcp"

// Per-flow steering: the rules and the classifier are package pdcp's
// (SteerRule, Classifier); each proxy keeps an entity per rule.

// Steer gives each rule's flow an entity and scheduler of its own. It must
// be called before Run.
func (t *Tx) Steer(rules []pdcp.SteerRule) error { return t.ents.Steer(rules) }

// Steer gives each rule's flow a receiving entity of its own, matching
// the transmit side's. It must be called before Run.
func (r *Rx) Steer(rules []pdcp.SteerRule) error { return r.ents.Steer(rules) }
