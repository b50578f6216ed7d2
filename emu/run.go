package emu

import (
	"errors"
	"io"
)

// RunOptions tune Run.
type RunOptions struct {
	// Out is the run directory; it is created (and may exist empty).
	Out string
	// Status receives a live line per second (flows' bytes and rates, time
	// left); nil keeps the run quiet.
	Status io.Writer
	// Log receives warnings.
	Log io.Writer
	// Binary is the emu executable started for endpoints; "" = this one.
	Binary string
	// ID is the run id (namespace names); "" picks a new one.
	ID string
}

// ErrInterrupted is returned (with a summary of what was measured) when the
// run's context was cancelled, e.g. by Ctrl-C.
var ErrInterrupted = errors.New("run interrupted")
