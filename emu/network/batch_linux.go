package network

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/vishvananda/netlink"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/dcproxy"
	"github.com/dc-emu/emu/emu/internal/gsofwd"
	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/pdcp"
	"github.com/dc-emu/emu/topo"
)

// PDUPort is the UDP port of both gateways' proxies: GTP-U's, which
// carries PDCP PDUs between 3GPP nodes.
const PDUPort = 2152

// The PDCP data path: a dcproxy.Proxy in each gateway,
// each with a TUN device the DC client's traffic is routed into and a UDP
// socket on PDUPort. The proxy in gws numbers the downlink and puts it
// back in order for the uplink; the one in gwc the other way round. A
// link's PDUs go to the other gateway's address on that link, so plain
// routing puts them on the link. The other clients' packets (single-link
// and MPTCP clients) take the TUN too wherever a link carries PDUs, and
// cross their own link in the same UDP, unnumbered (gsofwd.Tunnel): the
// link charges every packet alike.
const (
	batchTUN = "pdcp"
	batchMTU = 1500 // the TUN's: the packets the links carry for others
	// tablePDCP routes the DC client's uplink into gwc's TUN when the
	// uplink is split.
	tablePDCP = 103
)

// batchDir is one direction of the batch path: the transmitting half of
// one proxy and the receiving half of the other.
type batchDir struct {
	dir    string
	tx, rx *dcproxy.Proxy
}

// startBatchPath opens both proxies, starts them, and routes the DC
// client's traffic through them: downlink always, uplink when split.
func (e *Emulation) startBatchPath() error {
	gws, err := e.Net.Node("gws")
	if err != nil {
		return err
	}
	gwc, err := e.Net.Node("gwc")
	if err != nil {
		return err
	}
	bound := topo.LinkSubnets(clientPaths(e.Net.Spec))
	var tunnels []gsofwd.Tunnel
	for _, b := range bound {
		tunnels = append(tunnels, gsofwd.Tunnel{Prefix: b.Prefix, Link: b.Link})
	}
	cfg := dcproxy.ProxyConfig{SNBits: e.set.pdcp.SNBits, Scheduler: e.set.pdcp.Sched, TReordering: e.set.pdcp.TReordering, Steer: e.steerRules(), Tunnels: tunnels}
	// The loops are real-time while light (see gsofwd.RTLoop), below
	// the delay lines, so they never delay a release, and beside the
	// trace players.
	cfg.Priority = rtsched.PlayerPriority
	open := func(n *topo.NodeNS, cfg dcproxy.ProxyConfig) (*dcproxy.Proxy, error) {
		var peers [2]netip.AddrPort
		for i := range peers {
			peers[i] = netip.AddrPortFrom(topo.LinkNextHop(n.Name, i), PDUPort)
		}
		p, err := dcproxy.OpenProxy(int(n.NS), batchTUN, batchMTU, PDUPort, peers, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: pdcp batch path: %w", n.NSName, err)
		}
		return p, nil
	}
	// Flow control is the downlink's (TS 38.425 has no DDDS for the
	// uplink): its legs' queues are the rate limiters leaving gws.
	down := cfg
	var legs *link.BacklogReader
	if fc := e.set.pdcp.FlowControl; fc.Enabled() {
		dirs, err := e.legDirs()
		if err != nil {
			return err
		}
		if legs, err = link.NewBacklogReader(dirs[:]); err != nil {
			return err
		}
		down.FlowControl = fc
		down.Backlog = func(out *[2]int) error { return legs.Read(out[:]) }
		down.LegLimit = func(i int, rate float64) int { return int(dirs[i].Shaper.LimitBytes(rate)) }
	}
	ps, err := open(gws, down)
	if err != nil {
		if legs != nil {
			legs.Close()
		}
		return err
	}
	pc, err := open(gwc, cfg)
	if err != nil {
		ps.Close()
		if legs != nil {
			legs.Close()
		}
		return err
	}
	// Both run from here on, and close their devices and sockets when
	// the emulation's context ends.
	e.goLoop("pdcp batch path in gws", func(ctx context.Context) error {
		if legs != nil {
			defer legs.Close()
		}
		return ps.Run(ctx)
	})
	e.goLoop("pdcp batch path in gwc", pc.Run)
	e.proxies = append(e.proxies, &batchDir{dir: "down", tx: ps, rx: pc})
	if e.Config.DC.Uplink == "split" {
		e.proxies = append(e.proxies, &batchDir{dir: "up", tx: pc, rx: ps})
	}
	// The devices come up once both sockets listen: the first packet a
	// TUN brings would otherwise meet a closed port and leave a hole the
	// receiver waits out. That packet (gws's IPv6 router solicitation)
	// can still reach gwc before gwc's device is up, which refuses it:
	// Up counts such a write apart, so tun_refused, a loss the fidelity
	// verdict charges to the run, holds only what the run lost.
	for _, u := range []struct {
		n *topo.NodeNS
		p *dcproxy.Proxy
	}{{gws, ps}, {gwc, pc}} {
		if err := u.p.Up(); err != nil {
			return fmt.Errorf("%s: pdcp batch path: %w", u.n.NSName, err)
		}
	}
	for _, dst := range append([]netip.Prefix{topo.ClientSubnet(config.PathDC)}, prefixesOf(bound)...) {
		if err := batchRoute(gws, &netlink.Route{Dst: prefixNet(dst)}); err != nil {
			return err
		}
	}
	if e.Config.DC.Uplink == "split" {
		if err := batchRoute(gwc, &netlink.Route{Dst: prefixNet(netip.MustParsePrefix("0.0.0.0/0")), Table: tablePDCP}); err != nil {
			return err
		}
		for _, path := range clientPaths(e.Net.Spec) {
			r := netlink.NewRule()
			r.Priority, r.IifName, r.Table = 150, topo.ClientNode(path), tablePDCP
			if err := gwc.Handle.RuleAdd(r); err != nil {
				return fmt.Errorf("%s: ip rule add iif %s table %d: %w", gwc.NSName, r.IifName, tablePDCP, err)
			}
		}
	}
	e.Backends["pdcp"] = fmt.Sprintf("batch path: TUN and UDP with GSO/GRO (%d-bit SN, %s scheduler)", e.set.pdcp.SNBits, e.set.pdcp.Sched.Kind)
	if fc := e.set.pdcp.FlowControl; fc.Enabled() {
		fc = fc.WithDefaults()
		buf := fmt.Sprintf("%d B", fc.Buffer)
		if fc.BufferTime > 0 {
			buf = fc.BufferTime.String() + " at the leg's rate"
		}
		e.Backends["pdcp_flow_control"] = fmt.Sprintf("TS 38.425 DDDS on the downlink: buffer %s, report every %v, backhaul delay %v, %s when no leg has credit; legs' queues read every %v",
			buf, fc.Interval, fc.Delay, fc.WhenFull, dcproxy.FlowControlPoll)
	}
	return nil
}

// legDirs returns the downlink directions of link1 and link2, flow
// control's legs, in that order.
func (e *Emulation) legDirs() ([2]*link.Dir, error) {
	var legs [2]*link.Dir
	for _, d := range e.dirs {
		if !d.Up {
			legs[d.Link] = d
		}
	}
	if legs[0] == nil || legs[1] == nil {
		return legs, fmt.Errorf("pdcp flow control: the run has no downlink rate limiter on both links")
	}
	return legs, nil
}

// clientPaths returns the paths of the topology's clients.
func clientPaths(s topo.Spec) []string {
	var paths []string
	for _, n := range s.Nodes {
		if n.Role == topo.RoleClient {
			paths = append(paths, n.Path)
		}
	}
	return paths
}

func prefixesOf(subnets []topo.LinkSubnet) []netip.Prefix {
	out := make([]netip.Prefix, len(subnets))
	for i, s := range subnets {
		out[i] = s.Prefix
	}
	return out
}

// batchRoute routes r's destination into node's TUN, replacing the route
// the topology gave it.
func batchRoute(n *topo.NodeNS, r *netlink.Route) error {
	l, err := n.Link(batchTUN)
	if err != nil {
		return err
	}
	r.LinkIndex = l.Attrs().Index
	if err := n.Handle.RouteReplace(r); err != nil {
		return fmt.Errorf("%s: ip route replace %v dev %s: %w", n.NSName, r.Dst, batchTUN, err)
	}
	return nil
}

func (b *batchDir) direction() string { return b.dir }

func (b *batchDir) setLink(i int, s pdcp.LinkState) { b.tx.SetLink(i, s) }

func (b *batchDir) buffered() int {
	_, held := b.rx.Snapshot()
	return held
}

func (b *batchDir) counters() results.PDCPCounters {
	tx, _ := b.tx.Snapshot()
	rx, _ := b.rx.Snapshot()
	c := pdcpCounters(tx.Tx, rx.Rx)
	c.Malformed = rx.Malformed
	// An error means the namespace is gone: the run has ended and read
	// the counts before.
	drops, err := b.rx.SocketDrops()
	if err != nil {
		drops = 0
	}
	tunDrops, err := b.tx.TUNDrops()
	if err != nil {
		tunDrops = 0
	}
	c.Batch = &results.BatchPath{UDPSends: tx.Sends, UDPReads: rx.Reads, TUNWrites: rx.Writes, TUNRefused: rx.Refused, SocketDrops: drops, TUNDropped: tunDrops,
		TUNRefusedErrno: rx.RefusedErrno, TUNRefusedFirstError: rx.FirstRefusal, TUNRefusedBeforeUp: rx.RefusedBeforeUp,
		SocketWaitMs: socketWaitMs(rx), SocketQueuedMax: rx.SocketMax, TunnelSent: tx.TunnelSent, TunnelDelivered: rx.TunnelDelivered,
		SendRealtimeS: results.Round3(tx.SendRealtime.Seconds()), ReceiveRealtimeS: results.Round3(rx.ReceiveRealtime.Seconds()),
		RealtimeSwitches: tx.SendSwitches + rx.ReceiveSwitches}
	c.FlowControl = flowControlResult(tx.Flow)
	return c
}

// flowControlResult is the results' account of a transmitting proxy's
// flow control, nil without it.
func flowControlResult(f *dcproxy.FlowCounters) *results.FlowControl {
	if f == nil {
		return nil
	}
	ms := func(d time.Duration) float64 { return results.Round3(float64(d) / 1e6) }
	r := &results.FlowControl{HostHeld: f.Held, HostDropped: f.Overflow + f.Dropped, HostBufferBytesMax: f.BufferMax,
		HostWaitMs: map[string]float64{"n": float64(f.Wait.Count)}}
	if f.Wait.Count > 0 {
		r.HostWaitMs["p50"], r.HostWaitMs["p95"], r.HostWaitMs["max"] = ms(f.Wait.Quantile(0.5)), ms(f.Wait.Quantile(0.95)), ms(f.Wait.Max)
	}
	for i, l := range f.Legs {
		r.Legs = append(r.Legs, results.LegFlowControl{Link: [2]string{topo.PathLink1, topo.PathLink2}[i], Reports: l.Reports, ReportsOnZero: f.Reporters[i].OnZero,
			StaleReports: l.StaleReports, CreditLimitedS: results.Round3(l.CreditLimited.Seconds()), DesiredBufferLast: f.DesiredBuffer[i]})
	}
	return r
}

// credit returns each leg's flow-control credit now, false without flow
// control.
func (b *batchDir) credit() ([2]int, bool) { return b.tx.Credit() }

// socketWaitMs summarises the receiving socket's wait in ms, for the
// results.
func socketWaitMs(c dcproxy.ProxyCounters) map[string]float64 {
	ms := func(d time.Duration) float64 { return results.Round3(float64(d) / 1e6) }
	h := &c.SocketWait
	return map[string]float64{"n": float64(h.Count), "mean": ms(c.SocketMeanWait), "p50": ms(h.Quantile(0.5)), "max": ms(h.Max)}
}
