package network

import (
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/pdcp"
)

// compiled is what the network's components take, compiled once from a
// validated configuration (as quic-go's populateConfig fills its Config
// once): each component gets a plain configuration of its own, named in
// its own fields, and none of them reads config.Config. The configuration
// holds its values parsed (config: dc.split is a pdcp.Split from the
// moment it is set), so compiling only moves them; the components check
// their own ranges when they are built, with errors config.Validate has
// already turned into the keys' names for the user. The run compiles the
// endpoints' share (package emu).
type compiled struct {
	// links are the two links' directions: links[i][0] is link i+1's
	// downlink, links[i][1] its uplink.
	links [2][2]link.Shape
	// pdcp is the DC client's proxies' configuration.
	pdcp pdcpSettings
	// dc runs the PDCP proxies for the DC clients (dc.enabled).
	dc bool
	// steered are the flows over DC with a PDCP scheduler of their own.
	steered []steeredFlow
	// pep is the split-TCP proxy's, when enabled.
	pep *pepConfig
	// rtCPUs are the real-time threads' CPUs (run.rt_cpus); none: any.
	rtCPUs []int
}

// pepConfig is the split-TCP proxy's: its satellite side's congestion
// control ("" the kernel's) and initial window (0 the kernel's), and each
// socket's buffers (0 autotuned).
type pepConfig struct {
	cc       string
	initCwnd int
	buffer   int
}

// steeredFlow is a flow with its own PDCP entity: its index in the
// configuration's flows and its scheduler.
type steeredFlow struct {
	flow  int
	sched pdcp.SchedulerConfig
}

// compile turns a validated configuration into the network components'
// settings.
func compile(cfg *config.Config) compiled {
	s := compiled{
		pdcp: pdcpSettings{Sched: cfg.DC.Sched, SNBits: cfg.DC.SNBits, TReordering: cfg.DC.TReordering, FlowControl: cfg.FlowControl()},
		dc:   cfg.DC.Enabled,
	}
	s.rtCPUs = cfg.RTCPUs
	for i, l := range cfg.Links {
		s.links[i] = [2]link.Shape{linkShape(l.Down), linkShape(l.Up)}
		// The PDUs cross the links in UDP, which the air does not
		// carry: downlink always, uplink when it is split.
		if s.dc {
			s.links[i][0].Encap = link.EncapUDP
			if cfg.DC.Uplink == "split" {
				s.links[i][1].Encap = link.EncapUDP
			}
		}
	}
	if p := cfg.PEP; p.Enabled {
		s.pep = &pepConfig{cc: p.CC, initCwnd: p.InitCwnd, buffer: int(p.Buffer)}
	}
	for i, f := range cfg.Flows {
		if f.Path == config.PathDC && f.Steered() {
			s.steered = append(s.steered, steeredFlow{flow: i, sched: cfg.FlowScheduler(i)})
		}
	}
	return s
}

// pdcpSettings is what the proxies of one direction take: the DC
// client's scheduler (its zero fields are pdcp's defaults) and the SN
// length and t-Reordering both halves share. Its errors are pdcp's,
// naming these fields.
type pdcpSettings struct {
	Sched       pdcp.SchedulerConfig
	SNBits      int
	TReordering time.Duration
	// FlowControl is the downlink's flow control (zero: off).
	FlowControl pdcp.FlowControlConfig
}

// linkShape is a direction's shape as package link takes it.
func linkShape(s config.Shape) link.Shape {
	return link.Shape{
		Rate:  s.Rate,
		Queue: link.QueueLimit{Packets: s.Queue.Packets, Bytes: s.Queue.Bytes, Time: s.Queue.Time},
		Delay: s.Delay, Jitter: s.Jitter.Abs, JitterCV: s.Jitter.CV, JitterCorr: s.JitterCorr,
		Reorder: s.Reorder, Loss: s.Loss,
		Bursts: delayline.GilbertElliott{P: s.Bursts.P, R: s.Bursts.R, BadLoss: s.Bursts.BadLoss, GoodLoss: s.Bursts.GoodLoss},
	}
}

// usesScheduler reports whether the run's DC scheduler, or that of a flow
// steered over DC, is kind.
func (s *compiled) usesScheduler(kind string) bool {
	if s.pdcp.Sched.WithDefaults().Kind == kind {
		return true
	}
	for _, f := range s.steered {
		if f.sched.WithDefaults().Kind == kind {
			return true
		}
	}
	return false
}
