package qlog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

// sampleFiles are the real qlog files in analysis/testdata (README.md
// there says where each comes from).
var sampleFiles = []string{"quicgo-client.sqlog", "quicgo-server.sqlog", "ngtcp2-client.qlog", "ngtcp2-server.qlog"}

func readAll(t *testing.T, data []byte, name string) (n int, kinds map[EventKind]int, err error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), name)
	if err != nil {
		return 0, nil, err
	}
	kinds = map[EventKind]int{}
	err = eachEvent(r, func(ev *Event) { kinds[ev.Kind]++ })
	return r.Events(), kinds, err
}

// eachEvent reads r to its end, calling each (if not nil) on every event;
// it returns the first error other than io.EOF.
func eachEvent(r *Reader, each func(*Event)) error {
	var ev Event
	for {
		err := r.Next(&ev)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if each != nil {
			each(&ev)
		}
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReaderFramings(t *testing.T) {
	const hdr = `{"qlog_version":"0.3","qlog_format":"JSON-SEQ","trace":{"vantage_point":{"type":"client"},"common_fields":{"reference_time":0}}}`
	const e1 = `{"time":1,"name":"transport:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":7},"raw":{"length":1200}}}`
	const e2 = `{"time":2.5,"name":"recovery:packet_lost","data":{"header":{"packet_type":"1RTT","packet_number":7}}}`
	cases := map[string]string{
		"json-seq":             "\x1e" + hdr + "\n\x1e" + e1 + "\n\x1e" + e2 + "\n",
		"ndjson":               hdr + "\n" + e1 + "\n" + e2 + "\n",
		"crlf and blank lines": hdr + "\r\n\r\n" + e1 + "\r\n\n" + e2 + "\r\n",
		"rs only, no lf":       "\x1e" + hdr + "\x1e" + e1 + "\x1e" + e2,
		"last record no lf":    "\x1e" + hdr + "\n\x1e" + e1 + "\n\x1e" + e2,
		"trailing separators":  "\x1e" + hdr + "\n\x1e" + e1 + "\n\x1e" + e2 + "\n\x1e\n  \n\x1e",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			n, kinds, err := readAll(t, []byte(in), "x.sqlog")
			if err != nil {
				t.Fatal(err)
			}
			if n != 2 || kinds[KindPacketSent] != 1 || kinds[KindPacketLost] != 1 {
				t.Errorf("got %d events %v, want one packet_sent and one packet_lost", n, kinds)
			}
		})
	}
}

func TestReaderDecodesFields(t *testing.T) {
	in := "\x1e" + `{"qlog_version":"0.3","qlog_format":"JSON-SEQ","trace":{"vantage_point":{"type":"server"}}}` + "\n" +
		// data before name, escaped key, nested frames, fin.
		"\x1e" + `{"data":{"frames":[{"frame_type":"ack","acked_ranges":[[1,2],[4]]},{"frame_type":"stream","stream_id":4,"offset":100,"length":50,"fin":true}],"header":{"packet_number":9,"packet_type":"1RTT"},"raw":{"length":1e3}},"time":3.25,"n\u0061me":"transport:packet_received"}` + "\n" +
		"\x1e" + `{"time":4,"name":"recovery:metrics_updated","data":{"pto_count":1}}` + "\n" +
		"\x1e" + `{"time":5,"name":"recovery:congestion_state_updated","data":{"new":"recovery","old":"slow_start"}}` + "\n"
	r, err := NewReader(strings.NewReader(in), "x.sqlog")
	if err != nil {
		t.Fatal(err)
	}
	var ev Event
	if err := r.Next(&ev); err != nil {
		t.Fatal(err)
	}
	want := StreamFrame{StreamID: 4, Offset: 100, Length: 50, Fin: true}
	if ev.Kind != KindPacketReceived || ev.Time != 3.25 || ev.PacketType != Packet1RTT || ev.PacketNumber != 9 ||
		ev.Length != 1000 || len(ev.Frames) != 1 || ev.Frames[0] != want {
		t.Errorf("packet_received decoded as %+v", ev)
	}
	if err := r.Next(&ev); err != nil {
		t.Fatal(err)
	}
	if ev.Kind != KindMetricsUpdated || ev.Metrics.Has != HasPTOCount || ev.Metrics.PTOCount != 1 || len(ev.Frames) != 0 {
		t.Errorf("pto_count-only metrics_updated decoded as %+v", ev)
	}
	if err := r.Next(&ev); err != nil {
		t.Fatal(err)
	}
	if ev.Kind != KindCongestionStateUpdated || ev.State != "recovery" {
		t.Errorf("congestion_state_updated decoded as %+v", ev)
	}
	if err := r.Next(&ev); err != io.EOF {
		t.Errorf("after the last event: %v, want io.EOF", err)
	}
}

func TestCleanCutsAreNotErrors(t *testing.T) {
	full := mustRead(t, "ngtcp2-client.qlog")
	mid := bytes.IndexByte(full[len(full)/2:], '\n') + len(full)/2
	for name, data := range map[string][]byte{
		"after line feed":        full[:mid+1],
		"before line feed":       full[:mid],
		"after record separator": full[:mid+2],
	} {
		if _, _, err := readAll(t, data, "x"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestBadFilesGiveLocatedErrors(t *testing.T) {
	good := mustRead(t, "quicgo-client.sqlog")
	lines := bytes.SplitAfter(good, []byte{'\n'})
	corrupt := func(line int, from, to string) []byte {
		var out []byte
		for i, l := range lines {
			if i == line-1 {
				if !bytes.Contains(l, []byte(from)) {
					t.Fatalf("line %d has no %q", line, from)
				}
				l = bytes.Replace(l, []byte(from), []byte(to), 1)
			}
			out = append(out, l...)
		}
		return out
	}
	offsetOfLine := func(line int) int64 {
		var n int64
		for _, l := range lines[:line-1] {
			n += int64(len(l))
		}
		return n
	}
	cases := []struct {
		name    string
		data    []byte
		is      error
		line    int
		field   string
		message string
	}{
		{name: "empty", data: nil, is: ErrEmpty, line: 1, message: "bad.sqlog:1: byte 0: empty file"},
		{name: "whitespace", data: []byte("\n\n  \n"), is: ErrEmpty, line: 4},
		{name: "csv", data: []byte("t_s,bytes\n0.1,100\n"), is: ErrNotQlog, line: 1, message: "bad.sqlog:1: byte 0: not a JSON-SEQ qlog file"},
		{name: "binary", data: []byte("\x89PNG\r\n\x1a\n\x00\x00"), is: ErrNotQlog, line: 1},
		{name: "json array", data: []byte("[1,2]\n"), is: ErrNotQlog, line: 1},
		{name: "whole-file JSON qlog", data: []byte(`{"qlog_version":"0.3","qlog_format":"JSON","traces":[]}`), is: ErrNotQlog, line: 1, message: "traces"},
		{name: "events without header", data: lines[1], is: ErrNotQlog, line: 1, message: "header record is missing"},
		{name: "cut header", data: []byte(`{"qlog_version":"0.3","tra`), is: ErrNotQlog, line: 1},
		{name: "bad packet number", data: corrupt(22, `"packet_number":`, `"packet_number":"x`), line: 22, field: "data.header.packet_number"},
		{name: "garbage mid-file", data: corrupt(100, `{"time"`, `{"time"}`), line: 100},
		{name: "cut record mid-file", data: corrupt(50, `"name"`, "\n"), line: 50},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readAll(t, c.data, "bad.sqlog")
			if err == nil {
				t.Fatal("no error")
			}
			t.Logf("%v", err)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%T is not a *ParseError", err)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error does not wrap %v", c.is)
			}
			if errors.Is(err, ErrTruncated) {
				t.Errorf("a damaged record followed by more records must not count as truncation")
			}
			if pe.Line != c.line || pe.File != "bad.sqlog" {
				t.Errorf("at %s:%d, want line %d", pe.File, pe.Line, c.line)
			}
			if c.line > 1 && c.is == nil && (pe.Offset < offsetOfLine(c.line) || pe.Offset >= offsetOfLine(c.line+1)) {
				t.Errorf("byte offset %d is not on line %d (bytes %d..%d)", pe.Offset, c.line, offsetOfLine(c.line), offsetOfLine(c.line+1))
			}
			if pe.Field != c.field {
				t.Errorf("field %q, want %q", pe.Field, c.field)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Errorf("message %q does not contain %q", err, c.message)
			}
		})
	}
}

// TestReaderSmallReads feeds the reader one byte per Read, so every record
// straddles buffer refills.
func TestReaderSmallReads(t *testing.T) {
	data := mustRead(t, "quicgo-server.sqlog")
	r, err := NewReader(iotest.OneByteReader(bytes.NewReader(data)), "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := eachEvent(r, nil); err != nil {
		t.Fatal(err)
	}
	if r.Events() != 3814 {
		t.Errorf("read %d events, want 3814", r.Events())
	}
}

func TestReaderPropagatesReadErrors(t *testing.T) {
	data := mustRead(t, "quicgo-server.sqlog")[:300000]
	src := io.MultiReader(bytes.NewReader(data), iotest.ErrReader(errors.New("disk on fire")))
	_, _, err := readAll(t, data[:0], "x")
	if !errors.Is(err, ErrEmpty) {
		t.Fatalf("empty: %v", err)
	}
	r, err := NewReader(src, "x")
	if err != nil {
		t.Fatal(err)
	}
	var ev Event
	for err == nil {
		err = r.Next(&ev)
	}
	if !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("got %v, want the read error", err)
	}
}

// TestDecodeAllocatesNothing: the per-event path must not allocate.
func TestDecodeAllocatesNothing(t *testing.T) {
	data := mustRead(t, "quicgo-server.sqlog")
	lines := bytes.Split(data, []byte{'\n'})[1:200]
	var ev Event
	ev.Frames = make([]StreamFrame, 0, 8)
	allocs := testing.AllocsPerRun(20, func() {
		for _, l := range lines {
			if len(l) == 0 {
				continue
			}
			if err := decodeEvent(l[1:], &ev); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per 199 events, want 0", allocs)
	}
}
