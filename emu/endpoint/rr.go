package endpoint

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/quic-go/http3"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
)

// Request/response transactions. Each transaction is one HTTP request with
// a body of Request bytes to /rr/N and a response of N = Response bytes:
// over QUIC a stream of its own on the flow's connection (HTTP/3), over
// TCP an HTTP/2 stream; with NewConns a new connection each. Its latency
// runs from the moment the request is handed to the transport to the
// response's last byte. Back to back (Every 0) a transaction starts when
// the previous one is done; with an interval they start on a fixed
// schedule whether or not earlier ones are done (an open loop, so a slow
// transaction does not hide the ones it delays), at most maxOutstanding at
// once.

// rrPath is where transactions go: /rr/N answers N bytes.
const rrPath = "/rr/"

// maxOutstanding bounds the transactions of an open-loop rr flow in
// flight at once; a schedule that would exceed it waits.
const maxOutstanding = 256

// serveRR answers a transaction: it reads the whole request body, then
// sends the N bytes of /rr/N.
func serveRR(w http.ResponseWriter, r *http.Request, pattern []byte) {
	n, ok := bytesPathSize("/bytes/" + strings.TrimPrefix(r.URL.Path, rrPath))
	if !ok || n > workload.MaxTransaction {
		http.Error(w, "want /rr/N with N a decimal number of bytes up to 1e9", http.StatusNotFound)
		return
	}
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return // the client went away
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	w.WriteHeader(http.StatusOK)
	if bc := bdpConnFrom(r.Context()); bc != nil {
		bc.start(n)
		defer func() { w.Header().Set(http.TrailerPrefix+trailerResumeCheck, bc.result(r.Context())) }()
	}
	for sent := int64(0); sent < n; {
		k := min(int64(len(pattern)), n-sent)
		if _, err := w.Write(pattern[:k]); err != nil {
			return
		}
		sent += k
	}
}

// rrRun is one rr client's state; rows and latencies are shared by the
// transactions in flight.
type rrRun struct {
	cfg     *ClientConfig
	m       *meter
	c       *connector
	pattern []byte

	mu   sync.Mutex // also serialises the meter, which transactions share
	log  *results.RRWriter
	rows []results.RRRow
	work *results.FlowWorkload
	err  error
}

// runRR runs the flow's transactions.
func runRR(ctx context.Context, cfg *ClientConfig, m *meter, c *connector) (Result, error) {
	work := &results.FlowWorkload{Kind: string(KindRR), Direction: "down"}
	run := &rrRun{cfg: cfg, m: m, c: c, pattern: bodyPattern(), work: work}
	log, err := openKindLog(cfg.Work.KindLog, "rr log", results.NewRRWriter)
	if err != nil {
		return Result{}, err
	}
	run.log = log.w
	err = log.close(run.run(ctx))
	r := workResult(m, c, work)
	work.Transactions = len(run.rows)
	if lat, ok, hs := results.SummarizeRR(run.rows); ok {
		work.LatencyMs, work.HandshakeMs = &lat, hs
	}
	if err == nil && cfg.Work.Count > 0 && work.Transactions < cfg.Work.Count && m.windowEnd.IsZero() {
		err = fmt.Errorf("%d of %d transactions done", work.Transactions, cfg.Work.Count)
	}
	r.Complete = err == nil
	return r, err
}

func (run *rrRun) run(ctx context.Context) error {
	ctx, cancel := windowContext(ctx, run.m)
	defer cancel()
	if err := resumeFirst(ctx, run.c, run.work, run.cfg.Work.Response); err != nil {
		return loopEnd(ctx, err)
	}
	shared, err := run.c.sharedConn(ctx)
	if err != nil {
		return loopEnd(ctx, err)
	}
	if shared != nil {
		defer shared.close()
	}
	count := run.cfg.Work.Count
	every := run.cfg.Work.Every
	if every == 0 {
		for i := 0; count == 0 || i < count; i++ {
			if err := run.transact(ctx, shared, i == 0); err != nil {
				return loopEnd(ctx, err)
			}
		}
		return nil
	}
	// Open loop: transaction i starts at start + i·every.
	slots := make(chan struct{}, maxOutstanding)
	var wg sync.WaitGroup
	start := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i := 0; count == 0 || i < count; i++ {
		timer.Reset(time.Until(start.Add(time.Duration(i) * every)))
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		if ctx.Err() != nil {
			break
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil || run.failed() {
			break
		}
		first := i == 0
		wg.Go(func() {
			defer func() { <-slots }()
			if err := run.transact(ctx, shared, first); err != nil {
				run.fail(err)
				cancel()
			}
		})
	}
	wg.Wait()
	run.mu.Lock()
	err = run.err
	run.mu.Unlock()
	return loopEnd(ctx, err)
}

func (run *rrRun) fail(err error) {
	run.mu.Lock()
	if run.err == nil {
		run.err = err
	}
	run.mu.Unlock()
}

func (run *rrRun) failed() bool {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.err != nil
}

// transact runs one transaction on shared, or on a new connection when
// shared is nil; first marks the flow's first, which carries the set-up of
// a shared connection.
func (run *rrRun) transact(ctx context.Context, shared *hconn, first bool) error {
	h, newConn := shared, first
	if h == nil {
		var err error
		if h, err = run.c.dial(ctx); err != nil {
			return describeWork(err, run.cfg, run.c.addr, run.m.bytes.Load())
		}
		defer h.close()
		newConn = true
	}
	w := run.cfg.Work
	method := http.MethodPost
	if run.c.zeroRTT {
		method = http3.MethodGet0RTT // HTTP/3 sends only GET and HEAD in 0-RTT; the body goes with it
	}
	req, err := http.NewRequestWithContext(ctx, method, "https://"+run.c.addr+rrPath+strconv.FormatInt(w.Response, 10), &patternReader{pattern: run.pattern, n: w.Request})
	if err != nil {
		return err
	}
	req.ContentLength = w.Request
	if w.Request == 0 {
		req.Body = http.NoBody
	}
	sent := time.Now()
	resp, err := run.c.roundTrip(h, req)
	if err != nil {
		return describeWork(err, run.cfg, run.c.addr, run.m.bytes.Load())
	}
	got, err := readCounted(resp.Body, run.m, &run.mu)
	resp.Body.Close()
	done := time.Now()
	if err == nil && fellBack(resp) {
		run.mu.Lock()
		noteFallback(run.work.Resume)
		run.mu.Unlock()
	}
	if err != nil {
		return describeWork(err, run.cfg, run.c.addr, run.m.bytes.Load())
	}
	if got != w.Response {
		return fmt.Errorf("transaction: the server answered %d of %d bytes", got, w.Response)
	}
	if !run.m.inWindow(done) {
		return nil // completed after the window: not counted
	}
	row := results.RRRow{T: run.m.since(sent), Latency: done.Sub(sent)}
	var resumed, zeroRTT bool
	if newConn {
		row.Handshake, resumed, zeroRTT = h.setup(ctx)
		row.NewConn = true
	}
	run.mu.Lock()
	if newConn {
		run.work.Resume.Note(resumed, zeroRTT)
	}
	run.rows = append(run.rows, row)
	if run.log != nil {
		run.log.Write(row)
	}
	run.mu.Unlock()
	return nil
}

// readCounted reads a response body to its end, counting its bytes on m
// (the flow's received bytes, its log and progress) under mu, which every
// reader sharing m holds while it counts.
func readCounted(body io.Reader, m *meter, mu *sync.Mutex) (int64, error) {
	var buf [16 << 10]byte
	var got int64
	for {
		n, err := body.Read(buf[:])
		if n > 0 {
			got += int64(n)
			mu.Lock()
			m.add(n, time.Now())
			mu.Unlock()
		}
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
	}
}

// patternReader is n bytes of the pattern.
type patternReader struct {
	pattern []byte
	n, off  int64
}

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	k := min(int64(len(b)), p.n-p.off)
	fillPattern(b[:k], p.pattern, p.off)
	p.off += k
	return int(k), nil
}
