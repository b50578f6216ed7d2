package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// errInterrupted is the error of a download its caller cancelled.
var errInterrupted = errors.New("interrupted")

// Download fetches cfg.URL and measures it, or runs the client's other
// kind of flow (cfg.Work: an upload, transactions, datagrams, objects). progress, if not nil, is called
// every cfg.Interval from one goroutine (never concurrently with itself);
// it has returned for the last time when Download returns. The Result holds
// what was measured even when the error is not nil; a cancelled ctx stops
// the download with an error wrapping context.Canceled ("interrupted").
func Download(ctx context.Context, cfg ClientConfig, progress func(Progress)) (Result, error) {
	if err := cfg.validate(); err != nil {
		return Result{}, fmt.Errorf("endpoint client: %w", err)
	}
	start := time.Now()
	m := newMeter(cfg.T0, start, cfg.Duration)
	if cfg.RecvLog != "" {
		l, err := createRecvLog(cfg.RecvLog)
		if err != nil {
			return Result{}, fmt.Errorf("endpoint client: %w", err)
		}
		m.log = l
	}
	// The ngtcp2 client's body is never read here: its recorder stays
	// idle and its log has the header only.
	o, oerr := newOWDRecorder(m, cfg.OWDLog)
	if oerr != nil {
		m.log.Close()
		return Result{}, fmt.Errorf("endpoint client: %w", oerr)
	}
	m.owd = o
	stopReports := reportProgress(m, start, cfg.Interval, progress)
	var r Result
	var err error
	switch {
	case !cfg.Work.bulkDown():
		r, err = runWorkload(ctx, &cfg, m)
	case cfg.Impl == ImplQuicGo:
		r, err = downloadQuicGo(ctx, &cfg, m)
	case cfg.Impl == ImplNgtcp2:
		r, err = downloadNgtcp2(ctx, &cfg, m)
	case cfg.Impl == ImplGo:
		r, err = downloadTCP(ctx, &cfg, m)
	}
	stopReports()
	if r.OWD == nil { // an upload's and a cbr flow's come from their receiver
		r.OWD = m.owd.stats()
	}
	if w := m.owd.warning(); w != "" {
		fmt.Fprintln(cfg.Log, w)
	}
	for _, c := range []interface{ Close() error }{m.log, m.owd} {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = cerr
			r.Complete = false
		}
	}
	if err != nil {
		return r, fmt.Errorf("endpoint client (%s) %s: %w", cfg.Impl, cfg.URL, err)
	}
	return r, nil
}

// reportProgress calls progress every interval after start until the
// returned stop function is called; stop waits for the last periodic call
// and then reports the final count once more.
func reportProgress(m *meter, start time.Time, interval time.Duration, progress func(Progress)) (stop func()) {
	if progress == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		next := start.Add(interval)
		t := time.NewTimer(time.Until(next))
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			// Report at the scheduled instant's count; ticks missed by a
			// stalled scheduler are skipped, not bunched.
			now := time.Now()
			if !m.inWindow(now) {
				return
			}
			progress(m.progress(now))
			for !next.After(now) {
				next = next.Add(interval)
			}
			t.Reset(time.Until(next))
		}
	})
	return func() {
		close(quit)
		wg.Wait()
		// One last report with the final count, so even a download shorter
		// than the interval (or the tail after the last tick) is reported;
		// past a duration window the time is clamped to its end.
		now := time.Now()
		if !m.inWindow(now) {
			now = m.windowEnd
		}
		progress(m.progress(now))
	}
}

// fetched is how a Go client's GET ended: when reading stopped, why,
// the size it expected and the error as classifyEnd leaves it.
type fetched struct {
	at       time.Time
	reason   endReason
	expected int64
	err      error
}

// fetch GETs cfg.URL over rt within the measurement window of m and reads
// the body into m. check, if set, rejects a response the transport must
// not give (it runs before the status is looked at); verify, if set, runs
// once the body is read and fails the download with its error. The size
// expected is cfg.Size, else the response's Content-Length, else
// unknownSize. The response body is closed when fetch returns. The error
// is only that of making the request, before anything was sent.
func fetch(ctx context.Context, rt http.RoundTripper, cfg *ClientConfig, m *meter, check func(*http.Response) error, verify func() error) (fetched, error) {
	reqCtx, cancel := windowContext(ctx, m)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, cfg.URL, nil)
	if err != nil {
		return fetched{}, err
	}
	f := fetched{expected: cfg.Size}
	resp, err := rt.RoundTrip(req)
	if err == nil && check != nil {
		err = check(resp)
	}
	if err == nil {
		switch {
		case resp.StatusCode != http.StatusOK:
			err = fmt.Errorf("server answered %s", resp.Status)
		case f.expected == 0 && resp.ContentLength >= 0:
			f.expected = resp.ContentLength
		}
	}
	if err == nil {
		f.reason, err = readBody(resp.Body, make([]byte, readBufSize), m)
	} else {
		f.reason = endError
	}
	f.at = time.Now()
	if err == nil && verify != nil {
		if err = verify(); err != nil {
			f.reason = endError
		}
	}
	f.reason, f.err = classifyEnd(ctx, reqCtx, f.reason, err)
	if resp != nil {
		resp.Body.Close()
	}
	if f.expected == 0 && cfg.Size == 0 {
		f.expected = unknownSize
	}
	return f, nil
}

// readBody reads body into buf until it ends, fails, or the window of m
// ends. It returns why it stopped.
func readBody(body io.Reader, buf []byte, m *meter) (endReason, error) {
	for {
		n, err := body.Read(buf)
		if n > 0 {
			now := time.Now()
			if !m.add(n, now) {
				return endWindow, nil
			}
			if m.owd != nil {
				m.owd.observe(buf[:n], now)
			}
		}
		if err == io.EOF {
			return endEOF, nil
		}
		if err != nil {
			return endError, err
		}
	}
}

// windowContext is ctx ending at the measurement window's end, if any, so
// a stalled read cannot outlast the window.
func windowContext(ctx context.Context, m *meter) (context.Context, context.CancelFunc) {
	if m.windowEnd.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadlineCause(ctx, m.windowEnd, errWindowEnd)
}

var errWindowEnd = errors.New("measurement window ended")

// classifyEnd turns the way a Go client's request ended into a reason:
// the caller's cancellation is an interruption, the window's deadline is
// the normal end of a duration-limited download.
func classifyEnd(ctx, reqCtx context.Context, reason endReason, err error) (endReason, error) {
	if reason != endError {
		return reason, err
	}
	if ctx.Err() != nil {
		return endError, fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))
	}
	if errors.Is(context.Cause(reqCtx), errWindowEnd) {
		return endWindow, nil
	}
	return endError, err
}

// hostPort is the host:port of a validated URL.
func hostPort(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	return u.Host
}
