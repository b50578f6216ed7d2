package emu

import (
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/runloop"
)

// runner runs the flows of one configuration. Everything in it belongs to
// the goroutine of loop: the goroutines that follow the endpoint processes
// only send events on events.
type runner struct {
	em      *network.Emulation
	cfg     config.Config
	flows   []flowEndpoints // compiled from cfg
	o       RunOptions
	started time.Time
	state   *runloop.Run
	events  chan runloop.Event
	servers []*process // by flow; nil until started
	clients []*process
	meas    measure
	scratch string
	obs     observation // observation_linux.go
}

// file is a run-directory path (results' slash form) under the output.
func (r *runner) file(rel string) string { return results.RunDir(r.o.Out).File(rel) }
