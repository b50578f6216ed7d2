package config

import (
	"fmt"
	"strings"

	"github.com/dc-emu/emu/emu/units"
)

// A link direction's rate comes from one source: its trace or a constant
// rate. settleRates enforces that an explicit rate never loses silently to
// a trace, whatever order the settings came in:
//
//   - a rate set explicitly (linkN.DIR.rate, a shorthand of it, or
//     link.bw_ratio) on a direction that the default trace would drive makes
//     that link constant-rate (its trace becomes none);
//   - a trace given explicitly (linkN.trace, link.trace, --trace) and an
//     explicit rate for a direction it drives is an error naming both.
//
// A direction a trace does not drive (the uplink without trace.up) takes an
// explicit rate as it always did. The rate of a direction that follows its
// trace reads as RateFromTrace, and setting that value is not a rate but
// says the direction follows its trace (an error where it has none), so a
// configuration's Values set it again exactly.
func settleRates(c *Config, settings []Setting) error {
	var rateBy [2][2]string    // [link][down, up]: the setting that set the rate
	var traceBy [2]string      // [link]: the setting that set the trace
	var fromTrace [2][2]string // settings that say a direction follows its trace
	for _, s := range settings {
		given := s.Key + "=" + s.Value
		if s.Key == "link.bw_ratio" {
			for i := range rateBy {
				rateBy[i] = [2]string{given, given}
			}
			continue
		}
		for _, k := range Expand(c, s.Key) {
			parts := strings.Split(k, ".")
			if len(parts) < 2 || parts[0] != "link1" && parts[0] != "link2" {
				continue
			}
			i := int(parts[0][4] - '1')
			switch {
			case len(parts) == 2 && parts[1] == "trace":
				traceBy[i] = given
			case len(parts) == 3 && parts[2] == "rate" && s.Value == RateFromTrace:
				fromTrace[i][dirIndex(parts[1])] = given
			case len(parts) == 3 && parts[2] == "rate":
				rateBy[i][dirIndex(parts[1])] = given
			}
		}
	}
	var errs []error
	for i := range c.Links {
		l := &c.Links[i]
		for d, dir := range []string{"down", "up"} {
			traced := l.Traced(dir, c.Trace.Up)
			if fromTrace[i][d] != "" && (!traced || rateBy[i][d] != "") {
				why := fmt.Sprintf("link%d.trace is none", i+1)
				if l.Trace != "" && dir == "up" {
					why = "trace.up is false"
				}
				if rateBy[i][d] != "" {
					why = rateBy[i][d] + " sets a constant rate"
				}
				errs = append(errs, fmt.Errorf("%s: link%d.%s does not follow a trace (%s)", fromTrace[i][d], i+1, dir, why))
				continue
			}
			if rateBy[i][d] == "" || !traced {
				continue
			}
			if traceBy[i] != "" {
				errs = append(errs, fmt.Errorf("%s and %s both set the rate of link%d.%s: a direction follows a trace or has a constant rate; drop one of them (or set link%d.trace=none)",
					rateBy[i][d], traceBy[i], i+1, dir, i+1))
				break
			}
			l.Trace = "" // the explicit rate makes the link constant-rate
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

func dirIndex(dir string) int {
	if dir == "up" {
		return 1
	}
	return 0
}

// RateFromTrace is the value of a rate key whose direction follows its
// link's trace.
const RateFromTrace = "trace"

// traceRate makes a direction's rate parameter read RateFromTrace while the
// direction follows its trace, and take that value as "follow the trace"
// (settleRates checks it once every setting is applied).
func traceRate(p Param, link int, dir string) Param {
	get, set := p.get, p.set
	p.get = func(c *Config) string {
		if c.Links[link].Traced(dir, c.Trace.Up) {
			return RateFromTrace
		}
		return get(c)
	}
	p.set = func(c *Config, v string) error {
		if v == RateFromTrace {
			return nil
		}
		return set(c, v)
	}
	return p
}

// RateSources says, link by link, where each direction's rate comes from:
// "link1: down trace StaticA, up 20mbit; link2: down 20mbit, up 20mbit".
// Run headers print it, so a rate that is not the one a user expects is
// visible before the run starts.
func (c *Config) RateSources() string {
	var links []string
	for i, l := range c.Links {
		var dirs []string
		for _, d := range []struct {
			name string
			s    Shape
		}{{"down", l.Down}, {"up", l.Up}} {
			src := units.FormatRate(d.s.Rate)
			if l.Traced(d.name, c.Trace.Up) {
				src = "trace " + l.Trace
			}
			dirs = append(dirs, d.name+" "+src)
		}
		links = append(links, fmt.Sprintf("link%d: %s", i+1, strings.Join(dirs, ", ")))
	}
	return strings.Join(links, "; ")
}
