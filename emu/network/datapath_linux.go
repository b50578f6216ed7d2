package network

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/pdcp"
	"github.com/dc-emu/emu/topo"
)

// NFQUEUE numbers. Queues are per namespace; these are the numbers inside
// the gateways: the delay line of link i's incoming direction is 10+i.
const queueDelayBase = 10

// prioDelay is the gateways' prerouting hook priority of the delay lines:
// they emulate the link the packet just crossed, so they come first.
const prioDelay = -300

// prioPEP is the PEP's tproxy chain's, an ip-family table of its own in
// gws.
const prioPEP = -200

// gatewayPlan is the nftables chains of one gateway's delay-line queues.
type gatewayPlan struct {
	node   *topo.NodeNS
	chains []nft.Chain
}

// startDatapath installs the queue rules in the gateways and starts the
// delay lines and the PDCP proxies.
func (e *Emulation) startDatapath(ctx context.Context, o Options) error {
	gws, _ := e.Net.Node("gws")
	gwc, _ := e.Net.Node("gwc")
	plans := map[string]*gatewayPlan{"gws": {node: gws}, "gwc": {node: gwc}}

	// Delay lines: a packet is delayed where it arrives, i.e. downlink in
	// gwc and uplink in gws, on the link's interface.
	for _, d := range e.dirs {
		if !d.NeedsDelayLine() && !o.ForceDelayLine {
			continue
		}
		at := plans["gwc"]
		if d.Up {
			at = plans["gws"]
		}
		q := uint16(queueDelayBase + d.Link)
		at.chains = appendRule(at.chains, "delay", prioDelay, nft.QueueRule{IIf: fmt.Sprintf("l%d", d.Link+1), Queue: q})
		if err := d.StartDelayLine(at.node, q, e.Config.Seed); err != nil {
			return err
		}
		e.goLoop(d.Name+" delay line", d.WaitDelayLine)
		e.Backends["delay"] = "nfqueue delay line"
	}

	if e.Config.DC.Enabled && e.hasDCClient() {
		if err := e.startBatchPath(); err != nil {
			return err
		}
		e.warnWindow(o)
	}

	// Rules go in after the queues are bound, so no packet is queued to a
	// queue nobody reads.
	for _, name := range []string{"gws", "gwc"} {
		p := plans[name]
		if len(p.chains) == 0 {
			continue
		}
		b, err := nft.Apply(int(p.node.NS), "emu", p.chains)
		if err != nil {
			return fmt.Errorf("%s: queue rules: %w", p.node.NSName, err)
		}
		e.Backends["queue_rules"] = b.String()
	}
	e.updateSchedulers()
	if len(e.proxies) > 0 && e.set.usesScheduler(pdcp.KindSmallestDelay) {
		e.goLoop("pdcp queue state", e.trackQueues)
	}
	e.loopPs = e.packetLoops() + 1 // and a run's link sampler (link.Sampler)
	if e.set.pdcp.FlowControl.Enabled() && len(e.proxies) > 0 {
		e.loopPs++ // flow control's leg reader, locked to its thread too
	}
	reservePs(e.loopPs)
	return nil
}

// packetLoops counts the loops locked to their own threads.
func (e *Emulation) packetLoops() int {
	n := 0
	for _, d := range e.dirs {
		if d.Loop != nil {
			n++
		}
	}
	return n
}

// reservePs raises GOMAXPROCS so that every packet loop finds an idle P
// when it wakes: a loop locked to its thread needs a P to run Go code, and
// with only as many Ps as CPUs a woken loop can wait behind goroutines the
// OS has descheduled, adding that wait to every packet it releases.
//
// The count is of every emulation of the process (a sweep with --jobs runs
// several): GOMAXPROCS is the process's, so the loops it must leave room
// for are too. It is never lowered (that stops the world, and spare Ps
// cost nothing).
func reservePs(loops int) {
	livePs.Lock()
	defer livePs.Unlock()
	livePs.loops += loops
	if want := runtime.NumCPU() + livePs.loops + 1; runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

// releasePs forgets the loops of an emulation that closed.
func releasePs(loops int) {
	livePs.Lock()
	defer livePs.Unlock()
	livePs.loops -= loops
}

// livePs counts the packet loops of the process's live emulations; it is
// package state because GOMAXPROCS, which it sizes, is process state.
var livePs struct {
	sync.Mutex
	loops int
}

// appendRule adds a rule to the named chain, creating the chain.
func appendRule(chains []nft.Chain, name string, prio int, r nft.QueueRule) []nft.Chain {
	for i := range chains {
		if chains[i].Name == name {
			chains[i].Rules = append(chains[i].Rules, r)
			return chains
		}
	}
	return append(chains, nft.Chain{Name: name, Hook: nft.Prerouting, Priority: prio, Rules: []nft.QueueRule{r}})
}

func (e *Emulation) hasDCClient() bool {
	for _, n := range e.Net.Spec.Nodes {
		if n.Path == config.PathDC {
			return true
		}
	}
	return false
}

// warnWindow says when the configured rates can overrun the 12-bit SN
// window during a reordering stall (pdcp-reordering.md §6).
func (e *Emulation) warnWindow(o Options) {
	var peak float64
	for _, d := range e.dirs {
		if d.Up {
			continue
		}
		r := d.Shape.Rate
		if d.Player != nil {
			r = d.Player.Trace.Stats().Down.Max * 1e6
		}
		peak += r
	}
	if msg, warn := windowWarning(peak, e.set.pdcp); warn {
		e.Warnings = append(e.Warnings, msg)
		fmt.Fprintln(o.Log, "emu: warning:", msg)
	}
}

// windowWarning is pdcp's warning of a receive window the DC traffic can
// overflow at peak (bit/s), with the remedy in the keys' names.
func windowWarning(peak float64, c pdcpSettings) (string, bool) {
	msg, warn := pdcp.WindowWarning(peak, c.TReordering, c.SNBits, 1500)
	if !warn {
		return "", false
	}
	fix := "set dc.sn_bits=18 or lower dc.t_reordering"
	if c.SNBits == pdcp.SNBits18 {
		fix = "lower dc.t_reordering or the rate"
	}
	return "dc: " + msg + "; " + fix, true
}

// updateSchedulers tells the transmit proxies the links' current rates and
// delays (adaptive, smallest-delay and active-standby use them).
func (e *Emulation) updateSchedulers() {
	for _, pp := range e.proxies {
		for _, d := range e.dirs {
			if d.Up != (pp.direction() == "up") {
				continue
			}
			pp.setLink(d.Link, pdcp.LinkState{RateBps: d.Shaper.Rate(), Delay: d.Delay()})
		}
	}
}

// PDCPDirs names the PDCP directions in use, in the order of PDCPBuffered.
func (e *Emulation) PDCPDirs() []string {
	var out []string
	for _, pp := range e.proxies {
		out = append(out, pp.direction())
	}
	return out
}

// PDCPBuffered returns how many packets each receive proxy holds now.
func (e *Emulation) PDCPBuffered() []int {
	var out []int
	for _, pp := range e.proxies {
		out = append(out, pp.buffered())
	}
	return out
}

// PDCPCredit returns, for each PDCP direction in PDCPDirs' order, each
// leg's flow-control credit now in bytes, nil for a direction without
// flow control.
func (e *Emulation) PDCPCredit() [][]int {
	var out [][]int
	for _, pp := range e.proxies {
		var c []int
		if cr, ok := pp.credit(); ok {
			c = cr[:]
		}
		out = append(out, c)
	}
	return out
}

// PDCP returns the proxies' counters by direction.
func (e *Emulation) PDCP() map[string]results.PDCPCounters {
	out := map[string]results.PDCPCounters{}
	for _, pp := range e.proxies {
		out[pp.direction()] = pp.counters()
	}
	return out
}

// pdcpCounters are the counters of pdcp's sender and receiver of one
// direction, as the results report them.
func pdcpCounters(tx pdcp.TxCounters, rx pdcp.RxCounters) results.PDCPCounters {
	ms := func(d time.Duration) float64 { return results.Round3(float64(d) / 1e6) }
	return results.PDCPCounters{
		TxLink1: tx.Link[0], TxLink2: tx.Link[1],
		Received: rx.Received, Delivered: rx.Delivered, Reordered: rx.Reordered, Held: rx.Held,
		ExpiredDeliveries: rx.DeliveredOnExpiry, Expiries: rx.Expiries, GivenUp: rx.GivenUp,
		DuplicatesDiscarded: rx.DuplicatesDiscarded, OutOfWindow: rx.OldDiscarded,
		MaxBuffer: rx.MaxBuffered,
		HoldMs: map[string]float64{
			"mean": ms(rx.HoldTime.Mean()), "p50": ms(rx.HoldTime.Quantile(0.5)),
			"p95": ms(rx.HoldTime.Quantile(0.95)), "p99": ms(rx.HoldTime.Quantile(0.99)), "max": ms(rx.HoldTime.Max),
		},
	}
}

// closeDatapath stops the delay lines and proxies (their loops have seen
// the context end) and releases their queues.
func (e *Emulation) closeDatapath() {
	releasePs(e.loopPs)
	e.loopPs = 0
	for _, d := range e.dirs {
		d.Close()
	}
}

// LinkCounters returns each direction's counters, for counters.json.
func (e *Emulation) LinkCounters() map[string]results.LinkCounters {
	out := map[string]results.LinkCounters{}
	for _, d := range e.dirs {
		out[d.Name] = d.Counters()
	}
	return out
}
