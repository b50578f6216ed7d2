package emu

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/internal/invoker"
	"github.com/dc-emu/emu/topo"
)

// process is an endpoint running as its own process (`emu endpoint …`)
// inside a node's namespace. Its stdout carries the JSON event lines of
// the endpoint protocol; its stderr goes to a log file, whose tail explains
// a failure.
type process struct {
	name   string
	cmd    *exec.Cmd
	events chan endpoint.Event
	done   chan struct{} // closed when the process has exited and stdout is drained
	log    *tailFile

	mu      sync.Mutex
	waitErr error
	badLine error
}

// startProcess starts bin with args in node's namespace. The process gets
// its own process group (so an ngtcp2 child dies with it) and is killed if
// emu dies.
func startProcess(node *topo.NodeNS, name, bin string, args []string, logPath, tmpDir string) (*process, error) {
	lf, err := newTailFile(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Env = append(os.Environ(), "QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING=true", "TMPDIR="+tmpDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		lf.Close()
		return nil, err
	}
	if err := topo.StartIn(node.NS, cmd); err != nil {
		lf.Close()
		return nil, fmt.Errorf("%s: start in %s: %w", name, node.NSName, err)
	}
	p := &process{name: name, cmd: cmd, events: make(chan endpoint.Event, 64), done: make(chan struct{}), log: lf}
	go p.read(stdout)
	return p, nil
}

func (p *process) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		ev, err := endpoint.ParseEvent(sc.Bytes())
		if err != nil {
			p.mu.Lock()
			p.badLine = err
			p.mu.Unlock()
			continue
		}
		p.events <- ev
	}
	err := p.cmd.Wait()
	p.mu.Lock()
	p.waitErr = err
	p.mu.Unlock()
	p.log.Close()
	close(p.events)
	close(p.done)
}

// signal sends sig to the process group unless the process has exited
// (the group may be gone and its id reused); nil until started.
func (p *process) signal(sig syscall.Signal) {
	if p == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.done:
	default:
		syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}

// failure describes why the process failed: its exit status and the last
// lines it wrote to stderr.
func (p *process) failure() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := "exited"
	if p.waitErr != nil {
		msg = p.waitErr.Error()
	}
	if t := p.log.Tail(); t != "" {
		msg += ": " + t
	}
	if p.badLine != nil {
		msg += " (protocol: " + p.badLine.Error() + ")"
	}
	return msg
}

func pidOf(p *process) int {
	if p == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// tailFile writes to a log file and remembers the last lines written.
type tailFile struct {
	f    *os.File
	mu   sync.Mutex
	tail []byte
}

func newTailFile(path string) (*tailFile, error) {
	f, err := invoker.Create(path) // in the user's run directory: as the user
	if err != nil {
		return nil, err
	}
	return &tailFile{f: f}, nil
}

func (t *tailFile) Write(b []byte) (int, error) {
	t.mu.Lock()
	t.tail = append(t.tail, b...)
	if len(t.tail) > 2048 {
		t.tail = t.tail[len(t.tail)-2048:]
	}
	t.mu.Unlock()
	return t.f.Write(b)
}

func (t *tailFile) Close() error { return t.f.Close() }

// Tail returns the last non-empty lines written, joined into one line.
func (t *tailFile) Tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(string(bytes.TrimSpace(t.tail)), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.TrimSpace(strings.Join(lines, " | "))
}
