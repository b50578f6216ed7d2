//go:build !linux

package nfq

import (
	"errors"
	"time"
)

// ErrClosed is returned by Recv and Flush after Close.
var ErrClosed = errors.New("nfq: queue closed")

var errUnsupported = errors.New("nfq: NFQUEUE needs Linux")

// Queue is a bound NFQUEUE; on this system none can be opened.
type Queue struct{ cfg Config }

// Open fails: NFQUEUE is a Linux facility.
func Open(cfg Config) (*Queue, error) { return nil, errUnsupported }

func (q *Queue) Recv(pkts []Packet, deadline time.Time) (int, error) { return 0, errUnsupported }
func (q *Queue) Poll(pkts []Packet) (int, error)                     { return 0, errUnsupported }
func (q *Queue) Sleep(deadline time.Time) error                      { return errUnsupported }
func (q *Queue) Accept(id uint32)                                    {}
func (q *Queue) Drop(id uint32)                                      {}
func (q *Queue) AcceptUpTo(id uint32)                                {}
func (q *Queue) AcceptWithMark(id, mark uint32)                      {}
func (q *Queue) AcceptModified(id, mark uint32, payload []byte)      {}
func (q *Queue) Pending() int                                        { return 0 }
func (q *Queue) Flush() error                                        { return errUnsupported }
func (q *Queue) Stats() (Stats, error)                               { return Stats{}, errUnsupported }
func (q *Queue) Interrupt()                                          {}
func (q *Queue) Close() error                                        { return nil }
func (q *Queue) Num() uint16                                         { return q.cfg.Num }
func (q *Queue) Config() Config                                      { return q.cfg }

// LockThreadPrecise fails: thread scheduling control is Linux-only here.
func LockThreadPrecise(want Sched) (restore func(), got Sched, err error) {
	return nil, SchedDefault, errUnsupported
}

// LockThreadPriority fails: thread scheduling control is Linux-only here.
func LockThreadPriority(want Sched, prio int) (restore func(), got Sched, err error) {
	return nil, SchedDefault, errUnsupported
}
