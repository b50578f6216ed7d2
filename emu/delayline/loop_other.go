//go:build !linux

package delayline

import (
	"errors"
	"time"

	"github.com/dc-emu/emu/emu/internal/nfq"
)

var errUnsupported = errors.New("delayline: the NFQUEUE delay line needs Linux")

// Loop runs a Line on an NFQUEUE; on this system it stops at once.
type Loop struct{ done chan struct{} }

// Options tune a Loop.
type Options struct {
	Sched nfq.Sched
	Name  string
}

// QueueConfig is the queue configuration a delay line wants.
func QueueConfig(nsFd int, num uint16, perPacket bool) nfq.Config {
	return nfq.Config{NetNS: nsFd, Num: num, CopyMode: nfq.CopyPacket, CopyRange: 1, GSO: !perPacket, MaxQueueLen: 65536, Batch: 256, Timestamps: true}
}

func Start(q *nfq.Queue, l *Line) *Loop { return StartWith(q, l, Options{}) }

func StartWith(q *nfq.Queue, l *Line, o Options) *Loop {
	d := make(chan struct{})
	close(d)
	return &Loop{done: d}
}

func (lp *Loop) Sched() nfq.Sched            { return nfq.SchedDefault }
func (lp *Loop) CPUTime() time.Duration      { return 0 }
func (lp *Loop) TakeLatePeak() time.Duration { return 0 }
func (lp *Loop) TID() int                    { return 0 }
func (lp *Loop) Snapshot() Snapshot          { return Snapshot{} }
func (lp *Loop) Done() <-chan struct{}       { return lp.done }
func (lp *Loop) Err() error                  { return errUnsupported }
func (lp *Loop) Close() error                { return errUnsupported }
