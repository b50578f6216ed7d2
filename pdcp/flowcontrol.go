package pdcp

import (
	"errors"
	"time"
)

// NoLinks is the Links value that sends a PDU on no link: flow control
// gives neither leg credit for it. Only flow control returns it (Gate, a
// Wrap-ped scheduler, the credit scheduler with a gate); the other
// schedulers never do. The caller then holds or drops the SDU
// (FlowControlConfig.WhenFull). It should not get that far: see
// FlowControl on asking Admits before numbering.
const NoLinks Links = 0

// FlowControl is the PDCP host's side of DC flow control for one PDCP
// entity: a Leg per link, each with its credit (TS 38.425 §5.4.2.1), and
// the policy for an SDU no leg has credit for.
//
// Per SDU, the host asks Admits(size, now) before numbering it: if no leg
// has credit, it holds or drops the SDU (Config().WhenFull) without using
// a COUNT, so the receiver sees no gap. If a leg has credit, it numbers the
// SDU (Sender.Send or Assign) with a scheduler wrapped by Wrap, which turns
// the scheduler's pick into one the credit allows and records the PDU on
// its leg(s); the pick is then never NoLinks. A leg's DDDS goes to
// Leg(i).ReportStatus (after FlowControlConfig.Delay). Between Admits and
// the pick nothing else may send on the legs.
//
// A FlowControl counts COUNTs of one entity: Senders of other entities
// (steered flows) need their own. It is not safe for concurrent use and no
// call allocates.
type FlowControl struct {
	cfg  FlowControlConfig
	legs [2]Leg
}

// NewFlowControl returns flow control for an entity with SNs of bits bits,
// configured by cfg with its zero fields defaulted. cfg must turn flow
// control on (Buffer > 0). Errors are *FieldErrors naming a
// FlowControlConfig field or SNBits.
func NewFlowControl(cfg FlowControlConfig, bits int) (*FlowControl, error) {
	cfg, err := checkFlowControl(cfg, bits)
	if err != nil {
		return nil, err
	}
	return &FlowControl{cfg: cfg, legs: [2]Leg{newLeg(bits, cfg.Buffer), newLeg(bits, cfg.Buffer)}}, nil
}

// checkFlowControl returns cfg with its defaults if it turns flow control
// on for SNs of bits bits, else the *FieldError: NewFlowControl's and
// NewReporter's checks.
func checkFlowControl(cfg FlowControlConfig, bits int) (FlowControlConfig, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	if !cfg.Enabled() {
		return cfg, &FieldError{Field: "Buffer", Value: "0", Err: errors.New("flow control is off (no Buffer or BufferTime)")}
	}
	return cfg, CheckSNBits(bits)
}

// Config returns the configuration, defaults filled in.
func (fc *FlowControl) Config() FlowControlConfig { return fc.cfg }

// Leg returns leg i (0 or 1, as link 0 and link 1).
func (fc *FlowControl) Leg(i int) *Leg { return &fc.legs[i] }

// Admits reports whether some leg has credit for a PDU of size bytes now:
// whether Gate will find a leg for it whatever a scheduler picks.
func (fc *FlowControl) Admits(size int, now time.Duration) bool {
	return fc.legs[0].CanSend(size, now) || fc.legs[1].CanSend(size, now)
}

// Gate turns a scheduler's pick into what the credit allows for a PDU of
// size bytes: each picked leg that has credit; if the one picked leg has
// none, the other leg if it has; else NoLinks. A duplicated PDU goes on
// the legs with credit only. Gate records no PDU (Sent does); its
// refusals count in the legs' counters.
func (fc *FlowControl) Gate(l Links, size int, now time.Duration) Links {
	var out Links
	for i := range fc.legs {
		if l.Has(i) && fc.legs[i].CanSend(size, now) {
			out |= linkOf(i)
		}
	}
	if out != NoLinks || l != Link0 && l != Link1 {
		return out
	}
	other := 0
	if l == Link0 {
		other = 1
	}
	if fc.legs[other].CanSend(size, now) {
		return linkOf(other)
	}
	return NoLinks
}

// Sent records the PDU with COUNT count and size bytes on each leg in l.
func (fc *FlowControl) Sent(l Links, count uint64, size int, now time.Duration) {
	for i := range fc.legs {
		if l.Has(i) {
			fc.legs[i].Sent(count, size, now)
		}
	}
}

// admits is the credit scheduler's view of the legs (creditGate).
func (fc *FlowControl) admits(leg, size int, now time.Duration) bool {
	return fc.legs[leg].CanSend(size, now)
}

// CreditScheduler returns the credit scheduler (see creditScheduler) under
// fc: among the legs with credit, the one where a PDU arrives first. It is
// no SchedulerConfig kind: it exists only under flow control.
func (fc *FlowControl) CreditScheduler() Scheduler { return fc.Wrap(newCreditScheduler()) }

// Wrap returns s with every pick passed through Gate and recorded with
// Sent, so any scheduler respects the credit. A credit scheduler
// (CreditScheduler) without a gate gets fc as its gate, and then picks only
// among the legs with credit; the other schedulers pick as they would and
// Gate moves the PDU when their leg has no credit, which their own state
// (smallest-delay's backlog, batch's position in the batch) does not
// learn. Wrap the scheduler of one entity only.
func (fc *FlowControl) Wrap(s Scheduler) Scheduler {
	if c, ok := s.(*creditScheduler); ok && c.gate == nil {
		c.gate = fc
	}
	return &gated{fc: fc, s: s}
}

// gated is a Scheduler under flow control (FlowControl.Wrap).
type gated struct {
	fc *FlowControl
	s  Scheduler
}

func (g *gated) Pick(count uint64, size int, now time.Duration) Links {
	to := g.fc.Gate(g.s.Pick(count, size, now), size, now)
	g.fc.Sent(to, count, size, now)
	return to
}

func (g *gated) SetLinkState(i int, st LinkState) { g.s.SetLinkState(i, st) }
