package link

import (
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/emu/linkstats"
)

// SampleInterval is how often a run reads its rate limiters. The queueing
// delay measured from the readings can be off by at most twice the
// interval, and a queue shorter than the interval can never be proved
// saturated (package linkstats); at 10 ms both are within what a run
// reports, and a reading costs 22–31 µs of CPU.
const SampleInterval = 10 * time.Millisecond

// samplerPriority is the sampler thread's SCHED_FIFO priority: just below
// the packet loops' (nfq.RealtimePriority), so a delay line or PDCP proxy
// that wakes while the sampler reads runs first. The reading is stretched
// instead, which its Took records.
const samplerPriority = nfq.RealtimePriority - 1

// Sampler reads the rate limiter of every given direction every interval
// into a linkstats.Sample series per direction. It runs on one OS thread of
// its own, locked, real-time (below the packet loops) and sleeping to
// absolute deadlines epoch + k·interval: an ordinary goroutine on a ticker
// misses readings by tens of milliseconds on a busy machine, and every
// late reading widens the error of the figures taken from the series. Each
// reading is stamped with the middle of its two netlink dumps and how long
// they took (Sample.T, Sample.Took), and carries the rate in force.
type Sampler struct {
	dirs     []*Dir
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

func (s *Sampler) run() {
	defer close(s.done)
	restore, got, err := nfq.LockThreadPrecise(nfq.SchedRealtime)
	if err != nil {
		s.err = err
		close(s.started)
		return
	}
	defer restore()
	if got == nfq.SchedRealtime {
		// Below the packet loops; restore puts the thread back as it was.
		if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: samplerPriority}, 0); err != nil {
			s.err = err
			close(s.started)
			return
		}
	}
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

// round reads every direction once.
func (s *Sampler) round() {
	s.stats.Rounds++
	for i, d := range s.dirs {
		smp, err := s.read(d)
		if err != nil {
			s.stats.Failed++
			if s.stats.FirstError == nil {
				s.stats.FirstError = err
			}
			continue
		}
		if smp.Took > linkstats.MaxTook {
			s.stats.Slow++
		}
		s.stats.MaxTook = max(s.stats.MaxTook, smp.Took)
		s.add(i, smp)
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

// read takes one reading of d's rate limiter: its class and leaf counters
// (Shaper.Stats, two netlink dumps), stamped with the middle of the dumps
// and how long they took, and the rate in force.
func (s *Sampler) read(d *Dir) (linkstats.Sample, error) {
	t0 := time.Now()
	st, err := d.Shaper.Stats()
	t1 := time.Now()
	if err != nil {
		return linkstats.Sample{}, err
	}
	return linkstats.Sample{
		T: t0.Sub(s.epoch) + t1.Sub(t0)/2, Took: t1.Sub(t0),
		Bytes: st.Bytes, Packets: st.Packets, Backlog: st.BacklogBytes, Drops: st.Drops,
		Rate: d.Shaper.Rate(),
	}, nil
}
