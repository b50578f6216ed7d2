// Package flowcontrol is the study of DC flow control as deployed RANs do
// it (dc.fc=ddds, docs/flow-control.md): each leg reports its desired
// buffer size, the PDCP host sends a leg no more than its credit, and the
// credit scheduler sends each PDU where it arrives first, against no flow
// control and the adaptive scheduler. Its presets run a TCP CUBIC download
// over two mmWave traces (fc-mmwave, with the report interval as an axis
// too), the paper's LTE trace (fc-lte) and two fast constant links of
// unequal delay (fc-unequal), the buffer as an axis of each; its sweeps
// get a table per setting (goodput and its ratio to flow control off, p95
// RTT, reordering hold, the host's drops and wait, the credit-limited time
// of each leg, link queue drops) and a heat map of relative goodput over
// buffer × interval.
package flowcontrol

import (
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/paper"
	"github.com/dc-emu/emu/emu/sweep"
)

// Study is the flow-control study: fc-mmwave, fc-lte and fc-unequal, their
// table and their heat map.
func Study() sweep.Study { return study{presets()} }

// The study's axis: one labelled axis whose values are whole settings,
// because the configuration refuses every dc.fc.* key while dc.fc=off, so
// a buffer or interval axis crossed with the mode would give the off
// points keys they may not have. Its values are Off, with no flow control
// and the adaptive scheduler, and "ddds-BUFFER" or "ddds-BUFFER-INTERVAL"
// (dddsLabel), with DDDS flow control and the credit scheduler; Off is the
// baseline of relative goodput.
const (
	// Axis is the key of the study's axis.
	Axis = "fc"
	// Off is the label of the point without flow control.
	Off = "off"
	// DDDS is the prefix of the labels of the flow-controlled points.
	DDDS = "ddds"
	// DefaultInterval is dc.fc.interval's default, the interval of a point
	// whose label names none (the tests hold it to the configuration's).
	DefaultInterval = "10ms"
)

// The schedulers of the two modes.
const (
	offScheduler  = "adaptive"
	dddsScheduler = "credit"
)

// The axes' values: each leg's buffer as a time at its current rate, and
// the report interval (fc-mmwave only).
var (
	buffers   = []string{"25ms", "50ms", "100ms"}
	intervals = []string{"5ms", "10ms", "20ms"}
)

// offValue is the point without flow control: dc.fc=off (no dc.fc.* key,
// which the configuration would refuse) and the adaptive scheduler.
func offValue() sweep.Value {
	return sweep.Value{Label: Off, Set: []string{"dc.fc=" + Off, "dc.scheduler=" + offScheduler}}
}

// dddsValue is a flow-controlled point: DDDS flow control with the credit
// scheduler, each leg's buffer buffer and, when interval is not "", that
// report interval.
func dddsValue(buffer, interval string) sweep.Value {
	set := []string{"dc.fc=" + DDDS, "dc.scheduler=" + dddsScheduler, "dc.fc.buffer=" + buffer}
	if interval != "" {
		set = append(set, "dc.fc.interval="+interval)
	}
	return sweep.Value{Label: dddsLabel(buffer, interval), Set: set}
}

// dddsLabel is "ddds-25ms", or "ddds-25ms-5ms" with an interval.
func dddsLabel(buffer, interval string) string {
	if interval == "" {
		return DDDS + "-" + buffer
	}
	return DDDS + "-" + buffer + "-" + interval
}

// Setting is what a label of the study's axis stands for.
type Setting struct {
	// Mode is Off or DDDS; Scheduler the DC scheduler it runs with.
	Mode, Scheduler string
	// Buffer and Interval are dc.fc.buffer and dc.fc.interval ("" when
	// Mode is Off).
	Buffer, Interval string
}

// ParseLabel reads a label of the study's axis; false for any other
// label (a merged point's "*", a value given by hand).
func ParseLabel(label string) (Setting, bool) {
	if label == Off {
		return Setting{Mode: Off, Scheduler: offScheduler}, true
	}
	rest, ok := strings.CutPrefix(label, DDDS+"-")
	if !ok || rest == "" {
		return Setting{}, false
	}
	buffer, interval, two := strings.Cut(rest, "-")
	if !two {
		interval = DefaultInterval
	}
	if buffer == "" || interval == "" || strings.Contains(interval, "-") {
		return Setting{}, false
	}
	return Setting{Mode: DDDS, Scheduler: dddsScheduler, Buffer: buffer, Interval: interval}, true
}

// fcAxis is the study's axis: off, then DDDS at every buffer (the slower
// axis) and interval; no intervals means each buffer at the default
// interval, its label without one.
func fcAxis(buffers, intervals []string) results.Axis {
	values := []sweep.Value{offValue()}
	for _, b := range buffers {
		if len(intervals) == 0 {
			values = append(values, dddsValue(b, ""))
		}
		for _, i := range intervals {
			values = append(values, dddsValue(b, i))
		}
	}
	a := sweep.Labeled(Axis, values...)
	a.Baseline = Off
	return a
}

// download is the settings every preset shares, then more: one TCP CUBIC
// download through DC for d, the paper's rate-limiter queue (100 ms at
// each link's current rate).
func download(d string, more ...string) []string {
	return slices.Concat([]string{"flow.proto=tcp", "flow.cc=cubic", "flow.size=0", "flow.duration=" + d, paper.Queue}, more)
}

// notesCommon is what every preset's notes end with.
const notesCommon = "fc=off is DC without flow control on the adaptive scheduler, with no dc.fc.* key (the configuration refuses them while dc.fc=off: hence one axis of whole settings, " +
	"and no dc.fc.* key can be --set on these presets); ddds-B[-I] is TS 38.425 flow control with the credit scheduler, each leg's buffer B at its current rate, " +
	"a report every I (10 ms unless named), reports arriving at once, SDUs without credit held at the PDCP host. No leg asks for more than its 100 ms queue holds. " +
	"relative_goodput is ÷ off's mean goodput. The study's table and heat map, where emu departs from a RAN (no RLC retransmissions, HARQ or DU scheduler) and how to vary the other keys: docs/flow-control.md."

func presets() []sweep.Preset {
	return []sweep.Preset{
		{
			Name: "fc-mmwave", Title: "DC flow control (DDDS credit, credit scheduler) against none (adaptive) over two mmWave traces: buffer × report interval",
			Figure: "DC flow control as deployed RANs do it (not in the paper)", Scenario: "throughput",
			Settings: download("60s", "link1.trace=lumos5g-mmwave-driving-run1", "link2.trace=5gophers-mmwave-walking",
				"link.delay=5ms", "link.jitter=0", "dc.sn_bits=18", "tcp.buffer_max=64MB"),
			Axes: []results.Axis{fcAxis(buffers, intervals)}, Grid: true, Repeat: 3,
			Notes: "A TCP CUBIC download of 60 s through DC whose downlinks replay the shipped mmWave traces, Lumos5G driving on link1 and 5Gophers walking on link2 " +
				"(306 and 333 Mbit/s mean, peaks near 1 Gbit/s, outages to 0), the uplinks at 20 Mbit/s, 5 ms one way without jitter, NR's 18-bit SNs (12 bits wrap at these rates) " +
				"and TCP buffers that may grow to 64 MB (tcp.buffer_max). The fc axis is off and, for flow control, every buffer of 25, 50 and 100 ms with every report interval of 5, 10 and 20 ms: " +
				"a buffer must cover an interval of the leg's rate or the leg idles between reports, and a rate that collapses between reports overfills the queue. " +
				"mmWave rates need the CPU to keep up: check the fidelity verdict, or scale them with trace.rate_scale. " + notesCommon,
		},
		{
			Name: "fc-lte", Title: "DC flow control (DDDS credit, credit scheduler) against none (adaptive) over the paper's LTE trace: buffer",
			Figure: "DC flow control as deployed RANs do it, on the paper's Figs. 20–22 trace (not in the paper)", Scenario: "throughput",
			Settings: download("60s", "link.trace=StaticA"),
			Axes:     []results.Axis{fcAxis(buffers, nil)}, Grid: true, Repeat: 5,
			Notes: "The paper's trace setup (its Figs. 20–22): both downlinks replay the Raca et al. LTE trace StaticA shipped with emu (4.5 Mbit/s mean over its first 200 s), looping, the uplinks at 20 Mbit/s, " +
				"10 ms one way with 10 % jitter, LTE DC's 12-bit SNs; a TCP CUBIC download of 60 s. The fc axis is off and flow control at buffers of 25, 50 and 100 ms, reports every 10 ms: " +
				"at 4.5 Mbit/s 25 ms is 14 kB, about ten PDUs. " + notesCommon,
		},
		{
			Name: "fc-unequal", Title: "DC flow control (DDDS credit, credit scheduler) against none (adaptive) over two 3 Gbit/s links of 2 and 12 ms: buffer",
			Figure: "DC flow control as deployed RANs do it, fast legs of unequal delay (not in the paper)", Scenario: "throughput",
			Settings: download("30s", "link.trace=none", "link.rate=3gbit", "link1.delay=2ms", "link2.delay=12ms", "link.jitter=0",
				"dc.sn_bits=18", "tcp.buffer_max=64MB"),
			Axes: []results.Axis{fcAxis(buffers, nil)}, Grid: true, Repeat: 5,
			Notes: "Two constant links of 3 Gbit/s both ways, 2 ms (link1) and 12 ms (link2) one way without jitter, NR's 18-bit SNs and TCP buffers that may grow to 64 MB; a TCP CUBIC download of 30 s " +
				"(constant links settle within seconds). The fc axis is off and flow control at buffers of 25, 50 and 100 ms, reports every 10 ms. " +
				"At 3 Gbit/s a leg's credit is also capped by the PDUs the host tracks per leg (pdcp.MaxLegPDUs, 8192: about 12 MB, 33 ms at this rate), so the 50 and 100 ms points measure that cap as much as the buffer. " +
				"Whether a machine can emulate 6 Gbit/s depends on its cores: check the fidelity verdict and the utilization, and lower the rates with --set link.rate=1gbit if it cannot. " + notesCommon,
		},
	}
}
