package config

import (
	"fmt"
	"strings"

	"github.com/dc-emu/emu/emu/units"
	"github.com/dc-emu/emu/traces"
)

// A link direction's delay and its loss each come from one source: a
// constant (the delay and loss keys), a trace of their own, or the link's
// trace when that carries them (LeoReplayer's Starlink pair, a CSV with a
// delay_ms or loss column). The *_trace keys name the source:
//
//   - FromLinkTrace (the default): the link's trace's delay or loss where it
//     carries one, otherwise the constant;
//   - "none": always the constant;
//   - a trace, shipped name or file: a delay trace (LeoReplayer's one value
//     per 10 ms, ".delay"; a CSV with delay_ms or down_delay_ms and
//     up_delay_ms) or a loss trace (".loss"; a CSV with a loss column, or
//     down_loss and up_loss).
//
// The delay and loss keys take either: a value that starts like a number
// is the constant, anything else names a trace. A constant set explicitly
// makes that direction constant (its *_trace becomes none), unless the same
// settings name its *_trace too; an explicit trace of its own on a
// direction whose link trace carries the same column is an error naming
// both keys, found when the traces are read (package replay).
const FromLinkTrace = "link"

// traceFrom returns an impairment trace setting as the key shows it.
func traceFrom(s string) string { return orNone(s) }

// isNumber reports whether a delay or loss value is meant as a constant:
// it starts like a number. Trace names that start with a digit can be given
// as a path (./5g.delay).
func isNumber(v string) bool {
	return v != "" && strings.ContainsRune("0123456789+-.", rune(v[0]))
}

// constantOrTrace sets the delay or loss key's value v: a constant, read by
// parse, when it starts like a number, otherwise the trace it names.
func constantOrTrace[T any](v string, constant *T, trace *string, parse func(string) (T, error)) (err error) {
	if !isNumber(v) {
		*trace = normTrace(v)
		return nil
	}
	*constant, err = parse(v)
	return err
}

// impairFields are the per-direction keys of delay and loss: the constant,
// which also takes a trace, and the trace setting itself.
func impairFields() []shapeField {
	return []shapeField{
		{"delay", "duration or trace", "one-way delay: a duration, or a delay trace (shipped name or file; see delay_trace)",
			func(s *Shape) string { return s.Delay.String() },
			func(s *Shape, v string) error {
				return constantOrTrace(v, &s.Delay, &s.DelayTrace, units.ParseDuration)
			}},
		{"delay_trace", "link, none or trace", "what drives the delay: link = the link's trace where it carries delay (Starlink), none = the constant delay, or a delay trace (.delay: ms per 10 ms; CSV with delay_ms)",
			func(s *Shape) string { return traceFrom(s.DelayTrace) },
			func(s *Shape, v string) error { s.DelayTrace = normTrace(v); return nil }},
		{"loss", "% or trace", "random loss probability (1% or 0.01), or a loss trace (shipped name or file; see loss_trace)",
			func(s *Shape) string { return units.FormatFraction(s.Loss) },
			func(s *Shape, v string) error {
				return constantOrTrace(v, &s.Loss, &s.LossTrace, units.ParseFraction)
			}},
		{"loss_bursts", "p,r[,1-h[,1-k]] or none", "Gilbert-Elliott burst loss as tc-netem's gemodel takes it: p good->bad and r bad->good per packet, loss 1-h in the bad state (default 100%) and 1-k in the good one (default 0%); replaces loss",
			func(s *Shape) string { return s.Bursts.String() },
			func(s *Shape, v string) (err error) { s.Bursts, err = parseBursts(v); return }},
		{"loss_trace", "link, none or trace", "what drives the loss: link = the link's trace where it carries loss, none = the constant loss, or a loss trace (.loss: a probability per 10 ms; CSV with loss)",
			func(s *Shape) string { return traceFrom(s.LossTrace) },
			func(s *Shape, v string) error { s.LossTrace = normTrace(v); return nil }},
	}
}

// Bursts is a Gilbert–Elliott burst-loss model (tc-netem's gemodel): two
// states, each with its loss probability, and per-packet transitions. The
// zero value is off.
type Bursts struct {
	P, R              float64 // good→bad and bad→good, per packet
	BadLoss, GoodLoss float64 // netem's 1-h and 1-k
}

// On reports whether the model is in use.
func (b Bursts) On() bool { return b.P > 0 }

func (b Bursts) String() string {
	if !b.On() {
		return "none"
	}
	f := units.FormatFraction
	return strings.Join([]string{f(b.P), f(b.R), f(b.BadLoss), f(b.GoodLoss)}, ",")
}

// parseBursts reads "p,r[,1-h[,1-k]]", each a fraction (1% or 0.01), or
// "none".
func parseBursts(v string) (Bursts, error) {
	if strings.EqualFold(v, "none") || v == "" {
		return Bursts{}, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) < 2 || len(parts) > 4 {
		return Bursts{}, fmt.Errorf("%q: want p,r[,1-h[,1-k]] (tc-netem's gemodel order) or none", v)
	}
	b := Bursts{BadLoss: 1}
	dst := []*float64{&b.P, &b.R, &b.BadLoss, &b.GoodLoss}
	for i, p := range parts {
		x, err := units.ParseFraction(strings.TrimSpace(p))
		if err != nil {
			return Bursts{}, err
		}
		*dst[i] = x
	}
	if b.P == 0 {
		return Bursts{}, fmt.Errorf("%q: p is 0, the model would never lose a packet (none turns it off)", v)
	}
	if b.R == 0 {
		return Bursts{}, fmt.Errorf("%q: r is 0, the bad state would never end", v)
	}
	return b, nil
}

// settleImpairments makes an explicitly given constant delay or loss hold
// on its direction whatever its link's trace carries (see FromLinkTrace),
// unless the settings also name that direction's trace setting. Where the
// link replays no trace, or a shipped one without that column, the
// constant holds anyway and the configuration is left as it was, so the
// configurations (and sweep seeds) of runs without delay or loss traces
// are what they were before delay traces existed.
func settleImpairments(c *Config, settings []Setting) {
	type dirKey struct {
		link, dir int
		what      string
	}
	constant, traced := map[dirKey]bool{}, map[dirKey]bool{}
	for _, s := range settings {
		if s.Key == "link.delay_ratio" {
			for i := range c.Links {
				constant[dirKey{i, 0, "delay"}], constant[dirKey{i, 1, "delay"}] = true, true
			}
			continue
		}
		for _, k := range Expand(c, s.Key) {
			parts := strings.Split(k, ".")
			if len(parts) != 3 || parts[0] != "link1" && parts[0] != "link2" {
				continue
			}
			i, d := int(parts[0][4]-'1'), dirIndex(parts[1])
			switch parts[2] {
			case "delay", "loss":
				if isNumber(s.Value) {
					constant[dirKey{i, d, parts[2]}] = true
				} else {
					traced[dirKey{i, d, parts[2]}] = true // the key named a trace
				}
			case "delay_trace", "loss_trace":
				traced[dirKey{i, d, strings.TrimSuffix(parts[2], "_trace")}] = true
			}
		}
	}
	for k := range constant {
		if traced[k] || !mayCarry(c.Links[k.link].Trace, k.what) {
			continue
		}
		s := &c.Links[k.link].Down
		if k.dir == 1 {
			s = &c.Links[k.link].Up
		}
		if k.what == "delay" {
			s.DelayTrace = ""
		} else {
			s.LossTrace = ""
		}
	}
}

// mayCarry reports whether a link trace may carry a delay (what "delay")
// or loss column: a shipped trace says, a file may.
func mayCarry(trace, what string) bool {
	if trace == "" {
		return false
	}
	delay, loss, shipped := traces.Carries(trace)
	if !shipped {
		return true
	}
	if what == "delay" {
		return delay
	}
	return loss
}

// ImpairmentSources names the directions whose delay or loss follows a
// trace of its own: "link1.down delay: trace my.delay". Run headers print
// it beside RateSources; which directions follow their link's trace is
// known once the traces are read, and the run logs it then.
func (c *Config) ImpairmentSources() string {
	var out []string
	for i, l := range c.Links {
		for _, d := range []struct {
			name string
			s    Shape
		}{{"down", l.Down}, {"up", l.Up}} {
			for _, x := range []struct{ what, from string }{{"delay", d.s.DelayTrace}, {"loss", d.s.LossTrace}} {
				if x.from != "" && x.from != FromLinkTrace {
					out = append(out, fmt.Sprintf("link%d.%s %s: trace %s", i+1, d.name, x.what, x.from))
				}
			}
		}
	}
	return strings.Join(out, "; ")
}
