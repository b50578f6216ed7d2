package endpoint

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"
)

// stampList is a stampSink that keeps what it is given.
type stampList struct {
	offsets []int64
	sent    []int64
	read    []time.Time
}

func (l *stampList) stamp(off, sent int64, read time.Time) {
	l.offsets = append(l.offsets, off)
	l.sent = append(l.sent, sent)
	l.read = append(l.read, read)
}

// scanInPieces feeds body to a scanner in reads of the given sizes (cycled),
// the i-th read at time.Unix(0, i+1).
func scanInPieces(body []byte, sizes []int) (*stampList, *stampScanner) {
	var s stampScanner
	var l stampList
	for i := 0; len(body) > 0; i++ {
		n := min(max(sizes[i%len(sizes)], 1), len(body))
		s.feed(body[:n], time.Unix(0, int64(i+1)), &l)
		body = body[n:]
	}
	return &l, &s
}

// naiveStamps decodes the stamps of a whole body at once: what the
// scanner must find however the body is split.
func naiveStamps(body []byte) (offsets, sent []int64, bad bool) {
	var interval int64
	for off := int64(0); off+StampSize <= int64(len(body)); off += interval {
		var b [StampSize]byte
		copy(b[:], body[off:])
		k, s, ok := parseStamp(&b)
		if !ok || (interval != 0 && k != interval) {
			return offsets, sent, interval != 0
		}
		interval = k
		offsets, sent = append(offsets, off), append(sent, s)
	}
	return offsets, sent, false
}

// stampedBody fetches /bytes/n with the given interval from the handler.
func stampedBody(t *testing.T, n, interval int64) (body []byte, before, after time.Time) {
	t.Helper()
	srv := httptest.NewServer(newHandler(&ServerConfig{StampInterval: interval, Log: io.Discard}))
	defer srv.Close()
	before = time.Now()
	resp, err := http.Get(srv.URL + "/bytes/" + strconv.FormatInt(n, 10))
	if err != nil {
		t.Fatal(err)
	}
	body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || int64(len(body)) != n {
		t.Fatalf("%d bytes, %v", len(body), err)
	}
	return body, before, time.Now()
}

// TestStampsInBody: the handler stamps every interval bytes, whatever the
// interval's relation to its 64 KiB pattern; the scanner finds every stamp
// however the reads split them (a stamp over two or more reads, several
// stamps in one read), and gives each the time of the read that holds its
// first byte.
func TestStampsInBody(t *testing.T) {
	for _, tc := range []struct{ n, interval int64 }{
		{200_000, DefaultStampInterval},
		{200_000, StampSize},
		{300_000, 100_000},   // pieces of the pattern and a remainder
		{131_072, 65_536},    // exactly the pattern
		{65_536 + 8, 65_536}, // last stamp cut short: not a stamp
		{10, DefaultStampInterval},
	} {
		body, before, after := stampedBody(t, tc.n, tc.interval)
		wantN := int((tc.n - StampSize + tc.interval) / tc.interval)
		if tc.n < StampSize {
			wantN = 0
		}
		offs, sent, bad := naiveStamps(body)
		if len(offs) != wantN || bad {
			t.Fatalf("n %d interval %d: %d stamps (bad %v), want %d", tc.n, tc.interval, len(offs), bad, wantN)
		}
		for i, s := range sent {
			if offs[i] != int64(i)*tc.interval || s < before.UnixNano() || s > after.UnixNano() || (i > 0 && s < sent[i-1]) {
				t.Fatalf("stamp %d at %d: sent %d, request between %d and %d", i, offs[i], s, before.UnixNano(), after.UnixNano())
			}
		}
		for _, sizes := range [][]int{{1}, {7}, {15}, {16}, {17}, {4093}, {65536}, {3, 29, 1000, 16384}} {
			l, s := scanInPieces(body, sizes)
			ends := readEnds(len(body), sizes)
			if s.bad || len(l.offsets) != wantN {
				t.Fatalf("n %d interval %d reads %v: %d stamps, bad %v; want %d", tc.n, tc.interval, sizes, len(l.offsets), s.bad, wantN)
			}
			for i := range l.offsets {
				if l.offsets[i] != offs[i] || l.sent[i] != sent[i] {
					t.Fatalf("reads %v: stamp %d at %d sent %d, want %d sent %d", sizes, i, l.offsets[i], l.sent[i], offs[i], sent[i])
				}
				// The read holding the first byte: reads are numbered from 1.
				if got, want := l.read[i].UnixNano(), firstRead(offs[i], ends); got != want {
					t.Fatalf("reads %v: stamp %d read at %d, want read %d", sizes, i, got, want)
				}
			}
		}
	}
}

// readEnds is where each read of scanInPieces ends.
func readEnds(n int, sizes []int) []int64 {
	var ends []int64
	for at, i := 0, 0; at < n; i++ {
		at += min(max(sizes[i%len(sizes)], 1), n-at)
		ends = append(ends, int64(at))
	}
	return ends
}

// firstRead is the 1-based number of the read that holds byte off.
func firstRead(off int64, ends []int64) int64 {
	i, _ := slices.BinarySearch(ends, off+1)
	return int64(i + 1)
}

// TestUnstampedBodies: bodies without stamps give no delays and are not
// "bad"; a body whose stamps stop matching gives the good ones and is.
func TestUnstampedBodies(t *testing.T) {
	zeros := make([]byte, 100_000) // ngtcp2's sparse files
	plain, _, _ := stampedBody(t, 100_000, NoStamps)
	for name, body := range map[string][]byte{"zeros": zeros, "plain": plain} {
		l, s := scanInPieces(body, []int{1000})
		if len(l.offsets) != 0 || s.bad {
			t.Errorf("%s: %d stamps, bad %v", name, len(l.offsets), s.bad)
		}
	}
	body, _, _ := stampedBody(t, 100_000, 1000)
	body[5000] ^= 0xff // the magic of the sixth stamp
	l, s := scanInPieces(body, []int{333})
	if len(l.offsets) != 5 || !s.bad {
		t.Errorf("corrupt sixth stamp: %d stamps, bad %v", len(l.offsets), s.bad)
	}
	body, _, _ = stampedBody(t, 100_000, 1000)
	binary.BigEndian.PutUint32(body[2004:], 2000) // a different interval
	if l, s := scanInPieces(body, []int{333}); len(l.offsets) != 2 || !s.bad {
		t.Errorf("changed interval: %d stamps, bad %v", len(l.offsets), s.bad)
	}
	for _, b := range [][StampSize]byte{
		{0xE3, 'O', 'W', 'D', 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 1},    // interval below StampSize
		{0xE3, 'O', 'W', 'D', 0x40, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1},  // above MaxStampInterval
		{0xE3, 'O', 'W', 'D', 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0},    // no time
		{0xE3, 'O', 'W', 'X', 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 1},    // magic
		{0xE3, 'O', 'W', 'D', 0, 0, 0, 16, 0x80, 0, 0, 0, 0, 0, 0, 1}, // negative time
	} {
		if _, _, ok := parseStamp(&b); ok {
			t.Errorf("%x parses as a stamp", b)
		}
	}
}

func TestStampRoundTrip(t *testing.T) {
	var b [StampSize]byte
	now := time.Now()
	putStamp(b[:], 12345, now)
	k, s, ok := parseStamp(&b)
	if !ok || k != 12345 || s != now.UnixNano() {
		t.Errorf("%x: %d %d %v", b, k, s, ok)
	}
}

// TestScannerAllocs: scanning a read allocates nothing.
func TestScannerAllocs(t *testing.T) {
	body := make([]byte, 1<<20)
	for off := 0; off < len(body); off += DefaultStampInterval {
		putStamp(body[off:], DefaultStampInterval, time.Now())
	}
	var sink discardStamps
	var s stampScanner
	now := time.Now()
	off := 0
	if n := testing.AllocsPerRun(100, func() {
		if off+65536 > len(body) {
			s, off = stampScanner{}, 0
		}
		s.feed(body[off:off+65536], now, &sink)
		off += 65536
	}); n != 0 {
		t.Errorf("%.1f allocations per read", n)
	}
	if sink == 0 {
		t.Error("no stamps found")
	}
}

type discardStamps int

func (d *discardStamps) stamp(int64, int64, time.Time) { *d++ }

func BenchmarkStampScanner(b *testing.B) {
	body := make([]byte, 1<<20)
	for off := 0; off < len(body); off += DefaultStampInterval {
		putStamp(body[off:], DefaultStampInterval, time.Now())
	}
	var sink discardStamps
	now := time.Now()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var s stampScanner
		for off := 0; off < len(body); off += 65536 {
			s.feed(body[off:off+65536], now, &sink)
		}
	}
}

// FuzzStampScanner: however a body is split into reads, the scanner finds
// exactly the stamps a decoder of the whole body finds.
func FuzzStampScanner(f *testing.F) {
	body := make([]byte, 3000)
	for off := 0; off+StampSize <= len(body); off += 100 {
		putStamp(body[off:], 100, time.Unix(0, int64(off+1)))
	}
	f.Add(body, []byte{1, 16, 17, 200})
	f.Add(body[:250], []byte{15})
	f.Add(make([]byte, 64), []byte{3})
	f.Fuzz(func(t *testing.T, body, splits []byte) {
		if len(splits) == 0 {
			splits = []byte{255}
		}
		sizes := make([]int, len(splits))
		for i, s := range splits {
			sizes[i] = int(s)
		}
		l, s := scanInPieces(body, sizes)
		offs, sent, bad := naiveStamps(body)
		if !bytes.Equal(i64bytes(l.offsets), i64bytes(offs)) || !bytes.Equal(i64bytes(l.sent), i64bytes(sent)) || s.bad != bad {
			t.Fatalf("scanner: %v %v bad %v; whole body: %v %v bad %v", l.offsets, l.sent, s.bad, offs, sent, bad)
		}
	})
}

func i64bytes(v []int64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.BigEndian.AppendUint64(b, uint64(x))
	}
	return b
}

// discardWriter is an http.ResponseWriter that throws the body away.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkServeBytes is the handler's own cost per body byte with and
// without stamps (the transport's is in BenchmarkDownloadStamps).
func BenchmarkServeBytes(b *testing.B) {
	pattern := make([]byte, patternSize)
	req := httptest.NewRequest(http.MethodGet, "/bytes/100000000", nil)
	for _, interval := range []int64{NoStamps, DefaultStampInterval, 16 << 10} {
		b.Run(strconv.FormatInt(interval, 10), func(b *testing.B) {
			b.SetBytes(100_000_000)
			b.ReportAllocs()
			for b.Loop() {
				serveBytes(&discardWriter{h: http.Header{}}, req, pattern, interval)
			}
		})
	}
}

// BenchmarkOWDRecorder is the client's cost per body byte of finding the
// stamps and recording their delays (without a log file).
func BenchmarkOWDRecorder(b *testing.B) {
	body := make([]byte, 1<<20)
	for off := 0; off < len(body); off += DefaultStampInterval {
		putStamp(body[off:], DefaultStampInterval, time.Now())
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	now := time.Now()
	o, _ := newOWDRecorder(newMeter(time.Time{}, now, 0), "")
	for b.Loop() {
		o.scan, o.ms = stampScanner{}, o.ms[:0] // the next body, no new buffer
		for off := 0; off < len(body); off += readBufSize {
			o.observe(body[off:off+readBufSize], now)
		}
	}
}
