package qlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Reader reads a sequential qlog file (JSON-SEQ as quic-go v0.65 and
// ngtcp2 0.12 write it, or NDJSON) one record at a time. It holds only a
// window of the file in memory, so a multi-gigabyte qlog costs the same
// memory as a small one.
//
// Records are split at line feeds and at record separators (0x1E), so both
// "0x1E json LF" and plain line-per-record files work; a record separator
// in the middle of a line also starts a new record.
//
// A file cut short by a killed writer ends in a partial record. Next then
// returns a *ParseError wrapping ErrTruncated after all complete records;
// everything read before stays valid. A malformed record anywhere else is
// an error too (not wrapping ErrTruncated): the reader never skips input
// silently.
//
// Not safe for concurrent use.
type Reader struct {
	src       io.Reader
	name      string
	hdr       Header
	headerRaw []byte

	buf        []byte
	start, end int   // unread data is buf[start:end]
	bufOffset  int64 // file offset of buf[0]
	eof        bool
	readErr    error
	line       int // line number of buf[start]
	rec        []byte
	recLine    int
	recOffset  int64
	events     int
	done       error // sticky terminal error
}

const (
	readChunk = 256 << 10
	// maxRecord bounds one record; a longer "line" means the input is not
	// a qlog (e.g. a binary file without line feeds).
	maxRecord = 16 << 20
)

// NewReader reads the header record of src and checks that it is a
// sequential qlog. name is used in error messages (the file name).
// Errors wrap ErrEmpty or ErrNotQlog and are *ParseError values with the
// line and byte offset.
func NewReader(src io.Reader, name string) (*Reader, error) {
	r := &Reader{src: src, name: name, buf: make([]byte, readChunk), line: 1}
	rec, err := r.nextRecord()
	if err == io.EOF {
		if r.bufOffset+int64(r.end) == 0 {
			return nil, &ParseError{File: name, Line: 1, Offset: 0, Err: ErrEmpty}
		}
		return nil, &ParseError{File: name, Line: r.line, Offset: r.bufOffset + int64(r.end),
			Err: fmt.Errorf("%w (the file holds only whitespace)", ErrEmpty)}
	}
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(rec)
	if err != nil {
		return nil, &ParseError{File: name, Line: r.recLine, Offset: r.recOffset, Err: err}
	}
	r.hdr = h
	r.headerRaw = append([]byte(nil), rec...)
	return r, nil
}

// Header returns the file's header record.
func (r *Reader) Header() Header { return r.hdr }

// HeaderRecord returns the header record's raw JSON.
func (r *Reader) HeaderRecord() []byte { return r.headerRaw }

// Name returns the name given to NewReader.
func (r *Reader) Name() string { return r.name }

// Next decodes the next event into ev, reusing ev's memory. It returns
// io.EOF after the last event, or a *ParseError (wrapping ErrTruncated for
// a cut-off last record). After an error, every later call returns it again.
func (r *Reader) Next(ev *Event) error {
	if r.done != nil {
		return r.done
	}
	rec, err := r.nextRecord()
	if err != nil {
		r.done = err
		return err
	}
	if err := decodeEvent(rec, ev); err != nil {
		r.done = r.classify(err)
		return r.done
	}
	r.events++
	return nil
}

// Record returns the raw bytes of the record Next decoded last, without the
// separator and line feed. It is valid until the next call to Next.
func (r *Reader) Record() []byte { return r.rec }

// Line returns the line number of the record Next decoded last.
func (r *Reader) Line() int { return r.recLine }

// Offset returns the byte offset in the file of that record.
func (r *Reader) Offset() int64 { return r.recOffset }

// Events returns how many events were decoded so far.
func (r *Reader) Events() int { return r.events }

// classify decides whether a record that failed to decode is a truncated
// last record (ErrTruncated) or a corrupt one.
func (r *Reader) classify(err error) error {
	pe := recordError(r.name, r.recLine, r.recOffset, err)
	if !errors.Is(err, errUnexpectedEnd) {
		return pe
	}
	last, rerr := r.atEnd()
	if rerr != nil {
		return rerr
	}
	if !last {
		return pe
	}
	pe.Err = fmt.Errorf("%w: %d bytes of an incomplete record after %d complete events", ErrTruncated, len(r.rec), r.events)
	pe.Field = ""
	pe.Offset = r.recOffset
	return pe
}

// atEnd reports whether nothing but separators and whitespace follows the
// current record.
func (r *Reader) atEnd() (bool, error) {
	for {
		for i := r.start; i < r.end; i++ {
			switch r.buf[i] {
			case ' ', '\t', '\r', '\n', 0x1E:
			default:
				return false, nil
			}
		}
		if r.eof {
			return true, nil
		}
		r.start = r.end // only whitespace so far: drop it (line count no longer matters)
		if err := r.fill(); err != nil {
			return false, err
		}
	}
}

// nextRecord returns the next non-blank record. The slice aliases the read
// buffer and is valid until the next call.
func (r *Reader) nextRecord() ([]byte, error) {
	for {
		// Skip leading separators and blank lines.
		for r.start < r.end {
			c := r.buf[r.start]
			if c == '\n' {
				r.line++
			} else if c != 0x1E && c != ' ' && c != '\t' && c != '\r' {
				break
			}
			r.start++
		}
		if r.start == r.end {
			if r.eof {
				return nil, io.EOF
			}
			if err := r.fill(); err != nil {
				return nil, err
			}
			continue
		}
		data := r.buf[r.start:r.end]
		lf := bytes.IndexByte(data, '\n')
		line := data
		if lf >= 0 {
			line = data[:lf]
		}
		var rec []byte
		var consumed int
		newline := false
		switch rs := bytes.IndexByte(line, 0x1E); {
		case rs >= 0:
			rec, consumed = data[:rs], rs
		case lf >= 0:
			rec, consumed, newline = line, lf+1, true
		case r.eof:
			rec, consumed = data, len(data)
		default:
			if err := r.fill(); err != nil {
				return nil, err
			}
			continue
		}
		r.rec = bytes.TrimRight(rec, " \t\r")
		r.recLine = r.line
		r.recOffset = r.bufOffset + int64(r.start)
		r.start += consumed
		if newline {
			r.line++
		}
		return r.rec, nil
	}
}

// fill reads more input, first moving unread data to the front of the
// buffer and growing it when one record does not fit.
func (r *Reader) fill() error {
	if r.readErr != nil {
		return r.readErr
	}
	if r.start > 0 {
		copy(r.buf, r.buf[r.start:r.end])
		r.bufOffset += int64(r.start)
		r.end -= r.start
		r.start = 0
	}
	if r.end == len(r.buf) {
		if len(r.buf) >= maxRecord {
			r.readErr = &ParseError{File: r.name, Line: r.line, Offset: r.bufOffset,
				Err: fmt.Errorf("%w: no record end within %d MiB", ErrNotQlog, maxRecord>>20)}
			return r.readErr
		}
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err == io.EOF {
			r.eof = true
			return nil
		}
		if err != nil {
			r.readErr = fmt.Errorf("%s: read at byte %d: %w", r.name, r.bufOffset+int64(r.end), err)
			return r.readErr
		}
		if n > 0 {
			return nil
		}
	}
	r.readErr = fmt.Errorf("%s: read returned no data 100 times: %w", r.name, io.ErrNoProgress)
	return r.readErr
}
