package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Where a KVM guest's cpuidle driver and the haltpoll driver's parameters
// are.
const (
	cpuidleDriverFile = "/sys/devices/system/cpu/cpuidle/current_driver"
	haltPollDir       = "/sys/module/haltpoll/parameters"
)

// haltPollAdvice is the setting the check suggests: an idle vCPU polls
// 200 µs before it halts, longer than the delay lines' usual gap between
// releases at tens of Mbit/s.
const haltPollAdvice = 200000

// haltPoll reports how a virtual machine's idle vCPUs wait, when the guest
// uses the cpuidle-haltpoll driver. With guest_halt_poll_ns 0 an idle vCPU
// halts at once, so every wake-up of a delay line, a proxy or an endpoint
// first waits for the hypervisor to run the vCPU again; on a busy host
// that wait is the run's lateness. On the 2-vCPU Firecracker development
// VM, three README main jobs at 0 lost 1.3, 7.1 and 17.3 % of the CPUs to
// steal with delay-line late_p99 0.48–5.1 ms (two of three degraded), and
// three at 200000 lost 0.6–1.0 % with late_p99 0.26–0.32 ms; in a
// reproduction's first preset, 26 of 30 attempts came back degraded at 0
// and 3 of 21 at 200000, minutes apart. Polling costs the host CPU while
// the guest idles, so emu never sets it: the check says how. ok is false
// when the guest does not use the driver (nothing to report).
func haltPoll(driverFile, dir string) (detail string, ok bool, err error) {
	b, err := os.ReadFile(driverFile)
	if err != nil || strings.TrimSpace(string(b)) != "haltpoll" {
		return "", false, nil
	}
	path := filepath.Join(dir, "guest_halt_poll_ns")
	v, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", true, fmt.Errorf("haltpoll cpuidle driver without %s: state unknown", path)
	}
	if err != nil {
		return "", true, fmt.Errorf("state unknown: %w", err)
	}
	ns, err := strconv.ParseUint(strings.TrimSpace(string(v)), 10, 64)
	if err != nil {
		return "", true, fmt.Errorf("state unknown: %s: %q is not a number", path, strings.TrimSpace(string(v)))
	}
	if ns == 0 {
		return "", true, fmt.Errorf("guest_halt_poll_ns=0: an idle vCPU halts at once and each wake-up of the delay lines waits for the hypervisor (on a busy host: steal, late releases, degraded runs); as root, echo %d > %s lets it poll %d µs first (costs the host CPU while this guest idles)", haltPollAdvice, path, haltPollAdvice/1000)
	}
	return fmt.Sprintf("guest_halt_poll_ns=%d: an idle vCPU polls up to %d µs before it halts", ns, ns/1000), true, nil
}
