package endpoint

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// The emu binary the process tests run, built once per test binary.
var emuBuild = emutest.Binary{Pkg: emutest.EmuCommand}

func TestMain(m *testing.M) {
	code := m.Run()
	emuBuild.Remove()
	os.Exit(code)
}

// emuBinary builds ./cmd/emu on first use (go build -o $TMP/emu), so the
// tests run `emu endpoint ...` exactly as a run does.
func emuBinary(t *testing.T) string {
	t.Helper()
	return emuBuild.Path(t)
}

// proc is an `emu endpoint` process whose stdout lines are parsed as they
// come.
type proc struct {
	cmd    *exec.Cmd
	events chan Event
	stderr *syncBuffer
	exited chan struct{}
	err    error // cmd.Wait's result, valid once exited is closed

	mu       sync.Mutex
	badLines []string
}

func startEmu(t *testing.T, args []string) *proc {
	t.Helper()
	return startEmuIn(t, nil, args)
}

// startEmuIn starts the process inside ns (nil: this namespace): forked
// from a thread that is in ns, the child is born there.
func startEmuIn(t *testing.T, ns *emutest.NetNS, args []string) *proc {
	t.Helper()
	p := &proc{events: make(chan Event, 100000), stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(emuBinary(t), args...)
	// A SIGKILLed endpoint cannot remove its scratch files (the ngtcp2
	// document root, downloads); keep them in the test's directory.
	p.cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	p.cmd.Stderr = p.stderr
	// A leaked grandchild holding the pipes must not hang the test.
	p.cmd.WaitDelay = 2 * time.Second
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := p.cmd.Start
	if ns != nil {
		start = func() error { return ns.Do(p.cmd.Start) }
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			ev, err := ParseEvent(sc.Bytes())
			if err != nil {
				p.mu.Lock()
				p.badLines = append(p.badLines, err.Error())
				p.mu.Unlock()
				continue
			}
			p.events <- ev
		}
		p.err = p.cmd.Wait()
		close(p.events)
		close(p.exited)
	}()
	t.Cleanup(func() {
		if p.running() {
			p.cmd.Process.Kill()
			<-p.exited
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, l := range p.badLines {
			t.Errorf("emu %s: bad stdout line: %s", args[1], l)
		}
		if t.Failed() {
			t.Logf("emu %s stderr:\n%s", args[1], p.stderr.String())
		}
	})
	return p
}

func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// next returns the next event of kind, skipping others, or fails.
func (p *proc) next(t *testing.T, kind string, timeout time.Duration) Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				t.Fatalf("process exited (%v) before a %q event; stderr: %s", p.err, kind, p.stderr.String())
			}
			if ev.Kind == kind {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %q event within %v", kind, timeout)
		}
	}
}

// wait waits for the process to exit and returns its exit status.
func (p *proc) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		t.Fatalf("process still running %v after it should have ended", timeout)
	}
	if p.err == nil {
		return 0
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	t.Fatalf("wait: %v", p.err)
	return -1
}

// children lists the processes whose parent is pid.
func children(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var kids []int
	for _, e := range entries {
		cpid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(cpid); ok && ppid == pid {
			kids = append(kids, cpid)
		}
	}
	return kids
}

// procStat reads the parent and state of pid from /proc/PID/stat.
func procStat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid ...": comm may contain spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0][0], err == nil
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != 'Z'
}

// waitDead fails unless every pid is gone (or a zombie) within timeout;
// survivors are killed so a failing test leaves nothing behind either.
func waitDead(t *testing.T, pids []int, timeout time.Duration) {
	t.Helper()
	t.Cleanup(func() {
		for _, pid := range pids {
			if alive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	emutest.WaitFor(t, timeout, func() error {
		for _, pid := range pids {
			if alive(pid) {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				return fmt.Errorf("process %d (%s) still alive", pid, strings.ReplaceAll(string(b), "\x00", " "))
			}
		}
		return nil
	})
}
