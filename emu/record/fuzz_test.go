package record

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzDatagram: any bytes parse or are refused without a panic, and a
// datagram put and parsed comes back the same.
func FuzzDatagram(f *testing.F) {
	for _, d := range []datagram{
		{kind: kindLoad, session: 7, seq: 1, sent: 1e18, pause: 5e6},
		{kind: kindProbe, session: 7, seq: 2, sent: 1e18},
		{kind: kindFeedback, session: 7, sent: 1e18, rate: 40e6, queue: 3e6, drain: noDrain, drains: 3, ref: 1e18 - 1},
		{kind: kindHello, session: 7},
	} {
		b := make([]byte, longLen)
		f.Add(b[:d.put(b)])
	}
	f.Add([]byte("eR\x01\x03short"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d datagram
		if d.parse(b) != nil {
			return
		}
		out := make([]byte, longLen)
		var back datagram
		if err := back.parse(out[:d.put(out)]); err != nil {
			t.Fatalf("%+v put does not parse: %v", d, err)
		}
		if d.kind == kindFeedback {
			// Feedback carries rates in kbit/s and the queue in µs.
			d.rate, back.rate = d.rate/1000, back.rate/1000
			d.queue, back.queue = d.queue/1000, back.queue/1000
			d.drain, back.drain = d.drain/1000, back.drain/1000
		}
		if back != d {
			t.Fatalf("round trip %+v -> %+v", d, back)
		}
	})
}

// FuzzRequest: any control line is a request the far end checks, or an
// error; never a panic.
func FuzzRequest(f *testing.F) {
	f.Add([]byte(`{"recording":"emu record","version":1,"session":1,"path":1,"duration_ms":1000,"packet_bytes":1500,"max_rate_bps":2000000000}` + "\n"))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add([]byte(`{"recording":"emu record","version":1}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := &conn{r: bufio.NewReader(bytes.NewReader(b)), w: &bytes.Buffer{}}
		var r request
		if c.recv(&r) == nil {
			r.check()
		}
	})
}
