package analysis

import (
	"bytes"
	"os"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestTextGolden pins what emu analyze prints for a run and for a qlog file.
func TestTextGolden(t *testing.T) {
	ra, err := AnalyzeRun(os.DirFS("testdata/run-fairness"), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteRun(&b, ra)
	emutest.Golden(t, "run.golden", b.Bytes())

	f, err := os.Open("testdata/quicgo-client.sqlog")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := AnalyzeQlog(f, "quicgo-client.sqlog", QlogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	WriteQlog(&b, a)
	emutest.Golden(t, "qlog.golden", b.Bytes())
}
