package dcproxy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/gsofwd"
	"github.com/dc-emu/emu/internal/nsthread"
	"github.com/dc-emu/emu/pdcp"
)

// ProxyConfig is one PDCP entity each way through a Proxy.
type ProxyConfig struct {
	SNBits      int
	Scheduler   pdcp.SchedulerConfig
	TReordering time.Duration
	// Steer gives flows entities of their own (pdcp.SteerRule); both
	// proxies of a direction take the same rules.
	Steer []pdcp.SteerRule
	// Tunnels are the subnets whose packets cross one link bare, beside
	// the PDUs (see gsofwd.Tunnel); both proxies take the same.
	Tunnels []gsofwd.Tunnel
	// Burst caps the bytes of one send on each link (0: a whole group,
	// up to 64 segments) until SetLink gives the link's rate, from then
	// on a millisecond of that rate.
	Burst [2]int
	// FlowControl turns DC flow control on for the transmitting side's
	// entity (the zero value leaves it off; see flowCtl); Backlog then
	// reads the bytes queued in link 0's and link 1's rate limiters on
	// this proxy's side, the legs' queues, and LegLimit, when not nil,
	// is the most bytes leg i's queue holds at rate bit/s, as the
	// limiter counts them: no leg asks for more (pdcp.Reporter.SetLimit).
	FlowControl pdcp.FlowControlConfig
	Backlog     func(*[2]int) error
	LegLimit    func(i int, rate float64) int
	// Priority, when not 0, runs each of the two loops on a real-time
	// thread of that SCHED_FIFO priority while it carries less than
	// gsofwd's light rate (gsofwd.RTLoop); 0 leaves them goroutines of
	// the runtime's poller.
	Priority int
}

// A Proxy is one end of the PDCP batch path: packets read from its TUN
// leave as PDUs over two links, PDUs arriving on either link go back to
// the TUN in COUNT order.
type Proxy struct {
	ends  gsofwd.Ends // Peers: link 0's, link 1's
	burst [2]int
	start time.Time
	// priority is the loops' real-time priority, 0 for none; sendRT and
	// recvRT their spells real-time (tunToUDP's, udpToTUN's).
	priority       int
	sendRT, recvRT *gsofwd.RTSpells

	// txMu guards the transmitting side (tx, flow, burst, and the
	// sends): the TUN-to-UDP loop's, and flow control's loop's too.
	txMu sync.Mutex
	tx   *Tx
	flow *flowCtl  // nil without flow control
	one  [1][]byte // sendOne's

	mu   sync.Mutex // the receive stage: the receive loop, the timer and watchSocket
	rx   *Rx
	kick chan struct{}
	// armed is the deadline the timer goroutine sleeps until, or
	// notArmed (under mu): the receive loop wakes it only for an earlier
	// one. Waking it after every batch while PDUs were held handed the
	// mutex back and forth and cost the receive loop 29 % of a run in
	// the scheduler's queue (Go's execution trace, 2 × 6 Gbit/s, 1 ms).
	armed time.Duration
	// refused counts TUN writes the kernel refused in part or whole
	// once the device was up (under mu): their packets are lost, as a
	// router drops what it cannot forward. refusals counts their refused
	// system calls by errno, firstRefusal is the first one's error.
	// refusedBeforeUp counts the writes refused before Up because the
	// device was not up yet (EIO): see Up.
	refused, refusedBeforeUp uint64
	refusals                 map[string]uint64
	firstRefusal             string
	// up is set once Up has brought the device up.
	up atomic.Bool
	// reads and writes count the receive batches and the TUN writes
	// (under mu): PDUs per read and SDUs per write say how much each
	// system call carries.
	reads, writes uint64
	// socket is watchSocket's account of the receiving socket, and
	// socketWait its estimate, for each window, of how long the bytes
	// read in it had waited there (both under mu).
	socket     gsofwd.SocketWatch
	socketWait pdcp.Histogram
	// queue says how much waits in the receiving socket (watchSocket's).
	queue *gsofwd.SocketQueue
	// scratch are roomy's buffers (under mu).
	scratch [maxWrite][]byte
	// sends counts the UDP sends (the TUN-to-UDP loop's).
	sends atomic.Uint64

	// shared is what SetLink hands the TUN-to-UDP loop, and what that
	// loop publishes of its counters after each batch (a lock and a copy,
	// tens of nanoseconds for up to 64 PDUs).
	shared struct {
		sync.Mutex
		links     [2]pdcp.LinkState
		tx        pdcp.TxCounters
		tunnelled uint64
	}
	linksNew atomic.Bool
}

// SetLink tells the transmitting side what link i (0 or 1) is like now:
// the schedulers that decide by rate, delay or backlog take it before the
// next batch, and a send on the link carries at most a millisecond of its
// rate.
func (p *Proxy) SetLink(i int, s pdcp.LinkState) {
	p.shared.Lock()
	p.shared.links[i] = s
	p.shared.Unlock()
	p.linksNew.Store(true)
}

// applyLinks gives the schedulers and the burst caps the links SetLink
// last set; the TUN-to-UDP loop's.
func (p *Proxy) applyLinks() {
	p.shared.Lock()
	links := p.shared.links
	p.shared.Unlock()
	for i, l := range links {
		p.tx.SetLinkState(i, l)
		p.burst[i] = burstFor(l.RateBps)
	}
}

// Snapshot returns the counters while the proxy runs: the transmitting
// side's as of its last batch, the receiving side's now, and how many SDUs
// the receiver holds.
func (p *Proxy) Snapshot() (ProxyCounters, int) {
	flow := p.flowCounters()
	p.shared.Lock()
	tx, tunnelled := p.shared.tx, p.shared.tunnelled
	p.shared.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counters(tx, tunnelled)
	c.Flow = flow
	return c, p.rx.Held()
}

// flowCounters returns flow control's counters now, nil without it.
func (p *Proxy) flowCounters() *FlowCounters {
	if p.flow == nil {
		return nil
	}
	p.txMu.Lock()
	defer p.txMu.Unlock()
	c := p.flow.counters()
	c.Dropped = p.tx.Dropped
	return &c
}

// Credit returns each leg's flow-control credit now, in bytes, and false
// without flow control.
func (p *Proxy) Credit() ([2]int, bool) {
	if p.flow == nil {
		return [2]int{}, false
	}
	p.txMu.Lock()
	defer p.txMu.Unlock()
	return [2]int{p.flow.fc.Leg(0).Credit(), p.flow.fc.Leg(1).Credit()}, true
}

// counters are the proxy's counters with the transmitting side's tx and
// tunnelled; p.mu is held.
func (p *Proxy) counters(tx pdcp.TxCounters, tunnelled uint64) ProxyCounters {
	now := p.now()
	return ProxyCounters{Tx: tx, Rx: p.rx.Counters(), Malformed: p.rx.Malformed, Refused: p.refused,
		RefusedErrno: maps.Clone(p.refusals), FirstRefusal: p.firstRefusal, RefusedBeforeUp: p.refusedBeforeUp,
		TunnelSent: tunnelled, TunnelDelivered: p.rx.Tunnelled,
		Sends: p.sends.Load(), Reads: p.reads, Writes: p.writes, SocketWait: p.socketWait, SocketMeanWait: p.socket.Mean(), SocketMax: p.socket.Most(),
		SendRealtime: p.sendRT.Total(now), ReceiveRealtime: p.recvRT.Total(now), SendSwitches: p.sendRT.Switches(), ReceiveSwitches: p.recvRT.Switches()}
}

// publish copies the transmitting side's counters for Snapshot.
func (p *Proxy) publish() {
	c := p.tx.Counters()
	p.shared.Lock()
	p.shared.tx, p.shared.tunnelled = c, p.tx.Tunnelled
	p.shared.Unlock()
}

// OpenProxy creates, inside the network namespace ns, a TUN device named
// name with the given MTU and a UDP socket on port, sending link 0's PDUs
// to peers[0] and link 1's to peers[1]. The TUN is left down: Up brings
// it up, once the other end's socket listens.
func OpenProxy(ns int, name string, mtu int, port uint16, peers [2]netip.AddrPort, cfg ProxyConfig) (*Proxy, error) {
	sched, err := pdcp.NewScheduler(cfg.Scheduler)
	if err != nil {
		return nil, err
	}
	p := &Proxy{burst: cfg.Burst, priority: cfg.Priority, sendRT: gsofwd.NewRTSpells(), recvRT: gsofwd.NewRTSpells(), kick: make(chan struct{}, 1), start: time.Now(), armed: notArmed}
	var fc *pdcp.FlowControl
	if cfg.FlowControl.Enabled() {
		if p.flow, err = newFlowCtl(cfg.FlowControl, cfg.SNBits, cfg.Backlog); err != nil {
			return nil, err
		}
		p.flow.limit = cfg.LegLimit
		fc = p.flow.fc
	}
	if p.tx, err = NewTx(cfg.SNBits, sched, fc); err != nil {
		return nil, err
	}
	if p.rx, err = NewRx(cfg.SNBits, cfg.TReordering, headroom); err != nil {
		return nil, err
	}
	if err := p.tx.Steer(cfg.Steer); err != nil {
		return nil, err
	}
	if err := p.rx.Steer(cfg.Steer); err != nil {
		return nil, err
	}
	if err := p.tx.Tunnel(cfg.Tunnels); err != nil {
		return nil, err
	}
	if p.ends, err = gsofwd.OpenEnds(ns, name, mtu, port, peers[:]); err != nil {
		return nil, err
	}
	if p.queue, err = gsofwd.OpenSocketQueue(ns, p.ends.Port); err != nil {
		p.ends.Close()
		return nil, err
	}
	return p, nil
}

// Up brings the proxy's TUN up. A write the kernel refuses because the
// device is down (EIO) before Up returned is counted apart
// (RefusedBeforeUp), not as refused: the two proxies' devices come up one
// after the other, and the first one's kernel sends an IPv6 router
// solicitation into it at once, which its proxy carries to the other
// before that one's device is up. That packet is lost before the run, not
// in it. Once up, a refused write is a loss of the run's, whatever the
// error: one refused because the device went down (EIO) included.
func (p *Proxy) Up() error {
	name, err := p.ends.TUN.Name()
	if err != nil {
		return err
	}
	err = nsthread.Do(p.ends.NS, func() error {
		l, err := netlink.LinkByName(name)
		if err == nil {
			err = netlink.LinkSetUp(l)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("dcproxy: ip link set %s up: %w", name, err)
	}
	p.up.Store(true)
	return nil
}

// Batched reports whether the TUN took the segmentation offloads, so a
// read brings a super-packet, not one packet.
func (p *Proxy) Batched() bool { return p.ends.TUN.BatchSize() > 1 }

// Close releases the device and the socket of a proxy that will not Run
// (Run releases them itself).
func (p *Proxy) Close() {
	p.ends.Close()
	p.queue.Close()
}

func (p *Proxy) now() time.Duration { return time.Since(p.start) }

// Run moves packets until ctx ends or a loop fails, then closes the device
// and the socket; what the receiver still holds is lost with them.
func (p *Proxy) Run(ctx context.Context) error {
	timers := []func(<-chan struct{}){p.expiries, p.watchSocket}
	if p.flow != nil {
		timers = append(timers, p.fcLoop)
	}
	err := p.ends.Run(ctx, p.tunToUDP, p.udpToTUN, timers...)
	p.queue.Close() // watchSocket, its user, has ended
	return err
}

// ProxyCounters are a Proxy's counters.
type ProxyCounters struct {
	Tx pdcp.TxCounters
	Rx pdcp.RxCounters
	// Malformed counts datagrams that carried no data PDU; Refused, TUN
	// writes the kernel refused in part or whole once the device was up
	// (their packets lost in the run), and RefusedBeforeUp those it
	// refused before Up, the device not up yet (EIO; see Up).
	Malformed, Refused, RefusedBeforeUp uint64
	// RefusedErrno counts the refused writes' failed system calls (a
	// packet or a coalesced super-packet each) by errno name ("EIO": the
	// device was down; "EINVAL": a packet it would not take; "other":
	// an error without one), and FirstRefusal is the first one's error
	// text; both only of those counted in Refused.
	RefusedErrno map[string]uint64
	FirstRefusal string
	// TunnelSent and TunnelDelivered count the tunnelled packets (see
	// Tunnel) the transmitting side sent and the receiving side delivered.
	TunnelSent, TunnelDelivered uint64
	// Sends, Reads and Writes count UDP sends, UDP receive batches and
	// TUN writes: the batching each system call achieved.
	Sends, Reads, Writes uint64
	// SocketWait has, for each second with traffic, how long the bytes
	// read in it had waited in the receiving socket for the receive loop
	// (watchSocket's estimate); SocketMeanWait is that over the run, and
	// SocketMax the most bytes of kernel memory found queued there.
	SocketWait     pdcp.Histogram
	SocketMeanWait time.Duration
	SocketMax      int
	// SendRealtime and ReceiveRealtime are how long the TUN-to-UDP and
	// the UDP-to-TUN loop ran real-time (while light, see gsofwd.RTLoop), and
	// SendSwitches and ReceiveSwitches how often each turned real-time
	// or left.
	SendRealtime, ReceiveRealtime time.Duration
	SendSwitches, ReceiveSwitches uint64
	// Flow is the transmitting side's flow control (nil without).
	Flow *FlowCounters
}

// Counters returns the proxy's counters; call it after Run returned.
func (p *Proxy) Counters() ProxyCounters {
	flow := p.flowCounters()
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counters(p.tx.Counters(), p.tx.Tunnelled)
	c.Flow = flow
	return c
}

// tunToUDP reads super-packets from the TUN, split into wire segments by
// the library, numbers them and sends each link's group in bursts.
func (p *Proxy) tunToUDP() error {
	n := p.ends.TUN.BatchSize()
	bufs, sizes := make([][]byte, n), make([]int, n)
	for i := range bufs {
		bufs[i] = make([]byte, bufSize)
	}
	rt, err := p.loop(p.ends.TUN.File(), p.sendRT)
	if err != nil {
		return err
	}
	defer func() { rt.Exit(p.now()) }()
	for {
		rt.Wait()
		k, err := p.ends.TUN.Read(bufs, sizes, headroom)
		if err != nil {
			return err
		}
		now := p.now()
		if err := rt.Moved(sum(sizes[:k]), now); err != nil {
			return err
		}
		p.txMu.Lock()
		if p.linksNew.Swap(false) {
			p.applyLinks()
		}
		err = p.forward(bufs[:k], sizes[:k], now)
		p.publish()
		p.txMu.Unlock()
		if err != nil {
			return err
		}
	}
}

// send sends each link's group in bursts of at most the link's burst
// bytes, and tells flow control what each leg was written. p.txMu is
// held.
func (p *Proxy) send(groups [2][][]byte) error {
	counts := p.tx.Counts()
	for l, g := range groups {
		for j := 0; len(g) > 0; {
			m := burstLen(g, p.burst[l])
			if err := p.ends.Bind.Send(g[:m], p.ends.Peers[l]); err != nil {
				return fmt.Errorf("dcproxy: send on link %d: %w", l, err)
			}
			p.sends.Add(1)
			if p.flow != nil {
				for k, b := range g[:m] {
					p.flow.marks[l].wrote(len(b), counts[l][j+k])
				}
			}
			g, j = g[m:], j+m
		}
	}
	return nil
}

// sendOne sends one packet without a COUNT (a tunnelled one) on link l.
// p.txMu is held.
func (p *Proxy) sendOne(l int, b []byte) error {
	p.one[0] = b
	if err := p.ends.Bind.Send(p.one[:], p.ends.Peers[l]); err != nil {
		return fmt.Errorf("dcproxy: send on link %d: %w", l, err)
	}
	p.sends.Add(1)
	if p.flow != nil {
		p.flow.marks[l].wrote(len(b), noCount)
	}
	return nil
}

// udpToTUN receives UDP_GRO batches, split into datagrams, puts their
// PDUs in order and writes what the receiver releases to the TUN, which
// coalesces TCP segments back into super-packets.
func (p *Proxy) udpToTUN() error {
	n := p.ends.Bind.BatchSize()
	bufs, sizes := make([][]byte, n), make([]int, n)
	for i := range bufs {
		bufs[i] = make([]byte, bufSize)
	}
	rt, err := p.loop(p.ends.UDP.File(), p.recvRT)
	if err != nil {
		return err
	}
	defer func() { rt.Exit(p.now()) }()
	for {
		rt.Wait()
		k, err := p.ends.UDP.Read(bufs, sizes, headroom)
		if err != nil {
			return err
		}
		now := p.now()
		if err := rt.Moved(sum(sizes[:k]), now); err != nil {
			return err
		}
		p.mu.Lock()
		p.reads++
		err = p.write(p.rx.Place(bufs[:k], sizes[:k], now))
		d, running := p.rx.Deadline()
		sooner := running && d < p.armed
		p.mu.Unlock()
		if err != nil {
			return err
		}
		if sooner {
			select {
			case p.kick <- struct{}{}:
			default:
			}
		}
	}
}

// loop makes the calling loop's gsofwd.RTLoop for reading f, reporting
// in spells, and starts it.
func (p *Proxy) loop(f *os.File, spells *gsofwd.RTSpells) (*gsofwd.RTLoop, error) {
	l, err := p.ends.NewRTLoop(f, p.priority, spells)
	if err != nil {
		return nil, err
	}
	return l, l.Start(p.now())
}

func sum(sizes []int) int {
	n := 0
	for _, s := range sizes {
		n += s
	}
	return n
}

// write hands the released SDUs to the TUN and frees their slots; p.mu is
// held. A packet the kernel refuses is dropped, as a router would.
func (p *Proxy) write(out [][]byte) error {
	// Read before the writes: Up sets it once the device is up, so an
	// EIO after it was set is the device gone down in the run.
	up := p.up.Load()
	var err error
	for len(out) > 0 && err == nil {
		// The library coalesces a write's TCP segments flow by flow,
		// comparing each with the ones it could not merge: a write of
		// hundreds of SDUs that cannot merge (held ones, in small
		// buffers) costs the square of that.
		n := min(len(out), maxWrite)
		p.roomy(out[:n])
		p.writes++
		if _, err = p.ends.TUN.Write(out[:n], headroom); err != nil && !errors.Is(err, os.ErrClosed) {
			p.refuse(err, up)
			err = nil
		}
		out = out[n:]
	}
	p.rx.Done()
	return err
}

// refuse counts a write the kernel refused with err; up is whether the
// device was up before it (see Up). p.mu is held.
func (p *Proxy) refuse(err error, up bool) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap() // the library's: a system call's error each
	}
	names := make([]string, len(errs))
	down := true
	for i, e := range errs {
		names[i] = "other"
		var no syscall.Errno
		if errors.As(e, &no) {
			if names[i] = unix.ErrnoName(no); names[i] == "" {
				names[i] = no.Error()
			}
		}
		down = down && no == unix.EIO
	}
	if !up && down {
		p.refusedBeforeUp++
		return
	}
	p.refused++
	if p.refusals == nil {
		p.refusals = map[string]uint64{}
		p.firstRefusal = errs[0].Error()
	}
	for _, n := range names {
		p.refusals[n]++
	}
}

// roomy copies the SDUs of a write that sit in buffers too small to
// coalesce onto (the receiver's slots for held SDUs) into buffers that
// have room for a super-packet: the library merges a flow's segments
// into its first one's buffer, and a run of held SDUs released at once,
// each in its own small slot, would otherwise go to the kernel a write
// each. Over 10 and 30 ms on 2 × 3 Gbit/s, where half the SDUs are held,
// that took the batch path from 0.79 to 0.94–0.99 Gbit/s; it costs one
// copy of each held SDU, and maxWrite buffers of 64 KB.
func (p *Proxy) roomy(sdus [][]byte) {
	for i, b := range sdus {
		if cap(b) >= roomyCap {
			continue
		}
		if p.scratch[i] == nil {
			p.scratch[i] = make([]byte, bufSize)
		}
		sdus[i] = p.scratch[i][:copy(p.scratch[i], b)]
	}
}

// roomyCap is the capacity below which roomy copies an SDU: the
// receive buffers have 64 KB, the receiver's slots 2 KB.
const roomyCap = 16 << 10

// maxWrite is the most SDUs one TUN write takes: a GRO batch's worth.
const maxWrite = 64

// notArmed is Proxy.armed while the timer goroutine waits for no
// deadline.
const notArmed = time.Duration(math.MaxInt64)

// expiries runs t-Reordering: it sleeps until the receiver's deadline, or
// until a receive loop says the deadline came sooner, and delivers what
// the expiry releases. A deadline that moved later (the gap it was for
// filled, another opened) wakes it early, to find nothing due and sleep
// again until the new one.
func (p *Proxy) expiries(stop <-chan struct{}) {
	const idle = time.Hour
	t := time.NewTimer(idle)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-p.kick:
		case <-t.C:
		}
		p.mu.Lock()
		now := p.now()
		p.write(p.rx.Expire(now))
		d, running := p.rx.Deadline()
		p.armed = notArmed
		if running {
			p.armed = d
		}
		p.mu.Unlock()
		if running {
			t.Reset(max(d-now, 0))
		} else {
			t.Reset(idle)
		}
	}
}

// watchSocket looks at the receiving socket every gsofwd.SocketPeriod until
// stop, and records gsofwd.SocketWatch's estimate of each window's wait. A PDU
// the links released on time reaches PDCP that much later, and nothing
// else sees it: the kernel stamps a packet when it enters the gateway,
// before the delay line there holds it, and the loops are not threads of
// their own. It costs a sock_diag query (two system calls and the
// library's allocations) per period, on none of the packet loops.
func (p *Proxy) watchSocket(stop <-chan struct{}) {
	t := time.NewTicker(gsofwd.SocketPeriod)
	defer t.Stop()
	p.mu.Lock()
	p.socket.Start(time.Now(), p.ends.UDP.Received())
	p.mu.Unlock()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		q, err := p.queue.Queued()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		if w, ok := p.socket.Look(time.Now(), q, p.ends.UDP.Received()); ok {
			p.socketWait.Add(w)
		}
		p.mu.Unlock()
	}
}

// TUNDrops returns how many packets the proxy's TUN device dropped
// before the proxy read them (the device's tx_dropped: its queue of
// gsofwd.TUNQueueLen was full): SDUs lost on their way into PDCP, the
// transmitting proxy's loss, not the link's.
func (p *Proxy) TUNDrops() (uint64, error) { return p.ends.TUNDrops() }

// SocketDrops returns how many datagrams UDP dropped in the proxy's
// namespace because a socket's receive buffer was full (Udp RcvbufErrors
// of /proc/net/snmp, the namespace's own count): PDUs lost between the
// link and the receiver. The gateways run no other UDP socket, so the
// count is the proxy's.
func (p *Proxy) SocketDrops() (uint64, error) { return p.ends.SocketDrops() }
