package emu

import (
	"fmt"
	"os"
	"time"

	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/linkstats"
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
	series           [][]linkstats.Sample   // per direction of em.dirs, after stop
	queue            []linkstats.QueueDelay // per direction, from series (linkResults)
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
		s, err := link.StartSampler(r.em.dirs, r.em.Epoch, link.SampleInterval)
		if err != nil {
			m.warnings = append(m.warnings, fmt.Sprintf("link sampler: %v: no link figures", err))
		}
		m.sampler = s
		m.probe.start(r.em.packetThreads())
		if s != nil {
			m.probe.sampler = threadProbe{namedThread: namedThread{"link sampler", s.TID()}}
			m.probe.sampler.a, m.probe.sampler.haveA = readThread(os.Getpid(), s.TID())
		}
	}
	if !m.stopped {
		m.pdcp = append(m.pdcp, pdcpSample{T: now.Sub(r.em.Epoch), PDCP: r.em.pdcpBuffered()})
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
		sp.b, sp.haveB = readThread(os.Getpid(), sp.tid)
		m.series, m.sampling = m.sampler.Stop()
		st := m.sampling
		if st.Failed > 0 {
			m.warnings = append(m.warnings, fmt.Sprintf("link sampler: %d of %d readings failed, first: %v", st.Failed, st.Rounds*len(r.em.dirs), st.FirstError))
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

func pidOf(p *process) int {
	if p == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// namedThread is one of the emulator's own packet threads.
type namedThread struct {
	name string
	tid  int
}

// packetThreads lists the emulator's threads whose scheduling the verdict
// judges: the delay lines and the PDCP proxies. The link sampler is not
// among them: a reading it takes late says so itself (Sample.Took) and is
// left out of the figures, so its wait does not make the run's figures
// wrong; counters.json reports it.
func (e *Emulation) packetThreads() []namedThread {
	var out []namedThread
	for _, d := range e.dirs {
		if d.Loop != nil && d.Loop.TID() != 0 {
			out = append(out, namedThread{"delay " + d.Name, d.Loop.TID()})
		}
	}
	for _, pp := range e.proxies {
		if tid := pp.tx.TID(); tid != 0 {
			out = append(out, namedThread{"pdcp tx " + pp.dir, tid})
		}
		if tid := pp.rx.TID(); tid != 0 {
			out = append(out, namedThread{"pdcp rx " + pp.dir, tid})
		}
	}
	return out
}

// probe holds the readings of threads, processes and the host taken at
// the start of the measurements and what they came to at the end.
type probe struct {
	threads []threadProbe
	sampler threadProbe // the link sampler's thread, for counters.json
	host    procstat.Host
	hostOK  bool
	softirq map[int]procstat.Reading // ksoftirqd by pid, at the start
	flows   []flowProbe
	// At the end:
	steal       float64
	stealOK     bool
	softirqWait time.Duration
	softirqOK   bool
}

type threadProbe struct {
	namedThread
	a, b         procstat.Reading
	haveA, haveB bool
}

// flowProbe is a flow's endpoint processes: server and client.
type flowProbe struct {
	procs    [2]procProbe
	lastRead time.Time
	done     bool
}

type procProbe struct {
	pid          int
	a, b         procstat.Reading
	haveA, haveB bool
}

// endpointRoles names flowProbe.procs.
var endpointRoles = [2]string{"server", "client"}

// flowReadEvery is how often progress reports refresh a flow's last
// readings: reading a process is a few file reads per thread.
const flowReadEvery = 250 * time.Millisecond

func (p *probe) start(threads []namedThread) {
	pid := os.Getpid()
	for _, t := range threads {
		tp := threadProbe{namedThread: t}
		tp.a, tp.haveA = readThread(pid, t.tid)
		p.threads = append(p.threads, tp)
	}
	if h, err := procstat.ReadHost(); err == nil {
		p.host, p.hostOK = h, true
	}
	if pids, err := procstat.Ksoftirqd(); err == nil {
		p.softirq = map[int]procstat.Reading{}
		for _, k := range pids {
			if rd, ok := readThread(k, k); ok {
				p.softirq[k] = rd
			}
		}
	}
}

func (p *probe) end() {
	pid := os.Getpid()
	for i := range p.threads {
		t := &p.threads[i]
		t.b, t.haveB = readThread(pid, t.tid)
	}
	if p.hostOK {
		if h, err := procstat.ReadHost(); err == nil {
			p.steal, p.stealOK = hostSteal(p.host, h), true
		}
	}
	if p.softirq != nil {
		end := map[int]procstat.Reading{}
		for k := range p.softirq {
			if rd, ok := readThread(k, k); ok {
				end[k] = rd
			}
		}
		p.softirqWait, p.softirqOK = softirqMeanWait(p.softirq, end)
	}
}

func (p *probe) flowStarted(i, serverPID, clientPID int) {
	if i >= len(p.flows) {
		return
	}
	f := &p.flows[i]
	for r, pid := range [2]int{serverPID, clientPID} {
		if pid == 0 {
			continue
		}
		pp := &f.procs[r]
		pp.pid = pid
		if rd, err := procstat.ReadProcess(pid); err == nil {
			pp.a, pp.haveA = rd, true
		}
	}
	f.lastRead = time.Now()
}

// flowRead takes new last readings of flow i's endpoints; a reading that
// fails (the process has exited) keeps the one before.
func (p *probe) flowRead(i int, at time.Time, done bool) {
	if i >= len(p.flows) {
		return
	}
	f := &p.flows[i]
	if f.done || !done && at.Sub(f.lastRead) < flowReadEvery {
		return
	}
	f.lastRead, f.done = at, done
	for r := range f.procs {
		pp := &f.procs[r]
		if !pp.haveA {
			continue
		}
		if rd, err := procstat.ReadProcess(pp.pid); err == nil {
			pp.b, pp.haveB = rd, true
		}
	}
}

func readThread(pid, tid int) (procstat.Reading, bool) {
	rd, err := procstat.ReadThread(pid, tid)
	return rd, err == nil
}
