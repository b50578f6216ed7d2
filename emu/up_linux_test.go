package emu

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/emutest"
)

// upProcess starts `emu up` as a process and returns it with its stdout.
func upProcess(t *testing.T, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(emuBinary(t), append([]string{"up", "--json", "--trace", "none"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewReader(out)
}

func runEmu(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, _, code := runEmuPID(t, args...)
	return out, code
}

// runEmuPID runs the emu binary and also returns its PID.
func runEmuPID(t *testing.T, args ...string) (string, int, int) {
	t.Helper()
	cmd := exec.Command(emuBinary(t), args...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), cmd.Process.Pid, ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), cmd.Process.Pid, 0
}

// runIDsOf returns the ids of the recorded runs owned by pid.
func runIDsOf(pid int) []string {
	states, _ := runstate.ListStates()
	var ids []string
	for _, s := range states {
		if s.PID == pid {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// TestUpKill9ThenClean kills `emu up` with SIGKILL at different moments of
// its life — while it builds, while it starts its datapath, once it is up —
// then runs `emu clean`: no namespace, veth or state of the run may remain,
// and the next `emu up` must work.
func TestUpKill9ThenClean(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	for _, after := range []time.Duration{5 * time.Millisecond, 40 * time.Millisecond, 150 * time.Millisecond, -1} {
		cmd, out := upProcess(t)
		var ids []string
		if after < 0 {
			line, err := out.ReadBytes('\n') // fully up
			if err != nil {
				t.Fatal(err)
			}
			var up struct{ Run string }
			if err := json.Unmarshal(line, &up); err != nil || up.Run == "" {
				t.Fatalf("emu up --json printed %q (%v)", line, err)
			}
			ids = []string{up.Run}
		} else {
			time.Sleep(after) // the moment of the kill is what this test varies
		}
		ids = append(ids, runIDsOf(cmd.Process.Pid)...)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		ids = append(ids, runIDsOf(cmd.Process.Pid)...)
		if msg, code := runEmu(t, "clean"); code != 0 {
			t.Fatalf("emu clean after kill at %v: exit %d: %s", after, code, msg)
		}
		for _, id := range ids {
			noLeftovers(t, id)
		}
		t.Logf("killed after %v: run(s) %v cleaned", after, ids)
	}
	// The next emu up works.
	cmd, out := upProcess(t)
	line, err := out.ReadBytes('\n')
	if err != nil || !bytes.Contains(line, []byte(`"nodes"`)) {
		t.Fatalf("emu up after the kills: %q %v", line, err)
	}
	var up struct{ Run string }
	json.Unmarshal(line, &up)
	// By its id: a researcher's own emulation may be up beside the test's.
	if msg, code := runEmu(t, "exec", "--run", up.Run, "cli", "--", "true"); code != 0 {
		t.Fatalf("emu exec: exit %d: %s", code, msg)
	}
	if msg, code := runEmu(t, "down", "--run", up.Run); code != 0 || !strings.Contains(msg, up.Run) {
		t.Fatalf("emu down: exit %d: %s", code, msg)
	}
	cmd.Wait()
	noLeftovers(t, up.Run)
}

// TestBadInputBuildsNothing: bad keys and values fail with the key named,
// exit status 2, and create no namespace or state.
func TestBadInputBuildsNothing(t *testing.T) {
	emutest.RequireRoot(t)
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"up", "--set", "link1.rate=fast"}, `link1.rate=fast: "fast" is not a rate`, 2},
		{[]string{"up", "--set", "link2.loss=120%"}, `"120%" is out of range`, 2},
		{[]string{"up", "--set", "link1.delay=-3ms"}, `must not be negative`, 2},
		{[]string{"up", "--set", "link1.colour=blue"}, `unknown key "link1.colour"`, 2},
		{[]string{"up", "--set", "novalue"}, `want key=value`, 2},
		{[]string{"run", "--trace", "/no/such/trace.csv"}, `no/such/trace.csv`, 1},
		{[]string{"exec", "--run", "nosuchrun", "nosuchnode", "--", "true"}, `no running emulation with id "nosuchrun"`, 1},
	} {
		msg, pid, code := runEmuPID(t, tc.args...)
		if code != tc.code || !strings.Contains(msg, tc.want) {
			t.Errorf("emu %s: exit %d, output %q; want exit %d and %q", strings.Join(tc.args, " "), code, msg, tc.code, tc.want)
		}
		if ids := runIDsOf(pid); len(ids) > 0 {
			t.Errorf("emu %s left state of run(s) %v", strings.Join(tc.args, " "), ids)
		}
	}
}
