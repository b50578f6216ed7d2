package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/dc-emu/emu/emu"
	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// sweepRunner gives emu sweep and emu reproduce their runner: emu.Run for
// the commands, a fake in their tests.
type sweepRunner func(e *env, verbose bool) (sweep.Runner, error)

// emuRunner runs each point with emu.Run. Warnings (and, with --verbose,
// the live status lines) go to stderr prefixed with the run's id.
func emuRunner(e *env, verbose bool) (sweep.Runner, error) {
	return func(ctx context.Context, cfg config.Config, out string) (*results.Summary, error) {
		log := &prefixWriter{w: e.stderr, prefix: "  " + filepath.Base(out) + ": "}
		defer log.Flush()
		o := emu.RunOptions{Out: out, Log: log}
		if verbose {
			o.Status = log
		}
		return emu.Run(ctx, cfg, o)
	}, nil
}

// drive is what emu sweep and emu reproduce do once their flags are
// mapped to s and j: a dry run prints the plan to stdout; otherwise the
// session runs with newRunner's runner, progress on stderr and Ctrl-C in
// two stages (twoStageInterrupt), in a directory the user behind sudo may
// write to (userOut). A directory that holds another plan is a usage
// error.
func drive(e *env, s sweep.Session, j sweep.Job, dryRun bool, newRunner sweepRunner, verbose bool) error {
	s.Out = e.stdout
	if dryRun {
		return s.DryRun(j)
	}
	if err := userOut(s.Dir); err != nil {
		return err
	}
	var err error
	if s.Options.Runner, err = newRunner(e, verbose); err != nil {
		return err
	}
	stop, ctx, release := twoStageInterrupt(e, s.Name)
	defer release()
	s.Options.Progress, s.Options.Stop = e.stderr, stop
	err = s.Run(ctx, j)
	if errors.Is(err, sweep.ErrPlanChanged) {
		return usageError{err}
	}
	return err
}

// prefixWriter writes complete lines to w, each with a prefix.
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    bytes.Buffer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf.Write(b)
	for {
		line, err := p.buf.ReadBytes('\n')
		if err != nil {
			p.buf.Write(line) // incomplete: keep for the next write
			return len(b), nil
		}
		if _, err := fmt.Fprintf(p.w, "%s%s", p.prefix, line); err != nil {
			return len(b), err
		}
	}
}

// Flush writes a last incomplete line.
func (p *prefixWriter) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.buf.Len() > 0 {
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf.String())
		p.buf.Reset()
	}
}
