package paper

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/findings"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

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

// Queue is the rate limiter's queue of every paper preset (and of the
// multipath study's), a choice the paper leaves open: it does not state
// its testbed's queue. A queue in packets (emu's default 1000p, also
// netem's and a pfifo's default) is a different delay on every link rate:
// 0.6 s at 20 Mbit/s, 1.8 s on the slow link of a 5:1 ratio (6.7 Mbit/s),
// 2.7 s at StaticA's 4.5 Mbit/s mean — far beyond t-Reordering's 200 ms,
// so a standing queue that single-link clients build on one link makes
// every DC batch sent there miss the reordering timer, and the
// bandwidth-ratio axes would vary the queueing delay along with the rate.
// A queue in time keeps one delay at every rate and under a trace. 100 ms
// is half of t-Reordering (a batch held up by a full queue still arrives
// in time), and 3–4 bandwidth-delay products at the defaults (≈ 22 ms
// RTT), enough for NewReno to keep the link busy; at the high-delay
// scenario's ≈ 200 ms RTT it is half a BDP. The issue 11 measurements put
// the 5:1 matched-split JFI at 0.71 with it (paper 0.70) against 0.51 with
// 1000 packets: that agreement is a calibration, stated as one, and the
// queue-fairness preset shows how much the fairness figures depend on it.
const Queue = "link.queue=100ms"

// The keys of the axes the paper's presets vary; the findings read the
// axes by them.
const (
	axBatch      = "dc.batch"
	axSplit      = "dc.split"
	axBWRatio    = "link.bw_ratio"
	axBWMatched  = "link.bw_ratio+dc.split"
	axDelayRatio = "link.delay_ratio"
	axLoss       = "link.loss"
	axQueue      = "link.queue"
)

const (
	batchSizes = axBatch + "=25,50,100,150,300,500"
	splits     = axSplit + "=1:1,6:4,7:3,8:2,9:1"
	bwRatios   = axBWRatio + "=1:1,2:1,3:1,4:1,5:1"
	bwMatched  = axBWMatched + "=1:1,2:1,3:1,4:1,5:1"
	delayRatio = axDelayRatio + "=1:1,2:1,3:1,4:1,5:1"
	losses     = axLoss + "=0%,0.08%,0.5%,1%,2%,5%"
	dupLosses  = axLoss + "=0%,0.5%,1%,2%,5%"
	queues     = axQueue + "=50ms,100ms,200ms,500ms,1000p"
)

// jitterModels is the axis of the jitter-model study: emu's default
// (delays a smooth process in time, packets kept in order), netem's
// (independent delays, packets released by due time, so reordered when the
// jitter exceeds their spacing) and none. The paper set its 10 % jitter
// with tc, most likely netem, and does not say whether its packets were
// reordered: netem reorders them unless it also limits the rate.
var jitterModels = sweep.Labeled("jitter",
	sweep.Value{Label: "ordered", Set: []string{"link.reorder=false"}},
	sweep.Value{Label: "independent", Set: []string{"link.reorder=true"}},
	sweep.Value{Label: "none", Set: []string{"link.jitter=0"}})

const notesJitter = "The paper's jitter came from tc, most likely netem, whose independent delays reorder packets spaced closer than the jitter (0.6 ms at 20 Mbit/s against 10 ms of jitter at high delay) unless netem also limits the rate; emu's presets keep packets in order (docs/design.md). The jitter axis: ordered (emu's default), independent (link.reorder=true, netem-like) and none (link.jitter=0). "

// The protocol stacks the paper plots, as labelled values of the "stack"
// axis. Fairness presets set one of them (or vary two) for all three flows.
// The stacks' labels, which the findings name.
const (
	stackQuicDefault = "quic-default"
	stackQuicLarge   = "quic-large"
	stackTCPReno     = "tcp-reno"
	stackTCPCubic    = "tcp-cubic"
	stackNgtcp2Reno  = "ngtcp2-reno"
	stackNgtcp2Cubic = "ngtcp2-cubic"
)

var (
	quicDefault = sweep.Value{Label: stackQuicDefault, Set: []string{"flow.rcvbuf=default"}}
	quicLarge   = sweep.Value{Label: stackQuicLarge, Set: []string{"flow.rcvbuf=large"}}
	tcpReno     = sweep.Value{Label: stackTCPReno, Set: []string{"flow.proto=tcp", "flow.cc=reno"}}
	tcpCubic    = sweep.Value{Label: stackTCPCubic, Set: []string{"flow.proto=tcp", "flow.cc=cubic"}}
	ngtcp2Reno  = sweep.Value{Label: stackNgtcp2Reno, Set: []string{"flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.cc=reno", "flow.rcvbuf=large"}}
	ngtcp2Cubic = sweep.Value{Label: stackNgtcp2Cubic, Set: []string{"flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.cc=cubic", "flow.rcvbuf=large"}}
)

// StackAxis is the key of the labelled axis that gives a throughput preset
// the paper's lines (and an ngtcp2 fairness preset its two controllers):
// the findings' line axis, never a figure's x axis.
const StackAxis = findings.LineAxis

// family is one set of the paper's repeats: an implementation and a kind
// of link.
type family struct {
	prefix, part string
	settings     []string
	lines        []sweep.Value // the throughput figures' lines
	fair         []sweep.Value // one: every fairness flow's stack; more: an axis
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

// The families of the paper's repeats; each names its pair of presets of
// a parameter (throughput, fairness).
var (
	famCore = family{prefix: "", part: PartCore, settings: []string{"link.trace=none"},
		lines: []sweep.Value{quicDefault, quicLarge, tcpReno}, fair: []sweep.Value{quicLarge}, notes: notesQuicGo}
	famNgtcp2 = family{prefix: "ngtcp2-", part: PartNgtcp2, settings: []string{"link.trace=none"},
		lines: []sweep.Value{ngtcp2Reno, ngtcp2Cubic, tcpCubic}, fair: []sweep.Value{ngtcp2Reno, ngtcp2Cubic},
		notes: notesNgtcp2 + "The lines: ngtcp2 with NewReno and CUBIC and kernel TCP CUBIC; TCP NewReno is the tcp-reno line of the quic-go preset of the same name without the prefix (the same configuration, not run twice). "}
	famLTE = family{prefix: "lte-", part: PartTrace, settings: []string{"link.trace=StaticA"},
		lines: []sweep.Value{quicDefault, quicLarge, tcpReno}, fair: []sweep.Value{quicLarge}, notes: notesTrace + notesQuicGo}
	famLTENgtcp2 = family{prefix: "lte-ngtcp2-", part: PartTrace, settings: []string{"link.trace=StaticA"},
		lines: []sweep.Value{ngtcp2Cubic, tcpCubic}, fair: []sweep.Value{ngtcp2Cubic}, notes: notesTrace + notesNgtcp2}

	families = []family{famCore, famNgtcp2, famLTE, famLTENgtcp2}
)

// throughput is the name of the family's throughput preset of param.
func (f family) throughput(param string) string { return f.prefix + param }

// fairness is the name of the family's fairness preset of param.
func (f family) fairness(param string) string { return f.throughput(param) + "-fairness" }

// The parameters the paper varies, each a pair of presets per family.
const (
	pBatch          = "batch"
	pSplit          = "split"
	pBWRatio        = "bw-ratio"
	pBWRatioMatched = "bw-ratio-matched"
	pDelayRatioLow  = "delay-ratio-low"
	pDelayRatioHigh = "delay-ratio-high"
	pLoss           = "loss"
	pDuplication    = "duplication"
)

// The presets beside the paper's pairs.
const (
	presetSCPairs             = "sc-pairs"
	presetQueueFairness       = "queue-fairness"
	presetNgtcp2QueueFairness = "ngtcp2-queue-fairness"
	presetJitter              = "jitter"
	presetJitterFairness      = "jitter-fairness"
)

// paperParam is one parameter the paper varies, with its figures in each
// family (throughput, fairness); a family without figures skips it.
type paperParam struct {
	name, title, axis string
	extra             []string // settings changed from the defaults
	figs              [4][2]string
	notes             string
}

var paperParams = []paperParam{
	{name: pBatch, title: "DC batch size", axis: batchSizes,
		figs:  [4][2]string{{"Fig. 4a", "Fig. 5a"}, {"Fig. 12a", "Fig. 12b (NewReno), 12c (CUBIC)"}, {"Fig. 20a", "Fig. 20a"}, {"Fig. 20d", "Fig. 20d"}},
		notes: "Figs. 4b/4c (link use over time at batch 50 and 500) and 5b (the three clients over time at batch 100) are the time series of this preset's runs. "},
	{name: pSplit, title: "DC split ratio (packets on link1:link2)", axis: splits,
		figs:  [4][2]string{{"Fig. 7a", "Fig. 8a"}, {"Fig. 13a", "Fig. 14a (NewReno), 15a (CUBIC)"}, {"Fig. 21", "Fig. 21"}, {"Fig. 21", "Fig. 21"}},
		notes: "The paper's axis runs from 10 % to 90 % on eno1; the links are identical, so emu runs 50–90 % and the other half is its mirror image. Fig. 6 (link use at 9:1) is the time series of the 9:1 runs. "},
	{name: pBWRatio, title: "bandwidth ratio link1:link2 at a 50/50 split (mean rate 20 Mbit/s)", axis: bwRatios,
		figs: [4][2]string{{"Fig. 7b", "Fig. 8b"}, {"Fig. 16", "Fig. 16"}}},
	{name: pBWRatioMatched, title: "bandwidth ratio link1:link2 with the split following it", axis: bwMatched,
		figs: [4][2]string{{"Fig. 7c", "Fig. 8c"}, {"Fig. 17", "Fig. 17"}}},
	{name: pDelayRatioLow, title: "delay ratio link1:link2, low delay (one-way delays sum to 20 ms)", axis: delayRatio,
		figs: [4][2]string{{"Fig. 9a", "Fig. 10a"}, {"Fig. 18", "Fig. 18"}, {"Fig. 21–22", "Fig. 21–22"}, {"Fig. 21–22", "Fig. 21–22"}}},
	{name: pDelayRatioHigh, title: "delay ratio link1:link2, high delay (one-way delays sum to 200 ms)", axis: delayRatio, extra: []string{"link.delay=100ms"},
		figs: [4][2]string{{"Fig. 9b", "Fig. 10b"}, {"Fig. 13b", "Fig. 14b (NewReno), 15b (CUBIC)"}, {"Fig. 20b", "Fig. 20b"}, {"Fig. 20e", "Fig. 20e"}}},
	{name: pLoss, title: "random loss on both links, both directions", axis: losses,
		figs:  [4][2]string{{"Fig. 9c", "Fig. 10c"}, {"Fig. 13c", "Fig. 14c (NewReno), 15c (CUBIC)"}, {"Fig. 20c", "Fig. 20c"}, {"Fig. 20f", "Fig. 20f"}},
		notes: "0.08 % is the loss rate the paper names; 0.5 %, 1 %, 2 %, 5 % are shared with the duplication presets, whose batch-splitting counterpart this is. "},
	{name: pDuplication, title: "PDCP duplication (every packet on both links) under random loss", axis: dupLosses, extra: []string{"dc.scheduler=duplicate"},
		figs:  [4][2]string{{"Fig. 11a", "Fig. 11b"}, {"Fig. 19", "Fig. 19"}, {"Fig. 21–22", "Fig. 21–22"}, {"Fig. 21–22", "Fig. 21–22"}},
		notes: "Batch splitting at the same loss rates is the loss preset. Report both the combined interface throughput B (the links' downlink throughput summed, link.down.throughput_mbps) and the goodput X (total.goodput_mbps): the paper relates them as X = B(1+p)/2, B counted after the loss; emu counts link throughput before its loss, so there B(1−p) is the paper's B. "},
}

// paperPresets builds every family's throughput and fairness presets of
// the paper's parameters.
func paperPresets() []sweep.Preset {
	var out []sweep.Preset
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
func paperPair(fam family, pp paperParam, figs [2]string) []sweep.Preset {
	base := slices.Concat(fam.settings, []string{Queue}, pp.extra)
	changed := ""
	if len(pp.extra) > 0 {
		changed = "Changed from those defaults: " + strings.Join(pp.extra, " ") + ". "
	}
	notes := func(fig string) string {
		return "The paper's " + fig + ". " + notesDefaults + changed + notesQueue + notesDelay + fam.notes + pp.notes
	}
	thr := sweep.Preset{
		Name: fam.throughput(pp.name), Title: pp.title, Figure: figs[0] + " (throughput)", Scenario: "throughput", Part: fam.part,
		Settings: append(slices.Clone(base), paperSize),
		Axes:     []results.Axis{sweep.MustVary(pp.axis), sweep.Labeled(StackAxis, fam.lines...)}, Grid: true, Repeat: sweep.DefaultRepeat,
		Notes: notes(figs[0]) + "One DC download per run, 50 MB (the paper: 100 MB); a grid of the parameter and the stack axis, one line per stack as the paper plots them: " + stackNames(fam.lines) + ".",
	}
	fair := sweep.Preset{
		Name: fam.fairness(pp.name), Title: pp.title, Figure: figs[1] + " (fairness)", Scenario: "fairness", Part: fam.part,
		Settings: append(slices.Clone(base), paperDuration),
		Axes:     []results.Axis{sweep.MustVary(pp.axis)}, Repeat: sweep.DefaultRepeat,
		Notes: notes(figs[1]) + "A DC client and one single-link client on each link, all " + stackNames(fam.fair) +
			" (the paper ran every fairness test with the modified buffer), share the links for 60 s (the paper: the first 3 minutes of 1 GB downloads).",
	}
	if len(fam.fair) == 1 {
		fair.Settings = slices.Concat(base, fam.fair[0].Set, []string{paperDuration})
	} else {
		fair.Axes, fair.Grid = append(fair.Axes, sweep.Labeled(StackAxis, fam.fair...)), true
	}
	return []sweep.Preset{thr, fair}
}

func stackNames(vs []sweep.Value) string {
	var names []string
	for _, v := range vs {
		names = append(names, v.Label)
	}
	return strings.Join(names, ", ")
}

// presets is the study's table: every family's pair of presets per
// parameter (NAME measures throughput, NAME-fairness fairness), then the
// reference and sensitivity presets.
var presets = slices.Concat(paperPresets(), []sweep.Preset{
	{
		Name: presetSCPairs, Title: "two single-link clients sharing link1: QUIC–QUIC, QUIC–TCP, TCP–TCP", Figure: "App. A (fairness)",
		Scenario: "fairness", Part: PartCore,
		Settings: []string{"link.trace=none", Queue, "dc.enabled=false", "flows.count=2", "flow.path=link1", "flow.rcvbuf=large", paperDuration},
		Axes: []results.Axis{sweep.Labeled("pair",
			sweep.Value{Label: "quic-quic", Set: pair("quic1", "quic2")}, sweep.Value{Label: "quic-tcp", Set: pair("quic1", "tcp1")}, sweep.Value{Label: "tcp-tcp", Set: pair("tcp1", "tcp2")})},
		Repeat: sweep.DefaultRepeat,
		Notes:  notesDefaults + notesQueue + notesQuicGo + "DC off; two clients on link1 (flows quic1, quic2, tcp1, tcp2 by protocol) download for 60 s: the paper's reference traces of competing single-path flows.",
	},
	{
		Name: presetQueueFairness, Title: "fairness against the rate limiter's queue: 5:1 bandwidth ratio (50/50 and matched split) and duplication",
		Figure: "queue-length sensitivity of Figs. 8b, 8c and 11b", Scenario: "fairness", Part: PartQueue,
		Settings: slices.Concat([]string{"link.trace=none"}, quicLarge.Set, []string{Queue, paperDuration}),
		Axes: []results.Axis{
			sweep.Labeled("case",
				sweep.Value{Label: "ratio5-even", Set: []string{"link.bw_ratio=5:1"}},
				sweep.Value{Label: "ratio5-matched", Set: []string{"link.bw_ratio=5:1", "dc.split=5:1"}},
				sweep.Value{Label: "dup-loss0", Set: []string{"dc.scheduler=duplicate"}},
				sweep.Value{Label: "dup-loss2", Set: []string{"dc.scheduler=duplicate", "link.loss=2%"}}),
			sweep.MustVary(queues),
		},
		Grid: true, Repeat: sweep.DefaultRepeat,
		Notes: notesDefaults + notesDelay + notesQuicGo + "A grid of four fairness cases (Fig. 8b's and 8c's 5:1 points, Fig. 11b at 0 % and 2 % loss) and the queue limit of every link direction, " +
			"from 50 ms at the link's rate to 1000 packets (emu's default; 0.6 s at 20 Mbit/s, 1.8 s at 6.7 Mbit/s). The paper does not state its queue: this shows how far its fairness figures depend on it.",
	},
	{
		Name: presetNgtcp2QueueFairness, Title: "ngtcp2 fairness at high delay (delays sum to 200 ms, ratio 1:1) against the rate limiter's queue, NewReno and CUBIC",
		Figure: "queue-length sensitivity of Figs. 14b and 15b", Scenario: "fairness", Part: PartQueue,
		Settings: []string{"link.trace=none", "link.delay=100ms", paperDuration},
		Axes:     []results.Axis{sweep.MustVary(queues), sweep.Labeled(StackAxis, ngtcp2Reno, ngtcp2Cubic)},
		Grid:     true, Repeat: sweep.DefaultRepeat,
		Notes: notesDefaults + notesDelay + notesNgtcp2 +
			"A grid of the queue limit of every link direction and the two controllers, from 50 ms at the link's rate to 1000 packets (0.6 s at 20 Mbit/s), at Fig. 14b's and 15b's 1:1 point. " +
			"With 100 ms queues, half of each link's bandwidth-delay product at 200 ms, the single-link CUBIC clients overflow the queues every second or two and the DC client, whose packets sit in both, takes most of the losses: this shows how far the CUBIC starvation depends on the queue.",
	},
	{
		Name: presetJitter, Title: "throughput against the jitter model at high delay (delays sum to 200 ms), delay ratio 1:1 and 5:1",
		Figure: "jitter-model sensitivity of Figs. 9b and 13b", Scenario: "throughput", Part: PartJitter,
		Settings: []string{"link.trace=none", Queue, "link.delay=100ms", paperSize},
		Axes:     []results.Axis{jitterModels, sweep.MustVary("link.delay_ratio=1:1,5:1"), sweep.Labeled(StackAxis, quicLarge, ngtcp2Reno, tcpReno)},
		Grid:     true, Repeat: sweep.DefaultRepeat,
		Notes: notesDefaults + notesQueue + notesDelay + notesQuicGo + notesJitter +
			"A grid of the jitter model, two of Fig. 9b's delay ratios and three stacks (quic-go, ngtcp2 and TCP, all NewReno), one 50 MB download per run.",
	},
	{
		Name: presetJitterFairness, Title: "fairness against the jitter model at high delay (delays sum to 200 ms), delay ratio 1:1 and 5:1",
		Figure: "jitter-model sensitivity of Fig. 10b", Scenario: "fairness", Part: PartJitter,
		Settings: slices.Concat([]string{"link.trace=none"}, quicLarge.Set, []string{Queue, "link.delay=100ms", paperDuration}),
		Axes:     []results.Axis{jitterModels, sweep.MustVary("link.delay_ratio=1:1,5:1")},
		Grid:     true, Repeat: sweep.DefaultRepeat,
		Notes: notesDefaults + notesQueue + notesDelay + notesQuicGo + notesJitter +
			"A grid of the jitter model and two of Fig. 10b's delay ratios: a DC client and one single-link client on each link share the links for 60 s.",
	},
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
