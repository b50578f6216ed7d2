package endpoint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlogwriter"

	"github.com/dc-emu/emu/internal/invoker"
)

// qlogSink writes the qlog of each quic-go connection to its own file: the
// first to path, later ones to numbered names. A file is complete once its
// connection is closed; wait blocks until that has happened for all.
type qlogSink struct {
	path string
	log  io.Writer

	mu     sync.Mutex
	n      int
	closed []chan error // one per file, receives its Close error
}

func newQlogSink(path string, log io.Writer) *qlogSink {
	return &qlogSink{path: path, log: log}
}

// tracer is a quic.Config.Tracer; nil when the sink has no path.
func (s *qlogSink) tracer() func(context.Context, bool, quic.ConnectionID) qlogwriter.Trace {
	if s.path == "" {
		return nil
	}
	return func(_ context.Context, isClient bool, odcid quic.ConnectionID) qlogwriter.Trace {
		s.mu.Lock()
		s.n++
		name := numberedPath(s.path, s.n)
		s.mu.Unlock()
		f, err := invoker.Create(name)
		if err != nil {
			// A connection without qlog is better than no connection; say so.
			fmt.Fprintf(s.log, "endpoint: qlog: %v\n", err)
			return nil
		}
		done := make(chan error, 1)
		s.mu.Lock()
		s.closed = append(s.closed, done)
		s.mu.Unlock()
		fs := qlogwriter.NewConnectionFileSeq(&qlogFile{w: bufio.NewWriterSize(f, 1<<20), f: f, done: done}, isClient, odcid)
		go fs.Run()
		return fs
	}
}

// wait waits until every qlog file was flushed and closed, or timeout.
func (s *qlogSink) wait(timeout time.Duration) error {
	s.mu.Lock()
	chans := append([]chan error(nil), s.closed...)
	s.mu.Unlock()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var errs []error
	for i, c := range chans {
		select {
		case err := <-c:
			if err != nil {
				errs = append(errs, err)
			}
		case <-deadline.C:
			return fmt.Errorf("qlog: %d of %d files still open after %v (their connections did not close)", len(chans)-i, len(chans), timeout)
		}
	}
	return errors.Join(errs...)
}

// numberedPath returns path for n = 1 and base.n.ext after that:
// server.sqlog, server.2.sqlog, ...
func numberedPath(path string, n int) string {
	if n <= 1 {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + strconv.Itoa(n) + ext
}

// qlogFile is the buffered WriteCloser the qlog FileSeq writes to; Close
// flushes, closes and reports to whoever waits for the file.
type qlogFile struct {
	w    *bufio.Writer
	f    *os.File
	done chan error
}

func (q *qlogFile) Write(b []byte) (int, error) { return q.w.Write(b) }

func (q *qlogFile) Close() error {
	err := q.w.Flush()
	if cerr := q.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		err = fmt.Errorf("qlog %s: %w", q.f.Name(), err)
	}
	q.done <- err
	return err
}
