//go:build !linux

package emu

import (
	"context"
	"errors"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runstate"
)

// errUnsupported is what every kernel-facing call returns off Linux: the
// emulator needs network namespaces, netlink and NFQUEUE. Configuration,
// traces and analysis work everywhere.
var errUnsupported = errors.New("emu emulates networks only on Linux (network namespaces, netlink, NFQUEUE); config, trace and analyze work here")

// machinery is empty: an Emulation runs on Linux only.
type machinery struct{}

func Start(context.Context, config.Config, StartOptions) (*Emulation, error) {
	return nil, errUnsupported
}
func (e *Emulation) Close() error               { return nil }
func (e *Emulation) Nodes() []runstate.NodeInfo { return nil }
func (e *Emulation) Failed() <-chan error       { return nil }
func Run(context.Context, config.Config, RunOptions) (*results.Summary, error) {
	return nil, errUnsupported
}
func Calibrate(context.Context, config.Config, CalibrateOptions) (*results.Calibration, error) {
	return nil, errUnsupported
}
func CalibrateJobs(context.Context, config.Config, CalibrateOptions) (*results.JobsCalibration, error) {
	return nil, errUnsupported
}
