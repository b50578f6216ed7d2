package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/internal/invoker"
)

// cbrCount is how many datagrams a cbr flow sends: its count, or as many
// as its duration holds.
func cbrCount(cfg *ClientConfig) int {
	if cfg.Work.Count > 0 {
		return cfg.Work.Count
	}
	return int((cfg.Duration + cfg.Work.Every - 1) / cfg.Work.Every)
}

// runCBR runs a cbr client: it receives the server's datagrams (down) or
// sends its own and asks the server what arrived (up).
func runCBR(ctx context.Context, cfg *ClientConfig, m *meter) (Result, error) {
	raddr, conn, err := udpSocketTo(hostPort(cfg.URL))
	if err != nil {
		return Result{}, err
	}
	defer conn.Close()
	if err := enableRxTimestamps(conn); err != nil {
		return Result{}, fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	var rep cbrResult
	if cfg.Work.Up {
		rep, err = cbrUp(ctx, cfg, m, conn, raddr)
	} else {
		rep, err = cbrDown(ctx, cfg, m, conn, raddr)
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))
	}
	r := Result{Bytes: m.bytes.Load(), Work: cbrWork(cfg.Work.Up, rep), OWD: rep.OWD}
	if !m.last.IsZero() {
		r.Seconds = m.last.Sub(m.start).Seconds()
	}
	if r.Seconds > 0 {
		r.GoodputMbps = float64(r.Bytes) * 8 / r.Seconds / 1e6
	}
	r.Complete = err == nil
	return r, err
}

// cbrDown says hello until the first datagram arrives and receives the
// flow's datagrams.
func cbrDown(ctx context.Context, cfg *ClientConfig, m *meter, conn *net.UDPConn, server *net.UDPAddr) (cbrResult, error) {
	var log *results.CBRWriter
	if cfg.Work.KindLog != "" {
		f, err := invoker.Create(cfg.Work.KindLog)
		if err != nil {
			return cbrResult{}, fmt.Errorf("cbr log: %w", err)
		}
		defer f.Close()
		log = results.NewCBRWriter(f)
	}
	rcv := newCBRReceiver(m, log)
	count := cbrCount(cfg)
	hello := make([]byte, workload.CBRHeader)
	putCBR(hello, cbrHello, uint32(cfg.Work.Packet), uint32(count), int64(cfg.Work.Every))
	first := make(chan struct{})
	helloCtx, stopHello := context.WithCancel(ctx)
	defer stopHello()
	go func() {
		t := time.NewTicker(helloEvery)
		defer t.Stop()
		for {
			conn.WriteToUDP(hello, server) // a lost hello is repeated
			select {
			case <-first:
				return
			case <-helloCtx.Done():
				return
			case <-t.C:
			}
		}
	}()
	err := receiveCBR(ctx, conn, rcv, cfg.IdleTimeout+cfg.HandshakeTimeout, first, nil)
	if log != nil {
		if ferr := log.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("cbr log: %w", ferr)
		}
	}
	rep := reportOf(rcv.stats())
	if err == nil && rep.Received == 0 {
		err = fmt.Errorf("no datagram from %s", server)
	}
	return rep, err
}

// receiveCBR reads datagrams into rcv until it is done, nothing arrives
// for idle, or ctx ends; first is closed when the first datagram arrives,
// and other (if not nil) gets every datagram that is not data or end.
func receiveCBR(ctx context.Context, conn *net.UDPConn, rcv *cbrReceiver, idle time.Duration, first chan struct{}, other func([]byte, *net.UDPAddr)) error {
	buf := make([]byte, 2048)
	oob := make([]byte, cbrOOBSize)
	got := false
	for {
		now := time.Now()
		if rcv.done(now) {
			return nil
		}
		deadline := now.Add(idle)
		if !rcv.ended.IsZero() {
			deadline = rcv.ended.Add(endLinger)
		}
		conn.SetReadDeadline(deadline)
		n, oobn, _, from, err := conn.ReadMsgUDP(buf, oob)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			if !rcv.ended.IsZero() {
				return nil
			}
			return fmt.Errorf("no datagram for %v", idle)
		case err != nil:
			return err
		}
		at, ok := rxTime(oob[:oobn])
		if !ok {
			at = time.Now()
		}
		if rcv.take(buf[:n], at) {
			if !got && first != nil {
				got = true
				close(first)
			}
		} else if other != nil {
			other(buf[:n], from)
		}
	}
}

// cbrUp sends the flow's datagrams to the server, then asks it what
// arrived.
func cbrUp(ctx context.Context, cfg *ClientConfig, m *meter, conn *net.UDPConn, server *net.UDPAddr) (cbrResult, error) {
	sent, err := sendCBR(ctx, conn, server, cfg.Work.Packet, cfg.Work.Every, cbrCount(cfg), m)
	if err != nil {
		return cbrResult{Sent: sent}, err
	}
	query := make([]byte, workload.CBRHeader)
	putCBR(query, cbrQuery, 0, 0, 0)
	buf := make([]byte, 2048)
	deadline := time.Now().Add(cfg.IdleTimeout)
	for time.Now().Before(deadline) {
		if _, err := conn.WriteToUDP(query, server); err != nil {
			return cbrResult{Sent: sent}, err
		}
		conn.SetReadDeadline(time.Now().Add(helloEvery))
		for {
			n, _, err := conn.ReadFromUDP(buf)
			if ctx.Err() != nil {
				return cbrResult{Sent: sent}, ctx.Err()
			}
			if err != nil {
				break // ask again
			}
			if k, _, _, _, ok := parseCBR(buf[:n]); ok && k == cbrReport {
				var rep cbrResult
				if err := json.Unmarshal(buf[4:n], &rep); err != nil {
					return cbrResult{Sent: sent}, fmt.Errorf("cbr report: %w", err)
				}
				rep.Sent = sent
				return rep, nil
			}
		}
	}
	return cbrResult{Sent: sent}, fmt.Errorf("no report from %s within %v", server, cfg.IdleTimeout)
}

// sendCBR sends count datagrams of packet bytes to to, one every every
// from now, then the end datagrams; m (if not nil) counts the bytes sent.
// Datagrams a stalled sender is late for go out at once, each with its
// own send time. It returns how many it sent.
func sendCBR(ctx context.Context, conn *net.UDPConn, to *net.UDPAddr, packet int, every time.Duration, count int, m *meter) (int64, error) {
	buf := make([]byte, packet)
	fillPattern(buf[workload.CBRHeader:], bodyPattern(), 0)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	start := time.Now()
	var sent int64
	for i := 0; i < count; i++ {
		if wait := time.Until(start.Add(time.Duration(i) * every)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return sent, ctx.Err()
			case <-timer.C:
			}
		}
		now := time.Now()
		putCBR(buf, cbrData, uint32(i), uint32(count), now.UnixNano())
		if _, err := conn.WriteToUDP(buf, to); err != nil {
			if errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.EAGAIN) {
				continue // a full queue below the socket: a lost datagram
			}
			return sent, err
		}
		sent++
		if m != nil {
			m.add(packet, now)
		}
	}
	end := make([]byte, workload.CBRHeader)
	putCBR(end, cbrEnd, uint32(sent), 0, 0)
	for i := range endRepeats {
		if i > 0 {
			timer.Reset(endGap)
			select {
			case <-ctx.Done():
				return sent, ctx.Err()
			case <-timer.C:
			}
		}
		conn.WriteToUDP(end, to)
	}
	return sent, nil
}
