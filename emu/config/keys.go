package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Param is one dotted key of the configuration, e.g. link1.down.rate. The
// listing (`emu config`) shows the canonical keys; shorter forms set several
// at once: link1.delay sets link1.down.delay and link1.up.delay, link.delay
// sets both links, flow.size sets every flow, flows.2.size one of them.
type Param struct {
	Key  string
	Unit string
	Doc  string
	get  func(c *Config) string
	set  func(c *Config, v string) error
}

// Get returns the parameter's value in c, formatted with its unit.
func (p Param) Get(c *Config) string { return p.get(c) }

// Params lists the canonical keys of a configuration, in display order.
// Flow keys are listed once per flow of c.
func Params(c *Config) []Param {
	var ps []Param
	add := func(p Param) { ps = append(ps, p) }
	add(Param{"run.seed", "", "random seed of loss and jitter (0 = pick one and record it)",
		func(c *Config) string { return strconv.FormatUint(c.Seed, 10) },
		func(c *Config, v string) (err error) { c.Seed, err = strconv.ParseUint(v, 10, 64); return }})
	add(durationParam("run.grace", "how long a run may overrun its flows before it is stopped as hung",
		func(c *Config) *time.Duration { return &c.Grace }))
	add(Param{"run.rt_cpus", "", "CPUs the delay lines' real-time threads and the Go runtime's monitor are kept on, e.g. 1 or 2-3, leaving the others to the PDCP proxies' loops and the endpoints; none = any CPU",
		func(c *Config) string { return FormatCPUs(c.RTCPUs) },
		func(c *Config, v string) (err error) { c.RTCPUs, err = ParseCPUs(v); return }})
	ps = append(ps, observeParams()...)
	for i := range c.Links {
		n := i
		lk := fmt.Sprintf("link%d.", i+1)
		add(Param{lk + "trace", "", "bandwidth trace driving this link's rate: shipped name or file path; none = constant rate",
			func(c *Config) string { return orNone(c.Links[n].Trace) },
			func(c *Config, v string) error { c.Links[n].Trace = normTrace(v); return nil }})
		for _, dir := range []string{"down", "up"} {
			for _, f := range slices.Concat(shapeFields[:1], impairFields(), shapeFields[1:]) {
				p := f.param(lk+dir+".", func(c *Config) *Shape {
					if dir == "down" {
						return &c.Links[n].Down
					}
					return &c.Links[n].Up
				})
				if f.name == "rate" {
					p = traceRate(p, n, dir)
				}
				add(p)
			}
		}
	}
	add(durationParam("trace.offset", "start replaying traces this far into them",
		func(c *Config) *time.Duration { return &c.Trace.Offset }))
	add(durationParam("trace.duration", "cut traces after this long (0 = whole trace)",
		func(c *Config) *time.Duration { return &c.Trace.Duration }))
	add(floatParam("trace.time_scale", "", "stretch trace time (2 = steps last twice as long)",
		func(c *Config) *float64 { return &c.Trace.TimeScale }))
	add(floatParam("trace.rate_scale", "", "multiply every trace rate",
		func(c *Config) *float64 { return &c.Trace.RateScale }))
	add(boolParam("trace.loop", "start a trace over when it ends",
		func(c *Config) *bool { return &c.Trace.Loop }))
	add(boolParam("trace.up", "also replay the trace's uplink rates (otherwise the uplink keeps its rate)",
		func(c *Config) *bool { return &c.Trace.Up }))
	add(boolParam("trace.timestamps", "replay Raca et al. CSV by timestamp instead of one row per second",
		func(c *Config) *bool { return &c.Trace.Timestamps }))
	add(durationParam("trace.window", "window that turns Mahimahi delivery opportunities into rates",
		func(c *Config) *time.Duration { return &c.Trace.Window }))
	add(durationParam("trace.step", "how long each value of a delay or loss series (.delay, .loss) lasts",
		func(c *Config) *time.Duration { return &c.Trace.Step }))
	add(stringParam("trace.format", "force the trace format (raca, mahimahi, csv, cooked); empty = detect",
		func(c *Config) *string { return &c.Trace.Format }))
	ps = append(ps, dcParams()...)
	ps = append(ps, mptcpParams()...)
	ps = append(ps, pepParams()...)
	ps = append(ps, tcpParams()...)
	for i := range c.Flows {
		for _, f := range slices.Concat(flowFields, workloadFields) {
			add(f.param(fmt.Sprintf("flows.%d.", i), func(c *Config) *Flow { return &c.Flows[i] }))
		}
	}
	ps = append(ps, fidelityParams()...)
	return ps
}

// Derived keys set several parameters from one value, for sweeps that keep
// an average constant while varying a ratio.
var derivedDocs = []struct{ key, doc string }{
	{"link.bw_ratio", "a:b — link rates in ratio a:b keeping their mean (3:1 of 20 Mbit/s = 30 and 10 Mbit/s)"},
	{"link.delay_ratio", "a:b — one-way delays in ratio a:b keeping their sum"},
	{"flows.count", "number of flows (extra flows copy flows.0 and are named after their path)"},
}

// DerivedKeys lists the keys that set several canonical parameters at once.
func DerivedKeys() [][2]string {
	var out [][2]string
	for _, d := range derivedDocs {
		out = append(out, [2]string{d.key, d.doc})
	}
	return out
}

// Setting is one key=value assignment as given on the command line.
type Setting struct{ Key, Value string }

// ParseSetting splits "key=value".
func ParseSetting(s string) (Setting, error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return Setting{}, fmt.Errorf("%q: want key=value (see emu config for the keys)", s)
	}
	return Setting{k, strings.TrimSpace(v)}, nil
}

// ParseSettings parses several "key=value" strings.
func ParseSettings(ss []string) ([]Setting, error) {
	out := make([]Setting, 0, len(ss))
	for _, s := range ss {
		st, err := ParseSetting(s)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// Apply applies settings to c, broader keys before narrower ones whatever
// their order on the command line (link.delay, then link1.delay, then
// link1.down.delay; flow.size, then flows.1.size), and ratio keys last.
// Every error names its key; a key that no flow of its kind would read is
// an error too (checkKindKeys).
func Apply(c *Config, settings []Setting) error {
	sorted := slices.Clone(settings)
	slices.SortStableFunc(sorted, func(a, b Setting) int { return specificity(a.Key) - specificity(b.Key) })
	var ix paramIndex
	for _, s := range sorted {
		if err := set(c, &ix, s.Key, s.Value); err != nil {
			return err
		}
	}
	nameFlows(c)
	settleImpairments(c, settings)
	if err := settleRates(c, settings); err != nil {
		return err
	}
	return checkKindKeys(c, settings)
}

// Resolve builds the configuration of a scenario with settings applied and
// validated.
func Resolve(scenario string, settings []Setting) (Config, error) {
	c, err := DefaultConfig(scenario)
	if err != nil {
		return Config{}, err
	}
	if err := Apply(&c, settings); err != nil {
		return Config{}, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Values returns every canonical key of c with its value, for results.
func Values(c *Config) map[string]string {
	m := map[string]string{"scenario": c.Scenario}
	for _, p := range Params(c) {
		m[p.Key] = p.get(c)
	}
	return m
}

func specificity(key string) int {
	switch {
	case key == "flows.count":
		return 0
	case strings.HasSuffix(key, "_ratio"):
		return 9
	case strings.HasPrefix(key, "link.") || strings.HasPrefix(key, "flow."):
		return 1
	case strings.HasPrefix(key, "flows."):
		return 3
	case strings.HasPrefix(key, "link"):
		return 1 + strings.Count(key, ".")
	}
	return 0
}

func set(c *Config, ix *paramIndex, key, value string) error {
	bad := func(err error) error {
		if err == nil {
			return nil
		}
		return &KeyError{Key: key, Value: value, Err: err}
	}
	switch key {
	case "flows.count":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 64 {
			return bad(fmt.Errorf("want a number of flows from 1 to 64"))
		}
		resizeFlows(c, n)
		return nil
	case "dc.datapath":
		return bad(retiredDatapath(value))
	case "link.bw_ratio":
		return bad(setRatio(c, value, true))
	case "link.delay_ratio":
		return bad(setRatio(c, value, false))
	}
	if parts := strings.Split(key, "."); parts[0] == "flows" && len(parts) == 3 {
		n, err := strconv.Atoi(parts[1])
		if err != nil || n < 0 || n >= 64 {
			return fmt.Errorf("%s: flow index %q must be a number from 0 to 63", key, parts[1])
		}
		if n >= len(c.Flows) {
			resizeFlows(c, n+1)
		}
	}
	keys := Expand(c, key)
	if len(keys) == 1 && keys[0] == key {
		if p, ok := ix.lookup(c, key); ok {
			return bad(p.set(c, value))
		}
		return unknownKeyError(key)
	}
	// A shorthand reports its errors under its own name, not under the
	// canonical key it expanded to.
	for _, k := range keys {
		err := set(c, ix, k, value)
		var uk unknownKeyError
		var ke *KeyError
		switch {
		case errors.As(err, &uk):
			return unknownKeyError(key)
		case errors.As(err, &ke):
			return bad(ke.Err)
		case err != nil:
			return err
		}
	}
	return nil
}

// paramIndex finds a key's Param. Params builds every key's accessors, a
// few hundred closures, and which keys there are depends only on how many
// links and flows the configuration has: so an Apply builds them once per
// shape, not once per key (a preset's dry run resolves every point's
// configuration and spent half its time in Params).
type paramIndex struct {
	links, flows int
	byKey        map[string]Param
}

func (ix *paramIndex) lookup(c *Config, key string) (Param, bool) {
	if ix.byKey == nil || ix.links != len(c.Links) || ix.flows != len(c.Flows) {
		ix.links, ix.flows = len(c.Links), len(c.Flows)
		ix.byKey = make(map[string]Param)
		for _, p := range Params(c) {
			if _, dup := ix.byKey[p.Key]; !dup { // the first of a key, as a search would find
				ix.byKey[p.Key] = p
			}
		}
	}
	p, ok := ix.byKey[key]
	return p, ok
}

// KeyError is a value a key does not take: the key and value as given, and
// why.
type KeyError struct {
	Key, Value string
	Err        error
}

func (e *KeyError) Error() string { return fmt.Sprintf("%s=%s: %v", e.Key, e.Value, e.Err) }
func (e *KeyError) Unwrap() error { return e.Err }

// unknownKeyError names a key no parameter has. Shorthand keys report
// themselves, not the canonical key they expanded to.
type unknownKeyError string

func (k unknownKeyError) Error() string {
	return fmt.Sprintf("unknown key %q (emu config lists the keys)", string(k))
}

func resizeFlows(c *Config, n int) {
	for len(c.Flows) < n {
		f := c.Flows[0]
		f.Name = ""
		c.Flows = append(c.Flows, f)
	}
	c.Flows = c.Flows[:n]
}

// nameFlows names flows added by flows.N or flows.count after their path,
// numbering them when a path carries several.
func nameFlows(c *Config) {
	used := map[string]bool{}
	for _, f := range c.Flows {
		if f.Name != "" {
			used[f.Name] = true
		}
	}
	for i := range c.Flows {
		if c.Flows[i].Name != "" {
			continue
		}
		name := c.Flows[i].Path
		for k := 2; used[name]; k++ {
			name = fmt.Sprintf("%s-%d", c.Flows[i].Path, k)
		}
		used[name] = true
		c.Flows[i].Name = name
	}
}

// setRatio sets link1 and link2 in ratio a:b keeping their mean (rates) or
// their sum (delays), in both directions.
func setRatio(c *Config, v string, rate bool) error {
	a, b, err := parseRatio(v)
	if err != nil {
		return err
	}
	for _, dir := range []func(l *Link) *Shape{
		func(l *Link) *Shape { return &l.Down },
		func(l *Link) *Shape { return &l.Up },
	} {
		s1, s2 := dir(&c.Links[0]), dir(&c.Links[1])
		if rate {
			total := s1.Rate + s2.Rate
			s1.Rate, s2.Rate = total*a/(a+b), total*b/(a+b)
		} else {
			total := float64(s1.Delay + s2.Delay)
			s1.Delay = time.Duration(total * a / (a + b))
			s2.Delay = time.Duration(total * b / (a + b))
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func normTrace(s string) string {
	if strings.EqualFold(s, "none") {
		return ""
	}
	return s
}
