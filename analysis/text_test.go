package analysis

import (
	"bytes"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestTextGolden pins what emu analyze prints for a run and for a qlog file.
func TestTextGolden(t *testing.T) {
	var b bytes.Buffer
	WriteRun(&b, fairnessRun(t))
	emutest.Golden(t, "run.golden", b.Bytes())

	b.Reset()
	WriteQlog(&b, analyzeFile(t, "testdata/quicgo-client.sqlog", QlogOptions{}))
	emutest.Golden(t, "qlog.golden", b.Bytes())
}
