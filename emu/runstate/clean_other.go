//go:build !linux

package runstate

import (
	"context"
	"errors"
)

var errUnsupported = errors.New("emu runs emulations only on Linux")

// Clean has nothing to clean off Linux.
func Clean(bool) (CleanReport, error) { return CleanReport{}, errUnsupported }

// Down has nothing to stop off Linux.
func Down(context.Context, string) ([]string, error) { return nil, errUnsupported }
