package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ReadThread reads thread tid of process pid.
func ReadThread(pid, tid int) (Reading, error) {
	dir := fmt.Sprintf("/proc/%d/task/%d/", pid, tid)
	r := Reading{At: time.Now()}
	var err error
	if r.Stat, err = readStat(dir + "stat"); err != nil {
		return r, err
	}
	r.Sched, err = readSched(dir + "schedstat")
	return r, err
}

// ReadProcess reads process pid and its descendants, as one: the CPU times
// in Stat.User and Stat.System are the tree's (every process's own, its
// threads ended ones included, plus the children each has waited for), the
// scheduler statistics the sum over the tree's live threads, and the rest
// of Stat the root's. An endpoint that runs its transport as a child
// (ngtcp2's gtlsserver under emu's endpoint process) is thereby judged by
// the child's CPU, not the idle parent's. A descendant that goes between
// the listing and its reading is left out.
func ReadProcess(pid int) (Reading, error) {
	r := Reading{At: time.Now(), Process: true}
	var err error
	if r.Stat, err = readStat(fmt.Sprintf("/proc/%d/stat", pid)); err != nil {
		return r, err
	}
	r.Stat.User += r.Stat.ChildUser
	r.Stat.System += r.Stat.ChildSystem
	r.Stat.ChildUser, r.Stat.ChildSystem = 0, 0
	seen := map[int]bool{pid: true}
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		tids, err := Threads(p)
		if err != nil {
			if p == pid {
				return r, err
			}
			continue // it ended since its parent's listing
		}
		if p != pid {
			st, err := readStat(fmt.Sprintf("/proc/%d/stat", p))
			if err != nil {
				continue
			}
			r.Stat.User += st.User + st.ChildUser
			r.Stat.System += st.System + st.ChildSystem
		}
		for _, tid := range tids {
			task := fmt.Sprintf("/proc/%d/task/%d/", p, tid)
			if s, err := readSched(task + "schedstat"); err == nil {
				r.Sched.OnCPU += s.OnCPU
				r.Sched.Wait += s.Wait
				r.Sched.Slices += s.Slices
			}
			for _, c := range children(task + "children") {
				if !seen[c] {
					seen[c] = true
					todo = append(todo, c)
				}
			}
		}
	}
	return r, nil
}

// children lists the pids in a /proc/<pid>/task/<tid>/children file: the
// processes that thread started and that have not been reaped. A missing
// file (a thread that ended) lists none.
func children(name string) []int {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(f); err == nil {
			pids = append(pids, c)
		}
	}
	return pids
}

// ReadHost reads /proc/stat.
func ReadHost() (Host, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Host{}, fmt.Errorf("procstat: %w", err)
	}
	return ParseHost(b, "/proc/stat")
}

// Threads lists the thread ids of process pid.
func Threads(pid int) ([]int, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("procstat: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// Ksoftirqd lists the pids of the kernel's softirq threads (ksoftirqd/N,
// one per CPU). Packet processing the kernel defers runs on them, as
// ordinary threads: when the CPUs are oversubscribed it waits with them,
// however high the emulator's own threads' priority.
func Ksoftirqd() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("procstat: %w", err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// comm alone: the smallest file that names a thread.
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err == nil && strings.HasPrefix(string(b), "ksoftirqd/") {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// TID is the id of the calling OS thread. It identifies a goroutine's
// thread only while the goroutine is locked to it (runtime.LockOSThread):
// a packet loop calls it after locking and hands the id to whoever reads
// its usage (ReadThread(os.Getpid(), tid)).
func TID() int { return unix.Gettid() }

// NameThread sets the calling OS thread's name (comm, at most 15 bytes;
// longer names are cut), so it shows in top -H, ps -L and Stat.Name. The
// caller must be locked to its thread, or the name lands on whichever
// thread the goroutine happens to run on.
func NameThread(name string) error {
	b := make([]byte, 16)
	copy(b[:15], name)
	if err := unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0); err != nil {
		return fmt.Errorf("procstat: name thread %q: %w", name, err)
	}
	return nil
}

func readStat(path string) (Stat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Stat{}, fmt.Errorf("procstat: %w", err)
	}
	return ParseStat(b, path)
}

func readSched(path string) (Sched, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Sched{}, fmt.Errorf("procstat: %w", err)
	}
	return ParseSchedstat(b, path)
}
