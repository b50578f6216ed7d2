package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/units"
	"github.com/dc-emu/emu/pdcp"
)

// The values of dc.fc.
const (
	// FCOff runs no flow control: the scheduler alone splits.
	FCOff = "off"
	// FCDDDS is TS 38.425's flow control: each leg reports its desired
	// buffer size (DDDS) and the PDCP host sends a leg no more than that.
	FCDDDS = "ddds"
)

// defaultFCBufferTime is dc.fc.buffer's default: each leg's buffer is
// 50 ms at its current rate.
const defaultFCBufferTime = 50 * time.Millisecond

// FlowControl configures DC flow control between the PDCP host (the
// transmit proxy) and each leg, downlink only: the uplink split has no
// DDDS in TS 38.425. Its parameters are pdcp's configuration, held typed
// (dc.fc.buffer is parsed when it is set); their ranges are pdcp's
// (pdcp.FlowControlConfig.Validate), and they apply only while Mode is
// FCDDDS (Config.FlowControl).
type FlowControl struct {
	// Mode is FCOff or FCDDDS (dc.fc).
	Mode string
	// Params are the parameters, every one set (dc.fc.buffer, interval,
	// delay, full), also while Mode is FCOff, when they must keep their
	// defaults. A named field, not an embedded one: pdcp's Enabled would
	// say true of the defaults while dc.fc=off.
	Params pdcp.FlowControlConfig
}

// defaultFC is flow control off, with the parameters it takes when it is
// turned on: a buffer of 50 ms at each leg's rate, a report every 10 ms
// arriving at once, SDUs no leg has credit for held.
func defaultFC() FlowControl {
	return FlowControl{Mode: FCOff, Params: pdcp.FlowControlConfig{
		BufferTime: defaultFCBufferTime, Interval: pdcp.DefaultFCInterval,
		WhenFull: string(pdcp.HoldWhenFull)}}
}

// FlowControl is the downlink's pdcp flow control: every field set while
// dc.fc=ddds (the keys' values as they are: a 0 is refused by Validate,
// never replaced by pdcp's default), the zero value (flow control off)
// while dc.fc=off.
func (c *Config) FlowControl() pdcp.FlowControlConfig {
	if c.DC.FC.Mode != FCDDDS {
		return pdcp.FlowControlConfig{}
	}
	return c.DC.FC.Params
}

// fcParams are the dc.fc keys, listed after the dc.* keys.
func fcParams() []Param {
	fc := func(c *Config) *pdcp.FlowControlConfig { return &c.DC.FC.Params }
	return []Param{
		stringParam("dc.fc", "downlink flow control (TS 38.425): off, or ddds (each leg reports the buffer it wants, the PDCP host sends it no more; dc.scheduler=credit needs it)",
			func(c *Config) *string { return &c.DC.FC.Mode }),
		fcBuffer.param("dc.fc.", fc),
		durationField("interval", "dc.fc=ddds: time between a leg's reports of its desired buffer size",
			func(f *pdcp.FlowControlConfig) *time.Duration { return &f.Interval }).param("dc.fc.", fc),
		durationField("delay", "dc.fc=ddds: how long a report takes to reach the PDCP host (backhaul delay)",
			func(f *pdcp.FlowControlConfig) *time.Duration { return &f.Delay }).param("dc.fc.", fc),
		stringField("full", "", "dc.fc=ddds: a packet no leg has credit for: "+
			string(pdcp.HoldWhenFull)+" (until a report gives credit) or "+string(pdcp.DropWhenFull)+" (before it gets an SN)",
			func(f *pdcp.FlowControlConfig) *string { return &f.WhenFull }).param("dc.fc.", fc),
	}
}

// fcBuffer is dc.fc.buffer: a size in bytes (Buffer) or a time at the
// leg's rate (BufferTime), printed as it was given.
var fcBuffer = field[pdcp.FlowControlConfig]{"buffer", "bytes or duration",
	"dc.fc=ddds: each leg's buffer, the most it asks for: bytes (256kB) or a time at the leg's current rate (50ms)",
	func(f *pdcp.FlowControlConfig) string {
		if f.BufferTime != 0 || f.Buffer == 0 {
			return f.BufferTime.String()
		}
		return units.FormatSize(int64(f.Buffer))
	},
	func(f *pdcp.FlowControlConfig, v string) error {
		b, d, err := parseFCBuffer(v)
		f.Buffer, f.BufferTime = b, d
		return err
	}}

// parseFCBuffer parses dc.fc.buffer: a duration (50ms) or a size (262144,
// 256kB, 6MB), above 0. A value that reads as both (50m) is the duration,
// as for the queues.
func parseFCBuffer(v string) (bytes int, t time.Duration, err error) {
	if d, err := time.ParseDuration(v); err == nil && v != "0" {
		if d <= 0 {
			return 0, 0, fmt.Errorf("%q: must be above 0", v)
		}
		return 0, d, nil
	}
	n, err := units.ParseSize(v)
	switch {
	case err != nil:
		return 0, 0, fmt.Errorf("%q is not a buffer (want bytes, e.g. 256kB, or a time at the leg's rate, e.g. 50ms)", v)
	case n <= 0:
		return 0, 0, fmt.Errorf("%q: must be above 0", v)
	}
	return int(n), 0, nil
}

// fcKey is the key of a pdcp.FlowControlConfig field.
func fcKey(field string) string {
	switch field {
	case "Buffer", "BufferTime":
		return "dc.fc.buffer"
	case "Interval":
		return "dc.fc.interval"
	case "Delay":
		return "dc.fc.delay"
	case "WhenFull":
		return "dc.fc.full"
	}
	return "dc.fc"
}

// validateFC reports what is wrong with the dc.fc keys: pdcp's ranges
// while flow control is on, its parameters set while it is off (none is
// silently ignored), and what it does not go with: DC off, flows with
// schedulers of their own (per-flow entities), and the credit scheduler
// without it.
func (c *Config) validateFC(bad func(key, format string, args ...any)) {
	fc := c.DC.FC
	switch fc.Mode {
	case FCOff:
		def := Config{DC: DC{FC: defaultFC()}}
		for _, p := range fcParams()[1:] {
			if v := p.get(c); v != p.get(&def) {
				bad(p.Key, "%s set while dc.fc=off: flow control does not run; set dc.fc=ddds", v)
			}
		}
	case FCDDDS:
		badField(fc.Params.Validate(), fcKey, bad)
		if !c.DC.Enabled {
			bad("dc.fc", "ddds with dc.enabled=false: flow control runs in the PDCP proxies, which do not run")
		}
		var steered []string
		for i, f := range c.Flows {
			if f.Steered() {
				steered = append(steered, fmt.Sprint(i))
			}
		}
		if len(steered) > 0 {
			which := "flow " + steered[0] + " has a scheduler of its own"
			if len(steered) > 1 {
				which = "flows " + strings.Join(steered, ", ") + " have schedulers of their own"
			}
			bad("dc.fc", "flow control keeps one account per PDCP entity; per-flow entities are not supported with it yet (%s: flows.N.scheduler, batch, split or active)", which)
		}
	default:
		bad("dc.fc", "want %s or %s (got %q)", FCOff, FCDDDS, fc.Mode)
	}
	if fc.Mode == FCDDDS {
		return
	}
	const needs = "credit splits by flow-control credit and needs dc.fc=ddds (dc.fc is %s)"
	if c.DC.Sched.Kind == pdcp.KindCredit {
		bad("dc.scheduler", needs, fc.Mode)
	}
	for i, f := range c.Flows {
		if f.Scheduler == pdcp.KindCredit {
			bad(fmt.Sprintf("flows.%d.scheduler", i), needs, fc.Mode)
		}
	}
}
