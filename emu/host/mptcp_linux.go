package host

import (
	"errors"
	"strings"

	"github.com/dc-emu/emu/emu/internal/mptcp"
)

// mptcpChecks reports, for a namespace of this kernel, the MPTCP path
// managers and packet schedulers it offers (what mptcp.scheduler may
// name) and whether BPF may add schedulers.
func mptcpChecks(nsFd int, add func(name string, required bool, err error, okDetail string) bool) {
	k, err := mptcp.Probe(nsFd)
	if err != nil {
		add("MPTCP path managers", false, err, "")
		return
	}
	var pmErr error
	if len(k.PathManagers) == 0 {
		pmErr = errors.New("the kernel lists none (net.mptcp.available_path_managers needs Linux 6.15): the in-kernel one")
	}
	pm := strings.Join(k.PathManagers, " ")
	if k.PathManager != "" {
		pm += "; in use: " + k.PathManager
	}
	add("MPTCP path managers", false, pmErr, pm)
	var schedErr error
	if len(k.Schedulers) == 0 {
		schedErr = errors.New("the kernel lists none (net.mptcp.available_schedulers needs Linux 6.6): the built-in one only")
	}
	sched := strings.Join(k.Schedulers, " ") + "; in use: " + k.Scheduler + " (key mptcp.scheduler)"
	if bpf, err := mptcp.BPFSchedulers(); err != nil {
		sched += "; BPF schedulers: unknown (" + err.Error() + ")"
	} else if bpf {
		sched += "; BPF programs can add more (mptcp_sched_ops)"
	} else {
		sched += "; BPF programs cannot add more (no mptcp_sched_ops in this kernel)"
	}
	add("MPTCP packet schedulers", false, schedErr, sched)
}
