package emu

import (
	"fmt"
	"os"
	"time"

	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
)

// measure is what a run measures beside its flows: the rate limiters'
// series (link.Sampler, every 10 ms), the PDCP buffers (every 100 ms, when
// the run loop asks for a sample), and the readings behind the fidelity
// verdict. Measuring starts with the first sample the run loop asks for
// (its flows stage) and stops with the run's outcome (runloop.Stop).
// Everything in it belongs to the run loop's goroutine.
type measure struct {
	sampler          *link.Sampler
	started, stopped bool
	series           [][]linkstats.Sample // per direction of em.Dirs(), after stop
	sampling         link.SamplerStats
	pdcp             []pdcpSample
	probe            probe
	warnings         []string
}

// sample is the run loop's SampleLinks: it starts measuring the first time
// and records the PDCP buffers.
func (r *runner) sample(now time.Time) {
	m := &r.meas
	if !m.started {
		m.started = true
		s, err := link.StartSampler(r.em.Dirs(), r.em.Epoch, link.SampleInterval)
		if err != nil {
			m.warnings = append(m.warnings, fmt.Sprintf("link sampler: %v: no link figures", err))
		}
		m.sampler = s
		m.probe.start(r.em.PacketThreads())
		if s != nil {
			m.probe.sampler = threadProbe{Thread: network.Thread{Name: "link sampler", TID: s.TID()}}
			m.probe.sampler.a, m.probe.sampler.haveA = readThread(os.Getpid(), s.TID())
		}
	}
	if !m.stopped {
		m.pdcp = append(m.pdcp, pdcpSample{T: now.Sub(r.em.Epoch), PDCP: r.em.PDCPBuffered(), Credit: r.em.PDCPCredit()})
	}
}

// stopMeasuring ends the measurements when the run's outcome is decided:
// the threads are read while they still run, then the sampler takes its
// last reading. Idempotent.
func (r *runner) stopMeasuring() {
	m := &r.meas
	if !m.started || m.stopped {
		return
	}
	m.stopped = true
	m.probe.end()
	if m.sampler != nil {
		sp := &m.probe.sampler
		sp.b, sp.haveB = readThread(os.Getpid(), sp.TID)
		m.series, m.sampling = m.sampler.Stop()
		st := m.sampling
		if st.Failed > 0 {
			m.warnings = append(m.warnings, fmt.Sprintf("link sampler: %d of %d readings failed, first: %v", st.Failed, st.Rounds*len(r.em.Dirs()), st.FirstError))
		}
		if st.Missed > 0 || st.Slow > 0 {
			m.warnings = append(m.warnings, fmt.Sprintf("link sampler: %d readings missed their deadline and %d took over %v (longest %v): the queueing delay figures are less exact around them",
				st.Missed, st.Slow, linkstats.MaxTook, st.MaxTook.Round(time.Microsecond)))
		}
	}
}

// samplerCounters says how the link sampler did, for counters.json; nil
// when the run had none.
func (r *runner) samplerCounters() *results.SamplerCounters {
	m := &r.meas
	if m.sampler == nil || !m.stopped {
		return nil
	}
	st := m.sampling
	c := &results.SamplerCounters{IntervalMs: ms(link.SampleInterval), Rounds: st.Rounds, Missed: st.Missed,
		Failed: st.Failed, Slow: st.Slow, MaxTookUs: results.Round3(float64(st.MaxTook) / 1e3)}
	if sp := m.probe.sampler; sp.haveA && sp.haveB {
		u := procstat.Between(sp.a, sp.b)
		c.CPU, c.Wait, c.MeanWaitUs = u.CPU, u.Wait, results.Round3(float64(u.MeanWait)/1e3)
		if st.Rounds > 0 {
			c.CPUPerRoundUs = results.Round3(u.CPU * float64(u.Wall) / 1e3 / float64(st.Rounds))
		}
	}
	return c
}

// flowStarted takes the first readings of flow i's endpoint processes,
// when its client has just been started.
func (r *runner) flowStarted(i int) {
	p := &r.meas.probe
	if p.flows == nil {
		p.flows = make([]flowProbe, len(r.cfg.Flows))
	}
	p.flowStarted(i, pidOf(r.servers[i]), pidOf(r.clients[i]))
}

// observe follows what the endpoints report: each progress report (at
// most every 250 ms) and the done report take a new last reading of the
// flow's endpoints, so the flow's CPU covers it up to its end.
func (r *runner) observe(ev runloop.Event) {
	switch ev.Kind {
	case runloop.ClientProgress:
		r.meas.probe.flowRead(ev.Flow, ev.At, false)
	case runloop.ClientDone:
		r.meas.probe.flowRead(ev.Flow, ev.At, true)
	}
}
