package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// Runner does one run: it builds the network of cfg, runs its flows, writes
// a complete run directory at out (which it may create) and returns the
// run's summary, also when the run failed (status failed) or was
// interrupted because ctx ended (status interrupted). The CLI passes emu.Run.
// With Options.Jobs above one it is called from several goroutines at once,
// for different runs.
type Runner func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error)

// Options tune Execute.
type Options struct {
	// Shard selects the runs to do; the zero Shard does them all. Only
	// keeps, of those, the runs of the points it names.
	Shard  Shard
	Only   Selection
	Runner Runner
	// Progress receives a line when a run starts and when it ends: runs
	// done of the shard's total, running and degraded, the run and its
	// point, the ETA.
	Progress io.Writer
	// Stop, when closed, lets the running runs finish and starts no other
	// (the first Ctrl-C). Cancelling Execute's context interrupts the
	// running runs (the second).
	Stop <-chan struct{}
	// Now is the clock of durations and the ETA; nil means time.Now.
	Now func() time.Time
	// GiveUpAfter stops the sweep after this many failed runs in a row (a
	// broken setup fails every run alike); 0 means 5.
	GiveUpAfter int
	// Jobs is how many runs run at once; the zero Jobs runs one at a
	// time. Each run has its own directory, namespaces and seed, so the
	// results do not depend on it.
	Jobs Jobs
	// Cores is the machine's number of CPUs, for Jobs.Auto.
	Cores int
	// CPUTime returns the CPU time used so far by this process and its
	// children (the endpoints, once they have exited); Jobs.Auto measures
	// one run alone with it. Nil leaves Jobs.Auto at one run at a time.
	CPUTime func() time.Duration
	// Reruns is how many times a run whose emulation came back degraded
	// is run again: a run is done when an attempt ends ok and keeps up, or
	// after 1 + Reruns degraded attempts (the last is its result, the
	// others are kept in dir/degraded). Nil means DefaultReruns, a pointer
	// to 0 (or less) no reruns.
	Reruns *int
	// Qlogs is what becomes of each run's qlog files once it has ended;
	// the zero value is results.QlogsGzip. The compression runs on the
	// run's own goroutine after it ended (about 1.3 s of one core for a
	// 60 s fairness run's 240 MB), so the sweep starts no run in that
	// slot until it is done.
	Qlogs results.QlogPolicy
	// FreeSpace returns the bytes free on the sweep directory's file
	// system; before each run the sweep checks that at least MinFree are
	// (a full disk breaks the run under way and everything else on the
	// host). Nil checks nothing.
	FreeSpace func() (uint64, error)
	// MinFree is the least free space a run starts with; 0 means
	// DefaultMinFree.
	MinFree uint64
}

// DefaultMinFree is the free space below which a sweep starts no more
// runs: some eight times the largest run directory emu writes with
// qlogs kept (a 180 s fairness run, about 750 MB).
const DefaultMinFree = 6e9

// reruns is Reruns with its default.
func (o *Options) reruns() int {
	if o.Reruns == nil {
		return DefaultReruns
	}
	return max(*o.Reruns, 0)
}

// Outcome is what Execute did.
type Outcome struct {
	Runs    int // runs in the shard
	Skipped int // already complete in the directory
	OK      int // done now, status ok (degraded ones included)
	// Failures are the runs done now that did not end ok.
	Failures []Failure
	// Degraded are the runs done now that ended ok with a degraded
	// emulation in every attempt Options.Reruns allows; Reruns counts the
	// attempts made again because the one before was degraded.
	Degraded []string
	Reruns   int
	// Jobs is how many runs ran at once at the end (auto lowers it).
	Jobs int
	// Stopped: Stop was closed before the shard was done.
	Stopped bool
	// Interrupted: the context ended during a run.
	Interrupted bool
	// GaveUp says why Execute stopped early after repeated failures.
	GaveUp string
	// DiskFull says why Execute stopped early for want of disk space.
	DiskFull string
}

// Failure is one run that did not end ok.
type Failure struct {
	Run    string `json:"run"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// Complete reports whether every run of the shard ended ok.
func (o *Outcome) Complete() bool {
	return o.Skipped+o.OK == o.Runs
}

// attempt is one run to do: its attempt n (from 1; above 1 the ones
// before were degraded).
type attempt struct {
	run results.Run
	n   int
	// below, when set, keeps fewer runs than this at once while the
	// attempt runs (it starts only then, and no other starts beside it
	// past that): auto reruns a degraded run below the lowest concurrency
	// that degraded it, or another overloaded attempt would say nothing
	// new.
	below int
}

// live is a run in progress: when it started, the most runs that ran at
// once while it did, and the CPU clock when it started (for auto's
// calibration).
type live struct {
	attempt
	started time.Time
	peak    int
	cpu0    time.Duration
}

// ended is what a run's goroutine reports.
type ended struct {
	id  string
	cfg config.Config
	sum *results.Summary
	err error
}

// Execute runs the runs of o.Shard that dir does not already hold with
// status ok (resuming an earlier attempt), up to o.Jobs at once, each in
// dir/runs/<run id>. A run that fails is recorded (summary.json with status
// failed, written here if the runner did not) and the sweep goes on. A run
// that ends ok but degraded (summary.json's fidelity) is run again, up to
// o.Reruns times, after the runs queued before it; each degraded attempt
// but the last is kept, the first in dir/degraded/<run id>, attempt k in
// dir/degraded/<run id>.<k>. A resumed sweep counts the attempts on disk
// and goes on from them; a run the sweep's record (runs.csv) holds ended
// ok is skipped. p must come from NewPlan (it carries the resolved
// configurations), and dir must have been prepared for it (Prepare).
func Execute(ctx context.Context, dir string, p *results.Plan, o Options) (*Outcome, error) {
	if o.Runner == nil {
		return nil, errors.New("sweep: no runner")
	}
	if err := o.Qlogs.Check(); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if o.CPUTime == nil {
		o.Jobs.Auto = false // nothing to calibrate with
	}
	x := &executor{dir: dir, p: p, o: o, now: o.Now, giveUp: o.GiveUpAfter, gov: newGovernor(o.Jobs, o.Cores)}
	if x.now == nil {
		x.now = time.Now
	}
	if x.giveUp <= 0 {
		x.giveUp = 5
	}
	rec, err := readRecord(dir, p)
	if err != nil {
		return nil, err
	}
	runs := o.Only.Runs(p, o.Shard.Runs(p))
	x.out = &Outcome{Runs: len(runs)}
	for _, r := range runs {
		if _, recorded := rec.done(dir, r); recorded {
			x.out.Skipped++
			continue
		}
		if err := x.resume(r); err != nil {
			return x.out, err
		}
	}
	x.pr = newProgress(o.Progress, p, len(runs), x.out.Skipped, ElapsedIn(dir, p))
	x.pr.begin(o.Shard, o.Jobs, x.queueRuns(), x.gov)
	err = x.loop(ctx)
	x.out.Jobs = x.gov.Limit()
	return x.out, err
}

// resume queues run r's next attempt, or counts it as skipped when dir
// holds it done for good.
func (x *executor) resume(r results.Run) error {
	st, reruns := stateOf(x.dir, x.p, r), x.o.reruns()
	switch {
	case st.final(reruns):
		x.out.Skipped++
	case st.ok:
		// Degraded in an earlier session that ended before the next
		// attempt, or one with fewer reruns.
		if err := keepDegraded(x.dir, r.ID, st.kept+1); err != nil {
			return err
		}
		x.queue = append(x.queue, attempt{run: r, n: st.kept + 2})
	case st.kept > reruns:
		// The attempt after the kept ones failed or was interrupted,
		// and this session allows no more: the last degraded one is
		// the run's result.
		if err := restoreKept(x.dir, r.ID, st.kept); err != nil {
			return err
		}
		x.out.Skipped++
	default:
		x.queue = append(x.queue, attempt{run: r, n: st.kept + 1})
	}
	return nil
}

// executor is one Execute: the queue, the runs in progress and what
// became of the others. Only Execute's goroutine touches it; the runs'
// goroutines report on done.
type executor struct {
	dir     string
	p       *results.Plan
	o       Options
	now     func() time.Time
	giveUp  int
	gov     *governor
	pr      *progress
	out     *Outcome
	queue   []attempt
	running map[string]*live
	inARow  int
	halt    bool // start no more runs
	// load is auto's CPU reading since its calibration: the CPU clock
	// then, and the run time (wall time × runs at once) since, counted up
	// to mark; next is the run time of the next reading.
	load struct {
		mark    time.Time
		cpu     time.Duration
		runTime time.Duration
		next    time.Duration
	}
}

// account adds the run time since the last change of the running set; it
// is called before every start and finish.
func (x *executor) account() {
	now := x.now()
	if !x.load.mark.IsZero() {
		x.load.runTime += time.Duration(len(x.running)) * now.Sub(x.load.mark)
	}
	x.load.mark = now
}

// readLoad hands auto a CPU reading each LoadWindow of run time. The
// readings are of everything since the calibration: the endpoints' CPU is
// counted only when they exit, so a short window would be skewed by the
// runs that straddle its ends, and a long one dilutes that.
func (x *executor) readLoad() {
	if x.gov.Calibrating() || !x.o.Jobs.Auto || x.load.runTime < x.load.next {
		return
	}
	if line := x.gov.Load(x.o.CPUTime()-x.load.cpu, x.load.runTime); line != "" {
		x.pr.note(line)
	}
	x.load.next = x.load.runTime + LoadWindow
}

func (x *executor) loop(ctx context.Context) error {
	done := make(chan ended)
	x.running = map[string]*live{}
	stop, interrupt := x.o.Stop, ctx.Done()
	var execErr error
	for {
		for !x.halt && len(x.queue) > 0 && len(x.running) < x.limitFor(x.queue[0]) {
			select {
			case <-stop:
				x.stopping()
				stop = nil
				continue
			default:
			}
			if ctx.Err() != nil {
				x.halt, x.out.Interrupted = true, true
				break
			}
			if full := x.diskFull(); full != "" {
				x.halt, x.out.DiskFull = true, full
				x.pr.note("stopping: " + full)
				break
			}
			if err := x.start(ctx, done); err != nil {
				execErr, x.halt = err, true
			}
		}
		if len(x.running) == 0 {
			return execErr
		}
		select {
		case e := <-done:
			if err := x.finish(ctx, e); err != nil && execErr == nil {
				execErr, x.halt = err, true
			}
		case <-stop:
			x.stopping()
			stop = nil
		case <-interrupt:
			// The runs see the same context and end as interrupted.
			x.halt, x.out.Interrupted = true, true
			interrupt = nil
		}
	}
}

func (x *executor) stopping() {
	x.halt, x.out.Stopped = true, true
	if len(x.running) > 0 {
		x.pr.note(fmt.Sprintf("stopping: letting %s finish, starting no other", plural(len(x.running), "running run")))
	}
}

// start starts the first queued run on its own goroutine.
func (x *executor) start(ctx context.Context, done chan<- ended) error {
	a := x.queue[0]
	x.queue = x.queue[1:]
	r := a.run
	pt, ok := x.p.Point(r.Point)
	if !ok {
		return fmt.Errorf("sweep: run %s: the plan has no point %s", r.ID, r.Point)
	}
	cfg, err := PointConfig(x.p, r.Point)
	if err != nil {
		return fmt.Errorf("sweep: run %s: %w", r.ID, err)
	}
	runDir := string(results.SweepDir(x.dir).Run(r.ID))
	if err := os.RemoveAll(runDir); err != nil {
		return fmt.Errorf("sweep: clear %s: %w", runDir, err)
	}
	cfg.Seed = r.Seed
	x.account()
	l := &live{attempt: a, started: x.now()}
	if x.gov.Calibrating() && len(x.running) == 0 {
		l.cpu0 = x.o.CPUTime()
	}
	x.running[r.ID] = l
	for _, o := range x.running {
		o.peak = max(o.peak, len(x.running))
	}
	x.pr.start(r, x.p.Describe(pt), a.n, 1+x.o.reruns(), len(x.running))
	go func() {
		sum, err := x.o.Runner(ctx, cfg, runDir)
		// An interrupted run is redone from scratch on resume: its qlogs
		// are not worth the second Ctrl-C's wait.
		if ctx.Err() == nil {
			if _, _, qerr := x.o.Qlogs.Apply(runDir); qerr != nil && err == nil {
				err = fmt.Errorf("qlogs: %w", qerr)
			}
		}
		done <- ended{id: r.ID, cfg: cfg, sum: sum, err: err}
	}()
	return nil
}

// diskFull says why no run may start for want of disk space, or "".
func (x *executor) diskFull() string {
	if x.o.FreeSpace == nil {
		return ""
	}
	free, err := x.o.FreeSpace()
	if err != nil {
		return fmt.Sprintf("cannot read the free space of %s: %v", x.dir, err)
	}
	floor := x.o.MinFree
	if floor == 0 {
		floor = DefaultMinFree
	}
	if free >= floor {
		return ""
	}
	return fmt.Sprintf("%s free on the file system of %s, below the %s a run may start with", FormatBytes(float64(free)), x.dir, FormatBytes(float64(floor)))
}

// finish records a run that ended and decides what follows from it.
func (x *executor) finish(ctx context.Context, e ended) error {
	x.account()
	l := x.running[e.id]
	delete(x.running, e.id)
	r := l.run
	took := x.now().Sub(l.started)
	runDir := string(results.SweepDir(x.dir).Run(r.ID))
	status, msg := outcomeOf(ctx, e.sum, e.err)
	if err := record(runDir, r, &e.cfg, e.sum, status, msg, l.started, took); err != nil {
		return err
	}
	if status != results.StatusOK {
		x.pr.finish(r, status, msg, e.sum, took, x.counts())
		x.out.Failures = append(x.out.Failures, Failure{Run: r.ID, Status: status, Error: msg})
		if status == results.StatusInterrupted {
			x.halt, x.out.Interrupted = true, true
			return nil
		}
		if x.inARow++; x.inARow >= x.giveUp && !x.halt {
			x.out.GaveUp = fmt.Sprintf("%d runs in a row failed, the last with: %s", x.inARow, msg)
			x.halt = true
		}
		return nil
	}
	x.inARow = 0
	why, bad := degraded(e.sum)
	// Auto calibrates on a run that ran alone and kept up: one degraded
	// alone says the host has no room for a second (the next run, alone
	// again, tries once more).
	if x.gov.Calibrating() && l.peak == 1 && !bad {
		cpu := x.o.CPUTime()
		if line := x.gov.Calibrate(cpu-l.cpu0, took); line != "" {
			if eta := x.pr.eta(x.now(), x.queueRuns(), x.running, x.gov.Limit()); eta != "" {
				line += "; " + eta
			}
			x.pr.note(line)
		}
		x.load.cpu, x.load.runTime, x.load.next = cpu, 0, LoadWindow
	} else {
		x.readLoad()
	}
	x.pr.observe(r, took)
	line := x.gov.Finished(l.peak, bad)
	if !bad {
		x.out.OK++
		x.pr.finish(r, status, "", e.sum, took, x.counts())
		return nil
	}
	if left := 1 + x.o.reruns() - l.n; left > 0 {
		if err := keepDegraded(x.dir, r.ID, l.n); err != nil {
			return err
		}
		a := attempt{run: r, n: l.n + 1, below: l.below}
		if x.gov.auto && (a.below == 0 || l.peak < a.below) {
			// Fewer at once than degraded it; alone again when it ran
			// alone (then auto's calibration is still to come, or the
			// host had no room for a second run).
			a.below = max(l.peak, 2)
		}
		// At the back of the queue: what degrades a run is mostly the
		// host's noise, which comes in bursts of minutes, and an attempt
		// made at once falls in the same burst (the development VM, 175
		// runs one at a time: 26 % of first attempts degraded, 64 % of
		// the attempts made right after a degraded one).
		x.queue = append(x.queue, a)
		x.out.Reruns++
		x.pr.degraded(r, why, e.sum, took, l.n, left, x.counts())
	} else {
		x.out.OK++
		x.out.Degraded = append(x.out.Degraded, r.ID)
		x.pr.degraded(r, why, e.sum, took, l.n, 0, x.counts())
	}
	if line != "" {
		x.pr.note(line)
	}
	return nil
}

// limitFor is how many runs may run at once for a to start: the
// governor's limit, and below the concurrency that degraded a, or any
// running attempt, before.
func (x *executor) limitFor(a attempt) int {
	n := x.gov.Limit()
	if a.below > 0 {
		n = min(n, a.below-1)
	}
	for _, l := range x.running {
		if l.below > 0 {
			n = min(n, l.below-1)
		}
	}
	return max(n, 1)
}

// counts is the progress line's state.
func (x *executor) counts() state {
	return state{
		done: x.out.Skipped + x.out.OK + len(x.out.Failures), running: len(x.running),
		degraded: len(x.out.Degraded), eta: x.pr.eta(x.now(), x.queueRuns(), x.running, x.gov.Limit()),
	}
}

func (x *executor) queueRuns() []results.Run {
	out := make([]results.Run, len(x.queue))
	for i, a := range x.queue {
		out[i] = a.run
	}
	return out
}
