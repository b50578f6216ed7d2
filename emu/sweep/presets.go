package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// Preset is a named sweep: the base settings, the axes and how many
// repeats, with the figure of the paper ("QUIC Throughput and Fairness over
// Dual Connectivity", Computer Networks) or the study it reproduces.
type Preset struct {
	Name   string
	Title  string // what it measures
	Figure string // the paper's figure, or the kind of study
	// Scenario is throughput (one DC download) or fairness (a DC client
	// and one client on each link, sharing the links for a fixed time).
	Scenario string
	// Settings build the base configuration; --set and --trace given with
	// the preset come after them, so the same key given again wins.
	Settings []string
	Axes     []results.Axis
	Grid     bool
	Repeat   int
	// Notes say why the durations and sizes are what they are.
	Notes string
}

// Flow sizes and durations of the paper presets. The paper downloads until
// done (throughput) and shares the links for minutes (fairness); these keep
// one run under about 15 s (throughput: 50 MB at ≈ 40 Mbit/s) or 60 s
// (fairness) so that a preset of 6 points × 10 repeats takes 15 min or an
// hour. Shorter runs for a quick look: --repeat 3 --set flow.size=10MB (or
// flow.duration=20s).
const (
	paperSize     = "flow.size=50MB"
	paperDuration = "flow.duration=60s"
	paperNotes    = "Constant 2×20 Mbit/s links, 10 ms ±10 % one-way delay, batch 100, split 1:1, t-Reordering 200 ms (the paper's defaults); "
)

var (
	batchSizes = "dc.batch=25,50,100,150,300,500"
	splits     = "dc.split=1:1,6:4,7:3,8:2,9:1"
	bwRatios   = "link.bw_ratio=1:1,2:1,3:1,4:1,5:1"
	bwMatched  = "link.bw_ratio+dc.split=1:1,2:1,3:1,4:1,5:1"
	delayRatio = "link.delay_ratio=1:1,2:1,3:1,4:1,5:1"
	losses     = "link.loss=0%,0.1%,0.5%,1%,2%"
)

// presets is the table `emu sweep --list-presets` prints and
// docs/sweeps.md describes. Paper presets come in pairs: NAME measures
// throughput, NAME-fairness measures fairness.
var presets = slices.Concat(
	paperPair("batch", "DC batch size", "Fig. 4a", "Fig. 5a", batchSizes),
	paperPair("split", "DC split ratio (packets on link1:link2)", "Fig. 7a", "Fig. 8a", splits),
	paperPair("bw-ratio", "bandwidth ratio link1:link2 at a 50/50 split (mean rate 20 Mbit/s)", "Fig. 7b", "Fig. 8b", bwRatios),
	paperPair("bw-ratio-matched", "bandwidth ratio link1:link2 with the split following it", "Fig. 7c", "Fig. 8c", bwMatched),
	paperPair("delay-ratio-low", "delay ratio link1:link2, low delay (one-way delays sum to 20 ms)", "Fig. 9a", "Fig. 10a", delayRatio),
	paperPair("delay-ratio-high", "delay ratio link1:link2, high delay (one-way delays sum to 100 ms)", "Fig. 9b", "Fig. 10b", delayRatio, "link.delay=50ms"),
	paperPair("loss", "random loss on both links, both directions", "Fig. 9c", "Fig. 10c", losses),
	[]Preset{
		{
			Name: "duplication", Title: "PDCP duplication against batch splitting under random loss", Figure: "Fig. 11 (throughput)",
			Scenario: "throughput", Settings: []string{"link.trace=none", paperSize},
			Axes: []results.Axis{vary("dc.scheduler=batch,duplicate"), vary("link.loss=0%,0.5%,1%,2%,5%")}, Grid: true, Repeat: DefaultRepeat,
			Notes: paperNotes + "a grid: each scheduler over each loss rate, one line per scheduler.",
		},
		{
			Name: "duplication-fairness", Title: "PDCP duplication against batch splitting under random loss", Figure: "Fig. 11 (fairness)",
			Scenario: "fairness", Settings: []string{"link.trace=none", paperDuration},
			Axes: []results.Axis{vary("dc.scheduler=batch,duplicate"), vary("link.loss=0%,0.5%,1%,2%,5%")}, Grid: true, Repeat: DefaultRepeat,
			Notes: paperNotes + "a grid: each scheduler over each loss rate, one line per scheduler.",
		},
		{
			Name: "lte-batch", Title: "DC batch size over the LTE trace", Figure: "Fig. 20 (throughput)",
			Scenario: "throughput", Settings: []string{"link.trace=StaticA", paperSize},
			Axes: []results.Axis{vary(batchSizes)}, Repeat: DefaultRepeat,
			Notes: "Both links replay the shipped LTE trace StaticA (Raca et al. 4G dataset) instead of constant rates; the other parameters at the paper's defaults.",
		},
		{
			Name: "lte-batch-fairness", Title: "DC batch size over the LTE trace", Figure: "Fig. 20 (fairness)",
			Scenario: "fairness", Settings: []string{"link.trace=StaticA", paperDuration},
			Axes: []results.Axis{vary(batchSizes)}, Repeat: DefaultRepeat,
			Notes: "Both links replay the shipped LTE trace StaticA; the other parameters at the paper's defaults.",
		},
		{
			Name: "satellite", Title: "bulk download over a satellite path: file size × RTT, link utilization",
			Figure: "satellite study (not in the paper)", Scenario: "throughput",
			Settings: []string{
				"link.trace=none", "dc.enabled=false", "flow.path=link1",
				"link1.down.rate=50mbit", "link1.up.rate=10mbit", "link1.jitter=0", "flow.rcvbuf=large",
			},
			Axes: []results.Axis{
				Labeled("rtt",
					Value{"100ms", []string{"link1.delay=50ms"}},
					Value{"200ms", []string{"link1.delay=100ms"}},
					Value{"400ms", []string{"link1.delay=200ms"}},
					Value{"600ms", []string{"link1.delay=300ms"}}),
				vary("flow.size=500kB,5MB,20MB,100MB"),
			},
			Grid: true, Repeat: 5,
			Notes: "One path (link1, DC off): forward 50 Mbit/s, return 10 Mbit/s, no jitter, a 1000-packet queue (240 ms at 50 Mbit/s), large UDP buffers. " +
				"The rtt axis sets each one-way delay to half the RTT. The utilization column is goodput / 50 Mbit/s: small files end in slow start, so it grows with size and falls with RTT. " +
				"5 repeats; a 100 MB download takes about 20 s.",
		},
		{
			Name: "lfn", Title: "long fat network: competing QUIC and TCP flows × RTT, per-flow goodput and JFI",
			Figure: "long-fat-network study (not in the paper)", Scenario: "throughput",
			Settings: []string{
				"link.trace=none", "dc.enabled=false", "flow.path=link1", "link1.rate=1gbit", "link1.jitter=0",
				"flow.size=0", "flow.duration=20s", "flow.rcvbuf=large",
			},
			Axes: []results.Axis{
				Labeled("rtt",
					Value{"1ms", []string{"link1.delay=500us", "link1.down.queue=1ms"}},
					Value{"10ms", []string{"link1.delay=5ms", "link1.down.queue=10ms"}},
					Value{"50ms", []string{"link1.delay=25ms", "link1.down.queue=50ms"}},
					Value{"100ms", []string{"link1.delay=50ms", "link1.down.queue=100ms"}},
					Value{"180ms", []string{"link1.delay=90ms", "link1.down.queue=180ms"}}),
				Labeled("flows",
					Value{"1q", mix(1, 0)}, Value{"2q", mix(2, 0)}, Value{"4q", mix(4, 0)},
					Value{"1t", mix(0, 1)}, Value{"2t", mix(0, 2)}, Value{"4t", mix(0, 4)},
					Value{"1q+1t", mix(1, 1)}, Value{"2q+2t", mix(2, 2)}),
			},
			Grid: true, Repeat: 5,
			Notes: "One path (link1, DC off) at 1 Gbit/s with a one-BDP queue (the rtt axis sets the one-way delay to RTT/2 and the queue to RTT at the link rate); " +
				"flows named quic1…, tcp1… share it for 20 s (quic-go NewReno, kernel TCP with its default congestion control). " +
				"Whether a machine can emulate 1 Gbit/s depends on its cores: check the utilization column, and lower the rate with --set link1.rate=200mbit if single flows cannot fill the link.",
		},
	})

// paperPair returns the throughput and fairness presets of one parameter
// of the paper.
func paperPair(name, title, thrFig, fairFig, axis string, extra ...string) []Preset {
	thr := Preset{
		Name: name, Title: title, Figure: thrFig + " (throughput)", Scenario: "throughput",
		Settings: append([]string{"link.trace=none", paperSize}, extra...),
		Axes:     []results.Axis{vary(axis)}, Repeat: DefaultRepeat,
		Notes: paperNotes + "one 50 MB QUIC download over DC per run (the paper's throughput test, shortened)." + overrides(extra),
	}
	fair := Preset{
		Name: name + "-fairness", Title: title, Figure: fairFig + " (fairness)", Scenario: "fairness",
		Settings: append([]string{"link.trace=none", paperDuration}, extra...),
		Axes:     []results.Axis{vary(axis)}, Repeat: DefaultRepeat,
		Notes: paperNotes + "a DC client and one client on each link download for 60 s (the paper's fairness test, shortened)." + overrides(extra),
	}
	return []Preset{thr, fair}
}

// overrides notes the settings a preset changes from the paper's defaults.
func overrides(extra []string) string {
	if len(extra) == 0 {
		return ""
	}
	return " Changed from those defaults: " + strings.Join(extra, " ") + "."
}

// mix is the settings of q QUIC flows and t TCP flows on the base path,
// named quic1…, tcp1…; TCP uses CUBIC (the kernel's default here may be
// BBR, which would make the mix a study of BBR against NewReno).
func mix(q, t int) []string {
	out := []string{fmt.Sprintf("flows.count=%d", q+t)}
	for i := range q + t {
		if i < q {
			out = append(out, fmt.Sprintf("flows.%d.name=quic%d", i, i+1))
		} else {
			out = append(out, fmt.Sprintf("flows.%d.name=tcp%d", i, i-q+1), fmt.Sprintf("flows.%d.proto=tcp", i), fmt.Sprintf("flows.%d.cc=cubic", i))
		}
	}
	return out
}

// vary parses an axis of the table; a malformed literal is a bug that the
// presets test catches.
func vary(s string) results.Axis {
	a, err := ParseVary(s)
	if err != nil {
		panic("sweep: preset axis: " + err.Error())
	}
	return a
}

// Presets returns the preset table.
func Presets() []Preset {
	out := slices.Clone(presets)
	for i := range out {
		out[i].Axes = slices.Clone(out[i].Axes)
	}
	return out
}

// LookupPreset finds a preset by name.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// PresetNames lists the presets' names, for error messages.
func PresetNames() []string {
	var out []string
	for _, p := range presets {
		out = append(out, p.Name)
	}
	return out
}

// Spec returns the preset's sweep, to which the caller adds its own
// settings (after the preset's, so they win) and overrides.
func (p Preset) Spec() (Spec, error) {
	sets, err := parseSettings(p.Settings)
	if err != nil {
		return Spec{}, fmt.Errorf("preset %s: %w", p.Name, err)
	}
	return Spec{
		Preset: p.Name, Scenario: p.Scenario, Settings: sets,
		Axes: slices.Clone(p.Axes), Grid: p.Grid, Repeat: p.Repeat,
	}, nil
}
