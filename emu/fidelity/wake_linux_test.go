package fidelity

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/delayline"
	"github.com/dc-emu/emu/emu/internal/nfq/nfqtest"
	"github.com/dc-emu/emu/internal/emutest"
)

// BenchmarkWakeLateness separates the machine's share of a packet
// thread's lateness from the Go runtime's: a real-time thread locked as a
// delay-line loop is sleeps until absolute deadlines 1 ms apart for 3 s
// and records how late it woke, once through the runtime's syscall path
// (unix.Syscall: on return the thread must get a P back before Go code
// runs, as the loops' ppoll does) and once through RawSyscall (the thread
// keeps its P while asleep, so only the kernel and the hypervisor can
// delay it), each quiet and with four spinning processes.
func BenchmarkWakeLateness(b *testing.B) {
	emutest.RequireRoot(b)
	for _, spin := range []int{0, 4} {
		for _, raw := range []bool{false, true} {
			b.Run(fmt.Sprintf("spin=%d/raw=%v", spin, raw), func(b *testing.B) {
				emutest.Exclusive(b)
				for range spin {
					startLoad(b, "spin", nil)
				}
				time.Sleep(500 * time.Millisecond)
				var h delayline.Histogram
				err := nfqtest.OnRealtimeThread(func() error {
					start := time.Now()
					for i := 1; i <= 3000; i++ {
						due := start.Add(time.Duration(i) * time.Millisecond)
						ts := unix.NsecToTimespec(due.UnixNano())
						if raw {
							unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_REALTIME, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
						} else {
							unix.Syscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_REALTIME, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
						}
						h.Add(time.Since(due))
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				s := h.Snapshot()
				b.ReportMetric(inUs(s.Quantile(0.5)), "late-p50-µs")
				b.ReportMetric(inUs(s.Quantile(0.99)), "late-p99-µs")
				b.ReportMetric(inUs(s.Quantile(0.999)), "late-p99.9-µs")
				b.ReportMetric(inUs(s.Quantile(1)), "late-max-µs")
			})
		}
	}
}
