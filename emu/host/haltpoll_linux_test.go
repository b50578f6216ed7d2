package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHaltPoll(t *testing.T) {
	dir := t.TempDir()
	driver := filepath.Join(dir, "current_driver")
	params := filepath.Join(dir, "parameters")
	write := func(path, v string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := haltPoll(driver, params); ok || err != nil {
		t.Errorf("no cpuidle driver: reported (%v, %v)", ok, err)
	}
	write(driver, "intel_idle")
	if _, ok, _ := haltPoll(driver, params); ok {
		t.Errorf("bare metal reported")
	}
	write(driver, "haltpoll")
	if _, ok, err := haltPoll(driver, params); !ok || err == nil || !strings.Contains(err.Error(), "state unknown") {
		t.Errorf("no parameters: %v %v", ok, err)
	}
	poll := filepath.Join(params, "guest_halt_poll_ns")
	write(poll, "0")
	if _, _, err := haltPoll(driver, params); err == nil || !strings.Contains(err.Error(), "echo 200000 > "+poll) {
		t.Errorf("polling off: %v, want the command that turns it on", err)
	}
	write(poll, "200000")
	if d, ok, err := haltPoll(driver, params); !ok || err != nil || d != "guest_halt_poll_ns=200000: an idle vCPU polls up to 200 µs before it halts" {
		t.Errorf("polling on: %q %v %v", d, ok, err)
	}
	write(poll, "lots")
	if _, _, err := haltPoll(driver, params); err == nil || !strings.Contains(err.Error(), `"lots" is not a number`) {
		t.Errorf("garbage: %v", err)
	}
}
