package endpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/dc-emu/emu/emu/results"
)

// Event kinds printed on an endpoint's stdout, one JSON object per line.
const (
	EventReady    = "ready"    // server: listening; Addr
	EventAccept   = "accept"   // server: connection accepted; Remote, CC, MPTCP, Error
	EventProgress = "progress" // client: T, Bytes
	EventDone     = "done"     // client, once at the end: the Result fields
)

// Event is one line of the process protocol. Which fields are meaningful
// depends on Kind (see the Event* constants).
type Event struct {
	Kind   string
	Addr   string  // ready
	Remote string  // accept
	CC     string  // accept, done
	MPTCP  bool    // accept: the server listens with MPTCP
	T      float64 // progress: seconds since t0
	Bytes  int64   // progress, done
	// done:
	Seconds     float64
	GoodputMbps float64
	Complete    bool
	Error       string
	RcvBufBytes int
	OWD         *results.DelayStats // nil: the client measured none
	// Work is what a kind other than a bulk download measured; nil for a
	// download (done lines of clients before kinds existed).
	Work *results.FlowWorkload
}

// wireEvent is the JSON form; pointers tell absent fields from zero ones.
type wireEvent struct {
	Event       string   `json:"event"`
	Addr        *string  `json:"addr,omitempty"`
	Remote      *string  `json:"remote,omitempty"`
	T           *float64 `json:"t,omitempty"`
	Bytes       *int64   `json:"bytes,omitempty"`
	Seconds     *float64 `json:"seconds,omitempty"`
	GoodputMbps *float64 `json:"goodput_mbps,omitempty"`
	Complete    *bool    `json:"complete,omitempty"`
	Error       *string  `json:"error,omitempty"`
	CC          *string  `json:"cc,omitempty"`
	MPTCP       *bool    `json:"mptcp,omitempty"`
	RcvBufBytes *int     `json:"rcvbuf_bytes,omitempty"`
	// OWD is the done line's "owd_ms": {"p50","p95","p99","max","mean","n"}.
	OWD *results.DelayStats `json:"owd_ms,omitempty"`
	// Work is the done line's "workload": the kind and its figures
	// (results.FlowWorkload's fields).
	Work *results.FlowWorkload `json:"workload,omitempty"`
}

// ReadyEvent, AcceptEvent, ProgressEvent and DoneEvent build the events an
// endpoint prints.
func ReadyEvent(addr string) Event { return Event{Kind: EventReady, Addr: addr} }

func AcceptEvent(c ConnInfo) Event {
	return Event{Kind: EventAccept, Remote: c.Remote, CC: c.CC, MPTCP: c.MPTCP, Error: c.Error}
}

func ProgressEvent(p Progress) Event {
	return Event{Kind: EventProgress, T: p.T.Seconds(), Bytes: p.Bytes}
}

// DoneEvent reports r; err, if not nil, becomes the error field.
func DoneEvent(r Result, err error) Event {
	e := Event{Kind: EventDone, Bytes: r.Bytes, Seconds: r.Seconds, GoodputMbps: r.GoodputMbps,
		Complete: r.Complete, CC: r.CC, RcvBufBytes: r.RcvBufBytes, OWD: r.OWD, Work: r.Work}
	if err != nil {
		e.Error = err.Error()
	}
	return e
}

func (e Event) wire() wireEvent {
	w := wireEvent{Event: e.Kind}
	switch e.Kind {
	case EventReady:
		w.Addr = &e.Addr
	case EventAccept:
		w.Remote, w.CC = &e.Remote, &e.CC
		if e.MPTCP {
			w.MPTCP = &e.MPTCP
		}
		if e.Error != "" {
			w.Error = &e.Error
		}
	case EventProgress:
		w.T, w.Bytes = &e.T, &e.Bytes
	case EventDone:
		w.Bytes, w.Seconds, w.GoodputMbps, w.Complete, w.Error = &e.Bytes, &e.Seconds, &e.GoodputMbps, &e.Complete, &e.Error
		if e.CC != "" {
			w.CC = &e.CC
		}
		if e.RcvBufBytes != 0 {
			w.RcvBufBytes = &e.RcvBufBytes
		}
		w.OWD, w.Work = e.OWD, e.Work
	}
	return w
}

// MarshalJSON encodes exactly the fields of e's kind.
func (e Event) MarshalJSON() ([]byte, error) {
	fs := []float64{e.T, e.Seconds, e.GoodputMbps}
	for _, o := range []*results.DelayStats{e.OWD, e.Work.Latency(), e.Work.FCT(), e.Work.Handshake()} {
		if o != nil {
			fs = append(fs, o.P50, o.P95, o.P99, o.Max, o.Mean)
		}
	}
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("endpoint: %s event: non-finite number", e.Kind)
		}
	}
	return json.Marshal(e.wire())
}

// WriteEvent writes e as one line with a single Write, so lines from
// concurrent writers never interleave.
func WriteEvent(w io.Writer, e Event) error {
	b, err := e.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ParseEvent decodes one line of an endpoint's stdout. It rejects unknown
// kinds, missing or misspelled fields and trailing data, so a protocol
// mismatch between the run and its endpoints is an error, not a zero.
func ParseEvent(line []byte) (Event, error) {
	line = bytes.TrimSpace(line)
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var w wireEvent
	if err := dec.Decode(&w); err != nil {
		return Event{}, fmt.Errorf("endpoint event %q: %w", truncate(line), err)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("endpoint event %q: trailing data", truncate(line))
	}
	e := Event{Kind: w.Event}
	var missing []string
	switch w.Event {
	case EventReady:
		need(&missing, "addr", &e.Addr, w.Addr)
	case EventAccept:
		need(&missing, "remote", &e.Remote, w.Remote)
		need(&missing, "cc", &e.CC, w.CC)
		optional(&e.MPTCP, w.MPTCP)
		optional(&e.Error, w.Error)
	case EventProgress:
		need(&missing, "t", &e.T, w.T)
		need(&missing, "bytes", &e.Bytes, w.Bytes)
	case EventDone:
		need(&missing, "bytes", &e.Bytes, w.Bytes)
		need(&missing, "seconds", &e.Seconds, w.Seconds)
		need(&missing, "goodput_mbps", &e.GoodputMbps, w.GoodputMbps)
		need(&missing, "complete", &e.Complete, w.Complete)
		need(&missing, "error", &e.Error, w.Error)
		optional(&e.CC, w.CC)
		optional(&e.RcvBufBytes, w.RcvBufBytes)
		if w.OWD != nil && w.OWD.N <= 0 {
			return Event{}, fmt.Errorf("endpoint done event %q: owd_ms without samples", truncate(line))
		}
		e.OWD = w.OWD
		if w.Work != nil && w.Work.Kind == "" {
			return Event{}, fmt.Errorf("endpoint done event %q: workload without a kind", truncate(line))
		}
		e.Work = w.Work
	case "":
		return Event{}, fmt.Errorf("endpoint event %q: no \"event\" field", truncate(line))
	default:
		return Event{}, fmt.Errorf("endpoint event %q: unknown kind %q", truncate(line), w.Event)
	}
	if len(missing) > 0 {
		return Event{}, fmt.Errorf("endpoint %s event %q: missing %q", w.Event, truncate(line), missing)
	}
	if e.Bytes < 0 || e.T < 0 || e.Seconds < 0 || e.GoodputMbps < 0 {
		return Event{}, fmt.Errorf("endpoint %s event %q: negative value", w.Event, truncate(line))
	}
	return e, nil
}

// need copies a field the event kind requires, or adds its name to missing
// when the line lacks it.
func need[T any](missing *[]string, name string, dst, v *T) {
	if v == nil {
		*missing = append(*missing, name)
		return
	}
	*dst = *v
}

// optional copies a field the line may leave out; absent, it stays zero.
func optional[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}

func truncate(b []byte) string {
	const max = 120
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
