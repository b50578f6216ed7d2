package qlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// fuzzSeeds are the first records of each sample, whole and cut.
func fuzzSeeds(f *testing.F) {
	for _, name := range sampleFiles {
		data, err := os.ReadFile("../testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		head := data
		for i, n := 0, 0; i < len(data); i++ {
			if data[i] == '\n' {
				if n++; n == 12 {
					head = data[:i+1]
					break
				}
			}
		}
		f.Add(head)
		f.Add(head[:len(head)*2/3])
	}
	f.Add([]byte{})
	f.Add([]byte("\x1e{}\n"))
	f.Add([]byte("{\"qlog_version\":\"0.3\",\"trace\":{}}\n{\"time\":1e400,\"name\":\"x:packet_received\"}\n"))
}

// FuzzQlogReader feeds arbitrary bytes to the reader (analysis's
// FuzzAnalyzeQlog feeds them to the analysis on top of it). No
// input may panic or hang; every error must be a located *ParseError; every
// record the reader accepts must be valid JSON (checked with encoding/json,
// which shares no code with the reader's scanner).
func FuzzQlogReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), "fuzz.sqlog")
		if err != nil {
			checkLocated(t, err, len(data))
			return
		}
		err = eachEvent(r, func(ev *Event) {
			if !json.Valid(r.Record()) {
				t.Fatalf("accepted invalid JSON record %q", r.Record())
			}
			if ev.Time != ev.Time {
				t.Fatalf("NaN time from %q", r.Record())
			}
		})
		if err != nil {
			checkLocated(t, err, len(data))
		}
	})
}

func checkLocated(t *testing.T, err error, size int) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if pe.Line < 1 || pe.Offset < 0 || pe.Offset > int64(size) || pe.File != "fuzz.sqlog" {
		t.Fatalf("bad location in %v (file size %d)", err, size)
	}
}

// FuzzJSONScanner checks the validating skipper against encoding/json on
// arbitrary input: both must agree on what is one valid JSON value.
func FuzzJSONScanner(f *testing.F) {
	emutest.AddSeeds[[]byte](f, `{}`, `[]`, `{"a":[1,2.5e-3,-0,"x\u00e9\n"],"b":{"c":null,"d":true}}`,
		`{"a":1,}`, `[1 2]`, `"\x01"`, `01`, `1.`, `-`, `{"a"}`, ` {"a" : 1 } `, `"\ud800"`, `[[[[]]]]`)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := scanner{b: data}
		err := s.skip()
		if err == nil {
			err = s.finish()
		}
		var se *syntaxError
		if err != nil && errors.As(err, &se) && strings.HasPrefix(se.msg, "nesting deeper") {
			return
		}
		if ok := json.Valid(data); ok != (err == nil) {
			t.Fatalf("scanner says %v, encoding/json says valid=%v for %q", err, ok, data)
		}
	})
}
