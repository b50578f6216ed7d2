package procstat

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
)

// clockTick is the unit of the times in stat files (USER_HZ). The kernel
// fixes it at 100 for the user-space ABI on every architecture emu runs on,
// whatever its internal HZ.
const clockTick = 10 * time.Millisecond

// Sched is a thread's scheduler statistics (schedstat): time on a CPU,
// time spent runnable but waiting for one, and how many times it got one.
type Sched struct {
	OnCPU, Wait time.Duration
	Slices      uint64
}

// ParseSchedstat parses a schedstat file: three decimal numbers, the first
// two in nanoseconds. name goes into errors.
func ParseSchedstat(b []byte, name string) (Sched, error) {
	f := bytes.Fields(b)
	if len(f) != 3 {
		return Sched{}, fmt.Errorf("procstat: %s: %d fields, want 3 (run ns, wait ns, timeslices)", name, len(f))
	}
	var v [3]uint64
	for i, w := range f {
		n, err := strconv.ParseUint(string(w), 10, 64)
		if err != nil {
			return Sched{}, fmt.Errorf("procstat: %s: field %d: %w", name, i+1, err)
		}
		v[i] = n
	}
	if v[0] > 1<<63-1 || v[1] > 1<<63-1 {
		return Sched{}, fmt.Errorf("procstat: %s: time out of range", name)
	}
	return Sched{OnCPU: time.Duration(v[0]), Wait: time.Duration(v[1]), Slices: v[2]}, nil
}

// Stat is what emu uses of a stat file (proc(5)): the thread's or
// process's name, state, CPU times and where and how it is scheduled.
type Stat struct {
	PID  int
	Name string // comm: at most 15 bytes, set by the program (NameThread)
	// State is R (running), S (sleeping), D (disk sleep), Z, T, …
	State byte
	// User and System are the CPU time in user and kernel mode; for a
	// process they include its threads, also those that have ended.
	User, System time.Duration
	// ChildUser and ChildSystem are the CPU time of the children it has
	// waited for (and of theirs): a child's time moves here from its own
	// stat when it is reaped.
	ChildUser, ChildSystem time.Duration
	Threads                int
	// CPU is the processor it last ran on; RTPriority and Policy its
	// real-time priority and scheduling policy (0 SCHED_OTHER, 1 FIFO, 2 RR).
	CPU, RTPriority, Policy int
}

// ParseStat parses a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat file.
// The name is in parentheses and may itself hold spaces and parentheses,
// so the fields are counted from the last ')'.
func ParseStat(b []byte, name string) (Stat, error) {
	var s Stat
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return s, fmt.Errorf("procstat: %s: no (name)", name)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return s, fmt.Errorf("procstat: %s: pid: %w", name, err)
	}
	s.PID, s.Name = pid, string(b[open+1:end])
	// rest[0] is field 3 (state) of proc(5).
	rest := bytes.Fields(b[end+1:])
	if len(rest) < 41-2 {
		return s, fmt.Errorf("procstat: %s: %d fields after the name, want at least 39", name, len(rest))
	}
	if len(rest[0]) != 1 {
		return s, fmt.Errorf("procstat: %s: field 3 (state): %q", name, rest[0])
	}
	s.State = rest[0][0]
	field := func(n int, what string) (int64, error) {
		v, err := strconv.ParseInt(string(rest[n-3]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("procstat: %s: field %d (%s): %w", name, n, what, err)
		}
		return v, nil
	}
	var v [8]int64
	for i, f := range []struct {
		n    int
		what string
	}{{14, "utime"}, {15, "stime"}, {16, "cutime"}, {17, "cstime"}, {20, "num_threads"}, {39, "processor"}, {40, "rt_priority"}, {41, "policy"}} {
		if v[i], err = field(f.n, f.what); err != nil {
			return s, err
		}
		if v[i] < 0 || (i < 4 && v[i] > int64(1<<63-1)/int64(clockTick)) {
			return s, fmt.Errorf("procstat: %s: field %d (%s): %d out of range", name, f.n, f.what, v[i])
		}
	}
	s.User, s.System = time.Duration(v[0])*clockTick, time.Duration(v[1])*clockTick
	s.ChildUser, s.ChildSystem = time.Duration(v[2])*clockTick, time.Duration(v[3])*clockTick
	s.Threads, s.CPU, s.RTPriority, s.Policy = int(v[4]), int(v[5]), int(v[6]), int(v[7])
	return s, nil
}

// Host is the host's CPU time summed over its CPUs (/proc/stat's cpu line).
type Host struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal time.Duration
	// CPUs is how many cpuN lines there are.
	CPUs int
}

// Total is all the time the CPUs had, stolen time included (guest time is
// already counted in user and nice).
func (h Host) Total() time.Duration {
	return h.User + h.Nice + h.System + h.Idle + h.IOWait + h.IRQ + h.SoftIRQ + h.Steal
}

// ParseHost parses /proc/stat. Kernels before 2.6.11 had no steal column;
// it reads as 0 then.
func ParseHost(b []byte, name string) (Host, error) {
	var h Host
	found := false
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) == 0 || !bytes.HasPrefix(f[0], []byte("cpu")) {
			continue
		}
		if len(f[0]) > 3 {
			h.CPUs++
			continue
		}
		if found {
			return h, fmt.Errorf("procstat: %s: two cpu lines", name)
		}
		found = true
		if len(f) < 5 {
			return h, fmt.Errorf("procstat: %s: cpu line has %d fields, want at least 4 times", name, len(f)-1)
		}
		dst := []*time.Duration{&h.User, &h.Nice, &h.System, &h.Idle, &h.IOWait, &h.IRQ, &h.SoftIRQ, &h.Steal}
		for i, w := range f[1:min(len(f), 1+len(dst))] {
			n, err := strconv.ParseUint(string(w), 10, 64)
			if err != nil {
				return h, fmt.Errorf("procstat: %s: cpu field %d: %w", name, i+1, err)
			}
			if n > uint64(1<<63-1)/uint64(clockTick) {
				return h, fmt.Errorf("procstat: %s: cpu field %d: %d out of range", name, i+1, n)
			}
			*dst[i] = time.Duration(n) * clockTick
		}
	}
	if !found {
		return h, fmt.Errorf("procstat: %s: no cpu line", name)
	}
	return h, nil
}
