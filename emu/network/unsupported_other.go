//go:build !linux

package network

import (
	"context"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runstate"
)

// machinery is empty: an Emulation runs on Linux only.
type machinery struct{}

func Start(context.Context, config.Config, Options) (*Emulation, error) {
	return nil, ErrUnsupported
}
func (e *Emulation) Close() error               { return nil }
func (e *Emulation) Nodes() []runstate.NodeInfo { return nil }
func (e *Emulation) Failed() <-chan error       { return nil }

// PDCP has no proxies' counters off Linux.
func (e *Emulation) PDCP() map[string]results.PDCPCounters { return nil }
