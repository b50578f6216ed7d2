package endpoint

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/internal/invoker"
)

// Objects. An objects client fetches GET /bytes/N for each object N of its
// schedule: in sequence (each when the previous one is done) or at Poisson
// arrival times (each when it is due, whether or not earlier ones are
// done), over one connection (objects that overlap are concurrent streams)
// or a new connection each. An object's completion time runs from the
// moment it was asked for (a new connection's set-up included) to its last
// byte. With resumption the flow's first connection fetches one byte to
// obtain a session ticket, and every measured connection resumes it; with
// 0-RTT the GET goes in the connection's first flight and the response
// comes as 0.5-RTT data.

// objectSchedule draws the sizes and start gaps of an objects flow from
// its seed; the same seed gives the same objects.
type objectSchedule struct {
	spec     workload.ObjectSpec
	arrivals workload.Arrivals
	csv      []int64 // workload.DistCSV: the sizes to draw from
	count    int     // objects in all; 0: until the window ends
	seed     uint64
	rng      *rand.Rand
	next     int
}

func (s *objectSchedule) newRand() *rand.Rand {
	return rand.New(rand.NewPCG(s.seed, s.seed^0x9e3779b97f4a7c15))
}

// first is the size of the schedule's first object, drawn from a copy so
// the schedule itself is unchanged.
func (s *objectSchedule) first() int64 {
	c := *s
	c.rng, c.next = s.newRand(), 0
	size, _ := c.take()
	return size
}

func newObjectSchedule(w *Workload, duration time.Duration) (*objectSchedule, error) {
	spec, arrivals, err := parseObjectWork(w, duration)
	if err != nil {
		return nil, err
	}
	s := &objectSchedule{spec: spec, arrivals: arrivals, count: w.Count, seed: w.Seed}
	s.rng = s.newRand()
	if spec.Dist == workload.DistCSV {
		data, err := invoker.ReadFile(spec.File) // the user's file, with the user's permissions
		if err != nil {
			return nil, fmt.Errorf("objects: %w", err)
		}
		if s.csv, err = workload.ParseSizesCSV(spec.File, data); err != nil {
			return nil, fmt.Errorf("objects: %w", err)
		}
	}
	if s.count == 0 && spec.Dist == workload.DistList {
		s.count = len(spec.Sizes)
	}
	return s, nil
}

// more reports whether another object is due.
func (s *objectSchedule) more() bool { return s.count == 0 || s.next < s.count }

// take returns the next object's size and, for Poisson arrivals, the gap
// before it starts (0 for the first object and for sequential arrivals).
func (s *objectSchedule) take() (size int64, gap time.Duration) {
	i := s.next
	s.next++
	switch s.spec.Dist {
	case workload.DistList:
		size = s.spec.Sizes[i%len(s.spec.Sizes)]
	case workload.DistFixed:
		size = s.spec.Size
	case workload.DistExp:
		size = clampSize(float64(s.spec.Size) * s.rng.ExpFloat64())
	case workload.DistLogNormal:
		size = clampSize(float64(s.spec.Size) * math.Exp(s.spec.Sigma*s.rng.NormFloat64()))
	case workload.DistCSV:
		size = s.csv[s.rng.IntN(len(s.csv))]
	}
	if s.arrivals.Kind == workload.ArrivalsPoisson && i > 0 {
		gap = time.Duration(float64(s.arrivals.Mean) * s.rng.ExpFloat64())
	}
	return size, gap
}

func clampSize(v float64) int64 {
	return int64(min(max(math.Round(v), 1), workload.MaxObjectSize))
}

// objectsRun is one objects client's state, shared by the fetches in flight.
type objectsRun struct {
	cfg  *ClientConfig
	m    *meter
	c    *connector
	work *results.FlowWorkload

	mu   sync.Mutex // also serialises the meter
	log  *results.ObjectsWriter
	rows []results.ObjectRow
	err  error
}

// runObjects fetches the flow's objects.
func runObjects(ctx context.Context, cfg *ClientConfig, m *meter, c *connector) (Result, error) {
	sched, err := newObjectSchedule(&cfg.Work, cfg.Duration)
	if err != nil {
		return Result{}, err
	}
	work := &results.FlowWorkload{Kind: string(KindObjects), Direction: "down"}
	run := &objectsRun{cfg: cfg, m: m, c: c, work: work}
	log, err := openKindLog(cfg.Work.KindLog, "objects log", results.NewObjectsWriter)
	if err != nil {
		return Result{}, err
	}
	run.log = log.w
	err = log.close(run.run(ctx, sched))
	r := workResult(m, c, work)
	var fcts []float64
	complete := 0
	for _, row := range run.rows {
		if row.Complete() {
			complete++
			fcts = append(fcts, row.FCT.Seconds())
		}
	}
	if st, ok := results.SummarizeDelays(fcts); ok {
		work.FCTS = &st
	}
	if err == nil && m.windowEnd.IsZero() && complete < len(run.rows) {
		err = fmt.Errorf("%d of %d objects complete", complete, len(run.rows))
	}
	r.Complete = err == nil
	return r, err
}

func (run *objectsRun) run(ctx context.Context, sched *objectSchedule) error {
	ctx, cancel := windowContext(ctx, run.m)
	defer cancel()
	if err := resumeFirst(ctx, run.c, run.work, sched.first()); err != nil {
		return loopEnd(ctx, err)
	}
	// The first object is asked for when the flow's connection is: its
	// completion time includes the set-up, whether or not it is shared.
	first := time.Now()
	shared, err := run.c.sharedConn(ctx)
	if err != nil {
		return loopEnd(ctx, err)
	}
	if shared != nil {
		defer shared.close()
	}
	if sched.arrivals.Kind == workload.ArrivalsSeq {
		for i := 0; sched.more() && ctx.Err() == nil; i++ {
			size, _ := sched.take()
			start := time.Now()
			if i == 0 {
				start = first
			}
			if err := run.fetch(ctx, shared, i, size, start); err != nil {
				return loopEnd(ctx, err)
			}
		}
		return loopEnd(ctx, nil)
	}
	var wg sync.WaitGroup
	timer := time.NewTimer(0)
	defer timer.Stop()
	at := first
	for i := 0; sched.more(); i++ {
		size, gap := sched.take()
		at = at.Add(gap)
		timer.Reset(time.Until(at))
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		if ctx.Err() != nil {
			break
		}
		due := at
		wg.Go(func() {
			if err := run.fetch(ctx, shared, i, size, due); err != nil {
				run.mu.Lock()
				if run.err == nil {
					run.err = err
				}
				run.mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	return loopEnd(ctx, run.err)
}

// fetch gets object i of size bytes, asked for at start, on shared or on
// a new connection, and records it (also when it failed or the window
// ended before its last byte). The first object on a shared connection
// carries its set-up.
func (run *objectsRun) fetch(ctx context.Context, shared *hconn, i int, size int64, start time.Time) error {
	row := results.ObjectRow{Index: i, Size: size, Start: run.m.since(start), NewConn: i == 0}
	h := shared
	var ferr error
	var resumed, zeroRTT bool
	if h == nil {
		var err error
		if h, err = run.c.dial(ctx); err != nil {
			ferr = describeWork(err, run.cfg, run.c.addr, run.m.bytes.Load())
			row.NewConn = false
		} else {
			defer h.close()
			row.NewConn = true
		}
	}
	var last time.Time
	if ferr == nil {
		resp, err := run.c.get(ctx, h, size)
		if err == nil {
			row.Bytes, last, err = run.readObject(resp.Body)
			resp.Body.Close()
			row.Fallback = fellBack(resp) // the trailer is in once the body has ended
		}
		if err != nil {
			ferr = describeWork(err, run.cfg, run.c.addr, run.m.bytes.Load())
		}
		if row.NewConn {
			row.Handshake, resumed, zeroRTT = h.setup(ctx)
			row.Resumed, row.ZeroRTT = resumed, zeroRTT
		}
	}
	if last.IsZero() {
		last = time.Now()
	}
	row.FCT = last.Sub(start)
	if ferr == nil && row.Bytes != size {
		ferr = fmt.Errorf("object %d: %d of %d bytes", i, row.Bytes, size)
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if row.NewConn {
		run.work.Resume.Note(resumed, zeroRTT)
	}
	if row.Fallback {
		noteFallback(run.work.Resume)
	}
	run.rows = append(run.rows, row)
	if run.log != nil {
		run.log.Write(row)
	}
	if ctx.Err() != nil {
		return nil // the window ended or the caller stopped: end says which
	}
	return ferr
}

// readObject reads an object's body, counting what arrives within the
// window; it returns the bytes and the time of the last one.
func (run *objectsRun) readObject(body io.Reader) (int64, time.Time, error) {
	var buf [64 << 10]byte
	var got int64
	var last time.Time
	for {
		n, err := body.Read(buf[:])
		if n > 0 {
			now := time.Now()
			run.mu.Lock()
			in := run.m.add(n, now)
			run.mu.Unlock()
			if !in {
				return got, last, nil
			}
			got, last = got+int64(n), now
		}
		if err == io.EOF {
			return got, last, nil
		}
		if err != nil {
			return got, last, err
		}
	}
}
