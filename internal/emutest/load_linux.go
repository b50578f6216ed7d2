package emutest

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// others is a reading of the CPU time every user-space process outside
// this test process's tree has used: what the rest of the machine (a
// build, a browser, a code search, a busy loop) took from the CPUs a
// timing test measures on. Kernel threads are left out: on a network test
// they mostly carry the test's own packets (softirq, workqueues).
//
// A process's CPU time is its own plus that of the children it has reaped
// (cutime, cstime), so a short command that starts and ends between two
// readings still counts: in its parent's reaped time, or in its own when
// the second reading finds it alive.
type others struct {
	at    time.Duration // Mono
	pid   int           // this process
	procs map[procKey]procCPU
}

func (o others) self() int { return o.pid }

type procKey struct {
	pid   int
	start uint64 // starttime: a pid used again is another process
}

type procCPU struct {
	name      string
	ppid      int
	own, kids time.Duration
	kthread   bool
}

// clockTick is USER_HZ, the unit of /proc/PID/stat's times on every
// architecture (the kernel fixes it for user space).
const clockTick = 10 * time.Millisecond

// pfKthread is PF_KTHREAD in the flags field of /proc/PID/stat.
const pfKthread = 0x00200000

// readOthers reads every process's CPU time; processes that end while it
// reads are left out.
func readOthers() others {
	o := others{at: Mono(), pid: os.Getpid(), procs: map[procKey]procCPU{}}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return o
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if k, p, ok := parseProcStat(pid, b); ok {
			o.procs[k] = p
		}
	}
	return o
}

// parseProcStat reads what readOthers needs of a stat line (proc(5)): the
// name, ppid (field 4), flags (9), utime, stime, cutime, cstime (14–17)
// and starttime (22), counted from the last ')' as the name may hold any
// byte.
func parseProcStat(pid int, b []byte) (procKey, procCPU, bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procKey{}, procCPU{}, false
	}
	f := bytes.Fields(b[end+1:]) // f[0] is field 3
	if len(f) < 22-2 {
		return procKey{}, procCPU{}, false
	}
	num := func(field int) uint64 {
		v, _ := strconv.ParseUint(string(f[field-3]), 10, 64)
		return v
	}
	p := procCPU{
		name:    string(b[open+1 : end]),
		ppid:    int(num(4)),
		own:     time.Duration(num(14)+num(15)) * clockTick,
		kids:    time.Duration(num(16)+num(17)) * clockTick,
		kthread: num(9)&pfKthread != 0 || pid == 2,
	}
	return procKey{pid, num(22)}, p, true
}

// tree is the set of pids of root and its descendants in o.
func (o others) tree(root int) map[int]bool {
	kids := map[int][]int{}
	for k, p := range o.procs {
		kids[p.ppid] = append(kids[p.ppid], k.pid)
	}
	in := map[int]bool{root: true}
	for todo := []int{root}; len(todo) > 0; {
		pid := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, c := range kids[pid] {
			if !in[c] {
				in[c] = true
				todo = append(todo, c)
			}
		}
	}
	return in
}

// A Load is the CPU time the rest of the machine used over an interval.
type Load struct {
	Wall time.Duration
	// CPU is what processes outside the test's tree used, Top the three
	// that used most ("name pid: time").
	CPU time.Duration
	Top []string
}

// Share is the load in CPUs: 1 is one core kept busy throughout.
func (l Load) Share() float64 {
	if l.Wall <= 0 {
		return 0
	}
	return float64(l.CPU) / float64(l.Wall)
}

func (l Load) String() string {
	s := fmt.Sprintf("other processes used %v of CPU in %v (%.2f CPUs)", l.CPU.Round(10*time.Millisecond), l.Wall.Round(time.Millisecond), l.Share())
	if len(l.Top) > 0 {
		s += ": " + strings.Join(l.Top, ", ")
	}
	return s
}

// loadSince is what processes outside self's tree used from a to b: the
// CPU time they hold at b less what they held at a. A process that ended
// in between is counted at a and, reaped, in its parent's children's time
// at b, so its time before a cancels and its time after a counts once.
// Top attributes the time to the processes alive at b, a parent with what
// it reaped.
func loadSince(a, b others, self int) Load {
	type use struct {
		who string
		cpu time.Duration
	}
	var uses []use
	var total time.Duration
	inA, inB := a.tree(self), b.tree(self)
	for k, p := range a.procs {
		if !p.kthread && !inA[k.pid] {
			total -= p.own + p.kids
		}
	}
	for k, p := range b.procs {
		if p.kthread || inB[k.pid] {
			continue
		}
		total += p.own + p.kids
		d := p.own + p.kids
		if q, ok := a.procs[k]; ok {
			d -= q.own + q.kids
		}
		if d > 0 {
			uses = append(uses, use{fmt.Sprintf("%s %d: %v", p.name, k.pid, d.Round(10*time.Millisecond)), d})
		}
	}
	slices.SortFunc(uses, func(x, y use) int { return int(y.cpu - x.cpu) })
	l := Load{Wall: b.at - a.at, CPU: max(0, total)}
	for _, u := range uses[:min(3, len(uses))] {
		l.Top = append(l.Top, u.who)
	}
	return l
}
