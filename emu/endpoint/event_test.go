package endpoint

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
)

// sameEvent compares events by value, OWD statistics included.
func sameEvent(a, b Event) bool {
	if (a.OWD == nil) != (b.OWD == nil) || (a.OWD != nil && *a.OWD != *b.OWD) {
		return false
	}
	a.OWD, b.OWD = nil, nil
	return a == b
}

func TestEventRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		line string
	}{
		{ReadyEvent("127.0.0.1:4433"), `{"event":"ready","addr":"127.0.0.1:4433"}`},
		{AcceptEvent(ConnInfo{Remote: "127.0.0.1:5000", CC: "cubic"}), `{"event":"accept","remote":"127.0.0.1:5000","cc":"cubic"}`},
		{AcceptEvent(ConnInfo{Remote: "10.2.4.2:5000", CC: "bbr", MPTCP: true}), `{"event":"accept","remote":"10.2.4.2:5000","cc":"bbr","mptcp":true}`},
		{AcceptEvent(ConnInfo{Remote: "10.2.4.2:5000", CC: "bbr", MPTCP: true, Error: "MPTCP fell back to plain TCP: x"}),
			`{"event":"accept","remote":"10.2.4.2:5000","error":"MPTCP fell back to plain TCP: x","cc":"bbr","mptcp":true}`},
		{ProgressEvent(Progress{T: 1500 * time.Millisecond, Bytes: 42}), `{"event":"progress","t":1.5,"bytes":42}`},
		{ProgressEvent(Progress{}), `{"event":"progress","t":0,"bytes":0}`},
		{DoneEvent(Result{Bytes: 100, Seconds: 2, GoodputMbps: 0.0004, Complete: true, CC: "newreno", RcvBufBytes: 212992}, nil),
			`{"event":"done","bytes":100,"seconds":2,"goodput_mbps":0.0004,"complete":true,"error":"","cc":"newreno","rcvbuf_bytes":212992}`},
		{DoneEvent(Result{Bytes: 100, Seconds: 2, GoodputMbps: 0.0004, Complete: true, CC: "cubic",
			OWD: &results.DelayStats{P50: 10.5, P95: 11, P99: 12.25, Max: 30, Mean: 10.75, N: 1200}}, nil),
			`{"event":"done","bytes":100,"seconds":2,"goodput_mbps":0.0004,"complete":true,"error":"","cc":"cubic","owd_ms":{"p50":10.5,"p95":11,"p99":12.25,"max":30,"mean":10.75,"n":1200}}`},
		{DoneEvent(Result{}, errors.New("handshake timeout")),
			`{"event":"done","bytes":0,"seconds":0,"goodput_mbps":0,"complete":false,"error":"handshake timeout"}`},
	} {
		var buf bytes.Buffer
		if err := WriteEvent(&buf, tc.ev); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != tc.line+"\n" {
			t.Errorf("WriteEvent(%+v) = %s, want %s", tc.ev, got, tc.line)
		}
		back, err := ParseEvent(buf.Bytes())
		if err != nil {
			t.Errorf("ParseEvent(%s): %v", tc.line, err)
		} else if !sameEvent(back, tc.ev) {
			t.Errorf("ParseEvent(%s) = %+v, want %+v", tc.line, back, tc.ev)
		}
	}
}

func TestParseEventErrors(t *testing.T) {
	for _, tc := range []struct{ line, wantErr string }{
		{``, "EOF"},
		{`{}`, `no "event" field`},
		{`{"event":"hello"}`, `unknown kind "hello"`},
		{`{"event":"ready"}`, `missing ["addr"]`},
		{`{"event":"progress","t":1}`, `missing ["bytes"]`},
		{`{"event":"done","bytes":1,"seconds":1,"goodput_mbps":1,"complete":true}`, `missing ["error"]`},
		{`{"event":"progress","t":1,"bytes":1,"byts":2}`, `unknown field "byts"`},
		{`{"event":"progress","t":1,"bytes":-1}`, "negative value"},
		{`{"event":"progress","t":"1","bytes":1}`, "cannot unmarshal"},
		{`{"event":"ready","addr":"x"} {"event":"ready","addr":"y"}`, "trailing data"},
		{`not json`, "invalid character"},
		{`{"event":"done","bytes":1,"seconds":1,"goodput_mbps":1,"complete":true,"error":"","owd_ms":{"p50":1,"n":0}}`, "owd_ms without samples"},
		{`{"event":"done","bytes":1,"seconds":1,"goodput_mbps":1,"complete":true,"error":"","owd_ms":{"p5":1,"n":1}}`, `unknown field "p5"`},
	} {
		_, err := ParseEvent([]byte(tc.line))
		if !errContains(err, tc.wantErr) {
			t.Errorf("ParseEvent(%s) = %v, want error containing %q", tc.line, err, tc.wantErr)
		}
	}
}

func FuzzParseEvent(f *testing.F) {
	emutest.AddSeeds[[]byte](f,
		`{"event":"ready","addr":"127.0.0.1:4433"}`,
		`{"event":"accept","remote":"1.2.3.4:5","cc":"bbr"}`,
		`{"event":"progress","t":0.1,"bytes":1000}`,
		`{"event":"done","bytes":1,"seconds":1,"goodput_mbps":8e-6,"complete":true,"error":"","cc":"cubic","rcvbuf_bytes":1}`,
		`{"event":"done","bytes":1,"seconds":1,"goodput_mbps":8,"complete":true,"error":"","owd_ms":{"p50":1,"p95":2,"p99":3,"max":4,"mean":1.5,"n":9}}`,
		`{"event":"done"`, `[]`, `null`, `{"event":1}`,
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := ParseEvent(line)
		if err != nil {
			return
		}
		// What parses must print and parse back to the same event.
		var buf bytes.Buffer
		if err := WriteEvent(&buf, ev); err != nil {
			t.Fatalf("%q parsed to %+v, which does not print: %v", line, ev, err)
		}
		if strings.Count(buf.String(), "\n") != 1 {
			t.Fatalf("%+v printed as more than one line: %q", ev, buf.String())
		}
		back, err := ParseEvent(buf.Bytes())
		if err != nil || !sameEvent(back, ev) {
			t.Fatalf("%q → %+v → %s → %+v, %v", line, ev, buf.String(), back, err)
		}
	})
}
