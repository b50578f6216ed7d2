package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// Uploads. The client POSTs its body to /upload, stamped like a download
// body (a send stamp every DefaultStampInterval bytes, taken just before
// the transport gets the piece it starts); a duration-limited upload adds
// ?until=UNIXNS, the end of its window on the shared clock. The server
// counts what arrives (bytes after until do not count), measures the
// stamps' one-way delays, stops reading at the window's end or the body's,
// and answers with an uploadReport. The client's figures are the server's:
// seconds from the client's start to the last byte's arrival (size-limited)
// or the window.

// uploadPath is where uploads go.
const uploadPath = "/upload"

// uploadReport is the server's answer to an upload.
type uploadReport struct {
	Bytes int64 `json:"bytes"`
	// LastNs is the arrival of the last counted byte, Unix ns; 0 if none.
	LastNs int64               `json:"last_ns"`
	OWD    *results.DelayStats `json:"owd_ms,omitempty"`
}

// runUpload sends the flow's bytes to the server over one connection.
func runUpload(ctx context.Context, cfg *ClientConfig, m *meter, c *connector) (Result, error) {
	fail := func(err error) (Result, error) {
		r, err := m.finish(time.Now(), endError, unknownSize, err)
		r.CC, r.RcvBufBytes = c.congestion(), c.rcvbuf
		return r, err
	}
	h, err := c.dial(ctx)
	if err != nil {
		return fail(describeWork(err, cfg, c.addr, 0))
	}
	defer h.close()
	target := "https://" + c.addr + uploadPath
	if !m.windowEnd.IsZero() {
		target += "?until=" + strconv.FormatInt(m.windowEnd.UnixNano(), 10)
	}
	size := cfg.Size
	if cfg.Duration > 0 {
		size = -1
	}
	body := newUploadBody(size, DefaultStampInterval, m)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, body)
	if err != nil {
		return fail(err)
	}
	req.ContentLength = max(size, 0)
	resp, err := c.roundTrip(h, req)
	var rep uploadReport
	if err == nil {
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&rep)
		resp.Body.Close()
		if err != nil {
			err = fmt.Errorf("upload report: %w", err)
		}
	}
	body.stop()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))
		}
		return fail(describeWork(err, cfg, c.addr, m.bytes.Load()))
	}
	r := Result{Bytes: rep.Bytes, CC: c.congestion(), RcvBufBytes: c.rcvbuf, OWD: rep.OWD, Complete: true}
	switch {
	case cfg.Duration > 0:
		r.Seconds = cfg.Duration.Seconds()
	case rep.LastNs > 0:
		r.Seconds = time.Unix(0, rep.LastNs).Sub(m.start.Round(0)).Seconds()
	}
	if cfg.Duration == 0 && rep.Bytes != cfg.Size {
		r.Complete = false
		err = fmt.Errorf("short upload: the server received %d of %d bytes", rep.Bytes, cfg.Size)
	}
	if r.Seconds > 0 {
		r.GoodputMbps = float64(r.Bytes) * 8 / r.Seconds / 1e6
	}
	return r, err
}

// uploadBody is an upload's body: size bytes (size < 0: until stopped or
// the meter's window ends) of the pattern, stamped every interval bytes.
// Each Read returns at most up to the next stamp, so a stamp starts a
// Read and its time is taken just before the transport gets it.
type uploadBody struct {
	size, interval int64
	m              *meter
	off            int64
	pattern        []byte
	stamp          [StampSize]byte
	mu             sync.Mutex
	stopped        bool
}

func newUploadBody(size, interval int64, m *meter) *uploadBody {
	return &uploadBody{size: size, interval: interval, m: m, pattern: bodyPattern()}
}

// stop makes the next Read end the body.
func (b *uploadBody) stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
}

func (b *uploadBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	stopped := b.stopped
	b.mu.Unlock()
	if stopped || (b.size >= 0 && b.off >= b.size) {
		return 0, io.EOF
	}
	n := int64(len(p))
	if b.size >= 0 {
		n = min(n, b.size-b.off)
	}
	into := b.off % b.interval
	n = min(n, b.interval-into)
	now := time.Now()
	if into == 0 {
		putStamp(b.stamp[:], b.interval, now)
	}
	k := 0
	if into < StampSize { // the stamp, or the rest of one a short Read split
		k = copy(p[:n], b.stamp[into:])
	}
	fillPattern(p[k:n], b.pattern, b.off+int64(k))
	if !b.m.add(int(n), now) {
		return 0, io.EOF // the window is over
	}
	b.off += n
	return int(n), nil
}

// fillPattern copies the pattern into p as it continues at body offset off.
func fillPattern(p, pattern []byte, off int64) {
	for i := 0; i < len(p); {
		i += copy(p[i:], pattern[(off+int64(i))%int64(len(pattern)):])
	}
}

// serveUpload receives an upload: it counts the body's bytes against the
// window of ?until, measures the send stamps and answers an uploadReport.
func serveUpload(w http.ResponseWriter, r *http.Request, s *uploadSink, buf []byte) {
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		http.Error(w, "uploads are POST or PUT", http.StatusMethodNotAllowed)
		return
	}
	start := time.Now()
	m := newMeter(s.t0, start, 0)
	if u := r.URL.Query().Get("until"); u != "" {
		ns, err := strconv.ParseInt(u, 10, 64)
		if err != nil || ns <= 0 {
			http.Error(w, "until: want Unix nanoseconds", http.StatusBadRequest)
			return
		}
		m.windowEnd = time.Unix(0, ns)
	}
	closeLogs, err := s.open(m)
	if err != nil {
		fmt.Fprintf(s.log, "endpoint: upload from %s: %v\n", r.RemoteAddr, err)
		http.Error(w, "server cannot log the upload", http.StatusInternalServerError)
		return
	}
	reason, rerr := readBody(r.Body, buf, m)
	if reason == endError {
		closeLogs()
		fmt.Fprintf(s.log, "endpoint: upload from %s ended after %d bytes: %v\n", r.RemoteAddr, m.bytes.Load(), rerr)
		return // the client went away; nothing to tell it
	}
	rep := uploadReport{Bytes: m.bytes.Load(), OWD: m.owd.stats()}
	if !m.last.IsZero() {
		rep.LastNs = m.last.UnixNano()
	}
	if err := closeLogs(); err != nil {
		fmt.Fprintf(s.log, "endpoint: upload from %s: %v\n", r.RemoteAddr, err)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(rep)
}

// uploadSink holds where a server logs its uploads: the first to the
// configured paths, later ones to numbered names.
type uploadSink struct {
	t0              time.Time
	recvLog, owdLog string
	log             io.Writer
	mu              sync.Mutex
	n               int
}

func newUploadSink(cfg *ServerConfig) *uploadSink {
	t0 := cfg.T0
	if t0.IsZero() {
		t0 = time.Now()
	}
	return &uploadSink{t0: t0, recvLog: cfg.Work.RecvLog, owdLog: cfg.Work.OWDLog, log: cfg.Log}
}

// open gives m the logs of one more upload and returns what closes them.
func (s *uploadSink) open(m *meter) (func() error, error) {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	if s.recvLog != "" {
		l, err := createRecvLog(numberedPath(s.recvLog, n))
		if err != nil {
			return nil, err
		}
		m.log = l
	}
	owdPath := ""
	if s.owdLog != "" {
		owdPath = numberedPath(s.owdLog, n)
	}
	o, err := newOWDRecorder(m, owdPath)
	if err != nil {
		m.log.Close()
		return nil, err
	}
	m.owd = o
	return func() error { return errors.Join(m.log.Close(), m.owd.Close()) }, nil
}
