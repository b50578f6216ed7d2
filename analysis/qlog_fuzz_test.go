package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/dc-emu/emu/analysis/qlog"
)

// FuzzAnalyzeQlog feeds arbitrary bytes to the analysis of one qlog file
// (analysis/qlog's FuzzQlogReader checks the reader beneath it). No input
// may panic or hang; an error other than a cut-short file returns no
// result; a result has at most maxBins bins and marshals.
func FuzzAnalyzeQlog(f *testing.F) {
	// The samples' first 8 KB: a header and some dozens of events, the
	// last one cut.
	for _, name := range sampleFiles {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 8<<10)])
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := AnalyzeQlog(bytes.NewReader(data), "fuzz.sqlog", QlogOptions{})
		if err != nil && !errors.Is(err, qlog.ErrTruncated) {
			if a != nil {
				t.Fatalf("result %v returned with non-truncation error %v", a, err)
			}
			return
		}
		if len(a.Bins) > maxBins {
			t.Fatalf("%d bins", len(a.Bins))
		}
		if len(a.Bins) > 10000 {
			return // valid but slow to marshal; the bins were checked above
		}
		if _, err := json.Marshal(a); err != nil {
			t.Fatalf("analysis does not marshal: %v", err)
		}
	})
}
