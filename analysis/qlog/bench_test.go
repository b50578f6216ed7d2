package qlog

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// repeatedQlog builds a large JSON-SEQ file: the header of the quic-go server
// sample followed by its events (then the client's) repeated until the file
// has at least size bytes. Event times repeat, which the reader does not
// mind; this measures parsing only.
func repeatedQlog(tb testing.TB, size int) []byte {
	tb.Helper()
	server, err := os.ReadFile("../testdata/quicgo-server.sqlog")
	if err != nil {
		tb.Fatal(err)
	}
	client, err := os.ReadFile("../testdata/quicgo-client.sqlog")
	if err != nil {
		tb.Fatal(err)
	}
	hdrEnd := bytes.IndexByte(server, '\n') + 1
	cliEvents := client[bytes.IndexByte(client, '\n')+1:]
	out := make([]byte, 0, size+len(server)+len(client))
	out = append(out, server[:hdrEnd]...)
	for len(out) < size {
		out = append(out, server[hdrEnd:]...)
		out = append(out, cliEvents...)
	}
	return out
}

// BenchmarkReadQlog measures decoding throughput of the streaming reader on
// one core; the MB/s column is the figure of merit (target ≥ 100 MB/s).
func BenchmarkReadQlog(b *testing.B) {
	data := repeatedQlog(b, 64<<20)
	emutest.Exclusive(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data), "bench.sqlog")
		if err != nil {
			b.Fatal(err)
		}
		if err := eachEvent(r, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadQlogEncodingJSON is the baseline the reader was measured
// against: line splitting plus encoding/json into map[string]any per event.
func BenchmarkReadQlogEncodingJSON(b *testing.B) {
	data := repeatedQlog(b, 16<<20)
	emutest.Exclusive(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for rec := range bytes.SplitSeq(data, []byte{'\n'}) {
			if len(rec) < 2 {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(rec[1:], &m); err != nil {
				b.Fatal(err)
			}
		}
	}
}
