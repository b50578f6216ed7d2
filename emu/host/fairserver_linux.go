package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// fairServerDir is where the kernel exposes its fair deadline server, one
// directory per CPU (debugfs; kernels since 6.12).
const fairServerDir = "/sys/kernel/debug/sched/fair_server"

// fairServer reports the kernel's fair deadline server, which since Linux
// 6.12 runs ordinary tasks ahead of real-time ones for its runtime (50 ms
// by default) in each period (1 s) when it deems them starved: a delay
// line's real-time loop can wait that long. On the development VM a
// pinned SCHED_FIFO thread in a separate process, waking every 2 ms,
// overslept by 57 ms while its CPU ran ordinary tasks and the hypervisor
// stole nothing — the size of the stray delay-line stalls (docs/design.md).
// Reading it needs debugfs mounted and readable; emu does not mount it.
// err is nil when the server is off (runtime 0 on every CPU) or the
// kernel has none.
func fairServer(release, dir string) (detail string, err error) {
	if !kernelAtLeast(release, 6, 12) {
		return "none before Linux 6.12", nil
	}
	cpus, _ := filepath.Glob(filepath.Join(dir, "cpu*"))
	if len(cpus) == 0 {
		return "", fmt.Errorf("state unknown: %s not readable (debugfs not mounted, or not permitted here); Linux %s has it, by default 50 ms of every 1 s in which ordinary tasks run ahead of the delay lines' real-time threads (stray 50-100 ms stalls)", dir, release)
	}
	var on []string
	for _, cpu := range cpus {
		rt, err1 := readNs(filepath.Join(cpu, "runtime"))
		period, err2 := readNs(filepath.Join(cpu, "period"))
		if err1 != nil || err2 != nil {
			return "", fmt.Errorf("state unknown: %w", errors.Join(err1, err2))
		}
		if rt > 0 {
			on = append(on, fmt.Sprintf("%s %v of %v", filepath.Base(cpu), rt, period))
		}
	}
	if len(on) == 0 {
		return "off on every CPU (runtime 0)", nil
	}
	return "", fmt.Errorf("on (%s): ordinary tasks can run ahead of the delay lines' real-time threads that long (stray 50-100 ms stalls); writing 0 to %s/cpu*/runtime as root turns it off until reboot",
		strings.Join(on, ", "), dir)
}

func readNs(path string) (time.Duration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return time.Duration(n), nil
}

// kernelAtLeast reports whether a kernel release ("6.18.44-fc") is at
// least major.minor; an unparsable release is taken as new.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return true
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return true
	}
	return ma > major || ma == major && mi >= minor
}
