//go:build !linux

package emu

import (
	"context"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
)

// Off Linux a run cannot build its network (network.ErrUnsupported).
func Run(context.Context, config.Config, RunOptions) (*results.Summary, error) {
	return nil, network.ErrUnsupported
}
func Calibrate(context.Context, config.Config, CalibrateOptions) (*results.Calibration, error) {
	return nil, network.ErrUnsupported
}
func CalibrateJobs(context.Context, config.Config, CalibrateOptions) (*results.JobsCalibration, error) {
	return nil, network.ErrUnsupported
}
