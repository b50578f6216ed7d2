package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestOWDRoundTrip(t *testing.T) {
	rows := []OWDRow{
		{T: 0, Offset: 0, OWD: 1234567 * time.Nanosecond},
		{T: 1500 * time.Millisecond, Offset: 16384, OWD: 10*time.Millisecond + 499*time.Nanosecond},
		{T: 1500 * time.Millisecond, Offset: 32768, OWD: -3 * time.Microsecond},
		{T: 3600*time.Second + time.Microsecond, Offset: 1 << 40, OWD: 2 * time.Second},
	}
	buf := writeLog(t, NewOWDWriter, rows)
	want := OWDHeader + "\n" +
		"0.000000,0,1.235\n" +
		"1.500000,16384,10.000\n" +
		"1.500000,32768,-0.003\n" +
		"3600.000001,1099511627776,2000.000\n"
	if buf.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", buf.String(), want)
	}
	got, err := ReadOWD(buf, "owd.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		r.T, r.OWD = r.T.Round(time.Microsecond), r.OWD.Round(time.Microsecond)
		if got[i] != r {
			t.Errorf("row %d: read %+v, wrote %+v", i, got[i], r)
		}
	}
}

func TestOWDFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "owd.csv")
	if err := os.WriteFile(path, []byte(OWDHeader+"\r\n0.5,0,1.0\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadOWDFile(path)
	if err != nil || len(rows) != 1 || rows[0] != (OWDRow{T: 500 * time.Millisecond, OWD: time.Millisecond}) {
		t.Fatalf("%+v, %v", rows, err)
	}
	if _, err := ReadOWDFile(path + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestOWDErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		is   error
	}{
		{"", "f: header: empty file", ErrHeader},
		{"t_s,bytes\n", `f:1: header: "t_s,bytes"`, ErrHeader},
		{OWDHeader + "\n1,2\n", `f:2: "1,2": wrong number of columns`, ErrColumns},
		{OWDHeader + "\n1,2,3,4\n", `f:2: "1,2,3,4"`, ErrColumns},
		{OWDHeader + "\n\n", `f:2: wrong number`, ErrColumns},
		{OWDHeader + "\nabc,0,1\n", `f:2: t_s: "abc": `, strconv.ErrSyntax},
		{OWDHeader + "\nNaN,0,1\n", `f:2: t_s: "NaN": out of range`, ErrRange},
		{OWDHeader + "\n0,0,1e300\n", `f:2: owd_ms: "1e300"`, ErrRange},
		{OWDHeader + "\n0,-1,1\n", `f:2: offset: "-1"`, ErrRange},
		{OWDHeader + "\n0,x,1\n", `f:2: offset: "x"`, strconv.ErrSyntax},
		{OWDHeader + "\n0,5,1\n0,5,1\n", `f:3: offset: "5": goes backwards`, ErrBackwards},
		{OWDHeader + "\n2,5,1\n1,6,1\n", `f:3: t_s: "1s": goes backwards`, ErrBackwards},
		{OWDHeader + "\n0,0," + strings.Repeat("9", 5000) + "\n", `f:2: bufio.Scanner: token too long`, nil},
	} {
		_, err := ReadOWD(strings.NewReader(tc.in), "f")
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%q: error %v, want %q (%v)", tc.in, err, tc.want, tc.is)
		}
	}
}

// TestOWDWriteAllocs: a row per stamp must not allocate.
func TestOWDWriteAllocs(t *testing.T) {
	w := NewOWDWriter(discard{})
	r := OWDRow{T: time.Second, Offset: 1 << 30, OWD: 12345 * time.Microsecond}
	if n := testing.AllocsPerRun(1000, func() { r.Offset++; w.Write(r) }); n != 0 {
		t.Errorf("%.1f allocations per row", n)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func BenchmarkOWDWrite(b *testing.B) {
	w := NewOWDWriter(discard{})
	r := OWDRow{T: time.Second, OWD: 12345 * time.Microsecond}
	b.ReportAllocs()
	for b.Loop() {
		r.Offset += 16384
		w.Write(r)
	}
}

// FuzzReadOWD: the reader never panics, and whatever it accepts writes
// back to a log it reads the same.
func FuzzReadOWD(f *testing.F) {
	f.Add([]byte(OWDHeader + "\n0.000100,0,0.050\n0.2,16384,1\n"))
	f.Add([]byte(OWDHeader + "\r\n-1,0,-0.5\r\n"))
	f.Add([]byte("\ufeff" + OWDHeader + "\n1e2,1,+3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ReadOWD(bytes.NewReader(data), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		buf := writeLog(t, NewOWDWriter, rows)
		again, err := ReadOWD(buf, "again")
		if err != nil {
			t.Fatalf("rewritten log does not read: %v\n%s", err, buf.String())
		}
		if len(again) != len(rows) {
			t.Fatalf("%d rows, %d after rewriting", len(rows), len(again))
		}
		for i := range rows {
			if again[i] != rows[i] {
				t.Fatalf("row %d: %+v, %+v after rewriting", i, rows[i], again[i])
			}
		}
	})
}
