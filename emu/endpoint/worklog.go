package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
)

// What the rr and objects clients share: their per-kind log, their result
// and how their loops end.

// flusher is a per-kind log writer of emu/results.
type flusher interface{ Flush() error }

// kindLog is a kind's open log file and its writer; the zero value logs
// nothing.
type kindLog[W flusher] struct {
	f    *os.File
	w    W
	what string
	on   bool
}

// openKindLog creates the log at path (none for "") written by mk.
func openKindLog[W flusher](path, what string, mk func(io.Writer) W) (kindLog[W], error) {
	if path == "" {
		return kindLog[W]{}, nil
	}
	f, err := invoker.Create(path)
	if err != nil {
		return kindLog[W]{}, fmt.Errorf("%s: %w", what, err)
	}
	return kindLog[W]{f: f, w: mk(f), what: what, on: true}, nil
}

// close writes the log out; err is the flow's, kept if there is one.
func (l kindLog[W]) close(err error) error {
	if !l.on {
		return err
	}
	if ferr := errors.Join(l.w.Flush(), l.f.Close()); ferr != nil && err == nil {
		return fmt.Errorf("%s: %w", l.what, ferr)
	}
	return err
}

// workResult is the Result of a kind whose received bytes m counted over
// c's connections: the seconds run to now, or to the window's end.
func workResult(m *meter, c *connector, work *results.FlowWorkload) Result {
	now := time.Now()
	r := Result{Bytes: m.bytes.Load(), CC: c.congestion(), RcvBufBytes: c.rcvbuf, Work: work}
	r.Seconds = now.Sub(m.start).Seconds()
	if !m.windowEnd.IsZero() && now.After(m.windowEnd) {
		r.Seconds = m.windowEnd.Sub(m.start).Seconds()
	}
	if r.Seconds > 0 {
		r.GoodputMbps = float64(r.Bytes) * 8 / r.Seconds / 1e6
	}
	return r
}

// loopEnd turns how a kind's loop ended into the flow's error: the
// window's end is not one, the caller's cancellation is an interruption.
func loopEnd(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errWindowEnd) {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))
	}
	return err
}
