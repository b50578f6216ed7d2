package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Options are a recording's settings (`emu record`).
type Options struct {
	To       string        // the far end, HOST[:PORT]
	Via      []string      // local addresses or interfaces, one per path; none: one path the system routes
	Duration time.Duration // how long to record
	Packet   int           // IP bytes of a load packet; 0: 1500
	MaxRate  float64       // bit/s a sender never exceeds; 0: DefaultMaxRate
	Progress io.Writer     // a line every ProgressEvery, if set
}

// Defaults.
const (
	DefaultPacket  = 1500
	DefaultMaxRate = 2e9
	ProgressEvery  = 5 * time.Second
	// settle is how long the near end keeps receiving after the end, for
	// the packets still on the way.
	settle = 500 * time.Millisecond
)

// Path is one path's recording: what each end received, and the clocks.
type Path struct {
	Via     string `json:"via,omitempty"`
	Local   string `json:"local"` // the near end's address on this path
	Far     string `json:"far"`   // the far end's address
	FarHost string `json:"far_host,omitempty"`

	Down Bins `json:"down"` // received by the near end
	Up   Bins `json:"up"`   // received by the far end

	DownSender SenderStat `json:"down_sender"` // the far end's sender
	UpSender   SenderStat `json:"up_sender"`   // the near end's

	// Offset is the far end's clock minus the near end's, ns; exact (0)
	// when SameHost, else estimated at the least round trip, within
	// OffsetUncertainty.
	Offset            int64         `json:"clock_offset_ns"`
	OffsetUncertainty time.Duration `json:"clock_offset_uncertainty_ns"`
	SameHost          bool          `json:"same_host"`
	MinRTT            time.Duration `json:"min_rtt_ns"`
}

// Recording is what Record measured.
type Recording struct {
	To          string        `json:"to"`
	Started     time.Time     `json:"started"` // the recording's first step, near end's clock
	Planned     time.Duration `json:"planned_ns"`
	Recorded    time.Duration `json:"recorded_ns"`
	Interrupted bool          `json:"interrupted"`
	Packet      int           `json:"packet_bytes"`
	MaxRate     float64       `json:"max_rate_bps"`
	Paths       []Path        `json:"paths"`
}

// near is the near end of one path while it records.
type near struct {
	via  string
	ctl  net.Conn
	cc   *conn
	udp  *net.UDPConn
	far  *net.UDPAddr
	sess *session
	path Path
}

// Record records every path of o at once, on one clock. The sockets are
// opened before anything else runs, in the calling goroutine, so a caller
// that runs Record inside a network namespace gets them there. A
// recording cut short by ctx returns what was recorded, marked
// interrupted.
func Record(ctx context.Context, o Options) (*Recording, error) {
	if o.Duration <= 0 || o.Duration > MaxDuration {
		return nil, fmt.Errorf("record: --duration %v outside (0, %v]", o.Duration, MaxDuration)
	}
	if o.Packet == 0 {
		o.Packet = DefaultPacket
	}
	if o.Packet < minPacket || o.Packet > maxPacket {
		return nil, fmt.Errorf("record: packet size %d outside [%d, %d]", o.Packet, minPacket, maxPacket)
	}
	if o.MaxRate == 0 {
		o.MaxRate = DefaultMaxRate
	}
	far, err := farAddr(o.To)
	if err != nil {
		return nil, err
	}
	vias := o.Via
	if len(vias) == 0 {
		vias = []string{""}
	}
	if len(vias) > 2 {
		return nil, fmt.Errorf("record: %d --via given, at most 2 (two paths)", len(vias))
	}
	var ends []*near
	defer func() {
		for _, n := range ends {
			n.ctl.Close()
			n.udp.Close()
		}
	}()
	for _, v := range vias {
		n, err := dialPath(far, v)
		if err != nil {
			return nil, err
		}
		ends = append(ends, n)
	}
	rec := &Recording{To: far, Planned: o.Duration, Packet: o.Packet, MaxRate: o.MaxRate}
	for i, n := range ends {
		if err := n.handshake(i+1, o); err != nil {
			return nil, err
		}
	}
	// Every path starts at the same instant of the near end's clock.
	start := time.Now().Add(Warmup + 200*time.Millisecond)
	rec.Started = start
	for _, n := range ends {
		n.sess.begin(start.UnixNano())
		if err := n.cc.send(message{Start: start.UnixNano() + n.path.Offset}); err != nil {
			return nil, fmt.Errorf("record: %s: %w", n.path.Far, err)
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	readers, stopReaders := context.WithCancel(context.Background())
	var rwg sync.WaitGroup
	for _, n := range ends {
		wg.Add(1)
		go func() { defer wg.Done(); n.sess.run(runCtx) }()
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			readLoop(readers, n.udp, func(d *datagram, size int, recv int64, _ *net.UDPAddr) {
				if d.session == n.sess.id {
					n.sess.arrive(d, size, recv)
				}
			})
		}()
	}
	progressDone := make(chan struct{})
	go func() { defer close(progressDone); progress(runCtx, o.Progress, start, o.Duration, ends) }()
	wg.Wait()
	stop()
	<-progressDone
	rec.Recorded = min(max(time.Since(start), 0), o.Duration)
	rec.Interrupted = ctx.Err() != nil
	if !rec.Interrupted {
		time.Sleep(settle)
	}
	stopReaders()
	rwg.Wait()
	for _, n := range ends {
		if err := n.finish(rec.Recorded); err != nil {
			return nil, err
		}
		rec.Paths = append(rec.Paths, n.path)
	}
	return rec, nil
}

// farAddr adds the default port to HOST.
func farAddr(to string) (string, error) {
	if to == "" {
		return "", errors.New("record: --to is required (the far end, HOST[:PORT], running `emu record serve`)")
	}
	if _, _, err := net.SplitHostPort(to); err != nil {
		return net.JoinHostPort(to, strconv.Itoa(DefaultPort)), nil
	}
	return to, nil
}

// dialPath opens one path's sockets: the control connection and the UDP
// socket, both from via (an address, an interface, or "" for the
// system's choice).
func dialPath(far, via string) (*near, error) {
	var local net.IP
	var device string
	if via != "" {
		if ip := net.ParseIP(via); ip != nil {
			local = ip
		} else {
			ifc, err := net.InterfaceByName(via)
			if err != nil {
				return nil, fmt.Errorf("record: --via %s is neither an address nor an interface: %w", via, err)
			}
			addrs, _ := ifc.Addrs()
			for _, a := range addrs {
				if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
					local = ipn.IP
					break
				}
			}
			if local == nil {
				return nil, fmt.Errorf("record: --via %s: the interface has no IPv4 address", via)
			}
			device = via
		}
	}
	bind := func(_, _ string, rc syscall.RawConn) error {
		if device == "" {
			return nil
		}
		var serr error
		err := rc.Control(func(fd uintptr) { serr = bindToDevice(fd, device) })
		if err == nil {
			err = serr
		}
		return err
	}
	d := net.Dialer{Timeout: 5 * time.Second, Control: bind}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	ctl, err := d.Dial("tcp", far)
	if err != nil {
		return nil, fmt.Errorf("record: the far end %s is unreachable%s: %w (is `emu record serve` running there?)", far, viaText(via), err)
	}
	lc := net.ListenConfig{Control: bind}
	pc, err := lc.ListenPacket(context.Background(), "udp4", net.JoinHostPort(ipText(local), "0"))
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("record: UDP socket%s: %w", viaText(via), err)
	}
	udp := pc.(*net.UDPConn)
	if err := prepareUDP(udp); err != nil {
		ctl.Close()
		udp.Close()
		return nil, fmt.Errorf("record: UDP socket%s: %w", viaText(via), err)
	}
	return &near{via: via, ctl: ctl, cc: newConn(ctl), udp: udp,
		path: Path{Via: via, Local: ctl.LocalAddr().(*net.TCPAddr).IP.String(), Far: far}}, nil
}

func viaText(via string) string {
	if via == "" {
		return ""
	}
	return " via " + via
}

func ipText(ip net.IP) string {
	if ip == nil {
		return "0.0.0.0"
	}
	return ip.String()
}

// pings is how many clock exchanges a handshake makes.
const pings = 16

// handshake asks the far end for a recording, shows it where to send the
// downlink and reads its clock.
func (n *near) handshake(path int, o Options) error {
	fail := func(err error) error { return fmt.Errorf("record: %s%s: %w", n.path.Far, viaText(n.via), err) }
	n.ctl.SetDeadline(time.Now().Add(handshakeTimeout))
	defer n.ctl.SetDeadline(time.Time{})
	id := rand.Uint32()
	req := request{Tag: requestTag, Version: Version, Session: id, Path: path,
		DurationMs: int64((o.Duration + time.Millisecond - 1) / time.Millisecond), Packet: o.Packet, MaxRate: uint64(o.MaxRate)}
	if err := n.cc.send(req); err != nil {
		return fail(err)
	}
	var r reply
	if err := n.cc.recv(&r); err != nil {
		return fail(err)
	}
	if r.Error != "" {
		return fail(fmt.Errorf("the far end refused: %s", r.Error))
	}
	n.path.FarHost = r.Host
	n.far = &net.UDPAddr{IP: n.ctl.RemoteAddr().(*net.TCPAddr).IP, Port: r.UDPPort}
	n.sess = newSession(id, n.udp, o.Packet, o.MaxRate, o.Duration)
	n.sess.peer.Store(n.far)
	// Tell the far end where this path's UDP comes from (through any NAT
	// on the way) until it has seen it.
	hello := make([]byte, headerLen)
	(&datagram{kind: kindHello, session: id}).put(hello)
	for try := 0; ; try++ {
		n.udp.WriteToUDP(hello, n.far)
		if err := n.cc.send(message{Hello: true}); err != nil {
			return fail(err)
		}
		var h reply
		if err := n.cc.recv(&h); err != nil {
			return fail(err)
		}
		if h.Seen {
			break
		}
		if try == 50 {
			return fail(errors.New("no UDP reaches the far end (50 tries): a firewall on the way?"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The clocks: Cristian's method at the least round trip.
	n.path.SameHost = r.BootID != "" && r.BootID == bootID()
	best := time.Duration(-1)
	for range pings {
		t1 := time.Now().UnixNano()
		if err := n.cc.send(message{Ping: t1}); err != nil {
			return fail(err)
		}
		var p reply
		if err := n.cc.recv(&p); err != nil {
			return fail(err)
		}
		t3 := time.Now().UnixNano()
		if rtt := time.Duration(t3 - t1); best < 0 || rtt < best {
			best = rtt
			n.path.Offset = p.Now - (t1+t3)/2
		}
	}
	n.path.MinRTT = best
	n.path.OffsetUncertainty = best / 2
	if n.path.SameHost {
		n.path.Offset, n.path.OffsetUncertainty = 0, 0
	}
	return nil
}

// finish ends the path's recording and collects what the far end
// received.
func (n *near) finish(recorded time.Duration) error {
	n.ctl.SetDeadline(time.Now().Add(30 * time.Second))
	if err := n.cc.send(message{Done: true}); err != nil {
		return fmt.Errorf("record: %s%s: %w", n.path.Far, viaText(n.via), err)
	}
	var r reply
	if err := n.cc.recv(&r); err != nil {
		return fmt.Errorf("record: %s%s: the far end's measurements: %w", n.path.Far, viaText(n.via), err)
	}
	if r.Error != "" || r.Up == nil || r.Sender == nil {
		return fmt.Errorf("record: %s%s: the far end sent no measurements (%s)", n.path.Far, viaText(n.via), r.Error)
	}
	down, stat := n.sess.result()
	keep := int(recorded / Step)
	n.path.Down, n.path.Up = trim(down, keep), trim(*r.Up, keep)
	n.path.UpSender, n.path.DownSender = stat, *r.Sender
	return nil
}

// trim keeps the first k bins.
func trim(b Bins, k int) Bins {
	if len(b.Bins) > k {
		b.Bins = b.Bins[:k]
	}
	return b
}

// progress prints a line every ProgressEvery until ctx is done.
func progress(ctx context.Context, w io.Writer, start time.Time, d time.Duration, ends []*near) {
	if w == nil {
		return
	}
	t := time.NewTicker(ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		el := time.Since(start)
		if el < 0 {
			continue
		}
		line := fmt.Sprintf("recording %3.0f s of %.0f s", el.Seconds(), d.Seconds())
		for i, n := range ends {
			n.sess.mu.Lock()
			rate, _ := n.sess.rx.feedback(time.Now().UnixNano())
			up := n.sess.pace.delivered
			n.sess.mu.Unlock()
			line += fmt.Sprintf("  path %d: down %.1f up %.1f Mbit/s", i+1, float64(rate)/1e6, up/1e6)
		}
		fmt.Fprintln(w, line)
	}
}
