package tracefmt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// ReadOptions tune how a file is read. The zero value detects the format and
// uses each format's default reading.
type ReadOptions struct {
	// Format forces a format; "" detects it from the file's content.
	Format Format

	// Timestamps makes a Raca CSV replay by its Timestamp column
	// (sample-and-hold per distinct timestamp) instead of one row per second.
	Timestamps bool

	// Window is the Mahimahi rate-averaging window; 0 means 10 ms. At least
	// 1 ms (the format's resolution).
	Window time.Duration
	// Step is how long each value of a delay or loss series lasts
	// (FormatDelay, FormatLoss); 0 means DefaultStep.
	Step time.Duration

	// Up is a Mahimahi uplink trace read alongside a downlink one (Read);
	// UpName names it in errors. ReadFile opens UpPath instead.
	Up     io.Reader
	UpName string
	UpPath string

	// TimeColumn, DownColumn and UpColumn name the columns of a "columns"
	// CSV (matched case-insensitively). An empty TimeColumn means one row per
	// second; an empty DownColumn is allowed only for headers Detect knows
	// (Lumos5G, 5Gophers). UpColumn is optional.
	TimeColumn, DownColumn, UpColumn string
	// TimeUnit is "s" (default) or "ms"; RateUnit is "bps", "kbps", "mbps"
	// (default) or "gbps".
	TimeUnit, RateUnit string
}

// DefaultWindow is the Mahimahi rate-averaging window when
// ReadOptions.Window is 0.
const DefaultWindow = 10 * time.Millisecond

// detectLen is how much of a file Detect looks at.
const detectLen = 4096

// maxLine bounds one line of a trace file; longer lines are an error rather
// than an unbounded buffer.
const maxLine = 1 << 20

// ReadFile reads the trace at path; the path names it in errors.
func ReadFile(path string, o ReadOptions) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if o.UpPath != "" && o.Up == nil {
		up, err := os.Open(o.UpPath)
		if err != nil {
			return nil, err
		}
		defer up.Close()
		o.Up, o.UpName = up, o.UpPath
	}
	return Read(f, path, o)
}

// Read reads a trace from r; name identifies it in errors and becomes
// Trace.Source.
func Read(r io.Reader, name string, o ReadOptions) (*Trace, error) {
	if o.UpPath != "" && o.Up == nil {
		return nil, fmt.Errorf("%s: ReadOptions.UpPath is for ReadFile; Read takes Up", name)
	}
	br := bufio.NewReaderSize(r, detectLen)
	skipBOM(br)
	f := o.Format
	if f == "" {
		head, err := br.Peek(detectLen)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if f, err = Detect(head); err != nil {
			return nil, parseErr(name, 1, "", "", err)
		}
	}
	if o.Up != nil && f != FormatMahimahi {
		return nil, fmt.Errorf("%s: a separate uplink file is only for Mahimahi traces, not %s", name, f)
	}
	var (
		t   *Trace
		err error
	)
	switch f {
	case FormatRaca:
		t, err = readRaca(br, name, o.Timestamps)
	case FormatMahimahi:
		t, err = readMahimahiPair(br, name, o)
	case FormatCSV:
		t, err = readCSV(br, name)
	case FormatCooked:
		t, err = readCooked(br, name)
	case FormatColumns:
		t, err = readColumns(br, name, o)
	case FormatDelay, FormatLoss:
		t, err = readSeries(br, name, f, o.Step)
	default:
		_, err = ParseFormat(string(f))
	}
	if err != nil {
		return nil, err
	}
	t.Source, t.Format = name, f
	if err := t.Validate(); err != nil {
		// Readers guarantee the invariants; reaching this is a bug here.
		return nil, fmt.Errorf("%s: reader produced %w", name, err)
	}
	return t, nil
}

// skipBOM drops a UTF-8 byte order mark, which spreadsheet exports prepend.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
}

// lineScanner walks a file line by line, counting lines and refusing
// lines longer than maxLine.
type lineScanner struct {
	sc   *bufio.Scanner
	name string
	line int
}

func newLineScanner(r io.Reader, name string) *lineScanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &lineScanner{sc: sc, name: name}
}

// next returns the next line that is not blank, with its surrounding
// white space removed; ok is false at the end of the input or on error
// (see err).
func (s *lineScanner) next() (text string, ok bool) {
	b, ok := s.nextBytes()
	return string(b), ok
}

// nextBytes is the next line that is not blank, trimmed, without the
// copy; the bytes are valid until the next call. Blank lines still count
// for the line numbers of errors.
func (s *lineScanner) nextBytes() ([]byte, bool) {
	for s.sc.Scan() {
		s.line++
		if b := bytes.TrimSpace(s.sc.Bytes()); len(b) > 0 {
			return b, true
		}
	}
	return nil, false
}

func (s *lineScanner) err() error {
	if err := s.sc.Err(); err != nil {
		return parseErr(s.name, s.line+1, "", "", err)
	}
	return nil
}
