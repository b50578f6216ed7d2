package record

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Limits of a recording.
const (
	minPacket   = 200
	maxPacket   = 9000
	MaxDuration = 24 * time.Hour
	// Warmup is how long the streams run before the recording starts, so
	// the pacer has found the path's rate by the first step.
	Warmup = time.Second
)

// SenderStat says how one end's sender kept up, so a recording that
// measured the sender rather than the path is caught.
type SenderStat struct {
	Steps   int     `json:"steps"`        // steps of the recording it paced
	Behind  int     `json:"behind"`       // steps in which it lost over a tenth of its pace (pacer.behind)
	AtMax   int     `json:"at_max"`       // steps held at the maximum rate with no queue standing
	MaxRate float64 `json:"max_rate_bps"` // the cap it was given
}

// session is one end of one path's recording: the stream it sends and
// the one it receives.
type session struct {
	id     uint32
	udp    *net.UDPConn
	peer   atomic.Pointer[net.UDPAddr]
	packet int

	start int64 // the recording's start on this end's clock
	dur   time.Duration

	mu   sync.Mutex
	rx   *rxLog
	pace *pacer
	stat SenderStat
}

func newSession(id uint32, udp *net.UDPConn, packet int, maxRate float64, dur time.Duration) *session {
	return &session{id: id, udp: udp, packet: packet, dur: dur,
		pace: newPacer(packet, maxRate), stat: SenderStat{MaxRate: maxRate}}
}

// begin fixes the recording's start on this end's clock.
func (s *session) begin(start int64) {
	s.mu.Lock()
	s.start = start
	// The log covers the warm-up too, so the pacer has feedback before
	// the first step; result leaves it out.
	s.rx = newRxLog(start-int64(Warmup), s.packet, Warmup+s.dur)
	s.mu.Unlock()
}

// udpOverhead is what IPv4 and UDP add to a datagram's payload: rates
// are counted at the IP layer, as a link's rate is set.
const udpOverhead = 28

// arrive handles one datagram from the peer.
func (s *session) arrive(d *datagram, size int, recv int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch d.kind {
	case kindFeedback:
		origin := s.start - int64(Warmup)
		s.pace.feedback(time.Duration(recv-origin), float64(d.rate), time.Duration(d.queue), time.Duration(d.ref-origin), d.drain, d.drains)
	case kindLoad, kindProbe:
		if s.rx != nil {
			s.rx.arrive(d, size+udpOverhead, recv)
		}
	}
}

// run sends the load, the probes and the feedback from Warmup before the
// start to the end, or until ctx is done.
func (s *session) run(ctx context.Context) {
	ctx, cancel := context.WithDeadline(ctx, time.Unix(0, s.start).Add(s.dur))
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.sendLoad(ctx) }()
	go func() { defer wg.Done(); s.sendEvery(ctx) }()
	wg.Wait()
}

// wait sleeps until the wall-clock instant at, or until ctx is done.
func wait(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// sendLoad paces the saturating stream.
func (s *session) sendLoad(ctx context.Context) {
	origin := time.Unix(0, s.start).Add(-Warmup)
	if !wait(ctx, origin) {
		return
	}
	buf := make([]byte, s.packet-udpOverhead)
	d := datagram{kind: kindLoad, session: s.id}
	step := -1
	for ctx.Err() == nil {
		now := time.Now()
		s.mu.Lock()
		n, next := s.pace.due(now.Sub(origin))
		if i := int(now.Sub(origin.Add(Warmup)) / Step); i != step && i >= 0 {
			// A new step of the recording: account the last one.
			if step >= 0 {
				s.stat.Steps++
				if s.pace.behind() {
					s.stat.Behind++
				}
				if s.pace.rate >= s.pace.maxRate && s.pace.queue < time.Millisecond {
					s.stat.AtMax++
				}
			} else {
				s.pace.behind() // the warm-up's count is not the recording's
			}
			step = i
		}
		s.mu.Unlock()
		peer := s.peer.Load()
		for k := 0; k < n && peer != nil; k++ {
			t := time.Now()
			s.mu.Lock()
			d.pause = int64(s.pace.sent(t.Sub(origin)))
			s.mu.Unlock()
			d.sent = t.UnixNano()
			d.put(buf)
			d.seq++
			s.udp.WriteToUDP(buf, peer) // a refused send is a lost packet, which the receiver counts
		}
		if !wait(ctx, origin.Add(next)) {
			return
		}
	}
}

// sendEvery sends a probe and the receiver's feedback every ProbeEvery.
func (s *session) sendEvery(ctx context.Context) {
	origin := time.Unix(0, s.start).Add(-Warmup)
	probe := make([]byte, headerLen+8)
	fb := make([]byte, longLen)
	p := datagram{kind: kindProbe, session: s.id}
	f := datagram{kind: kindFeedback, session: s.id}
	for k := 0; ; k++ {
		if !wait(ctx, origin.Add(time.Duration(k)*ProbeEvery)) {
			return
		}
		peer := s.peer.Load()
		if peer == nil {
			continue
		}
		now := time.Now().UnixNano()
		s.mu.Lock()
		if s.rx != nil {
			f.rate, f.queue = s.rx.feedback(now)
			f.drain, f.drains, f.ref = s.rx.drain, s.rx.drains, s.rx.lastSent
		}
		s.mu.Unlock()
		f.sent = now
		f.put(fb)
		s.udp.WriteToUDP(fb, peer)
		p.sent = time.Now().UnixNano()
		p.put(probe)
		p.seq++
		s.udp.WriteToUDP(probe, peer)
	}
}

// result is what the session received and how its sender fared.
func (s *session) result() (Bins, SenderStat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b Bins
	if s.rx != nil {
		b = s.rx.b
		b.Start = s.start
		b.Bins = append([]Bin(nil), b.Bins[Warmup/Step:]...)
	}
	return b, s.stat
}
