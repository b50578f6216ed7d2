package link

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/topo"
)

// SampleInterval is how often a run reads its rate limiters. The queueing
// delay measured from the readings can be off by at most twice the
// interval, and a queue shorter than the interval can never be proved
// saturated (package linkstats); at 10 ms both are within what a run
// reports. A round of readings is one qdisc dump per gateway: 40–81 µs of
// the sampler thread's CPU for the four directions of a run, 0.4–0.8 % of
// a core (TestFidelitySamplerAgreesWithShaperStats, TestFidelityQuietRunFidelity, on the
// 2-core development VM while other work loaded it; a class and a leaf
// dump per direction through vishvananda/netlink took 370–410 µs per
// round, 4 % of a core, there).
const SampleInterval = 10 * time.Millisecond

// Sampler reads the rate limiter of every given direction every interval
// into a linkstats.Sample series per direction. It runs on one OS thread of
// its own, locked, real-time (below the packet loops) and sleeping to
// absolute deadlines epoch + k·interval: an ordinary goroutine on a ticker
// misses readings by tens of milliseconds on a busy machine, and every
// late reading widens the error of the figures taken from the series. A
// reading is one qdisc dump per gateway namespace, which gives every
// direction leaving that gateway (qdiscdump.go); each is stamped with the
// middle of its dump and how long the dump took (Sample.T, Sample.Took),
// and carries the rate in force.
type Sampler struct {
	dirs     []*Dir
	groups   []sampleGroup
	epoch    time.Time
	interval time.Duration

	quit    atomic.Bool
	tid     atomic.Int32
	started chan struct{}
	done    chan struct{}

	// Owned by the sampling thread until done is closed.
	series [][][]linkstats.Sample // per direction, in chunks
	stats  SamplerStats
	err    error
}

// SamplerStats says how the sampling went.
type SamplerStats struct {
	// Rounds is how many times every direction was read, Missed how many
	// deadlines were skipped because a round ended after the next one.
	Rounds, Missed int
	// Failed counts readings of one direction the kernel refused (left
	// out of the series), FirstError the first such error.
	Failed     int
	FirstError error
	// Slow counts readings that took longer than linkstats.MaxTook (kept
	// in the series; linkstats leaves them out), MaxTook is the longest.
	Slow    int
	MaxTook time.Duration
}

// sampleGroup is the directions whose rate limiters sit in one namespace,
// read with one dump.
type sampleGroup struct {
	dumper  *qdiscDumper
	dirs    []int // indices into Sampler.dirs
	ifindex []int
	counts  []qdiscCounts
}

// sampleChunk is how many readings a series grows by at once, so the
// sampling thread never copies a long series (a 180 s run read every 10 ms
// is 18,000 readings per direction).
const sampleChunk = 4096

// StartSampler starts reading dirs every interval, the first reading at
// once, with times since epoch. Stop ends it.
func StartSampler(dirs []*Dir, epoch time.Time, interval time.Duration) (*Sampler, error) {
	if interval <= 0 {
		return nil, errors.New("link: sampler interval must be positive")
	}
	s := &Sampler{dirs: dirs, epoch: epoch, interval: interval, started: make(chan struct{}), done: make(chan struct{}),
		series: make([][][]linkstats.Sample, len(dirs))}
	byNode := map[*topo.NodeNS]int{}
	for i, d := range dirs {
		g, ok := byNode[d.Shaper.node]
		if !ok {
			q, err := openQdiscDumper(d.Shaper.node)
			if err != nil {
				s.closeDumpers()
				return nil, err
			}
			g = len(s.groups)
			byNode[d.Shaper.node] = g
			s.groups = append(s.groups, sampleGroup{dumper: q})
		}
		s.groups[g].dirs = append(s.groups[g].dirs, i)
		s.groups[g].ifindex = append(s.groups[g].ifindex, d.Shaper.link.Attrs().Index)
		s.groups[g].counts = append(s.groups[g].counts, qdiscCounts{})
	}
	go s.run()
	<-s.started
	if s.err != nil {
		<-s.done
		return nil, s.err
	}
	return s, nil
}

// TID is the id of the sampler's OS thread, for procstat.ReadThread.
func (s *Sampler) TID() int { return int(s.tid.Load()) }

// Stop takes a last reading of every direction, ends the sampler and
// returns the series, one per direction in the order given to
// StartSampler, and how the sampling went. It waits at most one interval.
func (s *Sampler) Stop() ([][]linkstats.Sample, SamplerStats) {
	s.quit.Store(true)
	<-s.done
	out := make([][]linkstats.Sample, len(s.series))
	for i, chunks := range s.series {
		n := 0
		for _, c := range chunks {
			n += len(c)
		}
		out[i] = make([]linkstats.Sample, 0, n)
		for _, c := range chunks {
			out[i] = append(out[i], c...)
		}
	}
	return out, s.stats
}

func (s *Sampler) closeDumpers() {
	for _, g := range s.groups {
		g.dumper.close()
	}
}

func (s *Sampler) run() {
	defer close(s.done)
	defer s.closeDumpers()
	restore, _, err := nfq.LockThreadPriority(nfq.SchedRealtime, rtsched.PlayerPriority)
	if err != nil {
		s.err = err
		close(s.started)
		return
	}
	defer restore()
	s.tid.Store(int32(procstat.TID()))
	_ = procstat.NameThread("emu sampler") // a name is a convenience
	// Absolute deadlines on CLOCK_MONOTONIC, the clock behind time.Now's
	// monotonic reading: deadline k is epoch + k·interval.
	var mono unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono); err != nil {
		s.err = err
		close(s.started)
		return
	}
	monoEpoch := time.Duration(mono.Nano()) - time.Since(s.epoch)
	close(s.started)

	k := time.Since(s.epoch) / s.interval
	s.round()
	for !s.quit.Load() {
		// The next deadline still ahead; a late round skips the missed ones
		// rather than reading in a burst.
		next := k + 1
		if el := time.Since(s.epoch); el >= next*s.interval {
			skip := el/s.interval + 1
			s.stats.Missed += int(skip - next)
			next = skip
		}
		k = next
		ts := unix.NsecToTimespec(int64(monoEpoch + k*s.interval))
		for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
		}
		s.round()
	}
	s.round() // the last reading, after Stop
}

// round reads every direction once: one dump per namespace.
func (s *Sampler) round() {
	s.stats.Rounds++
	for gi := range s.groups {
		g := &s.groups[gi]
		t0 := time.Now()
		err := g.dumper.dump(htbHandle, g.ifindex, g.counts)
		t1 := time.Now()
		took := t1.Sub(t0)
		for j, di := range g.dirs {
			c, failed := g.counts[j], err
			if failed == nil && !c.found {
				failed = fmt.Errorf("%s: no rate limiter on %s in the dump", g.dumper.node.NSName, s.dirs[di].Shaper.link.Attrs().Name)
			}
			if failed != nil {
				s.stats.Failed++
				if s.stats.FirstError == nil {
					s.stats.FirstError = failed
				}
				continue
			}
			if took > linkstats.MaxTook {
				s.stats.Slow++
			}
			s.stats.MaxTook = max(s.stats.MaxTook, took)
			var peak time.Duration
			if lp := s.dirs[di].Loop; lp != nil {
				peak = lp.TakeLatePeak()
			}
			s.add(di, linkstats.Sample{
				T: t0.Sub(s.epoch) + took/2, Took: took,
				Bytes: c.Bytes, Packets: c.Packets, Header: s.dirs[di].Shaper.Header(), Backlog: c.Backlog, Queued: c.Qlen, Drops: c.Drops,
				Rate: s.dirs[di].Shaper.Rate(), LatePeak: peak,
			})
		}
	}
}

func (s *Sampler) add(i int, smp linkstats.Sample) {
	chunks := s.series[i]
	if len(chunks) == 0 || len(chunks[len(chunks)-1]) == cap(chunks[len(chunks)-1]) {
		chunks = append(chunks, make([]linkstats.Sample, 0, sampleChunk))
	}
	last := &chunks[len(chunks)-1]
	*last = append(*last, smp)
	s.series[i] = chunks
}
