package emu

import (
	"os"
	"time"

	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/network"
)

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
	network.Thread
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

func (p *probe) start(threads []network.Thread) {
	pid := os.Getpid()
	for _, t := range threads {
		tp := threadProbe{Thread: t}
		tp.a, tp.haveA = readThread(pid, t.TID)
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
		t.b, t.haveB = readThread(pid, t.TID)
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
