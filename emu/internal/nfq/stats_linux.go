package nfq

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Stats returns the kernel's counters for the queue, read from the
// statistics file of the queue's namespace (opened there by Open), and this
// client's own counters. Safe from any goroutine; it allocates a little, so
// call it at a sampling rate, not per packet.
func (q *Queue) Stats() (Stats, error) {
	st := Stats{
		NoBufs:           q.noBufs.Load(),
		VerdictErrors:    q.verdictErrs.Load(),
		LastVerdictErrno: q.lastErrno.Load(),
	}
	q.statsMu.Lock()
	defer q.statsMu.Unlock()
	if q.procf < 0 {
		return st, ErrClosed
	}
	n, err := unix.Pread(q.procf, q.statsBuf, 0)
	if err != nil {
		return st, fmt.Errorf("nfq: queue %d: read statistics: %w", q.cfg.Num, err)
	}
	if err := parseProcStats(q.statsBuf[:n], q.cfg.Num, &st); err != nil {
		return st, err
	}
	return st, nil
}
