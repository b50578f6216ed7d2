package mptcp

import (
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"

	"github.com/dc-emu/emu/internal/emutest"
)

// requireMPTCP skips unless the kernel has MPTCP (and we are root).
func requireMPTCP(t testing.TB) {
	t.Helper()
	emutest.RequireRoot(t)
	if _, err := os.Stat(sysctlDir + "enabled"); err != nil {
		t.Skipf("kernel without MPTCP: %v", err)
	}
}

func openPM(t *testing.T, ns *emutest.NetNS) *PM {
	t.Helper()
	pm, err := OpenPM(int(ns.NS))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pm.Close() })
	return pm
}

// hostEndpoints lists the endpoints of the test's own namespace (read
// only), to show a test changed nothing outside its namespace.
func hostEndpoints(t *testing.T) []Endpoint {
	t.Helper()
	f, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pm, err := OpenPM(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer pm.Close()
	eps, err := pm.Endpoints()
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

func TestPMEndpointsAndLimits(t *testing.T) {
	requireMPTCP(t)
	before := hostEndpoints(t)
	ns := emutest.NewNetNS(t)
	pm := openPM(t, ns)

	// A signal endpoint with a port listens on it: the address must exist.
	lo, err := ns.Handle.LinkByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	loAddr, _ := netlink.ParseAddr("10.77.2.2/32")
	if err := ns.Handle.AddrAdd(lo, loAddr); err != nil {
		t.Fatal(err)
	}
	if eps, err := pm.Endpoints(); err != nil || len(eps) != 0 {
		t.Fatalf("fresh namespace: endpoints %v, %v", eps, err)
	}
	a, err := pm.AddEndpoint(Endpoint{Addr: netip.MustParseAddr("10.77.1.2"), Flags: FlagSubflow | FlagBackup, IfIndex: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := pm.AddEndpoint(Endpoint{ID: 42, Addr: netip.MustParseAddr("10.77.2.2"), Port: 4000, Flags: FlagSignal})
	if err != nil {
		t.Fatal(err)
	}
	c, err := pm.AddEndpoint(Endpoint{ID: 7, Addr: netip.MustParseAddr("fd00::7"), Flags: FlagSubflow | FlagFullmesh})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == 0 || a.Flags != FlagSubflow|FlagBackup || a.IfIndex != 1 {
		t.Errorf("first endpoint read back as %v", a)
	}
	if b.ID != 42 || b.Port != 4000 || b.Flags != FlagSignal {
		t.Errorf("second endpoint read back as %v", b)
	}
	if c.ID != 7 || c.Addr != netip.MustParseAddr("fd00::7") || c.Flags != FlagSubflow|FlagFullmesh {
		t.Errorf("IPv6 endpoint read back as %v", c)
	}
	got, err := pm.Endpoint(42)
	if err != nil || got != b {
		t.Errorf("get id 42: %v, %v; want %v", got, err, b)
	}
	all, err := pm.Endpoints()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(x, y Endpoint) int { return int(x.ID) - int(y.ID) })
	want := []Endpoint{a, c, b}
	slices.SortFunc(want, func(x, y Endpoint) int { return int(x.ID) - int(y.ID) })
	if !slices.Equal(all, want) {
		t.Errorf("dump %v, want %v", all, want)
	}
	if _, err := pm.AddEndpoint(Endpoint{ID: 42, Addr: netip.MustParseAddr("10.77.3.2")}); err == nil {
		t.Error("a second endpoint with id 42 was accepted")
	}

	for _, l := range []Limits{{Subflows: 2, AddAddrAccepted: 1}, {Subflows: 8, AddAddrAccepted: 8}, {}} {
		if err := pm.SetLimits(l); err != nil {
			t.Fatal(err)
		}
		if got, err := pm.Limits(); err != nil || got != l {
			t.Errorf("limits %+v read back as %+v, %v", l, got, err)
		}
	}
	if err := pm.SetLimits(Limits{Subflows: 9}); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Errorf("limit 9: %v", err)
	}

	if err := pm.DeleteEndpoint(42); err != nil {
		t.Fatal(err)
	}
	if _, err := pm.Endpoint(42); err == nil {
		t.Error("endpoint 42 still there after delete")
	}
	if err := pm.DeleteEndpoint(42); err == nil {
		t.Error("deleting a missing endpoint succeeded")
	}
	if err := pm.FlushEndpoints(); err != nil {
		t.Fatal(err)
	}
	if eps, err := pm.Endpoints(); err != nil || len(eps) != 0 {
		t.Errorf("after flush: %v, %v", eps, err)
	}
	if after := hostEndpoints(t); !slices.Equal(before, after) {
		t.Errorf("the test's own namespace changed: %v → %v", before, after)
	}
}

// TestPMEndpointsGoWithNamespace: endpoints live in their namespace only;
// once it is gone nothing of them is visible anywhere.
func TestPMEndpointsGoWithNamespace(t *testing.T) {
	requireMPTCP(t)
	before := hostEndpoints(t)
	t.Run("inner", func(t *testing.T) {
		ns := emutest.NewNetNS(t)
		pm := openPM(t, ns)
		if _, err := pm.AddEndpoint(Endpoint{ID: 9, Addr: netip.MustParseAddr("10.78.0.1"), Flags: FlagSignal}); err != nil {
			t.Fatal(err)
		}
		other := emutest.NewNetNS(t)
		if eps, err := openPM(t, other).Endpoints(); err != nil || len(eps) != 0 {
			t.Errorf("another namespace sees %v, %v", eps, err)
		}
	})
	if after := hostEndpoints(t); !slices.Equal(before, after) {
		t.Errorf("endpoints outside the test namespaces changed: %v → %v", before, after)
	}
}

func TestOpenPMRefusesCurrentNamespace(t *testing.T) {
	if _, err := OpenPM(0); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("OpenPM(0): %v", err)
	}
}

func TestProbeAndScheduler(t *testing.T) {
	requireMPTCP(t)
	ns := emutest.NewNetNS(t)
	k, err := Probe(int(ns.NS))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("namespace: %+v", k)
	if !k.Enabled || !slices.Contains(k.PathManagers, "kernel") || len(k.Schedulers) == 0 || !slices.Contains(k.Schedulers, k.Scheduler) {
		t.Errorf("implausible probe %+v", k)
	}
	if err := SetScheduler(int(ns.NS), k.Schedulers[len(k.Schedulers)-1]); err != nil {
		t.Error(err)
	}
	if err := SetScheduler(int(ns.NS), "nosuchsched"); err == nil || !strings.Contains(err.Error(), "offers") {
		t.Errorf("unknown scheduler: %v", err)
	}
	if err := SetScheduler(0, "default"); err == nil {
		t.Error("SetScheduler in the current namespace accepted")
	}
}

// TestBPFSchedulers: the BTF probe finds the struct_ops the kernel does
// register for BPF (TCP congestion controls), so its answer for MPTCP
// schedulers means something.
func TestBPFSchedulers(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skipf("kernel without BTF: %v", err)
	}
	// Every kernel with BTF and the bpf syscall registers BPF congestion
	// controls; a probe that misses them would miss schedulers too.
	if ok, err := structOpsRegistered("tcp_congestion_ops"); err != nil || !ok {
		t.Errorf("probe does not find bpf_struct_ops_tcp_congestion_ops (%v, %v)", ok, err)
	}
	bpf, err := BPFSchedulers()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("BPF MPTCP packet schedulers loadable: %v", bpf)
}
