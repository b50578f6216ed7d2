package delayline

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/nfq/nfqtest"
	"github.com/dc-emu/emu/emu/internal/nft"
)

// rig is the test network A — B — C with a delay line in B for each
// direction that has parameters: queue 1 takes packets from A, queue 2
// packets from C, both at prerouting priority -300 (what emu does on a
// gateway).
type rig struct {
	net   *nfqtest.Line
	loops []*Loop
	lines []*Line
}

// rigOpts vary how the loops run.
type rigOpts struct {
	sched nfq.Sched
	spin  time.Duration
}

func newRig(tb testing.TB, seed uint64, fwd, rev *Params) *rig {
	tb.Helper()
	return newRigWith(tb, seed, fwd, rev, rigOpts{})
}

func newRigWith(tb testing.TB, seed uint64, fwd, rev *Params, o rigOpts) *rig {
	tb.Helper()
	r := &rig{net: nfqtest.NewLine(tb)}
	var rules []nft.QueueRule
	for i, p := range []*Params{fwd, rev} {
		if p == nil {
			continue
		}
		num := uint16(i + 1)
		l, err := New(seed+uint64(i), *p)
		if err != nil {
			tb.Fatal(err)
		}
		cfg := QueueConfig(int(r.net.B.NS), num, p.PerPacket())
		cfg.Spin = o.spin
		q, err := nfq.Open(cfg)
		if err != nil {
			tb.Fatal(err)
		}
		lp := StartWith(q, l, Options{Sched: o.sched})
		tb.Cleanup(func() {
			if err := lp.Close(); err != nil {
				tb.Errorf("loop %d: %v", num, err)
			}
			q.Close()
		})
		r.loops = append(r.loops, lp)
		r.lines = append(r.lines, l)
		iif := r.net.BFromA
		if i == 1 {
			iif = r.net.BFromC
		}
		rules = append(rules, nft.QueueRule{IIf: iif, Queue: num})
	}
	if len(rules) > 0 {
		chains := []nft.Chain{{Name: "delay", Hook: nft.Prerouting, Priority: -300, Rules: rules}}
		if _, err := nft.Apply(int(r.net.B.NS), "emu-delay", chains); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

const probePort = 9100

// oneWay sends n stamped UDP packets from A to C at rate packets/s and
// returns each one's one-way delay in ms by sequence number (NaN if it
// never arrived) and the time it was sent, in ns since the epoch (0 if it
// never arrived). The sender stamps each packet with the wall clock just
// before sending, on a real-time thread; the receiving kernel stamps its
// arrival (SO_TIMESTAMPNS). So the figure is the path's delay, not the
// probe's own scheduling, even on a busy machine.
func oneWay(tb testing.TB, r *rig, rate float64, n int, size int) (delays []float64, sent []int64) {
	tb.Helper()
	rx := nfqtest.UDPSocket(tb, r.net.C, probePort, netip.AddrPort{})
	if err := unix.SetsockoptInt(rx, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 64<<20); err != nil {
		tb.Fatal(err)
	}
	if err := unix.SetsockoptInt(rx, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		tb.Fatal(err)
	}
	tx := nfqtest.UDPSocket(tb, r.net.A, 0, netip.AddrPortFrom(r.net.CAddr, probePort))
	delays, sent = make([]float64, n), make([]int64, n)
	for i := range delays {
		delays[i] = math.NaN()
	}
	done := make(chan error, 1)
	var sentAt atomic.Int64 // when the last packet left, ns since the epoch; 0 while sending
	go func() {
		buf := make([]byte, 2048)
		oob := make([]byte, 128)
		for {
			pfd := []unix.PollFd{{Fd: int32(rx), Events: unix.POLLIN}}
			ts := unix.NsecToTimespec(int64(50 * time.Millisecond))
			k, err := unix.Ppoll(pfd, &ts, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				done <- err
				return
			}
			if k == 0 {
				if s := sentAt.Load(); s != 0 && time.Since(time.Unix(0, s)) > 300*time.Millisecond+time.Duration(0) {
					done <- nil
					return
				}
				continue
			}
			for {
				m, oobn, _, _, err := unix.Recvmsg(rx, buf, oob, unix.MSG_DONTWAIT)
				if err == unix.EAGAIN {
					break
				}
				if err != nil {
					done <- err
					return
				}
				rxTime, ok := nfqtest.RecvStamp(oob[:oobn])
				rxAt := rxTime.UnixNano()
				if !ok || m < 16 {
					done <- errors.New("no receive timestamp")
					return
				}
				seq := binary.LittleEndian.Uint64(buf)
				at := int64(binary.LittleEndian.Uint64(buf[8:]))
				if seq < uint64(n) {
					delays[seq] = float64(rxAt-at) / 1e6
					sent[seq] = at
				}
			}
		}
	}()
	err := sendPaced(tx, rate, n, size)
	sentAt.Store(time.Now().UnixNano())
	if err != nil {
		tb.Fatal(err)
	}
	if err := <-done; err != nil {
		tb.Fatal(err)
	}
	return delays, sent
}

// sendPaced sends n packets of size bytes at rate from a real-time thread.
func sendPaced(fd int, rate float64, n, size int) error {
	return nfqtest.OnRealtimeThread(func() error {
		buf := make([]byte, max(size, 16))
		interval := time.Duration(float64(time.Second) / rate)
		start := time.Now()
		for i := range n {
			nfqtest.SleepUntil(start.Add(time.Duration(i) * interval))
			binary.LittleEndian.PutUint64(buf, uint64(i))
			binary.LittleEndian.PutUint64(buf[8:], uint64(time.Now().UnixNano()))
			if _, err := unix.Write(fd, buf); err != nil && err != unix.ENOBUFS {
				return err
			}
		}
		return nil
	})
}

// stats of the delivered delays: mean, standard deviation, quantiles, and
// the number delivered.
type delayStats struct {
	mean, std, p50, p99 float64
	n                   int
}

func summarize(d []float64) delayStats {
	var x []float64
	for _, v := range d {
		if !math.IsNaN(v) {
			x = append(x, v)
		}
	}
	if len(x) < 2 {
		return delayStats{n: len(x)}
	}
	var s delayStats
	s.n = len(x)
	for _, v := range x {
		s.mean += v
	}
	s.mean /= float64(len(x))
	for _, v := range x {
		s.std += (v - s.mean) * (v - s.mean)
	}
	s.std = math.Sqrt(s.std / float64(len(x)-1))
	slices.Sort(x)
	s.p50 = x[len(x)/2]
	s.p99 = x[len(x)*99/100]
	return s
}

// pingPong measures n round trips of a small UDP packet from A to an echo
// socket in C, one at a time, in µs. Pinger and echo run on real-time
// threads, so the figure is the path's, not their scheduling's.
func pingPong(tb testing.TB, r *rig, n int) []float64 {
	tb.Helper()
	echo := nfqtest.UDPSocket(tb, r.net.C, 9200, netip.AddrPort{})
	c := nfqtest.UDPSocket(tb, r.net.A, 0, netip.AddrPortFrom(r.net.CAddr, 9200))
	tv := unix.NsecToTimeval(int64(100 * time.Millisecond))
	for _, fd := range []int{echo, c} {
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			tb.Fatal(err)
		}
	}
	var stop atomic.Bool
	echoDone := make(chan struct{})
	go func() {
		defer close(echoDone)
		restore, _, err := nfq.LockThreadPrecise(nfq.SchedRealtime)
		if err != nil {
			return
		}
		defer restore()
		buf := make([]byte, 64)
		for !stop.Load() {
			k, from, err := unix.Recvfrom(echo, buf, 0)
			if err != nil {
				continue
			}
			unix.Sendto(echo, buf[:k], 0, from)
		}
	}()
	defer func() { stop.Store(true); <-echoDone }()
	rtts := make([]float64, 0, n)
	err := nfqtest.OnRealtimeThread(func() error {
		buf := make([]byte, 64)
		pause := unix.NsecToTimespec(int64(200 * time.Microsecond))
		for i := 0; i < n+100; i++ {
			start := time.Now()
			if _, err := unix.Write(c, buf[:32]); err != nil {
				return err
			}
			if _, err := nfqtest.Read(c, buf); err != nil {
				return fmt.Errorf("ping %d: %w", i, err)
			}
			if i >= 100 { // the first ones warm up ARP and caches
				rtts = append(rtts, float64(time.Since(start))/1e3)
			}
			unix.Nanosleep(&pause, nil)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return rtts
}
