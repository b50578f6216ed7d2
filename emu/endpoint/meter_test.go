package endpoint

import (
	"bufio"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// base is a fixed instant; meters are driven with base+offsets, never the
// real clock.
var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }

func TestMeterSizeLimited(t *testing.T) {
	m := newMeter(time.Time{}, at(0), 0)
	for i, ms := range []int{10, 20, 500} {
		if !m.add(1000, at(ms)) {
			t.Fatalf("read %d refused without a window", i)
		}
	}
	r, err := m.finish(at(600), endEOF, 3000, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Seconds run to the last byte (500 ms), not to finish (600 ms).
	want := Result{Bytes: 3000, Seconds: 0.5, GoodputMbps: 3000 * 8 / 0.5 / 1e6, Complete: true}
	if r != want {
		t.Errorf("result %+v, want %+v", r, want)
	}
}

func TestMeterShortAndLong(t *testing.T) {
	m := newMeter(time.Time{}, at(0), 0)
	m.add(2000, at(100))
	r, err := m.finish(at(200), endEOF, 3000, nil)
	if err == nil || !strings.Contains(err.Error(), "short download") || !strings.Contains(err.Error(), "2000 of 3000") {
		t.Errorf("short: err %v", err)
	}
	if r.Complete || r.Bytes != 2000 || r.Seconds != 0.2 {
		t.Errorf("short: %+v", r)
	}
	_, err = m.finish(at(200), endEOF, 1000, nil)
	if err == nil || !strings.Contains(err.Error(), "long download") {
		t.Errorf("long: err %v", err)
	}
	r, err = m.finish(at(200), endEOF, unknownSize, nil)
	if err != nil || !r.Complete || r.Seconds != 0.1 {
		t.Errorf("unknown size: %+v, %v", r, err)
	}
}

func TestMeterWindow(t *testing.T) {
	m := newMeter(time.Time{}, at(0), time.Second)
	m.add(100, at(999))
	if !m.add(100, at(1000)) {
		t.Error("a read exactly at the window's end must count")
	}
	if m.add(100, at(1001)) {
		t.Error("a read after the window must stop the reader")
	}
	if m.inWindow(at(1001)) || !m.inWindow(at(1000)) {
		t.Error("inWindow wrong at the edge")
	}
	r, err := m.finish(at(1300), endWindow, UnboundedSize, nil)
	want := Result{Bytes: 200, Seconds: 1, GoodputMbps: 200 * 8 / 1e6, Complete: true}
	if err != nil || r != want {
		t.Errorf("window: %+v, %v; want %+v", r, err, want)
	}
}

func TestMeterError(t *testing.T) {
	m := newMeter(time.Time{}, at(0), time.Second)
	m.add(100, at(100))
	boom := errors.New("boom")
	r, err := m.finish(at(400), endError, UnboundedSize, boom)
	if !errors.Is(err, boom) || r.Complete || r.Seconds != 0.4 || r.Bytes != 100 {
		t.Errorf("error: %+v, %v", r, err)
	}
}

func TestMeterT0AndProgress(t *testing.T) {
	// t0 two seconds before the start: times are reported from t0.
	m := newMeter(at(-2000), at(0), 0)
	m.add(10, at(250))
	p := m.progress(at(300))
	if p.T != 2300*time.Millisecond || p.Bytes != 10 {
		t.Errorf("progress %+v", p)
	}
	m.set(5, at(400)) // a smaller cumulative count never goes back
	m.set(50, at(500))
	if got := m.progress(at(500)).Bytes; got != 50 {
		t.Errorf("after set: %d bytes", got)
	}
}

func TestRecvLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recv.csv")
	l, err := createRecvLog(path)
	if err != nil {
		t.Fatal(err)
	}
	m := newMeter(at(-1000), at(0), 0)
	m.log = l
	m.add(1200, at(1))
	m.add(0, at(2)) // empty reads write nothing
	m.add(1300, at(3))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "t_s,bytes\n1.001000,1200\n1.003000,2500\n"
	if string(b) != want {
		t.Errorf("recv log:\n%s\nwant\n%s", b, want)
	}
}

func TestMeterAddDoesNotAllocate(t *testing.T) {
	m := newMeter(time.Time{}, at(0), time.Hour)
	m.log = &recvLog{w: bufio.NewWriter(io.Discard), scratch: make([]byte, 0, 64)}
	now := at(1)
	allocs := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Microsecond)
		m.add(1252, now)
	})
	if allocs != 0 {
		t.Errorf("meter.add allocates %.1f times per read", allocs)
	}
}

func BenchmarkMeterAdd(b *testing.B) {
	m := newMeter(time.Time{}, at(0), 0)
	m.log = &recvLog{w: bufio.NewWriter(io.Discard), scratch: make([]byte, 0, 64)}
	now := at(1)
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Microsecond)
		m.add(1252, now)
	}
}

func TestGoodputUnits(t *testing.T) {
	m := newMeter(time.Time{}, at(0), 0)
	m.add(100_000_000, at(20000))
	r, _ := m.finish(at(20000), endEOF, 100_000_000, nil)
	if math.Abs(r.GoodputMbps-40) > 1e-9 {
		t.Errorf("100 MB in 20 s = %v Mbit/s, want 40", r.GoodputMbps)
	}
}
