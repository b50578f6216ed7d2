package host

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/dcproxy"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/pdcp"
	"github.com/dc-emu/emu/topo"
)

// Doctor probes the machine in a scratch namespace (nothing outside it is
// touched) and reports what emu can use.
func Doctor() DoctorReport {
	r := DoctorReport{Backends: map[string]string{}, CanRun: true}
	add := func(name string, required bool, err error, okDetail string) bool {
		c := Check{Name: name, OK: err == nil, Required: required, Detail: okDetail}
		if err != nil {
			c.Detail = err.Error()
			if required {
				r.CanRun = false
			}
		}
		r.Checks = append(r.Checks, c)
		return err == nil
	}
	root := os.Geteuid() == 0
	var rootErr error
	if !root {
		rootErr = fmt.Errorf("not root (euid %d): namespaces, qdiscs and NFQUEUE need root; run emu with sudo", os.Geteuid())
	}
	add("root", true, rootErr, "running as root")
	if !root {
		return r
	}
	kernel := CollectVersions().Kernel
	add("kernel", false, nil, kernel)
	if model, ok := preemptionModel(); ok {
		var err error
		if strings.HasPrefix(model, "none") || strings.HasPrefix(model, "voluntary") {
			err = fmt.Errorf("preemption %s: a due packet can wait for other tasks' kernel work (rare 10-100 ms stalls under load); preempt=full gives the tightest delay-line timing", model)
		}
		add("kernel preemption", false, err, "preemption "+model)
	}
	fs, err := fairServer(kernel, fairServerDir)
	add("kernel fair server", false, err, fs)
	if hp, ok, err := haltPoll(cpuidleDriverFile, haltPollDir); ok {
		add("VM halt polling", false, err, hp)
	}

	sc, err := topo.NewScratch()
	if !add("network namespaces", true, err, "can create network namespaces") {
		return r
	}
	defer sc.Close()
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "probe0"}, PeerName: "probe1"}
	err = sc.Handle.LinkAdd(veth)
	if err == nil {
		var l netlink.Link
		if l, err = sc.Handle.LinkByName("probe0"); err == nil {
			err = sc.Handle.LinkSetUp(l)
		}
	}
	if !add("veth", true, err, "can create veth pairs") {
		return r
	}
	link, _ := sc.Handle.LinkByName("probe0")
	idx := link.Attrs().Index
	qdiscs := []struct {
		name     string
		required bool
		q        netlink.Qdisc
	}{
		{"qdisc htb (rate)", true, netlink.NewHtb(netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT})},
		{"qdisc tbf", false, &netlink.Tbf{QdiscAttrs: netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT}, Rate: 125000, Limit: 10000, Buffer: 10000}},
		{"qdisc netem (reported only: the delay line emulates delay and loss)", false, netlink.NewNetem(netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT}, netlink.NetemQdiscAttrs{Latency: 1000})},
		{"qdisc fq", false, netlink.NewFq(netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT})},
		{"qdisc fq_codel", false, netlink.NewFqCodel(netlink.QdiscAttrs{LinkIndex: idx, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT})},
	}
	for _, q := range qdiscs {
		err := sc.Handle.QdiscReplace(q.q)
		if err == nil {
			sc.Handle.QdiscDel(q.q)
		} else {
			err = fmt.Errorf("not available: %w", err)
		}
		add(q.name, q.required, err, "available")
	}
	backend, err := nft.Probe(int(sc.NS))
	if err == nil && backend == nft.BackendNone {
		err = fmt.Errorf("the kernel accepts no NFQUEUE rule")
	}
	nfq := add("NFQUEUE rules", true, err, "rules installed with the "+backend.String()+" (no iptables/nft binary needed)")
	if nfq {
		r.Backends["queue_rules"] = backend.String()
	}
	// The delay line is the delay, jitter and loss backend on every kernel
	// (docs/design.md: netem's jitter reorders and its delays change with
	// the packet rate); netem is only reported.
	switch {
	case nfq:
		r.Backends["delay"] = "nfqueue delay line"
	default:
		r.Backends["delay"] = "none (needs NFQUEUE)"
	}
	r.Backends["rate"] = "htb"
	// The PDCP proxies need a TUN with the TCP/UDP segmentation offloads,
	// or they move a packet a read.
	if p, err := dcproxy.OpenProxy(int(sc.NS), "probe-pdcp", 1500, 0,
		[2]netip.AddrPort{netip.MustParseAddrPort("192.0.2.1:2152"), netip.MustParseAddrPort("192.0.2.2:2152")},
		dcproxy.ProxyConfig{SNBits: pdcp.SNBits18, Scheduler: pdcp.DefaultSchedulerConfig(), TReordering: pdcp.DefaultTReordering}); err != nil {
		r.Backends["pdcp"] = "unavailable (needs TUN and UDP sockets)"
		add("PDCP proxies (TUN, UDP GSO/GRO)", false, err, "")
	} else {
		batched := p.Batched()
		p.Close()
		if batched {
			r.Backends["pdcp"] = "batch proxies: tun with offloads, udp gso/gro"
			add("PDCP proxies (TUN, UDP GSO/GRO)", false, nil, "they move 64 KB batches")
		} else {
			r.Backends["pdcp"] = "batch proxies: tun without offloads"
			add("PDCP proxies (TUN, UDP GSO/GRO)", false, fmt.Errorf("the TUN takes no segmentation offloads: the proxies would move a packet a read"), "")
		}
	}
	rule := netlink.NewRule()
	rule.Table, rule.Priority, rule.Mark = 100, 100, 1
	err = sc.Handle.RuleAdd(rule)
	add("policy routing (fwmark rules)", true, err, "available")

	err = sc.Do(func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
		if err != nil {
			return fmt.Errorf("MPTCP sockets: %w", err)
		}
		return unix.Close(fd)
	})
	if add("MPTCP", false, err, "MPTCP sockets available") {
		mptcpChecks(int(sc.NS), add)
	}

	cc, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	ccs := strings.Fields(string(cc))
	if err == nil && len(ccs) == 0 {
		err = fmt.Errorf("no congestion control listed")
	}
	add("TCP congestion control", true, err, strings.Join(ccs, " "))
	r.Backends["tcp_cc"] = strings.Join(ccs, " ")

	for _, bin := range []struct{ name, pkg string }{{"gtlsserver", "ngtcp2-server"}, {"gtlsclient", "ngtcp2-client"}} {
		p, err := exec.LookPath(bin.name)
		if err != nil {
			err = fmt.Errorf("%s not found (apt-get install %s) — needed only for ngtcp2 flows", bin.name, bin.pkg)
		}
		add("ngtcp2 "+bin.name, false, err, p)
	}
	err = os.MkdirAll(topo.NetnsDir, 0o755)
	add("named namespaces ("+topo.NetnsDir+")", true, err, "writable")
	return r
}
