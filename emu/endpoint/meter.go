package endpoint

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
)

// Progress is one progress report of a download.
type Progress struct {
	T     time.Duration // since the client's t0
	Bytes int64         // cumulative body bytes
}

// Result is what a download measured. Download returns it even when it
// fails, with what arrived until then.
type Result struct {
	Bytes       int64
	Seconds     float64
	GoodputMbps float64
	// Complete: every expected byte arrived (size-limited) or the whole
	// window was measured (duration-limited).
	Complete bool
	// CC is the congestion controller the client's side used.
	CC string
	// RcvBufBytes is the UDP receive buffer (getsockopt SO_RCVBUF) of a
	// quic-go client; 0 where emu does not control it.
	RcvBufBytes int
	// OWD summarises the one-way delays of the body's send stamps; nil
	// when there were none (the ngtcp2 client, or an unstamped body). A
	// cbr flow's are its datagrams', an upload's the server's.
	OWD *results.DelayStats
	// Work is what a kind other than a bulk download measured (its
	// latency, datagrams, objects, resumption); nil for a download.
	Work *results.FlowWorkload
}

// endReason says why a download stopped.
type endReason int

const (
	endEOF    endReason = iota // the body ended
	endWindow                  // the duration-limited window elapsed
	endError                   // something failed, or the caller cancelled
)

// unknownSize marks a download whose length nobody announced.
const unknownSize int64 = -1

// meter counts body bytes against the measurement window. add and set
// belong to the one goroutine that reads the body; bytes may be read by
// any goroutine (the progress reporter).
type meter struct {
	start     time.Time     // measurement start, with a monotonic reading
	t0Offset  time.Duration // start minus the caller's t0 (wall clock)
	windowEnd time.Time     // zero for size-limited downloads
	bytes     atomic.Int64
	last      time.Time // arrival of the last counted byte
	log       *recvLog
	owd       *owdRecorder // nil for clients that do not read the body
}

// newMeter starts measuring at start. t0 (zero: start) is the origin of
// reported times; duration > 0 sets the window.
func newMeter(t0, start time.Time, duration time.Duration) *meter {
	m := &meter{start: start}
	if !t0.IsZero() {
		// Wall clock on both sides: t0 comes from another process.
		m.t0Offset = start.Round(0).Sub(t0.Round(0))
	}
	if duration > 0 {
		m.windowEnd = start.Add(duration)
	}
	return m
}

// since returns now as a time since t0.
func (m *meter) since(now time.Time) time.Duration { return m.t0Offset + now.Sub(m.start) }

// inWindow reports whether bytes arriving at now still count.
func (m *meter) inWindow(now time.Time) bool {
	return m.windowEnd.IsZero() || !now.After(m.windowEnd)
}

// add counts n bytes that arrived at now. It returns false, counting
// nothing, once now is past the window: the reader should stop.
func (m *meter) add(n int, now time.Time) bool {
	if !m.inWindow(now) {
		return false
	}
	if n <= 0 {
		return true
	}
	return m.set(m.bytes.Load()+int64(n), now)
}

// set records that total bytes have arrived by now (for clients that
// observe a cumulative count, such as the size of a downloaded file).
func (m *meter) set(total int64, now time.Time) bool {
	if !m.inWindow(now) {
		return false
	}
	if total <= m.bytes.Load() {
		return true
	}
	m.bytes.Store(total)
	m.last = now
	if m.log != nil {
		m.log.row(m.since(now), total)
	}
	return true
}

// progress reports the count at now.
func (m *meter) progress(now time.Time) Progress {
	return Progress{T: m.since(now), Bytes: m.bytes.Load()}
}

// finish turns the count into a Result. expected is the announced size or
// unknownSize; err is why the download stopped early (reason endError).
// It returns the error the download failed with, if any.
func (m *meter) finish(now time.Time, reason endReason, expected int64, err error) (Result, error) {
	b := m.bytes.Load()
	r := Result{Bytes: b}
	elapsed := now.Sub(m.start)
	switch reason {
	case endWindow:
		r.Seconds = m.windowEnd.Sub(m.start).Seconds()
		r.Complete = true
		err = nil
	case endEOF:
		switch {
		case expected != unknownSize && b < expected:
			err = fmt.Errorf("short download: the server ended the response after %d of %d bytes", b, expected)
			r.Seconds = elapsed.Seconds()
		case expected != unknownSize && b > expected:
			err = fmt.Errorf("long download: the server sent %d bytes, %d expected", b, expected)
			r.Seconds = elapsed.Seconds()
		default:
			err = nil
			r.Complete = true
			r.Seconds = elapsed.Seconds()
			if !m.last.IsZero() {
				r.Seconds = m.last.Sub(m.start).Seconds()
			}
		}
	default:
		if err == nil {
			err = errors.New("download stopped")
		}
		r.Seconds = elapsed.Seconds()
	}
	if r.Seconds > 0 {
		r.GoodputMbps = float64(b) * 8 / r.Seconds / 1e6
	}
	return r, err
}

// recvLog writes "t_s,bytes" rows through a buffer; one row per read must
// not allocate or make a system call.
type recvLog struct {
	f       *os.File
	w       *bufio.Writer
	scratch []byte
	err     error
}

func createRecvLog(path string) (*recvLog, error) {
	f, err := invoker.Create(path)
	if err != nil {
		return nil, fmt.Errorf("recv-log: %w", err)
	}
	l := &recvLog{f: f, w: bufio.NewWriterSize(f, 256<<10), scratch: make([]byte, 0, 64)}
	if _, err := l.w.WriteString("t_s,bytes\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("recv-log %s: %w", path, err)
	}
	return l, nil
}

func (l *recvLog) row(t time.Duration, total int64) {
	if l.err != nil {
		return
	}
	b := strconv.AppendFloat(l.scratch[:0], t.Seconds(), 'f', 6, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, total, 10)
	b = append(b, '\n')
	_, l.err = l.w.Write(b)
}

// Close flushes the rows and reports the first write error.
func (l *recvLog) Close() error {
	if l == nil {
		return nil
	}
	err := l.err
	if ferr := l.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recv-log %s: %w", l.f.Name(), err)
	}
	return nil
}
