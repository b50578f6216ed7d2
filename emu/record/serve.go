package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// Server is the far end of recordings: `emu record serve`. One TCP
// listener takes control connections and one UDP socket on the same
// address carries every session's streams.
type Server struct {
	tcp net.Listener
	udp *net.UDPConn
	log io.Writer

	mu       sync.Mutex
	sessions map[uint32]*session
}

// Listen opens the far end's sockets on addr (HOST:PORT, :PORT or "" for
// every address at DefaultPort). Serve then answers on them.
func Listen(addr string, log io.Writer) (*Server, error) {
	if addr == "" {
		addr = fmt.Sprintf(":%d", DefaultPort)
	}
	tcp, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("record serve: %w", err)
	}
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: tcp.Addr().(*net.TCPAddr).IP, Port: tcp.Addr().(*net.TCPAddr).Port})
	if err != nil {
		tcp.Close()
		return nil, fmt.Errorf("record serve: %w", err)
	}
	if err := prepareUDP(udp); err != nil {
		tcp.Close()
		udp.Close()
		return nil, fmt.Errorf("record serve: %w", err)
	}
	if log == nil {
		log = io.Discard
	}
	return &Server{tcp: tcp, udp: udp, log: log, sessions: map[uint32]*session{}}, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.tcp.Addr() }

// Serve answers recording requests until ctx is done, then closes the
// sockets.
func (s *Server) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	go func() {
		<-ctx.Done()
		s.tcp.Close()
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer s.udp.Close()
		readLoop(ctx, s.udp, s.dispatch)
	}()
	for {
		c, err := s.tcp.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("record serve: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			if err := s.handle(ctx, c); err != nil {
				fmt.Fprintf(s.log, "record serve: %s: %v\n", c.RemoteAddr(), err)
			}
		}()
	}
}

// dispatch hands a datagram to its session.
func (s *Server) dispatch(d *datagram, size int, recv int64, from *net.UDPAddr) {
	s.mu.Lock()
	sess := s.sessions[d.session]
	s.mu.Unlock()
	if sess == nil {
		return
	}
	if d.kind == kindHello {
		sess.peer.Store(from)
		return
	}
	sess.arrive(d, size, recv)
}

// handshakeTimeout bounds how long a control connection may take to say
// what it wants.
const handshakeTimeout = 10 * time.Second

// handle serves one control connection: one path's recording.
func (s *Server) handle(ctx context.Context, c net.Conn) error {
	cc := newConn(c)
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	var req request
	if err := cc.recv(&req); err != nil {
		cc.send(reply{Error: "not a recording request"})
		return fmt.Errorf("refused: %w", err)
	}
	if err := req.check(); err != nil {
		cc.send(reply{Error: err.Error()})
		return fmt.Errorf("refused: %w", err)
	}
	sess := newSession(req.Session, s.udp, req.Packet, float64(req.MaxRate), time.Duration(req.DurationMs)*time.Millisecond)
	s.mu.Lock()
	if s.sessions[req.Session] != nil {
		s.mu.Unlock()
		cc.send(reply{Error: "session id in use"})
		return errors.New("refused: session id in use")
	}
	s.sessions[req.Session] = sess
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sessions, req.Session)
		s.mu.Unlock()
	}()
	host, _ := os.Hostname()
	if err := cc.send(reply{UDPPort: s.udp.LocalAddr().(*net.UDPAddr).Port, BootID: bootID(), Host: host}); err != nil {
		return err
	}
	fmt.Fprintf(s.log, "record serve: %s: path %d, %v\n", c.RemoteAddr(), req.Path, time.Duration(req.DurationMs)*time.Millisecond)
	run, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan struct{})
	started := false
	for {
		var m message
		if err := cc.recv(&m); err != nil {
			return fmt.Errorf("control connection: %w", err)
		}
		switch {
		case m.Ping != 0:
			if err := cc.send(reply{Ping: m.Ping, Now: time.Now().UnixNano()}); err != nil {
				return err
			}
		case m.Hello:
			if err := cc.send(reply{Seen: sess.peer.Load() != nil}); err != nil {
				return err
			}
		case m.Start != 0 && !started:
			started = true
			sess.begin(m.Start)
			// No deadline while the streams run: the near end speaks
			// again when the recording is over.
			c.SetDeadline(time.Time{})
			go func() { defer close(done); sess.run(run) }()
		case m.Done:
			stop()
			if started {
				<-done
			}
			up, stat := sess.result()
			c.SetDeadline(time.Now().Add(handshakeTimeout))
			return cc.send(reply{Up: &up, Sender: &stat})
		default:
			cc.send(reply{Error: "unexpected control message"})
			return errors.New("unexpected control message")
		}
	}
}

// bootID names the running kernel: two ends with the same one read the
// same clock.
func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}
