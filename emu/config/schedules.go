package config

import (
	"fmt"

	"github.com/dc-emu/emu/emu/replay"
	"github.com/dc-emu/emu/tracefmt"
	"github.com/dc-emu/emu/traces"
)

// LoadTrace reads a trace named in a configuration (shipped name or path)
// and applies the configuration's trace options.
func LoadTrace(name string, o TraceOptions) (*tracefmt.Trace, error) {
	return LoadTraceFrom(traces.OSDisk{}, name, o)
}

// LoadTraceFrom is LoadTrace with trace files found on d.
func LoadTraceFrom(d traces.Disk, name string, o TraceOptions) (*tracefmt.Trace, error) {
	ro := tracefmt.ReadOptions{Timestamps: o.Timestamps, Window: o.Window, Step: o.Step}
	if o.Format != "" {
		f, err := tracefmt.ParseFormat(o.Format)
		if err != nil {
			return nil, fmt.Errorf("trace.format: %w", err)
		}
		ro.Format = f
	}
	tr, err := traces.LoadFrom(d, name, ro)
	if err != nil {
		return nil, err
	}
	out, err := tr.Transform(tracefmt.Options{Offset: o.Offset, Duration: o.Duration, TimeScale: o.TimeScale, RateScale: o.RateScale})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Schedules reads each distinct trace of the configuration once and
// returns each link direction's schedule ([link][0] down, [link][1] up).
func Schedules(c *Config) ([2][2]replay.Schedule, error) {
	return SchedulesFrom(traces.OSDisk{}, c)
}

// SchedulesFrom is Schedules with trace files found on d (emu's runs: as
// the user behind sudo).
func SchedulesFrom(d traces.Disk, c *Config) ([2][2]replay.Schedule, error) {
	var out [2][2]replay.Schedule
	type read struct {
		name string
		o    TraceOptions
	}
	loaded := map[read]*tracefmt.Trace{}
	load := func(key, name string, o TraceOptions) (*tracefmt.Trace, error) {
		if tr, ok := loaded[read{name, o}]; ok {
			return tr, nil
		}
		tr, err := LoadTraceFrom(d, name, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		loaded[read{name, o}] = tr
		return tr, nil
	}
	for i, l := range c.Links {
		var linkTrace *tracefmt.Trace
		lk := fmt.Sprintf("link%d.", i+1)
		if l.Trace != "" && l.Trace != "none" {
			tr, err := load(lk+"trace", l.Trace, c.Trace)
			if err != nil {
				return out, err
			}
			linkTrace = tr
			out[i][0].Rate = &replay.Player{Trace: tr, Loop: c.Trace.Loop}
			if c.Trace.Up {
				if !tr.HasUp {
					return out, fmt.Errorf("link%d.trace: trace.up is set but %s has no uplink rates", i+1, l.Trace)
				}
				out[i][1].Rate = &replay.Player{Trace: tr, Up: true, Loop: c.Trace.Loop}
			}
		}
		for k, sh := range []Shape{l.Down, l.Up} {
			dir := lk + []string{"down", "up"}[k] + "."
			im := &replay.Impairments{Up: k == 1, Loop: c.Trace.Loop}
			var err error
			if im.Delay, err = impairment(load, dir+"delay_trace", sh.DelayTrace, lk+"trace="+l.Trace, linkTrace, true, c.Trace); err != nil {
				return out, err
			}
			lossFrom := sh.LossTrace
			if sh.Bursts.On() && lossFrom == FromLinkTrace {
				lossFrom = "" // the burst model is the direction's loss
			}
			if im.Loss, err = impairment(load, dir+"loss_trace", lossFrom, lk+"trace="+l.Trace, linkTrace, false, c.Trace); err != nil {
				return out, err
			}
			if im.Delay != nil || im.Loss != nil {
				out[i][k].Impair = im
			}
		}
	}
	return out, nil
}

// impairment finds the trace that drives a direction's delay (or loss):
// its own (from), its link's when from is FromLinkTrace and that
// carries the column, or none.
func impairment(load func(key, name string, o TraceOptions) (*tracefmt.Trace, error),
	key, from, linkKey string, linkTrace *tracefmt.Trace, delay bool, o TraceOptions) (*tracefmt.Trace, error) {
	carries := func(t *tracefmt.Trace) bool { return t != nil && (delay && t.HasDelay || !delay && t.HasLoss) }
	what := "loss"
	if delay {
		what = "delay"
	}
	switch from {
	case "":
		return nil, nil
	case FromLinkTrace:
		if carries(linkTrace) {
			return linkTrace, nil
		}
		return nil, nil
	}
	if carries(linkTrace) {
		return nil, fmt.Errorf("%s=%s and %s both set the %s: a direction follows one %s trace; drop one of them (%s=link follows the link's trace, none keeps the constant)",
			key, from, linkKey, what, what, key)
	}
	// A series file's values are a delay or a loss, never a rate: the
	// format options of rate traces do not apply to it.
	tr, err := load(key, from, TraceOptions{Offset: o.Offset, Duration: o.Duration, TimeScale: o.TimeScale, Step: o.Step})
	if err != nil {
		return nil, err
	}
	if !carries(tr) {
		return nil, fmt.Errorf("%s: %s carries no %s (give a .%s file, or a CSV with a %s column)", key, from, what, what, map[bool]string{true: "delay_ms", false: "loss"}[delay])
	}
	return tr, nil
}
