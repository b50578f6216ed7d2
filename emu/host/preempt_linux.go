package host

import (
	"bufio"
	"compress/gzip"
	"os"
	"strings"
)

// preemptionModel reports the kernel's preemption model, which bounds the
// delay line's timing: under "none" a real-time thread whose timer fired
// still waits until the kernel work of other tasks yields the CPU (stalls
// of 10–100 ms were measured on such a kernel under load). ok is false
// when the model cannot be read.
func preemptionModel() (model string, ok bool) {
	if b, err := os.ReadFile("/proc/cmdline"); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if v, found := strings.CutPrefix(f, "preempt="); found {
				return v + " (preempt= on the kernel command line)", true
			}
		}
	}
	f, err := os.Open("/proc/config.gz")
	if err != nil {
		return "", false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", false
	}
	sc := bufio.NewScanner(zr)
	model = ""
	dynamic := false
	for sc.Scan() {
		switch sc.Text() {
		case "CONFIG_PREEMPT_NONE=y":
			model = "none"
		case "CONFIG_PREEMPT_VOLUNTARY=y":
			model = "voluntary"
		case "CONFIG_PREEMPT=y":
			model = "full"
		case "CONFIG_PREEMPT_LAZY=y":
			model = "lazy"
		case "CONFIG_PREEMPT_RT=y":
			model = "rt"
		case "CONFIG_PREEMPT_DYNAMIC=y":
			dynamic = true
		}
	}
	if model == "" {
		return "", false
	}
	if dynamic {
		model += " (build default; preempt=full at boot changes it)"
	}
	return model, true
}
