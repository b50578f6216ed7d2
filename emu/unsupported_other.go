//go:build !linux

package emu

import (
	"context"
	"errors"
	"time"

	"github.com/dc-emu/emu/topo"
)

// errUnsupported is what every kernel-facing call returns off Linux: the
// emulator needs network namespaces, netlink and NFQUEUE. Configuration,
// traces and analysis work everywhere.
var errUnsupported = errors.New("emu emulates networks only on Linux (network namespaces, netlink, NFQUEUE); config, trace and analyze work here")

// Emulation is a running emulated network (Linux only).
type Emulation struct {
	Config   Config
	ID       string
	Net      *topo.Net
	Epoch    time.Time
	Backends map[string]string
	Warnings []string
}

func Start(context.Context, Config, StartOptions) (*Emulation, error) { return nil, errUnsupported }
func (e *Emulation) Close() error                                     { return nil }
func (e *Emulation) Nodes() []NodeInfo                                { return nil }
func (e *Emulation) Failed() <-chan error                             { return nil }
func Run(context.Context, Config, RunOptions) (*Summary, error)       { return nil, errUnsupported }
func Calibrate(context.Context, Config, CalibrateOptions) (*Calibration, error) {
	return nil, errUnsupported
}
func Doctor() DoctorReport {
	return DoctorReport{CanRun: false, Checks: []Check{{Name: "linux", Required: true, Detail: errUnsupported.Error()}}}
}
func Clean(bool) (CleanReport, error)                { return CleanReport{}, errUnsupported }
func Down(context.Context, string) ([]string, error) { return nil, errUnsupported }
