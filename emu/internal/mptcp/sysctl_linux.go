//go:build linux

package mptcp

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/dc-emu/emu/internal/nsthread"
)

const sysctlDir = "/proc/sys/net/mptcp/"

// Probe reads the MPTCP sysctls of the namespace nsFd (0: the calling
// thread's). A kernel without MPTCP fails with an error that says so.
func Probe(nsFd int) (Kernel, error) {
	var k Kernel
	err := inNetNS(nsFd, func() error {
		en, err := readSysctl("enabled")
		if errors.Is(err, fs.ErrNotExist) {
			return errors.New("mptcp: this kernel has no MPTCP (no " + sysctlDir + ")")
		}
		if err != nil {
			return err
		}
		k.Enabled = en == "1"
		for _, s := range []struct {
			name     string
			dst      *string
			list     *[]string
			optional bool
		}{
			{"path_manager", &k.PathManager, nil, true},
			{"available_path_managers", nil, &k.PathManagers, true},
			{"scheduler", &k.Scheduler, nil, true},
			{"available_schedulers", nil, &k.Schedulers, true},
		} {
			v, err := readSysctl(s.name)
			if errors.Is(err, fs.ErrNotExist) && s.optional {
				continue
			}
			if err != nil {
				return err
			}
			if s.dst != nil {
				*s.dst = v
			} else {
				*s.list = strings.Fields(v)
			}
		}
		return nil
	})
	return k, err
}

// SetScheduler sets net.mptcp.scheduler in namespace nsFd for connections
// made from now on. It refuses a name the kernel does not list in
// net.mptcp.available_schedulers and nsFd <= 0.
func SetScheduler(nsFd int, name string) error {
	if nsFd <= 0 {
		return fmt.Errorf("mptcp: set scheduler %q: no network namespace given (fd %d)", name, nsFd)
	}
	return inNetNS(nsFd, func() error {
		avail, err := readSysctl("available_schedulers")
		if err != nil {
			return fmt.Errorf("mptcp: set scheduler %q: %w", name, err)
		}
		if !slices.Contains(strings.Fields(avail), name) {
			return fmt.Errorf("mptcp: scheduler %q: this kernel offers %s", name, avail)
		}
		if err := os.WriteFile(sysctlDir+"scheduler", []byte(name), 0); err != nil {
			return fmt.Errorf("mptcp: set scheduler %q: %w", name, err)
		}
		got, err := readSysctl("scheduler")
		if err == nil && got != name {
			err = fmt.Errorf("the kernel reports %q", got)
		}
		if err != nil {
			return fmt.Errorf("mptcp: set scheduler %q: %w", name, err)
		}
		return nil
	})
}

func readSysctl(name string) (string, error) {
	b, err := os.ReadFile(sysctlDir + name)
	if err != nil {
		return "", fmt.Errorf("mptcp: read net.mptcp.%s: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// inNetNS runs f on a thread inside namespace nsFd (0: the current one).
// /proc/sys/net shows the namespace of the thread that opens it.
func inNetNS(nsFd int, f func() error) error {
	if nsFd == 0 {
		return f()
	}
	return nsthread.Do(nsFd, f)
}

// BPFSchedulers reports whether this kernel lets BPF programs register
// MPTCP packet schedulers (struct_ops "mptcp_sched_ops"): the kernel's BTF
// then has the value type bpf_struct_ops_mptcp_sched_ops, as it has
// bpf_struct_ops_tcp_congestion_ops for BPF congestion controls. Upstream
// Linux up to 6.18 at least has none; it exists in the MPTCP development
// tree.
func BPFSchedulers() (bool, error) { return structOpsRegistered("mptcp_sched_ops") }

// structOpsRegistered reports whether BPF can implement the kernel
// structure ops (the BTF names bpf_struct_ops_<ops>).
func structOpsRegistered(ops string) (bool, error) {
	b, err := os.ReadFile("/sys/kernel/btf/vmlinux")
	if err != nil {
		return false, fmt.Errorf("mptcp: kernel BTF: %w", err)
	}
	return bytes.Contains(b, []byte("\x00bpf_struct_ops_"+ops+"\x00")), nil
}
