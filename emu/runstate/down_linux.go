package runstate

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Down asks the owners of running emulations (every emu up, or only runID,
// which may also be a run or a sweep's run) to stop,
// waits for them to tear down, and cleans up after any that do not answer
// within ten seconds. It returns the ids it stopped.
func Down(ctx context.Context, runID string) ([]string, error) {
	states, err := ListStates()
	if err != nil {
		return nil, err
	}
	var stopped []string
	var errs []error
	for _, s := range states {
		if runID != "" && s.ID != runID {
			continue
		}
		// Without a run id only emulations that emu up keeps up are
		// stopped: an emu run or sweep of someone else's on the same host
		// is not "the emulation" a user means.
		if runID == "" && s.Command != "up" {
			continue
		}
		if !s.Alive() {
			continue
		}
		syscall.Kill(s.PID, syscall.SIGTERM)
		deadline := time.Now().Add(10 * time.Second)
		for s.Alive() && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
		if s.Alive() {
			syscall.Kill(s.PID, syscall.SIGKILL)
			time.Sleep(100 * time.Millisecond)
		}
		stopped = append(stopped, s.ID)
	}
	// Whatever the owners could not remove themselves.
	if _, err := Clean(false); err != nil {
		errs = append(errs, err)
	}
	if runID != "" && len(stopped) == 0 {
		errs = append(errs, fmt.Errorf("no running emulation with id %q", runID))
	}
	return stopped, errors.Join(errs...)
}
