package endpoint

import (
	"fmt"
	"os"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
)

// owdRecorder turns the stamps of a body into one-way delays: a row per
// stamp in the OWD log (if any) and a sample for the statistics of the done
// event. It belongs to the goroutine that reads the body.
type owdRecorder struct {
	scan stampScanner
	m    *meter
	f    *os.File
	log  *results.OWDWriter
	ms   []float64 // one sample per stamp, milliseconds
}

// newOWDRecorder records the delays of the body m measures; path, if not
// empty, receives the log.
func newOWDRecorder(m *meter, path string) (*owdRecorder, error) {
	o := &owdRecorder{m: m, ms: make([]float64, 0, 4096)}
	if path != "" {
		f, err := invoker.Create(path)
		if err != nil {
			return nil, fmt.Errorf("owd-log: %w", err)
		}
		o.f, o.log = f, results.NewOWDWriter(f)
	}
	return o, nil
}

// observe scans body bytes read at now.
func (o *owdRecorder) observe(p []byte, now time.Time) { o.scan.feed(p, now, o) }

func (o *owdRecorder) stamp(offset, sentNs int64, read time.Time) {
	owd := time.Duration(read.UnixNano() - sentNs)
	o.ms = append(o.ms, float64(owd)/1e6)
	if o.log != nil {
		o.log.Write(results.OWDRow{T: o.m.since(read), Offset: offset, OWD: owd})
	}
}

// stats summarises the delays; nil without stamps.
func (o *owdRecorder) stats() *results.DelayStats {
	if o == nil {
		return nil
	}
	st, ok := results.SummarizeDelays(o.ms)
	if !ok {
		return nil
	}
	return &st
}

// warning says why the delays stopped early, if they did: a stamp that
// does not match the ones before means server and client disagree about
// the format, which must not go unnoticed but does not fail the download.
func (o *owdRecorder) warning() string {
	if o == nil || !o.scan.bad {
		return ""
	}
	return fmt.Sprintf("endpoint: owd: the stamp at body offset %d does not match the ones before (interval %d); one-way delays stop there", o.scan.next, o.scan.interval)
}

// Close writes out the log.
func (o *owdRecorder) Close() error {
	if o == nil || o.f == nil {
		return nil
	}
	err := o.log.Flush()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("owd-log %s: %w", o.f.Name(), err)
	}
	return nil
}
