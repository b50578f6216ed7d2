package topo

import (
	"fmt"
	"net/netip"
	"slices"
)

// Paths a client can take to the servers.
const (
	PathDC    = "dc"
	PathLink1 = "link1"
	PathLink2 = "link2"
	// PathMPTCP is a client with one address per link, for Multipath TCP:
	// a subflow from each address takes its own link.
	PathMPTCP = "mptcp"
)

// Routing tables of the gateways; one per link, so a client's source
// address selects the link.
const (
	TableLink1 = 101
	TableLink2 = 102
)

// MTU of the two radio links when no PDU crosses them (DC off): above the
// endpoints' 1500, so a full-size packet crosses whole. It was sized for
// the NFQUEUE PDCP proxies' 4-byte shim, removed in issue #49, and kept so
// that the plans of runs without DC did not change.
const LinkMTU = 1520

// LinkMTUUDP is the radio links' MTU when PDUs cross them in UDP (the PDCP
// batch path): a full-size packet, the PDCP header (up to 3 bytes) and the
// UDP and IPv4 headers (28).
const LinkMTUUDP = 1536

// Addressing. Namespaces isolate runs, so every run uses the same plan:
//
//	srv  10.0.0.1/24 ─ gws 10.0.0.254/24
//	gws  10.1.1.1/24 ═ link1 ═ 10.1.1.2/24 gwc
//	gws  10.1.2.1/24 ═ link2 ═ 10.1.2.2/24 gwc
//	gwc  10.2.0.1/24 ─ cli  10.2.0.2/24   (DC client)
//	gwc  10.2.1.1/24 ─ cli1 10.2.1.2/24   (client on link1 only)
//	gwc  10.2.2.1/24 ─ cli2 10.2.2.2/24   (client on link2 only)
//	gwc  10.2.3.1/24 ─ cmp  10.2.3.2/24   (MPTCP client: this address on link1,
//	     10.2.4.1/24        10.2.4.2/24    this one on link2)
var (
	ServerAddr  = netip.MustParseAddr("10.0.0.1")
	serverNet   = netip.MustParsePrefix("10.0.0.0/24")
	gwsSrvAddr  = netip.MustParsePrefix("10.0.0.254/24")
	linkGWSAddr = [2]netip.Prefix{netip.MustParsePrefix("10.1.1.1/24"), netip.MustParsePrefix("10.1.2.1/24")}
	linkGWCAddr = [2]netip.Prefix{netip.MustParsePrefix("10.1.1.2/24"), netip.MustParsePrefix("10.1.2.2/24")}
)

// clientPlan is the node name and subnet of each path's client. A client
// with a second subnet (link2Subnet) has an address in each, the first
// routed over link1 and the second over link2.
var clientPlan = []struct {
	path, node  string
	subnet      netip.Prefix
	link2Subnet netip.Prefix
}{
	{PathDC, "cli", netip.MustParsePrefix("10.2.0.0/24"), netip.Prefix{}},
	{PathLink1, "cli1", netip.MustParsePrefix("10.2.1.0/24"), netip.Prefix{}},
	{PathLink2, "cli2", netip.MustParsePrefix("10.2.2.0/24"), netip.Prefix{}},
	{PathMPTCP, "cmp", netip.MustParsePrefix("10.2.3.0/24"), netip.MustParsePrefix("10.2.4.0/24")},
}

// ClientNode returns the node name of the client on a path.
func ClientNode(path string) string {
	for _, c := range clientPlan {
		if c.path == path {
			return c.node
		}
	}
	return ""
}

// ClientAddr returns the address of the client on a path.
func ClientAddr(path string) netip.Addr {
	for _, c := range clientPlan {
		if c.path == path {
			return hostAddr(c.subnet, 2)
		}
	}
	return netip.Addr{}
}

// ClientAddrs returns every address of the client on a path, in link
// order: one for most paths, one per link (link1, link2) for PathMPTCP.
func ClientAddrs(path string) []netip.Addr {
	for _, c := range clientPlan {
		if c.path == path {
			out := []netip.Addr{hostAddr(c.subnet, 2)}
			if c.link2Subnet.IsValid() {
				out = append(out, hostAddr(c.link2Subnet, 2))
			}
			return out
		}
	}
	return nil
}

// ClientSubnet returns the subnet of the client on a path.
func ClientSubnet(path string) netip.Prefix {
	for _, c := range clientPlan {
		if c.path == path {
			return c.subnet
		}
	}
	return netip.Prefix{}
}

// LinkSubnet is a client subnet whose packets always cross one link
// (0: link1, 1: link2).
type LinkSubnet struct {
	Path   string
	Prefix netip.Prefix
	Link   int
}

// LinkSubnets returns the subnets of paths' clients that are bound to one
// link: a single-link client's, and each of the MPTCP client's two. The
// DC client's subnet is not among them.
func LinkSubnets(paths []string) []LinkSubnet {
	var out []LinkSubnet
	for _, c := range clientPlan {
		if c.path == PathDC || !slices.Contains(paths, c.path) {
			continue
		}
		link := 0
		if c.path == PathLink2 {
			link = 1
		}
		out = append(out, LinkSubnet{Path: c.path, Prefix: c.subnet, Link: link})
		if c.link2Subnet.IsValid() {
			out = append(out, LinkSubnet{Path: c.path, Prefix: c.link2Subnet, Link: 1})
		}
	}
	return out
}

// DCOptions choose what the standard Dual Connectivity topology contains.
type DCOptions struct {
	// Paths lists the paths that need a client (dc, link1, link2).
	Paths []string
	// Uplink is the link DC clients send on when the uplink is not split
	// (link1 or link2); "split" routes by the mark of the device-side proxy,
	// with link1 when there is none.
	Uplink string
	// TCPBufferMax, when positive, is the largest buffer TCP's autotuning
	// may give a socket in every node, sending and receiving (the maximum
	// of net.ipv4.tcp_wmem and tcp_rmem; their minimum and default are
	// set to the kernel's own, 4096 and 16384 or 131072): a new
	// namespace's send maximum is the kernel's 4 MiB, which holds a TCP
	// sender to about 3 MB in flight, under a 500 ms path's BDP at
	// 50 Mbit/s.
	TCPBufferMax int64
	// LinkMTU is the radio links' MTU (0: LinkMTU).
	LinkMTU int
}

// Throughput is the paper's throughput topology: one server node, the two
// gateways and one DC client.
func Throughput(runID string) Spec {
	return DC(runID, DCOptions{Paths: []string{PathDC}, Uplink: PathLink1})
}

// Fairness is the paper's fairness topology: a DC client and one client on
// each link alone.
func Fairness(runID string) Spec {
	return DC(runID, DCOptions{Paths: []string{PathDC, PathLink1, PathLink2}, Uplink: PathLink1})
}

// DC builds the Dual Connectivity topology of design.md:
//
//	srv ─ gws ═ link1, link2 ═ gwc ─ cli, cli1, cli2
//
// Downlink to the DC client goes over link1 unless a mark from the
// network-side proxy picks a link; single-link clients are routed by
// destination on gws and by source on gwc.
func DC(runID string, o DCOptions) Spec {
	s := Spec{RunID: runID}
	s.Nodes = append(s.Nodes,
		Node{Name: "srv", Role: RoleServer, Routes: []Route{{Dst: netip.MustParsePrefix("0.0.0.0/0"), Via: gwsSrvAddr.Addr()}}},
	)
	gws := Node{Name: "gws", Role: RoleGateway, Forward: true}
	gwc := Node{Name: "gwc", Role: RoleGateway, Forward: true}
	s.Links = append(s.Links, Link{Name: "srv",
		A: End{Node: "srv", Iface: "gws", Addrs: []netip.Prefix{netip.PrefixFrom(ServerAddr, 24)}},
		B: End{Node: "gws", Iface: "srv", Addrs: []netip.Prefix{gwsSrvAddr}}})
	for i, name := range []string{"link1", "link2"} {
		dev := fmt.Sprintf("l%d", i+1)
		mtu := LinkMTU
		if o.LinkMTU > 0 {
			mtu = o.LinkMTU
		}
		s.Links = append(s.Links, Link{Name: name, MTU: mtu,
			A: End{Node: "gws", Iface: dev, Addrs: []netip.Prefix{linkGWSAddr[i]}},
			B: End{Node: "gwc", Iface: dev, Addrs: []netip.Prefix{linkGWCAddr[i]}}})
		// Per-link tables in gwc: a client's source address picks its
		// uplink.
		gwc.Routes = append(gwc.Routes, Route{Dst: serverNet, Via: linkGWSAddr[i].Addr(), Dev: dev, Table: TableLink1 + i})
	}
	// Main tables: DC traffic takes link1 when no proxy marks it.
	gwc.Routes = append(gwc.Routes, Route{Dst: serverNet, Via: linkGWSAddr[0].Addr(), Dev: "l1"})
	for _, c := range clientPlan {
		if !slices.Contains(o.Paths, c.path) {
			continue
		}
		link := 0
		if c.path == PathLink2 {
			link = 1
		}
		gws.Routes = append(gws.Routes, Route{Dst: c.subnet, Via: linkGWCAddr[link].Addr(), Dev: fmt.Sprintf("l%d", link+1)})
		uplinkTable := TableLink1 + link
		if c.path == PathDC && o.Uplink == PathLink2 {
			uplinkTable = TableLink2
		}
		gwc.Rules = append(gwc.Rules, Rule{Priority: 200, From: c.subnet, Table: uplinkTable})
		gwcAddrs := []netip.Prefix{netip.PrefixFrom(hostAddr(c.subnet, 1), 24)}
		cliAddrs := []netip.Prefix{netip.PrefixFrom(hostAddr(c.subnet, 2), 24)}
		if sub := c.link2Subnet; sub.IsValid() {
			// The second address goes over link2 both ways: by source in
			// gwc, by destination in gws.
			gws.Routes = append(gws.Routes, Route{Dst: sub, Via: linkGWCAddr[1].Addr(), Dev: "l2"})
			gwc.Rules = append(gwc.Rules, Rule{Priority: 200, From: sub, Table: TableLink2})
			gwcAddrs = append(gwcAddrs, netip.PrefixFrom(hostAddr(sub, 1), 24))
			cliAddrs = append(cliAddrs, netip.PrefixFrom(hostAddr(sub, 2), 24))
		}
		s.Links = append(s.Links, Link{Name: c.node,
			A: End{Node: "gwc", Iface: c.node, Addrs: gwcAddrs},
			B: End{Node: c.node, Iface: "gwc", Addrs: cliAddrs}})
		s.Nodes = append(s.Nodes, Node{Name: c.node, Role: RoleClient, Path: c.path,
			Routes: []Route{{Dst: netip.MustParsePrefix("0.0.0.0/0"), Via: hostAddr(c.subnet, 1)}}})
	}
	s.Nodes = append(s.Nodes, gws, gwc)
	if o.TCPBufferMax > 0 {
		for i := range s.Nodes {
			s.Nodes[i].Sysctls = append(s.Nodes[i].Sysctls,
				[2]string{"net.ipv4.tcp_wmem", fmt.Sprintf("4096 16384 %d", o.TCPBufferMax)},
				[2]string{"net.ipv4.tcp_rmem", fmt.Sprintf("4096 131072 %d", o.TCPBufferMax)})
		}
	}
	return s
}

func hostAddr(subnet netip.Prefix, host byte) netip.Addr {
	a := subnet.Addr().As4()
	a[3] = host
	return netip.AddrFrom4(a)
}

// LinkNextHop returns the address of the other gateway on link i (0 or 1)
// as seen from gateway node ("gws" or "gwc"): the next hop of a packet that
// node sends over the link.
func LinkNextHop(node string, i int) netip.Addr {
	if node == "gwc" {
		return linkGWSAddr[i].Addr()
	}
	return linkGWCAddr[i].Addr()
}
