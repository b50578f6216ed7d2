package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// twoStageInterrupt is how emu sweep and emu reproduce take Ctrl-C: the
// first interrupt (main also cancels e.ctx on it) closes stop, so the
// running runs finish and no other starts; the second cancels run, which
// interrupts them. name prefixes the messages. release drops
// the signal handler.
func twoStageInterrupt(e *env, name string) (stop <-chan struct{}, run context.Context, release func()) {
	stopCtx, stopNow := context.WithCancel(e.ctx)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(e.ctx))
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	go func() {
		for signals := 1; ; signals++ {
			select {
			case <-sig:
			case <-finished:
				return
			}
			if signals == 1 {
				fmt.Fprintf(e.stderr, "%s: stopping after the running runs (Ctrl-C again to interrupt them)\n", name)
				stopNow()
				continue
			}
			fmt.Fprintf(e.stderr, "%s: interrupting the running runs\n", name)
			cancel()
			return
		}
	}()
	return stopCtx.Done(), runCtx, func() {
		signal.Stop(sig)
		close(finished)
		cancel()
		stopNow()
	}
}
