package endpoint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is an external endpoint program (gtlsserver, gtlsclient). It runs
// in its own process group and dies with the thread that started it, so a
// killed emu leaves nothing behind.
type child struct {
	name   string
	cmd    *exec.Cmd
	done   chan struct{} // closed once the child has been reaped
	err    error         // cmd.Wait's result, valid after done
	exited time.Time     // when Wait returned
	stderr *tailWriter
}

// startChild starts path with args in dir with environment env (nil: this
// process's); its stdout and stderr go to log, and the end of its stderr
// is kept for error messages.
func startChild(path string, args []string, dir string, env []string, log io.Writer) (*child, error) {
	c := &child{name: filepath.Base(path), done: make(chan struct{}), stderr: &tailWriter{max: 4096}}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = log
	cmd.Stderr = io.MultiWriter(c.stderr, log)
	cmd.SysProcAttr = childAttr()
	c.cmd = cmd
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that forked the child exits, and
		// the Go runtime may retire threads: keep this one until the child
		// has been reaped.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.err = cmd.Wait()
		c.exited = time.Now()
		close(c.done)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	return c, nil
}

// running reports whether the child has not exited yet.
func (c *child) running() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// stop asks the child to finish with sig (the ngtcp2 examples close their
// connections and qlog files on SIGINT), waits up to grace, then kills its
// whole process group. It returns once the child has been reaped.
func (c *child) stop(sig syscall.Signal, grace time.Duration) {
	if c.running() {
		_ = c.cmd.Process.Signal(sig)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		_ = killGroup(c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.done
	}
}

// kill kills the child's process group at once and reaps it.
func (c *child) kill() {
	if c.running() {
		_ = killGroup(c.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-c.done
}

// exitError describes how the child ended, with the end of its stderr.
func (c *child) exitError() error {
	msg := c.stderr.String()
	switch {
	case c.err == nil && msg == "":
		return fmt.Errorf("%s exited", c.name)
	case c.err == nil:
		return fmt.Errorf("%s exited: %s", c.name, msg)
	case msg == "":
		return fmt.Errorf("%s: %w", c.name, c.err)
	}
	return fmt.Errorf("%s: %w: %s", c.name, c.err, msg)
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the kept output on one line.
func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(strings.Fields(string(t.buf)), " ")
}

// Ngtcp2Programs are the Debian ngtcp2 example programs emu runs.
const (
	Ngtcp2Client = "gtlsclient" // package ngtcp2-client
	Ngtcp2Server = "gtlsserver" // package ngtcp2-server
)

// FindNgtcp2 returns the path of an ngtcp2 example program (Ngtcp2Client
// or Ngtcp2Server), looking in PATH and then where Debian installs them.
func FindNgtcp2(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	pkg := "ngtcp2-client"
	if name == Ngtcp2Server {
		pkg = "ngtcp2-server"
	}
	return "", fmt.Errorf("%s not found in PATH, /usr/sbin or /usr/bin: %w (apt-get install %s)", name, ErrNgtcp2Missing, pkg)
}

// ErrNgtcp2Missing is wrapped by FindNgtcp2 when a program is absent.
var ErrNgtcp2Missing = errors.New("ngtcp2 examples not installed")

// absPaths makes each path that is set absolute. A child runs in a
// directory of its own (startChild's dir), where a path its parent gave
// relative to its own working directory names another file: with emu
// run's default results/<run> directory, gtlsserver could not read its key
// and gtlsclient wrote its qlog into the download directory, removed after
// the run.
func absPaths(paths ...*string) error {
	for _, p := range paths {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return fmt.Errorf("path %s: %w", *p, err)
		}
		*p = abs
	}
	return nil
}
