package replay

import (
	"fmt"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/tracefmt"
	"github.com/dc-emu/emu/traces"
)

// LoadTrace reads a trace named in a configuration (shipped name or path)
// and applies the configuration's trace options.
func LoadTrace(name string, o config.TraceOptions) (*tracefmt.Trace, error) {
	return LoadTraceFrom(traces.OSDisk{}, name, o)
}

// LoadTraceFrom is LoadTrace with trace files found on d.
func LoadTraceFrom(d traces.Disk, name string, o config.TraceOptions) (*tracefmt.Trace, error) {
	ro := tracefmt.ReadOptions{Timestamps: o.Timestamps, Window: o.Window}
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

// Players reads each distinct trace of the configuration once and returns
// a player per link and direction ([link][0] down, [link][1] up; nil where
// the rate is constant).
func Players(c *config.Config) ([2][2]*Player, error) {
	return PlayersFrom(traces.OSDisk{}, c)
}

// PlayersFrom is Players with trace files found on d (emu's runs: as the
// user behind sudo).
func PlayersFrom(d traces.Disk, c *config.Config) ([2][2]*Player, error) {
	var players [2][2]*Player
	loaded := map[string]*tracefmt.Trace{}
	for i, l := range c.Links {
		if l.Trace == "" || l.Trace == "none" {
			continue
		}
		tr, ok := loaded[l.Trace]
		if !ok {
			var err error
			if tr, err = LoadTraceFrom(d, l.Trace, c.Trace); err != nil {
				return players, fmt.Errorf("link%d.trace: %w", i+1, err)
			}
			loaded[l.Trace] = tr
		}
		players[i][0] = &Player{Trace: tr, Loop: c.Trace.Loop}
		if c.Trace.Up {
			if !tr.HasUp {
				return players, fmt.Errorf("link%d.trace: trace.up is set but %s has no uplink rates", i+1, l.Trace)
			}
			players[i][1] = &Player{Trace: tr, Up: true, Loop: c.Trace.Loop}
		}
	}
	return players, nil
}
