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
	// Notes say which figure the preset is, why the durations and sizes
	// are what they are, and which of the paper's choices it cannot match.
	Notes string
	// Part is the part of the paper's reproduction (ReproducePresets) the
	// preset belongs to, or "" for a study outside the paper.
	Part string
}

// Parts of the paper's reproduction.
const (
	PartCore   = "core"   // Figs. 4–11 and App. A: quic-go over constant links
	PartQueue  = "queue"  // the queue-length sensitivity of Figs. 8b, 8c, 11b, 14b, 15b
	PartJitter = "jitter" // the jitter-model sensitivity of Figs. 9b, 10b, 13b
	PartNgtcp2 = "ngtcp2" // Figs. 12–19: ngtcp2 with NewReno and CUBIC
	PartTrace  = "trace"  // Figs. 20–22: the StaticA trace on both downlinks
)

// Flow sizes and durations of the paper presets. The paper downloads 100 MB
// (throughput) and measures the first 3 minutes of 1 GB downloads
// (fairness); these keep one run under about 15 s (50 MB at ≈ 40 Mbit/s) or
// 60 s so that a preset of 6 points × 10 repeats takes 15 min or an hour.
// ReproducePresets replaces both with its scale's.
const (
	paperSize     = "flow.size=50MB"
	paperDuration = "flow.duration=60s"
)

// paperQueue is the rate limiter's queue of every paper preset, a choice
// the paper leaves open: it does not state its testbed's queue. A queue in
// packets (emu's default 1000p, also netem's and a pfifo's default) is a
// different delay on every link rate: 0.6 s at 20 Mbit/s, 1.8 s on the slow
// link of a 5:1 ratio (6.7 Mbit/s), 2.7 s at StaticA's 4.5 Mbit/s mean — far
// beyond t-Reordering's 200 ms, so a standing queue that single-link clients
// build on one link makes every DC batch sent there miss the reordering
// timer, and the bandwidth-ratio axes would vary the queueing delay along
// with the rate. A queue in time keeps one delay at every rate and under a
// trace. 100 ms is half of t-Reordering (a batch held up by a full queue
// still arrives in time), and 3–4 bandwidth-delay products at the defaults
// (≈ 22 ms RTT), enough for NewReno to keep the link busy; at the high-delay
// scenario's ≈ 200 ms RTT it is half a BDP. The issue 11 measurements put
// the 5:1 matched-split JFI at 0.71 with it (paper 0.70) against 0.51 with
// 1000 packets: that agreement is a calibration, stated as one, and the
// queue-fairness preset shows how much the fairness figures depend on it.
const paperQueue = "link.queue=100ms"

var (
	batchSizes = "dc.batch=25,50,100,150,300,500"
	splits     = "dc.split=1:1,6:4,7:3,8:2,9:1"
	bwRatios   = "link.bw_ratio=1:1,2:1,3:1,4:1,5:1"
	bwMatched  = "link.bw_ratio+dc.split=1:1,2:1,3:1,4:1,5:1"
	delayRatio = "link.delay_ratio=1:1,2:1,3:1,4:1,5:1"
	losses     = "link.loss=0%,0.08%,0.5%,1%,2%,5%"
	dupLosses  = "link.loss=0%,0.5%,1%,2%,5%"
	queues     = "link.queue=50ms,100ms,200ms,500ms,1000p"
)

// jitterModels is the axis of the jitter-model study: emu's default
// (delays a smooth process in time, packets kept in order), netem's
// (independent delays, packets released by due time, so reordered when the
// jitter exceeds their spacing) and none. The paper set its 10 % jitter
// with tc, most likely netem, and does not say whether its packets were
// reordered: netem reorders them unless it also limits the rate.
var jitterModels = Labeled("jitter",
	Value{"ordered", []string{"link.reorder=false"}},
	Value{"independent", []string{"link.reorder=true"}},
	Value{"none", []string{"link.jitter=0"}})

const notesJitter = "The paper's jitter came from tc, most likely netem, whose independent delays reorder packets spaced closer than the jitter (0.6 ms at 20 Mbit/s against 10 ms of jitter at high delay) unless netem also limits the rate; emu's presets keep packets in order (docs/design.md). The jitter axis: ordered (emu's default), independent (link.reorder=true, netem-like) and none (link.jitter=0). "

// The protocol stacks the paper plots, as labelled values of the "stack"
// axis. Fairness presets set one of them (or vary two) for all three flows.
var (
	quicDefault = Value{"quic-default", []string{"flow.rcvbuf=default"}}
	quicLarge   = Value{"quic-large", []string{"flow.rcvbuf=large"}}
	tcpReno     = Value{"tcp-reno", []string{"flow.proto=tcp", "flow.cc=reno"}}
	tcpCubic    = Value{"tcp-cubic", []string{"flow.proto=tcp", "flow.cc=cubic"}}
	ngtcp2Reno  = Value{"ngtcp2-reno", []string{"flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.cc=reno", "flow.rcvbuf=large"}}
	ngtcp2Cubic = Value{"ngtcp2-cubic", []string{"flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.cc=cubic", "flow.rcvbuf=large"}}
)

// StackAxis is the key of the labelled axis that gives a throughput preset
// the paper's lines (and an ngtcp2 fairness preset its two controllers).
const StackAxis = "stack"

// family is one set of the paper's repeats: an implementation and a kind
// of link.
type family struct {
	prefix, part string
	settings     []string
	lines        []Value // the throughput figures' lines
	fair         []Value // one: every fairness flow's stack; more: an axis
	notes        string
}

const (
	notesDefaults = "The paper's defaults: 2 × 20 Mbit/s, 10 ms one-way delay with 10 % coefficient of variation, no loss, batch 100, split 1:1, t-Reordering 200 ms. "
	notesQueue    = "Rate-limiter queue 100 ms at the link's current rate: the paper does not state its queue (the reasoning is in docs/reproduce.md; the queue-fairness preset shows the effect). "
	notesDelay    = "emu delays both directions of a link by link.delay; the paper does not say whether tc delayed one side or both. "
	notesQuicGo   = "quic-go (NewReno) stands in for aioquic, which emu does not have; quic-large and quic-default are emu's renditions of the paper's modified and default receive buffers (emu/endpoint doc), TCP is emu's Go HTTPS endpoint over the kernel's NewReno (the paper: Hypercorn HTTP/2 and curl). "
	notesNgtcp2   = "ngtcp2 is the version emu finds installed (Debian's gtlsserver/gtlsclient), not necessarily the paper's; the paper does not state ngtcp2's buffers: flow control at emu's large setting. "
	notesTrace    = "Both downlinks replay the Raca et al. LTE trace StaticA shipped with emu (the paper's trace, 4.5 Mbit/s mean over its first 200 s) in 10 ms windows, looping; the uplinks stay at 20 Mbit/s. "
)

var families = []family{
	{prefix: "", part: PartCore, settings: []string{"link.trace=none"},
		lines: []Value{quicDefault, quicLarge, tcpReno}, fair: []Value{quicLarge}, notes: notesQuicGo},
	{prefix: "ngtcp2-", part: PartNgtcp2, settings: []string{"link.trace=none"},
		lines: []Value{ngtcp2Reno, ngtcp2Cubic, tcpCubic}, fair: []Value{ngtcp2Reno, ngtcp2Cubic},
		notes: notesNgtcp2 + "The lines: ngtcp2 with NewReno and CUBIC and kernel TCP CUBIC; TCP NewReno is the tcp-reno line of the quic-go preset of the same name without the prefix (the same configuration, not run twice). "},
	{prefix: "lte-", part: PartTrace, settings: []string{"link.trace=StaticA"},
		lines: []Value{quicDefault, quicLarge, tcpReno}, fair: []Value{quicLarge}, notes: notesTrace + notesQuicGo},
	{prefix: "lte-ngtcp2-", part: PartTrace, settings: []string{"link.trace=StaticA"},
		lines: []Value{ngtcp2Cubic, tcpCubic}, fair: []Value{ngtcp2Cubic}, notes: notesTrace + notesNgtcp2},
}

// paperParam is one parameter the paper varies, with its figures in each
// family (throughput, fairness); a family without figures skips it.
type paperParam struct {
	name, title, axis string
	extra             []string // settings changed from the defaults
	figs              [4][2]string
	notes             string
}

var paperParams = []paperParam{
	{name: "batch", title: "DC batch size", axis: batchSizes,
		figs:  [4][2]string{{"Fig. 4a", "Fig. 5a"}, {"Fig. 12a", "Fig. 12b (NewReno), 12c (CUBIC)"}, {"Fig. 20a", "Fig. 20a"}, {"Fig. 20d", "Fig. 20d"}},
		notes: "Figs. 4b/4c (link use over time at batch 50 and 500) and 5b (the three clients over time at batch 100) are the time series of this preset's runs. "},
	{name: "split", title: "DC split ratio (packets on link1:link2)", axis: splits,
		figs:  [4][2]string{{"Fig. 7a", "Fig. 8a"}, {"Fig. 13a", "Fig. 14a (NewReno), 15a (CUBIC)"}, {"Fig. 21", "Fig. 21"}, {"Fig. 21", "Fig. 21"}},
		notes: "The paper's axis runs from 10 % to 90 % on eno1; the links are identical, so emu runs 50–90 % and the other half is its mirror image. Fig. 6 (link use at 9:1) is the time series of the 9:1 runs. "},
	{name: "bw-ratio", title: "bandwidth ratio link1:link2 at a 50/50 split (mean rate 20 Mbit/s)", axis: bwRatios,
		figs: [4][2]string{{"Fig. 7b", "Fig. 8b"}, {"Fig. 16", "Fig. 16"}}},
	{name: "bw-ratio-matched", title: "bandwidth ratio link1:link2 with the split following it", axis: bwMatched,
		figs: [4][2]string{{"Fig. 7c", "Fig. 8c"}, {"Fig. 17", "Fig. 17"}}},
	{name: "delay-ratio-low", title: "delay ratio link1:link2, low delay (one-way delays sum to 20 ms)", axis: delayRatio,
		figs: [4][2]string{{"Fig. 9a", "Fig. 10a"}, {"Fig. 18", "Fig. 18"}, {"Fig. 21–22", "Fig. 21–22"}, {"Fig. 21–22", "Fig. 21–22"}}},
	{name: "delay-ratio-high", title: "delay ratio link1:link2, high delay (one-way delays sum to 200 ms)", axis: delayRatio, extra: []string{"link.delay=100ms"},
		figs: [4][2]string{{"Fig. 9b", "Fig. 10b"}, {"Fig. 13b", "Fig. 14b (NewReno), 15b (CUBIC)"}, {"Fig. 20b", "Fig. 20b"}, {"Fig. 20e", "Fig. 20e"}}},
	{name: "loss", title: "random loss on both links, both directions", axis: losses,
		figs:  [4][2]string{{"Fig. 9c", "Fig. 10c"}, {"Fig. 13c", "Fig. 14c (NewReno), 15c (CUBIC)"}, {"Fig. 20c", "Fig. 20c"}, {"Fig. 20f", "Fig. 20f"}},
		notes: "0.08 % is the loss rate the paper names; 0.5 %, 1 %, 2 %, 5 % are shared with the duplication presets, whose batch-splitting counterpart this is. "},
	{name: "duplication", title: "PDCP duplication (every packet on both links) under random loss", axis: dupLosses, extra: []string{"dc.scheduler=duplicate"},
		figs:  [4][2]string{{"Fig. 11a", "Fig. 11b"}, {"Fig. 19", "Fig. 19"}, {"Fig. 21–22", "Fig. 21–22"}, {"Fig. 21–22", "Fig. 21–22"}},
		notes: "Batch splitting at the same loss rates is the loss preset. Report both the combined interface throughput B (the links' downlink throughput summed, link.down.throughput_mbps) and the goodput X (total.goodput_mbps): the paper relates them as X = B(1+p)/2, B counted after the loss; emu counts link throughput before its loss, so there B(1−p) is the paper's B. "},
}

// paperPresets builds every family's throughput and fairness presets of
// the paper's parameters.
func paperPresets() []Preset {
	var out []Preset
	for fi, fam := range families {
		for _, pp := range paperParams {
			figs := pp.figs[fi]
			if figs[0] == "" {
				continue
			}
			out = append(out, paperPair(fam, pp, figs)...)
		}
	}
	return out
}

// paperPair returns the throughput and fairness presets of one parameter
// in one family.
func paperPair(fam family, pp paperParam, figs [2]string) []Preset {
	base := slices.Concat(fam.settings, []string{paperQueue}, pp.extra)
	changed := ""
	if len(pp.extra) > 0 {
		changed = "Changed from those defaults: " + strings.Join(pp.extra, " ") + ". "
	}
	notes := func(fig string) string {
		return "The paper's " + fig + ". " + notesDefaults + changed + notesQueue + notesDelay + fam.notes + pp.notes
	}
	thr := Preset{
		Name: fam.prefix + pp.name, Title: pp.title, Figure: figs[0] + " (throughput)", Scenario: "throughput", Part: fam.part,
		Settings: append(slices.Clone(base), paperSize),
		Axes:     []results.Axis{vary(pp.axis), Labeled(StackAxis, fam.lines...)}, Grid: true, Repeat: DefaultRepeat,
		Notes: notes(figs[0]) + "One DC download per run, 50 MB (the paper: 100 MB); a grid of the parameter and the stack axis, one line per stack as the paper plots them: " + stackNames(fam.lines) + ".",
	}
	fair := Preset{
		Name: thr.Name + "-fairness", Title: pp.title, Figure: figs[1] + " (fairness)", Scenario: "fairness", Part: fam.part,
		Settings: append(slices.Clone(base), paperDuration),
		Axes:     []results.Axis{vary(pp.axis)}, Repeat: DefaultRepeat,
		Notes: notes(figs[1]) + "A DC client and one single-link client on each link, all " + stackNames(fam.fair) +
			" (the paper ran every fairness test with the modified buffer), share the links for 60 s (the paper: the first 3 minutes of 1 GB downloads).",
	}
	if len(fam.fair) == 1 {
		fair.Settings = slices.Concat(base, fam.fair[0].Set, []string{paperDuration})
	} else {
		fair.Axes, fair.Grid = append(fair.Axes, Labeled(StackAxis, fam.fair...)), true
	}
	return []Preset{thr, fair}
}

func stackNames(vs []Value) string {
	var names []string
	for _, v := range vs {
		names = append(names, v.Label)
	}
	return strings.Join(names, ", ")
}

// presets is the table `emu sweep --list-presets` prints and
// docs/sweeps.md describes. Paper presets come in pairs: NAME measures
// throughput, NAME-fairness measures fairness.
var presets = slices.Concat(paperPresets(), workloadPresets, []Preset{
	{
		Name: "sc-pairs", Title: "two single-link clients sharing link1: QUIC–QUIC, QUIC–TCP, TCP–TCP", Figure: "App. A (fairness)",
		Scenario: "fairness", Part: PartCore,
		Settings: []string{"link.trace=none", paperQueue, "dc.enabled=false", "flows.count=2", "flow.path=link1", "flow.rcvbuf=large", paperDuration},
		Axes: []results.Axis{Labeled("pair",
			Value{"quic-quic", pair("quic1", "quic2")}, Value{"quic-tcp", pair("quic1", "tcp1")}, Value{"tcp-tcp", pair("tcp1", "tcp2")})},
		Repeat: DefaultRepeat,
		Notes:  notesDefaults + notesQueue + notesQuicGo + "DC off; two clients on link1 (flows quic1, quic2, tcp1, tcp2 by protocol) download for 60 s: the paper's reference traces of competing single-path flows.",
	},
	{
		Name: "queue-fairness", Title: "fairness against the rate limiter's queue: 5:1 bandwidth ratio (50/50 and matched split) and duplication",
		Figure: "queue-length sensitivity of Figs. 8b, 8c and 11b", Scenario: "fairness", Part: PartQueue,
		Settings: slices.Concat([]string{"link.trace=none"}, quicLarge.Set, []string{paperQueue, paperDuration}),
		Axes: []results.Axis{
			Labeled("case",
				Value{"ratio5-even", []string{"link.bw_ratio=5:1"}},
				Value{"ratio5-matched", []string{"link.bw_ratio=5:1", "dc.split=5:1"}},
				Value{"dup-loss0", []string{"dc.scheduler=duplicate"}},
				Value{"dup-loss2", []string{"dc.scheduler=duplicate", "link.loss=2%"}}),
			vary(queues),
		},
		Grid: true, Repeat: DefaultRepeat,
		Notes: notesDefaults + notesDelay + notesQuicGo + "A grid of four fairness cases (Fig. 8b's and 8c's 5:1 points, Fig. 11b at 0 % and 2 % loss) and the queue limit of every link direction, " +
			"from 50 ms at the link's rate to 1000 packets (emu's default; 0.6 s at 20 Mbit/s, 1.8 s at 6.7 Mbit/s). The paper does not state its queue: this shows how far its fairness figures depend on it.",
	},
	{
		Name: "ngtcp2-queue-fairness", Title: "ngtcp2 fairness at high delay (delays sum to 200 ms, ratio 1:1) against the rate limiter's queue, NewReno and CUBIC",
		Figure: "queue-length sensitivity of Figs. 14b and 15b", Scenario: "fairness", Part: PartQueue,
		Settings: []string{"link.trace=none", "link.delay=100ms", paperDuration},
		Axes:     []results.Axis{vary(queues), Labeled(StackAxis, ngtcp2Reno, ngtcp2Cubic)},
		Grid:     true, Repeat: DefaultRepeat,
		Notes: notesDefaults + notesDelay + notesNgtcp2 +
			"A grid of the queue limit of every link direction and the two controllers, from 50 ms at the link's rate to 1000 packets (0.6 s at 20 Mbit/s), at Fig. 14b's and 15b's 1:1 point. " +
			"With 100 ms queues, half of each link's bandwidth-delay product at 200 ms, the single-link CUBIC clients overflow the queues every second or two and the DC client, whose packets sit in both, takes most of the losses: this shows how far the CUBIC starvation depends on the queue.",
	},
	{
		Name: "jitter", Title: "throughput against the jitter model at high delay (delays sum to 200 ms), delay ratio 1:1 and 5:1",
		Figure: "jitter-model sensitivity of Figs. 9b and 13b", Scenario: "throughput", Part: PartJitter,
		Settings: []string{"link.trace=none", paperQueue, "link.delay=100ms", paperSize},
		Axes:     []results.Axis{jitterModels, vary("link.delay_ratio=1:1,5:1"), Labeled(StackAxis, quicLarge, ngtcp2Reno, tcpReno)},
		Grid:     true, Repeat: DefaultRepeat,
		Notes: notesDefaults + notesQueue + notesDelay + notesQuicGo + notesJitter +
			"A grid of the jitter model, two of Fig. 9b's delay ratios and three stacks (quic-go, ngtcp2 and TCP, all NewReno), one 50 MB download per run.",
	},
	{
		Name: "jitter-fairness", Title: "fairness against the jitter model at high delay (delays sum to 200 ms), delay ratio 1:1 and 5:1",
		Figure: "jitter-model sensitivity of Fig. 10b", Scenario: "fairness", Part: PartJitter,
		Settings: slices.Concat([]string{"link.trace=none"}, quicLarge.Set, []string{paperQueue, "link.delay=100ms", paperDuration}),
		Axes:     []results.Axis{jitterModels, vary("link.delay_ratio=1:1,5:1")},
		Grid:     true, Repeat: DefaultRepeat,
		Notes: notesDefaults + notesQueue + notesDelay + notesQuicGo + notesJitter +
			"A grid of the jitter model and two of Fig. 10b's delay ratios: a DC client and one single-link client on each link share the links for 60 s.",
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
	multipathPreset(),
})

// pair is the settings of two named flows: quicN flows are quic-go, tcpN
// flows kernel TCP NewReno (the paper's TCP).
func pair(names ...string) []string {
	var out []string
	for i, n := range names {
		out = append(out, fmt.Sprintf("flows.%d.name=%s", i, n))
		if strings.HasPrefix(n, "tcp") {
			out = append(out, fmt.Sprintf("flows.%d.proto=tcp", i), fmt.Sprintf("flows.%d.cc=reno", i))
		}
	}
	return out
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
		out[i] = out[i].clone()
	}
	return out
}

func (p Preset) clone() Preset {
	p.Settings = slices.Clone(p.Settings)
	p.Axes = slices.Clone(p.Axes)
	return p
}

// LookupPreset finds a preset by name.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p.clone(), true
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

// ReproduceScale is how long the runs of the paper's reproduction are.
type ReproduceScale struct {
	Name     string
	Repeat   int    // runs per point
	Duration string // fairness: every flow's measurement window (flow.duration)
	Size     string // throughput: the download (flow.size)
}

// ReproduceScales returns the scales of the paper's reproduction: quick,
// a first look in hours, and paper, the paper's own repeats, durations and
// sizes.
func ReproduceScales() []ReproduceScale {
	return []ReproduceScale{
		{Name: "quick", Repeat: 3, Duration: "60s", Size: "20MB"},
		{Name: "paper", Repeat: 10, Duration: "180s", Size: "100MB"},
	}
}

// LookupReproduceScale finds a scale by name.
func LookupReproduceScale(name string) (ReproduceScale, bool) {
	for _, s := range ReproduceScales() {
		if s.Name == name {
			return s, true
		}
	}
	return ReproduceScale{}, false
}

// ReproducePresets returns the presets of the paper's reproduction in
// table order, each with the scale's repeats and its download size
// (throughput) or duration (fairness) in place of the preset's own; parts
// selects PartCore, PartQueue, PartJitter, PartNgtcp2, PartTrace (none:
// all).
func ReproducePresets(sc ReproduceScale, parts ...string) ([]Preset, error) {
	if sc.Repeat < 1 || sc.Duration == "" || sc.Size == "" {
		return nil, fmt.Errorf("reproduce scale %q: needs repeats, a duration and a size", sc.Name)
	}
	for _, p := range parts {
		if !slices.Contains([]string{PartCore, PartQueue, PartJitter, PartNgtcp2, PartTrace}, p) {
			return nil, fmt.Errorf("reproduce: no part %q (want %s, %s, %s, %s or %s)", p, PartCore, PartQueue, PartJitter, PartNgtcp2, PartTrace)
		}
	}
	var out []Preset
	for _, p := range presets {
		if p.Part == "" || len(parts) > 0 && !slices.Contains(parts, p.Part) {
			continue
		}
		p = p.clone()
		p.Repeat = sc.Repeat
		p.Settings = slices.DeleteFunc(p.Settings, func(s string) bool {
			return strings.HasPrefix(s, "flow.size=") || strings.HasPrefix(s, "flow.duration=")
		})
		if p.Scenario == "fairness" {
			p.Settings = append(p.Settings, "flow.duration="+sc.Duration)
		} else {
			p.Settings = append(p.Settings, "flow.size="+sc.Size)
		}
		out = append(out, p)
	}
	return out, nil
}
