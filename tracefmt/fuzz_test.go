package tracefmt

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every reader has a fuzz target. Seeds: the snippets below, the first
// lines of every shipped trace, and testdata/fuzz/<target>/ (inputs that
// once failed). Each target checks that no input panics or hangs and that
// whatever is accepted is a valid trace that survives a CSV round trip.

// shippedHeads returns the first few KiB (whole lines) of each shipped
// trace with the given extensions.
func shippedHeads(f *testing.F, exts ...string) [][]byte {
	var out [][]byte
	for _, ext := range exts {
		paths, _ := filepath.Glob("../traces/*" + ext)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			if len(b) > 2048 {
				b = b[:bytes.LastIndexByte(b[:2048], '\n')+1]
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		f.Fatalf("no shipped traces with %v found in ../traces", exts)
	}
	return out
}

// slowInput is how long one fuzz input may take before it counts as a
// hang: loose, for a busy machine, yet far below what a runaway loop takes.
const slowInput = 2 * time.Second

func tooSlow(t *testing.T, start time.Time) {
	if d := time.Since(start); d > slowInput {
		t.Fatalf("input took %v (more than %v): a near-hang", d, slowInput)
	}
}

// checkTrace is what every accepted input must satisfy.
func checkTrace(t *testing.T, tr *Trace) {
	t.Helper()
	if err := tr.Validate(); err != nil {
		t.Fatalf("reader returned an invalid trace: %v", err)
	}
	st := tr.Stats()
	for _, v := range []float64{st.Down.Mean, st.Down.Min, st.Down.Max, st.Down.P5, st.Down.P50, st.Down.P95, st.Up.Mean} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Fatalf("stats not finite and non-negative: %+v", st)
		}
	}
	if st.Down.Min > st.Down.P5 || st.Down.P5 > st.Down.P50 || st.Down.P50 > st.Down.P95 || st.Down.P95 > st.Down.Max {
		t.Fatalf("percentiles out of order: %+v", st.Down)
	}
	if s, next, ok := tr.StepAt(tr.End/2, false); !ok || next <= tr.End/2 || s.Down < 0 {
		t.Fatalf("StepAt(middle) = %+v, %v, %v", s, next, ok)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, tr); err != nil {
		t.Fatalf("WriteCSV: %v", err)
	}
	back, err := Read(&buf, "roundtrip", ReadOptions{Format: FormatCSV})
	if err != nil {
		t.Fatalf("reading WriteCSV's output: %v", err)
	}
	if back.End != tr.End || len(back.Steps) != len(tr.Steps) {
		t.Fatalf("round trip: %d steps over %v, was %d over %v", len(back.Steps), back.End, len(tr.Steps), tr.End)
	}
	if back.HasUp != tr.HasUp || back.HasDelay != tr.HasDelay || back.HasLoss != tr.HasLoss ||
		back.HasUpDelay != (tr.HasDelay && tr.HasUpDelay) || back.HasUpLoss != (tr.HasLoss && tr.HasUpLoss) {
		t.Fatalf("round trip: columns %+v, were %+v", back, tr)
	}
	for i := range tr.Steps {
		g, w := back.Steps[i], tr.Steps[i]
		if g.At != w.At || !close(g.Down, w.Down) || !close(g.Up, w.Up) || g.Delay != w.Delay || g.UpDelay != w.UpDelay || g.Loss != w.Loss || g.UpLoss != w.UpLoss {
			t.Fatalf("round trip: step %d %+v, was %+v", i, g, w)
		}
	}
}

func FuzzDetect(f *testing.F) {
	for _, b := range shippedHeads(f, ".csv", ".cooked", ".down", ".up") {
		f.Add(b)
	}
	f.Add([]byte("\ufeff\n\n time_s , down_mbps\n"))
	f.Fuzz(func(t *testing.T, head []byte) {
		defer tooSlow(t, time.Now())
		format, err := Detect(head)
		if err == nil {
			if _, perr := ParseFormat(string(format)); perr != nil || format == "" {
				t.Fatalf("Detect returned %q", format)
			}
		}
	})
}

// FuzzRead reads with detection or a forced format, as `emu trace info`
// does with --format.
func FuzzRead(f *testing.F) {
	for _, b := range shippedHeads(f, ".csv", ".cooked", ".down", ".up") {
		f.Add(b, uint8(0), false)
	}
	f.Add([]byte("0,1\n1,2\n"), uint8(3), false)
	f.Fuzz(func(t *testing.T, data []byte, format uint8, timestamps bool) {
		defer tooSlow(t, time.Now())
		o := ReadOptions{Timestamps: timestamps}
		if fs := Formats(); int(format) <= len(fs) && format > 0 {
			o.Format = fs[format-1]
		}
		if o.Format == FormatColumns {
			o.DownColumn = "b"
		}
		if tr, err := Read(bytes.NewReader(data), "fuzz", o); err == nil {
			checkTrace(t, tr)
		}
	})
}

func FuzzReadRaca(f *testing.F) {
	for _, b := range shippedHeads(f, "raca*.csv") {
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Add([]byte(racaHeader+racaRow("2018.02.12_16.14.02", "-", "5")+racaRow("2018.02.12_16.14.02", "7", "-")+racaRow("2018.02.12_16.14.09", "0", "1")), true)
	f.Add([]byte("DL_bitrate\n1\n-\n\"3\"\n"), false)
	f.Add([]byte("Timestamp,DL_bitrate\n9999.12.31_23.59.59,1\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, timestamps bool) {
		defer tooSlow(t, time.Now())
		tr, err := readRaca(bytes.NewReader(data), "fuzz", timestamps)
		if err == nil {
			checkTrace(t, tr)
		}
	})
}

func FuzzReadMahimahi(f *testing.F) {
	for _, b := range shippedHeads(f, ".down", ".up") {
		f.Add(b, uint16(10))
	}
	f.Add([]byte("0\n0\n7\n\n31\n35\n"), uint16(1))
	f.Add([]byte("0\n9223372036854775807\n"), uint16(10))
	f.Add([]byte("0\n2305843009213\n"), uint16(65535))
	f.Fuzz(func(t *testing.T, data []byte, windowMs uint16) {
		defer tooSlow(t, time.Now())
		w := time.Duration(windowMs) * time.Millisecond
		tr, err := readMahimahiPair(bytes.NewReader(data), "fuzz", ReadOptions{Window: w})
		if err != nil {
			return
		}
		checkTrace(t, tr)
		// The rates integrate back to the line count.
		lines := 0
		for _, l := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		pkts := tr.Stats().Down.Mean * 1e6 * tr.End.Seconds() / MahimahiPacketBits
		if math.Abs(pkts-float64(lines)) > 1e-6*float64(lines) {
			t.Fatalf("%d lines became %v packets", lines, pkts)
		}
	})
}

func FuzzReadMahimahiPair(f *testing.F) {
	f.Add([]byte("0\n10\n20\n"), []byte("5\n10\n"))
	f.Add([]byte("1\n"), []byte("3\n1000000\n"))
	f.Add(shippedHeads(f, "verizon-lte-short.down")[0], shippedHeads(f, "verizon-lte-short.up")[0])
	f.Fuzz(func(t *testing.T, down, up []byte) {
		defer tooSlow(t, time.Now())
		tr, err := readMahimahiPair(bytes.NewReader(down), "down", ReadOptions{Up: bytes.NewReader(up)})
		if err == nil {
			checkTrace(t, tr)
			if !tr.HasUp {
				t.Fatal("pair without uplink")
			}
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	fuzzWholeFile(f, readCSV, append(shippedHeads(f, "constant-*.csv", "step-*.csv", "square-*.csv", "outage-*.csv"),
		[]byte("time_s,down_mbps,up_mbps,delay_ms,loss\n0,20,5,25,0\n10,30,5,25,0.01\n20\n"),
		[]byte("loss,time_s,down_mbps\n1,0,0\n0,1e-9,1e9\n0,1e9,0\n"),
		[]byte("time_s,down_mbps,up_mbps,down_delay_ms,up_delay_ms,down_loss,up_loss\n0,20,5,25,40,0,0.5\n10,30,5,25,41.5,0.01,1\n20\n"),
		[]byte("up_loss,time_s,down_loss\n1,0,0\n5e-324,1e-9,1\n"),
		[]byte("0,1\n\"1\",2\n3,\"4\n"))...)
}

func FuzzReadDelay(f *testing.F) {
	fuzzWholeFile(f, func(r io.Reader, name string) (*Trace, error) { return readSeries(r, name, FormatDelay, DefaultStep) },
		append(shippedHeads(f, ".delay"), []byte("12\n\n12.5\n0\n68\n"), []byte("1e3\n-1\n"))...)
}

func FuzzReadLoss(f *testing.F) {
	fuzzWholeFile(f, func(r io.Reader, name string) (*Trace, error) { return readSeries(r, name, FormatLoss, DefaultStep) },
		[]byte("0\n0.5\n1\n0.01\n"), []byte("0\n1.5\n"), []byte("nan\n"))
}

// FuzzWithImpairments lays a fuzzed delay series over a fuzzed CSV rate
// trace: the result keeps the rate trace's length and every delay value.
func FuzzWithImpairments(f *testing.F) {
	f.Add([]byte("0,10\n1,20\n2\n"), []byte("12\n30\n11\n"), uint16(10))
	f.Add([]byte("0,10\n0.015,20\n0.02\n"), []byte("5\n"), uint16(7))
	f.Fuzz(func(t *testing.T, rate, delay []byte, stepMs uint16) {
		defer tooSlow(t, time.Now())
		rt, err := readCSV(bytes.NewReader(rate), "rate")
		if err != nil {
			return
		}
		dt, err := readSeries(bytes.NewReader(delay), "delay", FormatDelay, time.Duration(stepMs%1000+1)*time.Millisecond)
		if err != nil || len(rt.Steps)+len(dt.Steps) > 10000 {
			return
		}
		m := rt.WithImpairments(dt)
		checkTrace(t, m)
		if m.End != rt.End || !m.HasDelay {
			t.Fatalf("merged trace ends at %v (rate trace %v), HasDelay %v", m.End, rt.End, m.HasDelay)
		}
		for _, at := range []time.Duration{0, m.End / 3, m.End - 1} {
			got, _, _ := m.StepAt(at, false)
			r, _, _ := rt.StepAt(at, false)
			d, _, ok := dt.StepAt(at, false)
			if !ok {
				d = dt.Steps[len(dt.Steps)-1]
			}
			if got.Down != r.Down || got.Delay != d.Delay {
				t.Fatalf("at %v: merged %+v, rate %+v, delay %+v", at, got, r, d)
			}
		}
	})
}

// FuzzWriteSeries writes one direction's delay or loss of a fuzzed CSV
// trace as a series and reads it back with the same step: every line holds
// the trace's value at its start, delays to the nanosecond.
func FuzzWriteSeries(f *testing.F) {
	f.Add([]byte("time_s,down_delay_ms,up_delay_ms,down_loss,up_loss\n0,10,30,0,0.5\n0.025,12.5,31.000007,0.125,0.5\n0.045\n"), uint16(10), false, true)
	f.Add([]byte("time_s,delay_ms,loss\n0,2305843009213.693951,1\n1\n"), uint16(1000), true, false)
	f.Add([]byte("time_s,delay_ms\n0,0.0000005\n0.001\n"), uint16(1), false, false)
	f.Fuzz(func(t *testing.T, data []byte, stepMs uint16, up, loss bool) {
		defer tooSlow(t, time.Now())
		tr, err := readCSV(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		tr.Source = "fuzz"
		form := FormatDelay
		if loss {
			form = FormatLoss
		}
		step := time.Duration(stepMs) * time.Millisecond
		if tr.End/max(step, DefaultStep) > 100000 {
			return // too long to write in a fuzz run
		}
		var buf bytes.Buffer
		if err := WriteSeries(&buf, tr, form, up, step); err != nil {
			if loss && tr.HasLoss || !loss && tr.HasDelay {
				t.Fatalf("WriteSeries: %v", err)
			}
			return
		}
		checkSeriesRoundTrip(t, tr, form, up, step, buf.String())
	})
}

func FuzzReadCooked(f *testing.F) {
	fuzzWholeFile(f, readCooked, append(shippedHeads(f, ".cooked"),
		[]byte("0 1\n0 2\n1e-9 3\n1e9 0\n"))...)
}

// fuzzWholeFile is the target of a reader that takes nothing but the
// file: seeded with seeds, it must not panic or hang, and what it accepts
// must pass checkTrace.
func fuzzWholeFile(f *testing.F, read func(io.Reader, string) (*Trace, error), seeds ...[]byte) {
	for _, b := range seeds {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer tooSlow(t, time.Now())
		tr, err := read(bytes.NewReader(data), "fuzz")
		if err == nil {
			checkTrace(t, tr)
		}
	})
}

func FuzzReadColumns(f *testing.F) {
	for _, b := range shippedHeads(f, "lumos5g*.csv", "5gophers*.csv") {
		f.Add(b, "", "", "")
	}
	f.Add([]byte("ms,dl,ul\n1000,500,100\n1500,,200\n2000,250,-\n"), "ms", "dl", "ul")
	f.Add([]byte("a,b\n1,2\n1,3\n"), "a", "b", "")
	f.Add([]byte("a,b\n1,2\n"), "", "b", "a")
	f.Fuzz(func(t *testing.T, data []byte, timeCol, downCol, upCol string) {
		defer tooSlow(t, time.Now())
		o := ReadOptions{TimeColumn: timeCol, DownColumn: downCol, UpColumn: upCol, TimeUnit: "ms", RateUnit: "kbps"}
		tr, err := readColumns(bytes.NewReader(data), "fuzz", o)
		if err == nil {
			checkTrace(t, tr)
		}
	})
}

// FuzzTransform cuts and scales a fuzzed CSV trace.
func FuzzTransform(f *testing.F) {
	f.Add([]byte("0,10\n10,30\n20,10\n30\n"), int64(5e9), int64(10e9), 2.0, 0.5)
	f.Add([]byte("0,10\n1e-9,30\n2e-9\n"), int64(1), int64(0), 1e-10, 1e9)
	f.Add([]byte("time_s,down_mbps,down_loss,up_loss\n0,10,0,1\n1,30,0.5,0\n2\n"), int64(5e8), int64(0), 3.0, 1.0)
	f.Fuzz(func(t *testing.T, data []byte, offset, duration int64, ts, rs float64) {
		defer tooSlow(t, time.Now())
		tr, err := readCSV(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		out, err := tr.Transform(Options{Offset: time.Duration(offset), Duration: time.Duration(duration), TimeScale: ts, RateScale: rs})
		if err == nil {
			checkTrace(t, out)
		}
	})
}
