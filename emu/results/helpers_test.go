package results

import (
	"bytes"
	"io"
	"testing"
)

// logWriter is a row log's writer: OWDWriter, RRWriter, CBRWriter,
// ObjectsWriter (whose Write keeps its error for Flush).
type logWriter[R any] interface {
	Write(R)
	Flush() error
}

// writeLog writes rows with the writer newW makes and returns the log.
func writeLog[R any, W logWriter[R]](tb testing.TB, newW func(io.Writer) W, rows []R) *bytes.Buffer {
	tb.Helper()
	var b bytes.Buffer
	w := newW(&b)
	for _, r := range rows {
		w.Write(r)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return &b
}
