package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/internal/invoker"
)

// serveCBR runs the UDP server of cbr flows until ctx ends: it sends the
// datagrams hellos ask for and receives uploading clients' datagrams,
// answering their queries with a report.
func serveCBR(ctx context.Context, cfg *ServerConfig) error {
	conn, err := listenUDP(cfg.Listen)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := enableRxTimestamps(conn); err != nil {
		return fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	t0 := cfg.T0
	if t0.IsZero() {
		t0 = time.Now()
	}
	s := &cbrServer{cfg: cfg, conn: conn, t0: t0, senders: map[string]bool{}, uploads: map[string]*cbrUpload{}}
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	cfg.ready(conn.LocalAddr().String())
	err = s.loop(ctx)
	s.wg.Wait()
	for _, u := range s.uploads {
		err = errors.Join(err, u.close())
	}
	if ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = nil
	}
	if err == nil && ctx.Err() == nil {
		err = errors.New("server stopped by itself")
	}
	return err
}

type cbrServer struct {
	cfg     *ServerConfig
	conn    *net.UDPConn
	t0      time.Time
	wg      sync.WaitGroup
	senders map[string]bool       // clients being sent to (down)
	uploads map[string]*cbrUpload // clients sending (up)
}

// cbrUpload is the receiving side of one uploading client.
type cbrUpload struct {
	rcv    *cbrReceiver
	f      *os.File
	log    *results.CBRWriter
	recv   *recvLog
	report []byte // once queried
}

func (u *cbrUpload) close() error {
	var errs []error
	if u.log != nil {
		errs = append(errs, u.log.Flush(), u.f.Close())
		u.log = nil
	}
	errs = append(errs, u.recv.Close())
	u.recv = nil
	return errors.Join(errs...)
}

func (s *cbrServer) loop(ctx context.Context) error {
	buf := make([]byte, 2048)
	oob := make([]byte, cbrOOBSize)
	for ctx.Err() == nil {
		n, oobn, _, from, err := s.conn.ReadMsgUDP(buf, oob)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		at, ok := rxTime(oob[:oobn])
		if !ok {
			at = time.Now()
		}
		k, a, c, t, ok := parseCBR(buf[:n])
		if !ok {
			continue
		}
		key := from.String()
		switch k {
		case cbrHello:
			if s.senders[key] {
				continue
			}
			packet, count, every := int(a), int(c), time.Duration(t)
			err := workload.CheckCBRPacket(packet)
			if err == nil {
				err = workload.CheckCBRInterval(packet, every)
			}
			if err != nil {
				fmt.Fprintf(s.cfg.Log, "endpoint: cbr hello from %s: %v\n", key, err)
				continue
			}
			s.senders[key] = true
			s.cfg.accepted(ConnInfo{Remote: key})
			to := from
			s.wg.Go(func() {
				if _, err := sendCBR(ctx, s.conn, to, packet, every, count, nil); err != nil && ctx.Err() == nil {
					fmt.Fprintf(s.cfg.Log, "endpoint: cbr to %s: %v\n", to, err)
				}
			})
		case cbrData, cbrEnd:
			u, err := s.upload(key)
			if err != nil {
				return err
			}
			if u.report == nil {
				u.rcv.take(buf[:n], at)
			}
		case cbrQuery:
			u, err := s.upload(key)
			if err != nil {
				return err
			}
			if u.report == nil {
				b, err := json.Marshal(reportOf(u.rcv.stats()))
				if err != nil {
					return err
				}
				u.report = append(append(make([]byte, 0, 4+len(b)), cbrMagic[:]...), cbrReport)
				u.report = append(u.report, b...)
				if len(u.report) > cbrReportMax {
					return fmt.Errorf("cbr report of %d bytes", len(u.report))
				}
				if err := u.close(); err != nil {
					fmt.Fprintf(s.cfg.Log, "endpoint: cbr from %s: %v\n", key, err)
				}
			}
			s.conn.WriteToUDP(u.report, from)
		}
	}
	return nil
}

// upload returns the receiving side of client key, starting it (and its
// logs: the first client's at the configured paths, later ones numbered).
func (s *cbrServer) upload(key string) (*cbrUpload, error) {
	if u := s.uploads[key]; u != nil {
		return u, nil
	}
	n := len(s.uploads) + 1
	m := newMeter(s.t0, time.Now(), 0)
	u := &cbrUpload{}
	if p := s.cfg.Work.RecvLog; p != "" {
		l, err := createRecvLog(numberedPath(p, n))
		if err != nil {
			return nil, err
		}
		m.log, u.recv = l, l
	}
	if p := s.cfg.Work.KindLog; p != "" {
		f, err := invoker.Create(numberedPath(p, n))
		if err != nil {
			return nil, fmt.Errorf("cbr log: %w", err)
		}
		u.f, u.log = f, results.NewCBRWriter(f)
	}
	u.rcv = newCBRReceiver(m, u.log)
	s.uploads[key] = u
	s.cfg.accepted(ConnInfo{Remote: key})
	return u, nil
}
