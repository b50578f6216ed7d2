package nfqtest

import (
	"encoding/binary"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
)

// OnRealtimeThread runs f on a fresh goroutine locked to a thread scheduled
// as the delay-line loops are (nfq.LockThreadPrecise with SchedRealtime:
// SCHED_FIFO where permitted, timer slack 1 ns), and returns f's error or
// the error of getting such a thread. Senders and samplers whose timing
// the measured load must not disturb run there.
func OnRealtimeThread(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		restore, _, err := nfq.LockThreadPrecise(nfq.SchedRealtime)
		if err != nil {
			errc <- err
			return
		}
		defer restore()
		errc <- f()
	}()
	return <-errc
}

// SleepUntil sleeps the calling thread until t with nanosleep, so a
// real-time thread wakes by the kernel's timer, not the runtime's. It
// returns at once when t has passed.
func SleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		ts := unix.NsecToTimespec(int64(d))
		unix.Nanosleep(&ts, nil)
	}
}

// RecvStamp is the kernel's receive time of a datagram (SCM_TIMESTAMPNS,
// asked for with SO_TIMESTAMPNS) from its control messages; false when
// they hold none.
func RecvStamp(oob []byte) (time.Time, bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return time.Time{}, false
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			sec := int64(binary.NativeEndian.Uint64(m.Data))
			nsec := int64(binary.NativeEndian.Uint64(m.Data[8:]))
			return time.Unix(sec, nsec), true
		}
	}
	return time.Time{}, false
}
